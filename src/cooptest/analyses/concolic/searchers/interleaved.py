"""Interleaved search (KLEE's ``InterleavedSearcher``): the searchers take turns, round
robin; one with nothing to propose passes its turn. Every searcher sees every path."""
from __future__ import annotations

from cooptest.analyses.concolic.execution_tree import ExecutionTree, Node, Path
from cooptest.analyses.concolic.searchers.base import Searcher
from cooptest.analyses.concolic.symbolic_execution import Observer


class Interleaved(Searcher):
    name = "interleaved"

    def __init__(self, *searchers: Searcher) -> None:
        if not searchers:
            raise ValueError("Interleaved needs at least one searcher")
        super().__init__(searchers[0].ctx)
        self.searchers = searchers
        self.turn = 0

    def select(self, tree: ExecutionTree) -> Node | None:
        n = len(self.searchers)
        for k in range(n):
            node = self.searchers[(self.turn + k) % n].select(tree)
            if node is not None:
                self.turn = (self.turn + k + 1) % n
                return node
        return None

    def update(self, tree: ExecutionTree, path: Path, nodes: list[Node], negated: Node | None) -> None:
        for s in self.searchers:
            s.update(tree, path, nodes, negated)

    def observers(self, resumed: Node | None = None) -> list[Observer]:
        return [o for s in self.searchers for o in s.observers(resumed)]
