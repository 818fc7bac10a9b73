"""Breadth-first search: negate the shallowest open decision of the whole tree first
(ties in the order the nodes were found)."""
from __future__ import annotations

import heapq
import itertools

from cooptest.analyses.concolic.execution_tree import ExecutionTree, Node, Path
from cooptest.analyses.concolic.searchers.base import SearchContext, Searcher


class BreadthFirst(Searcher):
    name = "bfs"

    def __init__(self, ctx: SearchContext) -> None:
        super().__init__(ctx)
        self.heap: list[tuple[int, int, Node]] = []
        self.order = itertools.count()

    def select(self, tree: ExecutionTree) -> Node | None:
        while self.heap:
            node = heapq.heappop(self.heap)[2]
            if node.closed is None:
                return node
        return None

    def update(self, tree: ExecutionTree, path: Path, nodes: list[Node], negated: Node | None) -> None:
        for n in nodes:
            if n.path is path and n.closed is None:
                heapq.heappush(self.heap, (n.depth, next(self.order), n))
