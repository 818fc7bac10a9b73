"""``cooptest bench-compare``: configurations side by side, as the papers show them — a
scatter plot of two configurations per task, box plots of relative coverage, and a
table per category — from the ``results.json`` files of ``cooptest bench`` runs.

Tasks are matched by their run name (``category__task``), so runs made from different
folders compare. One coverage measure is used throughout: the referee's (TestCov) when
every compared row has it, else cooptest's TestCov-style count, else ``cov_b``.
"""
from __future__ import annotations

import csv
import json
import os
import statistics

from cooptest.errors import UserError
from cooptest.report.bench import RESULTS_JSON, run_name

METRICS = ("testcov", "testcov_style", "cov_b")  # best first


def load_rows(bench_dir: str) -> list[dict[str, object]]:
    path = os.path.join(bench_dir, RESULTS_JSON)
    try:
        with open(path) as f:
            return json.load(f)["rows"]
    except FileNotFoundError:
        raise UserError(f"no {RESULTS_JSON} (not the output folder of cooptest bench?)",
                        bench_dir) from None
    except (ValueError, KeyError) as e:
        raise UserError(f"not a results file of cooptest bench: {e}", path) from None


def choose_metric(runs: dict[str, list[dict[str, object]]]) -> str:
    """The best measure every row with a report has in every run."""
    rows = [r for rs in runs.values() for r in rs if r.get("goals") is not None]
    return next((m for m in METRICS if all(r.get(m) is not None for r in rows)), "cov_b")


def coverage_by_task(rows: list[dict[str, object]], metric: str) -> dict[str, float]:
    return {run_name(str(r["task"])): float(r[metric]) for r in rows  # type: ignore[arg-type]
            if r.get(metric) is not None}


def category_rows(results: dict[str, dict[str, float]]) -> list[dict[str, object]]:
    """Per category (the task's folder): tasks and each configuration's mean coverage,
    over the tasks that every configuration measured; a last row for all of them."""
    common = set.intersection(*(set(r) for r in results.values())) if results else set()
    groups: dict[str, list[str]] = {}
    for task in sorted(common):
        groups.setdefault(task.split("__", 1)[0], []).append(task)
    groups["all"] = sorted(common)
    return [{"category": cat, "tasks": len(tasks),
             **{name: round(statistics.fmean(r[t] for t in tasks), 2) if tasks else None
                for name, r in results.items()}}
            for cat, tasks in groups.items()]


def write_category_table(results: dict[str, dict[str, float]], out: str, metric: str) -> list[dict[str, object]]:
    """``categories.csv`` and ``categories.md`` (mean ``metric`` per category)."""
    rows = category_rows(results)
    names = ["category", "tasks", *results]
    with open(os.path.join(out, "categories.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, names)
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(out, "categories.md"), "w") as f:
        f.write(f"Mean {metric} per category\n\n| {' | '.join(names)} |\n"
                f"|{'---|' * len(names)}\n")
        for row in rows:
            f.write("| " + " | ".join("" if row[n] is None else str(row[n]) for n in names) + " |\n")
    return rows


def run_compare(bench_dirs: list[str], out: str) -> int:
    if len(bench_dirs) < 2:
        raise UserError("bench-compare needs at least two bench output folders")
    from cooptest.report.plots import relative_coverage_boxplot, scatter  # matplotlib: only here
    runs: dict[str, list[dict[str, object]]] = {}
    for k, d in enumerate(bench_dirs):
        name = os.path.basename(os.path.normpath(d)) or d
        runs[name if name not in runs else f"{name}-{k}"] = load_rows(d)
    metric = choose_metric(runs)
    results = {name: coverage_by_task(rows, metric) for name, rows in runs.items()}
    os.makedirs(out, exist_ok=True)
    (a, ra), (b, rb) = list(results.items())[:2]
    scatter(ra, rb, os.path.join(out, "scatter.png"), (a, b), f"{metric} (%)")
    relative_coverage_boxplot(results, os.path.join(out, "relative-coverage.png"))
    rows = write_category_table(results, out, metric)
    common = ra.keys() & rb.keys()
    better = sum(rb[t] > ra[t] for t in common)
    worse = sum(rb[t] < ra[t] for t in common)
    total = rows[-1]
    print(f"{len(common)} tasks in common, measured by {metric}: "
          + ", ".join(f"{n} mean {total[n]}" for n in results)
          + f"; {b} better than {a} on {better}, worse on {worse}")
    print(f"wrote {out}/scatter.png, relative-coverage.png, categories.csv, categories.md")
    return 0
