"""Fixtures of the CLI tests: the examples, the referee, one shared short run."""
from __future__ import annotations

from pathlib import Path

import pytest

from clitools import EXAMPLES, SHARED, cooptest


@pytest.fixture(scope="session")
def testcov_measure() -> Path:
    """The Test-Comp referee script; skips the test where /work/shared is absent."""
    tool = SHARED / "tools" / "testcov-measure"
    if not tool.exists():
        pytest.skip("no shared/tools/testcov-measure")
    return tool


@pytest.fixture(scope="session")
def triangle() -> Path:
    return EXAMPLES / "triangle.c"


@pytest.fixture(scope="session")
def random_run(tmp_path_factory: pytest.TempPathFactory, triangle: Path) -> Path:
    """The output folder of one short random-testing run on the triangle example."""
    out = tmp_path_factory.mktemp("random-run")
    proc = cooptest("generate", triangle, "--budget", "5", "--out", out, "--strategy", "random",
                    "--seed", "1", "--quiet")
    assert proc.returncode == 0, proc.stderr
    return out
