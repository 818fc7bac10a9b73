"""Bounded depth-first search as DART backtracks: negate the deepest open decision of
the latest path first, never below ``bound`` symbolic decisions. CREST's ``-dfs``, which
negates the shallowest first and recurses, is ``crest_dfs``."""
from __future__ import annotations

from cooptest.analyses.concolic.execution_tree import ExecutionTree, Node, Path
from cooptest.analyses.concolic.searchers.base import SearchContext, Searcher


class DepthFirst(Searcher):
    name = "dfs"

    def __init__(self, ctx: SearchContext, bound: int = 200) -> None:
        super().__init__(ctx)
        self.bound = bound
        self.stack: list[Node] = []

    def select(self, tree: ExecutionTree) -> Node | None:
        while self.stack:
            node = self.stack.pop()
            if node.closed is None:
                return node
        return None

    def update(self, tree: ExecutionTree, path: Path, nodes: list[Node], negated: Node | None) -> None:
        self.stack.extend(n for n in nodes if n.path is path and n.closed is None and n.depth < self.bound)
