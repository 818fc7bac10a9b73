"""The reachability analyses on small programs: proofs, natively confirmed tests,
refinement, soundness with memory, resumption, and multi-goal partitioning."""
from __future__ import annotations

import pytest

from cooptest.analyses.reachability import MultiGoalAnalysis, PredicateAnalysis, ValueAnalysis
from cooptest.core.analysis import Job
from cooptest.core.board import GoalBoard
from cooptest.core.budget import Budget
from cooptest.core.reduction import reduce_suite

from reach_helpers import goal_at, line_of

LOOP = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  int i = 0;
  while (i < n) {
    if (i < 0) return 2;  /* infeasible */
    i++;
  }
  if (n > 3) return 1;  /* needs four iterations */
  return 0;
}
"""

CONSTANTS = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = 3;
  int y = x + 4;
  if (y != 7) return 1;  /* infeasible once x and y are tracked */
  int k = __VERIFIER_nondet_int();
  if (k == 42) return 2;
  return 0;
}
"""

COUNTED = """extern int __VERIFIER_nondet_int(void);
int count(void) {
  int c = 0;
  for (int j = 0; j < 30; j++)
    if (__VERIFIER_nondet_int() == c) c++;
  return c;
}
int main(void) {
  int r = 0;
  for (int i = 5; i > 0; i--) {
    int t = count();
    if (t > r) r = t;
  }
  if (r < 0) return 1;  /* infeasible: c counts up from 0, at most 30 times */
  return 0;
}
"""

MEMORY = """extern int __VERIFIER_nondet_int(void);
int a[4];
int main(void) {
  int v = 0;
  int *q = &v;
  int *p = a;
  int n = __VERIFIER_nondet_int();
  for (int i = 0; i < n && i < 3; i++) p++;
  *p = 5;
  if (n == 9) *q = 7;
  if (a[2] == 5) return 1;  /* reachable only through p */
  if (v == 7) return 2;     /* reachable only through q */
  return 0;
}
"""


def test_predicate_proves_loop_branch_infeasible_and_covers_the_rest(program_of):
    program = program_of(LOOP)
    result = PredicateAnalysis().run(program, Job(program.open(), Budget.seconds(60)))
    dead = goal_at(program, line_of(LOOP, "infeasible"), True)
    assert program.infeasible.keys() == {dead}
    assert set(program.covered) == set(program.goals) - {dead}
    assert result.state.complete and result.state.refinements > 0  # the proof needed predicates
    # the proof is its evidence: the ARG's size and the predicates it was computed with
    proof = program.infeasible[dead]
    assert proof.startswith(f"predicate: complete ARG of {result.state.size()} states, predicates ")
    assert "main::i" in proof, proof


def test_predicate_keeps_loop_counters_exact_instead_of_refining_per_iteration(program_of):
    """The unreach example of the abstraction-driven concolic testing paper: the loops
    run a constant number of times (their exits need 30 and 5 iterations) while ``r < 0``
    is refuted by predicates about the input-dependent ``c`` and ``r``."""
    program = program_of(COUNTED)
    result = PredicateAnalysis().run(program, Job(program.open(), Budget.seconds(120)))
    dead = goal_at(program, line_of(COUNTED, "infeasible"), True)
    assert program.infeasible.keys() == {dead}
    assert program.infeasible[dead].startswith("predicate: complete ARG of ")
    assert set(program.covered) == set(program.goals) - {dead}
    assert result.state.refinements <= 10
    assert {v.source_name for v in result.state.precision.explicit} <= {"i", "j"}


def test_value_refines_to_prove_and_covers_with_native_test(program_of):
    program = program_of(CONSTANTS)
    result = ValueAnalysis().run(program, Job(program.open(), Budget.seconds(30)))
    dead = goal_at(program, line_of(CONSTANTS, "infeasible"), True)
    hit = goal_at(program, line_of(CONSTANTS, "k == 42"), True)
    assert set(program.infeasible) == {dead}
    assert result.state.refinements >= 1
    assert {v.name for v in result.state.precision.tracked} >= {"main::x", "main::y"}
    replay = program.executor.run([t for t in program.tests if hit in program.executor.run(t.inputs).covered][0].inputs)
    assert hit in replay.covered and replay.inputs == ["42"]


@pytest.mark.parametrize("name", ["value", "predicate"])
def test_writes_through_pointers_are_never_claimed_infeasible(program_of, name):
    program = program_of(MEMORY)
    {"value": ValueAnalysis, "predicate": PredicateAnalysis}[name]().run(program, Job(program.open(), Budget.seconds(40)))
    through_p = goal_at(program, line_of(MEMORY, "only through p"), True)
    through_q = goal_at(program, line_of(MEMORY, "only through q"), True)
    assert through_p not in program.infeasible and through_q not in program.infeasible
    for test in program.tests:  # every claim survives every native replay
        assert not program.executor.run(test.inputs).covered & set(program.infeasible)
    assert through_q in program.covered or name == "value"


def test_resumed_arg_continues_the_exploration(program_of):
    program = program_of(LOOP)
    analysis = PredicateAnalysis()
    first_goal = goal_at(program, line_of(LOOP, "while"), True)
    first = analysis.run(program, Job(frozenset({first_goal}), Budget.seconds(30)))
    assert first_goal in program.covered and not first.state.complete
    root, size = first.state.root, first.state.size()
    second = analysis.run(program, Job(program.open(), Budget.seconds(60), state=first.state))
    assert second.state is first.state and second.state.root is root and second.state.size() > size
    assert second.state.complete and second.stopped == "done"
    assert set(program.covered) | set(program.infeasible) == set(program.goals)


