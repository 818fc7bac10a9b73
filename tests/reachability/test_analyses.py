"""The reachability analyses on small programs: proofs, natively confirmed tests,
refinement, soundness with memory, resumption, and multi-goal partitioning."""
from __future__ import annotations

import pytest

from cooptest.analyses.interface import Budget, ProgramUnderTest
from cooptest.analyses.reachability import ANALYSES, MultiGoalAnalysis, PredicateAnalysis, ValueAnalysis
from cooptest.analyses.reachability.mgp import reduce_suite

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
    result = PredicateAnalysis().run(program, program.open_goals(), Budget.seconds(60))
    dead = goal_at(program, line_of(LOOP, "infeasible"), True)
    assert result.infeasible == {dead: "predicate: complete ARG"}
    assert program.infeasible == result.infeasible
    assert set(program.covered) == set(program.goals) - {dead}
    assert result.arg.complete and result.arg.refinements > 0  # the proof needed predicates


def test_predicate_keeps_loop_counters_exact_instead_of_refining_per_iteration(program_of):
    """The unreach example of the abstraction-driven concolic testing paper: the loops
    run a constant number of times (their exits need 30 and 5 iterations) while ``r < 0``
    is refuted by predicates about the input-dependent ``c`` and ``r``."""
    program = program_of(COUNTED)
    result = PredicateAnalysis().run(program, program.open_goals(), Budget.seconds(120))
    dead = goal_at(program, line_of(COUNTED, "infeasible"), True)
    assert result.infeasible == {dead: "predicate: complete ARG"}
    assert set(program.covered) == set(program.goals) - {dead}
    assert result.arg.refinements <= 10
    assert {v.source_name for v in result.arg.precision.explicit} <= {"i", "j"}


def test_value_refines_to_prove_and_covers_with_native_test(program_of):
    program = program_of(CONSTANTS)
    result = ValueAnalysis().run(program, program.open_goals(), Budget.seconds(30))
    dead = goal_at(program, line_of(CONSTANTS, "infeasible"), True)
    hit = goal_at(program, line_of(CONSTANTS, "k == 42"), True)
    assert set(result.infeasible) == {dead}
    assert result.arg.refinements >= 1
    assert {v.name for v in result.arg.precision.tracked} >= {"main::x", "main::y"}
    replay = program.executor.run([t for t in result.tests if hit in program.executor.run(t.inputs).covered][0].inputs)
    assert hit in replay.covered and replay.inputs == ["42"]


@pytest.mark.parametrize("name", ["value", "predicate"])
def test_writes_through_pointers_are_never_claimed_infeasible(program_of, name):
    program = program_of(MEMORY)
    result = ANALYSES[name]().run(program, program.open_goals(), Budget.seconds(40))
    through_p = goal_at(program, line_of(MEMORY, "only through p"), True)
    through_q = goal_at(program, line_of(MEMORY, "only through q"), True)
    assert through_p not in result.infeasible and through_q not in result.infeasible
    for test in program.tests:  # every claim survives every native replay
        assert not program.executor.run(test.inputs).covered & set(program.infeasible)
    assert through_q in program.covered or name == "value"


def test_resumed_arg_continues_the_exploration(program_of):
    program = program_of(LOOP)
    analysis = PredicateAnalysis()
    first_goal = goal_at(program, line_of(LOOP, "while"), True)
    first = analysis.run(program, {first_goal}, Budget.seconds(30))
    assert first_goal in program.covered and not first.arg.complete
    root, size = first.arg.root, first.arg.size()
    second = analysis.run(program, program.open_goals(), Budget.seconds(60), arg=first.arg)
    assert second.arg is first.arg and second.arg.root is root and second.arg.size() > size
    assert second.arg.complete
    assert set(program.covered) | set(program.infeasible) == set(program.goals)


def test_precision_restarts_with_it(program_of):
    program = program_of(CONSTANTS)
    first = ValueAnalysis().run(program, program.open_goals(), Budget.seconds(30))
    again = ProgramUnderTest(program.program, program.executor)  # same CFA, nothing decided
    second = ValueAnalysis().run(again, again.open_goals(), Budget.seconds(30),
                                 precision=first.arg.precision)
    assert second.arg is not first.arg and second.arg.refinements == 0
    assert second.infeasible.keys() == first.infeasible.keys()


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


def test_reduction_drops_tests_whose_first_goals_others_cover(program_of):
    program = program_of(REDUNDANT)
    records = []
    for inputs in (["1"], ["11"], ["0"], ["5"]):
        ex = program.submit(inputs, origin="test")
        if ex.new:
            records.append((program.tests[-1], set(ex.new), set(ex.covered)))
    kept = reduce_suite(records)
    assert [t.inputs for t in kept] == [["1"], ["11"], ["0"]]
    covered = set().union(*(program.executor.run(t.inputs).covered for t in kept))
    assert covered == set(program.covered)


def test_mgp_covers_proves_and_returns_a_reduced_suite(program_of):
    program = program_of(LOOP)
    result = MultiGoalAnalysis(partitions=3).run(program, program.open_goals(), Budget.seconds(90))
    dead = goal_at(program, line_of(LOOP, "infeasible"), True)
    assert dead in result.infeasible and result.infeasible[dead].startswith("mgp/predicate")
    assert set(program.covered) == set(program.goals) - {dead}
    covered = set().union(*(program.executor.run(t.inputs).covered for t in result.tests))
    assert covered == set(program.covered) and len(result.tests) <= len(program.tests)
