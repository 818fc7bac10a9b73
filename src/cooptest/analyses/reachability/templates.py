"""Invariant templates: the loop-head predicates a refinement along one path cannot find.

WP refinement (``predicate.py``) learns what one spurious path needs, so a loop whose
proof needs an invariant is learnt one iteration at a time (``y != 0``, ``y + 2*a != 0``,
...) until the refinement bound gives the goal up. Template-based invariant generation
(Colón, Sankaranarayanan and Sipma; Houdini's candidate invariants) turns this around:
instantiate a few shapes of invariant over the variables of each loop, and let the
predicate abstraction keep those that hold. This module gives the shapes; the predicate
CPA starts with them in its precision at every loop head, and its cartesian abstraction
is the Houdini fixpoint: a candidate that does not hold on some iteration is simply not
a literal of that abstraction state.

Soundness does not depend on the templates: a precision is any set of predicates, and
the abstraction computed with it over-approximates whatever they are. The templates
decide only what can be expressed, and their number what an abstraction costs (every
predicate is one or two z3 queries at every abstraction of its loop head), hence
``MAX_PER_LOOP``; and in a large function (``MAX_SCOPE``: the state machine of
``s3_srvr_3a_alt`` has 30 goto loops over dozens of variables) the balanced-counter
shape pairs every counter with every variable, candidates that cost the predicate
analysis alone 63.0 -> 22.3 TestCov at 30 s: such functions get none.

The shapes, over integer variables kept in registers (a sum of two counters of one type,
modulo its width; comparisons with C's usual arithmetic conversions):

- **congruence** ``(v & (2^m - 1)) == c``: ``v`` only ever steps by multiples of ``2^m``
  in the loop (``y = y + 2*a`` keeps ``y`` odd);
- **balanced counters** ``u + w == r`` (``u`` and ``w`` step by opposite amounts) or
  ``u - w == r`` (equal amounts), ``r`` any variable of the function the loop leaves
  alone (``x--; y++`` keeps ``x + y == n``);
- **order** ``u <= w`` and ``u == w`` between variables the loop reads, one of which it
  writes (``i = i + j`` with ``j >= 1`` and ``k++`` keep ``k <= i``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from cooptest.cfa.ctype import IntType
from cooptest.frontend import conversions as conv
from cooptest.cfa.calls import callee_name
from cooptest.cfa.fold import fold, uncast
from cooptest.cfa.loops import cycle_edges
from cooptest.analyses.wp import Predicate
from cooptest.cfa.ir import (AssignEdge, AssumeEdge, Binary, CallEdge, Const, Edge, Expr,
                             Location, Program, ReturnEdge, Var, Variable, in_memory,
                             variables_of)

MAX_PER_LOOP = 40  # template predicates at one loop head (the shapes' order is their priority)
MAX_SCOPE = 16  # integer register variables in a function: above, its loops get no templates
MAX_CONGRUENCE_BITS = 2  # v mod 4 at most: 2^m predicates per variable


@dataclass
class Loop:
    """A loop head, the edges on its cycles (within its function), and what they do to
    the integer register variables: ``steps[v]`` the constant steps of ``v`` (None: some
    write is not ``v`` plus a constant), ``strides[v]`` the power of two every step of
    ``v`` is a multiple of. ``through``: every location an iteration may pass, in the
    functions it calls too: a cartesian abstraction anywhere on the way must keep the
    invariant, or the next abstraction at the head cannot find it again."""

    head: Location
    edges: list[Edge]
    through: set[Location] = field(default_factory=set)
    read: set[Variable] = field(default_factory=set)
    steps: dict[Variable, set[int] | None] = field(default_factory=dict)
    strides: dict[Variable, int] = field(default_factory=dict)

    @property
    def written(self) -> set[Variable]:
        return set(self.steps)


def _signed(value: int, t: IntType) -> int:
    """``value`` of the unsigned bits of ``t`` read as two's complement (``x - 1`` may
    be ``x + 4294967295``)."""
    value &= (1 << t.bits) - 1
    return value - (1 << t.bits) if value >> (t.bits - 1) else value


def _constant(e: Expr) -> int | None:
    e = fold(e)
    if isinstance(e, Const) and isinstance(e.value, int) and isinstance(e.type, IntType):
        return _signed(e.value, e.type)
    return None


def _power_of_two(n: int) -> int:
    """The largest power of two dividing ``n`` (0 divides by every one: capped)."""
    if n == 0:
        return 1 << MAX_CONGRUENCE_BITS
    return min(n & -n, 1 << MAX_CONGRUENCE_BITS)


def _multiple(e: Expr) -> int:
    """A power of two ``e`` is always a multiple of (1 when none is known)."""
    e = uncast(e)
    if (c := _constant(e)) is not None:
        return _power_of_two(c)
    if isinstance(e, Binary) and e.op == "*":
        return min(max(_multiple(e.left), _multiple(e.right)), 1 << MAX_CONGRUENCE_BITS)
    if isinstance(e, Binary) and e.op == "<<" and (c := _constant(e.right)) is not None and 0 <= c < 64:
        return min(_multiple(e.left) << c, 1 << MAX_CONGRUENCE_BITS)
    if isinstance(e, Binary) and e.op in ("+", "-"):
        return min(_multiple(e.left), _multiple(e.right))
    return 1


def _step(v: Variable, rhs: Expr) -> tuple[int | None, int]:
    """How ``v = rhs`` moves ``v``: the constant step (None: not ``v`` plus a constant)
    and the power of two the step is a multiple of (1: no congruence is kept)."""
    rhs = uncast(rhs)
    if isinstance(rhs, Binary) and rhs.op in ("+", "-") and isinstance(rhs.type, IntType) \
            and rhs.type.bits >= v.type.bits:  # a narrower sum would wrap at another width
        sign = 1 if rhs.op == "+" else -1
        for own, other, s in ((rhs.left, rhs.right, sign), (rhs.right, rhs.left, 1)):
            own = uncast(own)
            if isinstance(own, Var) and own.var == v and (rhs.op == "+" or s == sign):
                c = _constant(other)
                return (s * c if c is not None else None), _multiple(other)
    return None, 1


def _register(v: Variable) -> bool:
    return isinstance(v.type, IntType) and not v.type.is_bool and not in_memory(v) and not v.temporary


def _called(program: Program, edges: list[Edge]) -> set[Location]:
    """The locations of the functions ``edges`` call, directly or not."""
    todo = [name for e in edges if isinstance(e, CallEdge) and (name := callee_name(e)) in program.functions]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += [c for e in program.functions[name].edges() if isinstance(e, CallEdge)
                     and (c := callee_name(e)) in program.functions]
    return {loc for name in seen for loc in program.functions[name].locations}


def loop_of(program: Program, head: Location) -> Loop:
    edges = cycle_edges(head)
    loop = Loop(head, edges, {head} | {e.src for e in edges} | _called(program, edges))
    for e in loop.edges:
        reads: set[Variable] = set()
        if isinstance(e, AssumeEdge):
            reads = variables_of(e.cond)
        elif isinstance(e, AssignEdge):
            reads = variables_of(e.rhs)
        elif isinstance(e, CallEdge):
            reads = set().union(*(variables_of(a) for a in e.args))
        elif isinstance(e, ReturnEdge) and e.value is not None:
            reads = variables_of(e.value)
        loop.read |= {v for v in reads if _register(v)}
        lhs = getattr(e, "lhs", None)
        if not (isinstance(lhs, Var) and _register(lhs.var)):
            continue
        v = lhs.var
        step, stride = _step(v, e.rhs) if isinstance(e, AssignEdge) else (None, 1)
        known = loop.steps.get(v, set())
        loop.steps[v] = None if step is None or known is None else known | {step}
        loop.strides[v] = min(loop.strides.get(v, stride), stride)
    return loop


def _scope(program: Program, function: str) -> list[Variable]:
    f = program.functions[function]
    return [v for v in [*program.globals, *f.params, *f.locals] if _register(v)]


def _compare(op: str, left: Expr, right: Expr, program: Program) -> Expr:
    """``left op right`` with C's usual arithmetic conversions (any two integer types)."""
    return conv.binary(program.types, op, left, right)


