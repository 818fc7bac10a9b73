"""Explicit value analysis (CPAchecker's ValueAnalysisCPA) with CEGAR.

The abstract data is a partial map from variables to their exact values, one map for
the globals and one per active call. Only the variables of the precision are tracked
(a global set, initially empty: every variable unknown); only integer scalars that live
in registers are ever tracked (never address-taken ones), so that writes through
pointers, which the analysis does not follow, cannot change a tracked value. Values are
computed with the constant folder of the front end (``cfa.fold``: the same C integer
semantics, undefined operations folding to unknown). An assume whose condition has a
known value decides its branch; otherwise both branches are taken, and ``x == c``
teaches the taken branch the value of ``x``.

Refinement (path-prefix, as in value-analysis interpolation): from the unsat core of a
spurious path, the variables the core's constraints read and, transitively backwards,
the variables the assignments feeding them read, join the precision.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from cooptest.analyses.reachability.arg import ARGState, ReachabilityARG
from cooptest.analyses.reachability.cegar import CEGARAnalysis
from cooptest.analyses.reachability.cpa import Successor
from cooptest.cfa.calls import CallContext, callee_name, path_contexts
from cooptest.analyses.reachability.refinement import PathCheck, relevant_variables
from cooptest.cfa.ctype import IntType
from cooptest.core.budget import Budget
from cooptest.cfa.fold import fold
from cooptest.cfa.ir import (AssignEdge, AssumeEdge, Binary, CallEdge, Cast, Const, DeclEdge,
                             Edge, Expr, Location, NondetEdge, Program, ReturnEdge, Unary, Var,
                             Variable, in_memory)

Frame = frozenset[tuple[Variable, int]]


def trackable(v: Variable) -> bool:
    return isinstance(v.type, IntType) and not in_memory(v)


@dataclass
class ValuePrecision:
    """The tracked variables (replaced, never mutated: states keep it as a snapshot)."""

    tracked: frozenset[Variable] = frozenset()


@dataclass(frozen=True)
class ValueState:
    """``frames[0]`` holds the globals, ``frames[k]`` the locals of the k-th call."""

    frames: tuple[Frame, ...]

    def lookup(self, v: Variable) -> int | None:
        frame = self.frames[0] if v.is_global else self.frames[-1]
        return dict(frame).get(v)

    def frame_of(self, v: Variable) -> int:
        return 0 if v.is_global else len(self.frames) - 1

    def set(self, v: Variable, value: int | None, tracked: frozenset[Variable]) -> ValueState:
        k = self.frame_of(v)
        frame = {x: y for x, y in self.frames[k] if x is not v}
        if value is not None and v in tracked:
            frame[v] = value
        return ValueState(self.frames[:k] + (frozenset(frame.items()),) + self.frames[k + 1:])

    def evaluate(self, e: Expr) -> int | None:
        """The value of an integer expression, if the known values determine it."""
        if isinstance(e, Const):
            return e.value if isinstance(e.value, int) else None
        if isinstance(e, Var):
            return self.lookup(e.var) if trackable(e.var) else None
        if not isinstance(e, Unary | Binary | Cast) or not isinstance(e.type, IntType):
            return None
        operands = e.children()
        if not all(isinstance(o.type, IntType) for o in operands):
            return None
        values = [self.evaluate(o) for o in operands]
        if any(v is None for v in values):
            return None
        consts = [Const(o.type, v) for o, v in zip(operands, values)]
        if isinstance(e, Binary):
            folded = fold(replace(e, left=consts[0], right=consts[1]))
        else:
            folded = fold(replace(e, operand=consts[0]))
        return folded.value if isinstance(folded, Const) and isinstance(folded.value, int) else None


class ValueCPA:
    name = "value"

    def __init__(self, program: Program) -> None:
        self.program = program

    def initial_state(self, program: Program) -> ValueState:
        return ValueState((frozenset(), frozenset()))

    def initial_precision(self) -> ValuePrecision:
        return ValuePrecision()

    def snapshot(self, precision: ValuePrecision, location: Location) -> frozenset[Variable]:
        return precision.tracked

    def transfer(self, state: ARGState, succ: Successor, precision: ValuePrecision,
                 budget: Budget) -> ValueState | None:
        data: ValueState = state.data
        edge, tracked = succ.edge, precision.tracked
        if isinstance(edge, AssumeEdge):
            value = data.evaluate(edge.cond)
            if value is not None:
                return data if (value != 0) == edge.positive else None
            return self._learn(data, edge, tracked)
        if isinstance(edge, AssignEdge):
            if isinstance(edge.lhs, Var):
                return data.set(edge.lhs.var, data.evaluate(edge.rhs), tracked)
            return data
        if isinstance(edge, DeclEdge):
            return data.set(edge.var, 0 if edge.var.is_global else None, tracked)
        if isinstance(edge, NondetEdge):
            return data.set(edge.lhs.var, None, tracked) if isinstance(edge.lhs, Var) else data
        if isinstance(edge, CallEdge):
            if len(succ.call_stack) > len(state.call_stack):  # entering a body
                callee = self.program.functions[callee_name(edge)]  # type: ignore[index]
                entered = ValueState(data.frames + (frozenset(),))
                for param, arg in callee.bind(edge.args):
                    entered = entered.set(param, data.evaluate(arg) if arg is not None else None, tracked)
                return entered
            return data.set(edge.lhs.var, None, tracked) if isinstance(edge.lhs, Var) else data
        if isinstance(edge, ReturnEdge) and len(succ.call_stack) < len(state.call_stack):
            call = state.call_stack[-1]
            value = data.evaluate(edge.value) if edge.value is not None else None
            returned = ValueState(data.frames[:-1])
            return returned.set(call.lhs.var, value, tracked) if isinstance(call.lhs, Var) else returned
        return data

    @staticmethod
    def _learn(data: ValueState, edge: AssumeEdge, tracked: frozenset[Variable]) -> ValueState:
        """``[x == c]`` (or ``![x != c]``) with ``x`` unknown: ``x`` is ``c`` afterwards."""
        cond = edge.cond
        if isinstance(cond, Binary) and (cond.op, edge.positive) in (("==", True), ("!=", False)):
            for var, other in ((cond.left, cond.right), (cond.right, cond.left)):
                value = data.evaluate(other)
                if isinstance(var, Var) and value is not None and var.var in tracked:
                    return data.set(var.var, value, tracked)
        return data

    def adjust(self, data: ValueState, location: Location, call_stack: Any,
               precision: ValuePrecision, target: bool, budget: Budget) -> ValueState:
        return data

    @staticmethod
    def may_be_covered(data: ValueState) -> bool:
        return True

    @staticmethod
    def covers(other: ValueState, data: ValueState) -> bool:
        """``other`` knows no more: each of its values is also ours."""
        return all(o <= d for o, d in zip(other.frames, data.frames))


def _writes(program: Program, edge: Edge, ctx: CallContext | None) -> set[Variable]:
    """The variables an edge of a path gives a (possibly known) value."""
    if isinstance(edge, AssignEdge) and isinstance(edge.lhs, Var):
        return {edge.lhs.var}
    if isinstance(edge, DeclEdge):
        return {edge.var}
    if isinstance(edge, CallEdge) and ctx is not None:
        return set(program.functions[ctx.callee].params)  # type: ignore[index]
    if isinstance(edge, ReturnEdge) and ctx is not None and isinstance(ctx.call.lhs, Var):  # type: ignore[union-attr]
        return {ctx.call.lhs.var}  # type: ignore[union-attr]
    return set()


class ValueAnalysis(CEGARAnalysis):
    """Explicit value analysis with CEGAR (starts with an empty precision)."""

    name = "value"

    def cpa(self, program: Program) -> ValueCPA:
        return ValueCPA(program)

    def refine(self, program: Program, arg: ReachabilityARG, path: list[ARGState],
               check: PathCheck) -> ARGState | None:
        edges: list[Edge] = [s.edge for s in path[1:]]  # type: ignore[misc]
        relevant = {v for v in relevant_variables(program, edges, check.core) if trackable(v)}
        contexts = path_contexts(program, edges)
        for i, state in enumerate(path[1:]):
            missing = (_writes(program, edges[i], contexts.get(i)) & relevant) - state.precision
            if missing:
                arg.precision = ValuePrecision(arg.precision.tracked | relevant)
                return state
        return None
