"""Coverage over time, drawn from the ``timeline`` of report.json files: where a strategy
spends its budget (early plateau, late breakthroughs) shows here, not in the final figure."""
from __future__ import annotations

import json
import os

import matplotlib

matplotlib.use("Agg")  # files only, never a window
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def plot_timelines(reports: list[str], out_png: str) -> None:
    """One step line per report: covered goals in percent against seconds."""
    fig = timeline_figure(reports)
    fig.savefig(out_png, dpi=120, bbox_inches="tight")  # the legend beside the axes too
    plt.close(fig)


def timeline_figure(reports: list[str]) -> Figure:
    """The figure of :func:`plot_timelines`. Its legend stands right of the axes: the
    curves rise to the top right, where a legend inside sat on them."""
    fig, ax = plt.subplots(figsize=(7, 4))
    for path in reports:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            continue
        n = doc["summary"]["goals"]
        if not n:
            continue
        times = [0.0] + [t for t, _, _ in doc["timeline"]] + [doc["summary"]["time_s"]]
        covered = [0] + [c for _, c, _ in doc["timeline"]] + [doc["summary"]["covered"]]
        ax.step(times, [100.0 * c / n for c in covered], where="post", linewidth=0.8,
                label=os.path.basename(os.path.dirname(path)))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("goals covered (%)")
    ax.set_ylim(0, 100)
    if 0 < len(ax.lines) <= 10:  # no curve (no run had goals): no legend, nor matplotlib's warning
        ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    fig.tight_layout()
    return fig


def scatter(a: dict[str, float], b: dict[str, float], path: str,
            labels: tuple[str, str] = ("A", "B"), metric: str = "coverage (%)") -> None:
    """One point per task both ``a`` and ``b`` measured (task -> value): above the
    diagonal, ``b`` did better (the papers' per-task comparison of two configurations)."""
    tasks = sorted(a.keys() & b.keys())
    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    xs, ys = [a[t] for t in tasks], [b[t] for t in tasks]
    top = max(xs + ys + [100.0])
    ax.plot([0, top], [0, top], color="#999", linewidth=0.8, zorder=1)
    ax.scatter(xs, ys, s=12, alpha=0.75, zorder=2)
    ax.set_xlim(0, top * 1.02)
    ax.set_ylim(0, top * 1.02)
    ax.set_xlabel(f"{labels[0]}: {metric}")
    ax.set_ylabel(f"{labels[1]}: {metric}")
    ax.set_title(f"{len(tasks)} tasks", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def relative_coverage(results: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """Each configuration's coverage of a task relative to the best configuration on it
    (1 = as good as the best), over the tasks every configuration measured; a task no
    configuration covers at all counts 1 for each."""
    common = set.intersection(*(set(r) for r in results.values())) if results else set()
    out: dict[str, dict[str, float]] = {name: {} for name in results}
    for task in sorted(common):
        best = max(r[task] for r in results.values())
        for name, r in results.items():
            out[name][task] = r[task] / best if best > 0 else 1.0
    return out


def relative_coverage_boxplot(results: dict[str, dict[str, float]], path: str) -> None:
    """Box plots of :func:`relative_coverage`, one box per configuration
    (``results``: configuration name -> task -> coverage)."""
    rel = relative_coverage(results)
    names = list(rel)
    fig, ax = plt.subplots(figsize=(1.6 + 1.1 * len(names), 4))
    ax.boxplot([list(rel[n].values()) for n in names], showmeans=True)
    ax.set_xticks(range(1, len(names) + 1), names, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("coverage relative to the best configuration")
    ax.set_ylim(-0.02, 1.05)
    n = len(next(iter(rel.values()), {}))
    ax.set_title(f"{n} tasks", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
