"""Fixtures of the front-end tests: cooptest's layout of a C text against gcc's."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from cooptest.cfa.ctype import DataModel

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import layout  # noqa: E402


@pytest.fixture
def layout_of(tmp_path: Path) -> Callable[[str, DataModel], Any]:
    """``layout_of(c_text, model)``: the comparison (``benchmarks/layout.py``) of every
    variable's and enum's layout as cooptest computes it with the DWARF of gcc's build,
    once it has compared the whole program (nothing skipped) and found no difference."""
    def compare(text: str, model: DataModel) -> Any:
        program = tmp_path / "layout.c"
        program.write_text(text)
        r = layout.compare([str(program)], model)
        assert not r.skipped, r.skipped
        assert not r.differ, r.differ
        return r
    return compare
