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
    product = ProductDistances(program, outcome.state.monitor(), lambda node: None, lambda path, position: None)
    in_product = product.distances(frozenset({line[12].true_edge}), on_cfa)
    assert on_cfa[inside] == 1  # x < 3, then the goal's decision
    # x >= 3, y == 1, x > 7: in each product state at that location (one per ARG state)
    assert {d for q, d in in_product.items() if place(q).location is inside} == {3}


def test_crest_cfg_measures_a_paths_branches_in_the_product(program_of) -> None:
    """crest-cfg's SolveAlongCfg reads the distance of every branch of its path: guided by
    the ARG, the other side of x < 3 (proved infeasible) is not in the product, where on
    the CFA it is an uncovered branch; y == 1's other side stays one."""
    from cooptest.analyses.concolic import ConcolicAnalysis
    from cooptest.analyses.concolic.execution_tree import Pending
    from cooptest.analyses.concolic.searchers.crest_cfg import INF, Run
    from cooptest.core.board import GoalBoard
    board = program_of(SHORTCUT)
    truth = GoalBoard(board.program, board.executor)  # the ARG's board: this one stays open
    arg = make_analysis("predicate", Settings()).run(truth, Job(truth.open(), Budget.seconds(120))).state
    distances = {}
    for monitor in (None, arg.monitor()):
        concolic = ConcolicAnalysis(search="crest-cfg", max_iterations=1)
        state = concolic.new_state(board)
        state.pending = [Pending(["6", "0", "0"])]
        concolic.run(board, Job(frozenset(board.goals), Budget.seconds(30), state=state, monitor=monitor))
        searcher = state.searcher
        path = state.last
        run = Run(path, [], searcher.events[path])
        searcher._cover(run)
        searcher._distances()
        at = {path.trace[e][0]: k for k, e in enumerate(run.events) if e >= 0}
        # the path's branch on each line: x > 5, x < 3, y == 1
        on_line = {board.program.branch_points[b].line: k for b, k in at.items()}
        distances[monitor is None] = {n: searcher._side(run, on_line[n], True) for n in (7, 8)}
        distances[monitor is None][6] = searcher._side(run, on_line[6], False)
    assert distances[True][7] < INF and distances[False][7] == INF  # x < 3
    assert distances[False][8] < INF  # y == 1
    # from x > 5's taken side: x < 3's other side on the CFA, past it to y == 1 in the product
    assert (distances[True][6], distances[False][6]) == (1, 2)
