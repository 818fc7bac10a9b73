"""Figures of the cooperations (issues 10 and 13); prints tables, writes JSON and plots.

    python benchmarks/cooperation_table.py seeds [--budget 30]
        CoVeriTest's best configuration (and the portfolio) on loop_foo, branches, unreach,
        check_valves: goals covered / proven infeasible / unknown, TestCov coverage
    python benchmarks/cooperation_table.py reuse [--budget 30] [--tasks N] [--pair 20/80]
        the nine reuse types at one time pair: relative coverage per task (covered / best of
        the compared configurations), mean, box plot (reuse.png)
    python benchmarks/cooperation_table.py pairs [--reuse reuse-arg]
        the paper's six time pairs at one reuse type (pairs.png)
    python benchmarks/cooperation_table.py versus
        the best configuration vs value alone, predicate alone, the parallel variant
    python benchmarks/cooperation_table.py crabs-seeds [--budget 30]
        Crabs (cfg) on loop_foo, simple_while, branches, check_valves
    python benchmarks/cooperation_table.py crabs-share [--budget 30] [--tasks N]
        the paper's Figure 3: Crabs at testing shares 0, 0.2, 0.5, 0.8, 0.95, 1.0 on loop_foo
        and the first N dev tasks (share.png)
    python benchmarks/cooperation_table.py crabs [--budget 60]
        Crabs with dfs, cfg, random-branch, cgs, monitors on and off, vs concolic and
        predicate alone (cut paths in the report: summary "cut")
    python benchmarks/cooperation_table.py portfolio
        the default (auto) vs concolic (cgs) alone vs random alone: mean TestCov coverage,
        mean cov_f, tasks decided, goals proven infeasible, worst task difference
    every mode ends with the soundness cross-check of all its suites (unsound must be 0)

Runs go through the CLI (``cooptest generate``), one at a time by default (the machine
has two cores and the parallel variant and the portfolio use both); results are cached
in ``--results`` so that an interrupted table resumes. Tasks: the 20-task dev subset of
``concolic_table.py`` (``--tasks N``: its first N).
"""
from __future__ import annotations

import argparse
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from concolic_table import DEV_TASKS, SEEDS, TESTCOMP, Results, generate_with
from soundness import check_folders

REUSE_TYPES = ("plain", "cond-v", "cond-p", "cond-vp", "reuse-prec", "reuse-arg",
               "cond-v+r", "cond-p+r", "cond-vp+r")
PAIRS = ("10/10", "50/50", "100/100", "250/250", "20/80", "80/20")
SEED_PROGRAMS = ("loop_foo.c", "branches.c", "unreach.c", "check_valves.c")
CRABS_SEEDS = ("loop_foo.c", "simple_while.c", "branches.c", "check_valves.c")
SHARES = (0.0, 0.2, 0.5, 0.8, 0.95, 1.0)


def coveritest(reuse: str, pair: str) -> list[str]:
    return ["--strategy", "coveritest", "--reuse", reuse, "--time-pair", pair]


def configurations(mode: str, args: argparse.Namespace) -> dict[str, list[str]]:
    best = coveritest(args.reuse, args.pair)
    if mode == "seeds":
        return {f"coveritest {args.reuse} {args.pair}": best, "auto": ["--strategy", "auto"]}
    if mode == "reuse":
        return {r: coveritest(r, args.pair) for r in REUSE_TYPES}
    if mode == "pairs":
        return {p: coveritest(args.reuse, p) for p in PAIRS}
    if mode == "crabs-seeds":
        return {"crabs cfg": ["--strategy", "crabs", "--search", "cfg"]}
    if mode == "crabs-share":
        return {f"share {x:g}": ["--strategy", "crabs", "--search", "cfg", "--testing-share", str(x)]
                for x in SHARES}
    if mode == "crabs":
        out = {f"crabs {s}{' no-mon' if off else ''}": ["--strategy", "crabs", "--search", s]
               + (["--no-monitor"] if off else [])
               for s in ("dfs", "cfg", "random-branch", "cgs") for off in (False, True)}
        return {**out, "concolic": ["--strategy", "concolic"], "predicate": ["--strategy", "predicate"]}
    if mode == "versus":
        return {"best": best, "value": ["--strategy", "value"], "predicate": ["--strategy", "predicate"],
                "parallel": best + ["--parallel"]}
    return {"auto": ["--strategy", "auto"], "concolic": ["--strategy", "concolic", "--search", "cgs"],
            "random": ["--strategy", "random"]}


