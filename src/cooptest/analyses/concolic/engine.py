"""Concolic testing (DART, CUTE, CREST) of a program under test.

One iteration: choose inputs, run them natively (``GoalBoard.submit``: the only
way goals get covered), execute the run symbolically on the CFA (``symbolic_execution.py``),
add the path to the execution tree; then let the search strategy pick an open decision of
the tree, solve its prefix with the decision negated and use the model as the next inputs.

Inputs. The k-th input read is the z3 symbol ``in<k>`` of its nondet type; a model is
written back as C literal text per type (``inputs.py``); inputs the model leaves free
keep the value they had on the path the decision came from. A run that asks for more
inputs than it got is run again with padded inputs (``padding.py``); symbolic execution
only follows the last run. When the strategy has nothing left to propose the engine
restarts from random inputs (as CREST does), unless the execution tree is complete.

Memory is handled by ``symbolic.py`` (registers and flat byte-addressed objects) with
CUTE-style concretisation of addresses it cannot resolve, see ``symbolic_execution.py``.

Guidance. A job's ``monitor`` and ``condition`` (automata over CFA edges,
``core.automaton``) wrap the searcher in ``searchers.Guided`` with their product: the
decisions they exclude are cut, never negated.

Completeness. An execution tree without open decisions proves every goal it did not
reach infeasible only if each path's symbolic model was exact: no concretisation, no
imprecision (havoc of unknown calls), no divergence, no solver timeout, no misprediction
and no native crash or timeout, and no native run left a guiding automaton (its cuts
rest on its claims). Only then is the state marked complete. Such a tree also proves
that no run overflows at an overflow site (``cfa.proof_blockers.overflow_folded``) where no
path's condition allowed an overflow (``symbolic_execution._overflow_allowed``), unless an automaton
cut it: then its proofs of the goals behind the site hold for gcc's build too. A decision whose other side
runs straight into ``abort()`` (``StaticInfo.dead_end``: ``assume``'s ``if (!cond)
abort();``) is closed without a query or a run once that side's goal is covered: its
subtree is one path, which reaches no other goal.
"""
from __future__ import annotations

import math
import random
import time
from typing import Any, TypedDict

import z3

from cooptest.analyses.concolic.execution_tree import (DEAD_END, MISPREDICTED, UNKNOWN, UNSAT,
                                                       ConcolicSearchState, Decision, ExecutionTree,
                                                       Node, Path, Pending)
from cooptest.analyses.concolic.inputs import literal, small, to_z3
from cooptest.analyses.concolic.padding import FIRST, Padding, may_pad, padded, run_fed
from cooptest.analyses.concolic import solver
from cooptest.analyses.concolic.solver import PathSolver, Symbols
from cooptest.analyses.concolic.cfa_facts import StaticInfo
from cooptest.analyses.concolic.symbolic_execution import TermMemo, execute_symbolically, resume
from cooptest.analyses.concolic.searchers import DEFAULT, SEARCHERS, Guided, SearchContext, Searcher
from cooptest.analyses.symbolic import Pinning
from cooptest.core.analysis import Job, Outcome, finish
from cooptest.core.automaton import EdgeAutomaton, Product
from cooptest.core.board_events import Iteration
from cooptest.core.board_view import Board
from cooptest.core.budget import Budget
from cooptest.core.registry import ADDRESSES, FRESH_INPUTS, LIBRARY, UNCONSTRAINED, Settings
from cooptest.cfa.ctype import ArrayType, CType, FloatType, IntType
from cooptest.errors import UserError

ORIGIN = "concolic"
RETRY_SHARE = 0.25  # of the analysis' time, at most, on asking undecided queries again
RETRY_LIMIT = 16  # times the solver's time limit: a query undecided then is given up
SNAPSHOTS = 2048  # states of symbolic execution kept for resuming (the oldest go first); with
# 256, 40% of the nodes cgs negated on openssl had lost their parent's and were executed
# symbolically from the start; 2048 cost 35 MB there


class _SolverOptions(TypedDict):
    """The keyword arguments of a ``PathSolver``."""

    timeout: float
    slicing: bool
    cache: bool
    incremental: bool


