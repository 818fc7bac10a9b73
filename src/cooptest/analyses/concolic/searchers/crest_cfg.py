"""CREST's ``-cfg`` (``CfgHeuristicSearch`` of its ``concolic_search.cc``, Burnim & Sen,
ASE 2008), the CFG column of the CGS paper's tables, line for line::

    Run:
      loop:                                                      # RESET
        covered := {}; ex := run(fresh inputs); cover(ex); distances()
        while DoSearch(30, 0, INF, ex): distances(); ex := the run that succeeded
    DoSearch(iters, pos, maxDist, ex):
      score each constraint i >= pos of ex: dist[other side of i] + the times that side
        was scored before (a random order, then stably by score)
      for i by score, while iters > 0 and score <= maxDist:
        if not solve(ex, i): continue
        ex' := run; iters -= 1; new := cover(ex'); mispredicted := ex' kept branch i
        if new and mispredicted: succeed with ex'
        if new and FindAlongCfg(i, dist[other side], ex', new): succeed with ex'
        if mispredicted: continue
        if dist[other side] > 0 and SolveAlongCfg(i, score - 1, ex'): return true
        if new: succeed with ex'
      return false
    SolveAlongCfg(i, maxDist, ex):
      for j among the branches that follow i on ex in the CFG (random order):
        skip unless dist[j] <= maxDist or dist[other side of j] <= maxDist
        if dist[j] <= maxDist and SolveAlongCfg(j, maxDist - 1, ex): return true
        if j is symbolic and dist[other side of j] <= maxDist:
          if not solve(ex, j): continue
          ex' := run; if cover(ex') is new: succeed with ex'
          if ex' did not take j's other side: continue
          if SolveAlongCfg(j, maxDist - 1, ex'): return true
      return false

``covered`` is the search's own (CREST's ``covered_``): cleared at each RESET, so that
after one the search is drawn back to branches earlier rounds covered; ``dist`` (CREST's
``dist_``) is 0 for a branch goal not in it and one more than the fewest branch edges
from the branch to such a goal otherwise (``StaticInfo.distances``), recomputed where
CREST calls ``UpdateBranchDistances``, not after every run. "The branches that follow
i in the CFG" (``CollectNextBranches``) are read off the path's branches and the calls
and returns between them, which an observer records as symbolic execution passes them.

Differences, where the engine decides: the engine, not the searcher, runs a
negation, so the recursion is a generator that yields the node to negate, with the run
whose inputs the solver's model amends (CREST's ``prev``: ``along``), and is sent the
run it gave (None where there was none). A decision the tree has negated already is
solved and run again from that run's inputs, as CREST does, unless the tree knows the
solver finds no input (unsatisfiable after the same prefix, given up on, or cut by a
monitor); whether the run took the negated side is read off the tree (CREST's
``CheckPrediction`` compares the branches, here the symbolic decisions). A RESET is
the engine's restart from fresh inputs (``--fresh-inputs``), and the runs the engine
starts from (a seed suite's, the first) each begin a round in
the order they came. CREST's CFG has no return edges (a function's last branch has no
successor in its callers); the distances here follow returns.

Guided by an automaton (Crabs' monitors), the search runs on the product of the program
and the automaton, as Crabs ran CREST's CFG search on its product program: each
distance is the product's from the automaton state at that branch of the path
(``product.ProductDistances``; ``Guided`` keeps the states of every branch for it).
"""
from __future__ import annotations

from array import array
from collections import deque
from collections.abc import Generator
from dataclasses import dataclass

from cooptest.analyses.concolic.execution_tree import (SOLVABLE_AGAIN, ExecutionTree, Node, Path,
                                                       took_other_side)
from cooptest.analyses.concolic.searchers.base import SearchContext, Searcher
from cooptest.analyses.concolic.symbolic_execution import Observer, SymbolicState
from cooptest.cfa.ir import AssumeEdge, CallEdge, Edge, Location, Program, ReturnEdge, branch_goal_id
from cooptest.core.automaton import TOP, State

