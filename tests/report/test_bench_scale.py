"""``cooptest bench``: resuming a benchmark, surviving a kill, running on a Ray cluster
(a head of the test's own on 127.0.0.1), and the papers' plots and tables."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clitools import EXAMPLES, cooptest
from ray_head import local_ray_head

from cooptest.report.bench import Row, write_table
from cooptest.report.compare import category_rows
from cooptest.report.plots import relative_coverage

TASKS = [EXAMPLES / "triangle.c", EXAMPLES / "guarded.c"]
BENCH = ["--strategy", "random", "--budget", "4", "--seed", "3"]  # 2 s left nothing under load
DECIDED = ["--strategy", "concolic", "--budget", "20", "--seed", "3"]  # ends by itself in ~2 s:
# its figures do not depend on how fast the machine or the cluster runs it


def rows_of(out: Path) -> dict[str, dict]:
    return {Path(r["task"]).name: r for r in json.loads((out / "results.json").read_text())["rows"]}


def test_a_rerun_resumes_instead_of_repeating(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    first = cooptest("bench", *TASKS, *BENCH, "--out", out)
    assert first.returncode == 0, first.stderr
    done = rows_of(out)
    # forget one task, as if the benchmark had been killed before it finished
    doc = json.loads((out / "results.json").read_text())
    doc["rows"] = [r for r in doc["rows"] if Path(r["task"]).name == "triangle.c"]
    (out / "results.json").write_text(json.dumps(doc))
    again = cooptest("bench", *TASKS, *BENCH, "--out", out)
    assert again.returncode == 0, again.stderr
    assert "resuming: 1 of 2 tasks already in" in again.stderr
    assert "guarded" in again.stderr and "examples__triangle:" not in again.stderr
    assert rows_of(out)["triangle.c"] == done["triangle.c"]  # kept, not run again
    assert rows_of(out).keys() == {"triangle.c", "guarded.c"}

    other = cooptest("bench", *TASKS, "--strategy", "random", "--budget", "3", "--out", out)
    assert other.returncode == 2 and "results of another configuration" in other.stderr


def test_a_killed_benchmark_resumes_and_leaves_no_orphans(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    third = tmp_path / "more" / "clamped.c"  # a third task: one is still to come at the kill
    third.parent.mkdir()
    third.write_text((EXAMPLES / "guarded.c").read_text())
    tasks = [*TASKS, third]
    args = [sys.executable, "-m", "cooptest.cli", "bench", *tasks, "--strategy", "random",
            "--budget", "3", "--jobs", "1", "--out", str(out)]
    bench = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not (out / "results.json").exists():
        assert time.monotonic() < deadline and bench.poll() is None
        time.sleep(0.2)
    time.sleep(1.0)  # the second task is running now
    bench.send_signal(signal.SIGKILL)
    bench.wait()
    time.sleep(1.0)
    leftover = subprocess.run(["pgrep", "-f", f"--out {out}/"], capture_output=True, text=True)
    assert leftover.stdout == ""  # the running generate died with the bench (SIGTERM)
    before = len(json.loads((out / "results.json").read_text())["rows"])
    assert before < 3
    again = cooptest("bench", *tasks, "--strategy", "random", "--budget", "3", "--jobs", "1",
                     "--out", out)
    assert again.returncode == 0, again.stderr
    assert f"resuming: {before} of 3 tasks" in again.stderr
    assert rows_of(out).keys() == {"triangle.c", "guarded.c", "clamped.c"}
    assert all(r["exit_code"] == 0 for r in rows_of(out).values())


@pytest.fixture(scope="module")
def ray_address() -> str:
    pytest.importorskip("ray")
    with local_ray_head(num_cpus=2) as address:
        yield address


def test_bench_on_a_ray_cluster_gives_the_local_results(ray_address: str, tmp_path: Path) -> None:
    local, remote = tmp_path / "local", tmp_path / "ray"
    assert cooptest("bench", *TASKS, *DECIDED, "--out", local).returncode == 0
    proc = cooptest("bench", *TASKS, *DECIDED, "--out", remote, "--ray", ray_address,
                    "--memory", "512", timeout=600)
    assert proc.returncode == 0, proc.stderr
    a, b = rows_of(local), rows_of(remote)
    assert a.keys() == b.keys() == {"triangle.c", "guarded.c"}
    for name in a:
        assert b[name]["exit_code"] == 0 and b[name]["error"] == ""
        assert (b[name]["goals"], b[name]["cov_b"]) == (a[name]["goals"], a[name]["cov_b"])
        assert b[name]["cores"] == 1 and b[name]["cpu_s"] > 0  # Ray's num_cpus, generate's --jobs
        assert (remote / f"examples__{Path(name).stem}" / "report.html").exists()
    assert rows_of(remote)["triangle.c"]["task"] == str(TASKS[0])  # as given, not made absolute
    resumed = cooptest("bench", *TASKS, *DECIDED, "--out", remote, "--ray", ray_address)
    assert resumed.returncode == 0 and "resuming: 2 of 2 tasks" in resumed.stderr


def test_ray_address_that_answers_nothing_is_one_line(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    proc = cooptest("bench", EXAMPLES / "triangle.c", *BENCH, "--out", tmp_path / "b",
                    "--ray", "127.0.0.1:9", timeout=300)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("cooptest: cannot join the Ray cluster at 127.0.0.1:9")


def _results(out: Path, coverage: dict[str, float]) -> None:
    out.mkdir()
    rows = [Row(task, exit_code=0, goals=10, covered=int(c // 10), cov_b=c, testcov=c)
            for task, c in coverage.items()]
    write_table(rows, str(out), {"strategy": out.name})


def test_bench_compare_draws_scatter_boxplot_and_category_table(tmp_path: Path) -> None:
    _results(tmp_path / "random", {"/b/arrays/a.yml": 50.0, "/b/arrays/b.yml": 100.0,
                                   "/b/loops/c.yml": 0.0})
    _results(tmp_path / "concolic", {"/b/arrays/a.yml": 100.0, "/b/arrays/b.yml": 80.0,
                                     "/b/loops/c.yml": 0.0, "/b/loops/d.yml": 70.0})
    out = tmp_path / "cmp"
    proc = cooptest("bench-compare", tmp_path / "random", tmp_path / "concolic", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "3 tasks in common, measured by testcov" in proc.stdout
    assert "concolic better than random on 1, worse on 1" in proc.stdout
    for png in ("scatter.png", "relative-coverage.png"):
        assert (out / png).read_bytes()[:4] == b"\x89PNG"
    table = (out / "categories.md").read_text()
    assert "| arrays | 2 | 75.0 | 90.0 |" in table and "| loops | 1 | 0.0 | 0.0 |" in table
    assert "| all | 3 | 50.0 | 60.0 |" in table


def test_relative_coverage_is_against_the_best_configuration() -> None:
    rel = relative_coverage({"a": {"t": 50.0, "u": 0.0, "v": 1.0}, "b": {"t": 100.0, "u": 0.0}})
    assert rel == {"a": {"t": 0.5, "u": 1.0}, "b": {"t": 1.0, "u": 1.0}}
    rows = category_rows({"a": {"x__t": 50.0, "y__u": 10.0}, "b": {"x__t": 100.0, "y__u": 20.0}})
    assert rows == [{"category": "x", "tasks": 1, "a": 50.0, "b": 100.0},
                    {"category": "y", "tasks": 1, "a": 10.0, "b": 20.0},
                    {"category": "all", "tasks": 2, "a": 30.0, "b": 60.0}]
