"""Fixtures of the harness tests: the data folder and the referee (skipping without it)."""
from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).parents[2].parent / "shared"


@pytest.fixture(scope="session")
def data() -> Path:
    return Path(__file__).parents[1] / "data"


@pytest.fixture(scope="session")
def testcov_measure() -> Path:
    """The Test-Comp referee script; skips the test where /work/shared is absent."""
    tool = SHARED / "tools" / "testcov-measure"
    if not tool.exists():
        pytest.skip("no shared/tools/testcov-measure")
    return tool


@pytest.fixture(scope="session")
def testcov_python() -> Path:
    """The Python of TestCov's venv, to use TestCov's own harness generator."""
    python = Path.home() / ".cache" / "testcov-venv" / "bin" / "python"
    if not python.exists():
        pytest.skip("TestCov is not installed")
    return python
