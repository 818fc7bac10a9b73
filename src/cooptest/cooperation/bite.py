"""BiTe: bidirectional symbolic analysis for branch testing (Baluda, Denaro, Pezzè).

Forward dynamic symbolic execution (concolic testing) and backward symbolic
reachability (weakest preconditions) grow one model of the program, the GCFG, and meet
at its frontier::

    GCFG := S-states of the runs of the seed suite; R-states of every open goal   (Sec. 3)
    while budget and open goals:                                                  (Alg. 2)
        if the frontier has an edge <S, R> (the first in the frontier order):
            symbolic execution step (Sec. 4.1): if S /\\ R is satisfiable, run its
            model natively (a test); its run adds S-states
            otherwise the symbolic reachability step (Sec. 4.2) along that edge:
            R backwards over every CFA edge into its location (WP, Morris'
            aliasing split); an unsatisfiable precondition is removed, one implied
            by an earlier R-state at its location is subsumed
        elif some R-state is unexplored: the symbolic reachability step on it
        else: a slice of DSE (concolic search) adds S-states
        coarsen the model (Alg. 3, Sec. 5)
        a goal whose backward exploration is complete and removed every R-state is
        proven infeasible

Coarsening (Algorithm 3) drops R-states, and with them their frontier edges (lazily):

- those of decided goals;
- those a new test satisfies (``found`` and ``nearest``; below): S /\\ R satisfiable
  in an exact S-state (no imprecise or concretised value) means a run reaches R, so R
  is covered ground, and so is what its backward exploration found (its descendants:
  ways to reach R). A run in R also means, by Inv1, that R's backward exploration
  would reach the start of the program along that run: the goal can no longer be
  proven, and it is marked so (``met``); dropping R-states never completes an
  exploration;
- the disconnected ones: an R-state at a location no path of the program reaches
  from its start (``BackwardReachability.connected``) holds for no execution, so it
  is never added (Inv1 holds without it).

The states (Sec. 3). An *S-state* is the symbolic state of an executed path just
before one of its branch decisions: a CFA location, the call stack, and the path
condition up to there (snapshots of concolic search's symbolic execution, taken by an
observer). An *R-state* is a location, a call string and a formula
(``analyses.wp.Formula``) that every state there must satisfy to reach the goal it is for.
A *frontier edge* ``<S, R>`` joins an S-state and an R-state at one location with
compatible call stacks (the R-state's call string is the innermost part of the S-state's
stack) that were not yet tried together; the R-state got there along a CFA edge of the
backward exploration.

Invariants (Inv1-Inv5 of the paper, as kept here):

1. every execution that reaches a goal passes, at each location of its path, through a
   state that satisfies one of the live or subsumed R-states of that location
   (``BackwardTransfer.pre`` over-approximates pre-images, a removed formula is
   unsatisfiable, a subsumed one implies a live one);
2. S-states are real: each is a prefix of a native run, executed symbolically;
3. a frontier edge joins an S-state and an R-state of the same location whose call
   stacks agree;
4. a goal is covered only by a native run (``GoalBoard.submit``);
5. a goal is proven infeasible only when its backward exploration is *complete*: no
   R-state of it is left to extend, none reached the start of the program, no test
   met one (coarsening dropped it), and no step was incomplete (call strings longer than
   ``max_stack``, more than ``max_r_states``, a call of a library function that may
   write memory, a function pointer made from an integer). A satisfiability check
   the clock interrupted is done again by the next step, never read as "unsatisfiable".

Interprocedural (Sec. 6) and widening at loop heads: the backward steps are those of
``analyses.backward`` (call strings, a widened formula at a loop head a backward path
comes back to, ``Incomplete`` where a step cannot follow every path).

Frontier orders (``--frontier-order``): ``found`` is Algorithm 2 with the frontier
edges in the order they were found (the paper's); ``nearest`` is Algorithm 2 with the
edge of the R-state fewest backward steps from its goal first (its formula is the
weakest, so it is the likeliest to meet an executed path; ties in the order found).
``balanced`` is cooptest's own: the nearest edge first, and the three kinds of step
take turns by the time spent in each (DSE while it took less than the other two,
then the cheaper of symbolic execution and reachability), the reachability steps
round robin over the goals' unexplored R-states rather than along the frontier edge
whose test failed: a goal with no frontier edge is explored, and so proven, as soon
as one that has edges. It keeps the R-states a test met: ours over-approximate (a
skipped loop condition, a widened formula, inputs read after R's location left
free), so a run in R need not be on its way to the goal, and later S-states still
meet R usefully (more goals covered on diskperf, as many elsewhere:
``benchmarks/ablation_papers.py bite``).
"""
from __future__ import annotations

