"""The TestCov-style coverage count, kept up to date while the analysis runs.

A child process builds the labelled program (``harness.coverage``) and then runs each
test the board keeps on it, as the test is kept, remembering the TestCov goals each one
covers. gcov's counts only add up over runs, so the count of any set of tests is the
union of what its tests cover alone: the count of the final suite (reduced at the end
of the run to a subset of the tests kept) needs no run at the end, only the child to
have caught up. Nothing of the budget is reserved for it: the analysis runs until the
end, less the time to write the reports.

Idle, the child runs small mutants of the kept tests on the labelled program
(``harness.label_fuzz``): where the program reads indeterminate memory, one covers
there what the board's build credits to a test that does not; the parent keeps the
mutants found at the end of the run (``found``, ``GoalBoard.keep``).

The child has the labelled program's compiler, its test runs and gcov to itself, on the
spare core when there is one, at normal priority: at the lowest, beside the fuzzing
that a large program's other core runs there, it fell 31-36 tests behind on pals_lcr
(558 tests kept in a minute) and the run ended without its count. It receives tests on
a thread of its own, so that the parent's sending a large test never waits for a run in
progress. It dies with the run: neither a signal nor a kill leaves it behind or waits
for it.

It is a part of the run beside the board, as ``core.memory``'s watch is, and lives in
core: it listens to the board, and the harness it runs tests with knows of no board.
"""
from __future__ import annotations

import ctypes
import multiprocessing
import os
import queue
import signal
import threading
import time
from collections.abc import Sequence
from typing import Any

from cooptest.core.board import GoalBoard
from cooptest.core.board_events import BoardEvent, Covered, Kept
from cooptest.core.budget import Budget
from cooptest.core.lifetime import die_with_parent, start_forked, take_own_signals, temporary_files_in
from cooptest.harness.coverage import CoverageMeter
from cooptest.harness.label_fuzz import LabelFuzzer
from cooptest.harness.testsuite import TestCase
from cooptest.task import Task

SO_FAR_BASE = 100_000  # tests * SO_FAR_BASE + hundredths of a percent: one word


class LiveMeter:
    """The parent's side: hears of each kept test (a board listener) and asks for the
    count of the final suite. The child also posts, after each test, the count of every
    test so far in shared memory (``_so_far``): what a run stopped before it could ask
    (a signal, an analysis that overran the budget) reports, without waiting."""

    def __init__(self, task: Task, preprocessed: str | Sequence[str], work_dir: str) -> None:
        ctx = multiprocessing.get_context("fork")
        inbox, self.requests = ctx.Pipe(duplex=False)
        self.replies, outbox = ctx.Pipe(duplex=False)
        self._so_far = ctx.RawValue(ctypes.c_longlong, -1)  # one word (no lock): read whole
        self.child = ctx.Process(target=_serve, daemon=True,
                                 args=(inbox, outbox, task, preprocessed, work_dir, os.getpid(),
                                       self._so_far))
        start_forked(self.child)
        inbox.close()
        outbox.close()
        self.sent: list[str] = []  # the tests sent, in order

    def listen(self, board: GoalBoard, event: BoardEvent) -> None:
        if isinstance(event, Covered | Kept):
            test = board.records[-1].test
            if self._send(("test", test.name, test.inputs)):
                self.sent.append(test.name)

    def count(self, tests: list[TestCase], deadline: Budget) -> float | None:
        """The coverage of ``tests`` in percent, rounded as TestCov prints it; None when
        the child has not caught up by ``deadline``, or could not build the program."""
        result: float | None = self._ask(("count", [t.name for t in tests]), deadline)
        return result

    def rescue(self, kept: list[str], dropped: list[str], deadline: Budget) -> list[str]:
        """Of the tests ``dropped`` from the suite, those that cover TestCov goals the
        tests ``kept`` and the ones rescued before them do not; none if the child has
        not answered by ``deadline``. The child computes it: only names cross the pipe."""
        saved: list[str] | None = self._ask(("rescue", kept, dropped), deadline)
        return saved or []

    def found(self, deadline: Budget, finish: float = 0.0) -> tuple[list[list[str]], int]:
        """The inputs of the mutants that cover goals of TestCov's build no test sent
        covers (``harness.label_fuzz``), each reported once, and how many mutants ran;
        none if the child has not answered by ``deadline``. ``finish`` seconds go first
        to the mutants left, at full speed: a run that ends early, every goal decided
        on the board's build, has left them no idle time."""
        answer: tuple[list[list[str]], int] | None = self._ask(("found", finish), deadline)
        return answer or ([], 0)

    def _ask(self, request: tuple[Any, ...], deadline: Budget) -> Any:
        """The child's answer to ``request`` (answers come in the order asked; one to an
        earlier question that timed out is skipped), None if none came by ``deadline``."""
        if not self._send(request):
            return None
        try:
            while self.replies.poll(max(0.0, deadline.remaining())):
                kind, answer = self.replies.recv()
                if kind == request[0]:
                    return answer
        except (EOFError, OSError):  # the child died
            pass
        return None

    def count_so_far(self, tests: list[TestCase]) -> float | None:
        """The count of ``tests`` if they are every test sent and the child has counted
        them all already; else None."""
        posted = self._posted()
        if posted is None or posted[0] != len(self.sent) or {t.name for t in tests} != set(self.sent):
            return None
        return posted[1] / 100

    def why_not_counted(self) -> str:
        """Why a run ends without the count, for report.json: how far the child got."""
        if not self.child.is_alive():
            return "the meter's process ended (the labelled program did not build, or it died)"
        counted = posted[0] if (posted := self._posted()) else 0
        return (f"the meter had counted {counted} of the {len(self.sent)} tests kept by the end"
                + (" and was still busy" if counted == len(self.sent) else "")
                + " (`cooptest coverage` measures the suite)")

    def _posted(self) -> tuple[int, int] | None:
        """What the child last posted after a test: the tests it has counted and their
        count in hundredths of a percent; None before its first (the word read once: the
        child may write it meanwhile)."""
        word = self._so_far.value
        return None if word < 0 else divmod(word, SO_FAR_BASE)

    def _send(self, message: tuple[Any, ...]) -> bool:
        try:
            self.requests.send(message)
            return True
        except OSError:  # the child died: no count, and no reason to fail the run
            return False

    def close(self) -> None:
        if self.child.is_alive():
            assert self.child.pid is not None  # started
            try:  # the child and its compiler: a process group of their own
                os.killpg(self.child.pid, signal.SIGKILL)
            except OSError:
                pass
        self.child.join()
        self.requests.close()
        self.replies.close()


