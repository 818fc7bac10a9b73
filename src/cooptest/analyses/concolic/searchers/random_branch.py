"""Random branch search (CREST's ``random``): negate a uniformly chosen open decision of
the latest path; when the latest path has none left, one of the whole frontier."""
from __future__ import annotations

from cooptest.analyses.concolic.execution_tree import ExecutionTree, Node, Path
from cooptest.analyses.concolic.searchers.base import SearchContext, Searcher


class RandomBranch(Searcher):
    name = "random-branch"

    def __init__(self, ctx: SearchContext) -> None:
        super().__init__(ctx)
        self.latest: list[Node] = []

    def select(self, tree: ExecutionTree) -> Node | None:
        rng = self.ctx.rng
        self.latest = [n for n in self.latest if n.closed is None]
        if self.latest:
            return self.latest[rng.randrange(len(self.latest))]
        if not tree.frontier:
            return None
        return list(tree.frontier)[rng.randrange(len(tree.frontier))]

    def update(self, tree: ExecutionTree, path: Path, nodes: list[Node], negated: Node | None) -> None:
        self.latest = list(nodes)
