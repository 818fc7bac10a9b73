#!/usr/bin/env python3
"""Proofs kept: the infeasibility claims of two revisions on the same tasks, task by task.

    python benchmarks/revisions.py OLD NEW --task T.yml ... --budget B --referee report --work DIR
    python benchmarks/proofs_kept.py OLD NEW --work DIR

Reads the report.json of every run ``revisions.py`` left in DIR (``DIR/<sha>/<task>-<k>-report``)
and prints, per task whose claims differ, the claims of each revision and the goals one
claims and the other does not (by line and outcome, which stay put when the front end
renumbers branches), each with the prover that claimed it; then the totals per revision
and per prover. A sound method that loses proofs is a cost to report, not to hide.
"""
from __future__ import annotations

import argparse
import collections
import json
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def short(rev: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", rev],
                          capture_output=True, text=True, check=True).stdout.strip()


def claims(report: Path) -> dict[str, str]:
    """The goals a run proved infeasible, each as ``line:outcome#n:id`` (outcome T, F or
    error; n counts the goals of one line), with its prover. A Test-Comp task is one
    file (older reports name none)."""
    doc = json.loads(report.read_text())
    out = {}
    for g in doc.get("goals", []):
        if g.get("status") != "infeasible":
            continue
        outcome = "error" if g.get("kind") == "error-call" else g["id"][-1]
        prover = g.get("origin") or str(g.get("proof", "")).split(":", 1)[0]
        key = f"{g['line']}:{outcome}"
        n = sum(1 for k in out if k.rsplit(":", 1)[0] == key)  # two goals of one line
        out[f"{key}#{n}:{g['id']}"] = prover
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--work", type=Path, required=True)
    args = ap.parse_args()
    old, new = short(args.old), short(args.new)
    runs = {rev: {p.parent.name.rsplit("-", 2)[0]: claims(p)
                  for p in sorted((args.work / rev).glob("*-report/report.json"))}
            for rev in (old, new)}
    tasks = sorted(runs[old].keys() & runs[new].keys())
    by_prover: dict[str, collections.Counter[str]] = {old: collections.Counter(), new: collections.Counter()}
    print(f"| task | {old} | {new} | lost (prover) | gained (prover) |\n|---|---|---|---|---|")
    for task in tasks:
        a, b = runs[old][task], runs[new][task]
        for rev, c in ((old, a), (new, b)):
            by_prover[rev].update(c.values())
        if len(a) == len(b) and {k.rsplit(":", 1)[0] for k in a} == {k.rsplit(":", 1)[0] for k in b}:
            continue
        keys_a = {k.rsplit(":", 1)[0]: k for k in a}
        keys_b = {k.rsplit(":", 1)[0]: k for k in b}
        lost = ", ".join(f"{k} ({a[keys_a[k]]})" for k in sorted(keys_a.keys() - keys_b.keys()))
        gained = ", ".join(f"{k} ({b[keys_b[k]]})" for k in sorted(keys_b.keys() - keys_a.keys()))
        print(f"| {task} | {len(a)} | {len(b)} | {lost[:300]} | {gained[:300]} |")
    total = {rev: sum(len(runs[rev][t]) for t in tasks) for rev in (old, new)}
    with_claims = {rev: sum(1 for t in tasks if runs[rev][t]) for rev in (old, new)}
    print(f"\n{len(tasks)} tasks run by both: claims {old} {total[old]:,} on {with_claims[old]} tasks, "
          f"{new} {total[new]:,} on {with_claims[new]} tasks")
    for rev in (old, new):
        print(f"  {rev} by prover: " + ", ".join(f"{p} {n}" for p, n in by_prover[rev].most_common()))


if __name__ == "__main__":
    main()
