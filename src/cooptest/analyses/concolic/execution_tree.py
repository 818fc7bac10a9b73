"""The execution tree of concolic testing (DART/CUTE/CREST): every explored path as a
sequence of symbolic branch decisions, paths sharing their common prefix.

A node is one symbolic decision ``(branch id, outcome)`` at some depth; its parent is
the symbolic decision before it on every path through it. Only decisions whose
condition depends on an input are nodes (as in CREST): a decision on concrete data can
never be negated. Negating node ``n`` asks for inputs that follow the path to
``n.parent`` and then take the other outcome of ``n.branch``; the node is *open* while
that side has neither been explored nor attempted, and the open nodes are the
*frontier* every search strategy chooses from.

The concolic analysis' resumable state (:class:`ConcolicSearchState`) holds the tree:
handing it back to ``ConcolicAnalysis.run`` resumes the search where it stopped.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import z3

from cooptest.analyses.concolic.padding import Padding
from cooptest.core.analysis import AnalysisState
from cooptest.cfa.ir import AssumeEdge, Location, branch_goal_id

# why a node stopped being open
EXPLORED = "explored"  # a path took the other side
UNSAT = "unsat"  # the other side is infeasible after this prefix
UNKNOWN = "unknown"  # the solver gave up (timeout, unsupported theory)
MISPREDICTED = "mispredicted"  # inputs were found but the native run went elsewhere
CUT = "cut"  # the other side leaves the automaton guiding the search (searchers.Guided)
DEAD_END = "dead end"  # the other side runs straight into abort(), its goal covered already
SOLVABLE_AGAIN = (None, EXPLORED, MISPREDICTED, DEAD_END)
"""Closures under which CREST's solver, asked again from another run's inputs, still
finds some (``Searcher.along``): open, or negated already by a path; the new run may
take the side this time, or go on elsewhere after it."""


@dataclass(eq=False)
class Decision:
    """A symbolic branch decision of one path.

    ``cond`` is the Boolean the taken outcome required; ``before`` is the length of the
    path condition before the decision, ``after`` its length after it (the difference
    holds ``cond`` and guards such as divisors being nonzero). ``edge`` is the CFA edge
    the outcome took, ``position`` the decision's index in ``Path.trace``."""

    branch: int
    outcome: bool
    cond: z3.BoolRef
    before: int
    after: int
    edge: AssumeEdge
    position: int


@dataclass(eq=False)
class Path:
    """One native run executed symbolically.

    ``inputs`` are the C literals the run got (padded: more than it may have read),
    ``symbols`` the z3 symbols of the inputs it read, in order; ``constraints`` is the
    path condition, ``decisions`` its symbolic branch decisions, ``trace`` every branch
    decision (symbolic or not) in order, ``edges`` the CFA edges traversed."""

    inputs: list[str]
    symbols: list[Any]  # symbolic.Input, in consumption order
    constraints: list[z3.BoolRef]
    decisions: list[Decision]
    trace: list[tuple[int, bool]]
    new_goals: set[str] = field(default_factory=set)
    starved: bool = False  # the run ended because it had no more inputs
    divergences: int = 0
    concretized: int = 0
    imprecise: bool = False
    crashed: bool = False  # natively: crashed, timed out or trace truncated
    truncated: bool = False  # symbolic execution stopped before the native run did
    left_automaton: bool = False  # the run took an edge the guiding automaton excludes
    snapshots: list[Any] = field(default_factory=list)  # symbolic_execution.Snapshot, kept by the engine
    site_checks: int = 0  # overflow sites checked as it passed them
    overflowing: set[str] = field(default_factory=set)  # those where its condition allows an overflow

    def query(self, i: int) -> tuple[list[z3.BoolRef], z3.BoolRef]:
        """The prefix constraints and the negated condition for flipping decision ``i``."""
        d = self.decisions[i]
        prefix = self.constraints[:d.before]
        cid = d.cond.get_id()
        prefix += [c for c in self.constraints[d.before:d.after] if c.get_id() != cid]
        return prefix, z3.Not(d.cond)


@dataclass(eq=False)
class Node:
    branch: int
    outcome: bool
    depth: int  # number of symbolic decisions before this one
    parent: Node | None
    path: Path | None  # the first path through this node
    index: int  # this decision's index in path.decisions
    children: dict[tuple[int, bool], Node] = field(default_factory=dict)
    closed: str | None = None  # None while open (see module docstring)

    @property
    def edge(self) -> AssumeEdge:
        """The CFA edge of this node's outcome (on its first path)."""
        assert self.path is not None, "the root has no edge"
        return self.path.decisions[self.index].edge

    @property
    def location(self) -> Location:
        """The branch's source location."""
        return self.edge.src

    @property
    def negation(self) -> AssumeEdge:
        """The CFA edge of the other outcome: where negating this node leads."""
        mine = self.edge
        return next(e for e in mine.src.leaving if isinstance(e, AssumeEdge) and e is not mine
                    and e.branch == self.branch)

    @property
    def target(self) -> str:
        """The goal the negation of this node aims at."""
        return branch_goal_id(self.branch, not self.outcome)

    def sibling(self) -> Node | None:
        return self.parent.children.get((self.branch, not self.outcome)) if self.parent else None

    def __repr__(self) -> str:
        return f"Node(B{self.branch}{'T' if self.outcome else 'F'}@{self.depth})"


