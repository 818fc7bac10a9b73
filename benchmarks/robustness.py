#!/usr/bin/env python3
"""Robustness at scale: ``cooptest cfa`` and ``cooptest generate`` on many tasks, as a user
runs them (one process per task), counting what must never happen.

    python benchmarks/robustness.py cfa      TASK_DIR --out DIR
    python benchmarks/robustness.py generate TASK_DIR --out DIR [--sample N] [--budget 5] [--strategy S]

For every task: the exit code, whether stderr holds a traceback, the wall time (an
overrun is a ``generate`` taking longer than budget + 1 s), the processes still running
from the task's temporary folder afterwards (strays: every build and test lives in a
``$TMPDIR`` private to the task) and the files left in it. ``--sample N`` takes a
stratified sample (N tasks spread over the folders of TASK_DIR in proportion to their
size, at least one each, seeded); without it every task is run. Writes ``DIR/rows.jsonl``
and prints a Markdown summary: counts, every exit 3, every overrun, and the exit-2
reasons grouped.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def tasks_of(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.yml"))


def stratified(tasks: list[Path], n: int, seed: int) -> list[Path]:
    """``n`` tasks spread over the folders in proportion to their size (at least one)."""
    by_folder: dict[Path, list[Path]] = collections.defaultdict(list)
    for t in tasks:
        by_folder[t.parent].append(t)
    rng = random.Random(seed)
    chosen: list[Path] = []
    for folder, members in sorted(by_folder.items()):
        k = max(1, round(n * len(members) / len(tasks)))
        chosen += rng.sample(members, min(k, len(members)))
    return sorted(chosen)


def running_under(folder: str) -> list[str]:
    """Processes (not zombies) whose executable lies under ``folder``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            exe = os.readlink(f"/proc/{pid}/exe")
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if exe.startswith(folder) and state != "Z":
            found.append(f"{pid}:{os.path.basename(exe)}")
    return found


def run_one(task: Path, args: argparse.Namespace) -> dict:
    tmp = tempfile.mkdtemp(prefix="robustness-")
    out = os.path.join(args.out, "runs", f"{task.parent.name}__{task.stem}")
    cmd = [sys.executable, "-m", "cooptest.cli", args.command, str(task)]
    cmd += ["--json"] if args.command == "cfa" else [
        "--budget", str(args.budget), "--out", out, "--quiet", "--strategy", args.strategy]
    env = {**os.environ, "TMPDIR": tmp}
    started = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env,
                              stdin=subprocess.DEVNULL, timeout=args.timeout)
        code, err = proc.returncode, proc.stderr
    except subprocess.TimeoutExpired as e:
        code, err = "timeout", (e.stderr or b"").decode(errors="replace")
    wall = time.monotonic() - started
    strays = running_under(tmp)
    left = sorted(os.listdir(tmp))
    shutil.rmtree(tmp, ignore_errors=True)
    lines = [l for l in err.splitlines() if l.startswith("cooptest:")]
    return {"task": str(task), "exit": code, "wall": round(wall, 2),
            "traceback": "Traceback (most recent call last)" in err,
            "message": lines[-1] if lines else "", "strays": strays, "left": left,
            "overrun": args.command == "generate" and wall > args.budget + 1}


def reason(message: str) -> str:
    """An exit-2 message without the file and line it names: what kind of bad input."""
    text = re.sub(r"^cooptest: (?:[^:]*\.(?:c|i|h|yml)(?::\d+)?: )?", "", message)
    return re.sub(r"\b\d+\b", "N", re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text))[:140]


def summary(rows: list[dict], args: argparse.Namespace) -> str:
    exits = collections.Counter(str(r["exit"]) for r in rows)
    out = [f"`cooptest {args.command}` on {len(rows)} tasks"
           + (f" (budget {args.budget:g} s)" if args.command == "generate" else ""), "",
           "| tasks | exit 0 | exit 2 | exit 3 | other | tracebacks | overruns (> budget + 1 s) "
           "| stray processes | runs leaving temp files | max wall (s) |",
           "|---|---|---|---|---|---|---|---|---|---|",
           f"| {len(rows)} | {exits.get('0', 0)} | {exits.get('2', 0)} | {exits.get('3', 0)} "
           f"| {len(rows) - sum(exits.get(k, 0) for k in ('0', '2', '3'))} "
           f"| {sum(r['traceback'] for r in rows)} | {sum(r['overrun'] for r in rows)} "
           f"| {sum(len(r['strays']) for r in rows)} | {sum(bool(r['left']) for r in rows)} "
           f"| {max((r['wall'] for r in rows), default=0):.1f} |", ""]
    for title, bad in (("exit 3 / other", [r for r in rows if str(r["exit"]) not in ("0", "2")]),
                       ("overruns", [r for r in rows if r["overrun"]]),
                       ("strays or temp files", [r for r in rows if r["strays"] or r["left"]])):
        if bad:
            out.append(f"{title}:")
            out += [f"- {r['task']}: exit {r['exit']}, {r['wall']} s, {r['message']} "
                    f"{r['strays'] or ''} {r['left'] or ''}".rstrip() for r in bad]
            out.append("")
    reasons = collections.Counter(reason(r["message"]) for r in rows if r["exit"] == 2)
    if reasons:
        out += ["exit 2 by reason:", "", "| tasks | reason |", "|---|---|"]
        out += [f"| {n} | {why} |" for why, n in reasons.most_common()]
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("cfa", "generate"))
    ap.add_argument("tasks", type=Path)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sample", type=int, help="stratified sample of this many tasks")
    ap.add_argument("--budget", type=float, default=5.0)
    ap.add_argument("--strategy", default="auto", help="generate's --strategy")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=300, help="per task, a safety net")
    args = ap.parse_args()
    tasks = tasks_of(args.tasks)
    if args.sample:
        tasks = stratified(tasks, args.sample, args.seed)
    os.makedirs(args.out, exist_ok=True)
    rows = []
    with open(os.path.join(args.out, "rows.jsonl"), "w") as f:
        for i, task in enumerate(tasks, 1):
            rows.append(run_one(task, args))
            f.write(json.dumps(rows[-1]) + "\n")
            f.flush()
            print(f"[{i}/{len(tasks)}] {rows[-1]['exit']} {rows[-1]['wall']}s {task.name}",
                  file=sys.stderr)
    print(summary(rows, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
