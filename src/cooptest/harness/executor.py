"""Native execution of tests on the instrumented twin of the program, read as CFA goals.

This is the ground truth of cooptest: a goal is covered only if a native run's trace
passes through it (branch events ``2*id + outcome``, error-call events ``-(id+1)``,
written by ``trace_runtime.c``)."""
from __future__ import annotations

import copy
import dataclasses
import os
import signal
import time
from array import array
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Protocol

from cooptest.cfa.ir import branch_goal_id, error_goal_id
from cooptest.errors import UserError
from cooptest.frontend import Frontend
from cooptest.frontend.instrument import MARKER, instrumented_source
from cooptest.harness.build import Executable, Undefined, compile_program
from cooptest.harness.crash import Crash, Locator
from cooptest.harness.runner import RunResult

TRUNCATED = -(1 << 31)
STARVED_EXIT = 1  # the nondet harness exits with 1 when the inputs run out
MIN_TIMEOUT = 0.01  # seconds: a run at the end of the budget still starts (and is stopped)
# A generating run's time limit once runs have finished (``LearntLimit``): SLOWER times
# the slowest finished run, at least FLOOR seconds, at most the executor's; runs it stops
# are given the full limit again within RETRY_SHARE of the time since it was made.
SLOWER = 20
FLOOR = 0.5
RETRY_SHARE = 0.1
# The longest test any analysis makes: enough for the 2 x 200,000 reads of array-programs'
# copysome1-2. TestCov's harness (reproduced in harness.nondet) keeps a 3,000-byte buffer
# per input: a run of 2^19 inputs holds 1.5 GB of a test's 2-GB address space.
MAX_INPUTS = 1 << 19


@dataclass
class Execution:
    inputs: list[str]
    events: array[int]  # int32, as the runtime wrote them: 4 bytes each, not a list's 36
    covered: set[str]
    exit_code: int | None
    timed_out: bool
    crashed: bool
    truncated: bool
    error_reached: bool
    new: set[str] = field(default_factory=set)  # goals no earlier test covered (set by submit)
    unconfirmed: set[str] = field(default_factory=set)  # goals a second run of the inputs missed
    signal: int | None = None  # the signal that ended the run, if one did
    inputs_read: int | None = None  # reads the harness counted, one past the inputs if it ran out (None: not counted)
    needed: int | None = None  # inputs a test of this run holds (GoalBoard._trim); None: all
    seconds: float = 0.0  # wall time of the run
    crash: Crash | None = None  # the signal that ended the run, and the program's line of the fault
    stopped: bool = False  # the budget ended the run: its time-out is not the program's

    def decisions(self) -> Iterator[tuple[int, bool]]:
        """The branch decisions of the run in order: (branch point id, outcome)."""
        return ((e >> 1, bool(e & 1)) for e in self.events if e >= 0)


def starved(ex: Execution) -> bool:
    """The run ended for lack of input: the harness's exit code, no error reached
    first, and a read asked for past the inputs given (the harness counts that one
    too). grep exits with 1 whenever no line matches: each such run padded and run
    again was half of its concolic iterations. Without a count (a run not traced) the
    run may have starved; a caller that pads the inputs sees the longer run do the same."""
    return ex.exit_code == STARVED_EXIT and not ex.error_reached \
        and (ex.inputs_read is None or ex.inputs_read > len(ex.inputs))


ENDED = "ended: "  # the prefix of the board's counts of how test runs ended (``failure``)
NO_GOAL = "before reaching any goal"  # how ``failure`` ends the words of a run that reached none
AT = "at "  # how ``failure`` names the program's line of a fault: ``killed by SIGSEGV at FILE:LINE``


