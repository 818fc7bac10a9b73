#!/usr/bin/env python3
"""How far the front end gets on the dev set: ``cooptest cfa`` on every task.

Counts the tasks whose CFA is built, those rejected with the one-line user error (exit 2)
and internal errors (exit 3: a crash, the front end's bug), and times ``cooptest cfa`` on
the largest task as a user runs it (a fresh process): cold (nothing cached) and with the
AST of the program in the cache.

    python benchmarks/frontend_bench.py [--limit N] [--timing-only]
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import glob
import io
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cooptest.cli import main as cooptest

TESTCOMP = Path(__file__).resolve().parents[1].parent / "shared" / "benchmarks" / "testcomp"
LARGEST = TESTCOMP / "combinations" / "pals_lcr.8.ufo.BOUNDED-16.pals+Problem12_label03.yml"


def cfa_in_process(task: str) -> tuple[int, str, float]:
    """Exit code, stderr and seconds of ``cooptest cfa --json TASK`` (in this process:
    190 interpreter start-ups would dominate the measurement)."""
    err, start = io.StringIO(), time.monotonic()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cooptest(["cfa", "--json", task])
    return code, err.getvalue(), time.monotonic() - start


def cfa_seconds(task: Path, cache: str, repeat: int = 3) -> list[tuple[float, float]]:
    """(wall, cpu) seconds of ``cooptest cfa --json`` in a fresh process, with the AST
    cache in ``cache`` ("off": cold, everything parsed)."""
    out = []
    env = dict(os.environ, COOPTEST_CACHE=cache)
    for _ in range(repeat):
        before = os.times()
        start = time.monotonic()
        subprocess.run([sys.executable, "-m", "cooptest.cli", "cfa", "--json", str(task)],
                       check=True, capture_output=True, env=env)
        after = os.times()
        out.append((time.monotonic() - start,
                    after.children_user - before.children_user + after.children_system - before.children_system))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--timing-only", action="store_true", help="only time the largest task")
    args = ap.parse_args()
    tasks = [] if args.timing_only else sorted(glob.glob(str(TESTCOMP / "*" / "*.yml")))[: args.limit or None]
    outcome: collections.Counter[int] = collections.Counter()
    messages: collections.Counter[str] = collections.Counter()
    for task in tasks:
        code, err, secs = cfa_in_process(task)
        outcome[code] += 1
        lines = err.splitlines()
        if code:
            assert len(lines) == 1 and "Traceback" not in err, err
            # the kind of error without the file/line part
            messages[lines[0].split(": ", 2)[-1][:90]] += 1
            print(f"{os.path.relpath(task, TESTCOMP)}: {lines[0]}", file=sys.stderr)
    if tasks:
        print(f"CFA built: {outcome[0]}/{len(tasks)}; one-line user errors (exit 2): {outcome[2]}; "
              f"internal errors (exit 3): {outcome[3]}")
        for msg, n in messages.most_common():
            print(f"  {n:3d}  {msg}")
    if LARGEST.exists():
        with tempfile.TemporaryDirectory(prefix="cooptest-cache-") as cache:
            for label, where in (("cold, nothing cached", "off"), ("AST cached", cache)):
                runs = cfa_seconds(LARGEST, where)
                print(f"cooptest cfa on {LARGEST.name}: wall " + ", ".join(f"{w:.2f}" for w, _ in runs)
                      + " s; cpu " + ", ".join(f"{c:.2f}" for _, c in runs) + f" s ({label}, fresh process)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
