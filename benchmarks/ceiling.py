#!/usr/bin/env python3
"""What every suite together reached: the union of the goals covered by many runs of one
program, function by function.

    python benchmarks/ceiling.py DIR_OR_REPORT [...] [--goals N] [--top 30]

Reads every ``report.json`` below the arguments whose program has ``--goals`` goals (runs of
other builds of the program are left out, and said so), and prints the goals covered by
at least one run, the goals proven infeasible by at least one, and the functions with the
most goals no run covered. A goal is named by its file, function, line, condition and
outcome (and its rank among equal names), not by its id, so that runs of trees whose
front ends number branches differently agree. This union is what the tool has shown to be
reachable: a lower bound of the program's ceiling under its harness, the figure to put
beside a paper's when no configuration reaches the paper's.
"""
from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path

Key = tuple[str, str, int, str, str, int]


def goals(report: dict) -> dict[Key, str]:
    """Each goal of a report by its name, with its status."""
    out: dict[Key, str] = {}
    seen: collections.Counter[tuple[str, str, int, str, str]] = collections.Counter()
    for g in report.get("goals", []):
        outcome = "error" if g.get("kind") == "error-call" else g["id"][-1]
        name = (Path(g.get("file") or "").name, g.get("function") or "", g["line"],
                g.get("condition") or "", outcome)
        out[(*name, seen[name])] = g["status"]
        seen[name] += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--goals", type=int, required=True, help="the program's goal count (selects the build)")
    ap.add_argument("--top", type=int, default=30)
    args = ap.parse_args()
    reports = sorted({p for a in args.paths for p in ([a] if a.is_file() else a.rglob("report.json"))})
    every: dict[Key, str] = {}
    covered: set[Key] = set()
    infeasible: set[Key] = set()
    used = 0
    for path in reports:
        doc = json.loads(path.read_text())
        if doc.get("summary", {}).get("goals") != args.goals:
            print(f"left out: {path} ({doc.get('summary', {}).get('goals')} goals)")
            continue
        used += 1
        run = goals(doc)
        every.update(run)
        covered |= {k for k, s in run.items() if s == "covered"}
        infeasible |= {k for k, s in run.items() if s == "infeasible"}
        print(f"{path}: {sum(s == 'covered' for s in run.values())} covered")
    print(f"\n{used} runs: {len(covered)} of {args.goals} goals covered by at least one, "
          f"{len(infeasible)} proven infeasible by at least one")
    per_file = collections.Counter(k[0] for k in every)
    per_file_covered = collections.Counter(k[0] for k in covered)
    print("\n| file | goals | covered by a run |\n|---|---|---|")
    for name, n in per_file.most_common():
        print(f"| {name} | {n} | {per_file_covered[name]} |")
    per_function = collections.Counter(k[1] for k in every)
    per_function_covered = collections.Counter(k[1] for k in covered)
    print("\n| function | goals | covered by a run |\n|---|---|---|")
    for name in sorted(per_function, key=lambda f: per_function_covered[f] - per_function[f])[:args.top]:
        print(f"| {name} | {per_function[name]} | {per_function_covered[name]} |")


if __name__ == "__main__":
    main()
