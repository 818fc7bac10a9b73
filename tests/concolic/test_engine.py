"""Concolic testing end to end: goals are covered by native replays of generated inputs."""
from __future__ import annotations

import pytest

from cooptest.analyses.concolic import STRATEGIES, ConcolicAnalysis
from cooptest.analyses.interface import Budget

from concolic_programs import DIVERGING, EXACT, FLOATS, MANY_INPUTS, MEMORY, NESTED


def run(put, budget: float = 10.0, **options):
    analysis = ConcolicAnalysis(**options)
    return analysis.run(put, set(put.goals), Budget.seconds(budget))


def test_cgs_covers_every_goal_of_nested_conditions(make_program) -> None:
    put = make_program(NESTED)
    result = run(put)
    assert set(put.covered) == set(put.goals)  # all branch goals and the error call
    assert result.covered == set(put.goals)
    assert any(t.covers_error for t in result.tests)
    assert put.stats["iterations"] >= len(result.tests)
    assert put.stats.get("divergences", 0) == 0


@pytest.mark.parametrize("search", sorted(STRATEGIES))
def test_every_strategy_covers_a_small_program(make_program, search: str) -> None:
    put = make_program(NESTED)
    run(put, budget=20.0, search=search, rng_seed=1)
    assert set(put.covered) == set(put.goals), search


def test_divergence_is_counted_and_the_native_run_followed(make_program) -> None:
    put = make_program(DIVERGING)
    result = run(put, budget=5.0)
    assert put.stats["divergences"] >= 1  # rand() > 5 natively; unknown (read as 0) symbolically
    # following the native run still reaches x == 42; rand() of the default seed is > 5
    assert set(put.covered) == set(put.goals) - {"B1F"}
    assert not result.arg.exact and not result.arg.complete


def test_exhausted_exact_tree_is_complete_and_names_the_infeasible_goal(make_program) -> None:
    put = make_program(EXACT)
    result = run(put, budget=10.0)
    assert result.arg.complete and result.arg.frontier_size() == 0
    open_goals = set(put.goals) - set(put.covered)
    assert len(open_goals) == 1 and set(result.infeasible) == open_goals
    (goal,) = open_goals
    assert put.goals[goal].line == 6  # the x < 3 inside x > 5


def test_float_unsigned_bool_models_are_read_back_exactly(make_program) -> None:
    put = make_program(FLOATS)
    run(put, budget=10.0)
    assert set(put.covered) == set(put.goals)


def test_runs_lacking_inputs_are_padded(make_program) -> None:
    put = make_program(MANY_INPUTS)
    result = run(put, budget=10.0)
    assert set(put.covered) == set(put.goals)
    assert max(len(t.inputs) for t in result.tests) >= 40


def test_memory_and_symbolic_pointers(make_program) -> None:
    put = make_program(MEMORY)
    run(put, budget=10.0)
    assert set(put.covered) == set(put.goals)


def test_seed_tests_run_first_and_search_resumes_from_the_arg(make_program) -> None:
    put = make_program(NESTED)
    seed = ["200", "-10", "122"]
    analysis = ConcolicAnalysis(seed_tests=[seed])
    first = analysis.run(put, set(put.goals), Budget.seconds(0.0))
    assert first.arg is not None and first.arg.pending[0] == seed  # nothing run yet
    first = analysis.run(put, set(put.goals), Budget.seconds(0.3), arg=first.arg)
    assert put.tests[0].inputs == seed
    paths = first.arg.tree.paths
    second = analysis.run(put, set(put.goals), Budget.seconds(10.0), arg=first.arg)
    assert second.arg.tree is first.arg.tree and second.arg.tree.paths >= paths
    assert set(put.covered) == set(put.goals)
    assert [t.inputs for t in put.tests].count(seed) == 1


def test_unknown_strategy_is_a_user_error() -> None:
    from cooptest.errors import UserError
    with pytest.raises(UserError):
        ConcolicAnalysis(search="nope")


RECURSION = """extern unsigned int __VERIFIER_nondet_uint(void);
unsigned int id(unsigned int x) {
  if (x == 0) return 0;
  unsigned int ret = id(x - 1) + 1;
  if (ret > 2) return 2;
  return ret;
}
int main(void) { return id(__VERIFIER_nondet_uint()) == 2; }
"""


def test_solver_prefers_small_inputs(make_program) -> None:
    """Negating ``x == 0`` admits any x: a large one recurses past the run's time limit
    and covers nothing, a small one covers every branch of ``id``."""
    put = make_program(RECURSION)
    run(put, budget=10.0)
    assert set(put.covered) == set(put.goals)
    assert put.executions <= 20
    assert all(int(t.inputs[0]) <= 255 for t in put.tests)


CAST_POINTER = """#include <stdlib.h>
extern int __VERIFIER_nondet_int(void);
struct s { int *q; };
int main(void) {
  struct s *p = malloc(sizeof *p);
  int v = __VERIFIER_nondet_int();
  p->q = &v;
  if ((unsigned long)p->q == 0) return 2;
  if (v == 7) return 1;
  return 0;
}
"""


def test_an_address_cast_to_an_integer_is_concretely_not_null(make_program) -> None:
    """The native value of an address is a symbol (its layout is unknown); concretely it
    is the model's own address, so a null check follows the native run."""
    put = make_program(CAST_POINTER)
    run(put, budget=5.0)
    assert put.stats.get("divergences", 0) == 0
    assert {"B2T", "B2F"} <= set(put.covered)
