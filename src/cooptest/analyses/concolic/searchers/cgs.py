"""Context-guided search (Seo & Kim, "How we get there", FSE 2014), as the paper's
Algorithm 2 gives it (``cgs``), and cooptest's variants of it: contexts of decisions
(``cgs-decisions``, the default search) and the eager one (``cgs-eager``).

Breadth-first over the execution tree, depth by depth. A decision is negated only when
its *k-context* is new: the branch to take with the k - 1 branches before it on its
execution path that do not dominate it (a dominating branch lies on every path to the
branch and says nothing about how the path got there), so that the 1-context is the
branch alone. The branches before it are all the path took, on concrete data as well as
on inputs, as the author's implementation in CREST reads them (``GetContext`` walks
``path().branches()``, every branch the run passed, not only those with a constraint).
A context tried once is not tried again, whether or not the branch was covered since.
With incremental k (the paper's default) each full traversal of the tree that skipped a
decision as "same context" increases k, so that those decisions get another chance
with finer contexts; a fixed k is the paper's Figure 8 ablation."""
from __future__ import annotations

from typing import Callable

from cooptest.analyses.concolic.execution_tree import ExecutionTree, Node
from cooptest.analyses.concolic.searchers.base import SearchContext, Searcher


class ContextGuided(Searcher):
    """The paper's CGS: contexts counted with the branch, every decision checked, the
    decisions of one depth in random order (none is favoured for having been found
    first)."""

    name = "cgs"
    first_k = 1  # the 1-context: the branch alone

    def __init__(self, ctx: SearchContext, k: int | None = None, dominators: bool = True) -> None:
        """``k``: fixed context length (None: incremental from ``first_k``);
        ``dominators``: leave dominating decisions out of contexts (the paper does)."""
        super().__init__(ctx)
        self.incremental = k is None
        self.k = self.first_k if k is None else k  # never decreases
        self.dominators = dominators
        self.depth = 0
        self.queue: list[Node] = []  # the nodes of the current depth still to check
        self.queued = 0  # how many of that depth's nodes have been queued
        self.tried: set[tuple[int, bool, int]] = set()  # (branch, outcome, context)
        self.selected = self.skipped = False  # in the current traversal
        # contexts by number, 0 the empty one: (context, branch, outcome) -> the context
        # one branch longer, so that equal contexts have one number
        self.longer: dict[tuple[int, int, bool], int] = {}
        # open node -> its longest context so far, its length, the index of its
        # preceding entries (``preceding``) to go on from
        self.contexts: dict[Node, tuple[int, int, int]] = {}

    def order(self, nodes: list[Node]) -> list[Node]:
        """The order in which the nodes of one depth are checked."""
        self.ctx.rng.shuffle(nodes)
        return nodes

    def admits(self, node: Node, key: tuple[int, bool, int]) -> bool:
        """Whether ``node``, of context ``key``, is negated (Algorithm 2: iff the
        context is new)."""
        return key not in self.tried

    def preceding(self, node: Node) -> tuple[Callable[[int], tuple[int, bool]], int]:
        """What contexts are made of: the entries of ``node``'s first path before it, as
        ``(branch, outcome)`` by index, and the index of the last of them. The paper's
        are the path's branches, as the author's tree keeps each decision in the run that
        reached it first (``GetExAtDepth``)."""
        path = node.path
        assert path is not None, "the root is never negated"
        return path.trace.__getitem__, path.decisions[node.index].position - 1

    def context(self, node: Node, length: int) -> int:
        """The number of the ``length`` entries before ``node`` (:meth:`preceding`)
        that make its context. Each traversal asks again for the context of every open
        node with k one greater; a tree entered with a long path (a random test of 1,023
        decisions on array_4) has a thousand open nodes. So the walk goes on from where
        the last one stopped, and a context is a number: built afresh as a tuple of up
        to k entries and hashed as one, contexts took 20 times the rest of an iteration
        there."""
        entry, last = self.preceding(node)
        number, have, at = self.contexts.get(node, (0, 0, last))
        dominates = self.ctx.static.branch_dominates
        while have < length and at >= 0:
            branch, outcome = entry(at)
            if not (self.dominators and dominates(branch, outcome, node.branch)):
                number = self.longer.setdefault((number, branch, outcome), len(self.longer) + 1)
                have += 1
            at -= 1
        self.contexts[node] = (number, have, at)
        return number

    def _next_traversal(self, tree: ExecutionTree) -> bool:
        """Whether another traversal can select anything: one that selected nothing and
        skipped nothing, or skipped only at a fixed k or at a k no path is long enough
        to refine, is the last."""
        finer = self.incremental and self.k - 1 <= tree.max_depth
        go_on = self.selected or (self.skipped and finer)
        self.ctx.count("cgs_traversals")
        if go_on and self.incremental:
            self.k += 1
        self.depth = self.queued = 0
        self.queue = []
        self.selected = self.skipped = False
        return go_on

    def select(self, tree: ExecutionTree) -> Node | None:
        while True:
            if self.depth >= tree.max_depth and not self._next_traversal(tree):
                return None  # nothing open, or no context left to try
            level = tree.levels.get(self.depth, [])
            if not self.queue and self.queued < len(level):  # the depth, or what it gained
                self.queue = self.order(level[self.queued:])[::-1]  # popped from the end
                self.queued = len(level)
            while self.queue:
                node = self.queue.pop()
                if node.closed is not None:
                    self.contexts.pop(node, None)
                    continue
                key = (node.branch, not node.outcome, self.context(node, self.k - 1))
                if not self.admits(node, key):
                    self.skipped = True
                    continue
                self.tried.add(key)
                self.selected = True
                return node
            if self.queued >= len(level):
                self.depth += 1
                self.queued = 0


class DecisionContextGuided(ContextGuided):
    """cooptest's own variant: the paper's search with contexts of the path's symbolic
    decisions (the node's ancestors in the tree) in place of all its branches. On an
    input-driven state machine every decision on an input comes after the same checks
    of the state, which the paper's contexts count, so that they stay equal however
    long: on RERS Problem11, 300 iterations of cgs cover 448 goals, of this variant
    1,475. On grep it is the other way round (benchmarks/RESULTS.md, the CGS table)."""

    name = "cgs-decisions"

    def preceding(self, node: Node) -> tuple[Callable[[int], tuple[int, bool]], int]:
        path = node.path
        assert path is not None, "the root is never negated"
        decisions = path.decisions
        return (lambda i: (decisions[i].branch, decisions[i].outcome)), node.index - 1


class EagerContextGuided(DecisionContextGuided):
    """cooptest's own variant: a decision whose other side is not reached yet is
    negated whatever its context, contexts of decisions start one longer (its first
    traversal uses the 2-context), and a depth's decisions are checked in the
    order they were found. It was the default search until cgs, then with contexts of
    decisions, measured as well or better at 500 iterations on replace, kbfiltr and
    s3_srvr (``benchmarks/ablation_papers.py cgs``); it stays for that comparison."""

    name = "cgs-eager"
    first_k = 2

    def order(self, nodes: list[Node]) -> list[Node]:
        return nodes

    def admits(self, node: Node, key: tuple[int, bool, int]) -> bool:
        return key not in self.tried or not self.ctx.reached(node.target, node.negation)
