"""Resumable CEGAR: an analysis run in short slices, its state passed back each time,
reaches exactly the verdicts of one long run (a verdict caused by a deadline is never
final). The slices are far shorter than one exploration, so every kind of interruption
happens: inside exploration, inside a predicate abstraction, inside a path check."""
from __future__ import annotations

import time

import pytest

from cooptest.analyses.reachability import MultiGoalAnalysis, PredicateAnalysis, ValueAnalysis
from cooptest.core.analysis import Job
from cooptest.core.board import GoalBoard
from cooptest.core.budget import Budget

PROGRAM = """extern int __VERIFIER_nondet_int(void);
int twice(int v) { return v + v; }
int main(void) {
  int n = __VERIFIER_nondet_int();
  int k = __VERIFIER_nondet_int();
  int i = 0;
  while (i < n) {
    if (i < 0) return 2;            /* infeasible */
    i++;
  }
  int d = twice(k);
  if (d == 14 && n > 1) return 3;
  if (k == 3 && d != 6) return 4;   /* infeasible */
  return 0;
}
"""

BOUNDED = """extern int __VERIFIER_nondet_int(void);
int twice(int v) { return v + v; }
int main(void) {
  int k = __VERIFIER_nondet_int();
  int s = 0;
  for (int i = 0; i < 40; i++) {
    if (i > 50) return 2;            /* infeasible */
    s = s + 1;
  }
  int d = twice(k);
  if (d == 14) return 3;
  if (s != 40) return 4;            /* infeasible */
  return 0;
}
"""

SHORT = 0.05  # seconds: a slice still far shorter than one exploration. A slice must
# outlast the analysis' own start (MGP's: some 5 ms here, alone; with 2- and 5-ms slices
# it never gets further): 20-ms slices did, alone, but not in the whole suite's
# 36-minute process on a machine half as fast as the one they were chosen on.

ANALYSES = {"predicate": (PredicateAnalysis, PROGRAM), "value": (ValueAnalysis, BOUNDED),
            "mgp": (lambda: MultiGoalAnalysis(partitions=2), PROGRAM)}


class LaggingClock(Budget):
    """A budget whose clock shows the deadline ``LAG`` seconds after z3's timer has
    fired at it (z3 stops up to a millisecond early; here, far more)."""

    LAG = 0.5

    def expired(self) -> bool:
        return time.monotonic() - self.LAG >= self.deadline


def verdicts(board: GoalBoard) -> tuple[frozenset[str], frozenset[str]]:
    return frozenset(board.covered), frozenset(board.infeasible)


@pytest.mark.parametrize("name", sorted(ANALYSES))
@pytest.mark.parametrize("slice_seconds", [0.2, SHORT])
def test_slices_reach_the_verdicts_of_one_run(program_of, name, slice_seconds):
    make, source = ANALYSES[name]
    whole = program_of(source)
    started = time.monotonic()
    once = make().run(whole, Job(whole.open(), Budget.seconds(120)))
    took = time.monotonic() - started
    assert once.stopped in ("done", "exhausted")

    sliced = GoalBoard(whole.program, whole.executor)
    analysis = make()
    state, runs, stopped = None, 0, "budget"
    while stopped == "budget":
        runs += 1
        assert runs < 20000, "the slices make no progress"
        outcome = analysis.run(sliced, Job(sliced.open(), Budget.seconds(slice_seconds), state=state))
        state, stopped = outcome.state, outcome.stopped
    assert runs > 1 or took < 2 * slice_seconds  # the slices did cut the work
    assert stopped == once.stopped
    assert verdicts(sliced) == verdicts(whole)
    assert whole.infeasible  # the program has goals to prove


@pytest.mark.parametrize("name", sorted(ANALYSES))
def test_a_check_the_deadline_cut_is_a_budget_stop_before_the_clock_shows_it(program_of, name):
    """Without it, a run whose z3 timer fired before the deadline showed on the clock
    ended ``exhausted``: the caller took the goals it had not decided as given up."""
    make, source = ANALYSES[name]
    whole = program_of(source)
    once = make().run(whole, Job(whole.open(), Budget.seconds(120)))

    sliced = GoalBoard(whole.program, whole.executor)
    analysis = make()
    state, runs, stopped = None, 0, "budget"
    while stopped == "budget":
        runs += 1
        assert runs < 20000, "the slices make no progress"
        deadline = time.monotonic() + SHORT
        outcome = analysis.run(sliced, Job(sliced.open(), LaggingClock(deadline), state=state))
        state, stopped = outcome.state, outcome.stopped
    assert stopped == once.stopped
    assert verdicts(sliced) == verdicts(whole)
