"""Native runs per second of the executor: the rate every analysis's tests are run at.

    python benchmarks/native_runs.py [PROGRAM.c] [--runs 2000] [--work DIR]

Builds the instrumented program once, then runs it ``--runs`` times on inputs that
cycle through a few values and prints runs per second (the build excluded). Time it as a
whole process against another revision with farm-bench, e.g.

    farm-bench -n 5 -- env PYTHONPATH=NEW/src python benchmarks/native_runs.py \\
        --vs 'env PYTHONPATH=OLD/src python benchmarks/native_runs.py'
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from cooptest.frontend import load_program
from cooptest.harness.executor import Executor
from cooptest.task import load_task

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "triangle.c"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("program", nargs="?", default=str(EXAMPLE))
    ap.add_argument("--runs", type=int, default=2000)
    ap.add_argument("--work", default=None)
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="native-runs-")
    executor = Executor(load_program(load_task(args.program), work), work)
    inputs = [[str(a), str(b), str(c)] for a in (1, 3) for b in (3, 4) for c in (3, 5)]
    started = time.monotonic()
    for k in range(args.runs):
        executor.run(inputs[k % len(inputs)])
    seconds = time.monotonic() - started
    print(f"{args.runs} runs in {seconds:.2f} s: {args.runs / seconds:.0f} runs/s")


if __name__ == "__main__":
    main()