def _serve(inbox: Any, outbox: Any, task: Task, preprocessed: str | Sequence[str], work_dir: str,
           parent: int, so_far: Any) -> None:
    """The child's body: build, then answer requests in the order they were sent."""
    die_with_parent(signal.SIGKILL, parent)
    take_own_signals()
    os.setpgrp()
    temporary_files_in(work_dir)  # the tests' working folders: killed, the child removes none
    requests: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
    threading.Thread(target=_receive, args=(inbox, requests), daemon=True).start()
    meter: CoverageMeter | None = None
    goals: set[int] = set()
    try:
        meter = CoverageMeter(task, preprocessed, work_dir)
        goals = meter.goals()
    except Exception:  # noqa: BLE001 - no count is better than a failed run
        meter = None
    covered: dict[str, set[int]] = {}
    hit: set[int] = set()  # by every test so far

    def percent(m: CoverageMeter, goals_hit: set[int], tests: int) -> float:
        """The count, rounded as TestCov prints it."""
        return round(m.result(goals, goals_hit, tests).percent, 2)

    fuzzer = LabelFuzzer()

    def mutant_wait() -> float | None:
        """Seconds until the next mutant's turn; None when none is to run."""
        return fuzzer.wait() if meter is not None and hit | fuzzer.found_goals < goals else None

    def mutant_turn() -> None:
        nonlocal meter
        try:
            fuzzer.step(meter.covered_by, hit)  # type: ignore[union-attr]
        except Exception:  # noqa: BLE001 - as below
            meter = None

    while True:
        try:
            request = requests.get(timeout=mutant_wait())
        except queue.Empty:  # idle: a mutant's turn
            mutant_turn()
            continue
        if request[0] == "stop":
            break
        if request[0] == "test" and meter is not None:
            try:
                known = fuzzer.covers.pop(tuple(request[2]), None)  # a mutant it found, kept
                covered[request[1]] = meter.covered_by(request[2]) if known is None else known
                hit |= covered[request[1]]
                fuzzer.add(request[2])
                so_far.value = len(covered) * SO_FAR_BASE + round(percent(meter, hit, len(covered)) * 100)
            except Exception:  # noqa: BLE001 - as above
                meter = None
        elif request[0] == "count":
            names: list[str] = request[1]
            outbox.send(("count", None if meter is None else
                         percent(meter, set().union(*(covered[n] for n in names)), len(names))))
        elif request[0] == "rescue":
            outbox.send(("rescue", None if meter is None else _rescue(covered, request[1], request[2])))
        elif request[0] == "found":
            until = time.monotonic() + request[1]  # the mutants left, unthrottled, until then
            while time.monotonic() < until and mutant_wait() is not None:
                mutant_turn()
            outbox.send(("found", (fuzzer.found, fuzzer.runs)))
            fuzzer.found = []


def _rescue(covered: dict[str, set[int]], kept: list[str], dropped: list[str]) -> list[str]:
    """The dropped tests, in order, that add goals to what the kept ones (and those
    rescued before) cover."""
    hit = set().union(*(covered.get(n, set()) for n in kept))
    saved = []
    for name in dropped:
        if covered.get(name, set()) - hit:
            saved.append(name)
            hit |= covered[name]
    return saved


def _receive(inbox: Any, requests: queue.SimpleQueue[tuple[Any, ...]]) -> None:
    """Move the parent's messages into ``requests`` as soon as they arrive."""
    try:
        while True:
            requests.put(inbox.recv())
    except Exception:  # noqa: BLE001 - the parent closed the pipe, or died mid-message
        requests.put(("stop",))
