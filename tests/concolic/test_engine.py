"""Concolic testing end to end: goals are covered by native replays of generated inputs."""
from __future__ import annotations

import pytest

from cooptest.analyses.concolic import SEARCHERS, ConcolicAnalysis
from cooptest.core.analysis import Job
from cooptest.core.budget import Budget

from concolic_programs import (ASSUMED_PAIRS, DIVERGING, ENDLESS, EXACT, FACTORS, FLOATS, MANY_INPUTS, MEMORY, NESTED,
                               UNSAT_CLAUSES)


def run(put, budget: float = 10.0, **options):
    analysis = ConcolicAnalysis(**options)
    return analysis.run(put, Job(frozenset(put.goals), Budget.seconds(budget)))


def test_cgs_covers_every_goal_of_nested_conditions(make_program) -> None:
    put = make_program(NESTED)
    result = run(put)
    assert set(put.covered) == set(put.goals)  # all branch goals and the error call
    assert result.stopped == "done"
    assert any(t.covers_error for t in put.tests)
    assert put.stats["iterations"] >= len(put.tests)
    assert put.stats.get("divergences", 0) == 0


@pytest.mark.parametrize("search", sorted(SEARCHERS))
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
    assert not result.state.exact and not result.state.complete


NAN_BITS = """extern int __VERIFIER_nondet_int(void);
typedef union { double value; struct { unsigned int lsw; unsigned int msw; } parts; } shape;
int main(void) {
  shape u;
  u.value = 0.0 / 0.0;
  int x = __VERIFIER_nondet_int();
  if ((u.parts.msw & 0x7fffffff) > 0x7ff00000) {  /* a quiet NaN natively */
    if (x == 42) return 1;
  }
  return 0;
}
"""


def test_an_unspecified_value_is_no_divergence(make_program) -> None:
    """z3 gives a NaN no particular bits: symbolic execution cannot evaluate a branch on them,
    which does not mean the model disagrees with the native run."""
    put = make_program(NAN_BITS)
    run(put, budget=5.0)
    assert len(put.covered) == 3  # the NaN branch, both outcomes of x == 42
    assert put.stats.get("divergences", 0) == 0


def test_exhausted_exact_tree_is_complete_and_names_the_infeasible_goal(make_program) -> None:
    put = make_program(EXACT)
    result = run(put, budget=10.0)
    assert result.state.complete and result.state.frontier_size() == 0
    open_goals = set(put.goals) - set(put.covered)
    assert len(open_goals) == 1 and set(put.infeasible) == open_goals
    assert result.stopped == "done"  # every goal decided: covered or proven infeasible
    (goal,) = open_goals
    assert put.goals[goal].line == 6  # the x < 3 inside x > 5


def test_runs_ending_in_abort_are_exact_and_its_dead_ends_are_not_run(make_program) -> None:
    """Every path but one ends in ``abort()`` (SIGABRT natively, the CFA's own abort),
    and the clauses admit no model with ``a + b + c == 3``: the tree is exhausted and
    proves the goal infeasible. Once one failing side of ``assume``'s branch is covered,
    the others are closed without a query or a run. From zeros, the first path fails
    the first ``assume``."""
    put = make_program(UNSAT_CLAUSES)
    result = run(put, budget=30.0, fresh_inputs="zero")
    assert result.state.complete and result.stopped == "done"
    line = next(i for i, t in enumerate(UNSAT_CLAUSES.splitlines(), 1) if "reach_error();" in t)
    assert {put.goals[g].line for g in put.infeasible} == {line}
    assert put.stats["dead_ends"] >= 5


def test_a_query_the_solver_gave_up_on_is_asked_again_with_more_time(make_program) -> None:
    """With a 10-ms limit z3 gives up on the factoring (it bit-blasts the product and
    needs some 60 ms); asked again with twice the limit each time nothing else is left to
    negate, up to 16 times the limit, it finds the factors, and the goal is covered.
    Without the retries the run would restart from random inputs forever."""
    put = make_program(FACTORS)
    run(put, budget=20.0, solver_timeout=0.01)
    assert put.stats["solver_unknown"] >= 1
    assert set(put.covered) == set(put.goals)


def test_float_unsigned_bool_models_are_read_back_exactly(make_program) -> None:
    put = make_program(FLOATS)
    run(put, budget=10.0)
    assert set(put.covered) == set(put.goals)


