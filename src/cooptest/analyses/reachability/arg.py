"""The abstract reachability graph (ARG) of the CPA algorithm, resumable across runs.

An abstract state is a CFA location, a call stack and the analysis' abstract data; the
ARG links every state to the state it was computed from by one CFA edge, so that the path
to a state is the sequence of concrete CFA edges a counterexample check executes. The
reached set is kept per (location, call stack), which is where the stop operator looks
for a covering state; the frontier (CPAchecker's waitlist) holds the states not expanded
yet. Refinement removes a subtree (lazy abstraction) and re-adds its parent to the
frontier; states that were covered by a removed state lose that cover and are expanded.
"""
from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Iterator

from cooptest.core.analysis import AnalysisState
from cooptest.core.board_view import Board
from cooptest.cfa.ir import CallEdge, Edge, Location

CallStack = tuple[CallEdge, ...]
Key = tuple[Location, CallStack]
_ids = itertools.count()


@dataclass(eq=False)
class ARGState:
    """One node of the ARG: ``data`` is what the analysis knows at ``location``.

    ``precision`` is the precision the state was computed with (a snapshot): refinement
    looks for the first state of a spurious path computed with a precision that lacks
    what the refinement found, which is where re-exploration must start. ``guards`` are
    the states of the composite's automata (condition, monitor).

    ``expanded``: every successor was computed (a child, or the edge is in ``pruned``:
    no successor, because the edge is infeasible from here or an automaton said nothing
    is left to find along it); ``truncated``: some successor was not computed (call
    stack bound, unresolved function pointer). Only an expanded, untruncated state
    proves something about the edges it has no child for (``automata.py``)."""

    location: Location
    call_stack: CallStack
    data: Any
    parent: ARGState | None = None
    edge: Edge | None = None
    precision: Any = None
    id: int = field(default_factory=lambda: next(_ids))
    children: dict[Edge, ARGState] = field(default_factory=dict)
    covered_by: ARGState | None = None
    covering: list[ARGState] = field(default_factory=list)
    removed: bool = False
    checked: bool = False  # a target state whose path was already examined
    guards: tuple[Any, ...] = ()
    pruned: set[Edge] = field(default_factory=set)
    expanded: bool = False
    truncated: bool = False

    @property
    def key(self) -> Key:
        return (self.location, self.call_stack)

    def path(self) -> list[ARGState]:
        """The states from the root to this one."""
        out: list[ARGState] = []
        s: ARGState | None = self
        while s is not None:
            out.append(s)
            s = s.parent
        out.reverse()
        return out

    def subtree(self) -> Iterator[ARGState]:
        stack = [self]
        while stack:
            s = stack.pop()
            yield s
            stack.extend(s.children.values())

    def __repr__(self) -> str:
        return f"S{self.id}@{self.location!r}"


@dataclass
class ReachabilityARG(AnalysisState):
    """The ARG of one analysis with its reached set, frontier and precision.

    ``incomplete`` names why exploring the whole frontier would still not be a proof
    (a bounded call stack, an unresolved function pointer); ``unknown`` holds goals the
    analysis gave up on (imprecise model, no refinement progress): they are reached in
    the ARG, hence never claimed infeasible, and no longer targeted. ``condition`` is
    the cooperation's description of state space already explored: it is stored for
    the conditional-model-checking wave and not used to prune yet."""

    precision: Any = None
    root: ARGState | None = None
    reached: dict[Key, list[ARGState]] = field(default_factory=dict)
    frontier: deque[ARGState] = field(default_factory=deque)
    incomplete: set[str] = field(default_factory=set)
    unknown: set[str] = field(default_factory=set)
    refinements: int = 0
    refinements_of: dict[str, int] = field(default_factory=dict)  # goal -> refinements spent
    guides: tuple[tuple[str, Any], ...] = ()
    skipped: set[str] = field(default_factory=set)

    def reusable_precision(self) -> Any:
        return self.precision

    def condition(self, board: Board | None = None) -> Any:
        """The ARG as CoVeriTest's condition for runs on ``board`` (``automata.py``)."""
        from cooptest.analyses.reachability.automata import condition_from_arg
        return condition_from_arg(self, board)

    def monitor(self, board: Board | None = None) -> Any:
        """The ARG as Crabs' monitor, for runs on ``board`` (``automata.py``)."""
        from cooptest.analyses.reachability.automata import monitor_from_arg
        return monitor_from_arg(self, board)

    def frontier_size(self) -> int:
        return sum(1 for s in self.frontier if not s.removed and s.covered_by is None)

    def states(self) -> Iterator[ARGState]:
        for states in self.reached.values():
            yield from states

    def size(self) -> int:
        return sum(len(v) for v in self.reached.values())

    def add(self, state: ARGState) -> ARGState:
        if state.parent is None:
            self.root = state
        else:
            assert state.edge is not None
            state.parent.children[state.edge] = state
        self.reached.setdefault(state.key, []).append(state)
        return state

    def cover(self, state: ARGState, by: ARGState) -> None:
        state.covered_by = by
        by.covering.append(state)

    def remove_subtree(self, pivot: ARGState) -> None:
        """Lazy abstraction: drop ``pivot`` and everything computed from it, re-add its
        parent to the frontier (it is re-expanded along the missing edge only), and let
        the states the dropped ones covered be expanded after all."""
        uncovered: list[ARGState] = []
        for s in list(pivot.subtree()):
            s.removed = True
            states = self.reached.get(s.key)
            if states is not None and s in states:
                states.remove(s)
            if s.covered_by is not None and s in s.covered_by.covering:
                s.covered_by.covering.remove(s)
            uncovered.extend(s.covering)
            s.covering = []
        parent = pivot.parent
        if parent is None:
            self.root = None
        else:
            assert pivot.edge is not None
            del parent.children[pivot.edge]
            parent.expanded = False
            self.frontier.appendleft(parent)
        for s in uncovered:
            if not s.removed:
                s.covered_by = None
                self.frontier.append(s)
