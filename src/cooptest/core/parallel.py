"""Analyses on several cores sharing one goal board.

The parent process owns the board (its suite writer, report and progress listeners);
every worker is a forked process (it inherits the parsed program and the native build,
so it starts at once) holding a :class:`WorkerBoard`: tests run natively in the worker
(its own copy of the executable's working directory), and whatever the worker's board
decides travels to the parent as an event, where the board's usual checks apply
and the news is broadcast to the other workers. A worker sees the others' results
whenever it asks which goals are open: an analysis never targets a goal another core
has covered, and a proof by one worker is checked against the tests of all. The parent
keeps the record of a contradiction (a proof a test refutes, ``core.board``): a worker
sends it both the tests and the proofs, also a proof its own board refuted, and forgets
a claim the parent withdrew.

Processes come from :mod:`multiprocessing` (fork context), queues carry the events;
cancelling the parent's budget terminates the workers, and a worker that dies takes
only its own analysis with it.
"""
from __future__ import annotations

import math
import multiprocessing as mp
import os
import queue
import shutil
import signal
import tempfile
import time
import traceback
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable

from cooptest.core.analysis import Analysis, Job, Outcome, Prepares, Run, Started, noted
from cooptest.core.board import GoalBoard, evidence, prover_of
from cooptest.core.board_events import BoardEvent, LaneBegan, LaneRan, Tick, WorkerError
from cooptest.core.board_view import Board
from cooptest.core.budget import Budget
from cooptest.core.lane_events import (Began, Counts, Ended, Event, Executions, Exited, Failed, Figures, GaveUp,
                                       News, Proved, ProvedNoOverflow, Refused, TestFound)
from cooptest.core.lifetime import die_with_parent, start_forked, take_own_signals, temporary_files_in
from cooptest.harness.executor import Execution

POLL = 0.05  # seconds between the parent's looks at its budget while it waits for events
REPORT_EVERY = 0.5  # seconds between a worker's reports of its native runs and counts
LAST_BATCH = 0.3  # seconds the parent waits for the workers' last reports, out of its budget
# seconds (at most a tenth of the budget) before the parent's deadline at which the
# workers' analyses end: a worker's last report (its native runs and counts since the
# one before, AFL++'s executions, which afl-fuzz writes only as it ends) then reaches
# the parent within the budget, where at the deadline the parent terminates it
WORKER_MARGIN = 0.5


def usable_cores() -> list[int]:
    """The cores this process may run on: its CPU affinity, not the machine's count, so
    that a run ``bench`` pins to the cores a task reserves takes those and no others."""
    return sorted(os.sched_getaffinity(0))
LOWEST_PRIORITY = 19  # the niceness of a ``Niced`` analysis


