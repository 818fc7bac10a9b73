"""Crabs' monitor steers (issue 40): built with the board, it has no transition into a
part of the ARG from which no open goal is reachable, so concolic search cuts the
negations that lead only to decided goals (before: it cut only negations into edges the
ARG proved infeasible, 0 cuts on loop_foo)."""
from __future__ import annotations

import pytest

from cooptest.analyses.concolic import ConcolicAnalysis
from cooptest.analyses.concolic.execution_tree import Pending
from cooptest.analyses.reachability import PredicateAnalysis
from cooptest.core.analysis import Job
from cooptest.core.board import GoalBoard
from cooptest.core.budget import Budget

# b = 1 (x > 5) puts the goal (y == 42) out of reach; (b > 1) makes predicate analysis
# expand the whole program to prove it, so that its ARG is complete.
PRUNE = r"""
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  int b = 0;
  if (x > 5) b = 1;
  if (b > 1) return 2;
  if (b == 0) {
    if (y == 42) return 1;
  }
  return 0;
}
"""


def goal(board: GoalBoard, text: str, outcome: bool) -> str:
    line = next(i for i, t in enumerate(PRUNE.splitlines(), 1) if text in t)
    (bp,) = [b for b in board.program.branch_points.values() if b.line == line]
    return f"B{bp.id}{'T' if outcome else 'F'}"


@pytest.mark.slow
def test_the_monitor_cuts_negations_into_parts_with_no_open_goal(make_program) -> None:
    board = make_program(PRUNE)
    # a complete ARG, built on a board of its own
    truth = GoalBoard(board.program, board.executor)
    arg = PredicateAnalysis().run(truth, Job(truth.open(), Budget.seconds(60))).state
    assert arg.complete
    # the board: x = 6 and x = 0 ran; y == 42 is open (and b > 1, which no run takes)
    concolic = ConcolicAnalysis(max_iterations=2)
    first = concolic.new_state(board)
    first.pending = [Pending(["6", "0"]), Pending(["0", "0"])]
    concolic.run(board, Job(frozenset(board.goals), Budget.seconds(30), state=first))
    target = goal(board, "y == 42", True)
    assert set(board.open()) == {target, goal(board, "b > 1", True)}
    # a search from x = 0 alone, guided by the monitor: negating (x > 5) leads where
    # nothing is open, and is cut; negating (y == 42) covers the goal
    guided = ConcolicAnalysis().new_state(board)
    guided.pending = [Pending(["0", "0"])]
    ConcolicAnalysis().run(board, Job(frozenset(board.goals), Budget.seconds(30), state=guided,
                                      monitor=arg.monitor(board)))
    assert board.stats["cut"] == 1 and target in board.covered
    (cut,) = [n for level in guided.tree.levels.values() for n in level if n.closed == "cut"]
    assert cut.target == goal(board, "x > 5", True)
