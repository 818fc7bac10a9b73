#!/usr/bin/env python3
"""Programs of several files (issue 38): GNU grep 2.2 loaded as CREST built it, and the
dev tasks' goals compared with an earlier revision.

* ``grep``: ``cooptest cfa`` on grep's files with its flags (``crest_subjects``), in a fresh process
  as a user runs it, cold (an empty AST cache) and cached (best of three); the goals
  per file; and the instrumented build run natively (no arguments: usage, exit 2, the
  inputs of argv are issue 39's).
* ``dev``: for every dev task, the CFA's goals and the TestCov-style goals (the
  labelled build's, as ``cooptest coverage`` counts them) with this checkout and with
  ``--baseline REV`` (a git worktree of that revision), and the tasks where they differ.

    python benchmarks/multifile.py grep
    python benchmarks/multifile.py dev --baseline b00da53 [--limit N]
"""
from __future__ import annotations

import argparse
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from crest_subjects import GREP, GREP_DEFINES, GREP_FILES, GREP_FLAGS, GREP_INCLUDES

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "benchmarks"

COUNT = """
import json, sys, tempfile
from cooptest.frontend import load_program
from cooptest.frontend.preprocess import preprocess
from cooptest.harness.coverage import CoverageMeter
from cooptest.task import load_task
for task_file in sys.argv[1:]:
    task = load_task(task_file)
    with tempfile.TemporaryDirectory() as work:
        try:
            program = load_program(task, work).program
            meter = CoverageMeter(task, preprocess(task, work), work)
            print(json.dumps({"task": task_file, "cfa": len(program.goals()),
                              "testcov_style": len(meter.goals())}), flush=True)
        except Exception as e:
            print(json.dumps({"task": task_file, "error": f"{type(e).__name__}: {e}"}), flush=True)
"""


def grep() -> None:
    cmd = [sys.executable, "-m", "cooptest.cli", "cfa", "--json", *GREP_FILES, *GREP_FLAGS]
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "COOPTEST_CACHE": cache}
        times = []
        for _ in range(4):
            start = time.monotonic()
            proc = subprocess.run(cmd, cwd=GREP, env=env, capture_output=True, text=True)
            times.append(time.monotonic() - start)
            assert proc.returncode == 0, proc.stderr
    print(f"grep 2.2, {len(GREP_FILES)} files: {proc.stdout.strip()}")
    print(f"load (cfa) cold {times[0]:.2f} s, cached {min(times[1:]):.2f} s (best of 3)")
    from cooptest.frontend import load_program
    from cooptest.harness.executor import Executor
    from cooptest.sources import common_flags, load_program_task
    cwd = os.getcwd()
    os.chdir(GREP)
    try:
        task = load_program_task(GREP_FILES, flags=common_flags(GREP_INCLUDES, GREP_DEFINES, None))
    finally:
        os.chdir(cwd)
    with tempfile.TemporaryDirectory() as work:
        frontend = load_program(task, work)
        per_file = collections.Counter(os.path.relpath(g.file, GREP.parent) for g in frontend.program.goals())
        print("goals per file: " + ", ".join(f"{f} {n}" for f, n in sorted(per_file.items())))
        start = time.monotonic()
        executor = Executor(frontend, os.path.join(work, "build"))
        built = time.monotonic() - start
        run = executor.run([])
        print(f"native build {built:.2f} s; a run without arguments: exit {run.exit_code}, "
              f"{len(run.covered)} goals covered, {run.seconds * 1000:.1f} ms")


def counts(src: Path, tasks: list[str]) -> dict[str, dict]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    proc = subprocess.run([sys.executable, "-c", COUNT, *tasks], env=env, capture_output=True, text=True)
    return {d["task"]: d for d in map(json.loads, proc.stdout.splitlines())}


def dev(baseline: str, limit: int | None) -> None:
    tasks = sorted(glob.glob(str(SHARED / "testcomp" / "*" / "*.yml")))[:limit]
    with tempfile.TemporaryDirectory() as tree:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", tree, baseline],
                       check=True, capture_output=True)
        try:
            before = counts(Path(tree) / "src", tasks)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", tree],
                           capture_output=True)
    after = counts(ROOT / "src", tasks)
    differ = [t for t in tasks if before.get(t) != after.get(t)]
    for key in ("cfa", "testcov_style"):
        print(f"{key} goals: before {sum(d.get(key, 0) for d in before.values())}, "
              f"after {sum(d.get(key, 0) for d in after.values())}")
    print(f"{len(tasks)} tasks, {len(differ)} differ "
          f"({sum('error' in d for d in after.values())} errors after, "
          f"{sum('error' in d for d in before.values())} before)")
    for t in differ:
        print(f"  {os.path.basename(t)}: {before.get(t)} -> {after.get(t)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    sub.add_parser("grep")
    d = sub.add_parser("dev")
    d.add_argument("--baseline", required=True)
    d.add_argument("--limit", type=int)
    args = ap.parse_args()
    grep() if args.what == "grep" else dev(args.baseline, args.limit)


if __name__ == "__main__":
    main()
