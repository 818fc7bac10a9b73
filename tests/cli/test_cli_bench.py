"""``cooptest bench``: one generate process per task, a table that sums them up."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

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
        analysed = report["summary"].get("analysed") is not False  # else no figures: not 0 of 0
        assert row["covered"] == (report["summary"]["covered"] if analysed else None)
        assert row["exit_code"] == 0 and row["error"] == ""
    assert doc["summary"]["tasks"] == 2
    covs = [r["cov_b"] for r in doc["rows"] if r["cov_b"] is not None]  # a loaded machine
    assert doc["summary"]["mean_cov_b"] == (round(sum(covs) / len(covs), 2) if covs else None)
    assert proc.stdout.startswith("2 tasks, ") and "TestCov" not in proc.stdout  # not measured
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


def test_each_task_gets_the_cores_it_reserves(tmp_path: Path) -> None:
    """``bench --jobs 2`` ran two portfolios that each took every core of the machine;
    now a task's generate is told ``--jobs`` as many cores as it reserves and is pinned
    to them, so its CPU time never exceeds its wall time times its cores."""
    out = tmp_path / "bench"
    proc = cooptest("bench", EXAMPLES / "triangle.c", "--budget", "4", "--cores", "1",
                    "--out", out)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((out / "results.json").read_text())
    (row,) = doc["rows"]
    assert doc["config"]["cores"] == row["cores"] == 1
    assert 0 < row["cpu_s"] <= row["time_s"] * row["cores"], row
    report = json.loads((out / "examples__triangle" / "report.json").read_text())
    assert report["configuration"]["jobs"] == 1


@pytest.mark.parametrize("options,says", [
    (["--jobs", "1000"], "1000 tasks at once of 1 cores each need 1000 cores"),
    (["--cores", "1000"], "of 1000 cores each need 1000 cores"),
    (["--jobs", "2", "--ray", "auto"], "--jobs applies without --ray"),
    (["--benchexec", "--ray", "auto"], "--benchexec measures the tasks on this machine"),
])
def test_more_cores_than_cooptest_may_use_are_refused(tmp_path: Path, options, says) -> None:
    proc = cooptest("bench", EXAMPLES / "triangle.c", "--budget", "2", "--out", tmp_path / "b",
                    *options)
    assert proc.returncode == 2 and says in proc.stderr and not (tmp_path / "b").exists(), proc.stderr


def test_bench_under_benchexec_records_its_cpu_time_and_memory(tmp_path: Path) -> None:
    """``--benchexec``: each generate under BenchExec's run executor, the tool Test-Comp
    measures with; the table holds BenchExec's CPU time and peak memory."""
    pytest.importorskip("benchexec")
    out = tmp_path / "bench"
    proc = cooptest("bench", EXAMPLES / "triangle.c", "--strategy", "random", "--budget", "3",
                    "--benchexec", "--out", out)
    if "BenchExec cannot measure here" in proc.stderr:
        pytest.skip(proc.stderr)  # no cgroups BenchExec can use (not root, say)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((out / "results.json").read_text())
    (row,) = doc["rows"]
    assert doc["config"]["benchexec"] is True and row["exit_code"] == 0 and row["error"] == ""
    assert row["memory_mb"] > 0 and 0 < row["cpu_s"] <= row["time_s"] * row["cores"], row
    assert (out / "examples__triangle" / "report.json").exists()


def test_the_last_line_gives_means_only_of_what_was_measured() -> None:
    """It said "mean TestCov coverage None (over 0)" where nothing was measured."""
    from cooptest.report.bench import Row, summarize, summary_line
    rows = [Row("a", goals=10, covered=5, infeasible=0, cov_b=50.0, cov_f=50.0, tests=1),
            Row("b", exit_code=2, error="cooptest: b: no such file")]
    assert summary_line(summarize(rows), testcov=True).startswith(
        "2 tasks, 1 with figures: TestCov measured none, mean cov_b 50.0, mean cov_f 50.0, decided 0")
    assert "None" not in summary_line(summarize(rows[1:]), testcov=False)
