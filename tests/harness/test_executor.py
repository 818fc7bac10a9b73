"""The executor's time limit: learnt from the runs that finished while generating (a
run cut by it runs again with the full limit while such runs take little of the
time), the full one on replay; and the policy its owner passes in, which a clone does
not inherit."""
from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from cooptest.core.board import GoalBoard
from cooptest.core.budget import Budget
from cooptest.frontend import Frontend, load_program
from cooptest.generate import SafePoints, Signalled
from cooptest.harness import executor as executor_module
from cooptest.harness.executor import ENDED, FLOOR, Executor, LearntLimit
from cooptest.task import load_task

# 7 loops for ever; 8 spins for a fraction of a second, then takes a branch no other input does
PROGRAM = """extern int __VERIFIER_nondet_int(void);
int main() { int x = __VERIFIER_nondet_int();
  if (x == 7) for (;;) ;
  if (x == 8) { volatile unsigned long n = 0; while (n < 40000000UL) n++; if (n > 5) return 3; }
  return x > 0; }
"""


@pytest.fixture
def frontend(tmp_path) -> Frontend:
    path = tmp_path / "loops.c"
    path.write_text(PROGRAM)
    return load_program(load_task(str(path)), str(tmp_path / "fe"))


@pytest.fixture
def executor(frontend, tmp_path) -> Executor:
    return Executor(frontend, str(tmp_path / "work"))


def timed(executor: Executor, value: str) -> tuple[set[str], float]:
    started = time.monotonic()
    ex = executor.run([value])
    assert ex.timed_out == (not ex.covered)  # a run cut short covers nothing
    return ex.covered, time.monotonic() - started


@pytest.fixture
def patient(monkeypatch) -> None:
    """A limit of twice the slowest run: a loaded machine's slow start of a trivial run
    must not lift it to the full limit."""
    monkeypatch.setattr(executor_module, "SLOWER", 2)


def test_a_generating_run_cuts_a_loop_at_the_learnt_limit(executor, patient):
    executor.learnt = learnt = LearntLimit()
    assert learnt.limit(executor.timeout) == executor.timeout  # nothing learnt before a run
    assert executor.run(["1"]).covered and executor.run(["0"]).covered
    assert learnt.limit(executor.timeout) == FLOOR  # the runs took well under FLOOR / SLOWER
    learnt.retried = 1e9  # no time left for second runs
    covered, seconds = timed(executor, "7")
    assert not covered and seconds < 2.0  # cut, not after the 3 s
    assert executor.run(["1"]).covered  # the limit still lets a normal run finish


def test_a_cut_run_gets_the_full_limit_while_second_runs_take_little_time(executor, patient,
                                                                          monkeypatch):
    monkeypatch.setattr(executor_module, "FLOOR", 0.02)  # below 8's spin on any machine
    executor.learnt = learnt = LearntLimit()
    assert executor.run(["1"]).covered
    cut = learnt.limit(executor.timeout)
    learnt.started = time.monotonic() - 1000  # 100 s of second runs allowed
    full, _ = timed(executor, "8")  # over the learnt limit, within the full one
    assert full - executor.run(["1"]).covered  # its own branch, covered by the second run
    assert learnt.retried > cut and learnt.limit(executor.timeout) > cut  # learnt from it
    learnt.retried = 1e9
    covered, seconds = timed(executor, "7")
    assert not covered and seconds < learnt.limit(executor.timeout) + 1.0


def test_a_second_run_ends_with_the_budget(executor, patient):
    executor.learnt = learnt = LearntLimit()
    assert executor.run(["1"]).covered
    learnt.started = time.monotonic() - 1000
    executor.budget = Budget(time.monotonic() + 1.5)
    covered, seconds = timed(executor, "7")  # cut at 0.5 s, then run again to the budget's end
    assert not covered and learnt.retried > 0.5 and seconds < 1.5 + 0.3


def test_a_run_the_budget_ends_is_no_ending_of_the_program(frontend, executor, patient):
    """The last run of a budget gets what is left of it (10 ms at least): on a loaded
    machine a crash that takes 2 ms was stopped there, and the report said "1 timed out"
    of a program every run of which crashes. How the program's runs end is counted
    without such runs; a run over the program's own limit still counts."""
    board = GoalBoard(frontend.program, executor)
    executor.budget = Budget(time.monotonic() + 0.3)
    ex = board.submit(["7"], "test")
    assert ex.timed_out and ex.stopped and not any(s.startswith(ENDED) for s in board.stats)
    assert "timeouts" not in board.stats
    executor.budget = Budget(time.monotonic() + 100)
    executor.learnt = learnt = LearntLimit()
    assert board.submit(["1"], "test").covered
    learnt.retried = 1e9  # no second runs: 7 is cut at the learnt limit, its own time-out
    ex = board.submit(["7"], "test")
    assert ex.timed_out and not ex.stopped and board.stats[ENDED + "timed out"] == 1
    assert board.stats["timeouts"] == 1


def test_a_replay_waits_the_full_limit(executor):
    assert executor.run(["1"]).covered
    covered, seconds = timed(executor, "7")
    assert not covered and seconds >= 2.9


def test_a_signal_waits_for_the_run_of_the_policys_executor_alone(executor):
    """A SIGTERM that comes during a native run of the executor whose policy is the
    run's ``SafePoints`` is raised once the run is over, not in the middle of it; a
    clone runs under the policy it is given, or none, never under its original's."""
    owner = SafePoints(Budget.seconds(60), Budget.seconds(60))
    guarded = executor.clone(owner)
    done = threading.Event()

    def signal_during_the_run() -> None:
        while not owner.in_run and not done.is_set():
            time.sleep(0.001)
        if owner.in_run:
            os.kill(os.getpid(), signal.SIGTERM)

    sender = threading.Thread(target=signal_during_the_run)
    with owner.installed():
        sender.start()
        try:
            with pytest.raises(Signalled):
                guarded.run(["7"])  # loops until the executor's 3-s limit
        finally:
            done.set()
            sender.join()
    assert owner.pending == signal.SIGTERM  # deferred by the handler, raised by the policy
    other = SafePoints(Budget.seconds(60), Budget.seconds(60))
    assert guarded.clone().run(["1"]).covered and guarded.clone(other).run(["1"]).covered
    other.pending = signal.SIGINT
    with pytest.raises(Signalled) as raised:
        guarded.clone(other).run(["1"])
    assert raised.value.exit_code == 128 + signal.SIGINT


def test_a_run_ends_by_the_policys_hard_deadline(executor):
    spent = executor.clone(SafePoints(Budget.seconds(60), Budget(0.0)))
    covered, seconds = timed(spent, "7")
    assert not covered and seconds < 2.0  # cut at 0.05 s, not after the 3 s
