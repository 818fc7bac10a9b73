"""Suite reduction keeps coverage (issue 8): TestCov of the reduced suite against the
unreduced one.

    python benchmarks/reduction.py [--budget 10] [--tasks 8] [--strategy random]

For the seed examples and the first ``--tasks`` dev tasks: ``cooptest generate
--no-reduce`` keeps every test found; the suite is then replayed natively on a fresh goal
board and reduced by ``core.reduction.reduce_suite`` (the final step of every run) into a second
zip. Both are measured by TestCov; the table gives tests and coverage of each and
whether the coverage is equal. Random testing is the default strategy because it keeps
the most redundant tests.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from concolic_table import DEV_TASKS, SEEDS, TESTCOMP, testcov

from cooptest.core.board import GoalBoard
from cooptest.core.reduction import reduce_suite
from cooptest.core.run_context import RunContext
from cooptest.frontend import load_program
from cooptest.harness.executor import Executor
from cooptest.harness.testsuite import SuiteWriter, read_suite
from cooptest.task import load_task


def reduced_copy(task: Path, full: Path, out: Path) -> int:
    """Replay ``full`` on a fresh board writing ``out``, reduce it; the tests kept."""
    loaded = load_task(str(task))
    with tempfile.TemporaryDirectory(prefix="reduction-") as work:
        frontend = load_program(loaded, work)
        board = GoalBoard(frontend.program, Executor(frontend, str(Path(work) / "build")),
                          RunContext(SuiteWriter(str(out), loaded)))
        for test in read_suite(str(full)):
            board.submit(test.inputs, "replay")
        return len(reduce_suite(board))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=float, default=10)
    ap.add_argument("--tasks", type=int, default=8)
    ap.add_argument("--strategy", default="random")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "reduction")
    args = ap.parse_args()
    tasks = sorted(SEEDS.glob("*.c")) + [TESTCOMP / t for t in DEV_TASKS[:args.tasks]]
    print("| task | tests (all) | TestCov (all) | tests (reduced) | TestCov (reduced) | equal |")
    print("|---|---|---|---|---|---|")
    equal = 0
    for task in tasks:
        out = args.work / f"{task.parent.name}__{task.stem}"
        subprocess.run([sys.executable, "-m", "cooptest.cli", "generate", str(task), "--budget",
                        str(args.budget), "--out", str(out), "--quiet", "--no-reduce",
                        "--strategy", args.strategy], check=False, capture_output=True)
        full = out / "test-suite.zip"
        tests = json.loads((out / "report.json").read_text())["summary"]["tests"]
        kept = reduced_copy(task, full, out / "reduced.zip")
        before, after = testcov(task, full), testcov(task, out / "reduced.zip")
        equal += before == after
        print(f"| {task.stem} | {tests} | {before:.2f} | {kept} | {after:.2f} | "
              f"{'yes' if before == after else 'NO'} |", flush=True)
    print(f"\nequal coverage on {equal} of {len(tasks)} tasks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
