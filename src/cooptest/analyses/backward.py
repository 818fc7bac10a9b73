"""Interprocedural backward reachability: the steps of a weakest-precondition walk from
a target back towards the start of the program, with call strings and widening.

A *condition* is a location, a call string and a formula (``analyses.wp.Formula``) that
every state there must satisfy to reach the target. One backward step takes it over
every CFA edge into its location (:meth:`BackwardReachability.steps`) to the
conditions before those edges, ``BackwardTransfer.pre`` over-approximating each
pre-image. A client (BiTe's R-states, ``cooperation/bite.py``) keeps the conditions per
location and call string for subsumption and removes the unsatisfiable ones
(:meth:`BackwardReachability.unsatisfiable`); when no condition is left to extend, none
reached the start of the program and no step raised :class:`Incomplete`, no execution
reaches the target.

Call strings: the call string of a condition is the stack of calls the walk returned
through (innermost last). At a function's entry, a non-empty call string continues at
its innermost call; an empty one continues at every call of the function in the
program (the start of the program, for ``main``). A call through a pointer may call any
function whose address the program takes (names anywhere but as a direct callee;
library callbacks are refused by ``cfa.proof_blockers``), so it is one of their callers and
the walk enters each of them from it; only a pointer made from an integer could hold
another, and a program that makes one is never complete. A call of a library function
that may write memory, and call strings longer than ``max_stack``, are not followed
either (:class:`Incomplete`).

Widening at loop heads: exact weakest preconditions around a loop never repeat (``c+1 <
0``, ``c+2 < 0``, ... and, bit-precisely, none implies the last), so a target behind a
loop would never be proven unreachable. A condition that comes back to a loop head its
backward path already went through (same call string) is replaced by the conjunction
of those literals of the conditions kept there that it implies (each checked by z3; a
check z3 cannot decide drops its literal). That formula is weaker, so every execution
that satisfied the exact one satisfies it, and it is made of finitely many literals, so
the conditions of the loop head are subsumed after a few rounds and the walk can
complete. A too-weak formula only reaches the start of the program: no proof, never a
wrong one.

The condition of a loop about none of the formula's variables is skipped (the weakest
precondition of a skipped assume is weaker, hence sound): a loop the target does not
depend on then adds no literal per iteration.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

import z3

from cooptest.analyses.symbolic import SymbolicState
from cooptest.analyses.wp import BackwardTransfer, FrameState, Formula, memory_reads, truth
from cooptest.cfa import libc_model
from cooptest.cfa.calls import (NO_CALL, CallContext, address_taken, call_targets, callee_name,
                                callers, forged_function_pointer)
from cooptest.cfa.ctype import FloatType, PointerType
from cooptest.cfa.ir import (AddrOf, AssumeEdge, Binary, CallEdge, Edge, Expr, FuncRef,
                             Location, Program, ReturnEdge, StringLit, TerminateEdge,
                             variables_of)

Stack = tuple[CallEdge, ...]
Heads = frozenset[tuple[int, Stack]]  # loop heads (and call strings) on a backward path
Literals = list[tuple[Expr, bool]]


class Incomplete(Exception):
    """The backward walk cannot consider every path into a location: it proves nothing."""


@dataclass(frozen=True)
class Step:
    """One backward step: over ``edge`` (in call context ``context``) to ``location``
    under call string ``stack``."""

    edge: Edge
    context: CallContext
    location: Location
    stack: Stack


@dataclass(frozen=True)
class Extension:
    """A condition one backward step leads to, and the loop heads its path went through."""

    step: Step
    formula: Formula
    heads: Heads


class BackwardReachability:
    """The backward steps of one program (see the module docstring)."""

    def __init__(self, program: Program, max_stack: int = 6, solver_cap: float = 2.0) -> None:
        self.program, self.max_stack, self.solver_cap = program, max_stack, solver_cap
        self.wp = BackwardTransfer(program)
        self.address_taken = address_taken(program)
        self.callers = callers(program, self.address_taken)
        self.forged = forged_function_pointer(program)
        self._connected: frozenset[int] | None = None  # location ids, once asked

    def connected(self, location: Location) -> bool:
        """Whether some path of the program leads from its start to ``location``: along
        the CFA edges, and from a call into every function it may call (through a
        pointer: any whose address is taken; any at all when a called pointer may be
        made from an integer). A condition at a location that is not connected holds
        for no execution."""
        if self._connected is None:
            entry = self.program.functions[self.program.entry].entry
            seen, todo = {entry.id}, [entry]
            while todo:
                for edge in todo.pop().leaving:
                    targets = [edge.dst]
                    if isinstance(edge, CallEdge):
                        names = set(self.program.functions) if self.forged is not None \
                            else call_targets(self.program, edge, self.address_taken)
                        targets += [self.program.functions[n].entry for n in sorted(names)]
                    for t in targets:
                        if t.id not in seen:
                            seen.add(t.id)
                            todo.append(t)
            self._connected = frozenset(seen)
        return location.id in self._connected

    def at_start(self, location: Location, stack: Stack) -> bool:
        """Whether a condition here holds at the start of the program: the entry of
        ``main`` with no call to return to."""
        return not stack and location.function == self.program.entry \
            and location is self.program.functions[location.function].entry

    def steps(self, location: Location, stack: Stack) -> Iterator[Step]:
        """The CFA edges into ``location`` with the context of each backward step and
        where it leads: into a callee's exit through a call it returned from, out of a
        function's entry into its (known) callers."""
        cfa = self.program.functions[location.function]
        if location is cfa.entry:
            if stack:
                call = stack[-1]
                yield Step(call, CallContext(call, location.function), call.src, stack[:-1])
            elif location.function != self.program.entry:
                if location.function in self.address_taken and self.forged is not None:
                    raise Incomplete(self.forged)
                for call in self.callers.get(location.function, []):
                    yield Step(call, CallContext(call, location.function), call.src, ())
        for edge in location.entering:
            if isinstance(edge, CallEdge):
                yield from self._through_call(edge, stack)
            elif isinstance(edge, ReturnEdge):
                yield Step(edge, CallContext(stack[-1]) if stack else NO_CALL, edge.src, stack)
            elif not isinstance(edge, TerminateEdge):
                yield Step(edge, NO_CALL, edge.src, stack)

    def _through_call(self, call: CallEdge, stack: Stack) -> Iterator[Step]:
        name = callee_name(call)
        if name is not None:
            yield from self._into(call, name, stack)
            return
        if self.forged is not None:
            raise Incomplete(self.forged)
        for target in sorted(self.address_taken):  # whichever the pointer holds
            yield from self._into(call, target, stack)

    def _into(self, call: CallEdge, name: str, stack: Stack) -> Iterator[Step]:
        """Backwards through ``call`` of ``name``: into its body's exit, or over a
        library function's call."""
        body = self.program.functions.get(name)
        if body is None:
            if libc_model.may_write(call, name):
                raise Incomplete(f"line {call.line}: {name} may write memory")
            yield Step(call, NO_CALL, call.src, stack)
            return
        if len(stack) >= self.max_stack:
            raise Incomplete(f"call strings longer than {self.max_stack}")
        # back into the callee: the same formula at its exit, the call pushed
        for edge in body.exit.entering:
            if isinstance(edge, ReturnEdge):
                yield Step(edge, CallContext(call), edge.src, stack + (call,))
            elif call.lhs is not None:
                raise Incomplete(f"{name} may end without returning a value")
            else:
                yield Step(edge, NO_CALL, edge.src, stack + (call,))

    def extend(self, formula: Formula, location: Location, stack: Stack, heads: Heads,
               kept: Callable[[tuple[int, Stack]], list[Formula]], timeout_ms: int,
               crossed: set[Edge]) -> list[Extension] | None:
        """The conditions one backward step from ``formula`` at ``location`` leads to,
        widened where they come back to a loop head of ``heads`` against the formulas
        ``kept`` there; None when the clock interrupted a widening. Every edge a step
        went over joins ``crossed``, also where it led to no condition: a proof by the
        walk reads those edges' semantics and no other's."""
        out = []
        for step in self.steps(location, stack):
            crossed.add(step.edge)
            cases = [formula] if self.irrelevant(formula, step.edge) else self.wp.pre(formula, step.edge, step.context)
            head = (step.location.id, step.stack)
            path_heads = heads | {head} if step.location.is_loop_head else heads
            for case in cases:
                if head in heads:
                    widened = self.widen(case, step.stack, kept(head), timeout_ms)
                    if widened is None:
                        return None
                    case = widened
                out.append(Extension(step, case, path_heads))
        return out

    def widen(self, formula: Formula, stack: Stack, kept: list[Formula], timeout_ms: int) -> Formula | None:
        """The literals of the ``kept`` formulas that ``formula`` implies (module
        docstring); None when the clock interrupted a check."""
        own = [(e, p) for e, p in formula if checkable(e)]
        wanted = set()
        for k, (e, p) in {k: lit for f in kept for k, lit in f.literals.items()}.items():
            if not checkable(e):
                continue
            implied = self.unsatisfiable(stack, own + [(e, not p)], timeout_ms)
            if implied is None:
                return None
            if implied:
                wanted.add(k)
        return Formula({k: lit for f in kept for k, lit in f.literals.items() if k in wanted})

    @staticmethod
    def irrelevant(formula: Formula, edge: Edge) -> bool:
        """A loop's condition about none of the formula's variables is skipped (WP of
        a skipped assume is weaker, hence sound): a loop the target does not depend on
        then adds no literal per iteration, and its conditions are subsumed after one."""
        if not (isinstance(edge, AssumeEdge) and edge.src.is_loop_head and len(formula)):
            return False
        mentioned = set().union(*(variables_of(e) for e, _ in formula))
        return not variables_of(edge.cond) & mentioned

    def contradiction(self, formula: Formula, stack: Stack, timeout_ms: int) -> bool | None:
        """Whether ``formula`` is unsatisfiable under call string ``stack`` (True only
        on z3's unsat), from its literals over registers alone (a subset: unsat of it
        is unsat of all); None when the clock interrupted the check."""
        return self.unsatisfiable(stack, [(e, p) for e, p in formula if checkable(e)], timeout_ms)

    def unsatisfiable(self, stack: Stack, literals: Literals, timeout_ms: int) -> bool | None:
        """Whether no state under call string ``stack`` satisfies the conjunction of
        ``literals`` (checkable ones; True only on z3's unsat); None when the clock interrupted
        the check (a timeout below ``solver_cap``)."""
        if not literals:
            return False
        probe = FrameState.of(SymbolicState.havoc_at(self.program, list(stack)))
        try:
            term = truth(probe, literals)
        except (TypeError, z3.Z3Exception):
            return False
        if probe.imprecise:
            return False
        solver = z3.SolverFor("QF_BV")
        solver.set("timeout", timeout_ms)
        solver.add(*probe.path_condition, term)
        result = solver.check()
        if result == z3.unsat:
            return True
        if result == z3.unknown and timeout_ms < self.solver_cap * 1000:
            return None
        return False


def checkable(e: Expr) -> bool:
    """A literal whose encoding over fresh registers is exact: no memory, no address
    or function value, no floating point, no division (whose guard is a side
    condition of its own)."""
    if any(True for _ in memory_reads(e)):
        return False
    for sub in e.walk():
        if isinstance(sub, (AddrOf, FuncRef, StringLit)) or isinstance(sub.type, (FloatType, PointerType)):
            return False
        if isinstance(sub, Binary) and sub.op in ("/", "%"):
            return False
    return True


__all__ = ["BackwardReachability", "Extension", "Heads", "Incomplete", "Stack", "Step", "checkable"]
