"""The ``generate`` driver: task → CFA → native build → one analysis under a budget →
``DIR/test-suite.zip`` and ``DIR/report.json``.

Both outputs are valid on disk at every moment: the suite is rewritten atomically after
each test (``SuiteWriter``), the report when goals change status. SIGTERM and SIGINT
stop the analysis at the next safe point (never in the middle of a native run, whose
child would otherwise be left waiting on its stdin), then the final report is written
and the process exits with 143 or 130, as a shell expects of a signalled process.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
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
from cooptest.harness.testsuite import SuiteWriter, read_suite
from cooptest.report.html import write_html_report
from cooptest.report.progress import Progress, summary_line
from cooptest.report.report import Report
from cooptest.task import Task

MEASURE_SHARE = 0.2  # the last share of the budget: measuring TestCov-style coverage
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
    # The whole run stays within the budget: the analysis stops where the share kept for
    # measuring the suite's coverage begins; the measurement gets what is left then.
    settings = replace(opts.settings, extra={"budget": opts.budget * (1 - MEASURE_SHARE),
                                             **opts.settings.extra})
    analysis = make_analysis(opts.strategy, settings)
    deadline = Budget(opts.started + opts.budget)
    budget = deadline.child(opts.budget * (1 - MEASURE_SHARE))
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
                board = GoalBoard(frontend.program, executor, suite)
                board.listeners.append(report)
                report.write(board)
                with Progress(board, task.name, report.strategy, opts.budget, opts.quiet):
                    for inputs in seed_tests:
                        board.submit(inputs, "seed-suite")
                    outcome = analysis.run(board, Job(board.open(), budget))
                report.extra["stopped"] = outcome.stopped
                board.reduce()
                measured = measure_testcov_style(opts, task.data_model, suite.path,
                                                 deadline.remaining())
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


def measure_testcov_style(opts: Options, data_model: DataModel, suite: str,
                          limit: float) -> float | None:
    """Branch coverage of the final suite counted as TestCov counts it, or None if that
    takes longer than ``limit`` seconds (measured by ``cooptest coverage`` in a child
    process, which can be stopped when it overruns)."""
    cmd = [sys.executable, "-m", "cooptest.cli", "coverage", opts.target, suite, "--json",
           "--data-model", data_model.value]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=limit,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None
    if proc.returncode != 0:
        return None
    return json.loads(proc.stdout)["coverage"]
