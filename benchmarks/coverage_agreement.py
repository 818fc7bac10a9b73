#!/usr/bin/env python3
"""Agreement of cooptest's branch-coverage measurement with TestCov (testcov-measure).

For each sv-benchmarks task, write a small random suite with SuiteWriter, measure it
with both, and count the pairs within 1 percentage point. This is the check that
``cooptest.harness.coverage`` counts goals as the Test-Comp referee does.

    python benchmarks/coverage_agreement.py [--limit N] [--tests K] [--jobs 2] [--seed S]
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from cooptest.errors import UserError
from cooptest.frontend.preprocess import preprocess
from cooptest.harness.coverage import measure_coverage
from cooptest.harness.testsuite import SuiteWriter, TestCase
from cooptest.task import BRANCHES, load_task

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
TESTCOV = SHARED / "tools" / "testcov-measure"
BENCHMARKS = SHARED / "benchmarks" / "testcomp"
TOLERANCE = 1.0  # percentage points


@dataclass
class Row:
    task: str
    testcov: float | None
    testcov_goals: int | None
    ours: float | None
    our_goals: int | None
    seconds: float
    note: str = ""

    @property
    def agrees(self) -> bool:
        return (self.testcov is not None and self.ours is not None
                and abs(self.testcov - self.ours) <= TOLERANCE)


def random_value(rng: random.Random) -> str:
    """Mostly small numbers (they pass typical guards), some boundaries and hex."""
    pick = rng.random()
    if pick < 0.6:
        return str(rng.randint(-5, 20))
    if pick < 0.8:
        return str(rng.choice([0, 1, -1, 127, 128, 255, 256, 65535, 2147483647, -2147483648]))
    if pick < 0.9:
        return hex(rng.randint(0, 0xFFFF))
    return str(rng.randint(-(2 ** 31), 2 ** 31 - 1))


def random_suite(rng: random.Random, count: int) -> list[TestCase]:
    return [TestCase([random_value(rng) for _ in range(rng.choice([1, 3, 10, 40, 200]))])
            for _ in range(count)]


def evaluate(yml: str, tests: int, seed: int, work: str) -> Row:
    start = time.monotonic()
    name = os.path.relpath(yml, BENCHMARKS)
    task = load_task(yml)
    task_dir = os.path.join(work, name.replace("/", "__"))
    os.makedirs(task_dir, exist_ok=True)
    rng = random.Random(f"{seed}:{name}")
    suite = random_suite(rng, tests)
    zip_path = os.path.join(task_dir, "suite.zip")
    writer = SuiteWriter(zip_path, task, BRANCHES)
    for t in suite:
        writer.add(t)
    proc = subprocess.run([str(TESTCOV), yml, zip_path], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    try:
        ref = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        ref = {}
    note = "" if ref.get("coverage") is not None else f"testcov: {ref.get('result', 'no output')}"
    try:
        ours = measure_coverage(task, preprocess(task, task_dir), suite, task_dir)
        our_pct, our_goals = round(ours.percent, 2), ours.goals
    except UserError as e:
        our_pct, our_goals, note = None, None, f"{note} ours: {e}".strip()
    return Row(name, ref.get("coverage"), ref.get("goals"), our_pct, our_goals,
               time.monotonic() - start, note)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=0, help="tasks to evaluate (0: all)")
    ap.add_argument("--tests", type=int, default=6, help="random tests per suite")
    ap.add_argument("--jobs", type=int, default=2, choices=(1, 2))
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if not TESTCOV.exists():
        print(f"no referee at {TESTCOV}", file=sys.stderr)
        return 2
    ymls = sorted(glob.glob(str(BENCHMARKS / "*" / "*.yml")))
    if args.limit:
        ymls = random.Random(args.seed).sample(ymls, min(args.limit, len(ymls)))
    with tempfile.TemporaryDirectory(prefix="coverage-agreement-") as work, \
            ProcessPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(evaluate, ymls, [args.tests] * len(ymls), [args.seed] * len(ymls),
                             [work] * len(ymls)))
    fmt = "{:<58} {:>8} {:>6} {:>8} {:>6} {:>6}  {}"
    print(fmt.format("task", "testcov", "goals", "ours", "goals", "ok", "note"))
    for r in rows:
        print(fmt.format(r.task[:58], _show(r.testcov), _show(r.testcov_goals), _show(r.ours),
                         _show(r.our_goals), "yes" if r.agrees else "NO", r.note))
    agree = sum(r.agrees for r in rows)
    measured = [r for r in rows if r.testcov is not None]
    print(f"\nwithin {TOLERANCE} pp: {agree}/{len(rows)} pairs ({100 * agree / len(rows):.1f}%); "
          f"{agree}/{len(measured)} of the pairs TestCov could measure")
    return 0


def _show(v: float | int | None) -> str:
    return "-" if v is None else str(v)


if __name__ == "__main__":
    sys.exit(main())
