"""Finding goals of a test program by source line; the CFA path of a concrete run."""
from __future__ import annotations

import z3

from cooptest.analyses.symbolic import SymbolicState
from cooptest.cfa.ir import AssumeEdge, Edge, Program
from cooptest.core.board import GoalBoard


def goal_at(program: GoalBoard, line: int, outcome: bool) -> str:
    """The branch goal of the (first) decision on ``line`` with the given outcome."""
    suffix = "T" if outcome else "F"
    return min((g for g in program.goals.values() if g.line == line and g.id.endswith(suffix)),
               key=lambda g: int(g.id[1:-1])).id


def line_of(source: str, marker: str) -> int:
    return next(i for i, text in enumerate(source.splitlines(), 1) if marker in text)


def execute(program: Program, inputs: list[int]) -> tuple[list[Edge], list[SymbolicState]]:
    """The edges a concrete run takes, and the symbolic state before each of them with
    the inputs fixed to their values (a state per point of the path)."""
    state = SymbolicState(program)
    loc = program.main.entry
    edges: list[Edge] = []
    states: list[SymbolicState] = []

    def fixed(s: SymbolicState) -> SymbolicState:
        s = s.copy()
        s.path_condition += [i.symbol == z3.BitVecVal(v, i.symbol.size())
                             for i, v in zip(s.inputs, inputs)]
        return s

    while loc.leaving and len(edges) < 2000:
        edge = loc.leaving[0]
        if isinstance(edge, AssumeEdge):
            for e in loc.leaving:
                probe = fixed(state)
                probe.step(e)
                solver = z3.Solver()
                solver.add(*probe.path_condition)
                if solver.check() == z3.sat:
                    edge = e
                    break
        states.append(fixed(state))
        edges.append(edge)
        loc = state.step(edge)
    states.append(fixed(state))
    return edges, states