INF = 10_000  # CREST's kInfiniteDistance (concolic_search.h)
ITERS = 30  # runs a top-level DoSearch may make (``DoSearch(5, 30, 0, kInfiniteDistance, ex)``)
CALL, RETURN = -1, -2  # markers between the trace positions of a path's events (CREST's kCallId, kReturnId)


@dataclass(eq=False)
class Run:
    """One execution as CREST's ``SymbolicExecution`` holds it: the path, its tree nodes
    (one per constraint), and its events (trace positions, calls and returns)."""

    path: Path
    nodes: list[Node]
    events: array
    _constraints: dict[int, int] | None = None  # trace position -> constraint index
    _events: dict[int, int] | None = None  # trace position -> event index

    def constraint_at(self, event: int) -> int | None:
        """The index of the constraint (decision) the branch at ``events[event]`` is, if
        it is symbolic."""
        if self._constraints is None:
            self._constraints = {d.position: k for k, d in enumerate(self.path.decisions)}
        return self._constraints.get(self.events[event])

    def event_of(self, position: int) -> int:
        """The index in ``events`` of trace position ``position``."""
        if self._events is None:
            self._events = {e: k for k, e in enumerate(self.events) if e >= 0}
        return self._events[position]


Answer = Run | None  # what the engine made of a negation: its run, or none
Ask = tuple[Node, Path]  # a decision to negate, from the inputs of this run (CREST's SolveAtBranch)
Plan = Generator[Ask, Answer, None]


class Events:
    """The observer of one symbolic execution: the trace positions of its branches with
    CALL before the first edge of a called function's body and RETURN at each return."""

    def __init__(self, program: Program, prefix: array) -> None:
        self.program = program
        self.events = array("i", prefix)
        self.position = sum(1 for e in prefix if e >= 0)
        self.calling = False

    def __call__(self, edge: Edge, state: SymbolicState) -> None:
        if self.calling:
            f = self.program.functions.get(edge.src.function)
            if f is not None and edge.src is f.entry:
                self.events.append(CALL)
            self.calling = False
        if isinstance(edge, AssumeEdge) and edge.branch is not None:
            self.events.append(self.position)
            self.position += 1
        elif isinstance(edge, CallEdge):
            self.calling = True
        elif isinstance(edge, ReturnEdge):
            self.events.append(RETURN)


