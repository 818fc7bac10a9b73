"""Search guided by an automaton over CFA edges (Crabs' monitor, CoVeriTest's condition;
see ``core.automaton``): the execution tree becomes the product program x automaton.

Each symbolic execution is followed edge by edge by the automaton, so every node gets the
automaton state reached along its path up to its decision. A node whose other side has no
transition from that state is *cut*: the automaton's analysis proved there is nothing
left to find there, so it is closed without being negated. Selection is the inner
searcher's; it only ever sees the nodes the automaton allows.

A native run that takes an edge without transition leaves the automaton: the run and
the automaton disagree. Where it happened is counted (``monitor_divergences``), the
automaton is read as TOP (no information) for the rest of that path, and the path is
marked (``Path.left_automaton``) because the cuts rest on the automaton's claims."""
from __future__ import annotations

from cooptest.analyses.concolic.execution_tree import CUT, ExecutionTree, Node, Path
from cooptest.analyses.concolic.searchers.base import Searcher
from cooptest.analyses.concolic.searchers.product import ProductDistances
from cooptest.analyses.concolic.symbolic_execution import Observer
from cooptest.analyses.symbolic import SymbolicState
from cooptest.cfa.ir import AssumeEdge, Edge
from cooptest.core.automaton import TOP, EdgeAutomaton, State


class Follow:
    """One symbolic execution followed by the automaton: its state, and the state before
    each branch edge in trace order."""

    def __init__(self, automaton: EdgeAutomaton, start: State, before: list[State] | None = None) -> None:
        """``before``: the states at the path's branches before ``start`` (when symbolic
        execution resumes)."""
        self.automaton = automaton
        self.q = start
        self.at_branch: list[State] = before or []
        self.left = False

    def __call__(self, edge: Edge, state: SymbolicState) -> None:
        if isinstance(edge, AssumeEdge) and edge.branch is not None:
            self.at_branch.append(self.q)
        if self.q == TOP:
            return
        nxt = self.automaton.step(self.q, edge)
        if nxt is None:
            self.left = True
            nxt = TOP
        self.q = nxt


class Guided(Searcher):
    name = "guided"

    def __init__(self, inner: Searcher, automaton: EdgeAutomaton) -> None:
        super().__init__(inner.ctx)
        self.inner = inner
        self.automaton = automaton
        self.states: dict[Node, State] = {}  # the product: automaton state at each decision
        # and at each branch of each path, for a search that follows a path's branches
        self.paths: dict[Path, list[State]] | None = {} if inner.follows_branches else None
        self._follow: Follow | None = None
        self.product = self.ctx.product = ProductDistances(self.ctx.program, automaton, self.state_of,
                                                           self.state_at)

    def state_of(self, node: Node) -> State:
        """The automaton state at ``node``'s decision (TOP for nodes found before this
        automaton guided the search)."""
        return self.states.get(node, TOP)

    def state_at(self, path: Path, position: int) -> State:
        """The automaton state at the branch at trace ``position`` of ``path`` (TOP where
        not followed)."""
        states = self._states(path)
        return states[position] if states is not None and position < len(states) else TOP

    def _states(self, path: Path) -> list[State] | None:
        """The automaton states at ``path``'s branches, if it was followed and kept."""
        return self.paths.get(path) if self.paths is not None else None

    def select(self, tree: ExecutionTree) -> Node | None:
        return self.inner.select(tree)

    def along(self, node: Node) -> Path | None:
        return self.inner.along(node)

    def observers(self, resumed: Node | None = None) -> list[Observer]:
        if resumed is None:
            self._follow = Follow(self.automaton, self.automaton.initial())
        else:  # the state after the resumed node's decision edge
            q = self.state_of(resumed)
            if q != TOP:
                q = self.automaton.step(q, resumed.edge)
            path = resumed.path
            assert path is not None
            position = path.decisions[resumed.index].position
            states = self._states(path)  # (without ``paths`` never read: those nodes exist already)
            before: list[State] = states[:position + 1] if states is not None else [TOP] * (position + 1)
            self._follow = Follow(self.automaton, TOP if q is None else q, before)
        return [self._follow, *self.inner.observers(resumed)]

    def update(self, tree: ExecutionTree, path: Path, nodes: list[Node], negated: Node | None) -> None:
        follow, self._follow = self._follow, None
        if follow is not None:
            if follow.left:
                path.left_automaton = True
                self.ctx.count("monitor_divergences")
            if self.paths is not None:
                self.paths[path] = follow.at_branch
            for n in nodes:
                if n.path is not path:
                    continue
                q = self.states[n] = follow.at_branch[path.decisions[n.index].position]
                if n.closed is None and q != TOP and self.automaton.step(q, n.negation) is None:
                    tree.close(n, CUT)
                    self.ctx.count("cut")
        self.inner.update(tree, path, nodes, negated)