class WorkerBoard(GoalBoard):
    """A worker's view of the board: local native runs, results sent to the parent,
    the other workers' results received before every decision."""

    def __init__(self, parent: GoalBoard, worker: int, outbox: mp.Queue[Event], inbox: mp.Queue[News]) -> None:
        super().__init__(parent.program, parent.executor.clone())  # a context of its own
        self.covered, self.infeasible = dict(parent.covered), dict(parent.infeasible)
        self.worker, self.outbox, self.inbox = worker, outbox, inbox
        self.records = list(parent.records)  # the tests so far: concolic and random seed from them
        self._reported = 0  # native runs the parent has been told of
        self._counts: dict[str, int] = {}  # counts the parent has not been told of
        self._figures: dict[str, int] = {}  # figures set since the parent was told
        self._reported_at = time.monotonic()

    def sync(self) -> None:
        while True:
            try:
                news: News = self.inbox.get_nowait()
            except queue.Empty:
                return
            if news.kind == "no_overflow":
                super().prove_no_overflow(news.site, news.value)
            for g in news.goals:
                if news.kind == "covered":
                    self.covered.setdefault(g, news.value)
                    self.infeasible.pop(g, None)  # a claim a test refuted, if any
                elif news.kind == "withdrawn":
                    self.infeasible.pop(g, None)
                elif g not in self.covered and g not in self.unconfirmed:
                    self.infeasible.setdefault(g, news.value)  # else the parent has the contradiction

    def open(self, among: Iterable[str] | None = None) -> frozenset[str]:
        self.sync()
        return super().open(among)

    def has_open(self, among: Iterable[str] | None = None) -> bool:
        self.sync()
        return super().has_open(among)

    def submit(self, inputs: list[str], origin: str) -> Execution:
        self.sync()
        ex = super().submit(inputs, origin)
        if ex.new or ex.unconfirmed:  # the test reached a goal first
            self.outbox.put(TestFound(self.worker, list(inputs), origin, ex))
        self._report_if_due()
        return ex

    def _report_if_due(self) -> None:
        if time.monotonic() - self._reported_at > REPORT_EVERY:
            self.report()

    def report(self) -> None:
        """Native runs, counts and figures since the last report, sent in one batch: a
        message per count or per covered goal kept the parent busy on a program with 13k
        goals (a test of pals_lcr covers thousands)."""
        if self.executions > self._reported:
            self.outbox.put(Executions(self.worker, self.executions - self._reported))
        if self._counts:
            self.outbox.put(Counts(self.worker, self._counts))
        if self._figures:
            self.outbox.put(Figures(self.worker, self._figures))
        self._reported, self._counts, self._figures = self.executions, {}, {}
        self._reported_at = time.monotonic()

    def prove_infeasible(self, goal: str, proof: str, origin: str | None = None,
                         reads: frozenset[str] | None = None) -> bool:
        self.sync()
        proof = evidence(proof)
        fresh, refuted = goal not in self.infeasible, len(self.contradictions)
        accepted = super().prove_infeasible(goal, proof, origin, reads)
        if (fresh and accepted) or len(self.contradictions) > refuted:
            # a proof a test refuted here goes too: the parent's report records it
            prover = prover_of(proof, origin)
            self.outbox.put(Proved(self.worker, goal, proof, prover, reads))
        elif goal in self.refused:
            self.outbox.put(Refused(self.worker, goal, self.refused[goal]))
        return accepted

    def prove_no_overflow(self, site: str, proof: str) -> bool:
        fresh = super().prove_no_overflow(site, proof)
        if fresh:
            self.outbox.put(ProvedNoOverflow(self.worker, site, proof))
        return fresh

    def count(self, stat: str, n: int = 1) -> None:
        super().count(stat, n)
        self._counts[stat] = self._counts.get(stat, 0) + n
        self._report_if_due()

    def set_stat(self, stat: str, value: int) -> None:
        super().set_stat(stat, value)
        self._figures[stat] = value
        self._report_if_due()

    def give_up(self, goals: Iterable[str], analysis: str, why: str, general: bool = False) -> None:
        """Recorded here, and sent to the parent where the note is new (an analysis's
        every slice notes each goal it left open, mostly as before)."""
        goals = list(goals)
        before = [self.gave_up.get(g, {}).get(analysis) for g in goals]
        super().give_up(goals, analysis, why, general)
        changed = [g for g, b in zip(goals, before) if self.gave_up.get(g, {}).get(analysis) != b]
        if changed:
            self.outbox.put(GaveUp(self.worker, changed, analysis, why, general))


@dataclass
class LaneRecords:
    """What the lane of each core runs now and the runs its lanes ended, as ``run_lanes``
    tells the board's listeners (``LaneBegan`` and ``LaneRan``): report.json lists the
    runs, also of a run a signal stopped while lanes ran, and the live panel shows what
    each core runs. A listener of the board; ``run_lanes`` keeps one of its own."""

    running: dict[int, Started] = field(default_factory=dict)  # core -> what its lane runs now
    ran: dict[int, list[Run]] = field(default_factory=dict)  # core -> the runs its lane ended

    def __call__(self, board: GoalBoard, event: BoardEvent) -> None:
        if isinstance(event, LaneBegan):
            self.running[event.worker] = event.started
        elif isinstance(event, LaneRan):
            self.running.pop(event.worker, None)
            self.ran.setdefault(event.worker, []).extend(event.runs)

    def runs(self) -> list[Run]:
        """The runs the lanes ended, lane by lane."""
        return [r for k in sorted(self.ran) for r in self.ran[k]]