import heapq
import itertools
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Literal, TypeVar

import z3

from cooptest.analyses.backward import BackwardReachability, Heads, Incomplete, Stack
from cooptest.analyses.concolic import DEFAULT, ConcolicAnalysis, ConcolicSearchState
from cooptest.analyses.concolic.execution_tree import ExecutionTree, Node, Path, Pending
from cooptest.analyses.concolic.inputs import literal
from cooptest.analyses.concolic.searchers.base import Searcher
from cooptest.analyses.concolic.symbolic_execution import Observer
from cooptest.analyses.symbolic import SymbolicState
from cooptest.analyses.wp import FrameState, Formula, truth
from cooptest.cfa.ir import AssumeEdge, Edge, Location, Program
from cooptest.cfa.proof_blockers import site_key
from cooptest.core.analysis import AnalysisState, Job, Outcome, finish
from cooptest.core.board_view import Board
from cooptest.core.registry import Settings

ORIGIN = "bite"
T = TypeVar("T")
Meeting = Literal["exact", "sat", "unsat", "unknown"]  # "exact": S /\\ R satisfiable in an
# S-state with no imprecise or concretised value, so some input reaches R along S's path
ORDERS = ("found", "nearest", "balanced")


# ---------------------------------------------------------------------------- the GCFG


@dataclass(eq=False)
class SState:
    """A symbolic state of an executed path before a branch decision."""

    location: Location
    stack: Stack
    state: SymbolicState


@dataclass(eq=False)
class RState:
    """A reachability condition: from ``location`` under call string ``stack``, the
    goal is reachable only from states satisfying ``formula``. ``edge`` is the CFA edge
    it was extended backwards along (None: the goal's own condition), ``depth`` the
    number of backward steps from the goal."""

    goal: str
    location: Location
    stack: Stack
    formula: Formula
    depth: int = 0
    edge: Edge | None = None
    parent: RState | None = None  # the R-state it was extended from
    checked: bool = False  # its formula was found satisfiable (or z3 gave up on it), or its
    # parent's was and the step did not change it
    removed: bool = False
    heads: Heads = frozenset()  # loop heads (and call strings) on the backward path from
    # the goal to here: coming back to one widens


@dataclass
class Backward:
    """The backward exploration of one goal: R-states left to extend, those kept per
    location and call string (for subsumption), and why it can prove nothing."""

    goal: str
    pending: deque[RState] = field(default_factory=deque)
    reached: dict[tuple[int, Stack], list[Formula]] = field(default_factory=dict)
    live: list[RState] = field(default_factory=list)
    r_states: int = 0
    removed: int = 0
    subsumed: int = 0
    incomplete: str | None = None  # why the exploration is incomplete (never proves then)
    at_start: bool = False  # an R-state reached the start of the program
    met: str | None = None  # a test satisfied an R-state of it: it cannot be proven
    disconnected: int = 0  # R-states at locations no path from the start reaches
    crossed: set[Edge] = field(default_factory=set)  # the edges its steps went over (the
    # goal's own too): all a proof by it reads of the program

    def complete(self) -> bool:
        return not self.pending and self.incomplete is None and not self.at_start and self.met is None


