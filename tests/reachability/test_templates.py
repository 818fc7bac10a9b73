"""Invariant templates in the predicate analysis: the proofs they make possible, and
Houdini's rule that drops a candidate an abstraction does not confirm."""
from __future__ import annotations

from cooptest.analyses.reachability import PredicateAnalysis
from cooptest.analyses.reachability.predicate import PredicatePrecision, loop_counters
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
    for inputs in (["0"], ["101"], ["100"] * 10):  # the body's goals, as testing covers them first
        program.submit(inputs, "seed")
    result = PredicateAnalysis().run(program, Job(program.open(), Budget.seconds(60)))
    assert program.infeasible.get(dead) == "predicate: complete ARG"
    trial = next(c for loc, c in result.state.precision.candidates.items() if loc.line == head)
    assert trial == {"(main::k <= main::i)": True}, "Houdini keeps only the invariant"


BALANCE = """extern unsigned int __VERIFIER_nondet_uint(void);
int main(void) {
  unsigned int n = __VERIFIER_nondet_uint();
  unsigned int x = n, y = 0, z;
  while (x > 0) { x--; y++; }
  z = y;
  while (z > 0) { x++; z--; }
  while (y > 0) { y--; z++; }
  if (z != n) { return 1; }  /* infeasible */
  return 0;
}
"""


def test_balanced_counters_carry_a_value_through_three_loops(program_of):
    """in-de31's shape: ``x + y == n``, ``x + z == n``, ``y + z == n`` at the three
    heads. ``y`` is no loop counter to keep exactly, though it is tested against 0 at a
    loop head and only ever stepped by one: the first loop steps it as often as ``x``
    says, so exact values would unroll that loop forever."""
    program = program_of(BALANCE)
    assert "((main::x + main::y) == main::n)" in _texts(program, line_of(BALANCE, "while (x > 0)"))
    dead = goal_at(program, line_of(BALANCE, "infeasible"), True)
    program.submit(["1"], "seed")
    result = PredicateAnalysis().run(program, Job(program.open(), Budget.seconds(60)))
    assert program.infeasible.get(dead) == "predicate: complete ARG"
    assert not {v.source_name for v in result.state.precision.explicit} & {"y", "z"}
    assert not loop_counters(program.program), "y and z step in loops x and z count"


AFFINE = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int i, n, a, b;
  i = 0; a = 0; b = 0; n = __VERIFIER_nondet_int();
  if (!(n >= 0 && n <= 1000000)) return 0;
  while (i < n) {
    if (__VERIFIER_nondet_int()) { a = a + 1; b = b + 2; }
    else { a = a + 2; b = b + 1; }
    i = i + 1;
  }
  if (a + b != 3 * n) { return 1; }  /* infeasible */
  return 0;
}
"""


def test_an_affine_relation_of_the_body_paths_proves_a_sum(program_of):
    """bhmr2007 (Path Invariants, PLDI 2007): each path through the body adds 3 to
    ``a + b`` and 1 to ``i``; neither pair is balanced, the three together are."""
    program = program_of(AFFINE)
    assert "((main::a + main::b) == (3 * main::i))" in _texts(program, line_of(AFFINE, "while"))
    dead = goal_at(program, line_of(AFFINE, "infeasible"), True)
    for inputs in (["-1"], ["0"], ["2", "1", "0"]):  # the body's goals, as testing covers them first
        program.submit(inputs, "seed")
    PredicateAnalysis().run(program, Job(program.open(), Budget.seconds(60)))
    assert program.infeasible.get(dead) == "predicate: complete ARG"


HALVES = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int(), i, k;
  k = n;
  i = 0;
  while (i < n) { k--; i = i + 2; }
  if (i + 2 * k != 2 * n) { return 1; }  /* infeasible */
  return 0;
}
"""


def test_an_affine_relation_starts_from_a_variable_the_loop_leaves_alone(program_of):
    """half_2's first loop: ``k`` starts at ``n``, which the loop does not write."""
    program = program_of(HALVES)
    assert "((main::i + (2 * main::k)) == (2 * main::n))" in _texts(program, line_of(HALVES, "while"))
    dead = goal_at(program, line_of(HALVES, "infeasible"), True)
    for inputs in (["0"], ["3"]):
        program.submit(inputs, "seed")
    PredicateAnalysis().run(program, Job(program.open(), Budget.seconds(60)))
    assert program.infeasible.get(dead) == "predicate: complete ARG"
