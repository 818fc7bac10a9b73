"""The CPA algorithm: worklist reachability over the CFA, apart from what analyses compute.

An analysis is a configurable program analysis (CPAchecker) and analyses compose: a
:class:`CompositeCPA` is the product of

- the *control flow* (:class:`ControlFlow`: CPAchecker's location and call-stack CPAs):
  a call to a function with a body enters its CFA with the call pushed on the call
  stack, a return pops it. The call stack is bounded (``max_depth``, ``max_recursion``):
  a successor that would exceed it is not computed and the state is *truncated*, as is a
  call through a function pointer that cannot be resolved statically; either makes the
  ARG incomplete;
- one *data* component (:class:`DataCPA`: explicit values, predicates), which has a
  precision and a precision adjustment;
- any number of *automaton* components (:class:`AutomatonCPA`: the condition of
  conditional model checking, the monitor of a cooperation), each an
  :class:`~cooptest.core.automaton.EdgeAutomaton` run along the edges.

A composite successor exists iff every component has one; merge is merge-sep (states
are never joined, which keeps every ARG path a single CFA path that a counterexample
check can execute); a state is covered (stop) by a reached state at the same location
and call stack that is at least as large in every component (``covers``:
CPAchecker's lessOrEqual, per component).

:func:`explore` (the reachability algorithm) expands the frontier until it meets a
target state (a state reached by an edge the caller wants checked), returns it, and can
be called again to go on; CEGAR wraps it (``cegar.py``), and the goal loop of test
generation wraps CEGAR. The algorithm knows nothing of what the components compute: a
new component is added to the composite, not to the algorithm.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

import z3

from cooptest.analyses.reachability.arg import ARGState, CallStack, ReachabilityARG
from cooptest.cfa.calls import callee_name
from cooptest.cfa.ir import CallEdge, Edge, Location, Program, ReturnEdge
from cooptest.core.automaton import TOP, EdgeAutomaton
from cooptest.core.budget import Budget, DeadlineReached


@dataclass(frozen=True)
class Successor:
    edge: Edge
    target: Location
    call_stack: CallStack


class DataCPA(Protocol):
    """What an analysis computes about data; the algorithm decides where and when."""

    name: str

    def initial_state(self, program: Program) -> Any: ...

    def initial_precision(self) -> Any: ...

    def transfer(self, state: ARGState, succ: Successor, precision: Any, budget: Budget) -> Any | None:
        """The abstract data of ``state``'s successor along ``succ.edge`` (None:
        infeasible). Raises :class:`DeadlineReached` if the budget ran out during the
        computation: the successor is not recorded, its parent stays on the frontier."""

    def adjust(self, data: Any, location: Location, call_stack: CallStack, precision: Any,
               target: bool, budget: Budget) -> Any | None:
        """Precision adjustment (e.g. computing an abstraction); None: infeasible.
        ``target`` says the state will be checked as a counterexample. Raises
        :class:`DeadlineReached` if the budget ran out during the computation."""

    def covers(self, other: Any, data: Any) -> bool:
        """``data`` is less or equal than ``other`` (every concrete state of ``data`` is
        one of ``other``'s)."""

    def may_be_covered(self, data: Any) -> bool:
        """Whether the stop operator looks for a state covering ``data`` at all (a fast
        "no" for states that are never covered, such as those inside a block)."""

    def snapshot(self, precision: Any, location: Location) -> Any:
        """The part of ``precision`` a state at ``location`` is computed with."""


def solve(solver: z3.Solver, budget: Budget, cap: float, *assumptions: z3.ExprRef) -> z3.CheckSatResult:
    """``solver.check`` with at most ``cap`` seconds and never past the budget's deadline.
    Raises :class:`DeadlineReached` when z3 ran out of time that the deadline, not the cap,
    limited: what the clock interrupted is computed again by the next run, never taken as
    z3's "unknown" (which the callers turn into a coarser, yet final, answer)."""
    limited = budget.remaining() < cap
    solver.set("timeout", budget.solver_timeout_ms(cap))
    result = solver.check(*assumptions)
    if result == z3.unknown and (limited or budget.expired()) \
            and solver.reason_unknown() in ("timeout", "canceled"):
        raise DeadlineReached
    return result


@dataclass
class CallStackBound:
    max_depth: int = 12
    max_recursion: int = 3


@dataclass(frozen=True)
class ControlFlow:
    """Location and call stack (see the module docstring)."""

    program: Program
    bound: CallStackBound = field(default_factory=CallStackBound)

    def successors(self, state: ARGState) -> tuple[list[Successor], set[str]]:
        """The CFA successors of ``state`` with their call stacks, and why some were
        not computed (the state is then truncated)."""
        stack = state.call_stack
        out: list[Successor] = []
        truncated: set[str] = set()
        for edge in state.location.leaving:
            if isinstance(edge, CallEdge):
                name = callee_name(edge)
                if name is None and not isinstance(edge.callee, str):
                    truncated.add("function pointer")
                    continue
                cfa = self.program.functions.get(name) if name is not None else None
                if cfa is not None:
                    if len(stack) >= self.bound.max_depth or sum(
                            1 for c in stack if callee_name(c) == name) >= self.bound.max_recursion:
                        truncated.add("call stack bound")
                        continue
                    out.append(Successor(edge, cfa.entry, stack + (edge,)))
                    continue
            if isinstance(edge, ReturnEdge) and stack:
                out.append(Successor(edge, stack[-1].dst, stack[:-1]))
                continue
            out.append(Successor(edge, edge.dst, stack))
        return out, truncated


@dataclass(frozen=True)
class AutomatonCPA:
    """An automaton over CFA edges as a component: a successor exists only where the
    automaton has a transition; its state is covered by an equal one or by TOP.
    ``role`` says what it is (``condition``, ``monitor``), for the ARG's record of what
    was skipped."""

    automaton: EdgeAutomaton
    role: str

    def initial(self) -> Any:
        return self.automaton.initial()

    def step(self, q: Any, edge: Edge) -> Any | None:
        return TOP if q == TOP else self.automaton.step(q, edge)

    @staticmethod
    def covers(other: Any, q: Any) -> bool:
        return other == TOP or other == q


@dataclass
class CompositeCPA:
    """Control flow x data x automata (see the module docstring)."""

    control: ControlFlow
    data: DataCPA
    automata: tuple[AutomatonCPA, ...] = ()

    def root(self, arg: ReachabilityARG) -> ARGState:
        program = self.control.program
        return ARGState(program.main.entry, (), self.data.initial_state(program),
                        precision=self.data.snapshot(arg.precision, program.main.entry),
                        guards=tuple(a.initial() for a in self.automata))

    def successor(self, arg: ReachabilityARG, state: ARGState, succ: Successor, target: bool,
                  budget: Budget) -> ARGState | None:
        """The composite successor (None: some component has none); an automaton that
        has none is recorded in ``arg.skipped`` (what a proof must account for)."""
        guards = []
        for a, q in zip(self.automata, state.guards):
            nxt = a.step(q, succ.edge)
            if nxt is None:
                arg.skipped.add(a.role)
                return None
            guards.append(nxt)
        data = self.data.transfer(state, succ, arg.precision, budget)
        if data is None:
            return None
        data = self.data.adjust(data, succ.target, succ.call_stack, arg.precision, target, budget)
        if data is None:
            return None
        return ARGState(succ.target, succ.call_stack, data, state, succ.edge,
                        self.data.snapshot(arg.precision, succ.target), guards=tuple(guards))

    def stop(self, state: ARGState, reached: list[ARGState]) -> ARGState | None:
        """A reached state covering ``state`` in every component, or None."""
        if not self.data.may_be_covered(state.data):
            return None
        for other in reached:
            if other is not state and other.covered_by is None and not other.removed \
                    and self.data.covers(other.data, state.data) \
                    and all(a.covers(o, q) for a, o, q in zip(self.automata, other.guards, state.guards)):
                return other
        return None


def explore(cpa: CompositeCPA, arg: ReachabilityARG, budget: Budget,
            is_target: Callable[[Edge], bool]) -> ARGState | None:
    """Expand the frontier until a target state appears (returned, left in the ARG and
    the frontier) or the frontier is empty or the budget is spent (None). Raises
    :class:`DeadlineReached` when the deadline interrupted an expansion (the state stays at
    the head of the frontier)."""
    if arg.root is None:
        root = arg.add(cpa.root(arg))
        arg.frontier.append(root)
    while arg.frontier:
        if budget.expired():
            return None
        state = arg.frontier[0]
        if state.removed or state.covered_by is not None:
            arg.frontier.popleft()
            continue
        target = _expand_one(cpa, arg, state, is_target, budget)
        if target is not None:
            return target
        arg.frontier.popleft()
    return None


def _expand_one(cpa: CompositeCPA, arg: ReachabilityARG, state: ARGState,
                is_target: Callable[[Edge], bool], budget: Budget) -> ARGState | None:
    """Compute the missing children of ``state``; stop at the first target child (the
    state stays at the head of the frontier so that its other children follow). The
    state is ``expanded`` once every successor was computed."""
    successors, truncated = cpa.control.successors(state)
    if truncated:
        arg.incomplete |= truncated
        state.truncated = True
    for succ in successors:
        if succ.edge in state.children or succ.edge in state.pruned:
            continue
        target = is_target(succ.edge)
        child = cpa.successor(arg, state, succ, target, budget)
        if child is None:
            state.pruned.add(succ.edge)
            continue
        arg.add(child)
        covering = cpa.stop(child, arg.reached[child.key])
        if covering is not None and not target:
            arg.cover(child, covering)
        else:
            arg.frontier.append(child)
        if target:
            return child
    state.expanded = True
    return None

