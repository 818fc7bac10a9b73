"""Crabs' concolic search runs on the product of the program and its monitors: a goal is
lifted to every product edge of its CFA edge, and CREST's distances are measured in the
product, where a path the ARG proved infeasible does not exist."""
from __future__ import annotations

from cooptest.analyses.concolic.searchers.product import ProductDistances, place
from cooptest.analyses.concolic.cfa_facts import StaticInfo
from cooptest.core.analysis import Job
from cooptest.core.budget import Budget
from cooptest.core.registry import Settings, make_analysis

# Under x > 5, the shortcut to ``target`` (x < 3) is dead; the way on is y == 1, x > 7.
SHORTCUT = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  int z = __VERIFIER_nondet_int();
  if (x > 5) {
    if (x < 3) goto target;
    if (y == 1) { if (x > 7) goto target; }
  }
  return 0;
target:
  if (z == 7) return 2;
  return 1;
}
"""


def test_distances_are_the_products_not_the_programs(program_of) -> None:
    board = program_of(SHORTCUT)
    outcome = make_analysis("predicate", Settings()).run(board, Job(board.open(), Budget.seconds(120)))
    assert outcome.state.complete and len(board.infeasible) == 1  # x < 3 under x > 5
    program = board.program
    line = {bp.line: bp for bp in program.branch_points.values()}
    static = StaticInfo(program)
    goal = next(g for g, e in static.goal_edges().items() if e is line[12].true_edge)  # z == 7
    on_cfa = static.distances({goal})
    inside = line[6].true_edge.dst  # just after x > 5
    product = ProductDistances(program, outcome.state.monitor(), lambda node: None)
    in_product = product.distances(frozenset({line[12].true_edge}), on_cfa)
    assert on_cfa[inside] == 1  # x < 3, then the goal's decision
    # x >= 3, y == 1, x > 7: in each product state at that location (one per ARG state)
    assert {d for q, d in in_product.items() if place(q).location is inside} == {3}
