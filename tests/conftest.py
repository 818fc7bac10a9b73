"""Every test, and every cooptest process a test starts, keeps parsed ASTs in a cache of
the test session's own (``COOPTEST_CACHE``), never in the user's."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import pytest

from cooptest.core.board import GoalBoard


@pytest.fixture(autouse=True, scope="session")
def private_ast_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    os.environ["COOPTEST_CACHE"] = str(tmp_path_factory.mktemp("ast-cache"))


@pytest.fixture
def program_of(tmp_path: Path) -> Callable[[str], GoalBoard]:
    """``program_of(c_text)``: the goal board of a C program (no suite file)."""
    from cooptest.frontend import load_program
    from cooptest.harness.executor import Executor
    from cooptest.task import load_task

    def make(source: str) -> GoalBoard:
        path = tmp_path / "prog.c"
        path.write_text(source)
        frontend = load_program(load_task(str(path)), str(tmp_path / "work"))
        return GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "work")))
    return make
