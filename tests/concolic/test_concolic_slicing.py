"""Resumable state: concolic testing run in short slices, its state passed back each
time, reaches the verdicts of one long run. Work a slice's deadline interrupts is pending
in the state, never a verdict (the exhaustion proof of ``EXACT`` needs every path
executed symbolically and exactly)."""
from __future__ import annotations

import pytest

import z3

from cooptest.analyses.concolic import ConcolicAnalysis
from cooptest.analyses.concolic.searchers.cgs import ContextGuided
from cooptest.analyses.concolic.solver import UNKNOWN, PathSolver
from cooptest.core.analysis import Job, Outcome
from cooptest.core.budget import Budget

from concolic_programs import EXACT, MANY_INPUTS, MEMORY, NESTED

SLICE = 0.05

# symbolic executions of ~500 CFA edges, with two infeasible goals for the exhaustion proof
LOOPING = r"""
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int s = 0;
  for (int i = 0; i < LOOPS; i++) s = s + (x & 1);
  if (x > 5) {
    if (x < 3) return 2;
  }
  if (s > LOOPS) return 3;
  if (x == 7) s++;
  if (x == 9) s++;
  if (x == 11) s++;
  return s;
}
"""


def sliced(board, max_slices: int = 2000) -> tuple[Outcome, int]:
    """Slices until the analysis stops for another reason than its budget; a fresh
    analysis object each time, so that only the state carries over. A slice grows by
    SLICE every 200: on a loaded machine one native run and its symbolic execution can take longer
    than SLICE, and slices that never finish an iteration never reach a verdict."""
    state = None
    for n in range(1, max_slices + 1):
        budget = Budget.seconds(SLICE * (1 + n // 200))
        outcome = ConcolicAnalysis().run(board, Job(frozenset(board.goals), budget, state=state))
        state = outcome.state
        if outcome.stopped != "budget":
            return outcome, n
    raise AssertionError(f"no verdict after {max_slices} slices")


@pytest.mark.parametrize("source", [EXACT, NESTED, MANY_INPUTS, MEMORY, LOOPING.replace("LOOPS", "100")],
                         ids=["exact", "nested", "many-inputs", "memory", "looping"])
def test_slices_reach_the_verdicts_of_one_run(make_program, source: str) -> None:
    whole = make_program(source, name="whole.c")
    one = ConcolicAnalysis().run(whole, Job(frozenset(whole.goals), Budget.seconds(20.0)))
    parts = make_program(source, name="parts.c")
    outcome, slices = sliced(parts)
    assert outcome.stopped == one.stopped
    assert parts.covered.keys() == whole.covered.keys()
    assert parts.infeasible.keys() == whole.infeasible.keys()
    assert outcome.state.complete == one.state.complete
    assert outcome.state.exact == one.state.exact


def test_sliced_exhaustion_is_a_proof(make_program) -> None:
    """``EXACT``'s tree is exhausted exactly across slices: the x < 3 inside x > 5 is
    proven infeasible, however the slices interrupt the runs, symbolic executions and queries."""
    board = make_program(EXACT)
    outcome, slices = sliced(board)
    assert outcome.state.complete and outcome.state.exact and not outcome.state.pending
    (goal,) = board.infeasible
    assert board.goals[goal].line == 6
    assert "solver_unknown" not in board.stats


def test_a_deadline_inside_a_run_leaves_it_pending(make_program) -> None:
    """A job whose deadline passes during the native runs leaves those inputs pending
    (with the node they were solved for), the tree unchanged and exact."""
    board = make_program(MANY_INPUTS)
    analysis = ConcolicAnalysis()
    state = analysis.new_state(board)
    budget = Budget.seconds(3600)
    submit = board.submit

    def late(inputs, origin):  # the deadline passes during the first native run
        ex = submit(inputs, origin)
        budget.cancel()
        return ex
    board.submit = late
    outcome = analysis.run(board, Job(frozenset(board.goals), budget, state=state))
    board.submit = submit
    assert outcome.stopped == "cancelled"
    assert state.tree.paths == 0 and state.exact and state.pending[0].inputs == []
    outcome = analysis.run(board, Job(frozenset(board.goals), Budget.seconds(20.0), state=state))
    assert set(board.covered) == set(board.goals) and state.exact


class CancelDuringSymbolicExecution(ContextGuided):
    """Cancels ``budget`` at the first CFA edge of the next symbolic execution."""

    def __init__(self, ctx, budget: Budget) -> None:
        super().__init__(ctx)
        self.budget = budget

    def observers(self, resumed=None):
        return [lambda edge, state: self.budget.cancel()]


def test_a_symbolic_execution_the_deadline_interrupts_is_pending_not_inexact(make_program) -> None:
    board = make_program(LOOPING.replace("LOOPS", "400"))  # > 1024 edges: symbolic execution sees the deadline
    analysis = ConcolicAnalysis()
    state = analysis.new_state(board)
    budget = Budget.seconds(3600)
    plain, state.searcher = state.searcher, CancelDuringSymbolicExecution(state.searcher.ctx, budget)
    outcome = analysis.run(board, Job(frozenset(board.goals), budget, state=state))
    assert outcome.stopped == "cancelled" and board.executions >= 1  # run natively, symbolic execution interrupted
    assert state.tree.paths == 0 and state.exact and state.pending[0].inputs is not None
    state.searcher = plain
    outcome = analysis.run(board, Job(frozenset(board.goals), Budget.seconds(30.0), state=state))
    assert outcome.state.complete and len(board.infeasible) == 2


def test_an_unknown_answers_only_queries_with_no_more_time() -> None:
    # factoring two random 20-bit primes: z3 takes most of a minute, so that no 1-ms or
    # 50-ms limit can be outrun even when the timer is served late on a loaded machine
    # (65521 x 65519, tens of milliseconds, sometimes came back sat there)
    x, y = z3.BitVecs("in0 in1", 40)
    hard = z3.And(x * y == 665179 * 978077, z3.UGT(x, 1), z3.UGT(y, 1), z3.ULT(x, 1 << 20), z3.ULT(y, 1 << 20))
    solver = PathSolver(timeout=30.0)
    assert solver.solve([], hard, timeout_ms=1).status == UNKNOWN
    assert solver.solve([], hard, timeout_ms=1).status == UNKNOWN and solver.stats.cache_hits == 1
    assert solver.solve([], hard, timeout_ms=50).status == UNKNOWN  # asked again: more time
    assert solver.stats.cache_hits == 1 and solver.stats.z3_calls == 2
