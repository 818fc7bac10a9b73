"""The backward transfer (weakest preconditions) against concrete executions.

Soundness: along the path a concrete input drives, the WP of the rest of the path must
hold in the concrete state at every point (the execution does follow the rest). Each
program stresses one case: aliasing stores, calls with parameters and results,
recursion, inputs, arrays and structs. Precision: a constant contradiction is found,
and a store through a pointer splits into its aliasing cases."""
from __future__ import annotations

import pytest
import z3

from cooptest.analyses.symbolic import SymbolicState
from cooptest.analyses.wp import TRUE, BackwardTransfer, FrameState, Formula, truth
from cooptest.cfa.calls import NO_CALL, path_contexts
from cooptest.cfa.ir import AssumeEdge, Edge, NondetEdge, Program
from cooptest.core.budget import Budget

from reach_helpers import execute


def satisfiable(formula: Formula, state: SymbolicState, budget: Budget) -> bool | None:
    """Whether some execution in ``state`` (its path condition) satisfies ``formula`` at
    the state's location; None when z3 gave up."""
    probe = FrameState.of(state)
    solver = z3.Solver()
    solver.set("timeout", budget.solver_timeout_ms(30.0))
    solver.add(*probe.path_condition, truth(probe, formula))
    result = solver.check()
    return None if result == z3.unknown else result == z3.sat


ALIASING = """extern int __VERIFIER_nondet_int(void);
int a[4];
int main(void) {
  int v = 0;
  int *q = &v;
  int *p = a;
  int n = __VERIFIER_nondet_int();
  for (int i = 0; i < n && i < 3; i++) p++;
  *p = 5;
  if (n == 9) *q = 7;
  if (a[2] == 5) return 1;
  if (v == 7) return 2;
  return 0;
}
"""

CALLS = """extern int __VERIFIER_nondet_int(void);
int g;
int twice(int x) { g = g + x; return x + x; }
int fact(int k) { if (k <= 1) return 1; return k * fact(k - 1); }
void set(int *p, int v) { *p = v; }
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = twice(x);
  int z = fact(x % 5);
  set(&y, z + g);
  if (y == 2 * x) return 1;
  if (z == 24) return 2;
  return 0;
}
"""

STRUCTS = """extern int __VERIFIER_nondet_int(void);
struct pt { int x; int y; };
int main(void) {
  struct pt s, t;
  s.x = __VERIFIER_nondet_int();
  s.y = s.x + 1;
  t = s;
  int *p = &t.y;
  *p = *p + 1;
  int b[3] = {0};
  b[s.x & 1] = t.y;
  if (b[1] == s.x + 2) return 1;
  if (t.x != s.x) return 2;
  return 0;
}
"""

CONSTANTS = """int main(void) {
  int x = 3;
  int y = x + 4;
  if (y != 7) return 1;
  return 0;
}
"""


@pytest.mark.parametrize("source,runs", [
    (ALIASING, [[0], [2], [9], [-1]]),
    (CALLS, [[3], [4], [-7], [0]]),
    (STRUCTS, [[1], [2], [-3]]),
], ids=["aliasing", "calls", "structs"])
def test_wp_of_the_rest_of_a_run_holds_at_every_point_of_it(program_of, source, runs):
    program = program_of(source).program
    backward = BackwardTransfer(program)
    for inputs in runs:
        edges, states = execute(program, inputs)
        contexts = path_contexts(program, edges)
        cases = [TRUE]
        for k in range(len(edges) - 1, -1, -1):
            cases = [c for case in cases for c in backward.pre(case, edges[k], contexts.get(k, NO_CALL))]
            assert any(satisfiable(c, states[k], Budget.seconds(30)) for c in cases), \
                f"input {inputs}: no WP case of the run's suffix from edge {k} ({edges[k]!r}) holds"


def wp_along(program: Program, edges: list[Edge], start: int) -> list[Formula]:
    backward = BackwardTransfer(program)
    contexts = path_contexts(program, edges)
    cases = [TRUE]
    for k in range(len(edges) - 1, start - 1, -1):
        cases = [c for case in cases for c in backward.pre(case, edges[k], contexts.get(k, NO_CALL))]
    return cases


@pytest.mark.parametrize("source,a,b", [
    (ALIASING, [2], [9]), (ALIASING, [0], [2]), (CALLS, [3], [4]), (CALLS, [-7], [2]),
], ids=["aliasing-store", "aliasing-loop", "calls-recursion", "calls-args"])
def test_wp_of_one_run_excludes_another_run_once_inputs_are_read(program_of, source, a, b):
    """Precision: after the last input of run ``b``, the WP of the rest of run ``a``
    contradicts ``b``'s state (they take different paths from there)."""
    program = program_of(source).program
    edges_a, _ = execute(program, a)
    edges_b, states_b = execute(program, b)
    read = max(k for k, e in enumerate(edges_b) if isinstance(e, NondetEdge)) + 1
    assert edges_a[:read] == edges_b[:read] and edges_a != edges_b
    cases = wp_along(program, edges_a, read)
    assert cases and not any(satisfiable(c, states_b[read], Budget.seconds(30)) for c in cases)


def test_a_constant_contradiction_leaves_no_case(program_of):
    program = program_of(CONSTANTS).program
    backward = BackwardTransfer(program)
    bad = next(e for e in program.edges() if isinstance(e, AssumeEdge) and e.positive
               and "!=" in repr(e))
    path: list[Edge] = []
    loc = bad.src
    while loc is not program.main.entry:  # the straight line from main's entry to the branch
        path.insert(0, loc.entering[0])
        loc = loc.entering[0].src
    cases: list[Formula] = backward.pre(TRUE, bad)
    assert len(cases) == 1 and len(cases[0]) == 1
    for edge in reversed(path):
        cases = [c for case in cases for c in backward.pre(case, edge)]
    assert cases == []


def test_a_store_through_a_pointer_splits_on_aliasing(program_of):
    program = program_of(ALIASING).program
    backward = BackwardTransfer(program)
    store = next(e for e in program.edges() if repr(e).startswith("*main::p = "))
    read = next(e for e in program.edges() if isinstance(e, AssumeEdge) and e.positive
                and repr(e.cond).startswith("(a[2] =="))
    cases = backward.pre(backward.pre(TRUE, read)[0], store)
    assert sorted(map(repr, cases)) == sorted([
        "(a[2] == 5) && !(main::p == &a[2])",  # the store misses a[2]: a[2] was 5 already
        "(main::p == &a[2])",                  # it hits: 5 == 5 holds whatever a[2] was
    ])
