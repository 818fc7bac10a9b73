"""Every test, and every cooptest process a test starts, keeps parsed ASTs in a cache of
the test session's own (``COOPTEST_CACHE``), never in the user's; and a test fails if a
board of its process records a proof that a test refutes (``no_refuted_proof``)."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable, Iterator

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


SLOW_SECONDS = 0.6
MEASURED = Path(__file__).with_name("slow.json")
"""The tests last measured to take ``SLOW_SECONDS`` or more (setup, call and teardown,
in seconds, by node id). They are marked ``slow`` as those that say so themselves, so
that the fast tier (``bash scripts/test.sh "not slow"``) is the tests that are quick
to run, not a list kept by hand; ``--record-durations`` rewrites the entries of the
tests that ran."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--record-durations", action="store_true",
                     help=f"rewrite {MEASURED.name}'s entries of the tests that run")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "contradictions: the test makes a board see a proof a "
                                       "test refutes, on purpose")
    config.addinivalue_line("markers", "serial: runs alone on the machine (``SERIAL``)")
    if config.getoption("record_durations") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(Durations(), "durations-recorder")


class Durations:
    """What ``--record-durations`` measures: in the process that reports (under
    pytest-xdist the controller hears every worker's reports), and written at the end."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration

    def pytest_sessionfinish(self) -> None:
        slow: dict[str, float] = json.loads(MEASURED.read_text()) if MEASURED.exists() else {}
        for test, seconds in self.seconds.items():
            slow.pop(test, None)
            if seconds >= SLOW_SECONDS:
                slow[test] = round(seconds, 1)
        MEASURED.write_text(json.dumps(slow, indent=0, sort_keys=True) + "\n")


SERIAL = (
    # whole runs of ``cooptest generate``: budgets of a few seconds that count from the
    # process's start (imports included) and lanes on both cores
    "cli/", "report/", "soundness/test_input_sources.py::test_the_run_names_the_source",
    "soundness/test_x87.py", "frontend/test_standards.py", "frontend/test_max_align.py",
    "frontend/test_semantic_flags.py", "frontend/test_multifile.py", "core/test_contradiction.py",
    "harness/test_environment.py",
    # assertions about wall-clock time: deadlines kept, runs killed in time, rates
    "cooperation/test_portfolio.py", "soundness/test_hostile.py", "harness/test_runner.py",
    "harness/test_executor.py", "harness/test_testsuite.py", "harness/test_afl.py",
    "harness/test_coverage.py", "reachability/test_cegar_slicing.py",
    "soundness/test_dialect_proofs.py",
    # z3's time limits decide what the search finds
    "concolic/test_engine.py", "concolic/test_concolic_slicing.py::test_an_unknown_answers",
)
"""Tests ``scripts/test.sh`` runs one at a time after the others, which run two at a
time (pytest-xdist): a test bound by work gives the same result on a loaded core, these
do not."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    tests = Path(__file__).parent
    slow = json.loads(MEASURED.read_text()) if MEASURED.exists() else {}
    for item in items:
        if f"{item.path.relative_to(tests).as_posix()}::{item.name}".startswith(SERIAL):
            item.add_marker(pytest.mark.serial)
        if item.nodeid in slow:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def no_refuted_proof(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A board that sees a test refute a proof records it and goes on (``core.board``:
    a run must not die of it); in the tests it is a soundness bug all the same, so a
    test whose boards (in this process: a worker's reach it through the parent) record
    one fails, unless it is marked ``contradictions``."""
    if request.node.get_closest_marker("contradictions"):
        yield
        return
    seen: list[str] = []
    record = GoalBoard._contradicted

    def watched(board: GoalBoard, goal: str, prover: str, proof: str, test: str, first: str) -> None:
        seen.append(f"{goal}: {proof} ({prover}), reached by {test}")
        record(board, goal, prover, proof, test, first)

    monkeypatch.setattr(GoalBoard, "_contradicted", watched)
    yield
    assert not seen, f"a proof that a test refutes: {seen}"
