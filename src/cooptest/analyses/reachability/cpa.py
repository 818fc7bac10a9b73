"""The CPA algorithm: worklist reachability over the CFA, apart from what analyses compute.

An analysis is a configurable program analysis (CPAchecker): an initial state and
precision, a transfer relation, a precision adjustment and a stop operator (merge is
always merge-sep here: states are never joined, which keeps every ARG path a single
CFA path that a counterexample check can replay). :func:`explore` expands the frontier
until it meets a target state (a state reached by an edge the caller wants checked),
returns it, and can be called again to go on: CEGAR wraps it (``cegar.py``).

Interprocedural control flow is the algorithm's business, not the analyses': a call to
a function with a body enters its CFA with the call pushed on the state's call stack, a
return pops it. The call stack is bounded (``max_depth``, ``max_recursion``): a state
that would exceed it is not expanded and the ARG is marked incomplete, as is a call
through a function pointer that cannot be resolved statically.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol

from cooptest.core.budget import Budget
from cooptest.analyses.reachability.arg import ARGState, CallStack, ReachabilityARG
from cooptest.cfa.calls import callee_name
from cooptest.cfa.ir import CallEdge, Edge, Location, Program, ReturnEdge


@dataclass(frozen=True)
class Successor:
    edge: Edge
    target: Location
    call_stack: CallStack


class CPA(Protocol):
    """What an analysis computes; the algorithm below decides where and when."""

    name: str

    def initial_state(self, program: Program) -> Any: ...

    def initial_precision(self) -> Any: ...

    def transfer(self, state: ARGState, succ: Successor, precision: Any) -> Any | None:
        """The abstract data of ``state``'s successor along ``succ.edge`` (None:
        infeasible)."""

    def adjust(self, data: Any, location: Location, call_stack: CallStack, precision: Any,
               target: bool) -> Any | None:
        """Precision adjustment (e.g. computing an abstraction); None: infeasible.
        ``target`` says the state will be checked as a counterexample."""

    def stop(self, data: Any, reached: list[ARGState], precision: Any) -> ARGState | None:
        """A reached state covering ``data`` (then it need not be expanded), or None."""

    def snapshot(self, precision: Any, location: Location) -> Any:
        """The part of ``precision`` a state at ``location`` is computed with."""


@dataclass
class CallStackBound:
    max_depth: int = 12
    max_recursion: int = 3


def successors(program: Program, state: ARGState, bound: CallStackBound,
               arg: ReachabilityARG) -> Iterator[Successor]:
    """The CFA successors of ``state`` with their call stacks (see module docstring)."""
    stack = state.call_stack
    for edge in state.location.leaving:
        if isinstance(edge, CallEdge):
            name = callee_name(edge)
            if name is None:
                if not isinstance(edge.callee, str):
                    arg.incomplete.add("function pointer")
                    continue
            cfa = program.functions.get(name) if name is not None else None
            if cfa is not None:
                if len(stack) >= bound.max_depth or sum(
                        1 for c in stack if callee_name(c) == name) >= bound.max_recursion:
                    arg.incomplete.add("call stack bound")
                    continue
                yield Successor(edge, cfa.entry, stack + (edge,))
                continue
        if isinstance(edge, ReturnEdge) and stack:
            yield Successor(edge, stack[-1].dst, stack[:-1])
            continue
        yield Successor(edge, edge.dst, stack)


def explore(program: Program, cpa: CPA, arg: ReachabilityARG, budget: Budget,
            is_target: Callable[[Edge], bool], bound: CallStackBound) -> ARGState | None:
    """Expand the frontier until a target state appears (returned, left in the ARG and
    the frontier) or the frontier is empty or the budget is spent (None)."""
    if arg.root is None:
        root = ARGState(program.main.entry, (), cpa.initial_state(program),
                        precision=cpa.snapshot(arg.precision, program.main.entry))
        arg.add(root)
        arg.frontier.append(root)
    while arg.frontier:
        if budget.expired():
            return None
        state = arg.frontier[0]
        if state.removed or state.covered_by is not None:
            arg.frontier.popleft()
            continue
        target = _expand_one(program, cpa, arg, state, is_target, bound)
        if target is not None:
            return target
        arg.frontier.popleft()
    return None


def _expand_one(program: Program, cpa: CPA, arg: ReachabilityARG, state: ARGState,
                is_target: Callable[[Edge], bool], bound: CallStackBound) -> ARGState | None:
    """Compute the missing children of ``state``; stop at the first target child (the
    state stays at the head of the frontier so that its other children follow)."""
    for succ in successors(program, state, bound, arg):
        if succ.edge in state.children:
            continue
        data = cpa.transfer(state, succ, arg.precision)
        if data is None:
            continue
        target = is_target(succ.edge)
        data = cpa.adjust(data, succ.target, succ.call_stack, arg.precision, target)
        if data is None:
            continue
        child = arg.add(ARGState(succ.target, succ.call_stack, data, state, succ.edge,
                                 cpa.snapshot(arg.precision, succ.target)))
        covering = cpa.stop(data, [s for s in arg.reached[child.key] if s is not child],
                            arg.precision)
        if covering is not None and not target:
            arg.cover(child, covering)
        else:
            arg.frontier.append(child)
        if target:
            return child
    return None
