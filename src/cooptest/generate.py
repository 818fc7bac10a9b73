"""The ``generate`` driver: task → CFA → native build → one analysis under a budget →
``DIR/test-suite.zip`` and ``DIR/report.json``.

Both outputs are valid on disk at every moment: the suite is rewritten atomically after
each test (``SuiteWriter``), the report when goals change status. SIGTERM and SIGINT
stop the analysis at the next safe point (never in the middle of a native run, whose
child would otherwise be left waiting on its stdin), then the final report is written
and the process exits with 143 or 130, as a shell expects of a signalled process.
"""
from __future__ import annotations

import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from cooptest.analyses.interface import Analysis, Budget, ProgramUnderTest
from cooptest.cfa.ctype import DataModel
from cooptest.cli import DEFAULT_SEARCH, DEFAULT_STRATEGY
from cooptest.errors import UserError
from cooptest.frontend import load_program
from cooptest.harness.executor import Execution, Executor
from cooptest.harness.testsuite import SuiteWriter, read_suite
from cooptest.report.progress import Progress, summary_line
from cooptest.report.report import Report
from cooptest.task import Task

MEASURE_SHARE = 0.2  # the last share of the budget: measuring TestCov-style coverage
OVERTIME = 0.1  # seconds past the budget when the run is stopped wherever it is
SUITE, REPORT = "test-suite.zip", "report.json"


@dataclass
class Options:
    target: str
    budget: float
    out: str
    strategy: str = DEFAULT_STRATEGY
    search: str = DEFAULT_SEARCH
    partitions: int = 4
    seed: int = 0
    seed_suite: str | None = None
    data_model: DataModel | None = None
    quiet: bool = False
    started: float = field(default_factory=time.monotonic)  # when the budget began


