"""The executor's time limit: learnt from the runs that finished while generating, the
full one on replay."""
from __future__ import annotations

import time

import pytest

from cooptest.frontend import load_program
from cooptest.harness.executor import FLOOR, Executor
from cooptest.task import load_task

LOOPS_ON_7 = """extern int __VERIFIER_nondet_int(void);
int main() { int x = __VERIFIER_nondet_int(); if (x == 7) for (;;) ; return x > 0; }
"""


@pytest.fixture
def executor(tmp_path) -> Executor:
    path = tmp_path / "loops.c"
    path.write_text(LOOPS_ON_7)
    return Executor(load_program(load_task(str(path)), str(tmp_path / "fe")), str(tmp_path / "work"))


def timed_loop(executor: Executor) -> float:
    started = time.monotonic()
    ex = executor.run(["7"])
    assert ex.timed_out and not ex.covered  # a run cut short covers nothing
    return time.monotonic() - started


def test_a_generating_run_cuts_a_loop_at_the_learnt_limit(executor):
    executor.learnt_limit = True
    assert executor.limit() == executor.timeout  # nothing learnt before a run has finished
    assert executor.run(["1"]).covered and executor.run(["0"]).covered
    assert executor.limit() == FLOOR  # the runs took milliseconds
    assert timed_loop(executor) < 2.0  # not the 3 s
    assert executor.run(["1"]).covered  # the limit still lets a normal run finish


def test_a_replay_waits_the_full_limit(executor):
    assert executor.run(["1"]).covered
    assert executor.limit() == executor.timeout == 3.0
    assert timed_loop(executor) >= 2.9
