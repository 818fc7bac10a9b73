"""Fixtures of the report tests: a small program with goals of every status, and the
output folders of real generate runs on it."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "cli"))
from clitools import HEADERONLY, REPO, cooptest, full_page  # noqa: E402
from report_programs import PAGE_C  # noqa: E402


@pytest.fixture(scope="session")
def page_c(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("page") / "page.c"
    path.write_text(PAGE_C)
    return path


def _run(tmp_path_factory: pytest.TempPathFactory, program: Path, strategy: str,
         budget: str) -> Path:
    out = tmp_path_factory.mktemp(f"run-{strategy}")
    proc = cooptest("generate", program, "--budget", budget, "--out", out, "--strategy", strategy,
                    "--seed", "1", "--quiet")
    assert proc.returncode == 0, proc.stderr
    return full_page(out)



@pytest.fixture(scope="session")
def random_out(tmp_path_factory: pytest.TempPathFactory, page_c: Path) -> Path:
    """Covered goals and open ones (random testing proves nothing, misses the needle)."""
    out = _run(tmp_path_factory, page_c, "random", "10")  # 3 s: loading alone, under load
    statuses = {g["status"] for g in json.loads((out / "report.json").read_text())["goals"]}
    assert statuses == {"covered", "unknown"}
    return out


@pytest.fixture(scope="session")
def predicate_out(tmp_path_factory: pytest.TempPathFactory, page_c: Path) -> Path:
    """Goals proven infeasible too."""
    out = _run(tmp_path_factory, page_c, "predicate", "8")
    summary = json.loads((out / "report.json").read_text())["summary"]
    assert summary["infeasible"] > 0
    return out


@pytest.fixture(scope="session")
def headeronly_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run on a header-only library: every goal but the harness's is in lib/ring.h,
    one (a check that the buffer is corrupt) open."""
    out = tmp_path_factory.mktemp("run-headeronly")
    proc = cooptest("generate", HEADERONLY / "harness.c", "-I", HEADERONLY / "lib", "--budget", "10",
                    "--out", out, "--seed", "1", "--quiet")
    assert proc.returncode == 0, proc.stderr
    return out
