"""Call-graph reachability: the goals of a function that no call can enter are infeasible.

A goal lies in one function, and a function runs only when a call enters it. The calls
that may enter a function are its direct calls and, when its address is taken, every
call through a pointer (``cfa.proof_blockers.callees``, which also finds what a destructor
may call); every run starts in ``main``, which
calls the constructors first (``CFABuilder``). A function that no chain of such calls
from ``main`` reaches never runs, and neither does any goal in it: the proof is the call
graph. Nothing is claimed when a called pointer may be made from an integer
(``forged_function_pointer``: it may hold any address). A function whose address
reaches the C library, a destructor and a non-local jump are refused by the board
(``cfa.proof_blockers``), as for every prover.

The proof is flow-insensitive: a call counts wherever it stands, even where no path
leads, so that it over-approximates what runs. It takes milliseconds; the portfolio's
proving lane starts with it, and the analyses after it spend nothing on the goals of
dead code (the NT drivers' dispatch routines their harness never calls).
"""
from __future__ import annotations

from dataclasses import dataclass

from cooptest.cfa.calls import forged_function_pointer
from cooptest.cfa.ir import Program
from cooptest.cfa.calls import callees
from cooptest.core.analysis import AnalysisState, Job, Outcome, finish
from cooptest.core.board_view import Board
from cooptest.core.registry import Settings

ORIGIN = "callgraph"


@dataclass
class CallGraphState(AnalysisState):
    """The functions some chain of calls from ``main`` may enter (None: not computed,
    or no proof possible, ``why_not`` says why)."""

    reachable: frozenset[str] | None = None


def reachable_functions(program: Program) -> frozenset[str]:
    """The functions with a body that calls from ``program.entry`` may enter."""
    return frozenset(callees(program, {program.entry}))


class CallGraphAnalysis:
    """Proves the goals of unreachable functions infeasible (the module docstring)."""

    name = ORIGIN

    def run(self, board: Board, job: Job) -> Outcome:
        state = job.state if isinstance(job.state, CallGraphState) else CallGraphState(self.name)
        if state.reachable is None and state.why_not is None:
            state.why_not = forged_function_pointer(board.program)
            if state.why_not is None:
                state.reachable = reachable_functions(board.program)
        if state.reachable is not None:
            entered = []  # open goals of functions calls reach: no proof here
            for g in sorted(board.open(job.goals)):
                function = board.goals[g].function
                if function not in state.reachable:
                    board.prove_infeasible(g, f"{ORIGIN}: no call reaches {function}")
                else:
                    entered.append(g)
            board.give_up(entered, self.name, f"calls from {board.program.entry} reach its function "
                                              "(it proves the goals of functions none reaches)")
        return finish(board, job, state)


def from_settings(settings: Settings) -> CallGraphAnalysis:
    return CallGraphAnalysis()


__all__ = ["CallGraphAnalysis", "CallGraphState", "reachable_functions", "from_settings"]
