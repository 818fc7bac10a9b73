"""What an analysis sees of the goal board (``Board``), and a view of it that names
the results of one turn (``Labelled``).

Analyses are typed against the protocol, so that mypy checks none of them reaches
into the board's bookkeeping (its suite, its listeners, how a lane's board talks to
its parent); ``core.board.GoalBoard`` and ``core.parallel.WorkerBoard`` implement it.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Iterable, Protocol

from cooptest.cfa.ir import Goal, Program
from cooptest.core.board import TestRecord, prover_of
from cooptest.core.board_events import BoardEvent
from cooptest.harness.executor import Execution, Executor
from cooptest.harness.testsuite import TestCase


class Board(Protocol):
    """What an analysis sees of the goal board: the goals and their status, the two ways
    to decide one (``submit``/``keep`` a test, ``prove_infeasible``), what it can say of
    a goal it leaves open (``give_up``), its counts, and the executor its tests run on.
    ``core.board.GoalBoard`` is the board of one process, ``core.parallel.WorkerBoard`` a
    lane's, which sends what it decides to the parent's; :class:`Labelled` names the
    results of an analysis's turn (a cooperation's round) on either."""

    @property
    def program(self) -> Program: ...
    @property
    def executor(self) -> Executor: ...
    @property
    def goals(self) -> Mapping[str, Goal]: ...
    @property
    def covered(self) -> Mapping[str, str]: ...
    @property
    def infeasible(self) -> Mapping[str, str]: ...
    @property
    def no_overflow(self) -> Mapping[str, str]: ...
    @property
    def stats(self) -> Mapping[str, int]: ...
    @property
    def records(self) -> list[TestRecord]: ...
    @property
    def tests(self) -> list[TestCase]: ...

    def open(self, among: Iterable[str] | None = None) -> frozenset[str]: ...
    def is_open(self, goal: str) -> bool: ...
    def has_open(self, among: Iterable[str] | None = None) -> bool: ...
    def submit(self, inputs: list[str], origin: str) -> Execution: ...
    def keep(self, inputs: list[str], origin: str) -> Execution: ...
    def prove_infeasible(self, goal: str, proof: str, origin: str | None = None,
                         reads: frozenset[str] | None = None) -> bool: ...
    def prove_no_overflow(self, site: str, proof: str) -> bool: ...
    def give_up(self, goals: Iterable[str], analysis: str, why: str, general: bool = False) -> None: ...
    def count(self, stat: str, n: int = 1) -> None: ...
    def set_stat(self, stat: str, value: int) -> None: ...
    def notify(self, event: BoardEvent) -> None: ...


class Labelled:
    """``board`` with ``label`` in the origin of every test and proof that comes through
    it (``predicate (round 3)``): a cooperation hands it to the analysis of one round,
    so that no state on the board says which round is running. A label of a labelled
    board replaces the outer one: an origin names the innermost round."""

    def __init__(self, board: Board, label: str) -> None:
        self.base: Board = board.base if isinstance(board, Labelled) else board
        self.label = label

    def _named(self, origin: str) -> str:
        return f"{origin} ({self.label})"

    @property
    def program(self) -> Program:
        return self.base.program

    @property
    def executor(self) -> Executor:
        return self.base.executor

    @property
    def goals(self) -> Mapping[str, Goal]:
        return self.base.goals

    @property
    def covered(self) -> Mapping[str, str]:
        return self.base.covered

    @property
    def infeasible(self) -> Mapping[str, str]:
        return self.base.infeasible

    @property
    def no_overflow(self) -> Mapping[str, str]:
        return self.base.no_overflow

    @property
    def stats(self) -> Mapping[str, int]:
        return self.base.stats

    @property
    def records(self) -> list[TestRecord]:
        return self.base.records

    @property
    def tests(self) -> list[TestCase]:
        return self.base.tests

    def open(self, among: Iterable[str] | None = None) -> frozenset[str]:
        return self.base.open(among)

    def is_open(self, goal: str) -> bool:
        return self.base.is_open(goal)

    def has_open(self, among: Iterable[str] | None = None) -> bool:
        return self.base.has_open(among)

    def submit(self, inputs: list[str], origin: str) -> Execution:
        return self.base.submit(inputs, self._named(origin))

    def keep(self, inputs: list[str], origin: str) -> Execution:
        return self.base.keep(inputs, self._named(origin))

    def prove_infeasible(self, goal: str, proof: str, origin: str | None = None,
                         reads: frozenset[str] | None = None) -> bool:
        return self.base.prove_infeasible(goal, proof, self._named(prover_of(proof, origin)), reads)

    def prove_no_overflow(self, site: str, proof: str) -> bool:
        return self.base.prove_no_overflow(site, proof)

    def give_up(self, goals: Iterable[str], analysis: str, why: str, general: bool = False) -> None:
        self.base.give_up(goals, analysis, why, general)

    def count(self, stat: str, n: int = 1) -> None:
        self.base.count(stat, n)

    def set_stat(self, stat: str, value: int) -> None:
        self.base.set_stat(stat, value)

    def notify(self, event: BoardEvent) -> None:
        self.base.notify(event)
