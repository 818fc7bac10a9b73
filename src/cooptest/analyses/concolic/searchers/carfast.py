"""CarFast (Park et al., FSE 2012): greedily negate the decision whose other side
controls the most statements not covered yet: the CFA statements transitively
control-dependent on that branch edge (post-dominance on the CFA), including the bodies
of functions called there, minus those some symbolic execution already traversed. Ties go
to the shallowest decision. As the paper's algorithm has it, only decisions whose other
side no run has taken yet are candidates: a covered branch is a way to code already run,
whatever its region still holds. With none left the engine restarts from random
inputs."""
from __future__ import annotations

from cooptest.analyses.concolic.execution_tree import ExecutionTree, Node
from cooptest.analyses.concolic.searchers.base import SearchContext, Searcher


class CarFast(Searcher):
    name = "carfast"

    def __init__(self, ctx: SearchContext) -> None:
        super().__init__(ctx)
        self._scores: dict[tuple[int, bool], int] = {}
        self._covered_at = -1

    def score(self, node: Node) -> int:
        covered = self.ctx.covered_edges
        if len(covered) != self._covered_at:
            self._scores.clear()
            self._covered_at = len(covered)
        key = (node.branch, not node.outcome)
        s = self._scores.get(key)
        if s is None:
            edge = self.ctx.static.edge(*key)
            s = sum(1 for e in self.ctx.static.region(edge) if e not in covered) + (edge not in covered)
            self._scores[key] = s
        return s

    def select(self, tree: ExecutionTree) -> Node | None:
        best, key = None, None
        for n in tree.frontier:
            if self.ctx.reached(n.target, n.negation):
                continue
            k = (-self.score(n), n.depth)
            if key is None or k < key:
                best, key = n, k
        return best
