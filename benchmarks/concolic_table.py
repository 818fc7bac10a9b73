"""Figures of the concolic engine and its search strategies (prints tables).

    python benchmarks/concolic_table.py seed-examples [--budget 10]
        context.c and branches.c with cgs (TestCov coverage), and what every strategy
        reaches on simple_while.c and loop_foo.c
    python benchmarks/concolic_table.py table [--budget 30] [--tasks FILE] [--jobs 2] [--only cgs ...]
        the CGS paper's Table 2 on a dev set of Test-Comp tasks: mean TestCov coverage per
        strategy, iterations/s, and how each compares with random testing per task
    python benchmarks/concolic_table.py throughput TASK [--budget 30]
        iterations/s, time split (native run, symbolic execution, solver) and divergence rate
    python benchmarks/concolic_table.py solver-ablation TASK [--budget 20]
        what constraint independence, the cache and incremental solving each buy

Generation goes through the CLI (``cooptest generate``), as a user runs it; coverage is
the referee's (``shared/tools/testcov-measure``). Results are kept in ``--results``
(JSON) so that an interrupted table resumes where it stopped.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
TESTCOMP = SHARED / "benchmarks" / "testcomp"
SEEDS = SHARED / "benchmarks" / "seed-examples"
REFEREE = SHARED / "tools" / "testcov-measure"
BASELINE = "random"

# one task of each of 20 categories: the first .yml by name, except ntdrivers, where
# kbfiltr-2 replaces diskperf (whose symbolic execution takes ~0.5 s a path), and loop-zilu
# instead of eca-rers2012 (TestCov cannot compile its ``__VERIFIER_nondet_int(char *)``
# prototype, so every suite scores "null" there); with 2 cores
# the full table (9 configurations x 20 tasks x 30 s, plus TestCov) takes about an hour
DEV_TASKS = [
    "array-examples/standard_copy8_ground-2.yml",
    "bitvector/jain_1-2.yml",
    "bitvector-loops/diamond_2-1.yml",
    "combinations/pals_lcr.3.1.ufo.UNBOUNDED.pals+Problem12_label02.yml",
    "float-benchs/arctan_Pade.yml",
    "heap-data/cart.yml",
    "ldv-regression/rule60_list2.yml",
    "loop-acceleration/array_4.yml",
    "loop-invgen/MADWiFi-encode_ie_ok.yml",
    "loop-lit/bhmr2007.yml",
    "loop-simple/nested_1b.yml",
    "loop-zilu/benchmark10_conjunctive.yml",
    "loops/array-1.yml",
    "nla-digbench/geo1.yml",
    "ntdrivers/kbfiltr.i.cil-2.yml",
    "openssl/s3_srvr.blast.01.i.cil-2.yml",
    "recursive-simple/id_b2_o3.yml",
    "termination-numeric/Ackermann01-1.yml",
    "verifythis/elimination_max.yml",
    "xcsp/aim-200-1-6-unsat-2.yml",
]


def strategies() -> list[str]:
    sys.path.insert(0, str(ROOT / "src"))
    from cooptest.analyses.concolic import SEARCHERS
    return list(SEARCHERS)


# ---------------------------------------------------------------------------- one run


def generate(task: Path, config: str, budget: float, out: Path, seed: int = 0) -> dict:
    """Run ``cooptest generate`` with ``config`` ("random" or a search strategy)."""
    options = ["--strategy", "random"] if config == BASELINE else ["--strategy", "concolic", "--search", config]
    return generate_with(task, options + ["--seed", str(seed)], budget, out)


def generate_with(task: Path, options: list[str], budget: float, out: Path) -> dict:
    """Run ``cooptest generate`` with ``options`` and measure the suite with TestCov;
    returns the report summary plus "testcov", "wall_s" and "rc"."""
    cmd = [sys.executable, "-m", "cooptest.cli", "generate", str(task), "--budget", str(budget),
           "--out", str(out), "--quiet", *options]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=budget * 3 + 120)
    wall = time.monotonic() - t0
    summary: dict = {"wall_s": round(wall, 1), "rc": proc.returncode, "out": str(out)}
    report = out / "report.json"
    if report.exists():
        summary.update(json.loads(report.read_text()).get("summary", {}))
    else:
        summary["error"] = (proc.stderr or proc.stdout)[-300:]
    suite = out / "test-suite.zip"
    summary["testcov"] = testcov(task, suite) if suite.exists() else 0.0
    return summary


def testcov(task: Path, suite: Path) -> float:
    proc = subprocess.run([str(REFEREE), str(task), str(suite)], capture_output=True, text=True,
                          timeout=900)
    try:
        return float(json.loads(proc.stdout.strip().splitlines()[-1])["coverage"] or 0.0)
    except (ValueError, IndexError, KeyError):
        return 0.0


class Results:
    """Results by (task, configuration, budget), saved after every run."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data: dict[str, dict] = json.loads(path.read_text()) if path.exists() else {}
        self.lock = threading.Lock()

    @staticmethod
    def key(task: str, config: str, budget: float) -> str:
        return f"{task}|{config}|{budget:g}"

    def get(self, task: str, config: str, budget: float) -> dict | None:
        return self.data.get(self.key(task, config, budget))

    def put(self, task: str, config: str, budget: float, summary: dict) -> None:
        with self.lock:
            self.data[self.key(task, config, budget)] = summary
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.data, indent=1, sort_keys=True))
            os.replace(tmp, self.path)


