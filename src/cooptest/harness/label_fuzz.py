"""Mutants of the suite's tests, run on TestCov's build while the live meter is idle.

The board covers a goal when its own native build takes the branch; TestCov's build
(the harness, labels and gcov of ``harness.coverage``) runs the same inputs, and on a
program that reads indeterminate memory the two can part: ``int a[N+1]`` read before
any write holds other garbage under the two harnesses, so a test the board credits
with a loop body fails an ``assume`` on ``a[i]`` under TestCov's (array_min_and_copy_
shift_sum_add: 66.67-75% where concolic search alone, with other tests, has 91.67%). No
analysis can aim at such a goal: the board has it covered. The meter can, since it
runs TestCov's build: each kept test, one of its first inputs made small (0, 1, or
halved: a shorter array, fewer iterations, reads less of what nobody wrote), is a
mutant; a mutant covering a TestCov goal no test covers there is *found*, and the run
keeps it (``GoalBoard.keep``), after its native run like any test.

The meter's core is the spare one only when there is one: mutants get at most
``SHARE`` of the meter's time, and none are made once a test's mutants are spent.
"""
from __future__ import annotations

import time
from typing import Callable, Iterator

SHARE = 0.15  # of the meter's wall time, at most, on mutants
BURST = 0.5  # seconds of mutants that may run back to back after a long wait
MUTATED = 8  # the first inputs of a test that its mutants change


def mutants(inputs: list[str]) -> Iterator[list[str]]:
    """``inputs`` with one of its first ``MUTATED`` values made small."""
    for i, value in enumerate(inputs[:MUTATED]):
        for small in _smaller(value):
            yield inputs[:i] + [small] + inputs[i + 1:]


def _smaller(value: str) -> list[str]:
    try:
        n = int(value, 0)
    except ValueError:
        return ["0"] if value not in ("0", "0.0") else []  # a float: only its zero
    return [str(v) for v in dict.fromkeys((0, 1, n // 2)) if abs(v) < abs(n)]


class LabelFuzzer:
    """The meter's mutants: tests arrive with ``add``; ``wait`` says when the next
    mutant may run, ``step`` runs it on ``covered_by`` (TestCov's build) and keeps it
    in ``found`` if it covers a goal beyond ``hit`` (the tests' goals there)."""

    def __init__(self) -> None:
        self.tests: list[list[str]] = []
        self.next_test = 0
        self.current: Iterator[list[str]] = iter(())
        self.pending: list[str] | None = None  # the next mutant, drawn by ``wait``
        self.tried: set[tuple[str, ...]] = set()
        self.found: list[list[str]] = []
        self.found_goals: set[int] = set()
        # what each mutant found covers here: the run keeps it and sends it back as a
        # test, measured at the end of the run where every tenth of a second counts
        self.covers: dict[tuple[str, ...], set[int]] = {}
        self.runs = 0  # mutants run
        # A token bucket: mutants earn ``SHARE`` of every second and spend what they
        # take; the credit is capped at ``BURST``, so a long stretch of measuring tests
        # does not save up for seconds of mutants while new tests wait.
        self.credit = 0.0
        self.credited_at = time.monotonic()

    def add(self, inputs: list[str]) -> None:
        self.tried.add(tuple(inputs))
        self.tests.append(inputs)

    def wait(self) -> float | None:
        """Seconds until a mutant may run (within ``SHARE``); None if there is none."""
        while self.pending is None:
            mutant = next(self.current, None)
            if mutant is None:
                if self.next_test >= len(self.tests):
                    return None
                self.current = mutants(self.tests[self.next_test])
                self.next_test += 1
            elif tuple(mutant) not in self.tried:
                self.tried.add(tuple(mutant))
                self.pending = mutant
        now = time.monotonic()
        self.credit = min(BURST, self.credit + SHARE * (now - self.credited_at))
        self.credited_at = now
        return max(0.0, -self.credit / SHARE)

    def step(self, covered_by: Callable[[list[str]], set[int]], hit: set[int]) -> None:
        """Run the mutant ``wait`` drew."""
        mutant, self.pending = self.pending, None
        if mutant is None:
            return
        began = time.monotonic()
        goals = covered_by(mutant)
        self.credit -= time.monotonic() - began
        self.runs += 1
        if goals - hit - self.found_goals:
            self.found.append(mutant)
            self.found_goals |= goals
            self.covers[tuple(mutant)] = goals