@dataclass
class BiTeState(AnalysisState):
    """The GCFG (S-states, R-states, frontier) and the concolic state producing S-states."""

    concolic: ConcolicSearchState | None = None
    backward: dict[str, Backward] = field(default_factory=dict)
    s_states: dict[int, list[SState]] = field(default_factory=dict)  # by location id
    s_count: dict[tuple[int, Stack], int] = field(default_factory=dict)  # per location and stack
    r_states: dict[int, list[RState]] = field(default_factory=dict)  # live, by location id
    frontier: list[tuple[int, int, SState, RState]] = field(default_factory=list)  # a heap
    found: itertools.count = field(default_factory=itertools.count)
    turn: int = 0  # round robin over the goals of reachability steps
    iterations: int = 0
    dse_exhausted: bool = False
    dse_time: float = 0.0
    execution_time: float = 0.0  # symbolic execution steps (their tests' runs included)
    reachability_time: float = 0.0

    def frontier_size(self) -> int:
        return len(self.frontier) + sum(len(b.pending) for b in self.backward.values())


# ---------------------------------------------------------------------------- S-states


class SStates(Searcher):
    """Wraps the concolic searcher: its symbolic executions also leave S-states in the
    GCFG (at most ``per_location`` per location and call stack, one per symbolic
    execution)."""

    name = "bite-s-states"

    def __init__(self, inner: Searcher, gcfg: BiTeState, on_new: list[SState], per_location: int = 3) -> None:
        super().__init__(inner.ctx)
        self.inner, self.gcfg, self.on_new, self.per_location = inner, gcfg, on_new, per_location

    def select(self, tree: ExecutionTree) -> Node | None:
        return self.inner.select(tree)

    def update(self, tree: ExecutionTree, path: Path, nodes: list[Node], negated: Node | None) -> None:
        self.inner.update(tree, path, nodes, negated)

    def observers(self, resumed: Node | None = None) -> list[Observer]:
        seen: set[tuple[int, Stack]] = set()
        # path-condition length before the edge being observed; unknown for the first edge of
        # a symbolic execution resumed after ``resumed`` (its state is not taken as an S-state)
        before: list[int | None] = [0 if resumed is None else None]

        def observe(edge: Edge, state: SymbolicState) -> None:
            if isinstance(edge, AssumeEdge) and edge.branch is not None:
                key = (edge.src.id, tuple(state.call_stack))
                count = self.gcfg.s_count.get(key, 0)
                if key not in seen and count < self.per_location and before[0] is not None:
                    seen.add(key)
                    self.gcfg.s_count[key] = count + 1
                    snapshot = FrameState.of(state)
                    del snapshot.path_condition[before[0]:]
                    s = SState(edge.src, key[1], snapshot)
                    self.gcfg.s_states.setdefault(edge.src.id, []).append(s)
                    self.on_new.append(s)
            before[0] = len(state.path_condition)
        return [observe, *self.inner.observers(resumed)]


# ---------------------------------------------------------------------------- the analysis


class BiTe:
    """Bidirectional symbolic analysis; see the module docstring."""

    name = ORIGIN

    def __init__(self, search: str = DEFAULT, rng_seed: int = 0, order: str = "balanced",
                 dse_slice: float = 1.0, max_r_states: int = 4000, max_stack: int = 6,
                 solver_cap: float = 2.0) -> None:
        if order not in ORDERS:
            raise ValueError(f"unknown frontier order {order!r}")
        self.dse = ConcolicAnalysis(search=search, rng_seed=rng_seed)
        self.order, self.dse_slice = order, dse_slice
        self.max_r_states, self.max_stack, self.solver_cap = max_r_states, max_stack, solver_cap

    def run(self, board: Board, job: Job) -> Outcome:
        state = job.state if isinstance(job.state, BiTeState) else BiTeState(ORIGIN)
        model = GCFG(self, board, job, state)
        model.loop()
        return finish(board, job, state)


def from_settings(settings: Settings) -> BiTe:
    return BiTe(search=settings.search, rng_seed=settings.seed,
                order=settings.extra.get("bite_order", "balanced"))


