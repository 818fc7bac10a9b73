"""Counterexample checks and what refinements learn from a spurious path.

A target state of the ARG is checked by executing the concrete CFA edges of its ARG path
symbolically, in a fresh :class:`SymbolicState` from the entry of main (strongest post,
bit-precise C semantics of ``semantics.py``). Each constraint of the path condition is
tagged with the edge that produced it, so that z3's unsat core of an infeasible path
names the edges that make it infeasible: the explicit value analysis tracks the variables
those edges read (and, transitively, what the assignments feeding them read), the
predicate analysis computes weakest preconditions of their conditions (``predicate.py``).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any, Callable

import z3

from cooptest.core.budget import Budget
from cooptest.analyses.reachability.cpa import solve
from cooptest.cfa.calls import path_contexts
from cooptest.analyses.symbolic import Input, SymbolicState
from cooptest.cfa.ctype import FloatType, IntType
from cooptest.cfa.ir import (AssignEdge, AssumeEdge, CallEdge, Edge, Expr, Program, ReturnEdge,
                             Var, variables_of)

FEASIBLE, SPURIOUS, UNKNOWN = "feasible", "spurious", "unknown"
PATH_CHECK_CAP = 30.0  # seconds z3 may spend on one counterexample


@dataclass
class PathCheck:
    """The verdict on one ARG path: ``inputs`` (C literals) when feasible, ``core``
    (indices of the edges whose constraints contradict each other) when spurious."""

    status: str
    inputs: list[str] = field(default_factory=list)
    imprecise: bool = False
    core: set[int] = field(default_factory=set)


def input_literal(model: z3.ModelRef, inp: Input) -> str:
    """The C literal of one input in ``model``: decimal integers read as the input's
    type, floats exactly (the shortest decimal that reads back as the same bits)."""
    t = inp.type
    if isinstance(t, FloatType):
        bits = model.eval(z3.fpToIEEEBV(inp.symbol), model_completion=True)
        width = bits.size()
        raw = bits.as_long().to_bytes(width // 8, "big") if z3.is_bv_value(bits) else bytes(width // 8)
        value = struct.unpack(">f" if width == 32 else ">d", raw)[0]
        return repr(value)
    value = model.eval(inp.symbol, model_completion=True).as_long()
    return str(t.wrap(value) if isinstance(t, IntType) else value)


def execute_path(program: Program, edges: list[Edge]) -> tuple[SymbolicState, list[int]] | None:
    """The symbolic state after ``edges`` and, for every path-condition constraint, the
    index of the edge that added it; None if the state does not follow the path (a
    call the ARG treated otherwise than the symbolic state)."""
    state = SymbolicState(program)
    owner: list[int] = []
    for i, edge in enumerate(edges):
        nxt = state.step(edge)
        owner.extend([i] * (len(state.path_condition) - len(owner)))
        if i + 1 < len(edges) and nxt is not edges[i + 1].src:
            return None
    return state, owner


def check_path(program: Program, edges: list[Edge], budget: Budget) -> PathCheck:
    """The verdict on the path ``edges`` from main's entry; raises ``DeadlineReached`` when
    the budget ran out during the check (the target is checked again by the next run)."""
    executed = execute_path(program, edges)
    if executed is None:
        return PathCheck(UNKNOWN, imprecise=True)
    state, owner = executed
    solver = z3.Solver()
    marks = [z3.Bool(f"c!{k}") for k in range(len(state.path_condition))]
    for mark, constraint in zip(marks, state.path_condition):
        solver.add(z3.Implies(mark, constraint))
    result = solve(solver, budget, PATH_CHECK_CAP, *marks)
    if result == z3.sat:
        model = solver.model()
        return PathCheck(FEASIBLE, [input_literal(model, i) for i in state.inputs], state.imprecise)
    if result == z3.unsat:
        index = {str(m): k for k, m in enumerate(marks)}
        return PathCheck(SPURIOUS, core={owner[index[str(m)]] for m in solver.unsat_core()})
    return PathCheck(UNKNOWN, imprecise=state.imprecise)


Places = Callable[[Edge, Expr], set[Any]]
"""What an expression read at an edge depends on: its variables, and whatever else an
analysis tracks (the value analysis: heap cells)."""


def variables_read(edge: Edge, e: Expr) -> set[Any]:
    return variables_of(e)


def edge_reads(edge: Edge, places: Places = variables_read) -> set[Any]:
    """What the constraint(s) of an edge depend on."""
    if isinstance(edge, AssumeEdge):
        return places(edge, edge.cond)
    if isinstance(edge, AssignEdge):
        return places(edge, edge.rhs) | (places(edge, edge.lhs) - _target(edge, edge.lhs, places))
    if isinstance(edge, CallEdge):
        return set().union(*(places(edge, a) for a in edge.args))
    if isinstance(edge, ReturnEdge) and edge.value is not None:
        return places(edge, edge.value)
    return set()


def _target(edge: Edge, lhs: Expr, places: Places) -> set[Any]:
    """The place an lvalue writes (its pointer and indices are read, not written)."""
    if isinstance(lhs, Var):
        return {lhs.var}
    return places(edge, lhs) - set().union(*(places(edge, c) for c in lhs.children()))


def relevant_places(program: Program, edges: list[Edge], core: set[int],
                       places: Places = variables_read) -> set[Any]:
    """The places (by default: variables) read by the core's edges and, going backwards
    along the path, by the assignments (parameter bindings, returned values) that
    define them."""
    contexts = path_contexts(program, edges)
    relevant: set[Any] = set()
    for i in range(len(edges) - 1, -1, -1):
        edge, ctx = edges[i], contexts.get(i)
        if i in core:
            relevant |= edge_reads(edge, places)
        if isinstance(edge, AssignEdge) and places(edge, edge.lhs) & relevant:
            relevant |= places(edge, edge.rhs)
        elif isinstance(edge, CallEdge) and ctx is not None:
            assert ctx.callee is not None  # path_contexts: an entered call's callee
            callee = program.functions[ctx.callee]
            for param, a in callee.bind(edge.args):
                if a is not None and param in relevant:
                    relevant |= places(edge, a)
        elif isinstance(edge, ReturnEdge) and ctx is not None:
            call = ctx.call
            assert call is not None  # path_contexts: the call a return returns to
            lhs = call.lhs
            if lhs is not None and edge.value is not None and places(call, lhs) & relevant:
                relevant |= places(edge, edge.value)
    return relevant