class Interrupted(BaseException):
    """SIGTERM/SIGINT arrived, or SIGALRM at the end of the budget: unwind the analysis
    (not an ``Exception``, so that no analysis's error handling swallows it). The budget
    running out is the normal end of a run (exit code 0), wherever it finds it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.exit_code = 0 if signum == signal.SIGALRM else 128 + signum


def make_analysis(opts: Options, seed_tests: list[list[str]]) -> Analysis:
    """The analysis named by ``opts.strategy``; its module is imported only now, so the
    CLI works while an analysis is missing (that is then a UserError)."""
    if opts.strategy == "random":
        from cooptest.analyses.random_testing import RandomTesting
        return RandomTesting(rng_seed=opts.seed)
    if opts.strategy == "concolic":
        concolic = _import("cooptest.analyses.concolic", opts.strategy)
        known = _attr(concolic, "STRATEGIES", opts.strategy)
        if opts.search not in known:
            raise UserError(f"search {opts.search!r} is not available "
                            f"(available: {', '.join(sorted(known))})")
        analysis = _attr(concolic, "ConcolicAnalysis", opts.strategy)
        return analysis(search=opts.search, seed_tests=seed_tests or None, rng_seed=opts.seed)
    reachability = _import("cooptest.analyses.reachability", opts.strategy)
    kwargs: dict[str, Any] = {"partitions": opts.partitions} if opts.strategy == "mgp" else {}
    analyses = _attr(reachability, "ANALYSES", opts.strategy)
    if opts.strategy not in analyses:
        raise UserError(f"strategy {opts.strategy!r} is not available in this installation")
    return analyses[opts.strategy](**kwargs)


def _import(module: str, strategy: str) -> Any:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name and module.startswith(e.name):
            raise UserError(f"strategy {strategy!r} is not available in this installation "
                            f"({module} is missing)") from None
        raise


def _attr(module: Any, name: str, strategy: str) -> Any:
    if not hasattr(module, name):
        raise UserError(f"strategy {strategy!r} is not available in this installation "
                        f"({module.__name__}.{name} is missing)")
    return getattr(module, name)


class SafePoints:
    """Where a signal may unwind the analysis: anywhere but inside a native run.

    The handler raises :class:`Interrupted` at once, unless a native run is in progress;
    then it only records the signal, and the wrapped executor raises once the run is
    over (a run lasts at most the executor's timeout). A second signal is not deferred."""

    def __init__(self, budget: Budget, hard: Budget) -> None:
        self.budget = budget
        self.hard = hard  # the whole run's deadline: parsing, building, measuring included
        self.pending: int | None = None
        self.in_run = False
        self.stopped: str | None = None  # what stopped the run, if anything did

    def wrap(self, executor: Executor) -> Executor:
        """Runs of ``executor`` end by the hard deadline, and signals wait for them."""
        run: Callable[[list[str]], Execution] = executor.run
        longest = executor.timeout

        def safe_run(inputs: list[str]) -> Execution:
            executor.timeout = min(longest, max(0.05, self.hard.remaining()))
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
        self.budget.deadline = 0.0  # analyses polling the budget stop too
        self.stopped = "the end of the budget" if signum == signal.SIGALRM \
            else signal.Signals(signum).name
        if self.in_run and self.pending is None:
            self.pending = signum
            return
        raise Interrupted(signum)

    @contextmanager
    def installed(self) -> Iterator[None]:
        """The handlers, and an alarm just past the hard deadline."""
        old = {s: signal.signal(s, self.handle) for s in (signal.SIGTERM, signal.SIGINT,
                                                          signal.SIGALRM)}
        signal.setitimer(signal.ITIMER_REAL, max(0.001, self.hard.remaining() + OVERTIME))
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            for s, h in old.items():
                signal.signal(s, h)


def generate(task: Task, opts: Options) -> tuple[dict[str, Any] | None, int]:
    """Run test generation; returns the final report document (None if a signal came
    before the program was even parsed) and the exit code."""
    seed_tests = [t.inputs for t in read_suite(opts.seed_suite)] if opts.seed_suite else []
    analysis = make_analysis(opts, seed_tests)
    output_folder(opts.out)
    # The whole run stays within the budget: the analysis stops where the share kept for
    # measuring the suite's coverage begins; the measurement gets what is left then.
    deadline = Budget(opts.started + opts.budget)
    budget = deadline.part(opts.budget * (1 - MEASURE_SHARE))
    safe = SafePoints(budget, deadline)
    work = tempfile.mkdtemp(prefix="cooptest-")
    put: ProgramUnderTest | None = None
    report = Report(os.path.join(opts.out, REPORT), task.program, task.data_model.value,
                    opts.strategy, opts.search if opts.strategy == "concolic" else None)
    exit_code, doc = 0, None
    try:
        with safe.installed():
            try:
                suite = SuiteWriter(os.path.join(opts.out, SUITE), task)  # valid from the start
                if os.path.exists(report.path):
                    os.unlink(report.path)  # a previous run's report would not match the suite
                frontend = load_program(task, work)
                executor = safe.wrap(Executor(frontend, os.path.join(work, "build")))
                put = ProgramUnderTest(frontend.program, executor, suite)
                put.listeners.append(report)
                report.write(put)
                with Progress(put, task.name, report.strategy, opts.budget, opts.quiet):
                    for inputs in seed_tests:
                        put.submit(inputs, "seed-suite")
                    analysis.run(put, put.open_goals(), budget)
                measured = measure_testcov_style(opts, task.data_model, suite.path,
                                                 deadline.remaining())
                if measured is not None:
                    report.extra["coverage_testcov_style"] = measured
            except Interrupted as e:
                exit_code = e.exit_code
            finally:  # also after an internal error: the suite so far is worth its report
                signal.setitimer(signal.ITIMER_REAL, 0)
                for s in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM):
                    signal.signal(s, signal.SIG_IGN)  # let the last report land
                if put is not None:
                    doc = report.write(put)
                elif safe.stopped is not None:
                    doc = report.write_unparsed(f"stopped by {safe.stopped} before the "
                                                "program was analysed")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if doc is not None:
        print(summary_line(task.name, doc["summary"]), file=sys.stderr)
    return doc, exit_code


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


def measure_testcov_style(opts: Options, data_model: DataModel, suite: str,
                          limit: float) -> float | None:
    """Branch coverage of the final suite counted as TestCov counts it, or None if that
    takes longer than ``limit`` seconds (measured by ``cooptest coverage`` in a child
    process, which can be stopped when it overruns)."""
    cmd = [sys.executable, "-m", "cooptest.cli", "coverage", opts.target, suite, "--json",
           "--data-model", data_model.value]
    work = tempfile.mkdtemp(prefix="cooptest-measure-")
    try:  # the child's temporary files go where they are removed even if it is killed
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=limit,
                              stdin=subprocess.DEVNULL, env={**os.environ, "TMPDIR": work})
    except subprocess.TimeoutExpired:
        return None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if proc.returncode != 0:
        return None
    return json.loads(proc.stdout)["coverage"]
