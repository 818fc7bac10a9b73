"""Static facts of the CFA that guide search strategies: dominance (context-guided
search), control dependence (CarFast) and distances to uncovered goals (CREST's
CFG-directed search).

Dominance and post-dominance are intraprocedural, computed per function CFA with the
Cooper–Harvey–Kennedy iteration. Control dependence follows Ferrante–Ottenstein–Warren:
the locations control-dependent on a branch edge ``u -> v`` are those reachable from
``v`` before the immediate post-dominator of ``u``; taking the closure over nested
branches and called function bodies gives the statements *transitively* dependent on it.
"""
from __future__ import annotations

from collections import deque
from functools import cached_property
from typing import Callable, Iterable

from cooptest.cfa.calls import address_taken, called_from
from cooptest.cfa.ir import (AssumeEdge, BlankEdge, CallEdge, DeclEdge, Edge, FunctionCFA, Location,
                             Program, TerminateEdge, branch_goal_id, error_goal_id)


def immediate_dominators(entry: object, succ: Callable[[object], Iterable[object]]) -> dict[object, object]:
    """``idom`` of every node reachable from ``entry`` (``idom[entry] is entry``)."""
    order: list[object] = []
    seen = {entry}
    stack = [(entry, iter(succ(entry)))]
    while stack:  # iterative DFS for the postorder
        node, it = stack[-1]
        nxt = next(it, None)
        while nxt is not None and nxt in seen:
            nxt = next(it, None)
        if nxt is None:
            order.append(node)
            stack.pop()
        else:
            seen.add(nxt)
            stack.append((nxt, iter(succ(nxt))))
    rpo = order[::-1]
    number = {n: i for i, n in enumerate(rpo)}
    preds: dict[object, list[object]] = {n: [] for n in rpo}
    for n in rpo:
        for s in succ(n):
            preds[s].append(n)
    idom: dict[object, object] = {entry: entry}

    def intersect(a: object, b: object) -> object:
        while a is not b:
            while number[a] > number[b]:
                a = idom[a]
            while number[b] > number[a]:
                b = idom[b]
        return a

    changed = True
    while changed:
        changed = False
        for n in rpo[1:]:
            new = None
            for p in preds[n]:
                if p in idom:
                    new = p if new is None else intersect(p, new)
            if new is not None and idom.get(n) is not new:
                idom[n] = new
                changed = True
    return idom


def _dominates(idom: dict[object, object], a: object, b: object) -> bool:
    if b not in idom:
        return False
    while True:
        if b is a:
            return True
        up = idom[b]
        if up is b:
            return False
        b = up


_EXIT = object()  # the virtual exit every sink and the function exit lead to


