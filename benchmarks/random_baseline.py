#!/usr/bin/env python3
"""The random-testing baseline: mean TestCov coverage of ``--strategy random --budget 10``
over the 190 dev tasks, two at a time, in a seeded random order so that a run stopped
early still samples every category. Results go to OUT/results.{csv,json} as tasks finish.

    python benchmarks/random_baseline.py [OUT] [--budget 10] [--jobs 2]
"""
import sys
from pathlib import Path

from cooptest.cli import main

TESTCOMP = Path(__file__).resolve().parents[1].parent / "shared" / "benchmarks" / "testcomp"

if __name__ == "__main__":
    args = sys.argv[1:]
    out = args.pop(0) if args and not args[0].startswith("-") else "bench-random"
    sys.exit(main(["bench", str(TESTCOMP), "--strategy", "random", "--budget", "10",
                   "--jobs", "2", "--testcov", "--shuffle", "--out", out, *args]))
