"""Searchers composed by wrapping: ``Interleaved`` takes turns, ``Guided`` follows an
automaton over CFA edges and never negates into an edge it excludes."""
from __future__ import annotations

from dataclasses import dataclass

from cooptest.analyses.concolic import ConcolicAnalysis
from cooptest.analyses.concolic.execution_tree import CUT
from cooptest.analyses.concolic.searchers import Interleaved
from cooptest.analyses.concolic.searchers.bfs import BreadthFirst
from cooptest.analyses.concolic.searchers.dfs import DepthFirst
from cooptest.cfa.ir import Edge, branch_goal_id
from cooptest.core.analysis import Job
from cooptest.core.automaton import TOP, State
from cooptest.core.budget import Budget

from concolic_programs import EXACT, NESTED

GUARDED = r"""
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x == 1234) {
    if (x > 0) return 1;
    return 2;
  }
  if (x > 7) return 3;
  return 0;
}
"""


@dataclass(frozen=True)
class Forbid:
    """One state; no transition along ``edge``; every other edge loops."""

    edge: Edge
    name: str = "forbid"

    def initial(self) -> State:
        return "q"

    def step(self, q: State, edge: Edge) -> State | None:
        return None if edge is self.edge else q


@dataclass(frozen=True)
class Permissive:
    name: str = "top"

    def initial(self) -> State:
        return TOP

    def step(self, q: State, edge: Edge) -> State | None:
        raise AssertionError("TOP is never stepped")


def edge_of(board, line: int, outcome: bool) -> Edge:
    (bp,) = [b for b in board.program.branch_points.values() if b.line == line]
    return bp.true_edge if outcome else bp.false_edge


def goal_of(board, line: int, outcome: bool) -> str:
    return branch_goal_id(edge_of(board, line, outcome).branch, outcome)


def run(board, seconds: float = 10.0, **job):
    """Concolic search from zeros (``--fresh-inputs zero``), so that the tree the tests
    count queries and cuts on is known."""
    return ConcolicAnalysis(fresh_inputs="zero").run(board, Job(frozenset(board.goals), Budget.seconds(seconds), **job))


def test_nodes_know_their_location_and_negation(make_program) -> None:
    board = make_program(NESTED)
    tree = run(board).state.tree
    nodes = [n for level in tree.levels.values() for n in level]
    assert any(n.location.function == "classify" for n in nodes)
    assert any(n.location.function == "main" for n in nodes)
    for n in nodes:
        assert n.edge.branch == n.negation.branch == n.branch
        assert n.edge.positive == n.outcome and n.negation.positive != n.outcome


def test_a_monitor_cuts_the_edge_it_excludes_and_never_negates_into_it(make_program) -> None:
    board = make_program(GUARDED)
    forbidden = edge_of(board, 5, True)
    outcome = run(board, monitor=Forbid(forbidden))
    arg = outcome.state
    assert board.stats["cut"] == 1 and board.stats.get("monitor_divergences", 0) == 0
    assert goal_of(board, 5, True) not in board.covered
    assert {goal_of(board, 5, False), goal_of(board, 9, True), goal_of(board, 9, False)} <= set(board.covered)
    (cut,) = [n for level in arg.tree.levels.values() for n in level if n.closed == CUT]
    assert cut.negation is forbidden
    assert arg.guided.state_of(cut) == "q"


def test_a_sound_monitor_spares_solving_and_the_exhaustion_proof_names_it(make_program) -> None:
    """``x < 3`` inside ``x > 5`` is infeasible: a monitor saying so cuts that
    negation; the tree is still exhausted and the proof rests on the monitor too."""
    plain = make_program(EXACT, name="plain.c")
    run(plain)
    board = make_program(EXACT)
    outcome = run(board, monitor=Forbid(edge_of(board, 6, True), name="arg-monitor"))
    assert outcome.state.complete and board.stats["cut"] == 1
    assert board.stats["solver_calls"] == plain.stats["solver_calls"] - 1
    goal = goal_of(board, 6, True)
    assert set(board.infeasible) == set(plain.infeasible) == {goal}
    assert "cut by arg-monitor" in board.infeasible[goal]
    tree = outcome.state.tree  # the proof's evidence: the size of the tree it exhausted
    assert f"exhausted ({tree.paths} paths, {tree.size} decisions, depth {tree.max_depth})" \
        in board.infeasible[goal] and tree.paths > 1


def test_a_native_run_leaving_the_automaton_is_counted_and_then_unguided(make_program) -> None:
    board = make_program(GUARDED)
    # the first run (x = 0) takes x == 1234's false edge, which the automaton excludes
    outcome = run(board, monitor=Forbid(edge_of(board, 5, False)))
    assert board.stats["monitor_divergences"] >= 1 and board.stats.get("cut", 0) == 0
    assert set(board.covered) == set(board.goals) - {goal_of(board, 6, False)}  # x > 0 when x == 1234
    assert not outcome.state.exact and not board.infeasible  # its cuts rest on a wrong claim


def test_top_guides_like_no_automaton(make_program) -> None:
    """(z3's models depend on its history, so the runs are compared by verdicts.)"""
    free, top = make_program(EXACT, name="free.c"), make_program(EXACT, name="top.c")
    run(free)
    outcome = run(top, monitor=Permissive(), condition=Permissive(name="top2"))
    assert outcome.state.complete and outcome.state.guided.states
    assert set(outcome.state.guided.states.values()) == {(TOP, TOP)}  # the product of two TOPs
    assert top.covered.keys() == free.covered.keys() and top.infeasible.keys() == free.infeasible.keys()
    assert top.stats.get("cut", 0) == 0 and top.stats.get("monitor_divergences", 0) == 0


class Counting(DepthFirst):
    def select(self, tree):
        node = super().select(tree)
        self.selected = getattr(self, "selected", 0) + (node is not None)
        return node


def test_interleaved_searchers_take_turns(make_program) -> None:
    board = make_program(NESTED)
    analysis = ConcolicAnalysis()
    state = analysis.new_state(board)
    ctx = state.searcher.ctx
    dfs, bfs = Counting(ctx), Counting(ctx)
    state.searcher = Interleaved(dfs, BreadthFirst(ctx), bfs)
    analysis.run(board, Job(frozenset(board.goals), Budget.seconds(10.0), state=state))
    assert set(board.covered) == set(board.goals)
    assert dfs.selected >= 1 and bfs.selected >= 1