class ConcolicAnalysis:
    """``run`` explores until the budget ends, every requested goal is covered or the
    state has made ``max_iterations`` native runs (CREST's ``run_crest PROGRAM N``, so
    that coverage per iteration count compares with the papers' tables; the allowance
    is the state's, over all its jobs, and a run that spent it stops with
    ``iterations``)."""

    name = "concolic"

    def __init__(self, search: str = DEFAULT, rng_seed: int = 0, solver_timeout: float = 1.0, slicing: bool = True,
                 cache: bool = True, incremental: bool = False, max_iterations: int | None = None,
                 fresh_inputs: str = FRESH_INPUTS[0], addresses: str = ADDRESSES[0], library: str = LIBRARY[0],
                 unconstrained: str = UNCONSTRAINED[0], **search_options: Any) -> None:
        if search not in SEARCHERS:
            raise UserError(f"unknown search strategy {search!r} (known: {', '.join(SEARCHERS)})")
        self.search = search
        self.max_iterations = math.inf if max_iterations is None else max_iterations
        self.search_options = search_options
        self.rng_seed = rng_seed
        self.fresh_inputs = fresh_inputs
        self.resample = unconstrained == "fresh"
        self.pinning = Pinning(addresses=addresses == "concrete", library=library == "concrete")
        self.solver_options: _SolverOptions = {"timeout": solver_timeout, "slicing": slicing,
                                               "cache": cache, "incremental": incremental}

    def new_state(self, program: Board) -> ConcolicSearchState:
        """A fresh execution tree; the tests already on the board are its first runs."""
        symbols = Symbols()
        padding = Padding(self.fresh_inputs, random.Random(self.rng_seed))
        ctx = SearchContext(program.program, program.covered, random.Random(self.rng_seed),
                            StaticInfo(program.program))
        return ConcolicSearchState(self.name, tree=ExecutionTree(),
                                   searcher=SEARCHERS[self.search](ctx, **self.search_options),
                                   pending=[Pending(list(t.inputs)) for t in program.tests] +
                                   [Pending([], fill=f) for f in padding.starts()],
                                   symbols=symbols, memo=TermMemo(),
                                   solver=PathSolver(symbols, **self.solver_options), padding=padding)

    def run(self, program: Board, job: Job) -> Outcome:
        state = job.state if isinstance(job.state, ConcolicSearchState) else self.new_state(program)
        budget, goals = job.budget, job.goals
        started = time.monotonic() - state.seconds
        state.searcher.ctx.covered = program.covered
        state.searcher.ctx.count = program.count
        searcher = _guided(state, job)
        while not budget.expired() and program.has_open(goals) and state.iterations < self.max_iterations:
            negated: Node | None = None
            fill: str | None = None
            if state.pending:
                work = state.pending.pop(0)
                inputs, negated, fill = work.inputs, work.node, work.fill
                if inputs is None:
                    assert negated is not None
                    if negated.closed is not None:
                        continue
                    inputs = self._solve(program, state, negated, budget)
                    if inputs is None:
                        continue
            else:
                negated = searcher.select(state.tree)
                if negated is None and state.undecided and \
                        state.retry_seconds <= RETRY_SHARE * (time.monotonic() - started):
                    negated, limit_ms = state.undecided.pop(0)
                    negated.closed = None  # open again (not on the frontier: no searcher picks it)
                    asked = time.monotonic()
                    inputs = self._solve(program, state, negated, budget, limit_ms)
                    state.retry_seconds += time.monotonic() - asked
                    if inputs is None:
                        continue
                elif negated is None:
                    if not state.tree.frontier and state.exact and not state.undecided:
                        state.complete = True
                        break
                    if state.last is not None and not state.last.symbols:
                        break  # the program reads no input: every run is the same
                    program.count("restarts")
                    inputs = self._random_inputs(state)
                elif negated.closed is None and negated.target in program.covered \
                        and state.searcher.ctx.static.dead_end(negated.negation):
                    state.tree.close(negated, DEAD_END)  # its one path would cover nothing new
                    program.count("dead_ends")
                    continue
                else:
                    if negated.closed is not None:
                        program.count("negations_solved_again")
                    inputs = self._solve(program, state, negated, budget, along=searcher.along(negated))
                    if inputs is None:
                        continue
            path = self._execute(program, state, searcher, inputs, negated, job, fill)
            if path is None:
                continue  # interrupted by the deadline, or the job is done: pending
            nodes = state.tree.insert(path)
            _keep_snapshots(state, path, nodes)
            if negated is not None and negated.parent is not None:
                state.snapshots.pop(negated.parent, None)  # its other children are decided
            if negated is not None and negated.closed is None:
                state.tree.close(negated, MISPREDICTED)
                state.exact = False
                program.count("mispredictions")
            searcher.update(state.tree, path, nodes, negated)
            if path.left_automaton:
                state.exact = False
        state.seconds = time.monotonic() - started
        if state.complete:
            cut = f", cut by {', '.join(sorted(state.guides))}" if state.guides else ""
            tree = f"{state.tree.paths} paths, {state.tree.size} decisions, depth {state.tree.max_depth}"
            sites = program.program.proof_blockers.overflow_sites
            if not state.guides:  # a cut part may hold runs that overflow
                for site in sorted(sites.keys() - state.overflowing):  # passed or not: every run is a path
                    program.prove_no_overflow(
                        site, f"concolic: no path of the exhausted execution tree ({tree}) allows a signed "
                              f"overflow at line {sites[site].line}")
            for g in sorted(program.open()):
                program.prove_infeasible(g, f"concolic: execution tree exhausted ({tree}) with "
                                            f"an exact symbolic model{cut}")
        elif state.iterations >= self.max_iterations and program.has_open(goals):
            return Outcome(state, "iterations")
        return finish(program, job, state)

    def _solve(self, program: Board, state: ConcolicSearchState, node: Node, budget: Budget,
               limit_ms: int | None = None, along: Path | None = None) -> list[str] | None:
        """Inputs for the path to ``node.parent`` followed by the other side of ``node``:
        those of ``along`` (else of the node's first path) with the solver's model in
        place of the ones the query constrains. A node a path negated already (asked
        again ``along`` another run) is left as it was whatever the answer. The time
        limit is the solver's own (or ``limit_ms``, a retry's), capped at what the
        budget has left; an "unknown" of a query so capped leaves the node open,
        pending. One the solver gave up on within the limit closes the node for now:
        it is undecided, asked again with twice the limit when nothing else is left to
        negate (on ``aim-200-1-6-unsat-2`` the last query, all 1,100 clauses, takes
        over a second), and the tree is complete only once no node is. Retries take at
        most ``RETRY_SHARE`` of the analysis' time (the rest goes to restarts from random
        inputs, which cover arctan_Pade's float branches z3 gives up on), and a query
        undecided at ``RETRY_LIMIT`` times the solver's limit is given up for good."""
        path = along or node.path
        assert path is not None
        limit_ms = limit_ms or state.solver.timeout_ms
        timeout_ms = budget.solver_timeout_ms(limit_ms / 1000)
        prefix, negated = path.query(node.depth)  # its index on every path through it
        isolated = state.solver.stats.isolated
        result = state.solver.solve(prefix, negated, state.small, timeout_ms=timeout_ms)
        program.count("solver_calls")
        if state.solver.stats.isolated > isolated:
            program.count("solver_isolated")
        if node.closed is not None and result.status != solver.SAT:
            return None
        if result.status == solver.UNKNOWN and timeout_ms < limit_ms:
            state.pending.insert(0, Pending(None, node))
            return None
        if result.status != solver.SAT:
            state.tree.close(node, UNSAT if result.status == solver.UNSAT else UNKNOWN)
            program.count(f"solver_{result.status}")
            if result.status == solver.UNKNOWN:
                program.give_up((node.target,), ORIGIN,
                                f"z3 answered unknown at its {limit_ms / 1000:g}-s limit on a path to it")
            if result.status == solver.UNKNOWN and 2 * limit_ms <= RETRY_LIMIT * state.solver.timeout_ms:
                state.undecided.append((node, 2 * limit_ms))
            elif result.status != solver.UNSAT:
                state.exact = False
            return None
        inputs = list(path.inputs)
        for k, read in enumerate(path.symbols):
            value = result.model.get(read.symbol.get_id())
            if value is not None:
                inputs[k] = literal(value, read.type)
        if self.resample:
            self._resample(state, inputs, path, prefix, negated)
        return inputs

    @staticmethod
    def _resample(state: ConcolicSearchState, inputs: list[str], path: Path, prefix: list[z3.BoolRef],
                  negated: z3.BoolRef) -> None:
        """``--unconstrained fresh``: each input of ``path`` that no constraint up to the
        negated decision reads becomes a fresh input, as the CGS author's CREST draws
        every variable outside those constraints anew (``SolveAtBranchNew``). The
        constraints are the whole prefix, not the solver's slice: an input a decision
        before the negated one read stays, so that the path to it is still taken."""
        of = state.solver.symbols.of
        read = frozenset().union(of(negated), *map(of, prefix))
        for k, symbolic in enumerate(path.symbols):
            if symbolic.symbol.get_id() not in read:
                inputs[k] = state.padding.fresh(k, 1)[0]

    def _execute(self, program: Board, state: ConcolicSearchState, searcher: Searcher, inputs: list[str],
                 negated: Node | None, job: Job, fill: str | None = None) -> Path | None:
        """Run ``inputs`` natively, padded until the run no longer starves, and execute
        the run symbolically: from the snapshot of the negated node's parent, or of its
        nearest ancestor with one, when the run shares that path, else from the start.
        None when the deadline interrupted the padding or symbolic execution, or when
        the native run decided the job's last open goal (symbolic execution of a path
        padded to thousands of inputs would take the rest of the budget for nothing the
        job asked): the inputs (as padded so far) are then pending, to be run again by
        the next job."""
        ctx = state.searcher.ctx
        budget = job.budget
        kept = _nearest_snapshot(state, negated.parent) if negated is not None else None
        while True:
            before = program.stats.get("iterations", 0)
            execution = run_fed(program, inputs, ORIGIN, budget, state.padding,
                                self.max_iterations - state.iterations, fill)
            state.iterations += program.stats.get("iterations", 0) - before
            inputs = execution.inputs
            if budget.expired() or not program.has_open(job.goals):
                break
            start = resume(state.snapshots[kept], execution) if kept is not None else None
            at = kept if start is not None else None
            program.count("resumed_symbolic_executions" if at is not None else "symbolic_executions")
            path = execute_symbolically(program.program, execution, state.symbols, state.memo,
                                        ctx.covered_edges, budget=budget, observers=searcher.observers(at),
                                        start=start, keep=Resumable(at or state.tree.root, state.snapshots),
                                        sites=ctx.static.overflow_sites,
                                        pinning=self.pinning)
            if (path.truncated or path.starved) and budget.expired():
                break
            path.new_goals = execution.new
            if path.starved and not path.truncated and may_pad(inputs) and not state.padding.endless \
                    and state.iterations < self.max_iterations:
                # the model reads more than the run got (padding.py)
                inputs = padded(inputs, state.padding, fill)
                continue
            return self._account(program, state, path)
        state.pending.insert(0, Pending(inputs, negated, fill))
        return None

    def _account(self, program: Board, state: ConcolicSearchState, path: Path) -> Path:
        for read in path.symbols:
            key = read.symbol.get_id()
            if key not in state.small:
                state.small[key] = small(read.symbol, read.type)
        if path.divergences:
            program.count("divergences", path.divergences)
            program.count("diverged_runs")
        if path.concretized:
            program.count("concretizations", path.concretized)
        if path.divergences or path.concretized or path.imprecise or path.crashed or path.starved \
                or path.truncated:
            state.exact = False
        state.overflowing |= path.overflowing
        program.notify(Iteration(program.stats.get("iterations", 0), len(program.covered),
                                 program.stats.get("divergences", 0)))
        state.last = path
        return path

    def _random_inputs(self, state: ConcolicSearchState) -> list[str]:
        """Random values of the types the last path read (a CREST-style restart)."""
        rng = state.searcher.ctx.rng
        last = state.last
        if last is None or not last.symbols:
            return [str(rng.randint(-100, 100)) for _ in range(FIRST)]
        return [literal(to_z3(_random_value(rng, r.type), r.type), r.type) for r in last.symbols]