def run_all(cells: list[tuple[str, Path, str]], budget: float, results: Results, jobs: int) -> None:
    """Run the (name, task, config) cells not in ``results`` yet, ``jobs`` at a time."""
    todo = [c for c in cells if results.get(c[0], c[2], budget) is None]
    work = Path(tempfile.mkdtemp(prefix="concolic-table-"))

    def one(i_cell: tuple[int, tuple[str, Path, str]]) -> None:
        i, (name, task, config) = i_cell
        try:
            summary = generate(task, config, budget, work / f"{i}-{config}")
        except (OSError, subprocess.SubprocessError) as e:
            summary = {"testcov": 0.0, "error": str(e)}
        results.put(name, config, budget, summary)
        print(f"[{i + 1}/{len(todo)}] {name} {config}: testcov {summary['testcov']:.1f}% "
              f"iterations {summary.get('iterations', summary.get('executions', 0))}", flush=True)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one, enumerate(todo)))


def iterations(summary: dict) -> int:
    return int(summary.get("iterations", summary.get("executions", 0)))


def rate(summary: dict) -> float:
    t = summary.get("time_s") or summary.get("wall_s") or 1.0
    return iterations(summary) / max(float(t), 1e-9)


# ---------------------------------------------------------------------------- commands


def cmd_seed_examples(args: argparse.Namespace) -> None:
    results = Results(Path(args.results))
    cells = [(f, SEEDS / f, "cgs") for f in ("context.c", "branches.c")]
    cells += [(f, SEEDS / f, s) for f in ("simple_while.c", "loop_foo.c") for s in strategies()]
    run_all(cells, args.budget, results, args.jobs)
    print(f"\nseed examples, budget {args.budget:g} s, TestCov branch coverage")
    print(f"{'program':16} {'strategy':15} {'testcov %':>9} {'goals':>9} {'iterations':>10} {'time s':>7}")
    for name, _, config in cells:
        r = results.get(name, config, args.budget) or {}
        print(f"{name:16} {config:15} {r.get('testcov', 0):9.1f} "
              f"{r.get('covered', 0):>4}/{r.get('goals', 0):<4} {iterations(r):10d} {r.get('time_s', 0):7.1f}")


