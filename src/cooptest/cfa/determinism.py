"""Whether two native runs of a program on the same inputs can take different paths.

The board confirms a run's new goals with a second run (``core.board``): programs that
read indeterminate memory or branch on addresses take other paths from run to run. The
confirmation costs a native run per test that reaches a goal first, which on a program
where almost every concolic iteration does (pals_lcr: 460 of 1,402 runs at 60 s) is a
share of the search. A program whose path is a function of its inputs alone needs none.

``variation_source`` says why a program's path may vary, None when it cannot. It is
conservative, as a syntactic check over the CFA must be: a run's path is fixed by its
inputs if every value a branch can depend on is, which holds when the program

* reads no memory through a pointer or a computed array index (an access out of bounds
  reads whatever lies there; a constant index and a field of a variable are plain
  variables), takes no variable's address, and converts no pointer to a number;
* reads every local variable in a register only where it is definitely assigned (a
  forward must-analysis per function, as C compilers' ``-Wmaybe-uninitialized`` without
  its false negatives); a local in memory (an aggregate) must be assigned whole where it
  is declared; every parameter gets a value from the call, and a call whose result is
  used never ends without a ``return`` value;
* calls no library function but those whose results depend only on their arguments
  (``cfa.libc_model``): not ``time``, ``rand``, ``malloc``, ``getenv``, file input.

Everything else (the inputs, arithmetic, globals, which C zero-initialises, calls of the
program's own functions) is the same in every run. A wrong "cannot vary" would only
skip confirmations, as before they existed; it never makes a proof or a test wrong.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Iterable

from cooptest.cfa import libc_model
from cooptest.cfa.calls import callee_name, callees, expressions
from cooptest.cfa.ctype import IntType, PointerType, VoidType
from cooptest.cfa.fold import const_int
from cooptest.cfa.ir import (AddrOf, AssignEdge, CallEdge, Cast, DeclEdge, Deref, Edge, Expr,
                             FunctionCFA, Index, Location, NondetEdge, Program, ReturnEdge, Var,
                             Variable, in_memory, variables_of)


@lru_cache(maxsize=8)
def variation_source(program: Program) -> str | None:
    """Why two runs of ``program`` on the same inputs may take different paths (the
    first reason found, naming its line), or None if they cannot. Only the functions a
    run may enter count (main's, the destructors' after it; not the unused inline
    functions of system headers)."""
    for name in sorted(callees(program, {program.entry, *program.proof_blockers.functions})):
        cfa = program.functions[name]
        reason = _memory_or_library(program, cfa.edges()) or _unassigned_read(cfa)
        if reason is not None:
            return f"{program.path}:{reason}"
    return None


def _memory_or_library(program: Program, edges: Iterable[Edge]) -> str | None:
    for edge in edges:
        if isinstance(edge, CallEdge) and (reason := _call(program, edge)) is not None:
            return f"{edge.line}: {reason}"
        for e in expressions(edge):
            for sub in e.walk():
                if isinstance(sub, Deref | AddrOf):
                    return f"{edge.line}: memory accessed through an address"
                if isinstance(sub, Index) and const_int(sub.index) is None:
                    return f"{edge.line}: an array read at a computed index"
                if isinstance(sub, Cast) and isinstance(sub.type, IntType) \
                        and isinstance(sub.operand.type, PointerType):
                    return f"{edge.line}: an address converted to a number"
    return None


def _call(program: Program, edge: CallEdge) -> str | None:
    """Why the call's result or the callee's locals may differ between runs, or None."""
    name = callee_name(edge)
    if name is None:
        return "a call through a pointer"
    callee = program.functions.get(name)
    if callee is None:
        return None if libc_model.function(name).deterministic \
            else f"{name}() may return something else in another run"
    if any(a is None for _, a in callee.bind(edge.args)):
        return f"{name}() reads a parameter the call does not pass"
    if edge.lhs is not None and _ends_without_value(callee):
        return f"{name}() may end without returning a value"
    return None


def _ends_without_value(cfa: FunctionCFA) -> bool:
    """Whether control may reach the end of a function that returns a value without a
    ``return`` saying which (the caller then reads whatever the register holds)."""
    if isinstance(cfa.type.ret, VoidType):
        return False
    # the front end leaves such a return after an if whose arms all return: unreachable
    return any(isinstance(e, ReturnEdge) and e.value is None for loc in cfa.reachable() for e in loc.leaving)


def _unassigned_read(cfa: FunctionCFA) -> str | None:
    """The first read of a local that may not be assigned yet (a forward must-analysis:
    the registers assigned on every path to a location)."""
    registers = {v for v in cfa.locals if not in_memory(v) and not v.is_global}
    assigned: dict[Location, frozenset[Variable]] = {cfa.entry: frozenset(cfa.params)}
    work = [cfa.entry]
    while work:
        loc = work.pop()
        for edge in loc.leaving:
            before = assigned[loc]
            read = set().union(*(variables_of(e) for e in _reads(edge))) & registers
            if read - before:
                v = min(read - before, key=lambda v: v.name)
                return f"{edge.line}: {v.source_name} may be read before it is assigned"
            after = _transfer(edge, before, registers)
            if after is None:
                return f"{edge.line}: a local in memory declared without a whole initialiser"
            old = assigned.get(edge.dst)
            new = after if old is None else old & after
            if new != old:
                assigned[edge.dst] = new
                work.append(edge.dst)
    return None


def _reads(edge: Edge) -> Iterable[Expr]:
    """The expressions ``edge`` reads: all it evaluates but a plain variable it assigns."""
    for e in expressions(edge):
        if e is getattr(edge, "lhs", None) and isinstance(e, Var):
            continue
        yield e


def _transfer(edge: Edge, before: frozenset[Variable], registers: set[Variable]
              ) -> frozenset[Variable] | None:
    """The registers assigned after ``edge``; None for an in-memory local declared here
    and not assigned whole by the next edge."""
    if isinstance(edge, DeclEdge) and not edge.var.is_global:
        if edge.var in registers:
            return before - {edge.var}
        following = edge.dst.leaving
        if not (len(following) == 1 and isinstance(following[0], AssignEdge)
                and isinstance(following[0].lhs, Var) and following[0].lhs.var is edge.var):
            return None
        return before
    lhs = getattr(edge, "lhs", None)
    if isinstance(edge, AssignEdge | NondetEdge | CallEdge) and isinstance(lhs, Var) \
            and lhs.var in registers:
        return before | {lhs.var}
    return before
