"""Generational search (SAGE, Godefroid et al. 2008): expand a path by negating *every*
decision beyond its bound (the decision that created it), run all its children, score
each child by the goals it newly covered, and expand the best-scored child next. The
bound keeps children from re-negating the prefix their parent already expanded."""
from __future__ import annotations

import heapq
import itertools

from cooptest.analyses.concolic.execution_tree import ExecutionTree, Node, Path
from cooptest.analyses.concolic.searchers.base import SearchContext, Searcher


class Generational(Searcher):
    name = "generational"

    def __init__(self, ctx: SearchContext) -> None:
        super().__init__(ctx)
        self.queue: list[tuple[int, int, list[Node]]] = []  # (-score, order, nodes to negate)
        self.order = itertools.count()
        self.expanding: list[Node] = []

    def select(self, tree: ExecutionTree) -> Node | None:
        while True:
            while self.expanding:
                node = self.expanding.pop()
                if node.closed is None:
                    return node
            if not self.queue:
                return None
            self.expanding = heapq.heappop(self.queue)[2][::-1]  # shallowest first

    def update(self, tree: ExecutionTree, path: Path, nodes: list[Node], negated: Node | None) -> None:
        bound = negated.depth + 1 if negated is not None else 0
        children = [n for n in nodes[bound:] if n.closed is None]
        if children:
            heapq.heappush(self.queue, (-len(path.new_goals), next(self.order), children))
