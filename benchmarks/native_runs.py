"""Native runs per second of the executor: the rate every analysis's tests are run at.

    python benchmarks/native_runs.py [PROGRAM.c] [--runs 2000] [--work DIR]
    python benchmarks/native_runs.py [PROGRAM.c] --vs OLD/src [--src NEW/src] [--pairs 5]

Builds the instrumented program once, then runs it ``--runs`` times on inputs that
cycle through a few values and prints runs per second (the build excluded). With
``--vs``, two revisions are compared: the script runs itself in a fresh process under
each source tree (``PYTHONPATH``), alternately, ``--pairs`` times (the first of a pair
alternates too), and prints each pair's runs per second and their ratio, then the
median ratio: a pair is taken close together in time, so it holds when the machine's
speed drifts. Run it on an idle machine.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "triangle.c"


def rate(program: str, runs: int, work: str | None) -> float:
    """Runs per second of ``runs`` native runs of ``program`` (after its build)."""
    from cooptest.frontend import load_program
    from cooptest.harness.executor import Executor
    from cooptest.task import load_task
    if work is None:
        with tempfile.TemporaryDirectory(prefix="native-runs-") as scratch:
            return rate(program, runs, scratch)
    executor = Executor(load_program(load_task(program), work), work)
    inputs = [[str(a), str(b), str(c)] for a in (1, 3) for b in (3, 4) for c in (3, 5)]
    started = time.monotonic()
    for k in range(runs):
        executor.run(inputs[k % len(inputs)])
    executor.close()
    return runs / (time.monotonic() - started)


def rate_under(src: str, program: str, runs: int) -> float:
    """``rate`` in a fresh process of the revision whose sources are ``src``."""
    out = subprocess.run([sys.executable, __file__, program, "--runs", str(runs)], check=True,
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": src})
    return float(out.stdout.split(": ")[-1].split()[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("program", nargs="?", default=str(EXAMPLE))
    ap.add_argument("--runs", type=int, default=2000)
    ap.add_argument("--work", default=None)
    ap.add_argument("--vs", default=None, help="the other revision's src folder")
    ap.add_argument("--src", default=str(Path(__file__).resolve().parents[1] / "src"))
    ap.add_argument("--pairs", type=int, default=5)
    args = ap.parse_args()
    if args.vs is None:
        runs_per_s = rate(args.program, args.runs, args.work)
        print(f"{args.runs} runs in {args.runs / runs_per_s:.2f} s: {runs_per_s:.0f} runs/s")
        return
    ratios = []
    print(f"| pair | {args.src} runs/s | {args.vs} runs/s | ratio |\n|---|---|---|---|")
    for k in range(args.pairs):
        order = [args.src, args.vs] if k % 2 == 0 else [args.vs, args.src]
        got = {src: rate_under(src, args.program, args.runs) for src in order}
        ratios.append(got[args.src] / got[args.vs])
        print(f"| {k + 1} | {got[args.src]:.0f} | {got[args.vs]:.0f} | {ratios[-1]:.3f} |", flush=True)
    print(f"median ratio {statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})")


if __name__ == "__main__":
    main()
