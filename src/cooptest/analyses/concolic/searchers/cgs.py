"""Context-guided search (Seo & Kim, FSE 2014), the default strategy.

Breadth-first over the execution tree, depth by depth. A decision whose other side is
not covered yet is always tried. Otherwise its *k-context* — the k decisions before it
on its path that do not dominate it in the CFA (a dominating decision is on every path
to it and says nothing about how the path got there) — decides: the other side is tried
only in a (branch, outcome, context) not tried before. Each full traversal of the tree
increases k, so that decisions skipped as "same context" get another chance with finer
contexts."""
from __future__ import annotations

from cooptest.analyses.concolic.execution_tree import ExecutionTree, Node
from cooptest.analyses.concolic.searchers.base import SearchContext, Searcher


class ContextGuided(Searcher):
    name = "cgs"

    def __init__(self, ctx: SearchContext, k: int = 1) -> None:
        super().__init__(ctx)
        self.k = k
        self.depth = 0
        self.cursor = 0  # position in the nodes of the current depth
        self.tried: set[tuple[int, bool, tuple[tuple[int, bool], ...]]] = set()
        self.selected = self.skipped = False  # in the current traversal

    def context(self, node: Node, k: int) -> tuple[tuple[int, bool], ...]:
        out = []
        dominates = self.ctx.static.branch_dominates
        for a in node.ancestors():
            if len(out) == k:
                break
            if not dominates(a.branch, a.outcome, node.branch):
                out.append((a.branch, a.outcome))
        return tuple(out)

    def select(self, tree: ExecutionTree) -> Node | None:
        covered = self.ctx.covered
        while True:
            if self.depth >= tree.max_depth:
                done = not self.selected and (not self.skipped or self.k > tree.max_depth)
                if not done:
                    self.k += 1
                self.depth = self.cursor = 0
                self.selected = self.skipped = False
                if done:
                    return None  # nothing open, or contexts cannot get finer
            level = tree.levels.get(self.depth, [])
            while self.cursor < len(level):
                node = level[self.cursor]
                self.cursor += 1
                if node.closed is not None:
                    continue
                key = (node.branch, not node.outcome, self.context(node, self.k))
                if key in self.tried and node.target in covered:
                    self.skipped = True
                    continue
                self.tried.add(key)
                self.selected = True
                return node
            self.depth += 1
            self.cursor = 0
