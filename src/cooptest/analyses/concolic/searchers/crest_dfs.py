"""CREST's ``-dfs`` (``BoundedDepthFirstSearch::DFS`` of its ``concolic_search.cc``), the
DFS of the CGS paper's tables: for each decision of a path, shallowest first, negate it,
run, and if the run took the negated side, search the new path from the decision after
it before going on with the next decision of this one::

    DFS(pos, depth, ex):
      for i in pos .. |ex| - 1 while depth > 0:
        if solve(ex, i) and the run ex' of the solution takes branch i negated:
          depth -= 1; DFS(i + 1, depth, ex')

The recursion is a stack of frames (a path, its nodes, the next position, the depth
left), since the engine, not the searcher, runs each negation; it solves each along the
frame's path (``along``: CREST's ``SolveAtBranch(ex, i)`` amends ex's inputs), also
where an earlier path negated the decision already, as CREST does, unless the tree
knows no input exists (unsatisfiable after the same prefix, given up on, cut). As in
CREST a run whose prediction failed is not searched; a query without a solution moves
on to the next position. CREST's default depth (``run_crest PROGRAM N -dfs``) is
1,000,000; ``--dfs-depth D`` is its ``-dfs D``. When the depth is spent, CREST's search
ends; here the engine restarts from fresh inputs (as the CGS author's CREST does), and
the decisions the search left open stay open in the tree: a bound proves nothing."""
from __future__ import annotations

from dataclasses import dataclass

from cooptest.analyses.concolic.execution_tree import SOLVABLE_AGAIN, ExecutionTree, Node, Path, took_other_side
from cooptest.analyses.concolic.searchers.base import SearchContext, Searcher

DEPTH = 1_000_000  # CREST's default


@dataclass
class Frame:
    """One call ``DFS(pos, depth, ex)``: ``path`` is ex, ``nodes`` its decisions,
    ``next`` is i."""

    path: Path
    nodes: list[Node]
    next: int
    depth: int


class CrestDepthFirst(Searcher):
    name = "crest-dfs"

    def __init__(self, ctx: SearchContext, depth: int = DEPTH) -> None:
        super().__init__(ctx)
        self.depth = depth
        self.frames: list[Frame] = []

    def select(self, tree: ExecutionTree) -> Node | None:
        while self.frames:
            frame = self.frames[-1]
            while frame.next < len(frame.nodes) and frame.depth > 0:
                node = frame.nodes[frame.next]
                frame.next += 1
                if node.closed in SOLVABLE_AGAIN:
                    return node
            self.frames.pop()
        return None

    def along(self, node: Node) -> Path | None:
        frame = self.frames[-1] if self.frames else None
        return frame.path if frame is not None and frame.nodes[frame.next - 1] is node else None

    def update(self, tree: ExecutionTree, path: Path, nodes: list[Node], negated: Node | None) -> None:
        if negated is None:  # a first run, a test of the board, a restart: DFS(0, depth, ex),
            # after the searches of the runs before it (CREST's one initial run is the first)
            self.frames.insert(0, Frame(path, nodes, 0, self.depth))
        elif took_other_side(nodes, negated) and self.frames:
            caller = self.frames[-1]
            caller.depth -= 1
            self.frames.append(Frame(path, nodes, negated.depth + 1, caller.depth))
