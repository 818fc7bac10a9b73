"""``--addresses concrete``: CREST's memory, an input-dependent address read as the
run's value with no constraint, against the default, where it stays a term."""
from __future__ import annotations

from cooptest.analyses.concolic import ConcolicAnalysis
from cooptest.analyses.concolic.solver import Symbols
from cooptest.analyses.concolic.symbolic_execution import TermMemo, execute_symbolically
from cooptest.analyses.symbolic import Pinning
from cooptest.core.analysis import Job
from cooptest.core.budget import Budget

TABLE = """extern int __VERIFIER_nondet_int(void);
int table[8] = {1, 2, 3, 4, 5, 6, 7, 42};
int main(void) {
  int i = __VERIFIER_nondet_int();
  if (i < 0 || i > 7) return 0;
  if (table[i] == 42) return 1;
  return 2;
}
"""

STORED = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int a[4] = {0, 0, 0, 0};
  int i = __VERIFIER_nondet_int();
  int x = __VERIFIER_nondet_int();
  if (i != 2) return 0;
  a[i] = x;
  if (a[2] == 5) return 1;
  return 2;
}
"""


def run(put, addresses: str):
    analysis = ConcolicAnalysis(fresh_inputs="zero", addresses=addresses)
    return analysis.run(put, Job(frozenset(put.goals), Budget.seconds(20.0)))


def goal_at(put, line: int, outcome: bool) -> str:
    (goal,) = [g for g, v in put.goals.items() if v.line == line and g.endswith("T" if outcome else "F")]
    return goal


def test_a_read_at_an_input_index_is_a_term_by_default(make_program) -> None:
    put = make_program(TABLE)
    run(put, "symbolic")
    assert goal_at(put, 6, True) in put.covered  # the solver chose i == 7


def decided_lines(put, result) -> set[int]:
    """The source lines of the branches the tree holds decisions of."""
    branches = {n.branch for level in result.state.tree.levels.values() for n in level}
    return {goal.line for name, goal in put.goals.items() if int(name[1:-1]) in branches}


def test_a_concrete_read_gives_no_decision_and_no_proof(make_program) -> None:
    """CREST's reading: table[i] is the run's entry, so its branch is no decision the
    search can negate (the default makes it one), and with the tree run out what the
    search did not reach is not infeasible."""
    put = make_program(TABLE)
    result = run(put, "concrete")
    assert decided_lines(put, result) == {5}
    assert not put.infeasible and not result.state.exact
    put = make_program(TABLE)
    assert decided_lines(put, run(put, "symbolic")) == {5, 6}


def test_a_concrete_write_keeps_the_value_at_the_runs_address(make_program) -> None:
    """a[i] = x with i == 2 in the run: the cell a[2] holds x's term, so a[2] == 5 is a
    decision on x and is covered."""
    put = make_program(STORED)
    run(put, "concrete")
    assert set(put.covered) == set(put.goals)


UNPLACED = """extern int __VERIFIER_nondet_int(void);
int a[2] = {5, 7};
int main(void) {
  int k = __VERIFIER_nondet_int();
  int *p = (int *)((unsigned long)a ^ (unsigned long)(k & 4));  /* no constant part */
  if (*p == 5) return 1;
  return 2;
}
"""


def test_an_address_no_object_is_found_for_is_pinned_without_a_constraint(make_program) -> None:
    """By default CUTE's concretisation keeps such an address with a constraint on k;
    CREST's reading adds none, and counts the address once."""
    put = make_program(UNPLACED)
    symbols, memo = Symbols(), TermMemo()
    paths = {mode: execute_symbolically(put.program, put.submit(["0"], "test"), symbols, memo, set(),
                                        pinning=Pinning(addresses=mode))
             for mode in (False, True)}
    assert paths[False].concretized == paths[True].concretized == 1
    def keeping(path) -> list:  # a ^ (k & 4) == a: the address kept, on k's symbol
        k = str(path.symbols[0].symbol)
        return [c for c in path.constraints if k in str(c) and "^" in str(c)]
    assert keeping(paths[False]) and not keeping(paths[True])
