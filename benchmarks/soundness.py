#!/usr/bin/env python3
"""Soundness cross-check: no goal an analysis proved infeasible is covered by any test.

Takes the output folders of ``cooptest bench`` runs (any strategies, same tasks), and
for every task collects the goals each run's report.json claims infeasible, then replays
every test of every run's suite natively on the instrumented program (the ground truth
of coverage) and reports each claimed goal a test passes through.

    python benchmarks/soundness.py BENCH_DIR [BENCH_DIR ...] [--jobs 2]

Prints one line per unsound claim and ends with ``unsound: N`` (N = 0 is the figure to
reach), the number of claims checked, tasks and tests replayed.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from cooptest.errors import UserError
from cooptest.frontend import load_program
from cooptest.harness.executor import Executor
from cooptest.harness.testsuite import read_suite
from cooptest.report.bench import run_name
from cooptest.task import load_task


@dataclass
class Verdict:
    task: str
    claims: int = 0
    tests: int = 0
    unsound: list[str] = field(default_factory=list)  # "goal (proof) covered by suite:test"
    error: str = ""


def replay_claims(task: str, claims: dict[str, str], suites: dict[str, Path]) -> Verdict:
    """Replay every test of ``suites`` (label -> zip) and report the goals of ``claims``
    (goal id -> who proved it infeasible, how) that a native run passes through."""
    verdict = Verdict(task, claims=len(claims))
    if not claims:
        return verdict
    with tempfile.TemporaryDirectory(prefix="soundness-") as work:
        try:
            executor = Executor(load_program(load_task(task), work), work)
        except UserError as e:
            verdict.error = str(e)
            return verdict
        for label, suite in suites.items():
            for test in read_suite(str(suite)):
                verdict.tests += 1
                for g in sorted(executor.run(test.inputs).covered & set(claims)):
                    verdict.unsound.append(f"{g} ({claims[g]}) covered by {label}:{test.name}")
    return verdict


def check_task(task: str, runs: list[Path]) -> Verdict:
    return check_folders(task, {run.name: run / run_name(task) for run in runs})


def check_folders(task: str, folders: dict[str, Path]) -> Verdict:
    """The claims of every output folder (label -> folder with report.json and
    test-suite.zip) of one task, against the tests of all of them."""
    claims: dict[str, str] = {}
    suites: dict[str, Path] = {}
    for label, folder in folders.items():
        try:
            report = json.loads((folder / "report.json").read_text())
        except (OSError, ValueError):
            continue
        for g in report["goals"]:
            if g["status"] == "infeasible":
                claims.setdefault(g["id"], f"{label}: {g['proof']}")
        if (folder / "test-suite.zip").exists():
            suites[label] = folder / "test-suite.zip"
    return replay_claims(task, claims, suites)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=Path, metavar="BENCH_DIR")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    tasks = sorted({os.path.realpath(row["task"]) for run in args.runs  # runs name them differently
                    for row in json.loads((run / "results.json").read_text())["rows"]})
    with ProcessPoolExecutor(args.jobs) as pool:
        verdicts = list(pool.map(check_task, tasks, [args.runs] * len(tasks)))
    for v in verdicts:
        for line in v.unsound:
            print(f"UNSOUND {v.task}: {line}")
        if v.error:
            print(f"skipped {v.task}: {v.error}")
    claimed = [v for v in verdicts if v.claims]
    print(f"unsound: {sum(len(v.unsound) for v in verdicts)} "
          f"({sum(v.claims for v in verdicts)} infeasibility claims on {len(claimed)} of "
          f"{len(tasks)} tasks, checked against {sum(v.tests for v in verdicts)} test replays "
          f"from {len(args.runs)} runs: {', '.join(r.name for r in args.runs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