def cmd_table(args: argparse.Namespace) -> None:
    names = Path(args.tasks).read_text().split() if args.tasks else DEV_TASKS
    configs = [BASELINE] + (args.only or strategies())
    results = Results(Path(args.results))
    # task by task: an interrupted table is whole for the tasks it finished
    cells = [(n, TESTCOMP / n, c) for n in names for c in configs]
    run_all(cells, args.budget, results, args.jobs)
    cov: dict[str, dict[str, float]] = defaultdict(dict)
    rates: dict[str, list[float]] = defaultdict(list)
    names = [n for n in names if all(results.get(n, c, args.budget) for c in configs)]
    for n in names:
        for c in configs:
            r = results.get(n, c, args.budget)
            cov[c][n] = float(r.get("testcov", 0.0))
            rates[c].append(rate(r))
    base = cov[BASELINE]
    print(f"\n{len(names)} dev tasks, budget {args.budget:g} s, mean TestCov branch coverage")
    print(f"{'strategy':15} {'mean cov %':>10} {'it/s':>7} {'>= random':>10} {'> random':>9} {'< random':>9}")
    for c in configs:
        values = [cov[c][n] for n in names]
        ge = sum(cov[c][n] >= base[n] - 1e-9 for n in names)
        gt = sum(cov[c][n] > base[n] + 1e-9 for n in names)
        print(f"{c:15} {statistics.mean(values):10.2f} {statistics.mean(rates[c]):7.1f} "
              f"{ge:>4}/{len(names):<5} {gt:9d} {len(names) - ge:9d}")
    if args.per_task:
        print(f"\n{'task':58} " + " ".join(f"{c[:8]:>8}" for c in configs))
        for n in names:
            print(f"{n[:58]:58} " + " ".join(f"{cov[c][n]:8.1f}" for c in configs))


def _direct(task: str, budget: float, **options) -> tuple[dict, object, dict[str, float]]:
    """Run the analysis in this process, timing native runs, symbolic execution and solving."""
    sys.path.insert(0, str(ROOT / "src"))
    import cooptest.analyses.concolic.engine as engine
    from cooptest.analyses.concolic import ConcolicAnalysis
    from cooptest.analyses.concolic.solver import PathSolver
    from cooptest.core.analysis import Job
    from cooptest.core.board import GoalBoard
    from cooptest.core.budget import Budget
    from cooptest.frontend import load_program
    from cooptest.harness.executor import Executor
    from cooptest.task import load_task

    spent: dict[str, float] = defaultdict(float)
    cpu: dict[str, float] = {}  # CPU seconds: less sensitive than wall time to other load

    def timed(f, label):
        def g(*a, **k):
            t = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                spent[label] += time.perf_counter() - t
        return g

    work = tempfile.mkdtemp(prefix="concolic-direct-")
    fe = load_program(load_task(task), work)
    executor = Executor(fe, work)
    executor.run = timed(executor.run, "native")
    put = GoalBoard(fe.program, executor)
    saved = engine.execute_symbolically, engine.resume, PathSolver.solve
    engine.execute_symbolically = timed(engine.execute_symbolically, "symbolic execution")
    engine.resume = timed(engine.resume, "symbolic execution")
    PathSolver.solve = timed(PathSolver.solve, "solve")
    try:
        t0, cpu0, kids0 = time.perf_counter(), time.process_time(), os.times()
        result = ConcolicAnalysis(**options).run(put, Job(frozenset(put.goals), Budget.seconds(budget)))
        spent["total"] = time.perf_counter() - t0
        kids = os.times()
        cpu["analysis"] = time.process_time() - cpu0
        cpu["native"] = kids.children_user + kids.children_system - kids0.children_user - kids0.children_system
    finally:
        engine.execute_symbolically, engine.resume, PathSolver.solve = saved
        executor.close()
        shutil.rmtree(work, ignore_errors=True)
    stats = dict(put.stats, goals=len(put.goals), covered=len(put.covered), lines=fe.program.source_lines,
                 cpu=cpu)
    return stats, result.state, spent