def failure(ex: Execution) -> str | None:
    """How a run failed to test anything, in words; None for a run that reached a goal
    and ended as a program may (any exit code, or in the error). A run killed by a
    signal names the program's line of the fault after `` at `` (``harness.crash``), or
    where that is not known the last goal its trace reached, after `` after ``, if it
    reached one: where to look for the crash."""
    if ex.timed_out:
        return "timed out"
    if ex.error_reached:
        return None
    if ex.exit_code is None:
        name = signal.Signals(ex.signal).name if ex.signal else "a signal"
        if ex.crash is not None and ex.crash.file is not None:
            return f"killed by {name} {AT}{ex.crash.file}:{ex.crash.line}"
        last = next((e for e in reversed(ex.events) if e != TRUNCATED), None)
        if last is None:
            return f"killed by {name} {NO_GOAL}"
        goal = branch_goal_id(last >> 1, bool(last & 1)) if last >= 0 else error_goal_id(-last - 1)
        return f"killed by {name} after {goal}"
    return None if ex.covered else f"exited with code {ex.exit_code} {NO_GOAL}"


def aborted(ex: Execution) -> bool:
    """The run ended in ``abort()`` (a failed ``assume`` too), not in an error."""
    return ex.signal == signal.SIGABRT and not ex.error_reached


def goals_of(events: Iterable[int]) -> tuple[set[str], bool, bool]:
    """Goal ids a trace passes through, whether it reached an error call, and whether
    the trace was truncated."""
    covered: set[str] = set()
    error = truncated = False
    for e in set(events):
        if e >= 0:
            covered.add(branch_goal_id(e >> 1, bool(e & 1)))
        elif e == TRUNCATED:
            truncated = True
        else:
            covered.add(error_goal_id(-e - 1))
            error = True
    return covered, error, truncated


@dataclass(frozen=True)
class UserFiles:
    """Whether a file of the build's line table is the user's: not a system header, not
    cooptest's (its harness and runtimes in the build folder, the code it adds to the
    instrumented program, its environment model and headers). A class, not a closure:
    an Executor may be pickled."""

    system: frozenset[str]
    ours: tuple[str, ...]  # folders, each ending with a separator

    @staticmethod
    def of(frontend: Frontend, work_dir: str) -> UserFiles:
        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        return UserFiles(frontend.program.system_files,
                         tuple(os.path.join(os.path.abspath(p), "") for p in (work_dir, package)))

    def __call__(self, file: str) -> bool:
        return bool(file) and file != MARKER and file not in self.system and not file.startswith(self.ours)


@dataclass
class LearntLimit:
    """A generating run's time limit, learnt from the runs that finished.

    A run that takes ``SLOWER`` times as long as every run before it is almost always
    caught in a loop that ends only at the full limit, and covers nothing then: on
    ``pals_lcr.3.1``'s event loop two such runs took 6 of the 26 s of a concolic search
    whose other runs took 2-14 ms, and on ``brs1f`` time-outs took 51 of the 120
    core-seconds of a 60-s run. Such a run is stopped at the learnt limit instead. A run
    that would have ended before the full limit is not always in a loop (a loop bound
    the solver chose a billion), so a stopped run runs again with the full limit while
    those second runs have taken at most ``RETRY_SHARE`` of the time; one that then
    finishes raises the limit. A replay (``cooptest replay``) keeps the full limit."""

    slowest: float | None = None  # seconds of the slowest run that finished
    started: float = field(default_factory=time.monotonic)  # made just before the analysis runs
    retried: float = 0.0  # seconds of runs given the full limit again

    def limit(self, full: float) -> float:
        return full if self.slowest is None else min(full, max(FLOOR, SLOWER * self.slowest))

    def may_retry(self) -> bool:
        return self.retried <= RETRY_SHARE * (time.monotonic() - self.started)


class Deadline(Protocol):
    """What the executor reads of the budget its runs end by (``core.budget.Budget``):
    the harness builds and runs tests, and knows nothing of the analyses' budgets."""

    def remaining(self) -> float:
        """Seconds left."""


class RunPolicy(Protocol):
    """What the owner of a run requires of each native run (``generate.SafePoints``: a
    signal waits for the run to end, and the run ends by the hard deadline). The owner
    passes it to the executor; nothing installs it on one, so that a clone made for
    another process runs under that process's policy, not under this one's."""

    def limit(self, seconds: float) -> float:
        """The time limit of a run the executor would give ``seconds``."""

    def native_run(self) -> AbstractContextManager[None]:
        """Held for the whole of each native run."""