class ExecutionTree:
    """All paths explored so far, and the frontier of open nodes."""

    def __init__(self) -> None:
        self.root = Node(-1, True, -1, None, None, -1)
        self.frontier: dict[Node, None] = {}  # insertion-ordered set of open nodes
        self.levels: dict[int, list[Node]] = {}  # nodes by depth, in creation order
        self.paths = 0
        self.size = 0
        self.max_depth = 0

    def insert(self, path: Path) -> list[Node]:
        """Add ``path``; returns its nodes in order (those it created have
        ``node.path is path``)."""
        self.paths += 1
        node, nodes, new = self.root, [], 0
        for i, d in enumerate(path.decisions):
            key = (d.branch, d.outcome)
            child = node.children.get(key)
            if child is None:
                child = Node(d.branch, d.outcome, i, node, path, i)
                node.children[key] = child
                self.levels.setdefault(i, []).append(child)
                new += 1
                sibling = child.sibling()
                if sibling is not None:
                    self.close(sibling, EXPLORED)
                    child.closed = EXPLORED
                else:
                    self.frontier[child] = None
            node = child
            nodes.append(child)
        self.size += new
        self.max_depth = max(self.max_depth, len(path.decisions))
        return nodes

    def close(self, node: Node, why: str) -> None:
        if node.closed is None:
            node.closed = why
            self.frontier.pop(node, None)


@dataclass
class Pending:
    """Work the analysis owes itself: ``inputs`` to run (the board's tests, a run the
    deadline interrupted), or, when None, ``node`` to negate (a query the deadline
    interrupted);
    ``node`` is the node the inputs were solved for (None for seeds and restarts);
    ``fill`` the fresh inputs its padding takes (``padding.Padding.starts``; None: the
    state's after the first runs)."""

    inputs: list[str] | None
    node: Node | None = None
    fill: str | None = None


@dataclass
class ConcolicSearchState(AnalysisState):
    """Everything the concolic analysis knows: its execution tree, the searcher (with
    its RNG), the solver with its cache, the work still pending. Running it again goes
    on exactly where it stopped: work the deadline interrupted is pending, never a
    verdict (no node is closed and no path inserted because of the clock)."""

    tree: ExecutionTree = field(default_factory=ExecutionTree)
    searcher: Any = None  # searchers.Searcher
    guided: Any = None  # searchers.Guided: the searcher wrapped by the last job's automaton
    guides: set[str] = field(default_factory=set)  # names of the automata that guided it
    pending: list[Pending] = field(default_factory=list)  # done first, in order
    # nodes whose query the solver gave up on, each with the time limit of its next try:
    # asked again, with twice the limit, when nothing is left to negate
    undecided: list[tuple[Node, int]] = field(default_factory=list)
    retry_seconds: float = 0.0  # spent asking them again
    seconds: float = 0.0  # spent in the analysis, over all its jobs
    iterations: int = 0  # native runs made, over all its jobs (``--max-iterations`` bounds them)
    symbols: Any = None  # solver.Symbols
    memo: Any = None  # symbolic_execution.TermMemo
    solver: Any = None  # solver.PathSolver
    last: Path | None = None  # the path run last
    exact: bool = True  # no path so far was imprecise, concretised, diverged or truncated, and
    # no query was given up for good (those still to be asked again are ``undecided``)
    small: dict[int, Any] = field(default_factory=dict)  # input symbol id -> inputs.small bound
    snapshots: dict[Node, Any] = field(default_factory=dict)  # node -> symbolic_execution.Snapshot after it
    padding: Padding = field(default_factory=Padding)
    overflowing: set[str] = field(default_factory=set)  # overflow sites where a path's condition
    # allows a signed overflow (``symbolic_execution._overflow_allowed``)

    def frontier_size(self) -> int:
        return len(self.tree.frontier)


def took_other_side(nodes: list[Node], node: Node) -> bool:
    """Whether the path whose tree nodes are ``nodes`` took the other side of ``node``'s
    decision after the same prefix (CREST's ``CheckPrediction``, over the symbolic
    decisions)."""
    return len(nodes) > node.depth and nodes[node.depth] is node.sibling()