class CrestCfg(Searcher):
    name = "crest-cfg"
    follows_branches = True  # SolveAlongCfg reads the distances of a path's branches

    def __init__(self, ctx: SearchContext) -> None:
        super().__init__(ctx)
        self.covered: set[str] = set()  # CREST's covered_: since the last RESET
        # CREST's dist_, as its last UpdateBranchDistances left it: the goals then not
        # covered, and each location's fewest branch edges to one of them
        self.uncovered: frozenset[str] = frozenset()
        self.dist: dict[Location, int] = {}
        self.open: frozenset[Edge] = frozenset()  # their edges (a product's distances are to them)
        self.starts: deque[Run] = deque()  # runs the engine started from, each a round's start
        self.events: dict[Path, array] = {}  # each path's events, for runs resumed after a prefix
        self._plan: Plan | None = None
        self._asked: Node | None = None
        self._along: Path | None = None  # the run the asked negation starts from (CREST's prev)
        self._answer: Answer = None
        self._recording: Events | None = None

    # the engine's side
    def select(self, tree: ExecutionTree) -> Node | None:
        answer, self._answer, self._asked = self._answer, None, None
        while True:
            if self._plan is None:
                if not self.starts:
                    return None  # RESET: the engine runs fresh inputs, ``update`` queues them
                self._plan, answer = self._round(self.starts.popleft()), None
            try:
                node, self._along = self._plan.send(answer)
            except StopIteration:
                self._plan = None
                continue
            if node.closed in SOLVABLE_AGAIN:
                self._asked = node
                return node
            answer = None  # unsatisfiable after this prefix, or cut: CREST's solver finds no input

    def along(self, node: Node) -> Path | None:
        return self._along if node is self._asked else None

    def observers(self, resumed: Node | None = None) -> list[Observer]:
        prefix = array("i")
        if resumed is not None and resumed.path is not None:  # its events up to its decision
            position = resumed.path.decisions[resumed.index].position
            events = self.events.get(resumed.path)
            prefix = events[:events.index(position) + 1] if events is not None else _untraced(position + 1)
        self._recording = Events(self.ctx.program, prefix)
        return [self._recording]

    def update(self, tree: ExecutionTree, path: Path, nodes: list[Node], negated: Node | None) -> None:
        recording, self._recording = self._recording, None
        events = recording.events if recording is not None else _untraced(len(path.trace))
        self.events[path] = events
        run = Run(path, nodes, events)
        if negated is None:
            self.starts.append(run)
        elif negated is self._asked:  # (not a negation another job's searcher asked for)
            self._answer = run

    # CREST's side
    def _round(self, start: Run) -> Plan:
        """One iteration of ``Run``'s outer loop, from the run ``start``."""
        self.covered = set()
        self._cover(start)
        self._distances()
        ex = start
        while True:
            success = yield from self._do_search(ITERS, 0, INF, ex)
            if success is None:
                return
            self._distances()
            ex = success

    def _do_search(self, iters: int, pos: int, max_dist: int, prev: Run) -> Generator[Ask, Answer, Run | None]:
        """``DoSearch``: the run it succeeded with (CREST's ``success_ex_``), or None."""
        constraints = prev.path.decisions
        if pos >= len(constraints):
            return None
        scored = list(range(pos, len(constraints)))
        self.ctx.rng.shuffle(scored)
        seen: dict[str, int] = {}
        score: dict[int, int] = {}
        for i in scored:
            other = prev.nodes[i].target
            score[i] = self._dist(prev.nodes[i]) + seen.get(other, 0)
            seen[other] = seen.get(other, 0) + 1
        scored.sort(key=score.__getitem__)  # stable: the shuffled order breaks ties
        for i in scored:
            if iters <= 0 or score[i] > max_dist:
                return None
            node = prev.nodes[i]
            cur = yield node, prev.path
            if cur is None:
                continue
            iters -= 1
            b_idx = prev.event_of(constraints[i].position)
            new = self._cover(cur)
            mispredicted = not took_other_side(cur.nodes, node)
            if new and mispredicted:
                return cur
            d = self._dist(node)
            if new and self._find_along_cfg(b_idx, d, cur, new):
                return cur
            if mispredicted:
                continue
            if d > 0:
                found = yield from self._solve_along_cfg(b_idx, score[i] - 1, cur)
                if found is not None:
                    return found
            if new:
                return cur
        return None

    def _solve_along_cfg(self, i: int, max_dist: int, prev: Run) -> Generator[Ask, Answer, Run | None]:
        """``SolveAlongCfg``: force the path along the CFG toward a goal at most
        ``max_dist`` branches from the branch at ``prev.events[i]``."""
        following = _next_branches(prev.events, i + 1)
        if not any(self._side(prev, j, False) <= max_dist or self._side(prev, j, True) <= max_dist
                   for j in following):
            return None
        self.ctx.rng.shuffle(following)
        for j in following:
            if self._side(prev, j, False) > max_dist and self._side(prev, j, True) > max_dist:
                continue
            if self._side(prev, j, False) <= max_dist:  # on a shortest path already: no need to force
                found = yield from self._solve_along_cfg(j, _less(max_dist), prev)
                if found is not None:
                    return found
            k = prev.constraint_at(j)
            if k is None or self._side(prev, j, True) > max_dist:
                continue  # concrete, or forcing it leads nowhere near
            node = prev.nodes[k]
            cur = yield node, prev.path
            if cur is None:
                continue
            if self._cover(cur):
                return cur
            if not took_other_side(cur.nodes, node):
                continue
            found = yield from self._solve_along_cfg(j, _less(max_dist), cur)
            if found is not None:
                return found
        return None

    def _find_along_cfg(self, i: int, dist: int, ex: Run, new: set[str]) -> bool:
        """``FindAlongCfg``: whether a branch ``new`` holds is within ``dist`` CFG steps
        of the branch at ``ex.events[i]`` along ``ex``."""
        if i >= len(ex.events):
            return False
        if self._goal(ex, i) in new:
            return True
        if dist == 0:
            return False
        return any(self._find_along_cfg(j, dist - 1, ex, new) for j in _next_branches(ex.events, i + 1))

    # coverage and distances
    def _cover(self, run: Run) -> set[str]:
        """CREST's ``UpdateCoverage``: the branch goals ``run`` takes that ``covered``
        lacked, now in it."""
        taken = {branch_goal_id(b, o) for b, o in run.path.trace}
        new = (taken & self.ctx.goals) - self.covered
        self.covered |= new
        return new

    def _distances(self) -> None:
        """CREST's ``UpdateBranchDistances``."""
        static = self.ctx.static
        self.uncovered = frozenset(g for g in self.ctx.goals if g.startswith("B") and g not in self.covered)
        self.dist = static.distances(self.uncovered)
        edges = static.goal_edges()
        self.open = frozenset(edges[g] for g in self.uncovered)

    def _edge_distance(self, goal: str, edge: Edge, q: State) -> int:
        """``dist_`` of the branch ``edge`` (goal ``goal``) taken in automaton state ``q``:
        on a product (``Guided``), the product's distance from there, and none where
        the product has no such edge (the automaton proved nothing is left there)."""
        product = self.ctx.product
        if goal in self.uncovered:
            return 0 if product is None or product.allows(q, edge) else INF
        d = self.dist.get(edge.dst) if product is None else product.after_edge(q, edge, self.open, self.dist)
        return INF if d is None else d + 1

    def _dist(self, node: Node) -> int:
        """``dist_`` of the other side of ``node``'s decision."""
        product = self.ctx.product
        return self._edge_distance(node.target, node.negation, TOP if product is None else product.state_of(node))

    def _side(self, ex: Run, event: int, other: bool) -> int:
        """``dist_`` of the branch at ``ex.events[event]`` (``other``: of its other side)."""
        position = ex.events[event]
        branch, outcome = ex.path.trace[position]
        outcome = outcome != other
        product = self.ctx.product
        return self._edge_distance(branch_goal_id(branch, outcome), self.ctx.static.edge(branch, outcome),
                                   TOP if product is None else product.state_at(ex.path, position))

    @staticmethod
    def _goal(ex: Run, event: int) -> str:
        return branch_goal_id(*ex.path.trace[ex.events[event]])