@dataclass
class Lane:
    """What one core runs: analyses one after the other, each until it stops (the
    last one until the budget ends); ``share`` caps an analysis's part of the budget."""

    analyses: list[tuple[Analysis, float | None]]
    name: str = ""


@dataclass
class Niced:
    """``analysis`` at the lowest CPU priority (``os.nice``): it runs mostly on the CPU
    the other lanes and the parent's board leave idle (the scheduler still gives it a
    sliver of a busy core, and the parent accepts its tests at normal priority). For the
    last analysis of a lane (``run_lanes`` runs each lane in a worker process, whose
    priority this lowers for good).

    What the analysis prepares (``Prepares``) it prepares first, at the lane's priority:
    at the lowest, beside concolic search and the live meter's build, AFL++'s builds of
    grep 2.2 (5.2 s idle) ended 9.7 s into its turn."""

    analysis: Analysis
    name: str = field(init=False)

    def __post_init__(self) -> None:
        self.name = self.analysis.name

    def run(self, board: Board, job: Job) -> Outcome:
        if isinstance(self.analysis, Prepares):
            self.analysis.prepare(board)
        os.nice(LOWEST_PRIORITY - os.nice(0))
        return self.analysis.run(board, job)


STUCK_WINDOW = 1 / 3  # of a turn: the part at its end that covered no goal first, for ``stuck``


@dataclass
class UntilStuck:
    """``analysis`` for at least ``least`` of the budget its turn starts with, then for
    as long as it still finds goals: it is *stuck* once the last ``STUCK_WINDOW`` of its
    turn covered no goal first, and then hands its core to the lane's next analysis.

    Driller runs its fuzzer until it is stuck and only then concolic execution; this is
    that hand-over, with a criterion of our own (Driller reads AFL's progress), for
    random testing's warm-up and for concolic search on a large program. A fixed share
    made the turn's length one number for every program: on grep 2.2 random testing
    still covers a goal every few seconds after a minute, while on replace it is stuck
    within 7 s; from grep's back-reference input concolic search covers nothing first
    after about 25 s of a minute, where AFL++ started from its tests still does
    (benchmarks/RESULTS.md, "auto against AFL++").

    The analysis runs in one piece, under a budget whose deadline its own finds move
    (``StuckBudget``): cut into slices, concolic search would lose the symbolic execution or
    the query each slice's end interrupts."""

    analysis: Analysis
    least: float
    name: str = field(init=False)

    def __post_init__(self) -> None:
        self.name = self.analysis.name

    def run(self, board: Board, job: Job) -> Outcome:
        stuck = StuckBudget(job.budget, board, self.least * job.budget.remaining())
        outcome = self.analysis.run(board, replace(job, budget=stuck))
        if outcome.stopped == "budget" and not job.budget.expired():
            return noted(board, job, Outcome(outcome.state, "stuck"))
        return outcome  # done, exhausted, cancelled, or the lane's own time is up


class StuckBudget(Budget):
    """The budget of an ``UntilStuck`` turn: its deadline is ``least`` seconds after
    the turn began, or later while the turn still finds goals, so that it passes once
    the last ``STUCK_WINDOW`` of the turn covered no goal first. A goal found is read
    off the board's tests (those that covered one first) whenever the deadline is."""

    def __init__(self, parent: Budget, board: Board, least: float) -> None:
        super().__init__(math.inf, parent)
        self.board, self.least = board, least
        self.began, self.seen, self.found_at = time.monotonic(), len(board.records), 0.0

    def own_deadline(self) -> float:
        records = self.board.records
        if len(records) > self.seen:
            if any(r.first for r in records[self.seen:]):
                self.found_at = time.monotonic() - self.began
            self.seen = len(records)
        return self.began + max(self.least, self.found_at / (1 - STUCK_WINDOW))