class Executor:
    """Builds the instrumented program once; runs tests on it."""

    def __init__(self, frontend: Frontend, work_dir: str, timeout: float = 3.0,
                 policy: RunPolicy | None = None) -> None:
        os.makedirs(work_dir, exist_ok=True)
        sources = []
        for i, text in enumerate(instrumented_source(frontend)):
            sources.append(os.path.join(work_dir, f"instrumented-{i}.c" if i else "instrumented.c"))
            with open(sources[-1], "w") as f:
                f.write(text)
        self.dialects = [u.source.dialect for u in frontend.units]  # for other builds (afl), too
        try:
            self.binary: Executable = compile_program(sources, frontend.task.data_model, work_dir, trace=True,
                                                      dialects=self.dialects)
        except Undefined as e:  # the linker names our instrumented copy, and no line
            variable = next((v for v in frontend.program.globals if v.name == e.function), None)
            if variable is not None:
                raise UserError(f"{e.function} is declared but defined in no file of the program",
                                frontend.task.program, variable.line or None) from None
            raise e.at(frontend.task.program, frontend.program.first_call(e.function)) from None
        self.timeout = timeout
        self.preprocessed = frontend.preprocessed  # the program's gcc -E outputs, for other builds (afl)
        self.locator = Locator(self.binary.path, UserFiles.of(frontend, work_dir))
        self.budget: Deadline | None = None  # runs end by it: a run it stops covers nothing
        self.goals = {g.id for g in frontend.program.goals()}
        self.learnt: LearntLimit | None = None  # a generating run's; a replay keeps the full limit
        self.policy = policy

    def clone(self, policy: RunPolicy | None = None) -> Executor:
        """The same build for another process: runs of the clone happen in a working
        directory of its own, under ``policy``, that of the process that runs the clone
        (none by default): this executor's policy answers for its own process alone."""
        twin = copy.copy(self)
        twin.policy = policy
        twin.binary = dataclasses.replace(self.binary)
        twin.learnt = copy.copy(self.learnt)
        return twin

    def close(self) -> None:
        """Remove the working directory of the runs (a forked worker exits without
        running finalizers)."""
        self.binary.close()

    def run(self, inputs: list[str]) -> Execution:
        """Run ``inputs`` natively. A run over the time limit covers nothing (TestCov
        counts nothing of it either); nor does a run the budget stops, so that a test
        running for seconds cannot carry the analysis past its end."""
        if self.policy is None:
            return self._run(inputs)
        with self.policy.native_run():
            return self._run(inputs)

    def _run(self, inputs: list[str]) -> Execution:
        learnt = self.learnt
        full = self._full_limit()
        limit = full if learnt is None else learnt.limit(full)
        r, seconds = self._timed(inputs, limit)
        if learnt is not None:
            if r.timed_out and limit < full and learnt.may_retry():
                r, seconds = self._timed(inputs, self._full_limit())  # what the budget has left now
                learnt.retried += seconds
            if not r.timed_out:
                learnt.slowest = max(learnt.slowest or 0.0, seconds)
        events = r.events if r.events is not None and not r.timed_out else array("i")
        covered, error, truncated = goals_of(events)
        covered &= self.goals  # a stray write into the trace names no goal of the program
        crash = self.locator.crash(r.fault, r.signal) if r.signal is not None and not r.timed_out \
            else None
        stopped = r.timed_out and self.budget is not None and self.budget.remaining() <= 0
        return Execution(list(inputs), events, covered, r.exit_code, r.timed_out, r.crashed,
                         truncated, error, signal=r.signal, inputs_read=r.inputs_read,
                         seconds=seconds, crash=crash, stopped=stopped)

    def _full_limit(self) -> float:
        timeout = self.timeout if self.policy is None else self.policy.limit(self.timeout)
        return timeout if self.budget is None else min(timeout, self.budget.remaining())

    def _timed(self, inputs: list[str], timeout: float) -> tuple[RunResult, float]:
        started = time.monotonic()
        r = self.binary.run(inputs, timeout=max(timeout, MIN_TIMEOUT), trace=True)
        return r, time.monotonic() - started
