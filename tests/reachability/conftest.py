"""Programs under test for the reachability analyses: C text → GoalBoard."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from cooptest.core.board import GoalBoard
from cooptest.frontend import load_program
from cooptest.harness.executor import Executor
from cooptest.task import load_task

SHARED = Path(__file__).resolve().parents[2].parent / "shared"


@pytest.fixture
def program_of(tmp_path: Path) -> Callable[[str], GoalBoard]:
    def make(source: str) -> GoalBoard:
        path = tmp_path / "prog.c"
        path.write_text(source)
        frontend = load_program(load_task(str(path)), str(tmp_path / "work"))
        return GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "work")))
    return make
