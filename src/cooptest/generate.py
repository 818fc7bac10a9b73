"""The ``generate`` driver: task → CFA → native build → one analysis under a budget →
``DIR/test-suite.zip`` and ``DIR/report.json``.

Both outputs are valid on disk at every moment, and agree: the suite is published
with the report that lists its tests, as one (``report.publication``), after each new
test where that is cheap. The run's temporary files go to a folder in DIR (``core.lifetime``),
which the next run removes if a SIGKILL left it. SIGTERM and SIGINT
stop the analysis at the next safe point (never in the middle of a native run, whose
child would otherwise be left waiting on its stdin), then the final report is written
and the process exits with 143 or 130, as a shell expects of a signalled process.
"""
from __future__ import annotations

import logging  # before SafePoints' fork hooks: they must run around logging's (see there)
import contextlib
import os
import signal
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, Callable, Iterator

from cooptest.cfa.concrete_inputs import left_concrete
from cooptest.cfa.ctype import DataModel
from cooptest.core.analysis import Job
from cooptest.core.board import GoalBoard
from cooptest.core.board_events import BoardEvent, Covered
from cooptest.core.reduction import reduce_suite
from cooptest.core.run_context import RunContext
from cooptest.core.budget import Budget
from cooptest.core.heap import FrozenHeap
from cooptest.core.lifetime import leave, temporary_files_in, work_folder
from cooptest.core.live_coverage import LiveMeter
from cooptest.core.memory import DEFAULT_LIMIT_MB, MemoryWatch
from cooptest.core.registry import DEFAULT_STRATEGY, STRATEGIES, Settings, make_analysis
from cooptest.errors import UserError
from cooptest.frontend import load_program
from cooptest.harness.executor import Executor, LearntLimit
from cooptest.harness.cgroups import remove_orphans
from cooptest.harness.runner import kill_strays, sandbox
from cooptest.harness.testsuite import SuiteWriter, TestCase, read_seeds
from cooptest.report.html import page_seconds, write_html_report
from cooptest.report.progress import Progress, error_found, summary_line
from cooptest.report.publication import REPORT, SUITE, Publication
from cooptest.report.report import Report
from cooptest.task import ERROR_CALL, Task

END_TIME = 0.5  # seconds for the final count's answer and report.json (report.html's on top)
MUTANTS_AT_THE_END = 3.0  # seconds, at most, for the meter's mutants when every goal is decided
RESERVE_SHARE_MAX = 0.25  # of the budget: what the end of a run may take at most
OVERTIME = 0.1  # seconds past the budget when the run is stopped wherever it is
HARNESS = "harness.c"


@dataclass
class Options:
    target: str
    budget: float
    out: str
    strategy: str = DEFAULT_STRATEGY
    settings: Settings = field(default_factory=Settings)
    seed_suite: str | None = None
    data_model: DataModel | None = None
    quiet: bool = False
    memory_mb: int = DEFAULT_LIMIT_MB  # cooptest's own processes together (core.memory)
    reduce: bool = True  # the suite reduced to a minimal cover of the covered goals
    started: float = field(default_factory=time.monotonic)  # when the budget began
    applied: dict[str, Any] = field(default_factory=dict)  # the strategy's options the user gave


STOPPING = (signal.SIGTERM, signal.SIGINT, signal.SIGALRM)  # the signals that end a run


