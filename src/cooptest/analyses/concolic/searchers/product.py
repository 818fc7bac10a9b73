"""The product of the program and an automaton over its edges, as a search sees it: the
goals lifted to the product, and distances measured in it (Crabs, Daca, Gupta &
Henzinger, VMCAI 2016: concolic testing runs on the product program, the program with
its monitors, the ARGs of Alg. 3; a CFG-directed search on that program measures its
distances in the product's CFG and aims at its branches).

A product state is the automaton's state with the program's location and call stack
(those of its ARG states; the states of an automaton built from an ARG carry them). Its
edges are the CFA edges the automaton has a transition for. A goal of the program is
lifted to every product edge whose CFA edge is the goal's: taken in any product state,
it covers the goal, so once covered no copy is left. The distance of a product state
is the fewest branch edges (CREST's weights, ``StaticInfo.distances``) on a product path
to a copy of an open goal. Where the program's CFA has a path to a goal that the ARG
proved infeasible, the product has none: the distance there is larger, or there is
none (the side is not worth negating), where on the CFA it looked one branch away.
Where the automaton is TOP (the frontier of a partial ARG: no information) the product
goes on as the program itself, with the program's distances.
"""
from __future__ import annotations

import heapq
from typing import Callable, Protocol

from cooptest.analyses.concolic.execution_tree import Node, Path
from cooptest.cfa.calls import callee_name
from cooptest.cfa.ir import AssumeEdge, CallEdge, Edge, Location, Program, ReturnEdge
from cooptest.core.automaton import TOP, EdgeAutomaton, State

PRODUCT_STATES = 50_000
"""Product states explored at most; beyond, the program's distances stand in."""


class Placed(Protocol):
    """An automaton state that knows where the program is (an ARG state)."""

    location: Location
    call_stack: tuple[CallEdge, ...]


def is_top(q: State) -> bool:
    """TOP, or a product state every component of which is TOP: no information."""
    return q == TOP or isinstance(q, tuple) and all(is_top(c) for c in q)


def place(q: State) -> Placed | None:
    """The component of ``q`` that says where the program is (None: TOP, or an automaton
    whose states do not say it: then there is no product to explore, and the program's
    distances stand in)."""
    if isinstance(q, tuple):
        return next((p for p in map(place, q) if p is not None), None)
    return q if hasattr(q, "location") and hasattr(q, "call_stack") else None  # type: ignore[return-value]


def weight(edge: Edge) -> int:
    return int(isinstance(edge, AssumeEdge) and edge.branch is not None)


class ProductDistances:
    """The product of ``program`` and ``automaton``, explored once from the automaton's
    initial state; ``state_of`` gives the automaton state at an execution-tree node's
    decision (``Guided.state_of``), ``state_at`` the state at a path's branch (its trace
    position; ``Guided.state_at``, for searches that follow a path's branches)."""

    def __init__(self, program: Program, automaton: EdgeAutomaton, state_of: Callable[[Node], State],
                 state_at: Callable[[Path, int], State], limit: int = PRODUCT_STATES) -> None:
        self.program, self.automaton, self.state_of, self.state_at = program, automaton, state_of, state_at
        # product state -> (edge, product state or, where the automaton is TOP, the
        # program's location, weight)
        self.edges: dict[State, list[tuple[Edge, State | Location, int]]] = {}
        self._explore(limit)
        self._dist: dict[State, int] = {}
        self._open: frozenset[Edge] | None = None

    def _explore(self, limit: int) -> None:
        start = self.automaton.initial()
        todo = [] if is_top(start) else [start]
        while todo and len(self.edges) < limit:
            q = todo.pop()
            where = place(q)
            if q in self.edges or where is None:
                continue
            out: list[tuple[Edge, State | Location, int]] = []
            for e in where.location.leaving:
                nxt = self.automaton.step(q, e)
                if nxt is None:
                    continue
                if is_top(nxt):
                    target = self._location_after(where, e)
                    if target is not None:
                        out.append((e, target, weight(e)))
                    continue
                out.append((e, nxt, weight(e)))
                if nxt not in self.edges:
                    todo.append(nxt)
            self.edges[q] = out

    def _location_after(self, where: Placed, edge: Edge) -> Location | None:
        """Where the program is after ``edge`` from ``where`` (the analyses' control
        flow: a call enters the callee, a return goes back to the caller)."""
        if isinstance(edge, CallEdge):
            callee = self.program.functions.get(callee_name(edge) or "")
            return edge.dst if callee is None else callee.entry
        if isinstance(edge, ReturnEdge):
            return where.call_stack[-1].dst if where.call_stack else None
        return edge.dst

    def distances(self, open_edges: frozenset[Edge], program: dict[Location, int]) -> dict[State, int]:
        """Each product state's distance to a copy of an open goal's edge, given the
        program's distances (``program``, where the automaton is TOP); states from which
        none is reachable are absent. Dijkstra backwards from the copies."""
        if open_edges is self._open:
            return self._dist
        preds: dict[State, list[tuple[State, int]]] = {}
        dist: dict[State, int] = {}
        heap: list[tuple[int, int, State]] = []
        for q, out in self.edges.items():
            best = None
            for e, t, w in out:
                if e in open_edges:
                    best = 0
                elif isinstance(t, Location):
                    d = program.get(t)
                    if d is not None and (best is None or w + d < best):
                        best = w + d
                else:
                    preds.setdefault(t, []).append((q, w))
            if best is not None:
                dist[q] = best
                heapq.heappush(heap, (best, id(q), q))
        while heap:
            d, _, q = heapq.heappop(heap)
            if d > dist[q]:
                continue
            for p, w in preds.get(q, ()):
                if d + w < dist.get(p, d + w + 1):
                    dist[p] = d + w
                    heapq.heappush(heap, (d + w, id(p), p))
        self._open, self._dist = open_edges, dist
        return dist

    def after(self, node: Node, open_edges: frozenset[Edge], program: dict[Location, int]) -> int | None:
        """The distance after ``node``'s negation, in the product (None: no copy of an
        open goal is reachable from there; the program's distance where the automaton
        says nothing, or beyond the states explored)."""
        return self.after_edge(self.state_of(node), node.negation, open_edges, program)

    def allows(self, q: State, edge: Edge) -> bool:
        """Whether the product has ``edge`` in automaton state ``q``."""
        return is_top(q) or self.automaton.step(q, edge) is not None

    def after_edge(self, q: State, edge: Edge, open_edges: frozenset[Edge],
                   program: dict[Location, int]) -> int | None:
        """The distance after ``edge`` taken in automaton state ``q``, as ``after``."""
        nxt = TOP if is_top(q) else self.automaton.step(q, edge)
        if nxt is None:
            return None
        if is_top(nxt) or nxt not in self.edges:
            return program.get(edge.dst)
        return self.distances(open_edges, program).get(nxt)
