"""Coverage over time, drawn from the ``timeline`` of report.json files: where a strategy
spends its budget (early plateau, late breakthroughs) shows here, not in the final figure."""
from __future__ import annotations

import json
import os

import matplotlib

matplotlib.use("Agg")  # files only, never a window
import matplotlib.pyplot as plt  # noqa: E402


def plot_timelines(reports: list[str], out_png: str) -> None:
    """One step line per report: covered goals in percent against seconds."""
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
    if len(ax.lines) <= 10:
        ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(out_png, dpi=120)
    plt.close(fig)
