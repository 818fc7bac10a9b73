"""Slicing equivalence (issue 8): an analysis run as N slices with its state passed back
reaches the verdicts of one run of the summed time.

For every task and analysis: one run of T seconds, and N runs of T/N seconds each
continuing the previous run's state (``Job(state=outcome.state)``), each on a fresh
goal board over the same program and native build. Printed and written as JSON: goals
proven infeasible by each (must be the same set) and goals covered (within 2% of the
goals).

    python benchmarks/slicing.py [--budget 30] [--slices 30] [--analyses value,predicate,concolic,random]
                                 [--tasks seeds|dev|both] [--out slicing.json]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from concolic_table import DEV_TASKS  # noqa: E402

from cooptest.core.analysis import Job  # noqa: E402
from cooptest.core.board import GoalBoard  # noqa: E402
from cooptest.core.budget import Budget  # noqa: E402
from cooptest.core.registry import Settings, make_analysis  # noqa: E402
from cooptest.errors import UserError  # noqa: E402
from cooptest.frontend import load_program  # noqa: E402
from cooptest.harness.executor import Executor  # noqa: E402
from cooptest.task import load_task  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / "shared" / "benchmarks"


def tasks(which: str) -> list[Path]:
    seeds = sorted((SHARED / "seed-examples").glob("*.c"))
    dev = [SHARED / "testcomp" / t for t in DEV_TASKS]
    return {"seeds": seeds, "dev": dev, "both": seeds + dev}[which]


def run(analysis_name: str, frontend, executor: Executor, budget: float, slices: int) -> dict:
    board = GoalBoard(frontend.program, executor)
    analysis = make_analysis(analysis_name, Settings())
    state, started, stopped = None, time.monotonic(), ""
    for _ in range(slices):
        outcome = analysis.run(board, Job(board.open(), Budget.seconds(budget / slices), state=state))
        state, stopped = outcome.state, outcome.stopped
        if stopped in ("done", "exhausted"):
            break
    return {"covered": len(board.covered), "infeasible": sorted(board.infeasible),
            "goals": len(board.goals), "stopped": stopped, "time_s": round(time.monotonic() - started, 2)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", type=float, default=30.0)
    ap.add_argument("--slices", type=int, default=30)
    ap.add_argument("--analyses", default="value,predicate,concolic,random")
    ap.add_argument("--tasks", choices=("seeds", "dev", "both"), default="both")
    ap.add_argument("--out", default="slicing.json")
    args = ap.parse_args()
    rows = []
    print(f"{'task':48} {'analysis':10} {'cov 1x':>7} {'cov Nx':>7} {'inf 1x':>6} {'inf Nx':>6}  same-proofs")
    for path in tasks(args.tasks):
        with tempfile.TemporaryDirectory(prefix="cooptest-slicing-") as work:
            try:
                task = load_task(str(path))
                frontend = load_program(task, work)
                executor = Executor(frontend, f"{work}/build")
            except UserError as e:
                print(f"{path.name:48} skipped: {e}")
                continue
            for name in args.analyses.split(","):
                whole = run(name, frontend, executor, args.budget, 1)
                sliced = run(name, frontend, executor, args.budget, args.slices)
                same = whole["infeasible"] == sliced["infeasible"]
                close = abs(whole["covered"] - sliced["covered"]) <= 0.02 * whole["goals"]
                rows.append({"task": str(path.relative_to(SHARED)), "analysis": name, "whole": whole,
                             "sliced": sliced, "same_proofs": same, "covered_within_2pct": close})
                print(f"{path.name[:48]:48} {name:10} {whole['covered']:7} {sliced['covered']:7} "
                      f"{len(whole['infeasible']):6} {len(sliced['infeasible']):6}  "
                      f"{'yes' if same else 'NO'}{'' if close else '  covered differs > 2%'}", flush=True)
                Path(args.out).write_text(json.dumps(rows, indent=1))
    n = len(rows)
    print(f"\n{sum(r['same_proofs'] for r in rows)}/{n} same proofs, "
          f"{sum(r['covered_within_2pct'] for r in rows)}/{n} covered within 2%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
