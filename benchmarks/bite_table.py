"""Figures of BiTe (issue 12), after the paper's Tables 1-2; prints a markdown table.

    python benchmarks/bite_table.py [--budget 60] [--seed-budget 30] [--strategies bite,concolic,predicate]

A strategy ``bite:found`` is BiTe with the paper's frontier order (the order edges were
found; plain ``bite`` is the default order, ``nearest``).

Rows: check_valves.c and unreach.c (seed examples, at ``--seed-budget``) and the dev
tasks of ``ntdrivers/`` and ``openssl/`` (at ``--budget``), each generated with every
strategy through the CLI, one job at a time. Columns: TestCov coverage of the suite,
cov_f (covered / (goals - proven infeasible)), goals proven infeasible, it_b and it_f
(BiTe's iterations to reach its final covered count / its final covered and
infeasible counts). Then the soundness cross-check (``soundness.replay_claims``): every
test of every strategy's suite is replayed natively against every goal any strategy
proved infeasible; ``unsound`` must be 0. Results are cached in ``--results``.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from concolic_table import SEEDS, TESTCOMP, Results
from reachability_table import generate
from soundness import replay_claims

# every dev task of the two folders of the paper's panel (six: three drivers, three openssl)
TASKS = sorted(str(p.relative_to(TESTCOMP)) for folder in ("ntdrivers", "openssl")
               for p in (TESTCOMP / folder).glob("*.yml"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget", type=float, default=60)
    ap.add_argument("--seed-budget", type=float, default=30)
    ap.add_argument("--strategies", default="bite,concolic,predicate")
    ap.add_argument("--work", type=Path, default=Path("/tmp/bite-table"))
    ap.add_argument("--results", type=Path, default=Path("/tmp/bite-table/results.json"))
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    results = Results(args.results)
    strategies = args.strategies.split(",")
    cells = [(f"{n}.c", SEEDS / f"{n}.c", args.seed_budget) for n in ("check_valves", "unreach")]
    cells += [(t, TESTCOMP / t, args.budget) for t in TASKS]
    print("| task | strategy | budget s | TestCov % | cov_f % | proven infeasible | it_b | it_f |")
    print("|---|---|---|---|---|---|---|---|")
    for name, task, budget in cells:
        suites: dict[str, Path] = {}
        claims: dict[str, str] = {}
        for strategy in strategies:
            summary = results.get(name, strategy, budget)
            out = args.work / f"{Path(name).stem}-{strategy.replace(':', '-')}-{budget:g}"
            if summary is None:
                name_, _, order = strategy.partition(":")
                summary = generate(task, name_, budget, out,
                                   ("--frontier-order", order) if order else ())
                results.put(name, strategy, budget, summary)
            suites[strategy] = out / "test-suite.zip"
            claims.update({g: f"{strategy}: {p}" for g, p in summary.get("infeasible_goals", {}).items()})
            print(f"| {name} | {strategy} | {budget:g} | {summary.get('testcov', 0):.1f} | "
                  f"{summary.get('cov_f')} | {len(summary.get('infeasible_goals', {}))} | "
                  f"{summary.get('it_b', '-')} | {summary.get('it_f', '-')} |", flush=True)
        verdict = replay_claims(str(task), claims, {s: p for s, p in suites.items() if p.exists()})
        print(f"| {name} | soundness | | {verdict.tests} tests replayed | | {verdict.claims} claims | "
              f"unsound {len(verdict.unsound)} {verdict.error} | |", flush=True)


if __name__ == "__main__":
    main()
