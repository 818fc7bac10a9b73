"""Adversarial soundness: branches that are feasible natively in ways a model can get
wrong must never be claimed infeasible. Each program has a goal reached by a known
input; the analyses run to a complete ARG and the native replay of that input decides."""
from __future__ import annotations

import pytest

from cooptest.core.analysis import Job
from cooptest.core.budget import Budget
from cooptest.analyses.reachability import PredicateAnalysis, ValueAnalysis

from reach_helpers import goal_at, line_of

UNPROTOTYPED = """extern int __VERIFIER_nondet_int(void);
int f();
int main(void) {
  int x = __VERIFIER_nondet_int();
  int r = f(4294967596L);  /* no prototype: f reads the low 32 bits, 300 */
  if (r == 300) {
    if (x == 5) return 1;  /* the goal */
  }
  return 0;
}
int f(int c) { return c; }
"""


LAYOUT = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int a = 0, b = 0, arr[2];
  if (&a > &b || &arr[2] == &b || ((unsigned long)&b & 15) != 0) {  /* the layout */
    if (x == 5) return 1;  /* the goal */
  }
  return 0;
}
"""


@pytest.mark.parametrize("analysis", [ValueAnalysis, PredicateAnalysis])
def test_the_native_layout_of_objects_is_unknown(program_of, analysis):
    program = program_of(LAYOUT)
    goal = goal_at(program, line_of(LAYOUT, "the goal"), True)
    layout = goal_at(program, line_of(LAYOUT, "the layout"), True)
    if layout not in program.executor.run(["5"]).covered:
        pytest.skip("gcc placed a, b and arr in the model's order")
    assert_not_claimed_infeasible(program, goal, analysis)

KNR = """extern int __VERIFIER_nondet_int(void);
int f(c, d) char c; float d; { return c + (int)(d * 2); }
int main(void) {
  int x = __VERIFIER_nondet_int();
  int r = f(300, 2.75);  /* passed as int and double, read as char 44 and float */
  if (r == 49) {
    if (x == 5) return 1;  /* the goal */
  }
  return 0;
}
"""



def assert_not_claimed_infeasible(program, goal: str, analysis) -> None:
    """The input 5 reaches ``goal`` natively; the analysis must not claim it infeasible."""
    assert goal in program.executor.run(["5"]).covered
    analysis().run(program, Job(program.open(), Budget.seconds(20)))
    assert goal not in program.infeasible


@pytest.mark.parametrize("analysis", [ValueAnalysis, PredicateAnalysis])
@pytest.mark.parametrize("source", [UNPROTOTYPED, KNR], ids=["call-without-prototype", "knr-parameters"])
def test_arguments_are_bound_as_the_callee_reads_them(program_of, analysis, source):
    program = program_of(source)
    assert_not_claimed_infeasible(program, goal_at(program, line_of(source, "the goal"), True), analysis)