class Resumable:
    """Which decisions of a symbolic execution it keeps its state after, walking the
    tree from ``node``: those new to the tree, and those whose node has an open child
    but no snapshot kept (a search that negates shallow decisions first, as cgs does,
    then resumes there instead of executing symbolically from the start)."""

    def __init__(self, node: Node, snapshots: dict[Node, Any]) -> None:
        self.node: Node | None = node
        self.snapshots = snapshots

    def __call__(self, d: Decision) -> bool:
        if self.node is not None:
            self.node = self.node.children.get((d.branch, d.outcome))
        if self.node is None:
            return True
        return self.node not in self.snapshots and any(
            c.closed is None for c in self.node.children.values())


def _nearest_snapshot(state: ConcolicSearchState, node: Node | None) -> Node | None:
    """``node`` or its nearest ancestor whose state of symbolic execution is kept. A run
    that takes the path to ``node`` takes the path to each of its ancestors, and on
    pals_lcr, whose paths hold thousands of new decisions each, the parent's state was
    mostly gone (the oldest go first): 107 of 444 symbolic executions resumed in 20 s,
    472 of 502 from the parent or an ancestor (``benchmarks/RESULTS.md``)."""
    while node is not None and node not in state.snapshots:
        node = node.parent
    return node


def _keep_snapshots(state: ConcolicSearchState, path: Path, nodes: list[Node]) -> None:
    """Keep the states after the decisions of ``path`` whose next node is open: negating
    that node resumes there."""
    for snap in path.snapshots:
        i = snap.index
        if i + 1 < len(nodes) and nodes[i + 1].closed is None:
            state.snapshots[nodes[i]] = snap
            if len(state.snapshots) > SNAPSHOTS:
                del state.snapshots[next(iter(state.snapshots))]
    path.snapshots = []


