"""The one interface of search strategies (after KLEE's ``Searcher``).

A searcher sees the execution tree grow path by path (``update``) and chooses the next
node to negate (``select``), or None when it has nothing left to propose. A node it
returns must be open, and the engine closes it whatever the outcome; or, for a search
that solves a decision again from another run's inputs as CREST does (``along``), one a
path has negated already (explored, mispredicted or a dead end), which stays as it was.
Searchers compose by wrapping (``Interleaved``, ``Guided``); a searcher that needs to
follow each path edge by edge hands symbolic execution its ``observers``.
"""
from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Callable, ClassVar

from cooptest.analyses.concolic.execution_tree import ExecutionTree, Node, Path
from cooptest.analyses.concolic.searchers.product import ProductDistances
from cooptest.analyses.concolic.cfa_facts import StaticInfo
from cooptest.analyses.concolic.symbolic_execution import Observer
from cooptest.cfa.ir import Edge, Program


@dataclass
class SearchContext:
    """What strategies may consult besides the tree: the CFA and its static facts, the
    goals covered so far (live), the CFA edges symbolic executions traversed, a seeded RNG;
    ``count``, the statistics of the board the analysis currently runs on; and
    ``product``, the product of the program and the automaton that guides the search
    (``Guided``), where distances are measured (None: the program alone)."""

    program: Program
    covered: Mapping[str, str]
    rng: random.Random
    static: StaticInfo
    covered_edges: set[Edge] = field(default_factory=set)
    count: Callable[[str], None] = lambda stat: None
    product: ProductDistances | None = None
    goals: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        self.goals = frozenset(g.id for g in self.program.goals())

    def reached(self, target: str, edge: Edge) -> bool:
        """Whether the side ``target`` of a decision, along ``edge``, has been taken: its
        goal covered, or, for a decision that is no goal (the environment model's, a
        system header's), ``edge`` traversed by a symbolic execution. Without the
        second, such a side stayed 'uncovered' for ever, and cgs and cfg spent every
        iteration negating the model's first decisions (scanf's "%d %d" never read two
        numbers; dfs did)."""
        return target in self.covered or target not in self.goals and edge in self.covered_edges


class Searcher(ABC):
    name: ClassVar[str]
    follows_branches: ClassVar[bool] = False
    """Whether the search reads the automaton state at every branch of a path, not only
    at the tree's decisions (``Guided`` keeps them then: ``SearchContext.product``)."""

    def __init__(self, ctx: SearchContext) -> None:
        self.ctx = ctx

    @abstractmethod
    def select(self, tree: ExecutionTree) -> Node | None:
        """An open node to negate next."""

    def along(self, node: Node) -> Path | None:
        """The path whose inputs the negation of ``node`` starts from, the solver's
        model replacing those it constrains (CREST's ``SolveAtBranch`` on its current
        run), or None: the node's first path."""
        return None

    def update(self, tree: ExecutionTree, path: Path, nodes: list[Node], negated: Node | None) -> None:
        """``path`` was run and inserted: ``nodes`` are its tree nodes in order (those
        with ``node.path is path`` are new); ``negated`` is the node whose negation
        produced it (None for seeds, restarts)."""

    def observers(self, resumed: Node | None = None) -> list[Observer]:
        """What follows the next symbolic execution edge by edge (fresh for each one);
        ``resumed``: it starts just after that node's decision (the path up to
        it is the node's own), not at the entry of ``main``."""
        return []
