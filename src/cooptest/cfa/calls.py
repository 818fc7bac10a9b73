"""Which function a call edge calls: the one place every analysis asks.

A call names its callee (``f(x)``) or computes it (``(*fp)(x)``). The name is known
without running the program when the callee expression folds to a function designator
(``(&f)(x)``); otherwise only a state knows it (the symbolic state
resolves the pointer's value to a function address, see ``SymbolicState``). Analyses
that cannot resolve a pointer treat the call as unknown, never as a call of nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from cooptest.cfa.fold import fold
from cooptest.cfa.ir import AddrOf, CallEdge, Edge, FuncRef, Program, ReturnEdge


def callee_name(edge: CallEdge) -> str | None:
    """The function a call edge calls, when it is known without running the program."""
    if isinstance(edge.callee, str):
        return edge.callee
    e = fold(edge.callee)
    while isinstance(e, AddrOf):
        e = e.operand
    return e.name if isinstance(e, FuncRef) else None


@dataclass(frozen=True)
class CallContext:
    """Where a call or return edge goes, as the path (or call stack) being walked says.

    For a call edge, ``callee`` is the function whose body it enters (None: a function
    without a body, or a pointer nobody resolved). For a return edge, ``call`` is the
    call edge it returns to (None: the return of the entry function)."""

    call: CallEdge | None = None
    callee: str | None = None


NO_CALL = CallContext()


def path_contexts(program: Program, edges: Sequence[Edge]) -> dict[int, CallContext]:
    """The context of every call edge of a path that enters a body and of every return
    edge that leaves one. The path itself says which calls were entered (the next edge
    starts at a function's entry, also for a call through a pointer); a call that ends
    the path is entered if its callee is statically known to have a body."""
    out: dict[int, CallContext] = {}
    stack: list[CallEdge] = []
    for i, edge in enumerate(edges):
        if isinstance(edge, CallEdge):
            if i + 1 < len(edges):
                nxt = edges[i + 1].src
                callee = nxt.function if nxt is not edge.dst else None
            else:
                callee = callee_name(edge)
            if callee is not None and callee in program.functions:
                stack.append(edge)
                out[i] = CallContext(edge, callee)
        elif isinstance(edge, ReturnEdge) and stack:
            out[i] = CallContext(stack.pop())
    return out
