"""Predicate abstraction with adjustable-block encoding and lazy abstraction.

Blocks end at loop heads, function entries, call-return locations and target states
(states reached by the edge of an open goal). A target in a loop's body is abstracted
over its own location's predicates, so the loop's invariant templates do not survive it:
they prove what they prove once the goals in the body are decided (in the portfolio,
tests cover them first). Keeping targets inside blocks instead (as CPAchecker's ABE
does) let the templates through, but left the WP refinement fewer abstraction points to
put its predicates: on s3_srvr_3a_alt 129 goals were given up at their first refinement
(TestCov 63.0 -> 12.5 at 30 s). Inside a block the abstract data is the
strongest post (a :class:`SymbolicState` started from the block's abstraction); at a
block end the precision adjustment computes the cartesian predicate abstraction of it
over the predicates of that location (lazy abstraction: predicates per location), or
drops the state if the block is infeasible. The stop operator covers an abstraction
state by one at the same location and call stack whose predicate literals it implies
(a subset of ours); states inside blocks are never covered (blocks are loop free).

Predicates are IR conditions, instantiated in a state with ``SymbolicState.eval``, so
the abstraction is bit-precise over C integers and as sound as the symbolic state:
memory the state cannot follow is havocked (``imprecise``), and an abstraction of an
over-approximation is an over-approximation. A block starts from ``havoc_at``: every
value not constrained by the abstraction is a fresh symbol, except, at a block end that
is no loop head, the integer and float constants the block computed (``_values``).
Locals of callers are read in their own frame (:class:`FrameState`), so a predicate
about a caller's variable survives an abstraction inside the callee.

Refinement: z3 no longer exposes interpolation, so predicates come from weakest
preconditions along the spurious path (``analyses/wp.py``, the backward transfer):
going backwards from the target, the conditions of the assumes in the unsat core of the
path's constraints are conjoined, every other edge transforms the formula as its WP
(assignments substitute, stores split on aliasing, inputs drop what they overwrite).
The literals of the WP cases at each abstraction state of the path are added to the
predicates of its location. Any predicate set is sound; the WP of the core is what
makes progress, and the first abstraction state of the path computed without one of the
new predicates is the refinement pivot.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import z3

from cooptest.analyses.reachability.arg import ARGState, CallStack, ReachabilityARG
from cooptest.analyses.reachability.cegar import CEGARAnalysis
from cooptest.analyses.reachability.cpa import Successor, solve
from cooptest.analyses.reachability.refinement import PathCheck
from cooptest.analyses.reachability.templates import templates
from cooptest.analyses.wp import TRUE, BackwardTransfer, Formula, FrameState, Predicate, truth
from cooptest.cfa.calls import NO_CALL, callee_name, path_contexts
from cooptest.cfa.fold import fold, uncast
from cooptest.cfa.loops import cycle_edges
from cooptest.cfa.ctype import FloatType, IntType
from cooptest.core.budget import Budget
from cooptest.cfa.ir import (AssignEdge, AssumeEdge, Binary, BitView, CallEdge, Cast, Const,
                             Edge, Expr, Location, NondetEdge, Program, Var, Variable,
                             in_memory, variables_of)

ABSTRACTION_CAP = 5.0  # seconds z3 may spend on one query of an abstraction
MAX_CASES = 16  # WP cases a refinement follows (any subset yields sound predicates)


SHOWN = 8  # predicates a proof names; the count says how many more there are


@dataclass
class PredicatePrecision:
    """Predicates per location, keyed by their text (IR expressions compare by identity),
    and the loop counters whose values abstractions keep exactly (``explicit``).

    ``candidates``: the template predicates (``templates.py``) still on trial at each
    location, with the truth value every abstraction there has given them so far (None:
    none yet). Houdini's rule: a candidate an abstraction does not decide, or decides
    the other way, is no invariant there and leaves the precision (``judge``); one a
    refinement asks for stays as any learnt predicate."""

    predicates: dict[Location, dict[str, Predicate]] = field(default_factory=dict)
    keys: dict[Location, frozenset[str]] = field(default_factory=dict)
    explicit: frozenset[Variable] = frozenset()
    candidates: dict[Location, dict[str, bool | None]] = field(default_factory=dict)

    def at(self, location: Location) -> frozenset[str]:
        """What an abstraction at ``location`` is computed with."""
        return self.keys.get(location, frozenset()) | {f"={v.name}" for v in self.explicit}

    def add(self, location: Location, atoms: dict[str, Predicate]) -> None:
        preds = self.predicates.setdefault(location, {})
        preds.update(atoms)
        self.keys[location] = frozenset(preds)
        if trial := self.candidates.get(location):
            for key in atoms.keys() & trial.keys():
                del trial[key]

    def seed(self, location: Location, candidates: dict[str, Predicate]) -> None:
        """Put template predicates on trial at ``location``."""
        fresh = {k: p for k, p in candidates.items() if k not in self.predicates.get(location, {})}
        self.add(location, fresh)
        self.candidates.setdefault(location, {}).update(dict.fromkeys(fresh))

    def judge(self, location: Location, literals: set[tuple[str, bool]]) -> None:
        """Drop the candidates at ``location`` that an abstraction there, ``literals``,
        shows are not invariant. The states already computed with them stay sound:
        every abstraction over-approximates, whatever its predicates."""
        trial = self.candidates.get(location)
        if not trial:
            return
        values = dict(literals)
        for key, seen in list(trial.items()):
            value = values.get(key)
            if value is None or seen not in (None, value):
                del trial[key]
                del self.predicates[location][key]
                self.keys[location] = frozenset(self.predicates[location])
            else:
                trial[key] = value

    def size(self) -> int:
        return sum(len(p) for p in self.predicates.values())

    def evidence(self) -> str:
        """What a complete ARG was computed with, for its proofs: the predicates (each
        once over all locations, the first ``SHOWN``) and the counters kept exactly."""
        texts = sorted({key for preds in self.predicates.values() for key in preds})
        more = f", ... ({len(texts)} in all)" if len(texts) > SHOWN else ""
        exact = f"; kept exactly: {', '.join(sorted(v.name for v in self.explicit))}" if self.explicit else ""
        return f"predicates {', '.join(texts[:SHOWN]) or 'none'}{more}{exact}"


@dataclass
class PredicateState:
    """``abstraction``: the predicate literals at the last block end; ``block``: the
    strongest post since then (it assumes the abstraction)."""

    abstraction: frozenset[tuple[str, bool]]
    block: FrameState
    is_abstraction: bool


def _definition(pred: Predicate) -> tuple[Var, Expr] | None:
    """``(v, e)`` if the predicate is ``v == e`` for a register variable ``v`` not in ``e``
    (true in an abstraction, it defines ``v`` in the next block)."""
    if len(pred) != 1 or not pred[0][1]:
        return None
    e = pred[0][0]
    if isinstance(e, Binary) and e.op == "==" and isinstance(e.left, Var) and not in_memory(e.left.var) \
            and e.left.var not in variables_of(e.right) and e.left.type == e.right.type:
        return e.left, e.right
    return None


def _definitions_in_order(definitions: dict[str, tuple[Var, Expr]]) -> dict[str, tuple[Var, Expr]]:
    """The definitions to apply as writes, each after those of the variables it reads:
    ``lim == bound``, ``bound == start + n`` and ``start == 0`` written in any other order
    would leave ``lim`` the value ``bound`` had before its own write. A second definition
    of one variable, and definitions on a cycle, are left out (the caller asserts them)."""
    pending: dict[str, tuple[Var, Expr]] = {}
    for key, (v, e) in definitions.items():
        if all(other.var != v.var for other, _ in pending.values()):
            pending[key] = (v, e)
    ordered: dict[str, tuple[Var, Expr]] = {}
    while True:
        defined = {v.var for v, _ in pending.values()}
        ready = [key for key, (_, e) in pending.items() if not variables_of(e) & defined]
        if not ready:
            return ordered
        for key in ready:
            ordered[key] = pending.pop(key)


def _counted(v: Variable, rhs: Expr) -> bool:
    """``rhs`` is a constant, or ``v`` plus or minus a constant (under casts)."""
    rhs = uncast(rhs)
    if isinstance(fold(rhs), Const):
        return True
    if isinstance(rhs, Binary) and rhs.op in ("+", "-") and isinstance(fold(rhs.right), Const):
        left = uncast(rhs.left)
        return isinstance(left, Var) and left.var == v
    return False


def _bounded(cond: Expr) -> Variable | None:
    """The variable ``cond`` compares with a constant (``j < 30``), if it is one."""
    cond = uncast(cond)
    if isinstance(cond, Binary) and cond.op in ("<", "<=", ">", ">=", "==", "!="):
        for var, bound in ((cond.left, cond.right), (cond.right, cond.left)):
            var = uncast(var)
            if isinstance(var, Var) and isinstance(fold(bound), Const):
                return var.var
    return None


@lru_cache(maxsize=8)
def loop_counters(program: Program) -> frozenset[Variable]:
    """Integer register variables compared with a constant at a loop head and only ever
    assigned constants or themselves plus or minus a constant, the latter only outside
    loops or in loops they count: along any path their value is a constant, and so is
    the number of iterations of the loop they count (``y++`` in ``while (x > 0)`` makes
    ``y`` as many as that loop's iterations, which need not be constant).

    Predicates learn such a counter one value per refinement (``j < 30``, ``j + 1 < 30``,
    ...); an abstraction that keeps its value exactly, as value analysis does, unrolls
    the loop without refining. A loop bounded by a variable (``i < size``) is left to
    predicates, which can generalise over its iterations (``i < size``)."""
    tested: set[Variable] = set()
    spoiled: set[Variable] = set()
    counts: dict[Variable, set[Edge]] = {}  # the edges of the loops each variable counts
    for edge in program.edges():
        if isinstance(edge, AssumeEdge) and edge.src.is_loop_head:
            counter = _bounded(edge.cond)
            if counter is not None:
                tested.add(counter)
                counts.setdefault(counter, set()).update(cycle_edges(edge.src))
    counted = set().union(*counts.values())
    for edge in program.edges():
        if isinstance(edge, AssumeEdge):
            continue
        if isinstance(edge, AssignEdge) and isinstance(edge.lhs, Var) and not _counted(edge.lhs.var, edge.rhs):
            spoiled.add(edge.lhs.var)
        elif isinstance(edge, AssignEdge) and isinstance(edge.lhs, Var) \
                and not isinstance(fold(uncast(edge.rhs)), Const) and edge in counted \
                and edge not in counts.get(edge.lhs.var, ()):
            spoiled.add(edge.lhs.var)  # a step in a loop another variable counts: y++ in while (x > 0)
        elif isinstance(edge, NondetEdge) and isinstance(edge.lhs, Var):
            spoiled.add(edge.lhs.var)
        elif isinstance(edge, CallEdge) and isinstance(edge.lhs, Var):
            spoiled.add(edge.lhs.var)
    params = {p for f in program.functions.values() for p in f.params}
    return frozenset(v for v in tested - spoiled - params
                     if isinstance(v.type, IntType) and not in_memory(v))


class PredicateCPA:
    name = "predicate"

    def __init__(self, program: Program) -> None:
        self.program = program
        self.block_ends: set[Location] = {f.entry for f in program.functions.values()}
        self.block_ends |= {loc for loc in program.locations() if loc.is_loop_head}
        self.block_ends |= {e.dst for e in program.edges()
                            if isinstance(e, CallEdge) and callee_name(e) in program.functions}

    def initial_state(self, program: Program) -> PredicateState:
        return PredicateState(frozenset(), FrameState(program), True)

    def initial_precision(self) -> PredicatePrecision:
        """The loops' invariant templates (``templates.py``), what a refinement along
        one path would learn one iteration at a time, at every block end of an iteration."""
        precision = PredicatePrecision()
        for loop, preds in templates(self.program):
            for location in loop.through & self.block_ends:
                precision.seed(location, preds)
        return precision

    def snapshot(self, precision: PredicatePrecision, location: Location) -> frozenset[str]:
        return precision.at(location)

    def transfer(self, state: ARGState, succ: Successor, precision: PredicatePrecision,
                 budget: Budget) -> PredicateState | None:
        data: PredicateState = state.data
        block = data.block.copy()
        block.step(succ.edge)
        if isinstance(succ.edge, AssumeEdge) and z3.is_false(z3.simplify(block.path_condition[-1])):
            return None
        return PredicateState(data.abstraction, block, False)

    def adjust(self, data: PredicateState, location: Location, call_stack: CallStack,
               precision: PredicatePrecision, target: bool, budget: Budget) -> PredicateState | None:
        if location not in self.block_ends and not target:
            return data
        literals = self._abstraction(data.block, precision.predicates.get(location, {}), budget)
        if literals is None:
            return None
        precision.judge(location, literals)
        block = FrameState.havoc_at(self.program, list(call_stack))
        kept = precision.explicit if location.is_loop_head else \
            precision.explicit | self._assigned(data.block)
        for v, value in self._values(data.block, kept, location, call_stack).items():
            block.write(Var(v.type, v), value)
            literals.add((f"{v.name} == {value}", True))
        preds = precision.predicates.get(location, {})
        held = sorted(lit for lit in literals if lit[0] in preds)
        definitions = _definitions_in_order({key: d for key, value in held
                                             if value and (d := _definition(preds[key])) is not None})
        for lhs, e in definitions.values():  # v == e holds: v's value is e's (keeps pointers exact)
            block.write(lhs, block.eval(e))
        for key, value in held:
            if key not in definitions:
                term = truth(block, preds[key])
                block.path_condition.append(term if value else z3.Not(term))
        return PredicateState(frozenset(literals), block, True)

    @staticmethod
    def _assigned(block: FrameState) -> frozenset[Variable]:
        """The integer and floating-point registers ``block`` has a value for (read or
        written since it began). Not pointers: the model's addresses are numerals that
        mean nothing in another block, whose objects are placed anew (an integer made of
        an address is a symbol, ``SymbolicState.native_base``)."""
        return frozenset(v for frame in (block.globals, *block.frames) for v in frame.values
                         if isinstance(v.type, IntType | FloatType))

    def _values(self, block: FrameState, kept: frozenset[Variable], location: Location,
                call_stack: CallStack) -> dict[Variable, z3.ExprRef]:
        """The variables of ``kept`` in scope whose value in ``block`` is a numeral.

        At a loop head only the explicit loop counters are kept: every other constant
        would unroll the loop (``i = 0``, then 1, ...). At any other block end (a call's
        entry or return, a target) a constant cannot unroll anything, and forgetting it
        loses what the block just computed: ``pow(0.0 / 0.0, y)`` enters ``pow`` with
        ``x`` a NaN (newlib's float tasks), ``f(4)`` with ``n == 4``."""
        active = {location.function, self.program.entry} | {callee_name(c) for c in call_stack}
        out = {}
        for v in kept:
            if v.is_global or v.function in active:
                value = z3.simplify(block.read(Var(v.type, v)))
                if z3.is_bv_value(value) or z3.is_fp_value(value):
                    out[v] = value
        return out

    @staticmethod
    def _abstraction(block: FrameState, preds: dict[str, Predicate],
                     budget: Budget) -> set[tuple[str, bool]] | None:
        """The cartesian abstraction of ``block`` over ``preds`` (None: infeasible).

        Every model z3 finds on the way rules out the entailment of the literals it
        falsifies, which saves most of the two entailment checks per predicate. A query z3
        gives up on leaves its literals out (coarser, sound); one the budget interrupts
        abandons the whole abstraction (``solve``)."""
        solver = z3.Solver()
        solver.add(*block.path_condition)
        result = solve(solver, budget, ABSTRACTION_CAP)
        if result == z3.unsat:
            return None
        probe = block.copy()
        terms = {key: truth(probe, pred) for key, pred in preds.items()}
        models = [solver.model()] if result == z3.sat else []
        literals: set[tuple[str, bool]] = set()
        for key, term in terms.items():
            evaluable = not _unspecified(preds[key])
            for value in (True, False):
                literal = term if value else z3.Not(term)
                if evaluable and any(z3.is_false(m.eval(literal, model_completion=True))
                                     for m in models):
                    continue
                entailment = solve(solver, budget, ABSTRACTION_CAP, z3.Not(literal))
                if entailment == z3.unsat:
                    literals.add((key, value))
                    break
                if entailment == z3.sat:
                    models.append(solver.model())
        return literals

    @staticmethod
    def may_be_covered(data: PredicateState) -> bool:
        return data.is_abstraction  # blocks are loop free

    @staticmethod
    def covers(other: PredicateState, data: PredicateState) -> bool:
        """``other`` is an abstraction state that knows less."""
        return other.is_abstraction and other.abstraction <= data.abstraction


@lru_cache(maxsize=1 << 14)
def _unspecified(pred: Predicate) -> bool:
    """Whether ``pred`` reads what z3 leaves unspecified for some values: the bits of a
    float (a NaN's representation), a float converted to an integer it does not fit. A
    model found before the predicate was asked about evaluates such a term to anything,
    not to what the block's constraints allow (``y != 0.0`` and ``y``'s bits all zero
    hold together in a model where ``y`` is a NaN), so only a solver call decides it.
    Cached: every abstraction asks it of every predicate at its location, and a
    predicate (its IR objects, hashed by identity) never changes."""
    return any(isinstance(x, BitView) or (isinstance(x, Cast) and isinstance(x.type, IntType)
                                          and isinstance(x.operand.type, FloatType))
               for e, _ in pred for x in e.walk())


def predicates_of(cases: list[Formula]) -> dict[str, Predicate]:
    """The predicates a refinement learns from the WP cases at a location: each literal's
    condition, and each case as a whole (the precondition itself, which a cartesian
    abstraction of its atoms alone may not be able to refute)."""
    out: dict[str, Predicate] = {}
    for case in cases:
        out.update({repr(e): ((e, True),) for e, _ in case})
        if len(case) > 1:
            out[repr(case)] = tuple(case.literals[k] for k in sorted(case.literals))
    return out


class PredicateAnalysis(CEGARAnalysis):
    """Predicate abstraction with CEGAR (starts with the loop heads' templates)."""

    name = "predicate"

    def cpa(self, program: Program) -> PredicateCPA:
        return PredicateCPA(program)

    def refine(self, program: Program, arg: ReachabilityARG, path: list[ARGState],
               check: PathCheck) -> ARGState | None:
        edges: list[Edge] = [s.edge for s in path[1:]]  # type: ignore[misc]
        contexts = path_contexts(program, edges)
        precision: PredicatePrecision = arg.precision
        counters = loop_counters(program)
        backward = BackwardTransfer(program)
        cases = [TRUE]
        pivot: ARGState | None = None
        for i in range(len(edges) - 1, -1, -1):
            state = path[i + 1]
            if i < len(edges) - 1 and state.data.is_abstraction and any(cases):
                mentioned = set().union(*(variables_of(e) for case in cases for e, _ in case))
                precision.explicit |= counters & mentioned
                precision.add(state.location, predicates_of(cases))
                if not precision.at(state.location) <= state.precision:
                    pivot = state
            edge = edges[i]
            if isinstance(edge, AssumeEdge) and i not in check.core:
                continue  # outside the unsat core: skipping its condition weakens the WP
            ctx = contexts.get(i, NO_CALL)
            pre = {c.key: c for case in cases for c in backward.pre(case, edge, ctx)}
            cases = list(pre.values())[:MAX_CASES]
        return pivot
