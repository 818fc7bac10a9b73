"""Crabs: concolic testing and predicate CEGAR alternate; the needle concolic search
cannot find alone falls to the cooperation, the dead branch to the ARG's proof."""
from __future__ import annotations

import pytest

from cooptest.core.analysis import Job
from cooptest.core.budget import Budget
from cooptest.core.registry import Settings, make_analysis

# 4 inputs must all be 10 to call foo() (loop_foo of the Crabs paper, shortened);
# x < 3 inside x > 5 is dead.
NEEDLE = """extern int __VERIFIER_nondet_int(void);
int hits;
void foo(void) { hits++; }
int main(void) {
  int n = 0;
  for (int i = 0; i < 4; i++) { if (__VERIFIER_nondet_int() == 10) n++; }
  if (n == 4) foo();
  int x = __VERIFIER_nondet_int();
  if (x > 5) { if (x < 3) return 1; }
  return 0;
}
"""


@pytest.mark.parametrize("search", ["crest-cfg", "cfg", "dfs", "random-branch", "cgs"])
def test_crabs_decides_every_goal(program_of, search: str) -> None:
    board = program_of(NEEDLE)
    crabs = make_analysis("crabs", Settings(search=search))
    outcome = crabs.run(board, Job(board.open(), Budget.seconds(60)))
    assert not board.open() and len(board.infeasible) == 1, search
    assert outcome.stopped == "done" and "(round " in next(iter(board.origin.values()))
    for test in board.tests:  # the proof survives every native replay
        assert not board.executor.run(test.inputs).covered & set(board.infeasible)


@pytest.mark.parametrize("share", [0.0, 1.0])
def test_a_testing_share_of_zero_or_one_runs_one_analysis_alone(program_of, share: float) -> None:
    board = program_of(NEEDLE)
    crabs = make_analysis("crabs", Settings(extra={"testing_share": share}))
    crabs.run(board, Job(board.open(), Budget.seconds(5)))
    assert {o.split(" ")[0] for o in board.origin.values()} == {"predicate" if share == 0 else "concolic"}
