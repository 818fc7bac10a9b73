"""The package type-checks: mypy, configured in pyproject.toml (``[tool.mypy]``), finds
no error in src/cooptest. Slow: a first run, without mypy's cache, takes a minute or two."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_mypy_finds_no_error() -> None:
    pytest.importorskip("mypy", reason="mypy is not installed (pip install -e '.[dev]')")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "pyproject.toml", "src/cooptest"],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"mypy src/cooptest:\n{proc.stdout}{proc.stderr}"
