"""Explicit value analysis (CPAchecker's ValueAnalysisCPA) with CEGAR.

The abstract data is a partial map from places to their exact values, one map for
the globals and one per active call. Only the places of the precision are tracked
(a global set, initially empty: every place unknown). A place is an integer or pointer
scalar that lives in a register (never an address-taken one), so that writes through pointers,
which the analysis does not follow, cannot change a tracked value; or a *heap cell*
(``fields.HeapCells``): an integer or pointer field of a struct the program allocates
once, where Burstall's memory model holds, so that only stores naming the field change
it (openssl's ``s->state`` machine). Cells live with the globals and read 0 until
stored. A pointer place holds null (0) or ``NONNULL`` (it points to an object: an
address, or an allocation a comparison found not null: ``malloc`` may fail), which decides
comparisons with null and nothing else (``s->cert = 0; ... if (s->cert == 0)``). Values are
computed with the constant folder of the front end (``cfa.fold``: the same C integer
semantics, undefined operations folding to unknown). An assume whose condition has a
known value decides its branch; otherwise both branches are taken, and ``x == c``
teaches the taken branch the value of ``x``.

Refinement (path-prefix, as in value-analysis interpolation): from the unsat core of a
spurious path, the places the core's constraints read and, transitively backwards,
the places the assignments feeding them read, join the precision.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Callable

from cooptest.analyses.reachability.arg import ARGState, ReachabilityARG
from cooptest.analyses.reachability.cegar import CEGARAnalysis
from cooptest.analyses.reachability.cpa import Successor
from cooptest.analyses.transfer import EdgeTransfer
from cooptest.analyses.field_invariants import FieldKey, HeapCells, field_name
from cooptest.cfa.calls import CallContext, path_contexts
from cooptest.analyses.reachability.refinement import PathCheck, relevant_places
from cooptest.cfa.ctype import IntType, PointerType
from cooptest.core.budget import Budget
from cooptest.cfa.fold import fold
from cooptest.cfa.ir import (AddrOf, AssignEdge, AssumeEdge, Binary, CallEdge, Cast, Const,
                             DeclEdge, Deref, Edge, Expr, FuncRef, FunctionCFA, Index, Location, Member,
                             NondetEdge, Program, ReturnEdge, StringLit, Unary, Var, Variable,
                             in_register, variables_of)

NONNULL = "nonnull"
Place = Variable | FieldKey  # a register variable or a heap cell
PlaceOf = Callable[[Expr], "Place | None"]  # the trackable place an lvalue names at an edge
Frame = frozenset[tuple[Place, int | str]]


def register(e: Expr) -> Place | None:
    """The place of ``e`` when only registers are trackable."""
    return e.var if isinstance(e, Var) and in_register(e.var) else None


@lru_cache(maxsize=8)
def heap_cells(program: Program) -> HeapCells:
    """One computation per program (the checks of Burstall's model walk it whole)."""
    return HeapCells(program)


@dataclass
class ValuePrecision:
    """The tracked places (replaced, never mutated: states keep it as a snapshot)."""

    tracked: frozenset[Place] = frozenset()

    def evidence(self) -> str:
        """What a complete ARG was computed with, for its proofs: the places tracked."""
        names = sorted(p.name if isinstance(p, Variable) else field_name(p) for p in self.tracked)
        return f"tracking {', '.join(names) or 'no variable'}"


def _global(v: Place) -> bool:
    return not isinstance(v, Variable) or v.is_global


@dataclass(frozen=True)
class ValueState:
    """``frames[0]`` holds the globals and the heap cells, ``frames[k]`` the locals of
    the k-th call. ``facts`` are the outcomes of branches over tracked places whose
    values are unknown (``(cond shape, truth)``, see ``Fact``): a nondeterministic
    ``algorithms`` tested twice, ``if (a & 256) ... if (a & 256)``, takes the same branch
    both times until ``a`` is written again; so does a local ``status`` tested in
    ``if (status >= 0) { ... if (!(status >= 0)) return -1; ...``. A fact over locals
    belongs to the frame it was learnt in: it decides branches only there (a recursive
    call has the same ``Variable`` for another object) and ends with the frame."""

    frames: tuple[Frame, ...]
    facts: frozenset[Fact] = frozenset()

    def lookup(self, v: Place) -> int | str | None:
        frame = self.frames[0] if _global(v) else self.frames[-1]
        return dict(frame).get(v)

    def frame_of(self, v: Place) -> int:
        return 0 if _global(v) else len(self.frames) - 1

    def set(self, v: Place | None, value: int | str | None, tracked: frozenset[Place]) -> ValueState:
        """The state after ``v`` is written (``v`` None: a place no analysis tracks)."""
        if v is None:
            return self
        k = self.frame_of(v)
        frame = {x: y for x, y in self.frames[k] if x != v}
        if value is not None and v in tracked:
            frame[v] = value
        facts = self.facts if not self.facts else \
            frozenset(f for f in self.facts if v not in f.places or not _global(v) and f.frame != k)
        return ValueState(self.frames[:k] + (frozenset(frame.items()),) + self.frames[k + 1:], facts)

    def called(self) -> ValueState:
        return ValueState(self.frames + (frozenset(),), self.facts)

    def returned(self) -> ValueState:
        k = len(self.frames) - 1
        facts = self.facts if not self.facts else frozenset(f for f in self.facts if f.frame != k)
        return ValueState(self.frames[:-1], facts)

    def decide(self, edge: AssumeEdge, place: PlaceOf, tracked: frozenset[Place]) -> ValueState | None:
        """The state after ``edge`` by its facts: None if they contradict it; with its
        outcome as a new fact if its condition reads only tracked places."""
        fact = Fact.of(edge.cond, edge.positive, place, len(self.frames) - 1)
        if fact is None or not fact.places <= tracked:
            return self
        if replace(fact, truth=not fact.truth) in self.facts:
            return None
        return replace(self, facts=self.facts | {fact})

    def evaluate(self, e: Expr, place: PlaceOf = register) -> int | None:
        """The value of an integer expression, if the known values determine it."""
        if isinstance(e, Const):
            return e.value if isinstance(e.value, int) else None
        if isinstance(e, Var | Member):
            v = place(e)
            value = self.lookup(v) if v is not None else None
            return value if isinstance(value, int) else None  # NONNULL is no number
        if isinstance(e, Binary) and e.op in ("==", "!=") and PointerType in (
                type(_unconverted(e.left).type), type(_unconverted(e.right).type)):
            a, b = self.pointer(e.left, place), self.pointer(e.right, place)
            if a is None or b is None or NONNULL == a == b:
                return None
            return int((a == b) == (e.op == "=="))
        if not isinstance(e, Unary | Binary | Cast) or not isinstance(e.type, IntType):
            return None
        operands = e.children()
        if not all(isinstance(o.type, IntType) for o in operands):
            return None
        values = [self.evaluate(o, place) for o in operands]
        known = [v for v in values if v is not None]
        if len(known) < len(values):
            return None
        consts = [Const(o.type, v) for o, v in zip(operands, known)]
        if isinstance(e, Binary):
            folded = fold(replace(e, left=consts[0], right=consts[1]))
        else:
            folded = fold(replace(e, operand=consts[0]))
        return folded.value if isinstance(folded, Const) and isinstance(folded.value, int) else None

    def pointer(self, e: Expr, place: PlaceOf = register) -> int | str | None:
        """The value of a pointer (or of a pointer converted to a wide enough integer):
        0 (null), ``NONNULL``, or None (unknown)."""
        e = _unconverted(e)
        if isinstance(e, Const):
            return 0 if e.value == 0 else None
        if isinstance(e, Cast) and isinstance(e.type, PointerType):  # from an integer
            return 0 if self.evaluate(e.operand, place) == 0 else None
        if isinstance(e, FuncRef | StringLit):
            return NONNULL
        if isinstance(e, AddrOf):  # of a variable's part, or of an object's through a pointer
            base = e.operand
            while isinstance(base, Member | Index):
                base = base.base
            if isinstance(base, Deref):  # &((T *) 0)->f is offsetof, maybe 0
                return NONNULL if self.pointer(base.pointer, place) == NONNULL else None
            return NONNULL if isinstance(base, Var | StringLit) else None
        if isinstance(e, Var | Member) and isinstance(e.type, PointerType):
            v = place(e)
            return self.lookup(v) if v is not None else None
        if isinstance(e.type, IntType):
            return 0 if self.evaluate(e, place) == 0 else None
        return None

    def value_of(self, e: Expr, place: PlaceOf = register) -> int | str | None:
        return self.pointer(e, place) if isinstance(e.type, PointerType) else self.evaluate(e, place)


def _unconverted(e: Expr) -> Expr:
    """``e`` without the conversions that keep a pointer's value: between pointer
    types, and from a pointer to an integer at least as wide."""
    while isinstance(e, Cast) and isinstance(e.operand.type, PointerType) and (
            isinstance(e.type, PointerType)
            or isinstance(e.type, IntType) and e.type.bits >= e.operand.type.bits):
        e = e.operand
    return e


@dataclass(frozen=True)
class Fact:
    """A branch outcome: the condition of ``shape`` (its structure, with places in place
    of the lvalues read) evaluated to ``truth``; it holds until one of ``places`` is
    written. ``frame`` is 0 when every place is a global or a heap cell, which no call or
    return hides; otherwise the frame of the locals read (``ValueState``)."""

    shape: tuple[Any, ...]
    truth: bool
    places: frozenset[Place]
    frame: int

    @staticmethod
    def of(cond: Expr, truth: bool, place: PlaceOf, frame: int) -> Fact | None:
        """The fact of ``cond`` evaluating to ``truth`` in the call of depth ``frame``."""
        places: set[Place] = set()
        shape = _shape(cond, place, places)
        if shape is None or not places:
            return None
        return Fact(shape, truth, frozenset(places), 0 if all(map(_global, places)) else frame)


def _shape(e: Expr, place: PlaceOf, places: set[Place]) -> tuple[Any, ...] | None:
    """``e`` as a hashable structure, or None if it reads something but trackable places."""
    if isinstance(e, Var | Member):
        v = place(e)
        if v is None:
            return None
        places.add(v)
        return ("place", v)
    if isinstance(e, Const):
        return ("const", e.type, e.value)
    if isinstance(e, Unary | Binary | Cast):
        kids = [_shape(c, place, places) for c in e.children()]
        if any(k is None for k in kids):
            return None
        return (type(e).__name__, e.type, getattr(e, "op", None), *kids)
    return None


class ValueCPA:
    name = "value"

    def __init__(self, program: Program) -> None:
        self.program = program
        self.cells = heap_cells(program)
        self.edges = _Edges(self)

    def place_at(self, edge: Edge) -> PlaceOf:
        """The trackable place an lvalue names at ``edge``: a register or a heap cell."""
        cells = self.cells

        def place(e: Expr) -> Place | None:
            return register(e) if isinstance(e, Var) else cells.place(e, edge)
        return place if cells.keys else register

    def initial_state(self, program: Program) -> ValueState:
        return ValueState((frozenset(), frozenset()))

    def initial_precision(self) -> ValuePrecision:
        return ValuePrecision()

    def snapshot(self, precision: ValuePrecision, location: Location) -> frozenset[Place]:
        return precision.tracked

    def transfer(self, state: ARGState, succ: Successor, precision: ValuePrecision,
                 budget: Budget) -> ValueState | None:
        return self.edges.transfer(_Step(state, succ, precision.tracked, self.place_at(succ.edge)), succ.edge)

    @staticmethod
    def _learn(data: ValueState, edge: AssumeEdge, tracked: frozenset[Place],
               place: PlaceOf) -> ValueState:
        """``[x == c]`` (or ``![x != c]``) with ``x`` unknown: ``x`` is ``c`` afterwards;
        ``[p != null]`` (or ``![p == null]``): ``p`` is ``NONNULL``."""
        cond = edge.cond
        if not isinstance(cond, Binary) or cond.op not in ("==", "!="):
            return data
        equal = (cond.op == "==") == edge.positive
        for var, other in ((cond.left, cond.right), (cond.right, cond.left)):
            var = _unconverted(var)
            target = place(var) if isinstance(var, Var | Member) else None
            if target is None or target not in tracked:
                continue
            value = data.value_of(other, place) if isinstance(var.type, IntType) else data.pointer(other, place)
            if equal and value is not None:
                return data.set(target, value, tracked)
            if not equal and value == 0 and isinstance(var.type, PointerType):
                return data.set(target, NONNULL, tracked)
        return data

    def adjust(self, data: ValueState, location: Location, call_stack: Any,
               precision: ValuePrecision, target: bool, budget: Budget) -> ValueState:
        return data

    @staticmethod
    def may_be_covered(data: ValueState) -> bool:
        return True

    @staticmethod
    def covers(other: ValueState, data: ValueState) -> bool:
        """``other`` knows no more: each of its values is also ours."""
        return other.facts <= data.facts and all(o <= d for o, d in zip(other.frames, data.frames))


@dataclass(frozen=True)
class _Step:
    """One successor being computed: the state it comes from, the CFA successor, the
    places tracked and how the edge's lvalues name them."""

    state: ARGState
    succ: Successor
    tracked: frozenset[Place]
    place: PlaceOf

    @property
    def data(self) -> ValueState:
        return self.state.data


class _Edges(EdgeTransfer[_Step, "ValueState | None"]):
    """Value analysis's cases of the one edge transfer (``analyses.transfer``); the
    control flow (``cpa.ControlFlow``) has already entered or left a body where the
    edge does."""

    def __init__(self, cpa: ValueCPA) -> None:
        self.program, self.cpa = cpa.program, cpa

    def assume(self, s: _Step, edge: AssumeEdge) -> ValueState | None:
        value = s.data.evaluate(edge.cond, s.place)
        if value is not None:
            return s.data if (value != 0) == edge.positive else None
        decided = s.data.decide(edge, s.place, s.tracked)
        return ValueCPA._learn(decided, edge, s.tracked, s.place) if decided is not None else None

    def assign(self, s: _Step, edge: AssignEdge) -> ValueState:
        return s.data.set(s.place(edge.lhs), s.data.value_of(edge.rhs, s.place), s.tracked)

    def declare(self, s: _Step, edge: DeclEdge, zero: bool) -> ValueState:
        return s.data.set(edge.var, 0 if zero else None, s.tracked)

    def nondet(self, s: _Step, edge: NondetEdge) -> ValueState:
        return s.data.set(s.place(edge.lhs), None, s.tracked) if edge.lhs is not None else s.data

    def enter(self, s: _Step, edge: CallEdge, body: FunctionCFA,
              bindings: list[tuple[Variable, Expr | None]]) -> ValueState:
        entered = s.data.called()
        for param, arg in bindings:
            entered = entered.set(param, s.data.value_of(arg, s.place) if arg is not None else None, s.tracked)
        return entered

    def outside(self, s: _Step, edge: CallEdge, name: str | None) -> ValueState:
        # a library result is unknown: ``malloc``'s too, which may be NULL (as in the
        # symbolic semantics); a comparison with null teaches which it is (``_learn``)
        return s.data.set(s.place(edge.lhs), None, s.tracked) if edge.lhs is not None else s.data

    def leave(self, s: _Step, edge: ReturnEdge) -> ValueState:
        if len(s.succ.call_stack) >= len(s.state.call_stack):
            return s.data  # main's return: no call to go back to
        call = s.state.call_stack[-1]
        result = s.data.value_of(edge.value, s.place) if edge.value is not None else None
        returned = s.data.returned()
        return returned.set(self.cpa.place_at(call)(call.lhs), result, s.tracked) \
            if call.lhs is not None else returned

    def blank(self, s: _Step, edge: Edge) -> ValueState:
        return s.data


def _writes(program: Program, edge: Edge, ctx: CallContext | None, cpa: ValueCPA) -> set[Place]:
    """The places an edge of a path gives a (possibly known) value."""
    if isinstance(edge, AssignEdge | NondetEdge):  # a nondet place tracked keeps facts
        return _written(cpa, edge, edge.lhs) if edge.lhs is not None else set()
    if isinstance(edge, DeclEdge):
        return {edge.var}
    if isinstance(edge, CallEdge) and ctx is not None:
        return set(program.functions[ctx.callee].params)  # type: ignore[index]
    if isinstance(edge, CallEdge) and edge.lhs is not None:  # a library call's unknown result
        return _written(cpa, edge, edge.lhs)
    if isinstance(edge, ReturnEdge) and ctx is not None and ctx.call.lhs is not None:  # type: ignore[union-attr]
        return _written(cpa, ctx.call, ctx.call.lhs)  # type: ignore[union-attr, arg-type]
    return set()


def _written(cpa: ValueCPA, edge: Edge, lhs: Expr) -> set[Place]:
    target = cpa.place_at(edge)(lhs)
    return {target} if target is not None else set()


class ValueAnalysis(CEGARAnalysis):
    """Explicit value analysis with CEGAR (starts with an empty precision)."""

    name = "value"

    def cpa(self, program: Program) -> ValueCPA:
        return ValueCPA(program)

    def refine(self, program: Program, arg: ReachabilityARG, path: list[ARGState],
               check: PathCheck) -> ARGState | None:
        edges: list[Edge] = [s.edge for s in path[1:]]  # type: ignore[misc]
        cpa = self.cpa(program)
        cells = cpa.cells

        def places(edge: Edge, e: Expr) -> set[Any]:
            return variables_of(e) | cells.cells_of(e, edge)

        relevant = {v for v in relevant_places(program, edges, check.core, places)
                    if not isinstance(v, Variable) or in_register(v)}
        contexts = path_contexts(program, edges)
        for i, state in enumerate(path[1:]):
            missing = (_writes(program, edges[i], contexts.get(i), cpa) & relevant) - state.precision
            if missing:
                arg.precision = ValuePrecision(arg.precision.tracked | relevant)
                return state
        return None