class StaticInfo:
    """Facts about one program's CFA, computed on first use."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self._branch_dominates: dict[tuple[int, bool, int], bool] = {}
        self._regions: dict[Edge, frozenset[Edge]] = {}

    # -------------------------------------------------------------- dominance

    @cached_property
    def _idom(self) -> dict[str, dict[object, object]]:
        return {name: immediate_dominators(f.entry, lambda l: [e.dst for e in l.leaving])
                for name, f in self.program.functions.items()}

    @cached_property
    def _ipdom(self) -> dict[str, dict[object, object]]:
        out = {}
        for name, f in self.program.functions.items():
            sinks = [l for l in f.locations if not l.leaving or l is f.exit]

            def pred(n: object, f: FunctionCFA = f, sinks: list[Location] = sinks) -> list[object]:
                return sinks if n is _EXIT else [e.src for e in n.entering]  # type: ignore[attr-defined]
            out[name] = immediate_dominators(_EXIT, pred)
        return out

    def edge(self, branch: int, outcome: bool) -> AssumeEdge:
        bp = self.program.branch_points[branch]
        return bp.true_edge if outcome else bp.false_edge

    def branch_dominates(self, branch: int, outcome: bool, other: int) -> bool:
        """Whether every CFA path to branch point ``other`` takes ``(branch, outcome)``
        (intraprocedurally: branches of other functions never dominate)."""
        key = (branch, outcome, other)
        hit = self._branch_dominates.get(key)
        if hit is None:
            e = self.edge(branch, outcome)
            target = self.edge(other, True).src
            hit = False
            if e.src.function == target.function:
                idom = self._idom[target.function]
                v = e.dst
                hit = _dominates(idom, v, target) and all(
                    _dominates(idom, v, p.src) for p in v.entering if p is not e)
            self._branch_dominates[key] = hit
        return hit

    # -------------------------------------------------------------- control dependence

    def region(self, edge: Edge) -> frozenset[Edge]:
        """The statements (non-blank edges) transitively control-dependent on ``edge``,
        with the bodies of the functions called from them."""
        hit = self._regions.get(edge)
        if hit is not None:
            return hit
        stop = self._ipdom[edge.src.function].get(edge.src)
        out: set[Edge] = set()
        seen = {edge.dst}
        todo = deque([edge.dst])
        while todo:
            loc = todo.popleft()
            if loc is stop:
                continue
            for e in loc.leaving:
                if not isinstance(e, BlankEdge):
                    out.add(e)
                if e.dst not in seen:
                    seen.add(e.dst)
                    todo.append(e.dst)
        for name in called_from(self.program, out, self._addressed):
            out.update(e for e in self.program.functions[name].edges() if not isinstance(e, BlankEdge))
        self._regions[edge] = hit = frozenset(out)
        return hit

    @cached_property
    def _addressed(self) -> set[str]:
        """The functions whose address the program takes: what a pointer call may enter."""
        return address_taken(self.program)

    # -------------------------------------------------------------- distances

    @cached_property
    def _predecessors(self) -> dict[Location, list[Location]]:
        """Interprocedural reverse CFG: intraprocedural edges (a call also steps over to
        its return location), call -> callee entry, callee exit -> return location."""
        preds: dict[Location, list[Location]] = {l: [] for l in self.program.locations()}
        for e in self.program.edges():
            preds[e.dst].append(e.src)
            if isinstance(e, CallEdge) and isinstance(e.callee, str) and e.callee in self.program.functions:
                f = self.program.functions[e.callee]
                preds[f.entry].append(e.src)
                preds[e.dst].append(f.exit)
        return preds

    # -------------------------------------------------------------- dead ends

    def dead_end(self, edge: AssumeEdge) -> bool:
        """Whether ``edge`` leads straight into ``abort()``, through blank edges and
        declarations only: the one path on from it has no decision and no goal but the
        edge's own (``assume``'s ``if (!cond) abort();``). Not ``exit()``, after which
        ``atexit`` handlers run; and never when a library function may call back into
        the program (a SIGABRT handler: ``ProofBlockers.everywhere``)."""
        if self.program.proof_blockers.everywhere is not None:
            return False
        location, seen = edge.dst, set()
        while id(location) not in seen and len(location.leaving) == 1:
            seen.add(id(location))
            step = location.leaving[0]
            if isinstance(step, TerminateEdge):
                return step.kind == "abort"
            if not isinstance(step, BlankEdge | DeclEdge):
                return False
            location = step.dst
        return False

    def goal_edges(self) -> dict[str, Edge]:
        out: dict[str, Edge] = {}
        for bp in self.program.branch_points.values():
            out[branch_goal_id(bp.id, True)] = bp.true_edge
            out[branch_goal_id(bp.id, False)] = bp.false_edge
        for cid, e in self.program.error_calls.items():
            out[error_goal_id(cid)] = e
        return out

    def distances(self, open_goals: Iterable[str]) -> dict[Location, int]:
        """Number of CFA edges from each location to the source of an open goal's edge
        (locations from which no open goal is reachable are absent)."""
        edges = self.goal_edges()
        dist: dict[Location, int] = {}
        todo: deque[Location] = deque()
        for g in open_goals:
            e = edges.get(g)
            if e is not None and e.src not in dist:
                dist[e.src] = 0
                todo.append(e.src)
        preds = self._predecessors
        while todo:
            loc = todo.popleft()
            d = dist[loc] + 1
            for p in preds[loc]:
                if p not in dist:
                    dist[p] = d
                    todo.append(p)
        return dist
