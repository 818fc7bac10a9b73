"""Which function a call edge calls, and which calls may enter a function: the one place
every analysis asks.

A call names its callee (``f(x)``) or computes it (``(*fp)(x)``). The name is known
without running the program when the callee expression folds to a function designator
(``(&f)(x)``); otherwise only a state knows it (the symbolic state
resolves the pointer's value to a function address, see ``SymbolicState``). Analyses
that cannot resolve a pointer treat the call as unknown, never as a call of nothing.
"""
from __future__ import annotations

from functools import lru_cache

from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

from cooptest.cfa.ctype import FunctionType, IntType, PointerType
from cooptest.cfa.fold import fold
from cooptest.cfa.ir import (AddrOf, AssignEdge, AssumeEdge, CallEdge, Cast, Const, Edge, ErrorEdge,
                             Expr, FuncRef, FunctionCFA, Location, Program, ReturnEdge,
                             TerminateEdge, Var, Variable, in_memory)


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


def first_decision(program: Program) -> tuple[str, int] | None:
    """The file and line of the first goal every run meets: the first condition with a
    goal (or ``reach_error()`` call) on the one path all runs share from ``main``'s entry,
    calls entered as they run. A run that ends before reaching any goal ended on that
    path, before that line. None where the shared path ends first, or forks at what is
    no goal (a condition of a system header), or calls through a pointer."""
    function, location = program.main, program.main.entry
    returns: list[tuple[FunctionCFA, Location]] = []  # where each entered call goes on
    seen: set[Location] = set()
    while location not in seen:  # a loop without a condition ends no run: say nothing
        seen.add(location)
        leaving = location.leaving
        if not leaving:  # the function's exit: back to its caller
            if not returns:
                return None
            function, location = returns.pop()
            continue
        goal = next((e for e in leaving if isinstance(e, ErrorEdge)
                     or (isinstance(e, AssumeEdge) and e.branch is not None)), None)
        if goal is not None:
            return (getattr(goal, "file", "") or function.file, goal.line)
        if len(leaving) != 1 or isinstance(leaving[0], (AssumeEdge, TerminateEdge)):
            return None
        edge = leaving[0]
        callee = program.functions.get(callee_name(edge) or "") if isinstance(edge, CallEdge) else None
        if isinstance(edge, CallEdge) and callee_name(edge) is None:
            return None  # through a pointer: which body runs is the run's
        if callee is not None:
            returns.append((function, edge.dst))
            function, location = callee, callee.entry
        else:
            location = edge.dst
    return None


def expressions(edge: Edge) -> Iterator[Expr]:
    """Every expression ``edge`` evaluates (a direct call's callee is a name, not one)."""
    for name in ("cond", "lhs", "rhs", "value", "code"):
        e = getattr(edge, name, None)
        if isinstance(e, Expr):
            yield e
    if isinstance(edge, CallEdge):
        yield from edge.args
        if not isinstance(edge.callee, str) and callee_name(edge) is None:
            yield edge.callee


def address_taken(program: Program) -> set[str]:
    """Functions named anywhere but as the callee of a direct call: whoever holds their
    address may call them (a pointer call, a library function)."""
    return set(_address_taken(program))


@lru_cache(maxsize=8)
def _address_taken(program: Program) -> frozenset[str]:
    """A walk of the whole program, kept per program (its edges are fixed once the
    builder made it): loading a RERS program asked for it six times, 0.6 s."""
    out: set[str] = set()
    for edge in program.edges():
        for e in expressions(edge):
            out |= {sub.name for sub in e.walk() if isinstance(sub, FuncRef)}
    return frozenset(out)


def call_targets(program: Program, edge: CallEdge, addressed: set[str]) -> set[str]:
    """The functions with a body ``edge`` may enter: the one it names, or, for a call
    through a pointer, every function whose address is taken (``addressed``)."""
    name = callee_name(edge)
    return ({name} if name is not None else addressed) & program.functions.keys()


def callees(program: Program, roots: set[str], addressed: set[str] | None = None) -> set[str]:
    """``roots`` and every function they may call, directly or through a pointer
    (``addressed``: ``address_taken(program)``, when the caller has it already)."""
    addressed = address_taken(program) if addressed is None else addressed
    seen, todo = set(roots), list(roots)
    while todo:
        for edge in program.functions[todo.pop()].edges():
            if isinstance(edge, CallEdge):
                for t in call_targets(program, edge, addressed) - seen:
                    seen.add(t)
                    todo.append(t)
    return seen


def called_from(program: Program, edges: Iterable[Edge], addressed: set[str]) -> set[str]:
    """Every function the calls among ``edges`` may enter, directly or not
    (``addressed``: ``address_taken(program)``, a walk of the whole program that a
    caller asking for many sets of edges computes once)."""
    return callees(program, set().union(*(call_targets(program, e, addressed)
                                          for e in edges if isinstance(e, CallEdge))), addressed)


def callers(program: Program, address_taken: set[str]) -> dict[str, list[CallEdge]]:
    """The calls that may enter each function: its direct calls and, for a function
    whose address is taken, every call through a pointer."""
    out: dict[str, list[CallEdge]] = {}
    through_pointers: list[CallEdge] = []
    for edge in program.edges():
        if isinstance(edge, CallEdge):
            name = callee_name(edge)
            if name is not None:
                out.setdefault(name, []).append(edge)
            else:
                through_pointers.append(edge)
    for name in address_taken:
        out.setdefault(name, []).extend(through_pointers)
    return out


def forged_function_pointer(program: Program) -> str | None:
    """Why a called function pointer may hold a function whose address is not taken:
    it is made from an integer other than the null pointer constant (None: no such
    conversion; calling a null pointer calls nothing). A conversion whose pointer is
    only stored into a register that is only ever read back as an integer (CIL's
    ``compFptr = compRegistered; pended = compFptr;``) makes no pointer that is called."""
    as_integer = _read_only_as_integers(program)
    for edge in program.edges():
        for e in expressions(edge):
            for sub in e.walk():
                if isinstance(sub, Cast) and isinstance(sub.type, PointerType) \
                        and isinstance(sub.type.target, FunctionType) \
                        and not isinstance(sub.operand.type, PointerType) \
                        and not (isinstance(f := fold(sub.operand), Const) and f.value == 0) \
                        and not (isinstance(edge, AssignEdge) and e is edge.rhs
                                 and isinstance(edge.lhs, Var) and edge.lhs.var in as_integer):
                    return f"line {edge.line}: a function pointer made from an integer"
    return None


def _read_only_as_integers(program: Program) -> set[Variable]:
    """Register variables of function-pointer type every read of which converts the
    value to an integer."""
    candidates = {sub.var for edge in program.edges() for e in expressions(edge) for sub in e.walk()
                  if isinstance(sub, Var) and isinstance(sub.var.type, PointerType)
                  and isinstance(sub.var.type.target, FunctionType) and not in_memory(sub.var)}
    for edge in program.edges():
        for e in expressions(edge):
            if isinstance(edge, AssignEdge) and e is edge.lhs and isinstance(e, Var):
                continue  # written, not read
            converted = {id(sub.operand) for sub in e.walk()
                         if isinstance(sub, Cast) and isinstance(sub.type, IntType)}
            candidates -= {sub.var for sub in e.walk()
                           if isinstance(sub, Var) and id(sub) not in converted}
    return candidates
