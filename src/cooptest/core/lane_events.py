"""What travels between the lanes of ``core.parallel`` and their parent, one type each.

A worker's board (``WorkerBoard``) sends the parent what it decided and did, as the
parent's board would record it (``Event``s, each naming the worker); the parent checks
each as its own board checks a local result and tells the other workers what it
accepted (``News``). They cross process boundaries by pickling, so they hold plain data.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from cooptest.core.analysis import Run
from cooptest.harness.executor import Execution


@dataclass(frozen=True)
class Event:
    worker: int  # the lane's index


@dataclass(frozen=True)
class TestFound(Event):
    """A native run of the worker reached a goal first (confirmed or not)."""

    __test__ = False  # not a pytest class despite its name

    inputs: list[str]
    origin: str
    execution: Execution


@dataclass(frozen=True)
class Proved(Event):
    """A proof the worker's board accepted, or one a test refuted there (the parent
    keeps the record of the contradiction)."""

    goal: str
    proof: str
    prover: str
    reads: frozenset[str] | None


@dataclass(frozen=True)
class ProvedNoOverflow(Event):
    site: str
    proof: str


@dataclass(frozen=True)
class Refused(Event):
    """A proof the program's unmodelled constructs block, and why."""

    goal: str
    why: str


@dataclass(frozen=True)
class GaveUp(Event):
    goals: list[str]
    analysis: str
    why: str
    general: bool


@dataclass(frozen=True)
class Executions(Event):
    """Native runs since the worker's last report."""

    runs: int


@dataclass(frozen=True)
class Counts(Event):
    """Counts added since the last report (``GoalBoard.count``)."""

    counts: dict[str, int]


@dataclass(frozen=True)
class Figures(Event):
    """Figures set since the last report (``GoalBoard.set_stat``)."""

    figures: dict[str, int]


@dataclass(frozen=True)
class Began(Event):
    """The lane's next analysis began."""

    analysis: str


@dataclass(frozen=True)
class Ended(Event):
    """The lane's analysis ended: its runs, as report.json lists them."""

    runs: list[Run]


@dataclass(frozen=True)
class Failed(Event):
    """The lane's analysis raised: its traceback."""

    error: str


@dataclass(frozen=True)
class Exited(Event):
    """The worker sends nothing more."""


@dataclass(frozen=True)
class News:
    """What the parent accepted from another worker: goals ``covered`` (``value``: the
    test), claims ``withdrawn`` (a test refuted them), goals proven ``infeasible``
    (``value``: the proof), or ``no_overflow`` at ``site`` (``value``: the proof)."""

    kind: Literal["covered", "withdrawn", "infeasible", "no_overflow"]
    goals: tuple[str, ...] = ()
    value: str = ""
    site: str = ""
