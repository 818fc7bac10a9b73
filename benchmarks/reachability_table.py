"""Figures of the reachability analyses (value, predicate, mgp); prints tables.

    python benchmarks/reachability_table.py seeds [--budget 60]
        unreach.c, check_valves.c, loop_foo.c: the status of the goals the papers discuss
    python benchmarks/reachability_table.py table [--budget 30] [--jobs 2] [--tasks N] [--strategies value]
            [--sample dev|indeterminate|loops|floats]
        mean TestCov coverage, mean cov_f and tasks with every goal decided, per analysis,
        over the dev subset of Test-Comp tasks (``--sample loops``: every task of the
        categories ``LOOP_CATEGORIES``, where proofs need loop invariants, e.g. to measure
        the predicate analysis' invariant templates against an earlier version of the
        code; ``--sample floats``: the float categories ``FLOAT_CATEGORIES``, where
        proofs follow constants through bit views of doubles; ``--sample indeterminate``:
        ``INDETERMINATE``, programs reading memory nothing wrote); then the soundness
        cross-check: every suite of every strategy is replayed natively against every
        analysis' infeasible goals ("unsound" counts goals claimed infeasible but covered by some test)

Suites are generated through the CLI (``cooptest generate --strategy ...``) and kept in
``--work`` with their report.json, so that the cross-check can replay them; results are
cached in ``--results`` (an interrupted table resumes).
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from concolic_table import DEV_TASKS, SEEDS, TESTCOMP, Results, testcov
from soundness import replay_claims

ANALYSES = ("value", "predicate", "mgp")
LOOP_CATEGORIES = ("bitvector", "bitvector-loops", "loop-acceleration", "loop-crafted", "loop-invariants",
                   "loop-invgen", "loop-lit", "loop-new", "loop-simple", "loop-zilu", "loops",
                   "loops-crafted-1", "nla-digbench", "nla-digbench-scaling")
FLOAT_CATEGORIES = ("float-benchs", "float-newlib", "floats-cbmc-regression", "floats-cdfpl",
                    "loop-floats-scientific-comp")
SAMPLES = {"loops": LOOP_CATEGORIES, "floats": FLOAT_CATEGORIES}  # every task of the categories
# Tasks that read memory nothing wrote (stack arrays, malloc'ed or alloca'ed blocks),
# where the board's build and TestCov's can take different paths on the same inputs:
# the figures of the meter's mutants (``harness.label_fuzz``).
INDETERMINATE = ("array-cav19/array_min_and_copy_shift_sum_add.yml",
                 "termination-15/cstrcspn_mixed_alloca.yml",
                 "termination-15/cstrpbrk_reverse_alloca.yml",
                 "termination-dietlibc/atol.yml",
                 "bitvector/s3_srvr_3a_alt.BV.c.cil.yml",
                 "ntdrivers/diskperf.i.cil-1.yml",
                 "loop-industry-pattern/mod3.c.v+lhb-reducer.yml",
                 "array-cav19/array_init_pair_symmetr2.yml")
CROSS = ("random", "concolic")  # further strategies whose suites the soundness check replays


def generate(task: Path, strategy: str, budget: float, out: Path, options: tuple[str, ...] = ()) -> dict:
    cmd = [sys.executable, "-m", "cooptest.cli", "generate", str(task), "--budget", str(budget),
           "--out", str(out), "--quiet", "--strategy", strategy, *options]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=budget * 3 + 120)
    summary: dict = {"rc": proc.returncode, "out": str(out)}
    report = out / "report.json"
    if not report.exists():
        summary["error"] = (proc.stderr or proc.stdout)[-300:]
        return summary
    data = json.loads(report.read_text())
    summary.update(data["summary"])
    summary["infeasible_goals"] = {g["id"]: g["proof"] for g in data["goals"] if g["status"] == "infeasible"}
    summary["status"] = {g["id"]: g["status"] for g in data["goals"]}
    suite = out / "test-suite.zip"
    try:  # the referee reports "coverage": null when it could not measure
        summary["testcov"] = float(testcov(task, suite)) if suite.exists() else 0.0
    except TypeError:
        summary["testcov"] = 0.0
    return summary


def run_cells(cells: list[tuple[str, Path, str]], budget: float, results: Results, jobs: int,
              work: Path) -> None:
    todo = [c for c in cells if results.get(c[0], c[2], budget) is None]

    def one(i_cell: tuple[int, tuple[str, Path, str]]) -> None:
        i, (name, task, strategy) = i_cell
        out = work / f"{Path(name).stem}-{strategy}-{budget:g}"
        summary = generate(task, strategy, budget, out)
        results.put(name, strategy, budget, summary)
        print(f"[{i + 1}/{len(todo)}] {name} {strategy}: testcov {summary.get('testcov', 0):.1f}% "
              f"cov_f {summary.get('cov_f')} infeasible {len(summary.get('infeasible_goals', {}))} "
              f"unknown {summary.get('unknown')}", flush=True)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one, enumerate(todo)))


def seeds(args: argparse.Namespace) -> None:
    results = Results(Path(args.results))
    cells = [(f"seed/{f}", SEEDS / f, a) for f in ("unreach.c", "check_valves.c", "loop_foo.c")
             for a in ANALYSES]
    run_cells(cells, args.budget, results, args.jobs, Path(args.work))
    print(f"\n{'program':<16} {'analysis':<10} {'testcov':>8} {'cov_f':>7}  infeasible / unknown goals")
    for name, _, a in cells:
        r = results.get(name, a, args.budget) or {}
        status = r.get("status", {})
        unknown = sorted(g for g, s in status.items() if s == "unknown")
        print(f"{name[5:]:<16} {a:<10} {r.get('testcov', 0):>7.1f}% {r.get('cov_f', 0):>6.1f}%  "
              f"{sorted(r.get('infeasible_goals', {}))} / {unknown}")


def cross_check(tasks: list[str], budget: float, results: Results, strategies: tuple[str, ...]) -> int:
    """Replay every suite natively; count goals some analysis claims infeasible that a
    test of any strategy covers."""
    unsound = 0
    for name in tasks:
        runs = {s: results.get(name, s, budget) for s in strategies}
        claims = {g: f"{s}: {p}" for s, r in runs.items() if r for g, p in r.get("infeasible_goals", {}).items()}
        suites = {s: Path(r["out"]) / "test-suite.zip" for s, r in runs.items() if r and "out" in r}
        verdict = replay_claims(str(TESTCOMP / name), claims,
                                {s: p for s, p in suites.items() if p.exists()})
        for line in verdict.unsound:
            print(f"UNSOUND {name}: {line}")
        unsound += len(verdict.unsound)
    return unsound


def table(args: argparse.Namespace) -> None:
    results = Results(Path(args.results))
    if args.sample in SAMPLES:
        tasks = sorted(str(p.relative_to(TESTCOMP)) for c in SAMPLES[args.sample]
                       for p in (TESTCOMP / c).glob("*.yml"))[: args.tasks]
    else:
        tasks = list(INDETERMINATE if args.sample == "indeterminate" else DEV_TASKS)[: args.tasks]
    strategies = tuple(args.strategies.split(",")) if args.strategies else ANALYSES + CROSS
    cells = [(t, TESTCOMP / t, s) for t in tasks for s in strategies]
    run_cells(cells, args.budget, results, args.jobs, Path(args.work))
    print(f"\n{'analysis':<10} {'mean testcov':>12} {'mean cov_f':>11} {'all decided':>12} "
          f"{'infeasible':>11} {'errors':>7}   ({len(tasks)} tasks, {args.budget:g} s)")
    for s in strategies:
        rs = [results.get(t, s, args.budget) or {} for t in tasks]
        ok = [r for r in rs if "cov_f" in r]
        decided = sum(1 for r in ok if r.get("unknown", 1) == 0)
        print(f"{s:<10} {statistics.mean(r.get('testcov', 0) for r in rs):>11.1f}% "
              f"{statistics.mean(r['cov_f'] for r in ok) if ok else 0:>10.1f}% {decided:>12} "
              f"{sum(len(r.get('infeasible_goals', {})) for r in ok):>11} {len(rs) - len(ok):>7}")
    print(f"\nunsound: {cross_check(tasks, args.budget, results, strategies)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=("seeds", "table"))
    parser.add_argument("--budget", type=float, default=30)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--tasks", type=int, default=1000, help="the first N tasks of the sample")
    parser.add_argument("--sample", choices=("dev", "indeterminate", *SAMPLES), default="dev")
    parser.add_argument("--strategies", help="comma-separated (default: value, predicate, mgp, "
                        "random, concolic); to compare two versions of the code, run each with "
                        "PYTHONPATH set to its src/ and its own --results")
    parser.add_argument("--results", default=str(Path(tempfile.gettempdir()) / "reachability-table.json"))
    parser.add_argument("--work", default=str(Path(tempfile.gettempdir()) / "reachability-table"))
    args = parser.parse_args()
    {"seeds": seeds, "table": table}[args.mode](args)


if __name__ == "__main__":
    main()
