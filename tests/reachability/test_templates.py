"""Invariant templates in the predicate analysis: the proofs they make possible, and
Houdini's rule that drops a candidate an abstraction does not confirm."""
from __future__ import annotations

from cooptest.analyses.reachability import PredicateAnalysis
from cooptest.analyses.reachability.predicate import PredicatePrecision
from cooptest.analyses.reachability.templates import templates
from cooptest.core.analysis import Job
from cooptest.core.budget import Budget

from reach_helpers import goal_at, line_of

PARITY = """extern int __VERIFIER_nondet_int(void);
void check(int c) { if (!c) { return; } }  /* !c: dead as well */
int main(void) {
  int y = 1;
  int n = __VERIFIER_nondet_int();
  while (n > 0) {
    y = y + 2 * __VERIFIER_nondet_int();
    check(y);
    n--;
  }
  if (y == 0) { return 1; }  /* infeasible: y stays odd */
  return 0;
}
"""

ORDER = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int i = 0, k = 0;
  while (i < 1000) {
    int j = __VERIFIER_nondet_int();
    if (j < 1 || j > 100) return 0;
    i = i + j;
    k++;
  }
  if (k > 1000) { return 1; }  /* infeasible: k <= i, and i < 1000 before the last step */
  return 0;
}
"""


def _texts(program, line: int) -> set[str]:
    return {key for loop, preds in templates(program.program) if loop.head.line == line
            for key in preds}


def test_a_parity_invariant_proves_what_refinement_along_paths_cannot(program_of):
    program = program_of(PARITY)
    assert "((main::y & 1) == 0)" in _texts(program, line_of(PARITY, "while"))
    dead = goal_at(program, line_of(PARITY, "infeasible"), True)
    result = PredicateAnalysis().run(program, Job(program.open(), Budget.seconds(60)))
    assert program.infeasible.get(dead) == "predicate: complete ARG"
    assert result.state.complete
    assert set(program.covered) | set(program.infeasible) == set(program.goals)

    without = program_of(PARITY)  # the same analysis without templates gives the goal up
    PredicateAnalysis().run(without, Job(without.open(), Budget.seconds(20),
                                         precision=PredicatePrecision()))
    assert dead not in without.infeasible


def test_an_order_between_counters_proves_a_bound(program_of):
    program = program_of(ORDER)
    head = line_of(ORDER, "while")
    assert "(main::k <= main::i)" in _texts(program, head)
    dead = goal_at(program, line_of(ORDER, "infeasible"), True)
    result = PredicateAnalysis().run(program, Job(program.open(), Budget.seconds(60)))
    assert program.infeasible.get(dead) == "predicate: complete ARG"
    trial = next(c for loc, c in result.state.precision.candidates.items() if loc.line == head)
    assert trial == {"(main::k <= main::i)": True}, "Houdini keeps only the invariant"
