"""ARGs as automata (Crabs' monitor, CoVeriTest's condition) and analyses run under
them. Soundness first: a concrete run never leaves the monitor of an ARG, and no goal
that a test reaches is ever proven infeasible by an analysis guided by a monitor or a
condition, whether the guiding ARG is complete or partial (stopped by the clock, or by a job
that targets one goal)."""
from __future__ import annotations

import pytest

from cooptest.analyses.reachability import PredicateAnalysis, ValueAnalysis
from cooptest.core.analysis import Job
from cooptest.core.automaton import TOP
from cooptest.core.board import GoalBoard
from cooptest.core.budget import Budget

from reach_helpers import execute, goal_at, line_of

PROGRAM = """extern int __VERIFIER_nondet_int(void);
int twice(int v) { return v + v; }
int main(void) {
  int n = __VERIFIER_nondet_int();
  int k = __VERIFIER_nondet_int();
  int i = 0;
  while (i < n) {
    if (i < 0) return 2;            /* infeasible */
    i++;
  }
  int d = twice(k);
  if (d == 14 && n > 1) return 3;
  if (k == 3 && d != 6) return 4;   /* infeasible */
  if (n > 2) {
    if (k > 100) return 5;          /* late */
  }
  return 0;
}
"""

RUNS = [[0, 0], [3, 7], [5, 101], [2, 3], [-4, -1]]


def reference(program_of) -> tuple[GoalBoard, frozenset[str]]:
    """A board, and the goals a complete predicate analysis covers on a board of its own."""
    board = program_of(PROGRAM)
    truth = GoalBoard(board.program, board.executor)
    PredicateAnalysis().run(truth, Job(truth.open(), Budget.seconds(60)))
    assert truth.infeasible and len(truth.covered) + len(truth.infeasible) == len(truth.goals)
    return board, frozenset(truth.covered)


def test_a_concrete_run_never_leaves_the_monitor_of_a_complete_arg(program_of):
    board = program_of(PROGRAM)
    arg = PredicateAnalysis().run(board, Job(board.open(), Budget.seconds(60))).state
    monitor = arg.monitor()
    for inputs in RUNS:
        edges, _ = execute(board.program, inputs)
        q = monitor.initial()
        for edge in edges:
            q = monitor.step(q, edge)
            assert q is not None, f"run {inputs} left the monitor at {edge!r}"
            assert q != TOP  # a complete ARG knows every state
    dead = board.goals[goal_at(board, line_of(PROGRAM, "i < 0"), True)].edge
    assert any(monitor.step(s, dead) is None for s in monitor.moves if dead in s.location.leaving)


def test_the_condition_of_a_complete_arg_with_every_goal_decided_leaves_nothing(program_of):
    board = program_of(PROGRAM)
    arg = PredicateAnalysis().run(board, Job(board.open(), Budget.seconds(60))).state
    condition = arg.condition(board)
    q = condition.initial()
    assert all(condition.step(q, e) is None for e in q.location.leaving)
    assert condition.step(q, q.location.leaving[0]) is None
    # with nothing decided (no board), every goal edge keeps its part open
    assert all(arg.condition().step(q, e) is not None for e in q.location.leaving)


def partial_arg(board: GoalBoard, stop: str, guide: str):
    """An ARG the clock stopped (in slices, until it has something to guide with: an edge
    proven infeasible for a monitor, a part with every goal decided for a condition; how
    far one slice gets depends on the machine's load), or one of a job for one goal."""
    if stop == "clock":
        analysis, state = PredicateAnalysis(), None
        while True:
            outcome = analysis.run(board, Job(board.open(), Budget.seconds(0.05), state=state))
            state = outcome.state
            assert outcome.stopped == "budget", "the analysis finished before the clock stopped it"
            if guide == "monitor" and any(s.pruned for s in state.states() if s.expanded) \
                    or guide == "condition" and state.condition(board).done:
                return state
    late = goal_at(board, line_of(PROGRAM, "late"), False)
    return PredicateAnalysis().run(board, Job(frozenset({late}), Budget.seconds(60))).state


@pytest.mark.parametrize("guide", ["monitor", "condition"])
@pytest.mark.parametrize("stop", ["clock", "one-goal", "complete"])
@pytest.mark.parametrize("analysis", [ValueAnalysis, PredicateAnalysis])
def test_no_reachable_goal_is_proven_infeasible_under_a_guide(program_of, guide, stop, analysis):
    board, reachable = reference(program_of)
    if stop == "complete":  # guide a run on a board of its own: nothing decided there
        first = PredicateAnalysis().run(board, Job(board.open(), Budget.seconds(60))).state
        board = GoalBoard(board.program, board.executor)
        automaton = first.monitor() if guide == "monitor" else first.condition()
    else:
        first = partial_arg(board, stop, guide)
        automaton = first.monitor() if guide == "monitor" else first.condition(board)
    seconds = 20 if analysis is PredicateAnalysis else 4  # predicate must finish; value need not
    outcome = analysis().run(board, Job(board.open(), Budget.seconds(seconds), **{guide: automaton}))
    assert not set(board.infeasible) & reachable
    for record in list(board.records):  # every claim survives every native replay
        assert not board.executor.run(record.test.inputs).covered & set(board.infeasible)
    if analysis is PredicateAnalysis:  # it finishes, and the guide did cut something
        assert outcome.stopped == "done" and outcome.state.skipped == {guide}


def test_a_monitor_of_a_complete_arg_prunes_and_still_proves(program_of):
    board, reachable = reference(program_of)
    first = PredicateAnalysis().run(board, Job(board.open(), Budget.seconds(60))).state
    fresh = GoalBoard(board.program, board.executor)
    outcome = PredicateAnalysis().run(fresh, Job(fresh.open(), Budget.seconds(60), monitor=first.monitor()))
    assert outcome.state.skipped == {"monitor"} and outcome.state.complete
    assert set(fresh.infeasible) == set(board.infeasible) and set(fresh.covered) == reachable