def test_runs_lacking_inputs_are_padded(make_program) -> None:
    put = make_program(MANY_INPUTS)
    run(put, budget=10.0)
    assert set(put.covered) == set(put.goals)
    assert max(len(t.inputs) for t in put.tests) >= 40


def test_where_zeros_abort_the_padding_repeats_the_inputs(make_program) -> None:
    """Padded with zeros, every run aborts in the loop's second iteration; the inputs
    repeated pass the assumption 1,000 times, and the goal after the loop is covered.
    The search's job is that goal alone: it ends as the native run covers it, leaving
    symbolic execution of the 4,096 inputs the padding grew to for a later job."""
    put = make_program(ASSUMED_PAIRS)
    line = next(i for i, t in enumerate(ASSUMED_PAIRS.splitlines(), 1) if "sum > 0" in t)
    (after,) = (g for g, goal in put.goals.items() if goal.line == line and g.endswith("T"))
    result = ConcolicAnalysis().run(put, Job(frozenset({after}), Budget.seconds(120.0)))
    assert after in put.covered and result.stopped == "done"
    assert put.stats["repeated_paddings"] >= 1
    assert len(result.state.pending[0].inputs) >= 2000  # the covering run, not executed symbolically


def test_a_program_reading_endlessly_is_padded_once_and_its_tests_stay_short(make_program) -> None:
    """From zeros the first padding reaches MAX_INPUTS and the state learns that the
    program reads endlessly; with the default fresh inputs the tests stay short too."""
    put = make_program(ENDLESS)
    result = run(put, budget=10.0, fresh_inputs="zero")
    assert result.state.padding.endless  # the first padding reached MAX_INPUTS
    assert any(t.covers_error for t in put.tests)  # 7, 8, 9 read in a row
    assert max(len(t.inputs) for t in put.tests) <= 64  # not MAX_INPUTS zeros
    put = make_program(ENDLESS, name="default.c")
    run(put, budget=10.0)
    assert any(t.covers_error for t in put.tests)
    assert max(len(t.inputs) for t in put.tests) <= 64


def test_max_iterations_ends_the_search_after_that_many_native_runs(make_program) -> None:
    """CREST's ``run_crest PROGRAM N``: the first run's padding (0, 8, 16, 32 inputs)
    alone would take four runs; it stops at the third, and a later job of the same state
    runs nothing: the allowance is the state's, over all its jobs."""
    put = make_program(MANY_INPUTS)
    analysis = ConcolicAnalysis(max_iterations=3)
    goals = frozenset(put.goals)
    first = analysis.run(put, Job(goals, Budget.seconds(10.0)))
    assert first.stopped == "iterations" and put.stats["iterations"] == 3 == first.state.iterations
    again = analysis.run(put, Job(goals, Budget.seconds(10.0), state=first.state))
    assert again.stopped == "iterations" and put.stats["iterations"] == 3


PRINTED = r"""
#include <stdio.h>
extern char __VERIFIER_nondet_char(void);
int main(void) {
  char in[4], s[4]; int i;
  for (i = 0; i < 3; i++) in[i] = __VERIFIER_nondet_char();
  in[3] = 0;
  for (i = 0; in[i] != 0; i++) s[i] = in[i];
  s[i] = 0;
  for (i = 0; s[i] != 0; i++) {
    fputc(s[i], stdout);
    putc(s[i], stdout);
  }
  if (i == 3) return 7;
  return i;
}
"""


def test_writing_to_a_stream_leaves_the_programs_memory_as_it_was(make_program) -> None:
    """replace prints its substitution with ``fputc(c, stdout)``: a stream's buffer is
    the C library's, and havocking the program's memory at each call made every later
    read of the string diverge from the native run."""
    put = make_program(PRINTED)
    result = run(put, budget=10.0)
    assert put.stats.get("divergences", 0) == 0
    assert set(put.covered) == set(put.goals) and result.state.exact


def test_memory_and_symbolic_pointers(make_program) -> None:
    put = make_program(MEMORY)
    run(put, budget=10.0)
    assert set(put.covered) == set(put.goals)


