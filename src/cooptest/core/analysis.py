"""What every analysis shares and every cooperation composes.

    analysis.run(board, Job(goals, budget, state=..., precision=..., condition=..., monitor=...))
        -> Outcome(state, stopped)

An analysis reports its results only through the :class:`~cooptest.core.board.GoalBoard`
(tests through native replay, proofs through ``prove_infeasible``) and returns nothing
but its state and why it stopped. Everything it knows lives in that state (the ARG, the
concolic execution tree, the random-testing corpus and its RNG), never on the analysis
object: passing the state back in the next job continues the work exactly where it
stopped, so that N slices of an analysis reach the verdicts of one run of their summed
time. Hence the rule every analysis keeps: *a verdict caused by a deadline is never
final*; a check the clock interrupts is redone by the next slice, never recorded as
"unknown" in the state.

A ``precision`` restarts the analysis with it (CoVeriTest's reuse-prec); a
``condition`` describes state space some analysis has explored completely, which this
one may skip (conditional model checking); a ``monitor`` is an automaton over CFA edges
that guides exploration (Crabs). Analyses that cannot use a condition or monitor ignore
it, which is sound: both only ever allow doing less.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from cooptest.core.automaton import EdgeAutomaton
from cooptest.core.board_view import Board
from cooptest.core.budget import Budget

Stopped = Literal["budget", "done", "exhausted", "cancelled", "iterations", "stuck"]
"""Why an analysis returned: ``budget``: its time ran out (nothing given up; run the
state again to go on); ``done``: every goal of the job is decided; ``exhausted``: the
analysis explored everything it can (its proofs are on the board; running it again
changes nothing); ``cancelled``: its budget was cancelled; ``iterations``: concolic
search made the native runs the user allowed (``generate --max-iterations``); ``stuck``:
an analysis run until stuck (a warm-up, concolic search on a large program) stopped
finding goals and handed its core on (``core.parallel.UntilStuck``; its state may find
more)."""


@dataclass(frozen=True)
class Run:
    """One analysis's part in a run of cooptest, as report.json lists it ("analyses"):
    how it stopped (``Stopped``, or ``failed``: its worker died of an error, which
    ``why_not`` then names), after how many seconds, why it could do nothing if it could
    not, and on which lane of the portfolio it ran."""

    analysis: str
    stopped: str
    seconds: float
    why_not: str | None = None
    lane: str | None = None


@dataclass(frozen=True)
class Started:
    """An analysis a lane (``core.parallel``) runs now: which, on which lane, since
    when (``time.monotonic()``). ``core.parallel.LaneRecords`` holds one per busy core."""

    analysis: str
    lane: str
    since: float

    def ended(self, stopped: str, why_not: str | None = None) -> Run:
        return Run(self.analysis, stopped, round(time.monotonic() - self.since, 2), why_not, self.lane)


@dataclass
class AnalysisState:
    """The resumable state of one analysis; subclasses hold what it explored.

    ``complete``: the exploration covers every behaviour of the program (no frontier
    left and nothing skipped), so every goal it did not reach is infeasible.
    ``why_not``: the analysis can do nothing for this program, and why (the construct
    it does not model, with its line): set once, never for a deadline, and shown in the
    report next to the goals left open.
    ``runs``: the runs of the analyses this one ran on other cores (its lanes,
    ``core.parallel``), which stand for it in the report."""

    analysis: str
    complete: bool = False
    why_not: str | None = None
    runs: list[Run] = field(default_factory=list)

    def reusable_precision(self) -> object:
        """The precision the state was built with, for a restart (CoVeriTest's
        reuse-prec); None for analyses without one. Opaque to the core: only an
        analysis of the same kind reads it."""
        return None

    def frontier_size(self) -> int:
        """How much is left to explore (0 for analyses without a frontier)."""
        return 0

    def reported_runs(self, stopped: Stopped, seconds: float) -> list[Run]:
        """What report.json lists of the analyses behind this state: its own run, or
        those of its lanes."""
        return self.runs or [Run(self.analysis, stopped, round(seconds, 2), self.why_not)]

    def condition(self, board: Board | None = None) -> EdgeAutomaton | None:
        """The state space this state explored completely, with every goal in it decided
        on ``board``, for another analysis to skip (None: nothing to export)."""
        return None


@dataclass(frozen=True)
class Job:
    """One run of an analysis: the goals it works for and its budget, and optionally
    the state to continue, a precision to restart with, a condition to skip, a monitor
    to follow."""

    goals: frozenset[str]
    budget: Budget
    state: AnalysisState | None = None
    precision: object = None
    condition: EdgeAutomaton | None = None
    monitor: EdgeAutomaton | None = None


@dataclass
class Outcome:
    state: AnalysisState
    stopped: Stopped

    @property
    def unfinished(self) -> bool:
        """A budget stopped the run: its state has more to do."""
        return self.stopped in ("budget", "cancelled")


class Analysis(Protocol):
    name: str

    def run(self, board: Board, job: Job) -> Outcome: ...


@runtime_checkable
class Prepares(Protocol):
    """An analysis with work to do before its run that does not depend on the goals,
    such as AFL++'s instrumented builds: ``run`` does it too where it was not done, so
    ``prepare`` changes when it happens, never what the run does (``core.parallel``'s
    ``Niced`` prepares at the lane's priority before lowering it)."""

    def prepare(self, board: Board) -> None: ...


def finish(board: Board, job: Job, state: AnalysisState, interrupted: bool = False) -> Outcome:
    """The outcome of a run that left its loop: ``done`` if the job's goals are
    decided, ``budget``/``cancelled`` if its budget stopped it, else the analysis stopped
    by itself: ``exhausted``. ``interrupted``: a deadline interrupted some of the work, which
    the clock may not show (z3's timer fires up to a millisecond before the deadline it
    was given; a sub-budget ran out before its parent's); such a run stopped for its
    budget, never by itself. The job's goals left open are noted on the board with why
    (``give_up``, see ``stopped_because``)."""
    if not board.has_open(job.goals):
        return Outcome(state, "done")
    if interrupted or job.budget.expired():
        return noted(board, job, Outcome(state, job.budget.stop_reason()))
    return noted(board, job, Outcome(state, "exhausted"))


def noted(board: Board, job: Job, outcome: Outcome) -> Outcome:
    """``outcome``, with the job's goals it left open noted on the board with why
    (``give_up``, see ``stopped_because``), unless its state is a cooperation's, whose
    own analyses note them."""
    if not composes(outcome.state):
        why, general = stopped_because(outcome)
        board.give_up(board.open(job.goals), outcome.state.analysis, why, general)
    return outcome


def stopped_because(outcome: Outcome) -> tuple[str, bool]:
    """Why an analysis that stopped so left the goals of its job open, in words, and
    whether a later run may say otherwise (``GoalBoard.give_up``'s ``general``): the
    program outside its fragment is final; its time running out never is."""
    state = outcome.state
    if state.why_not is not None:
        return f"outside its fragment: {state.why_not}", False
    if outcome.stopped == "budget":
        return "its time ran out", True
    if outcome.stopped == "cancelled":
        return "it was stopped (its budget was cancelled)", True
    if outcome.stopped == "iterations":
        return "it made the native runs --max-iterations allows", True
    if outcome.stopped == "stuck":
        return "it stopped finding goals and handed its core on", True
    incomplete = sorted(getattr(state, "incomplete", None) or ())
    if incomplete:  # an ARG explored to its end, but not a proof
        return f"it explored all it can, but not every path: bounded by {', '.join(incomplete)}", True
    return "it explored all it can without reaching it or proving it infeasible", True


def composes(state: AnalysisState) -> bool:
    """A cooperation's state (its own analyses note the goals they leave open): one
    that ran lanes, or of a cooperation's module."""
    return bool(state.runs) or type(state).__module__.startswith("cooptest.cooperation.")
