"""``generate --all-functions --per-function --jobs J`` (or ``--ray ADDRESS``): one job
per function, then the harness of them all seeded with their tests (issue 43, item 5)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from clitools import cooptest
from test_cli_errors import assert_one_line

from cooptest.harness.testsuite import read_suite

LIBRARY = """int sign(int x) {
  if (x > 0)
    return 1;
  if (x < 0)
    return -1;
  return 0;
}
int clamp(int x, int top) {
  if (x > top)
    return top;
  return x;
}
"""


@pytest.mark.slow
def test_jobs_merge_into_one_report_and_suite(tmp_path: Path) -> None:
    lib = tmp_path / "lib.c"
    lib.write_text(LIBRARY)
    out = tmp_path / "out"
    # every goal is easy: each job and the seeded run end once all are decided; the
    # budget is for a loaded machine
    proc = cooptest("generate", lib, "--all-functions", "--per-function", "--jobs", "2", "--budget", "120",
                    "--out", out, "--quiet", timeout=300)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((out / "report.json").read_text())
    record = doc["configuration"]["per_function"]
    assert record["jobs"] == 2 and record["functions"] == 2 and record["failed"] == {}
    assert {p.name for p in (out / "functions").iterdir()} >= {"sign", "clamp", "merged-suite.zip"}
    merged = read_suite(str(out / "functions" / "merged-suite.zip"))
    assert merged and {t.inputs[0] for t in merged} == {"0", "1"}  # each job's tests, its function first
    assert doc["summary"]["covered"] == doc["summary"]["goals"] == 6
    # the jobs' own reports stay, each of its one function
    assert json.loads((out / "functions" / "sign" / "report.json").read_text())["harness"]["functions"] == ["sign"]


def test_per_function_needs_functions_and_time(tmp_path: Path) -> None:
    lib = tmp_path / "lib.c"
    lib.write_text(LIBRARY + "int main(void) { return sign(clamp(3, 2)); }\n")
    assert_one_line(cooptest("generate", lib, "--per-function", "--budget", "60", "--out", tmp_path / "a"),
                    "--per-function runs one job per function of --function or --all-functions")
    assert_one_line(cooptest("generate", lib, "--all-functions", "--per-function", "--jobs", "1",
                             "--budget", "30", "--out", tmp_path / "b"), "--per-function: 2 functions on 1 jobs")


def test_ray_applies_to_per_function_alone(tmp_path: Path) -> None:
    lib = tmp_path / "lib.c"
    lib.write_text(LIBRARY)
    assert_one_line(cooptest("generate", lib, "--all-functions", "--ray", "auto", "--out", tmp_path / "a"),
                    "--ray applies to --per-function")
    assert_one_line(cooptest("generate", lib, "--all-functions", "--per-function", "--ray", "auto",
                             "--jobs", "2", "--out", tmp_path / "b"), "--jobs applies without --ray")


@pytest.mark.slow
def test_jobs_run_as_ray_tasks_and_come_back_whole(tmp_path: Path) -> None:
    """Each job a Ray task of one CPU on a head of two: the job writes in a folder of the
    worker's, and its suite and report come back into OUT/functions/NAME."""
    pytest.importorskip("ray")
    sys.path.insert(0, str(Path(__file__).parents[1] / "report"))
    from ray_head import local_ray_head
    lib = tmp_path / "lib.c"
    lib.write_text(LIBRARY)
    out = tmp_path / "out"
    with local_ray_head(num_cpus=2) as address:
        proc = cooptest("generate", lib, "--all-functions", "--per-function", "--ray", address,
                        "--budget", "150", "--out", out, "--quiet", timeout=400)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((out / "report.json").read_text())
    record = doc["configuration"]["per_function"]
    assert record["ray"] == address and record["jobs"] == 2 and record["failed"] == {}
    assert json.loads((out / "functions" / "clamp" / "report.json").read_text())["harness"]["functions"] == ["clamp"]
    assert {t.inputs[0] for t in read_suite(str(out / "functions" / "merged-suite.zip"))} == {"0", "1"}
    assert doc["summary"]["covered"] == doc["summary"]["goals"] == 6
