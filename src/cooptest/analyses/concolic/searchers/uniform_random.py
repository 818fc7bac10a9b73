"""Random path selection (KLEE's ``random-path``): walk down the execution tree from the
root choosing uniformly among the subtrees at each decision, where the untried side of
an open decision is a subtree of its own; paths in small subtrees are favoured over the
many paths through one long loop. A walk ending in a fully explored leaf is retried a
few times before falling back to a uniformly chosen frontier node."""
from __future__ import annotations

from cooptest.analyses.concolic.execution_tree import ExecutionTree, Node
from cooptest.analyses.concolic.searchers.base import Searcher

WALKS = 32


class UniformRandomPath(Searcher):
    name = "uniform-random"

    def select(self, tree: ExecutionTree) -> Node | None:
        if not tree.frontier:
            return None
        rng = self.ctx.rng
        for _ in range(WALKS):
            node = tree.root
            while node.children:
                child = rng.choice(list(node.children.values()))
                if child.closed is None and rng.random() < 0.5:
                    return child
                node = child
        return list(tree.frontier)[rng.randrange(len(tree.frontier))]
