"""Fixtures of the concolic tests: a program under test built from C text."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from cooptest.core.board import GoalBoard
from cooptest.core.run_context import RunContext
from cooptest.frontend import load_program
from cooptest.harness.executor import Executor
from cooptest.harness.testsuite import SuiteWriter
from cooptest.task import load_task

SHARED = Path(__file__).resolve().parents[2].parent / "shared"

MakeProgram = Callable[..., GoalBoard]


@pytest.fixture
def make_program(tmp_path: Path) -> MakeProgram:
    """``make_program(c_text, suite=False)``: the GoalBoard of a C program."""
    def make(source: str, suite: bool = False, name: str = "prog.c") -> GoalBoard:
        path = tmp_path / name
        path.write_text(source)
        task = load_task(str(path))
        fe = load_program(task, str(tmp_path / "work"))
        writer = SuiteWriter(str(tmp_path / "suite" / "test-suite.zip"), task) if suite else None
        return GoalBoard(fe.program, Executor(fe, str(tmp_path / "build")), RunContext(writer))
    return make


@pytest.fixture(scope="session")
def seed_examples() -> Path:
    folder = SHARED / "benchmarks" / "seed-examples"
    if not folder.exists():
        pytest.skip("no shared/benchmarks/seed-examples")
    return folder


@pytest.fixture(scope="session")
def testcov_measure() -> Path:
    tool = SHARED / "tools" / "testcov-measure"
    if not tool.exists():
        pytest.skip("no shared/tools/testcov-measure")
    return tool