def _untraced(branches: int) -> array:
    """The events of a path no observer of this search followed (run before it took
    over): its branches, without the calls and returns between them."""
    return array("i", range(branches))


def _less(max_dist: int) -> int:
    """``max_dist - 1`` as CREST computes it, in an ``unsigned int``: below 0 it wraps
    to the largest value (a branch the last distances found uncovered, on the path
    since, leaves the recursion unbounded)."""
    return (max_dist - 1) % 2**32


def _next_branches(events: array, pos: int) -> list[int]:
    """``CollectNextBranches``: the indices of the branches that immediately follow in
    the CFG, from ``pos`` on: the first branch of each call made before the next branch
    of this function (and of the calls at the start of those), then that branch."""
    found: list[int] = []
    _collect(events, [pos], found)
    return found


def _collect(events: array, at: list[int], found: list[int]) -> None:
    while at[0] < len(events) and events[at[0]] == CALL:
        at[0] += 1
        _collect(events, at, found)
        _skip_until_return(events, at)
        if at[0] >= len(events):
            return
        at[0] += 1
    if at[0] < len(events) and events[at[0]] >= 0:
        found.append(at[0])
        at[0] += 1


def _skip_until_return(events: array, at: list[int]) -> None:
    while at[0] < len(events) and events[at[0]] != RETURN:
        if events[at[0]] == CALL:
            at[0] += 1
            _skip_until_return(events, at)
            if at[0] >= len(events):
                return
        at[0] += 1