def _literal(e: Expr) -> Predicate:
    return ((e, True),)


def loop_templates(program: Program, loop: Loop) -> dict[str, Predicate]:
    """The template predicates of one loop, the most specific shapes first."""
    out: dict[str, Predicate] = {}
    var = {v: Var(v.type, v) for v in _scope(program, loop.head.function)}
    if len(var) > MAX_SCOPE:
        return out

    def add(e: Expr) -> None:
        out.setdefault(repr(e), _literal(e))

    for v in sorted(loop.written & var.keys(), key=lambda v: v.name):
        stride = loop.strides[v]
        if stride > 1:
            mask = Const(v.type, stride - 1)
            for c in range(stride if stride > 2 else 1):  # mod 2: one predicate and its negation
                add(_compare("==", Binary(v.type, "&", var[v], mask), Const(v.type, c), program))
    unit = {v: next(iter(s)) for v, s in loop.steps.items()
            if v in var and s is not None and len(s) == 1 and next(iter(s)) != 0}
    counters = sorted(unit, key=lambda v: v.name)
    for i, u in enumerate(counters):
        for w in counters[i + 1:]:
            if u.type != w.type or abs(unit[u]) != abs(unit[w]):
                continue
            op = "+" if unit[u] == -unit[w] else "-"
            for r in var:
                if r not in (u, w) and r not in loop.written:
                    add(_compare("==", Binary(u.type, op, var[u], var[w]), var[r], program))
    ordered = sorted(loop.read | loop.written, key=lambda v: v.name)
    for i, u in enumerate(ordered):
        for w in ordered[i + 1:]:
            if (u in loop.written or w in loop.written) and u in var and w in var:
                add(_compare("<=", var[u], var[w], program))
                add(_compare("<=", var[w], var[u], program))
                add(_compare("==", var[u], var[w], program))
    return dict(list(out.items())[:MAX_PER_LOOP])


@lru_cache(maxsize=8)
def templates(program: Program) -> list[tuple[Loop, dict[str, Predicate]]]:
    """Every loop of ``program`` with its template predicates."""
    loops = (loop_of(program, loc) for loc in program.locations() if loc.is_loop_head)
    return [(loop, preds) for loop in loops if (preds := loop_templates(program, loop))]
