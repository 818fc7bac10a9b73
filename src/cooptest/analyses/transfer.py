"""One transfer over the CFA's edges that the analyses fill in, as CPAchecker's
ForwardingTransferRelation is for its CPAs.

``EdgeTransfer.transfer`` tells the kinds of edge apart once for every analysis, and with
them the three decisions the analyses used to make each on its own:

- a *declaration* brings an object into existence that is zero where C gives it static
  storage (a global, a ``static`` local: the CFA's ``DeclEdge`` of one) and
  indeterminate otherwise (``declare``'s ``zero``);
- a *call* enters the body the program defines for its callee, with each parameter
  bound to its argument (``FunctionCFA.bind``: None where the call passes none), or,
  where the program defines no body, calls a function outside it: the C library as
  ``cfa.libc_model`` describes it, or a pointer nobody resolved (``outside``'s
  ``name`` is then None);
- a *return* leaves the body for the call it came from.

Which function a call reaches is the static callee (``cfa.calls.callee_name``) unless
the analysis knows better (``callee``: symbolic execution resolves a pointer in its
state, a backward walk follows its path's call context). Each analysis supplies what
its domain does in each case; a direction (forward for value analysis, Horn clauses and
symbolic execution, backward for weakest preconditions) is the analysis's, the cases
are the CFA's. ``S`` is what a transfer starts from (a state, a rule under
construction, a postcondition), ``R`` what it gives.
"""
from __future__ import annotations

from typing import Generic, TypeVar

from cooptest.cfa.calls import callee_name
from cooptest.cfa.ir import (AssignEdge, AssumeEdge, CallEdge, DeclEdge, Edge, FunctionCFA, NondetEdge, Program,
                             ReturnEdge, Variable, Expr)

S = TypeVar("S")
R = TypeVar("R")


class EdgeTransfer(Generic[S, R]):
    """The dispatch (``transfer``) and the cases an analysis fills in."""

    program: Program

    def transfer(self, s: S, edge: Edge) -> R:
        if isinstance(edge, AssumeEdge):
            return self.assume(s, edge)
        if isinstance(edge, AssignEdge):
            return self.assign(s, edge)
        if isinstance(edge, DeclEdge):
            return self.declare(s, edge, zero=edge.var.is_global)
        if isinstance(edge, NondetEdge):
            return self.nondet(s, edge)
        if isinstance(edge, CallEdge):
            name = self.callee(s, edge)
            body = self.program.functions.get(name) if name is not None else None
            if body is not None:
                return self.enter(s, edge, body, body.bind(edge.args))
            return self.outside(s, edge, name)
        if isinstance(edge, ReturnEdge):
            return self.leave(s, edge)
        return self.blank(s, edge)  # blank edges, and the error and termination sinks

    def callee(self, s: S, edge: CallEdge) -> str | None:
        """The function ``edge`` calls from ``s``: the static callee."""
        return callee_name(edge)

    def assume(self, s: S, edge: AssumeEdge) -> R:
        raise NotImplementedError

    def assign(self, s: S, edge: AssignEdge) -> R:
        raise NotImplementedError

    def declare(self, s: S, edge: DeclEdge, zero: bool) -> R:
        """``edge.var`` comes into existence, zero (static storage) or indeterminate."""
        raise NotImplementedError

    def nondet(self, s: S, edge: NondetEdge) -> R:
        raise NotImplementedError

    def enter(self, s: S, edge: CallEdge, body: FunctionCFA, bindings: list[tuple[Variable, Expr | None]]) -> R:
        """``edge`` enters ``body``, each parameter bound to its argument (None: none)."""
        raise NotImplementedError

    def outside(self, s: S, edge: CallEdge, name: str | None) -> R:
        """``edge`` calls ``name``, which the program does not define (None: a pointer
        nobody resolved)."""
        raise NotImplementedError

    def leave(self, s: S, edge: ReturnEdge) -> R:
        raise NotImplementedError

    def blank(self, s: S, edge: Edge) -> R:
        raise NotImplementedError