def tasks_of(mode: str, args: argparse.Namespace) -> list[Path]:
    if mode == "seeds":
        return [SEEDS / name for name in SEED_PROGRAMS]
    if mode == "crabs-seeds":
        return [SEEDS / name for name in CRABS_SEEDS]
    if mode == "crabs-share":
        return [SEEDS / "loop_foo.c"] + [TESTCOMP / t for t in DEV_TASKS[:args.tasks]]
    return [TESTCOMP / t for t in DEV_TASKS[:args.tasks]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=("seeds", "reuse", "pairs", "versus", "portfolio",
                                     "crabs-seeds", "crabs-share", "crabs"))
    ap.add_argument("--budget", type=float, default=30.0)
    ap.add_argument("--tasks", type=int, default=20)
    ap.add_argument("--pair", default="20/80")
    ap.add_argument("--reuse", default="reuse-arg")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--work", default="bench-cooperation")
    ap.add_argument("--results", default="bench-cooperation/results.json")
    args = ap.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    results = Results(Path(args.results))
    configs = configurations(args.mode, args)
    tasks = tasks_of(args.mode, args)
    cells = [(t, name, opts) for t in tasks for name, opts in configs.items()]

    def run(cell: tuple[Path, str, list[str]]) -> None:
        task, name, opts = cell
        if results.get(str(task), name, args.budget) is None:
            out = work / f"{task.parent.name}__{task.stem}__{name.replace(' ', '_').replace('/', '-')}__{args.budget:g}"
            results.put(str(task), name, args.budget, generate_with(task, opts, args.budget, out))
            print(f"  {task.stem} {name}: done", file=sys.stderr, flush=True)

    with ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(run, cells))
    table(tasks, configs, results, args)
    unsound = claims = 0
    for t in tasks:
        folders = {n: Path(r["out"]) for n in configs
                   if (r := results.get(str(t), n, args.budget)) and "out" in r}
        verdict = check_folders(str(t), folders)
        for line in verdict.unsound:
            print(f"UNSOUND {t.stem}: {line}")
        unsound, claims = unsound + len(verdict.unsound), claims + verdict.claims
    print(f"\nsoundness: {claims} claims checked against every suite of the table, unsound: {unsound}")
    return 0


def table(tasks: list[Path], configs: dict[str, list[str]], results: Results, args: argparse.Namespace) -> None:
    rel: dict[str, list[float]] = {n: [] for n in configs}
    print(f"\n{'task':44}" + "".join(f"{n[:14]:>16}" for n in configs))
    for t in tasks:
        rows = {n: results.get(str(t), n, args.budget) or {} for n in configs}
        best = max((r.get("covered") or 0) for r in rows.values()) or 1
        cells = []
        for n, r in rows.items():
            rel[n].append((r.get("covered") or 0) / best)
            cells.append(f"{r.get('testcov', 0):6.1f}/{r.get('covered', 0)}c/{r.get('infeasible', 0)}i")
        print(f"{t.stem[:44]:44}" + "".join(f"{c:>16}" for c in cells))
    print(f"\n{'configuration':28} {'mean TestCov':>12} {'mean cov_f':>10} {'rel. cov':>8} {'decided':>7} "
          f"{'infeasible':>10} {'cut':>6}")
    for n in configs:
        rows = [results.get(str(t), n, args.budget) or {} for t in tasks]
        decided = sum(1 for r in rows if r.get("goals") and r.get("unknown") == 0)
        print(f"{n[:28]:28} {statistics.fmean(r.get('testcov', 0) for r in rows):12.2f} "
              f"{statistics.fmean(r.get('cov_f', 0) for r in rows):10.2f} {statistics.fmean(rel[n]):8.3f} "
              f"{decided:7} {sum(r.get('infeasible', 0) for r in rows):10} {sum(r.get('cut', 0) for r in rows):6}")
    if args.mode not in ("seeds", "crabs-seeds"):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(max(6, len(configs) * 0.9), 4))
        ax.boxplot([rel[n] for n in configs], tick_labels=list(configs))
        ax.set_ylabel("relative coverage (covered / best per task)")
        ax.set_title(f"{args.mode}, budget {args.budget:g} s, {len(tasks)} tasks")
        plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
        fig.tight_layout()
        fig.savefig(Path(args.work) / f"{args.mode}.png", dpi=100)
        print(f"plot: {Path(args.work) / (args.mode + '.png')}")


if __name__ == "__main__":
    sys.exit(main())
