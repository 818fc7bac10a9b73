#!/usr/bin/env python3
"""Where gcc's folds of signed arithmetic block proofs, task by task.

    python benchmarks/fold_sites.py [TASKS_DIR] [--jobs 2] [--tasks-only]

Loads every task ``.yml`` under TASKS_DIR (default ``../shared/benchmarks/testcomp``) and
counts the goals whose proofs ``cfa.proof_blockers.overflow_folded`` refuses until a prover
rules the overflow out: the goals behind a statement gcc folds as if signed arithmetic
could not overflow (``frontend.folding``) whose operands' types allow an overflow. Prints one line per task with such goals (goals,
blocked) and the totals; ``--tasks-only`` prints those tasks as ``--task PATH`` arguments
for ``revisions.py``, which measures what the blocking costs in proofs.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "testcomp"


def blocked(task: str) -> tuple[str, int, int, str]:
    """(task, goals, goals blocked by folds, the error that kept it from loading)."""
    from cooptest.errors import UserError
    from cooptest.frontend import load_program
    from cooptest.task import load_task
    try:
        with tempfile.TemporaryDirectory() as work:
            program = load_program(load_task(task), work).program
    except UserError as e:
        return task, 0, 0, str(e).splitlines()[0]
    goals = 2 * len(program.branch_points) + len(program.error_calls)
    blockers = program.proof_blockers
    return task, goals, sum(1 for _, sites in blockers.behind.values() if sites & blockers.overflow_sites.keys()), ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tasks", nargs="?", default=str(SHARED))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--tasks-only", action="store_true")
    args = parser.parse_args()
    tasks = sorted(str(p) for p in Path(args.tasks).rglob("*.yml"))
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(blocked, tasks))
    hit = [r for r in results if r[2]]
    if args.tasks_only:
        print(" ".join(f"--task {task}" for task, *_ in hit))
        return 0
    for task, goals, n, _ in hit:
        print(f"{Path(task).relative_to(args.tasks)}: {n} of {goals} goals blocked")
    failed = [(task, error) for task, _, _, error in results if error]
    print(f"{len(results)} tasks, {len(failed)} not loaded; {len(hit)} with goals behind a fold: "
          f"{sum(r[2] for r in hit):,} of {sum(r[1] for r in results):,} goals")
    for task, error in failed:
        print(f"  not loaded: {Path(task).relative_to(args.tasks)}: {error}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