class Signalled(BaseException):
    """A stopping signal arrived (SIGTERM, SIGINT, or the alarm past the hard deadline):
    unwind the analysis (not an ``Exception``, so that no analysis's error handling
    swallows it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.exit_code = 0 if signum == signal.SIGALRM else 128 + signum


def _in_z3(frame: FrameType | None) -> bool:
    """Whether the signal came while z3's Python layer ran: raised there, it leaves a
    half-built ``Context`` (or solver, or term) whose ``__del__`` then fails on the
    attribute never set, and Python prints that as an ignored exception with its
    traceback (a 1-s run, 7 times in 80 with both cores busy). Deferred, the signal is
    raised at the next safe point; the budget it cancelled stops the analysis first.
    z3 is not imported for this (a run of random testing never loads it)."""
    z3 = sys.modules.get("z3")
    return frame is not None and z3 is not None and z3.__file__ is not None and \
        frame.f_code.co_filename.startswith(os.path.dirname(z3.__file__) + os.sep)


class SafePoints:
    """Where a signal may unwind the analysis: anywhere but inside a native run.

    The handler raises :class:`Signalled` at once, unless a native run is in progress
    or z3's Python layer runs (``_in_z3``); then it only records the signal, and the
    executor it is the policy of raises once the run is over (a run lasts at most the
    executor's timeout, itself capped at the hard deadline), or ``raise_pending`` once
    the analysis returns.
    A second signal is not deferred. An alarm just past the hard deadline stops a run
    wherever it is (parsing included), so that the budget is a promise."""

    def __init__(self, budget: Budget, hard: Budget) -> None:
        self.budget = budget
        self.hard = hard  # the whole run's deadline: parsing, building, measuring included
        self.pending: int | None = None
        self.in_run = False
        self.in_fork = False  # Python's fork hooks are running (see ``installed``)
        self.stopped: str | None = None  # what stopped the run, if anything did

    def limit(self, seconds: float) -> float:
        """A run ends by the hard deadline (``RunPolicy``)."""
        return min(seconds, max(0.05, self.hard.remaining()))

    @contextmanager
    def native_run(self) -> Iterator[None]:
        """Signals wait for the run (``RunPolicy``), then the first of them is raised."""
        self.in_run = True
        try:
            yield
        finally:
            self.in_run = False
            if self.pending is not None:
                raise Signalled(self.pending)

    def handle(self, signum: int, frame: FrameType | None) -> None:
        self.budget.cancel()  # analyses polling any budget below it stop too
        self.stopped = "the end of the budget" if signum == signal.SIGALRM \
            else signal.Signals(signum).name
        if (self.in_run or self.in_fork or _in_z3(frame)) and self.pending is None:
            self.pending = signum
            return
        raise Signalled(signum)

    def raise_pending(self) -> None:
        """A signal deferred and not raised since (by no native run after it)."""
        if self.pending is not None:
            raise Signalled(self.pending)

    @contextmanager
    def installed(self) -> Iterator[None]:
        """The handlers, and an alarm just past the hard deadline."""
        old = {s: signal.signal(s, self.handle) for s in STOPPING}
        signal.setitimer(signal.ITIMER_REAL, max(0.001, self.hard.remaining() + OVERTIME))
        global _installed
        _installed = self
        try:
            yield
        finally:
            _installed = None
            signal.setitimer(signal.ITIMER_REAL, 0)
            for s, h in old.items():
                signal.signal(s, h)


# A fork (the lanes, the coverage meter) runs Python hooks, logging's among them; a
# signal handled inside one would raise there, and Python prints the exception it
# ignores with its traceback ("Exception ignored in: _releaseLock": the alarm of a 1-s
# run did). While they run, the installed SafePoints defer signals as during a native
# run: the first hook before a fork and the last after it are these (hooks before a fork
# run in the reverse order of registration, those after it in that order).
_installed: SafePoints | None = None


def _forking(on: bool) -> None:
    if _installed is not None:
        _installed.in_fork = on


os.register_at_fork(before=lambda: _forking(True), after_in_parent=lambda: _forking(False),
                    after_in_child=lambda: _forking(False))


def generate(task: Task, opts: Options) -> tuple[dict[str, Any] | None, int]:
    """Run test generation; returns the final report document (None if a signal came
    before the program was even parsed) and the exit code."""
    seed_tests = read_seeds(opts.seed_suite) if opts.seed_suite else []
    analysis = make_analysis(opts.strategy, opts.settings)
    output_folder(opts.out)
    deadline = Budget(opts.started + opts.budget)
    safe = SafePoints(deadline, deadline)
    work = work_folder(opts.out)  # not in the temporary folder: see ``core.lifetime``
    board: GoalBoard | None = None
    meter: LiveMeter | None = None
    memory: MemoryWatch | None = None
    progress: Progress | None = None
    report = Report(os.path.join(opts.out, REPORT), task.program, task.data_model.value,
                    opts.strategy,
                    opts.settings.search if STRATEGIES[opts.strategy].uses_search else None,
                    configuration=getattr(analysis, "configuration", None),
                    inputs=task.environment.describe() if task.environment else None,
                    harness=task.harness.describe() if task.harness else None)
    report.extra["sandbox"] = sandbox()
    described = report.configuration.describe() if report.configuration is not None else {}
    report.options.update({k: v for k, v in opts.applied.items() if k not in described})
    if task.harness is not None:  # the harness the suite's tests are inputs of, to keep
        report.options["function"] = list(task.harness.functions)
        with open(os.path.join(opts.out, HARNESS), "w") as f:
            f.write(task.harness.text)
    exit_code, doc, tests = 0, None, None
    measured: float | None = None  # the TestCov-style count of the suite
    ending = threading.Lock()  # the end of the run is written once, by one thread

    def conclude() -> None:
        """Stop the meter and write the final report (after an internal error too: the
        suite so far is worth its report)."""
        nonlocal doc, tests
        if meter is not None:
            if measured is None and board is not None:
                report.extra["coverage_testcov_style_missing"] = meter.why_not_counted()
            meter.close()
        if memory is not None:
            report.extra["memory_peak_mb"] = memory.peak_mb
        if measured is not None:
            report.extra["coverage_testcov_style"] = measured
        if board is not None:
            doc, tests = report.write(board), board.tests
            if report.publication is not None:
                report.publication.finalize()
        elif safe.stopped is not None:
            doc = report.write_unparsed(f"stopped by {safe.stopped} before the "
                                        "program was analysed")

    def held() -> None:
        """The watchdog's end of a run whose main thread native code holds past the
        alarm (see ``Watchdog``): the suite as it is, the report, and exit."""
        nonlocal measured
        if progress is not None:
            progress.stop()
        report.extra.setdefault("stopped", "budget")
        report.extra["held_past_deadline"] = True
        report.stopped_by("budget")
        if board is not None and meter is not None:
            measured = meter.count_so_far(board.tests)
        conclude()
        if board is not None:
            board.executor.close()  # its cgroups: os._exit runs no finalizer
        _leave_nothing(work)
        finish(task, opts, deadline, doc, tests)
        sys.stderr.flush()
        os._exit(0)

    try:
        with _tmpdir(work), safe.installed(), Watchdog(deadline, ending, held), FrozenHeap() as heap:
            try:
                # valid from the start; published with the report, which lists its tests
                report.publication = Publication(opts.out)
                report.publication.clear()  # a previous run's report would not match the suite
                suite = SuiteWriter(os.path.join(opts.out, SUITE), task, eager=False)
                frontend = load_program(task, work)
                heap.freeze()  # the ASTs and the CFA: alive to the end of the run
                # The whole run stays within the budget: the TestCov-style coverage count
                # is kept up to date beside the analysis (``LiveMeter``), which leaves at
                # the end only the time to write the reports; report.html's grows with the
                # program and its goals (past what is left, the page is written
                # unhighlighted).
                page = page_seconds(sum(map(os.path.getsize, task.files)), len(frontend.program.goals()))
                reserve = min(END_TIME + page, RESERVE_SHARE_MAX * opts.budget)
                budget = deadline.child(opts.budget - reserve - (time.monotonic() - opts.started))
                concrete = left_concrete(frontend.program, task.environment)
                report.left_concrete = [c.describe() for c in concrete]
                if not opts.quiet:
                    for c in concrete:
                        print(f"cooptest: note: {c.sentence()}", file=sys.stderr)
                executor = Executor(frontend, os.path.join(work, "build"), policy=safe)
                executor.budget = budget
                executor.learnt = LearntLimit()
                meter = LiveMeter(task, frontend.preprocessed, os.path.join(work, "coverage"))
                board = GoalBoard(frontend.program, executor, RunContext(suite))
                goal = PropertyGoal(task, board, budget)
                board.run.listeners += [report, meter.listen, goal]
                report.write(board)
                memory = MemoryWatch(opts.memory_mb, budget,
                                     lambda pid: board.count("workers_killed_for_memory"))
                progress = Progress(board, task.name, report.strategy, opts.budget, opts.quiet, report.lanes)
                with progress, memory:
                    for inputs in seed_tests:
                        board.submit(inputs, "seed-suite")
                    started = time.monotonic()
                    outcome = analysis.run(board, Job(board.open(goal.goals), budget))
                safe.raise_pending()
                report.extra["stopped"] = "memory" if memory.exceeded else \
                    "done" if goal.reached else outcome.stopped
                report.analyses = outcome.state.reported_runs(outcome.stopped, time.monotonic() - started)
                answer_by = deadline.child(deadline.remaining() - page)
                executor.budget = answer_by
                mutants_left = min(MUTANTS_AT_THE_END, answer_by.remaining() - END_TIME) \
                    if board.decided() else 0.0
                mutants, report.extra["meter_mutants"] = meter.found(answer_by, mutants_left)
                for inputs in mutants:
                    board.keep(inputs, "label-fuzz")
                if opts.reduce:
                    reduce_suite(board, lambda kept, dropped: meter.rescue(kept, dropped, answer_by))
                # a count some tests behind (on grep one run in eight: the last tests come
                # with the lanes' last reports) may take half the page's reserve, the page
                # then written unhighlighted (``cooptest report OUT`` highlights it later)
                measured = meter.count(board.tests, deadline.child(deadline.remaining() - page / 2))
            except UserError:
                if board is None:  # bad input: nothing half-written in OUT
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(os.path.join(opts.out, SUITE))
                raise
            except Signalled as e:
                exit_code = e.exit_code
                report.extra.setdefault("stopped", "budget" if exit_code == 0 else str(e))
                report.stopped_by(report.extra["stopped"])
                if measured is None and meter is not None and board is not None:
                    measured = meter.count_so_far(board.tests)  # every test kept: no time to ask
            finally:
                ending.acquire()  # after the watchdog's, if it began: it exits the process
                signal.setitimer(signal.ITIMER_REAL, 0)
                for s in STOPPING:
                    signal.signal(s, signal.SIG_IGN)  # let the last report land
                conclude()
    finally:
        _leave_nothing(work)
    finish(task, opts, deadline, doc, tests)
    return doc, exit_code


class PropertyGoal:
    """The goals the run works for, by the task's coverage property, and the listener of
    the board that ends the run once the property is met.

    For coverage-branches every goal. For coverage-error-call only the calls of
    ``reach_error``, and one covered call is the property met (Test-Comp's Cover-Error
    counts a suite one of whose tests reaches ``reach_error``): the analyses work for
    those goals alone, and the first test to reach one cancels the analysis budget,
    where before a run went on searching branch goals until its budget ended. A run
    whose error calls are all proven unreachable ends as one whose goals are decided."""

    def __init__(self, task: Task, board: GoalBoard, budget: Budget) -> None:
        self.budget = budget
        self.goals: frozenset[str] | None = None
        if task.goal_property == ERROR_CALL:
            self.goals = frozenset(g.id for g in board.goals.values() if g.kind == "error-call")
        self.reached = False

    def __call__(self, board: GoalBoard, event: BoardEvent) -> None:
        if self.goals is not None and isinstance(event, Covered) and self.goals & event.goals:
            self.reached = True
            self.budget.cancel()


def finish(task: Task, opts: Options, deadline: Budget, doc: dict[str, Any] | None,
           tests: list[TestCase] | None) -> None:
    """The summary line and report.html, from the final report."""
    if doc is not None:
        print(summary_line(task.name, doc["summary"], error_found(doc, opts.out)), file=sys.stderr)
        write_html_report(opts.out, deadline.remaining(), tests)


def load_within_budget(load: Callable[[], Task], opts: Options) -> tuple[Task | None, int]:
    """The task ``load`` reads, within the run's budget, which counts from the start of
    the process (``opts.started``): a 20 MB task file took PyYAML 57 s under
    ``--budget 5``. The end of the budget or SIGTERM/SIGINT stops the loading as it
    stops the rest of a run; then the report says so, and there is no task (None) but
    the exit code."""
    deadline = Budget(opts.started + opts.budget)
    safe = SafePoints(deadline, deadline)
    try:
        with safe.installed():
            return load(), 0
    except Signalled as e:
        output_folder(opts.out)
        data_model = opts.data_model.value if opts.data_model is not None else "unknown"
        report = Report(os.path.join(opts.out, REPORT), os.path.abspath(opts.target), data_model,
                        opts.strategy, started=opts.started, options=dict(opts.applied))
        doc = report.write_unparsed(f"stopped by {safe.stopped} before the task was loaded")
        print(summary_line(os.path.basename(opts.target), doc["summary"]), file=sys.stderr)
        return None, e.exit_code


class Watchdog:
    """Ends a run whose main thread is held in native code past the hard deadline.

    The alarm of ``SafePoints`` unwinds the analysis, but Python runs a signal handler
    only between bytecodes: a call into z3 that ignores its own time limit (the SMT
    core's propagation of assumptions: 20 s on a query with a 1-s limit) holds the
    handler back. z3 and the native runs release the GIL, so a thread can still act:
    ``GRACE`` after the alarm, if the main thread has not begun the end of the run
    (``ending``, a lock it takes first), the thread takes it and calls ``held``, which
    writes the suite's report and exits the process (``generate`` is the one run of the
    CLI's process; ``bench`` starts a process per run)."""

    GRACE = 0.4  # seconds after the alarm

    def __init__(self, deadline: Budget, ending: threading.Lock, held: Callable[[], None]) -> None:
        self.deadline, self.ending, self.held = deadline, ending, held
        self.over = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="deadline-watchdog", daemon=True)

    def __enter__(self) -> Watchdog:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.over.set()

    def _watch(self) -> None:
        if self.over.wait(max(0.0, self.deadline.remaining()) + OVERTIME + self.GRACE):
            return
        if self.ending.acquire(blocking=False):
            self.held()


def _leave_nothing(work: str) -> None:
    """Remove what the run's processes leave behind: the processes of the tests that
    workers killed at the deadline were running (this process reaps them, or their
    zombies would hold their cgroups until init did), the run's folder, and the
    workers' cgroups (``harness.cgroups``)."""
    kill_strays()
    leave(work)
    remove_orphans()


@contextmanager
def _tmpdir(folder: str) -> Iterator[None]:
    """Every temporary file of this process and its children goes under ``folder``:
    tests' working folders, a killed compiler's files, helpers' scratch; so that removing
    ``folder`` leaves nothing behind, whatever ended the run."""
    before, before_env = tempfile.tempdir, os.environ.get("TMPDIR")
    temporary_files_in(folder)
    try:
        yield
    finally:
        tempfile.tempdir = before
        if before_env is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = before_env


def output_folder(path: str) -> None:
    """The folder the suite and report go to, created; a UserError if it cannot be."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise UserError("the output folder is a file", path)
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise UserError(f"cannot create the output folder: {e.strerror}", path) from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise UserError("the output folder is not writable", path)