def _guided(state: ConcolicSearchState, job: Job) -> Searcher:
    """The state's searcher, wrapped in ``Guided`` by the product of the job's monitor
    and condition, if any (the wrapper, with the automaton states of the nodes, is kept
    in the state while the jobs bring the same automaton)."""
    parts: tuple[EdgeAutomaton, ...] = tuple(a for a in (job.monitor, job.condition) if a is not None)
    if not parts:
        state.searcher.ctx.product = None  # a job without automaton: the program alone
        return state.searcher
    automaton = parts[0] if len(parts) == 1 else Product(parts, name=" x ".join(a.name for a in parts))
    if state.guided is None or state.guided.automaton != automaton:
        state.guided = Guided(state.searcher, automaton)
    state.searcher.ctx.product = state.guided.product
    state.guides.add(automaton.name)
    return state.guided


def _random_value(rng: random.Random, t: CType) -> int | float:
    if isinstance(t, FloatType):
        return rng.uniform(-1000.0, 1000.0)
    if isinstance(t, ArrayType):  # a string input (``symbolic.STRING_BYTES``): a short word
        data = bytes(rng.randint(0x20, 0x7e) for _ in range(rng.randint(1, min(8, t.length or 1))))
        return int.from_bytes(data, "little")
    if isinstance(t, IntType):
        if t.is_bool:
            return rng.randint(0, 1)
        return rng.randint(max(t.min, -128), min(t.max, 255)) if rng.random() < 0.5 \
            else rng.randint(t.min, t.max)
    return 0


def from_settings(settings: Settings) -> ConcolicAnalysis:
    return ConcolicAnalysis(search=settings.search, rng_seed=settings.seed,
                            max_iterations=settings.extra.get("max_iterations"),
                            fresh_inputs=settings.extra.get("fresh_inputs", FRESH_INPUTS[0]),
                            addresses=settings.extra.get("addresses", ADDRESSES[0]),
                            library=settings.extra.get("library", LIBRARY[0]),
                            unconstrained=settings.extra.get("unconstrained", UNCONSTRAINED[0]),
                            **({"depth": settings.extra["dfs_depth"]} if "dfs_depth" in settings.extra else {}))
