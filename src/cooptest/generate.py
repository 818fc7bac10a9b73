"""The ``generate`` driver: task → CFA → native build → one analysis under a budget →
``DIR/test-suite.zip`` and ``DIR/report.json``.

Both outputs are valid on disk at every moment: the suite is rewritten atomically after
each test (``SuiteWriter``), the report when goals change status. SIGTERM and SIGINT
stop the analysis at the next safe point (never in the middle of a native run, whose
child would otherwise be left waiting on its stdin), then the final report is written
and the process exits with 143 or 130, as a shell expects of a signalled process.
"""
from __future__ import annotations

import os
import shutil
import signal
import multiprocessing
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator

from cooptest.cfa.ctype import DataModel
from cooptest.core.analysis import Job
from cooptest.core.board import GoalBoard
from cooptest.core.budget import Budget
from cooptest.core.registry import DEFAULT_STRATEGY, STRATEGIES, Settings, make_analysis
from cooptest.frontend import load_program
from cooptest.harness.executor import Execution, Executor
from cooptest.harness.coverage import CoverageMeter
from cooptest.harness.testsuite import SuiteWriter, TestCase, read_suite
from cooptest.report.html import write_html_report
from cooptest.report.progress import Progress, summary_line
from cooptest.report.report import Report
from cooptest.task import Task

FINAL_RESERVE = 0.1  # of the budget, at most FINAL_RESERVE_MAX s: the final suite's coverage
FINAL_RESERVE_MAX = 3.0  # count, the report and its HTML page
GCOV_TIME = 0.3  # seconds kept for gcov itself
SUITE, REPORT = "test-suite.zip", "report.json"


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
    started: float = field(default_factory=time.monotonic)  # when the budget began


class Interrupted(BaseException):
    """SIGTERM/SIGINT arrived: unwind the analysis (not an ``Exception``, so that no
    analysis's error handling swallows it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.exit_code = 128 + signum


class SafePoints:
    """Where a signal may unwind the analysis: anywhere but inside a native run.

    The handler raises :class:`Interrupted` at once, unless a native run is in progress;
    then it only records the signal, and the wrapped executor raises once the run is
    over (a run lasts at most the executor's timeout). A second signal is not deferred."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.pending: int | None = None
        self.in_run = False

    def wrap(self, executor: Executor) -> Executor:
        run: Callable[[list[str]], Execution] = executor.run

        def safe_run(inputs: list[str]) -> Execution:
            self.in_run = True
            try:
                return run(inputs)
            finally:
                self.in_run = False
                if self.pending is not None:
                    raise Interrupted(self.pending)

        executor.run = safe_run  # type: ignore[method-assign]
        return executor

    def handle(self, signum: int, frame: object) -> None:
        self.budget.cancel()  # analyses polling any budget below it stop too
        if self.in_run and self.pending is None:
            self.pending = signum
            return
        raise Interrupted(signum)

    @contextmanager
    def installed(self) -> Iterator[None]:
        old = {s: signal.signal(s, self.handle) for s in (signal.SIGTERM, signal.SIGINT)}
        try:
            yield
        finally:
            for s, h in old.items():
                signal.signal(s, h)


def generate(task: Task, opts: Options) -> tuple[dict[str, Any] | None, int]:
    """Run test generation; returns the final report document (None if a signal came
    before the program was even parsed) and the exit code."""
    seed_tests = [t.inputs for t in read_suite(opts.seed_suite)] if opts.seed_suite else []
    # The whole run stays within the budget: the TestCov-style coverage count is built on
    # the side while the analysis runs, which leaves only a small reserve at the end for
    # running the final suite on it.
    analysis_time = opts.budget - min(FINAL_RESERVE_MAX, FINAL_RESERVE * opts.budget)
    settings = replace(opts.settings, extra={"budget": analysis_time, **opts.settings.extra})
    analysis = make_analysis(opts.strategy, settings)
    deadline = Budget(opts.started + opts.budget)
    budget = deadline.child(analysis_time - (time.monotonic() - opts.started))
    safe = SafePoints(deadline)
    work = tempfile.mkdtemp(prefix="cooptest-")
    board: GoalBoard | None = None
    report = Report(os.path.join(opts.out, REPORT), task.program, task.data_model.value,
                    opts.strategy,
                    opts.settings.search if STRATEGIES[opts.strategy].uses_search else None,
                    configuration=getattr(analysis, "configuration", None))
    exit_code, doc = 0, None
    try:
        with safe.installed():
            try:
                suite = SuiteWriter(os.path.join(opts.out, SUITE), task)  # valid from the start
                if os.path.exists(report.path):
                    os.unlink(report.path)  # a previous run's report would not match the suite
                frontend = load_program(task, work)
                executor = safe.wrap(Executor(frontend, os.path.join(work, "build")))
                meter = SideMeter(task, frontend.preprocessed, os.path.join(work, "coverage"))
                board = GoalBoard(frontend.program, executor, suite)
                board.listeners.append(report)
                report.write(board)
                with Progress(board, task.name, report.strategy, opts.budget, opts.quiet):
                    for inputs in seed_tests:
                        board.submit(inputs, "seed-suite")
                    outcome = analysis.run(board, Job(board.open(), budget))
                report.extra["stopped"] = outcome.stopped
                board.reduce()
                measured = meter.measure(board.tests, deadline)
                if measured is not None:
                    report.extra["coverage_testcov_style"] = measured
            except Interrupted as e:
                exit_code = e.exit_code
            finally:  # also after an internal error: the suite so far is worth its report
                for s in (signal.SIGTERM, signal.SIGINT):
                    signal.signal(s, signal.SIG_IGN)  # let the last report land
                if board is not None:
                    doc = report.write(board)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if doc is not None:
        print(summary_line(task.name, doc["summary"]), file=sys.stderr)
        write_html_report(opts.out)
    return doc, exit_code


class SideMeter:
    """The TestCov-style coverage count (``harness.coverage``), its labelled program
    built by a child process while the analysis runs (on the other core, without
    taking the analysis's interpreter lock): at the end only the final suite's native
    runs and one gcov are left. None when the program is not built by the deadline, or
    the suite does not fit in the time left."""

    def __init__(self, task: Task, preprocessed: str, work_dir: str) -> None:
        self.task, self.preprocessed, self.work_dir = task, preprocessed, work_dir
        self.pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
        self.built = self.pool.submit(CoverageMeter.build_in, task, preprocessed, work_dir)

    def measure(self, tests: list[TestCase], deadline: Budget) -> float | None:
        try:
            built = self.built.result(timeout=max(0.0, deadline.remaining() - GCOV_TIME))
            meter = CoverageMeter(self.task, self.preprocessed, self.work_dir, built)
        except Exception:  # noqa: BLE001 - late or failed: no count is better than a failed run
            return None
        finally:
            self.pool.shutdown(wait=False, cancel_futures=True)
        result = meter.measure(tests, deadline.deadline - GCOV_TIME)
        return None if result is None else round(result.percent, 2)