def cmd_throughput(args: argparse.Namespace) -> None:
    stats, arg, spent = _direct(args.task, args.budget, search=args.search)
    n = stats.get("iterations", 0)
    print(f"{args.task} ({stats['lines']} lines), search {args.search}, budget {args.budget:g} s")
    print(f"iterations {n}  ->  {n / spent['total']:.1f} iterations/s; goals {stats['covered']}/{stats['goals']}")
    print("per iteration: " + ", ".join(f"{k} {v / max(n, 1) * 1000:.2f} ms" for k, v in spent.items()
                                        if k != "total"))
    cpu = stats["cpu"]
    print(f"CPU per iteration: this process {cpu['analysis'] / max(n, 1) * 1000:.2f} ms, native runs "
          f"{cpu['native'] / max(n, 1) * 1000:.2f} ms -> {n / (cpu['analysis'] + cpu['native']):.1f} "
          f"iterations per CPU second")
    print(f"runs with a divergence {stats.get('diverged_runs', 0)}/{n} "
          f"({100 * stats.get('diverged_runs', 0) / max(n, 1):.1f}%), divergent decisions "
          f"{stats.get('divergences', 0)}, concretisations {stats.get('concretizations', 0)}, "
          f"mispredictions {stats.get('mispredictions', 0)}")
    print(f"symbolic executions resumed from a snapshot {stats.get('resumed_symbolic_executions', 0)}, "
          f"from the start {stats.get('symbolic_executions', 0)}")
    print(f"execution tree: {arg.tree.size} nodes, {arg.tree.paths} paths, depth {arg.tree.max_depth}; "
          f"memo hits {arg.memo.hits} misses {arg.memo.misses}")


def cmd_solver_ablation(args: argparse.Namespace) -> None:
    variants = {
        "plain": dict(slicing=False, cache=False, incremental=False),
        "+slicing": dict(slicing=True, cache=False, incremental=False),
        "+cache": dict(slicing=False, cache=True, incremental=False),
        "+incremental": dict(slicing=False, cache=False, incremental=True),
        "slicing+cache": dict(slicing=True, cache=True, incremental=False),
        "all": dict(slicing=True, cache=True, incremental=True),
    }
    print(f"{args.task}, search {args.search}, budget {args.budget:g} s")
    print(f"{'solver':14} {'it/s':>6} {'goals':>9} {'queries':>8} {'z3 calls':>8} {'hits':>6} "
          f"{'z3 s':>6} {'ms/query':>8} {'constraints/query':>17}")
    for name, options in variants.items():
        stats, arg, spent = _direct(args.task, args.budget, search=args.search, **options)
        st = arg.solver.stats
        print(f"{name:14} {stats.get('iterations', 0) / spent['total']:6.1f} "
              f"{stats['covered']:>4}/{stats['goals']:<4} {st.queries:8d} {st.z3_calls:8d} "
              f"{st.cache_hits:6d} {st.seconds:6.2f} {spent['solve'] / max(st.queries, 1) * 1000:8.2f} "
              f"{st.constraints_in / max(st.queries, 1):8.1f} -> {st.constraints_solved / max(st.queries, 1):6.1f}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--results", default=str(ROOT / "benchmarks" / "concolic_results.json"))
    p.add_argument("--jobs", type=int, default=2)
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("seed-examples")
    s.add_argument("--budget", type=float, default=10.0)
    t = sub.add_parser("table")
    t.add_argument("--budget", type=float, default=30.0)
    t.add_argument("--tasks", help="file listing task .yml paths relative to the Test-Comp folder")
    t.add_argument("--per-task", action="store_true")
    t.add_argument("--only", nargs="+", metavar="SEARCH", help="these search strategies (and random)")
    for name, budget in (("throughput", 30.0), ("solver-ablation", 20.0)):
        d = sub.add_parser(name)
        d.add_argument("task")
        d.add_argument("--budget", type=float, default=budget)
        d.add_argument("--search", default="cgs")
    args = p.parse_args()
    if not REFEREE.exists() and args.command in ("seed-examples", "table"):
        sys.exit(f"no referee at {REFEREE}")
    {"seed-examples": cmd_seed_examples, "table": cmd_table, "throughput": cmd_throughput,
     "solver-ablation": cmd_solver_ablation}[args.command](args)


if __name__ == "__main__":
    main()
