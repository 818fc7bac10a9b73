"""Static facts of the CFA that guide search strategies: dominance (context-guided
search), control dependence (CarFast) and distances to uncovered goals (CREST's
CFG-directed search).

Dominance is interprocedural, on the supergraph of the program's CFAs (a call enters
its callee, whose exit returns to the call's return location), so that a decision in
``main`` before a call dominates the decisions of the callee, as in the CGS paper (Seo &
Kim, FSE 2014, Algorithm 2: a dominator says nothing about how the path got to a branch,
wherever it is). Post-dominance is intraprocedural. Both are computed with the
Cooper–Harvey–Kennedy iteration. Control dependence follows Ferrante–Ottenstein–Warren:
the locations control-dependent on a branch edge ``u -> v`` are those reachable from
``v`` before the immediate post-dominator of ``u``; taking the closure over nested
branches and called function bodies gives the statements *transitively* dependent on it.
"""
from __future__ import annotations

from collections import deque
from functools import cached_property
from typing import Callable, Iterable

from cooptest.cfa.calls import address_taken, call_targets, callee_name, called_from
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
_ROOT = object()  # the virtual entry of the supergraph


class StaticInfo:
    """Facts about one program's CFA, computed on first use."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self._branch_dominates: dict[tuple[int, bool, int], bool] = {}
        self._regions: dict[Edge, frozenset[Edge]] = {}

    # -------------------------------------------------------------- dominance

    @cached_property
    def _supergraph(self) -> dict[object, list[Location]]:
        """Successors on the supergraph: intraprocedural edges, but a call to a function
        with a body goes to its entry and the callee's exit to the call's return location
        (a call through a pointer may also enter a library function: it steps over too).
        A virtual root enters the program's entry and every function whose address is
        taken, which the C library may call back; the extra paths only ever make dominance
        rarer."""
        succ: dict[object, list[Location]] = {l: [] for l in self.program.locations()}
        for e in self.program.edges():
            targets = call_targets(self.program, e, self._addressed) if isinstance(e, CallEdge) else set()
            for name in targets:
                f = self.program.functions[name]
                succ[e.src].append(f.entry)
                succ[f.exit].append(e.dst)
            if not targets or callee_name(e) is None:  # type: ignore[arg-type]
                succ[e.src].append(e.dst)
        roots = ({self.program.entry} | self._addressed) & self.program.functions.keys()
        succ[_ROOT] = [self.program.functions[name].entry for name in sorted(roots)]
        return succ

    @cached_property
    def _idom(self) -> dict[object, object]:
        succ = self._supergraph
        return immediate_dominators(_ROOT, succ.__getitem__)

    @cached_property
    def _supergraph_predecessors(self) -> dict[object, list[object]]:
        preds: dict[object, list[object]] = {}
        for n, targets in self._supergraph.items():
            for t in targets:
                preds.setdefault(t, []).append(n)
        return preds

    @cached_property
    def _ipdom(self) -> dict[str, dict[object, object]]:
        out = {}
        for name, f in self.program.functions.items():
            sinks: list[object] = [l for l in f.locations if not l.leaving or l is f.exit]

            def pred(n: object, f: FunctionCFA = f, sinks: list[object] = sinks) -> list[object]:
                if n is _EXIT:
                    return sinks
                assert isinstance(n, Location)
                return [e.src for e in n.entering]
            out[name] = immediate_dominators(_EXIT, pred)
        return out

    def edge(self, branch: int, outcome: bool) -> AssumeEdge:
        bp = self.program.branch_points[branch]
        return bp.true_edge if outcome else bp.false_edge

    def branch_dominates(self, branch: int, outcome: bool, other: int) -> bool:
        """Whether every path of the program to branch point ``other`` takes ``(branch,
        outcome)``: the edge's target dominates ``other`` on the supergraph, and every
        other way into that target comes from below it (a loop's back edge)."""
        key = (branch, outcome, other)
        hit = self._branch_dominates.get(key)
        if hit is None:
            e = self.edge(branch, outcome)
            target = self.edge(other, True).src
            idom, v = self._idom, e.dst
            others = list(self._supergraph_predecessors[v])
            others.remove(e.src)
            hit = _dominates(idom, v, target) and all(_dominates(idom, v, p) for p in others)
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
    def overflow_sites(self) -> dict[Edge, str]:
        """The overflow sites by edge (``ProofBlockers.overflow_sites`` turned round):
        what symbolic execution checks as a path passes them."""
        return {edge: site for site, edge in self.program.proof_blockers.overflow_sites.items()}

    @cached_property
    def _addressed(self) -> set[str]:
        """The functions whose address the program takes: what a pointer call may enter."""
        return address_taken(self.program)

    # -------------------------------------------------------------- distances

    @cached_property
    def _predecessors(self) -> dict[Location, list[tuple[Location, int]]]:
        """Interprocedural reverse CFG, each step with its weight: intraprocedural edges
        (a call also steps over to its return location), call -> callee entry, callee
        exit -> return location; a branch edge weighs 1, every other step 0."""
        preds: dict[Location, list[tuple[Location, int]]] = {l: [] for l in self.program.locations()}
        for e in self.program.edges():
            preds[e.dst].append((e.src, int(isinstance(e, AssumeEdge) and e.branch is not None)))
            if isinstance(e, CallEdge) and isinstance(e.callee, str) and e.callee in self.program.functions:
                f = self.program.functions[e.callee]
                preds[f.entry].append((e.src, 0))
                preds[e.dst].append((f.exit, 0))
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
        """The fewest branch edges on a path from each location to the source of an open
        goal's edge (locations from which no open goal is reachable are absent). CREST's
        CFG-directed search (Burnim & Sen, ASE 2008) weighs a branch edge 1
        and every other edge 0: a path's length is the decisions a run must get right
        on it, and straight-line code costs none. A 0-1 breadth-first search."""
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
            for p, w in preds[loc]:
                d = dist[loc] + w
                if d < dist.get(p, d + 1):
                    dist[p] = d
                    if w:
                        todo.append(p)
                    else:
                        todo.appendleft(p)
        return dist