def test_precision_restarts_with_it(program_of):
    program = program_of(CONSTANTS)
    first = ValueAnalysis().run(program, Job(program.open(), Budget.seconds(30)))
    again = GoalBoard(program.program, program.executor)  # same CFA, nothing decided
    second = ValueAnalysis().run(again, Job(again.open(), Budget.seconds(30),
                                            precision=first.state.precision))
    assert second.state is not first.state and second.state.refinements == 0
    assert again.infeasible.keys() == program.infeasible.keys()


REDUNDANT = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 0) {
    if (x > 10) return 2;
    return 1;
  }
  return 0;
}
"""


def test_reduction_keeps_a_smallest_covering_suite(program_of):
    program = program_of(REDUNDANT)
    for inputs in (["1"], ["11"], ["0"], ["5"]):
        program.submit(inputs, origin="test")
    kept = reduce_suite(program)
    assert [r.test.inputs for r in kept] == [["1"], ["11"], ["0"]]
    covered = set().union(*(program.executor.run(t.inputs).covered for t in program.tests))
    assert covered == set(program.covered)
    assert {program.covered[g] for g in program.covered} <= {t.name for t in program.tests}


SUBSUMED = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int r = 0;
  if (x > 0) r = 1;
  if (x > 5) { if (x > 8) r = 3; }
  return r;
}
"""


def test_reduction_keeps_a_test_for_the_further_goals_it_alone_covers(program_of):
    """``1`` covers nothing ``0`` and ``9`` do not: dropped, unless the rescuer (the
    live meter: it adds a TestCov goal of the labelled build) keeps it."""
    asked = []

    def rescue(kept: list[str], dropped: list[str]) -> list[str]:
        asked.append((kept, dropped))
        return dropped

    for rescuer, expected in ((None, [["0"], ["9"]]), (rescue, [["0"], ["1"], ["9"]])):
        program = program_of(SUBSUMED)
        for inputs in (["0"], ["1"], ["9"]):
            program.submit(inputs, origin="test")
        assert [t.name for t in program.tests] == ["test0", "test1", "test2"]
        assert [r.test.inputs for r in reduce_suite(program, rescuer)] == expected
    assert asked == [(["test2", "test0"], ["test1"])]


def test_mgp_covers_proves_and_returns_a_reduced_suite(program_of):
    program = program_of(LOOP)
    result = MultiGoalAnalysis(partitions=3).run(program, Job(program.open(), Budget.seconds(90)))
    dead = goal_at(program, line_of(LOOP, "infeasible"), True)
    assert dead in program.infeasible and program.infeasible[dead].startswith("mgp/predicate")
    assert program.origin[dead] == "mgp/predicate" and result.stopped == "done"
    assert set(program.covered) == set(program.goals) - {dead}


NAN_ARGUMENT = """extern double __VERIFIER_nondet_double(void);
typedef union { double value; struct { unsigned int lsw; unsigned int msw; } parts; } shape;
int pow_like(double x, double y) {
  shape u, v;
  do { u.value = x; } while (0);
  do { v.value = y; } while (0);
  unsigned int hx = u.parts.msw, lx = u.parts.lsw;
  int iy = v.parts.msw & 0x7fffffff;
  if ((iy | v.parts.lsw) == 0) return 0;  /* dead: y is not zero */
  int ix = hx & 0x7fffffff;
  if (ix > 0x7ff00000 || (ix == 0x7ff00000 && lx != 0))
    return 1;                 /* x is NaN */
  if (y > 2.0) return 2;      /* dead: x is always NaN */
  return 3;
}
int main(void) {
  double x = 0.0 / 0.0;
  double y = __VERIFIER_nondet_double();
  if (y > 1.0) return pow_like(x, y);
  return 0;
}
"""


def test_a_constant_argument_is_known_in_the_callee(program_of):
    """newlib's ``pow(NAN, y)``: the callee's block starts with the caller's constant
    (its entry is a block end, where untracked values are forgotten), and ``do ...
    while (0)`` is no loop head that would forget it again; everything after the NaN
    test is dead, which the union's bit view of the constant shows."""
    program = program_of(NAN_ARGUMENT)
    result = PredicateAnalysis().run(program, Job(program.open(), Budget.seconds(30)))
    dead = {goal_at(program, line_of(NAN_ARGUMENT, "x is always NaN"), outcome)
            for outcome in (True, False)}
    assert result.state.complete
    assert dead <= set(program.infeasible)
    assert goal_at(program, line_of(NAN_ARGUMENT, "x is NaN") - 1, True) in program.covered


def test_a_union_member_reads_the_bits_of_what_another_stored(program_of):
    """newlib's ``EXTRACT_WORDS``: the words of a double are read through a union. The
    weakest precondition of ``(iy | ly) == 0`` over the store ``v.value = y`` is a
    predicate on the bits of ``y``, which the caller's ``y > 1.0`` refutes."""
    program = program_of(NAN_ARGUMENT)
    PredicateAnalysis().run(program, Job(program.open(), Budget.seconds(30)))
    assert goal_at(program, line_of(NAN_ARGUMENT, "y is not zero"), True) in program.infeasible
