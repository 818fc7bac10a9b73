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


CONSTANT_THEN_LOOP = """extern int __VERIFIER_nondet_int(void);
int count(int n, int x) {
  while (n < x) n++;  /* the constant 2 grows to x */
  if (n == 5) return 1;  /* the goal */
  return 0;
}
int main(void) { int x = __VERIFIER_nondet_int(); return count(2, x); }
"""

CONSTANT_PER_FRAME = """extern int __VERIFIER_nondet_int(void);
int depth(int n, int x) {
  int k = 10 - n;  /* 9 in the first call, 8 in the second */
  if (n < 2) {
    int r = depth(n + 1, x);
    if (k == 9 && r == 8 && x == 5) return 1;  /* the goal */
    return k;
  }
  return k;
}
int main(void) { int x = __VERIFIER_nondet_int(); return depth(1, x); }
"""

NAN_OR_NOT = """extern int __VERIFIER_nondet_int(void);
typedef union { double value; struct { unsigned int lsw; unsigned int msw; } parts; } shape;
int nan_test(double x, int y) {
  shape u;
  do { u.value = x; } while (0);
  int ix = u.parts.msw & 0x7fffffff;
  if (ix >= 0x7ff00000) return 1;
  if (y == 5) return 2;  /* the goal */
  return 3;
}
int main(void) {
  int y = __VERIFIER_nondet_int();
  double x = y == 5 ? 2.0 : 0.0 / 0.0;  /* a NaN only on some paths */
  return nan_test(x, y);
}
"""

POINTER_ARGUMENT = """extern int __VERIFIER_nondet_int(void);
void *malloc(unsigned long);
int check(int *p, int x) {
  int *q = malloc(sizeof(int));  /* another object than p's */
  *q = 1;
  *p = 2;
  if (*q == 1 && x == 5) return 1;  /* the goal */
  return 0;
}
int main(void) {
  int *p = malloc(sizeof(int));
  int x = __VERIFIER_nondet_int();
  return check(p, x);
}
"""


@pytest.mark.parametrize("analysis", [ValueAnalysis, PredicateAnalysis])
@pytest.mark.parametrize("source", [CONSTANT_THEN_LOOP, CONSTANT_PER_FRAME, NAN_OR_NOT,
                                    POINTER_ARGUMENT],
                         ids=["changed-in-a-loop", "one-per-frame", "constant-on-one-path",
                              "address"])
def test_constants_kept_across_block_ends_are_the_right_ones(program_of, analysis, source):
    """The predicate analysis keeps the integer and float constants of a block at its
    end (not at loop heads): a constant the callee's loop changes, a local of a
    recursive function (the value in each frame), a value constant on one path only;
    never an address, which the next block gives another object."""
    program = program_of(source)
    assert_not_claimed_infeasible(program, goal_at(program, line_of(source, "the goal"), True), analysis)


BUILTIN_NAN = """extern int __VERIFIER_nondet_int(void);
double nan_of(void) { return __builtin_nan(""); }  /* undeclared: not C's implicit int */
int main(void) {
  int x = __VERIFIER_nondet_int();
  double r = nan_of();
  if (r != r) {
    if (x == 5) return 1;  /* the goal */
  }
  return 0;
}
"""


@pytest.mark.parametrize("analysis", [ValueAnalysis, PredicateAnalysis])
def test_gcc_float_builtins_return_their_floats(program_of, analysis):
    """``__builtin_nan`` is called undeclared (newlib's pow): typed as an implicit
    ``int``, its value was an integer in the model, never a NaN, and the branch that
    tests for the NaN would have been claimed infeasible."""
    program = program_of(BUILTIN_NAN)
    assert_not_claimed_infeasible(program, goal_at(program, line_of(BUILTIN_NAN, "the goal"), True), analysis)
