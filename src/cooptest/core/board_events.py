"""What the board tells its listeners (``core.run_context``: the report, the live meter,
the progress display, the lane records, the property goal of the run): one typed event
per kind of change, where a listener used to read a string and a dict of anything.

The board's own changes are ``Covered``, ``Kept``, ``Infeasible`` and ``Refuted`` (a
test reached a goal a prover claimed infeasible); ``Reduced`` is the suite's reduction
at the end, ``Iteration`` a concolic iteration, ``Tick`` time passing with nothing
decided (what a listener put off, such as writing the report with the suite, it may do
now). The parent of the lanes (``core.parallel.run_lanes``) adds ``LaneBegan``,
``LaneRan`` and ``WorkerError``. The lanes' own messages to the parent are
``core.lane_events``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Union

if TYPE_CHECKING:
    from cooptest.core.analysis import Run, Started
    from cooptest.core.board import Contradiction, GoalBoard


@dataclass(frozen=True)
class Tick:
    """Time passed (after a native run, while the parent waits for its lanes)."""


@dataclass(frozen=True)
class Covered:
    """``test`` (by ``origin``) covered ``goals`` first."""

    goals: frozenset[str]
    origin: str
    test: str


@dataclass(frozen=True)
class Kept:
    """``test`` joined the suite though it covered no goal first (the live meter's)."""

    origin: str
    test: str


@dataclass(frozen=True)
class Infeasible:
    """``origin`` proved ``goals`` infeasible."""

    goals: frozenset[str]
    origin: str


@dataclass(frozen=True)
class Refuted:
    """A test reached a goal a prover had claimed infeasible: cooptest's defect."""

    contradiction: Contradiction


@dataclass(frozen=True)
class Reduced:
    """The suite was reduced to ``tests`` tests."""

    tests: int


@dataclass(frozen=True)
class Iteration:
    """A concolic iteration ended: the run's iterations, goals covered and divergences."""

    iterations: int
    covered: int
    divergences: int


@dataclass(frozen=True)
class LaneBegan:
    """The lane of core ``worker`` began ``started``."""

    worker: int
    started: Started


@dataclass(frozen=True)
class LaneRan:
    """The lane of core ``worker`` ended ``runs``."""

    worker: int
    runs: list[Run]


@dataclass(frozen=True)
class WorkerError:
    """The lane of core ``worker`` failed with ``error``."""

    worker: int
    error: str


BoardEvent = Union[Tick, Covered, Kept, Infeasible, Refuted, Reduced, Iteration, LaneBegan, LaneRan,
                   WorkerError]
Listener = Callable[["GoalBoard", BoardEvent], None]