def _work(lane: Lane, board: WorkerBoard, goals: frozenset[str], deadline: float, parent: int,
          scratch: str) -> None:
    die_with_parent(signal.SIGKILL, parent)  # a killed cooptest leaves no worker behind
    take_own_signals()
    temporary_files_in(scratch)
    budget = Budget(deadline)
    try:
        for analysis, share in lane.analyses:
            if budget.expired() or not board.has_open(goals):
                break
            board.outbox.put(Began(board.worker, analysis.name))
            child = budget.child(share * budget.remaining() if share is not None else None)
            started = time.monotonic()
            outcome = analysis.run(board, Job(board.open(goals), child))
            runs = outcome.state.reported_runs(outcome.stopped, time.monotonic() - started)
            board.outbox.put(Ended(board.worker, [replace(r, lane=r.lane or lane.name) for r in runs]))
    except Exception:  # noqa: BLE001 - reported by the parent, which goes on without us
        board.outbox.put(Failed(board.worker, traceback.format_exc(limit=8)))
    finally:
        board.report()
        board.outbox.put(Exited(board.worker))
        board.executor.close()


def run_lanes(on: Board, lanes: list[Lane], goals: frozenset[str], budget: Budget,
              on_event: Callable[[Event], None] | None = None) -> list[Run]:
    """Run every lane on its own core until all end, the budget ends or every goal of
    ``goals`` is decided; returns the runs of the lanes' analyses, lane by lane (one
    still running when the lanes were stopped stopped for the budget; one whose worker
    failed, ``failed``, with the error's last line).

    Lanes fork from the board of the process, which holds the suite and the report: a
    lane's own lanes would send their results to a worker that forwards none of them,
    so a cooperation of lanes runs only at the top (``auto``, ``--parallel``)."""
    if not isinstance(on, GoalBoard) or isinstance(on, WorkerBoard):
        raise TypeError(f"lanes run on the board of the process, not on a {type(on).__name__}")
    board = on
    ctx = mp.get_context("fork")
    outbox = ctx.Queue()
    inboxes = [ctx.Queue() for _ in lanes]
    # The workers' temporary files (their tests' working folders) go here, removed once
    # they have ended: a worker terminated at the deadline cleans up nothing itself.
    scratch = tempfile.mkdtemp(prefix="cooptest-lanes-")
    workers = []
    deadline = budget.deadline - min(WORKER_MARGIN, budget.remaining() / 10)
    for k, lane in enumerate(lanes):
        wb = WorkerBoard(board, k, outbox, inboxes[k])
        p = ctx.Process(target=_work, args=(lane, wb, goals, deadline, os.getpid(), scratch),
                        daemon=True)
        start_forked(p)
        workers.append(p)
    alive = set(range(len(lanes)))

    lanes_now = LaneRecords()  # told what the board's listeners are told

    def tell(event: LaneBegan | LaneRan) -> None:
        lanes_now(board, event)
        board.notify(event)

    def record(k: int, runs: list[Run]) -> None:
        tell(LaneRan(k, runs))

    def end(k: int, stopped: str, why: str | None = None) -> None:
        if k in lanes_now.running:
            record(k, [lanes_now.running[k].ended(stopped, why)])

    def receive(event: Event) -> bool:
        """Handle one event; True if it decided a goal."""
        decided, k = False, event.worker
        match event:
            case TestFound(inputs=inputs, origin=origin, execution=ex):
                claimed = ex.covered & board.infeasible.keys()  # claims the test refutes
                new = board.accept(inputs, origin, ex)
                if new:
                    _broadcast(inboxes, k, alive, News("covered", tuple(new), board.covered[next(iter(new))]))
                if claimed - new:  # reached, not confirmed: open again
                    _broadcast(inboxes, k, alive, News("withdrawn", tuple(claimed - new)))
                decided = bool(new)
            case Proved(goal=goal, proof=proof, prover=prover, reads=reads):
                decided = board.prove_infeasible(goal, proof, prover, reads)
                if decided:
                    _broadcast(inboxes, k, alive, News("infeasible", (goal,), proof))
            case ProvedNoOverflow(site=site, proof=proof):
                if board.prove_no_overflow(site, proof):
                    _broadcast(inboxes, k, alive, News("no_overflow", value=proof, site=site))
            case Refused(goal=goal, why=why):
                board.refused.setdefault(goal, why)
            case GaveUp(goals=gave_up, analysis=analysis, why=why, general=general):
                board.give_up(gave_up, analysis, why, general)
            case Counts(counts=counts):
                for stat, n in counts.items():
                    board.count(stat, n)
            case Figures(figures=figures):
                for stat, n in figures.items():
                    board.set_stat(stat, n)
            case Executions(runs=runs):
                board.executions += runs
                board.notify(Tick())
            case Began(analysis=analysis):
                tell(LaneBegan(k, Started(analysis, lanes[k].name, time.monotonic())))
            case Ended(runs=ran):
                record(k, ran)
            case Exited():
                alive.discard(k)
            case Failed(error=error):
                board.notify(WorkerError(k, error))
                board.count("worker_errors")
                last = error.strip().splitlines()[-1]
                if k in lanes_now.running:
                    board.give_up(board.open(goals), lanes_now.running[k].analysis, f"it failed: {last}",
                                  general=True)
                end(k, "failed", last)
        if on_event is not None:
            on_event(event)
        return decided

    undecided = board.has_open(goals)
    try:
        while alive and not budget.expired() and undecided:
            try:
                if receive(outbox.get(timeout=POLL)):
                    undecided = board.has_open(goals)
            except queue.Empty:
                alive -= {k for k in alive if not workers[k].is_alive() and outbox.empty()}
                board.notify(Tick())
        # Every goal decided with time to spare: the workers, told so, end their analyses
        # and send their last batch of runs and counts; wait for it, briefly.
        last_batch = budget.child(LAST_BATCH)
        while alive and not last_batch.expired():
            try:
                receive(outbox.get(timeout=last_batch.remaining()))
            except queue.Empty:
                break
    finally:
        for inbox in inboxes:  # what no worker will read must not hold up this process's exit
            inbox.cancel_join_thread()
        for p in workers:
            if p.is_alive():
                p.terminate()
        for p in workers:
            p.join(timeout=2)
            if p.is_alive():
                assert p.pid is not None  # started
                os.kill(p.pid, signal.SIGKILL)
                p.join()
        shutil.rmtree(scratch, ignore_errors=True)
    for k in list(lanes_now.running):  # stopped at the deadline, before their analyses' finish
        if not _cooperation(lanes[k], lanes_now.running[k].analysis):
            board.give_up(board.open(goals), lanes_now.running[k].analysis, "its time ran out", general=True)
        end(k, "budget")
    return lanes_now.runs()


def _cooperation(lane: Lane, name: str) -> bool:
    """Whether the lane's analysis ``name`` is a cooperation (whose own analyses note
    the goals they leave open, ``core.analysis.composes``)."""
    return any(type(getattr(a, "analysis", a)).__module__.startswith("cooptest.cooperation.")
               for a, _ in lane.analyses if a.name == name)


def _broadcast(inboxes: list[Any], sender: int, alive: set[int], message: News) -> None:
    """To every lane still running but the sender: what is put into the inbox of a lane
    that ended stays in the pipe, and once the pipe is full the queue's feeder thread
    blocks, and with it this process's exit (pals_lcr at 60 s, where the proving lane
    ends in a second)."""
    for j, inbox in enumerate(inboxes):
        if j != sender and j in alive:
            inbox.put(message)
