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
        self.k = k  # never decreases
        self.depth = 0
        self.cursor = 0  # position in the nodes of the current depth
        self.tried: set[tuple[int, bool, int]] = set()  # (branch, outcome, context)
        self.selected = self.skipped = False  # in the current traversal
        # contexts by number, 0 the empty one: (context, branch, outcome) -> the context
        # one decision longer, so that equal contexts have one number
        self.longer: dict[tuple[int, int, bool], int] = {}
        # open node -> its longest context so far, its length, the ancestor to go on from
        self.contexts: dict[Node, tuple[int, int, Node | None]] = {}

    def context(self, node: Node, k: int) -> int:
        """The number of the k-context of ``node``. Each traversal asks again for the
        context of every open node with k one greater; a tree entered with a long path
        (a random test of 1,023 decisions on array_4) has a thousand open nodes. So the
        walk goes on from where the last one stopped, and a context is a number: built
        afresh as a tuple of up to k decisions and hashed as one, contexts took 20 times
        the rest of an iteration there."""
        number, length, at = self.contexts.get(node, (0, 0, node.parent))
        if length >= k or at is None or at.parent is None:  # the root decides nothing
            return number
        dominates = self.ctx.static.branch_dominates
        while length < k and at is not None and at.parent is not None:
            if not dominates(at.branch, at.outcome, node.branch):
                step = (number, at.branch, at.outcome)
                number = self.longer.setdefault(step, len(self.longer) + 1)
                length += 1
            at = at.parent
        self.contexts[node] = (number, length, at)
        return number

    def select(self, tree: ExecutionTree) -> Node | None:
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
                    self.contexts.pop(node, None)
                    continue
                key = (node.branch, not node.outcome, self.context(node, self.k))
                if key in self.tried and self.ctx.reached(node.target, node.negation):
                    self.skipped = True
                    continue
                self.tried.add(key)
                self.selected = True
                return node
            self.depth += 1
            self.cursor = 0