class GCFG:
    """One run of BiTe's loop over the state: the steps of Sections 4-6."""

    def __init__(self, bite: BiTe, board: Board, job: Job, state: BiTeState) -> None:
        self.bite, self.board, self.job, self.state = bite, board, job, state
        self.program: Program = board.program
        self.backward = BackwardReachability(self.program, bite.max_stack, bite.solver_cap)
        self.new_s: list[SState] = []
        if state.concolic is None:
            state.concolic = bite.dse.new_state(board)  # the board's tests (the seed suite) run first
        if not isinstance(state.concolic.searcher, SStates):
            state.concolic.searcher = SStates(state.concolic.searcher, state, self.new_s)
        state.concolic.searcher.on_new = self.new_s
        for goal in sorted(board.open(job.goals)):
            if goal not in state.backward:
                self.seed_r_state(goal)

    # -------------------------------------------------------------- the loop

    def loop(self) -> None:
        budget, state = self.job.budget, self.state
        step = self.balanced_step if self.bite.order == "balanced" else self.frontier_step
        while not budget.expired() and self.board.has_open(self.job.goals):
            before = (len(self.board.covered), len(self.board.infeasible))
            state.iterations += 1
            if not step():
                break  # nothing left to do in either direction
            self.coarsen()
            self.prove()
            self.account(before)

    def frontier_step(self) -> bool:
        """Algorithm 2: the first frontier edge <S, R>, a symbolic execution step on it
        and, where S /\\ R is unsatisfiable, the reachability step along it (R
        extended, unless an earlier edge extended it); without a frontier edge, an
        unexplored R-state is extended, and without one, DSE adds S-states. False
        when nothing is left to do."""
        state = self.state
        if state.iterations == 1 and not state.dse_exhausted:
            return self.timed("dse_time", self.dse_step)  # the seed suite's S-states
        if state.frontier:
            r = self.timed("execution_time", self.symbolic_execution_step)
            if r is not None and r in self.state.backward[r.goal].pending:
                b = self.state.backward[r.goal]
                b.pending.remove(r)
                self.timed("reachability_time", lambda: self.reachability(b, r))
            return True
        if self.timed("reachability_time", self.reachability_step):
            return True
        return not state.dse_exhausted and self.timed("dse_time", self.dse_step)

    def balanced_step(self) -> bool:
        """cooptest's own order of steps (module docstring): DSE while it took less
        time than the other two, then the cheaper of symbolic execution and
        reachability."""
        state = self.state
        steps = state.execution_time + state.reachability_time
        if not state.dse_exhausted and (state.iterations == 1 or steps > state.dse_time):
            return self.timed("dse_time", self.dse_step)  # forward: new S-states (the seed suite first)
        if state.frontier and (state.execution_time <= state.reachability_time
                               or not self.has_reachability_step()):
            self.timed("execution_time", self.symbolic_execution_step)
            return True
        if self.timed("reachability_time", self.reachability_step):
            return True
        return not state.dse_exhausted and self.timed("dse_time", self.dse_step)

    def timed(self, clock: str, step: Callable[[], T]) -> T:
        """``step()``, its time added to the state's ``clock``."""
        started = time.monotonic()
        try:
            return step()
        finally:
            setattr(self.state, clock, getattr(self.state, clock) + time.monotonic() - started)

    def account(self, before: tuple[int, int]) -> None:
        """it_b: the iteration that reached the final covered count; it_f: the one that
        reached the final covered and infeasible counts."""
        covered, infeasible = len(self.board.covered), len(self.board.infeasible)
        if covered > before[0]:
            self.board.set_stat("it_b", self.state.iterations)
        if (covered, infeasible) != before:
            self.board.set_stat("it_f", self.state.iterations)
        self.board.set_stat("bite_iterations", self.state.iterations)

    # -------------------------------------------------------------- forward

    def dse_step(self) -> bool:
        """A slice of concolic search; its symbolic executions leave S-states (``SStates``)."""
        slice_ = self.job.budget.child(self.bite.dse_slice)
        outcome = self.bite.dse.run(self.board, Job(self.job.goals, slice_, state=self.state.concolic))
        if outcome.stopped in ("exhausted", "done"):
            self.state.dse_exhausted = True
        self.board.count("bite_dse_slices")
        self.absorb_s_states()
        return True

    def absorb_s_states(self) -> None:
        for s in self.new_s:
            for r in self.state.r_states.get(s.location.id, []):
                self.add_frontier(s, r)
        self.new_s.clear()

    def add_frontier(self, s: SState, r: RState) -> None:
        if r.removed or not _compatible(s.stack, r.stack):
            return
        rank = 0 if self.bite.order == "found" else r.depth
        heapq.heappush(self.state.frontier, (rank, next(self.state.found), s, r))

    def symbolic_execution_step(self) -> RState | None:
        """Sec. 4.1: the frontier edge <S, R>: if S /\\ R is satisfiable, its model is a
        test (run natively through the concolic engine, whose symbolic execution adds
        S-states); R when S /\\ R is unsatisfiable (Algorithm 2's reachability step goes
        along this edge), else None."""
        _, _, s, r = heapq.heappop(self.state.frontier)
        if r.removed or not self.board.is_open(r.goal):
            return None
        self.board.count("bite_execution_steps")
        verdict, inputs = self.meet(s, r)
        if verdict == "unsat":
            return r
        if inputs is None:
            return None
        if verdict == "exact" and self.bite.order != "balanced":
            self.met(r, s)
        concolic = self.state.concolic
        assert concolic is not None
        concolic.pending.insert(0, Pending(inputs))
        slice_ = self.job.budget.child(max(0.2, self.bite.dse_slice / 4))
        self.bite.dse.run(self.board, Job(self.job.goals, slice_, state=concolic))
        self.board.count("bite_tests")
        self.absorb_s_states()
        return None

    def meet(self, s: SState, r: RState) -> tuple[Meeting, list[str] | None]:
        """z3's verdict on S /\\ R (``Meeting``) and the inputs of a model (None:
        unsatisfiable, or no model in time)."""
        probe = FrameState.of(s.state)
        try:
            term = truth(probe, r.formula)
        except (TypeError, z3.Z3Exception):
            return "unknown", None  # the symbolic state cannot evaluate the formula: no test
        solver = z3.Solver()
        solver.set("timeout", self.timeout_ms())
        solver.add(*probe.path_condition, term)
        verdict = solver.check()
        if verdict != z3.sat:
            return ("unsat" if verdict == z3.unsat else "unknown"), None
        model = solver.model()
        inputs = [literal(model.eval(read.symbol, model_completion=True), read.type)
                  for read in probe.inputs]
        return ("sat" if probe.imprecise or probe.concretized else "exact"), inputs

    # -------------------------------------------------------------- backward

    def seed_r_state(self, goal: str) -> None:
        """The R-states of a goal: the weakest precondition of its own edge."""
        b = self.state.backward[goal] = Backward(goal)
        edge = self.board.goals[goal].edge
        b.crossed.add(edge)
        for formula in self.backward.wp.pre(Formula(), edge):
            self.add_r_state(b, RState(goal, edge.src, (), formula, 0, edge))

    def add_r_state(self, b: Backward, r: RState) -> None:
        """Add ``r`` unless an R-state of its location and call string with a subset
        of its literals (a weaker formula) is there already: that one stands for it."""
        if not self.backward.connected(r.location):
            b.disconnected += 1  # Algorithm 3: no execution is there
            self.board.count("bite_disconnected")
            return
        key = (r.location.id, r.stack)
        literals = r.formula.key
        kept = b.reached.setdefault(key, [])
        if any(k.key <= literals for k in kept):
            b.subsumed += 1
            return
        if b.r_states >= self.bite.max_r_states:
            b.incomplete = b.incomplete or f"more than {self.bite.max_r_states} R-states"
            return
        kept.append(r.formula)
        b.r_states += 1
        b.pending.append(r)
        b.live.append(r)
        self.state.r_states.setdefault(r.location.id, []).append(r)
        for s in self.state.s_states.get(r.location.id, []):
            self.add_frontier(s, r)

    def extensible(self) -> list[str]:
        """The open goals with an R-state left to extend."""
        open_ = self.board.open(self.job.goals)
        return [g for g, b in self.state.backward.items()
                if b.pending and b.incomplete is None and g in open_]

    def has_reachability_step(self) -> bool:
        return bool(self.extensible())

    def reachability_step(self) -> bool:
        """Sec. 4.2: one R-state of some goal (round robin) extended backwards over
        every CFA edge into its location; False when no goal has one left."""
        goals = self.extensible()
        if not goals:
            return False
        self.state.turn = (self.state.turn + 1) % len(goals)
        b = self.state.backward[goals[self.state.turn]]
        self.reachability(b, b.pending.popleft())
        return True

    def reachability(self, b: Backward, r: RState) -> None:
        """Sec. 4.2: ``r`` (just taken from ``b.pending``) checked, then extended."""
        self.board.count("bite_reachability_steps")
        if not r.checked:
            verdict = self.backward.contradiction(r.formula, r.stack, self.timeout_ms())
            if verdict is None:
                b.pending.appendleft(r)  # the clock interrupted the check: redo it
                return
            if verdict:
                self.remove(b, r)
                return
            r.checked = True
        try:
            extended = self.extend(b, r)
        except Incomplete as why:
            b.incomplete = str(why)
            return
        if extended is None:
            b.pending.appendleft(r)  # the clock interrupted a widening: redo the step
            return
        for new in extended:
            self.add_r_state(b, new)

    def extend(self, b: Backward, r: RState) -> list[RState] | None:
        """The R-states one backward step from ``r`` leads to (``analyses.backward``);
        None when the clock interrupted a widening."""
        if self.backward.at_start(r.location, r.stack):
            b.at_start = True
        extensions = self.backward.extend(r.formula, r.location, r.stack, r.heads,
                                          lambda head: b.reached.get(head, []), self.timeout_ms(),
                                          b.crossed)
        if extensions is None:
            return None
        return [RState(r.goal, x.step.location, x.step.stack, x.formula, r.depth + 1, x.step.edge,
                       parent=r, checked=x.formula.key == r.formula.key, heads=x.heads)
                for x in extensions]

    def timeout_ms(self) -> int:
        return self.job.budget.solver_timeout_ms(self.bite.solver_cap)

    def remove(self, b: Backward, r: RState) -> None:
        r.removed = True
        b.removed += 1

    # -------------------------------------------------------------- coarsening, proofs

    def met(self, r: RState, s: SState) -> None:
        """Algorithm 3: a test satisfies ``r``: it and its descendants are dropped, and
        the goal is marked unprovable (module docstring)."""
        b = self.state.backward.get(r.goal)
        if b is None:
            return
        b.met = b.met or f"a run reaches an R-state at line {s.location.line}"
        self.board.count("bite_met")
        gone = {id(r)}
        for x in b.live:  # parents come first in ``live``
            if id(x) in gone or (x.parent is not None and id(x.parent) in gone):
                gone.add(id(x))
                if not x.removed:
                    x.removed = True
                    self.board.count("bite_dropped")
        b.pending = deque(x for x in b.pending if id(x) not in gone)
        b.live = [x for x in b.live if id(x) not in gone]

    def coarsen(self) -> None:
        """Algorithm 3: the R-states (and with them their frontier edges, lazily) of
        goals decided since are dropped, and dropped or removed R-states leave the
        location index (those a test met are dropped by ``met``)."""
        decided = [g for g in self.state.backward if not self.board.is_open(g)]
        for g in decided:
            for r in self.state.backward.pop(g).live:
                r.removed = True
        if decided or self.state.iterations % 64 == 0:
            self.state.r_states = {k: [r for r in rs if not r.removed]
                                   for k, rs in self.state.r_states.items()}

    def prove(self) -> None:
        """Inv5: a goal whose backward exploration is complete is infeasible. The proof
        reads only the edges the exploration crossed (a weakest precondition holds for
        any state before it): a site where gcc computes otherwise elsewhere cannot make
        it wrong."""
        sites = self.program.proof_blockers.sites
        for g, b in list(self.state.backward.items()):
            if b.complete() and self.board.is_open(g):
                self.board.prove_infeasible(
                    g, f"bite: backward reachability: every weakest precondition towards {g} is "
                       f"unsatisfiable ({b.r_states} R-states, {b.removed} removed, "
                       f"{b.subsumed} subsumed, {b.disconnected} disconnected)",
                    reads=frozenset(k for k in map(site_key, b.crossed) if k in sites))


# ---------------------------------------------------------------------------- helpers


def _compatible(s_stack: Stack, r_stack: Stack) -> bool:
    """The R-state's call string is the innermost part of the S-state's call stack."""
    return len(r_stack) <= len(s_stack) and all(
        a is b for a, b in zip(reversed(r_stack), reversed(s_stack)))


__all__ = ["BiTe", "BiTeState", "ORDERS", "from_settings"]
