"""``cooptest cfa``: counts of the CFA and its dot drawing, on the triangle example whose
decisions are counted by hand: 16 branch points (every ``&&``/``||`` operand is one,
CIL-style), one reach_error call, three functions (main, classify, reach_error)."""
from __future__ import annotations

import json
from pathlib import Path

from clitools import cooptest


def test_cfa_json_counts(triangle: Path, tmp_path: Path) -> None:
    dot = tmp_path / "cfa.dot"
    proc = cooptest("cfa", triangle, "--json", "--dot", dot)
    assert proc.returncode == 0, proc.stderr
    counts = json.loads(proc.stdout)
    assert counts["functions"] == 3
    assert counts["branch_goals"] == 2 * 16
    assert counts["error_goals"] == 1
    assert counts["edges"] >= counts["locations"] - counts["functions"]
    text = dot.read_text()
    assert text.startswith("digraph cfa {")
    assert text.count("subgraph \"cluster_") == counts["functions"]
    # every CFA edge is drawn once with its operation as label, plus dashed call edges
    solid = [l for l in text.splitlines() if "->" in l and "style=dashed" not in l]
    assert len(solid) == counts["edges"]
    assert "reach_error() #" in text and "color=red" in text


def test_cfa_text_output(triangle: Path) -> None:
    proc = cooptest("cfa", triangle)
    assert proc.returncode == 0
    assert "32 branch goals" in proc.stdout
