"""``--unconstrained``: what a negation gives the inputs of the path that no constraint up
to the negated decision reads. ``keep`` (CREST's ``SolveAtBranch``) leaves them the
parent run's; ``fresh`` (the CGS author's ``SolveAtBranchNew``) draws them anew, and
leaves every input a decision before the negated one reads as it was."""
from __future__ import annotations

import pytest

from cooptest.analyses.concolic import ConcolicAnalysis
from cooptest.core.analysis import Job
from cooptest.core.budget import Budget

# b is read before either decision; (a == 1000) reads a alone, (b > 1000) reads b after
# a decision on a.
TWO = r"""
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int a = __VERIFIER_nondet_int();
  int b = __VERIFIER_nondet_int();
  if (a == 1000) return 1;
  if (b > 1000) return 2;
  return 0;
}
"""


def covering_inputs(make_program, unconstrained: str, seed: int) -> dict[str, list[int]]:
    """The inputs of the test that covered each goal, after four iterations: the run
    without inputs (it starves), the run of random first inputs, and each decision of
    that path negated once."""
    board = make_program(TWO, name=f"{unconstrained}-{seed}.c")
    analysis = ConcolicAnalysis(search="dfs", fresh_inputs="random", unconstrained=unconstrained,
                                rng_seed=seed, max_iterations=4)
    analysis.run(board, Job(frozenset(board.goals), Budget.seconds(60.0)))
    inputs = {t.name: [int(v) for v in t.inputs] for t in board.tests}
    return {goal: inputs[test] for goal, test in board.covered.items() if test in inputs}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_keep_gives_a_negation_the_parent_runs_unread_inputs(make_program, seed: int) -> None:
    by_goal = covering_inputs(make_program, "keep", seed)
    first, a_negated = by_goal["B1F"], by_goal["B1T"]
    assert a_negated[0] == 1000 and a_negated[1] == first[1]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fresh_draws_the_unread_inputs_anew_and_keeps_the_read_ones(make_program, seed: int) -> None:
    by_goal = covering_inputs(make_program, "fresh", seed)
    first, a_negated, b_negated = by_goal["B1F"], by_goal["B1T"], by_goal["B2T"]
    assert a_negated[0] == 1000 and a_negated[1] != first[1]  # b: no constraint read it
    assert 0 <= a_negated[1] <= 127  # a fresh input, as padding draws them
    assert b_negated[0] == first[0] and b_negated[1] > 1000  # a: the decision before read it