def test_board_tests_run_first_and_search_resumes_from_the_state(make_program) -> None:
    put = make_program(NESTED)
    seed = ["200", "-10", "122"]
    put.submit(seed, "seed-suite")
    analysis = ConcolicAnalysis()
    goals = frozenset(put.goals)
    first = analysis.run(put, Job(goals, Budget.seconds(0.0)))
    assert first.state.pending[0].inputs == seed and first.stopped == "budget"  # nothing run yet
    first = analysis.run(put, Job(goals, Budget.seconds(0.3), state=first.state))
    assert put.tests[0].inputs == seed
    paths = first.state.tree.paths
    second = analysis.run(put, Job(goals, Budget.seconds(10.0), state=first.state))
    assert second.state.tree is first.state.tree and second.state.tree.paths >= paths
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


SIX_CHARS = r"""
extern char __VERIFIER_nondet_char(void);
int main(void) {
  char s[6];
  int n = 0;
  for (int i = 0; i < 6; i++) s[i] = __VERIFIER_nondet_char();
  for (int i = 0; i < 6; i++) if (s[i] != 0) n++;
  return n;
}
"""


@pytest.mark.parametrize("policy, starts", [("random", ["random"]), ("zero", ["zero"]),
                                            ("both", ["random", "zero"])])
def test_a_fresh_state_starts_from_its_fresh_inputs(make_program, policy: str, starts: list[str]) -> None:
    """CREST gives an input that neither the solver nor an earlier run chose a random
    value (``--fresh-inputs random``); ``zero`` gives zeros, and ``both`` (the default)
    starts from random values and then from zeros. A start's first native run, on no
    inputs at all, starves at the first read; the second reads the six. The same seed
    draws the same values."""
    runs = []
    for _ in range(2):
        put = make_program(SIX_CHARS)
        run(put, budget=10.0, fresh_inputs=policy, max_iterations=2 * len(starts), rng_seed=3)
        runs.append([[int(v) for v in t.inputs[:6]] for t in put.tests if len(t.inputs) >= 6])
    assert runs[0] == runs[1]
    assert ["zero" if r == [0] * 6 else "random" for r in runs[0]] == starts
    for r in runs[0]:
        assert all(0 <= v <= 127 for v in r) and (r == [0] * 6 or len(set(r)) > 1)


ALIGNED_THROUGH_INTEGERS = r"""
#include <stdlib.h>
extern int __VERIFIER_nondet_int(void);
struct node { char c; struct node *next; };
int main(void) {
  char *chunk = malloc(4064), *next;
  struct node *list = 0, *n;
  int depth = 0, k;
  next = chunk + 16;
  for (k = 0; k < 3; k++) {
    next = (char *) 0 + (((next - (char *) 0) + 15) & ~15);   /* obstack.h's __PTR_ALIGN */
    n = (struct node *) next;
    next += sizeof *n;
    if (__VERIFIER_nondet_int() == 7) depth = 100;
    n->next = list;
    list = n;
  }
  for (n = list; n; n = n->next)
    depth++;
  if (depth == 3) return 1;
  return 0;
}
"""


def test_the_memo_keeps_the_operands_its_keys_name(make_program) -> None:
    """The memo keys a pure operation by the addresses of its operand terms. A result
    simplified to a number no longer holds its operands, so ``next - 0`` was freed and
    its address named the next iteration's: every node got the first one's address, the
    list looped, and each run diverged at its end (grep's obstack_finish, kwset's trie)."""
    put = make_program(ALIGNED_THROUGH_INTEGERS)
    ConcolicAnalysis(search="dfs", max_iterations=12).run(put, Job(frozenset(put.goals), Budget.seconds(60)))
    assert put.stats.get("divergences", 0) == 0
    assert set(put.covered) == set(put.goals), sorted(set(put.goals) - set(put.covered))


ALWAYS_ONE = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 10) {
    if (x > 20) return 1;
    return 1;
  }
  return 1;  /* exit code 1, the harness's when inputs run out: grep's when no line matches */
}
"""


def test_a_run_exiting_with_1_by_itself_is_not_run_again_padded(make_program) -> None:
    """One run to start ([] starves, then 8 zeros), one per negation: a run that exits
    with 1 having read less than it was given is the program's, not the harness's, and
    padding it again would spend an iteration for nothing (half of grep's)."""
    put = make_program(ALWAYS_ONE)
    run(put, budget=10.0, fresh_inputs="zero")
    assert set(put.covered) == set(put.goals)
    assert put.stats["iterations"] == 4, put.stats
