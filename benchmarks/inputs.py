#!/usr/bin/env python3
"""Programs that take their inputs as real programs do (issue 39): argv, stdin, a named
file, and harnesses written for CREST and KLEE (``benchmarks/inputs/``).

Each program is generated for with ``auto`` at ``--budget`` seconds with the options
that make its inputs inputs, and once more without them where it reads argv or stdin
(the soundness row: with a source left out, no goal may be proven infeasible). The table
gives goals, covered, proven infeasible, the time the run took and its divergences; the
suite is then replayed with the same options and the goals the replay covers compared
with the report's.

    python benchmarks/inputs.py [--budget 30]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent / "inputs"
PROGRAMS: list[tuple[str, tuple[str, ...]]] = [
    ("args.c", ("--sym-args", "0", "3", "3")),
    ("args.c", ()),
    ("getchar.c", ("--sym-stdin", "8")),
    ("keyword.c", ("--sym-stdin", "16")),
    ("keyword.c", ()),
    ("file.c", ("--sym-file", "data.bin:4")),
    ("scan.c", ("--sym-stdin", "12")),
    ("scan.c", ("--sym-stdin", "12", "--strategy", "concolic", "--search", "cgs")),
    ("crest_harness.c", ()),
    ("klee_harness.c", ()),
]


def cooptest(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cooptest.cli", *args], capture_output=True, text=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=30)
    args = ap.parse_args()
    print("| program | options | goals | covered | infeasible | s | divergences | replay agrees |")
    print("|---|---|---|---|---|---|---|---|")
    for name, options in PROGRAMS:
        with tempfile.TemporaryDirectory() as out:
            program = str(HERE / name)
            r = cooptest("generate", program, *options, "--budget", str(args.budget), "--out", out,
                         "--quiet")
            if r.returncode != 0:
                print(f"| {name} | {' '.join(options)} | error: {r.stderr.strip()} |")
                continue
            doc = json.loads((Path(out) / "report.json").read_text())
            s = doc["summary"]
            covered = {g["id"] for g in doc["goals"] if g["status"] == "covered"}
            inputs = [o for o in options if o not in ("--strategy", "--search", "concolic", "cgs")]
            replay = cooptest("replay", "--json", program, *inputs, str(Path(out) / "test-suite.zip"))
            replayed = set().union(*(set(t["covers"]) for t in json.loads(replay.stdout))) \
                if replay.returncode == 0 else None
            print(f"| {name} | {' '.join(options) or '(none)'} | {s['goals']} | {s['covered']} | "
                  f"{s['infeasible']} | {s['time_s']} | {s['divergences']} | "
                  f"{'yes' if replayed == covered else f'no: {replayed} vs {covered}'} |")


if __name__ == "__main__":
    main()
