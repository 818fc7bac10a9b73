"""CFG-directed search after Burnim & Sen (ASE 2008, CREST's ``-cfg``): negate the
decision whose other side is closest, in the CFA, to a goal not yet covered (distance 0
when that side is itself uncovered; a branch edge weighs 1, any other 0, as CREST's
``process_cfg`` weighs them). Decisions of the latest path are preferred (CREST keeps
working on the current path); when none of them leads to an open goal the whole frontier
is searched. Decisions from which no open goal is reachable are skipped, as in CREST.

This is cooptest's selection rule, not CREST's ``CfgHeuristicSearch`` line for line,
which the CGS paper's CFG column ran: CREST scores the current path's constraints by
distance plus the times the same branch came before, tries them in that order within
30 runs (``DoSearch(5, 30, ...)``), follows the CFG from a negated branch that found
nothing new (``SolveAlongCfg``), and, when a whole ``DoSearch`` finds nothing, restarts
from random inputs with the coverage that guides it cleared (``RESET``). Here there is
no such budget or restart: the frontier is the fallback. (CREST's recursion follows its
path's call and return markers, which a trace here does not record.)

Guided by an automaton (Crabs' monitors), the search runs on the product of the program
and the automaton, as Crabs' concolic testing runs on the product program: the
distances are the product's (``product.ProductDistances``), to the copies of the open
goals the automaton lets a path reach."""
from __future__ import annotations

from cooptest.analyses.concolic.execution_tree import ExecutionTree, Node, Path
from cooptest.analyses.concolic.searchers.base import SearchContext, Searcher
from cooptest.cfa.ir import Edge, Location


class CfgDirected(Searcher):
    name = "cfg"

    def __init__(self, ctx: SearchContext) -> None:
        super().__init__(ctx)
        self.latest: list[Node] = []
        self._dist: dict[Location, int] = {}
        self._open: frozenset[Edge] = frozenset()
        self._covered_at = -1

    def _distance(self, node: Node) -> int | None:
        ctx = self.ctx
        taken = len(ctx.covered) + len(ctx.covered_edges)
        if taken != self._covered_at:
            open_goals = {g: e for g, e in ctx.static.goal_edges().items() if not ctx.reached(g, e)}
            self._dist = ctx.static.distances(open_goals)
            self._open = frozenset(open_goals.values())
            self._covered_at = taken
        if not ctx.reached(node.target, node.negation):
            return 0
        d = self._dist.get(node.negation.dst) if ctx.product is None \
            else ctx.product.after(node, self._open, self._dist)
        return None if d is None else d + 1

    def _best(self, nodes: list[Node]) -> Node | None:
        best, key = None, None
        for n in nodes:
            if n.closed is not None:
                continue
            d = self._distance(n)
            if d is not None and (key is None or (d, n.depth) < key):
                best, key = n, (d, n.depth)
        return best

    def select(self, tree: ExecutionTree) -> Node | None:
        return self._best(self.latest) or self._best(list(tree.frontier))

    def update(self, tree: ExecutionTree, path: Path, nodes: list[Node], negated: Node | None) -> None:
        self.latest = list(nodes)
