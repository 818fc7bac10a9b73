"""``cooptest bench``: one generate process per task, a table that sums them up."""
from __future__ import annotations

import csv
import json
from pathlib import Path

from clitools import EXAMPLES, cooptest


def test_bench_tabulates_each_task(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    proc = cooptest("bench", EXAMPLES / "triangle.c", EXAMPLES / "guarded.c", "--strategy",
                    "random", "--budget", "2", "--jobs", "2", "--out", out)
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader((out / "results.csv").open()))
    assert sorted(Path(r["task"]).name for r in rows) == ["guarded.c", "triangle.c"]
    doc = json.loads((out / "results.json").read_text())
    for row in doc["rows"]:
        report = json.loads((out / f"examples__{Path(row['task']).stem}" / "report.json").read_text())
        assert row["covered"] == report["summary"]["covered"]
        assert row["exit_code"] == 0 and row["error"] == ""
    assert doc["summary"]["tasks"] == 2
    assert doc["summary"]["mean_cov_b"] == round(sum(r["cov_b"] for r in doc["rows"]) / 2, 2)
    assert "2 tasks: mean TestCov coverage" in proc.stdout
    assert (out / "coverage-over-time.png").stat().st_size > 0


def test_bench_reports_bad_tasks_in_the_table(tmp_path: Path) -> None:
    bad = tmp_path / "bad.c"
    bad.write_text("int main(void) { return }\n")
    out = tmp_path / "bench"
    proc = cooptest("bench", bad, "--strategy", "random", "--budget", "1", "--out", out)
    # every task failed: the table is written, but a bench of failures is no measurement
    assert proc.returncode == 1 and "every one of the 1 tasks failed" in proc.stderr, proc.stderr
    (row,) = json.loads((out / "results.json").read_text())["rows"]
    assert row["exit_code"] == 2 and row["error"].startswith(f"cooptest: {bad}:")
