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
- **affine relation** ``c1*v1 + ... == k`` over the variables every iteration steps by
  constants: the coefficients are those that every path through the loop body leaves
  unchanged (the null space of the paths' steps, as in Karr's analysis restricted to
  constant steps), ``k`` the value of the sum at entry, from what straight-line code
  before the loop assigns, 0 where it assigns nothing known (``a++; b += 2`` or
  ``a += 2; b++``, then ``i++``, keep ``a + b == 3*i``; ``k = n; i = 0`` then ``k--;
  i += 2`` keep ``i + 2*k == 2*n``);
- **entry facts**: what the straight-line code before the loop assumes and assigns
  (``v == e``) of variables the loop leaves alone (``lim = bound`` and ``max < INT_MAX``
  before ``for (p = 0; p <= lim; p++)``: the loop's own conditions say nothing of them);
- **monotone from entry** ``start <= v`` (``v <= start``) where every step of ``v`` in
  the loop is positive (negative) and ``start`` is its entry value (with the entry facts,
  ``0 <= p`` while nothing wraps);
- **bounded growth** ``v - v0 <= h * (i - i0)`` where every path through the body
  steps the counter ``i`` by one and ``v`` by at most ``h`` and never down, ``h`` from
  constants and the types of what is added (``s += c`` for an ``unsigned char c`` keeps
  ``s <= 255 * i``);
- **order** ``u <= w`` and ``u == w`` between variables the loop reads, one of which it
  writes (``i = i + j`` with ``j >= 1`` and ``k++`` keep ``k <= i``).
"""
from __future__ import annotations

from collections.abc import Iterator, Set
from dataclasses import dataclass, field
from functools import lru_cache

from cooptest.cfa.ctype import IntType
from cooptest.frontend import conversions as conv
from cooptest.cfa.calls import address_taken, called_from
from cooptest.cfa.fold import fold, uncast
from cooptest.cfa.loops import cycle_edges
from cooptest.analyses.reachability.refinement import edge_reads
from cooptest.analyses.wp import Predicate, substitute
from cooptest.cfa.ir import (AssignEdge, AssumeEdge, Binary, CallEdge, Cast, Const, DeclEdge, Edge,
                             Expr, Location, Program, Unary, Var, Variable, in_memory, variables_of)

MAX_PER_LOOP = 40  # template predicates at one loop head (the shapes' order is their priority)
MAX_SCOPE = 16  # integer register variables in a function: above, its loops get no templates
MAX_CONGRUENCE_BITS = 2  # v mod 4 at most: 2^m predicates per variable
MAX_PATHS = 32  # paths through one loop body: above, the loop gets no affine relations
MAX_RELATIONS = 8  # affine relations of one loop (a null space basis, pairs first)
MAX_FACTS = 8  # entry facts of one loop (the nearest the loop first)


@dataclass
class Loop:
    """A loop head, the edges on its cycles (within its function), and what they do to
    the integer register variables: ``steps[v]`` the constant steps of ``v`` (None: some
    write is not ``v`` plus a constant), ``strides[v]`` the power of two every step of
    ``v`` is a multiple of. ``through``: every location an iteration may pass, in the
    functions it calls too: a cartesian abstraction anywhere on the way must keep the
    invariant, or the next abstraction at the head cannot find it again. ``deltas``: for
    each path through the body (none when an inner loop makes them endless), what it adds
    to each variable all of whose steps are constants; ``entry``: what straight-line
    code before the loop leaves in variables (a constant, or a variable the loop does
    not write); ``facts``: what that code makes true of variables the loop does not
    write (see ``_entry``); ``spans``: for each path through the body, the least and
    greatest sum of the steps of each variable every write of which steps it by a
    constant or by a value of a narrower unsigned type."""

    head: Location
    edges: tuple[Edge, ...]
    through: set[Location] = field(default_factory=set)
    read: set[Variable] = field(default_factory=set)
    steps: dict[Variable, set[int] | None] = field(default_factory=dict)
    strides: dict[Variable, int] = field(default_factory=dict)
    deltas: list[dict[Variable, int]] = field(default_factory=list)
    entry: dict[Variable, int | Variable] = field(default_factory=dict)
    facts: list[Expr] = field(default_factory=list)
    spans: list[dict[Variable, tuple[int, int]]] = field(default_factory=list)

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
    step = _step_of(v, rhs)
    if step is None:
        return None, 1
    op, other = step
    c = _constant(other)
    return ((c if op == "+" else -c) if c is not None else None), _multiple(other)


def _step_of(v: Variable, rhs: Expr) -> tuple[str, Expr] | None:
    """``(op, e)`` where ``rhs`` is ``v op e`` (or ``e + v``), ``op`` + or -, ``e`` not
    reading ``v``, computed at ``v``'s width or wider (a narrower sum would wrap at
    another width): ``v``'s old value is then the new one minus ``e``, modulo its width."""
    rhs = _unwidened(rhs, _bits(v))
    if not (isinstance(rhs, Binary) and rhs.op in ("+", "-") and isinstance(rhs.type, IntType)
            and rhs.type.bits >= _bits(v)):
        return None
    orders = ((rhs.left, rhs.right), (rhs.right, rhs.left)) if rhs.op == "+" else ((rhs.left, rhs.right),)
    for own, other in orders:
        own = _unwidened(own, _bits(v))
        if isinstance(own, Var) and own.var == v and v not in variables_of(other):
            return rhs.op, other
    return None


def _unwidened(e: Expr, bits: int) -> Expr:
    """``e`` without the casts to integer types of ``bits`` or more around it (a
    narrower one truncates the value: it stays)."""
    while isinstance(e, Cast) and isinstance(e.type, IntType) and e.type.bits >= bits:
        e = e.operand
    return e


def _span(v: Variable, rhs: Expr) -> tuple[int, int] | None:
    """The least and greatest step of ``v = rhs``, where ``rhs`` is ``v`` plus or minus a
    constant or a value of a narrower unsigned type (``s += c`` for an ``unsigned char
    c``: 0 to 255)."""
    step = _step_of(v, rhs)
    if step is None:
        return None
    op, e = step
    if (c := _constant(e)) is not None:
        lo = hi = c
    else:
        inner = uncast(e)
        t = inner.type
        if not (isinstance(t, IntType) and not t.signed and t.bits < _bits(v) and _unwidened(e, t.bits) is inner):
            return None
        lo, hi = 0, t.max
    return (lo, hi) if op == "+" else (-hi, -lo)


def _register(v: Variable) -> bool:
    return isinstance(v.type, IntType) and not v.type.is_bool and not in_memory(v) and not v.temporary


def _bits(v: Variable) -> int:
    """The width of ``v``, an integer variable (``_register``)."""
    assert isinstance(v.type, IntType), v
    return v.type.bits


def loop_of(program: Program, head: Location, addressed: set[str]) -> Loop:
    """``head``'s loop (``addressed``: the functions whose address ``program`` takes)."""
    edges = cycle_edges(head)
    called = {loc for name in called_from(program, edges, addressed) for loc in program.functions[name].locations}
    loop = Loop(head, edges, {head} | {e.src for e in edges} | called)
    spans: dict[Edge, tuple[Variable, int, int]] = {}  # the assignments that step a variable within bounds
    unbounded: set[Variable] = set()  # written otherwise somewhere
    for e in loop.edges:
        loop.read |= {v for v in edge_reads(e) if _register(v)}
        lhs = getattr(e, "lhs", None)
        if not (isinstance(lhs, Var) and _register(lhs.var)):
            continue
        v = lhs.var
        step, stride = _step(v, e.rhs) if isinstance(e, AssignEdge) else (None, 1)
        known = loop.steps.get(v, set())
        loop.steps[v] = None if step is None or known is None else known | {step}
        loop.strides[v] = min(loop.strides.get(v, stride), stride)
        if isinstance(e, AssignEdge) and (span := _span(v, e.rhs)) is not None:
            spans[e] = (v, *span)
        else:
            unbounded.add(v)
    exact = sorted((v for v, s in loop.steps.items() if s is not None), key=lambda v: v.name)
    bounded = loop.written - unbounded
    for path in _iterations(head, edges):
        sums = dict.fromkeys(bounded, (0, 0))
        for e in path:
            if e in spans and spans[e][0] in sums:
                v, lo, hi = spans[e]
                sums[v] = (sums[v][0] + lo, sums[v][1] + hi)
        loop.spans.append(sums)
        loop.deltas.append({v: sums[v][0] for v in exact})  # a constant step spans itself
    loop.entry, loop.facts = _entry(program, loop)
    return loop


def _iterations(head: Location, edges: tuple[Edge, ...]) -> list[list[Edge]]:
    """The paths from ``head`` back to it over ``edges``: none when an inner loop makes
    them endless, or when there are more than ``MAX_PATHS``."""
    on_cycle = set(edges)
    out: list[list[Edge]] = []
    todo: list[tuple[Location, list[Edge]]] = [(head, [])]
    while todo:
        loc, path = todo.pop()
        for e in loc.leaving:
            if e not in on_cycle:
                continue
            if e.dst is head:
                out.append(path + [e])
                if len(out) > MAX_PATHS:
                    return []
            elif any(e.dst is p.src for p in path):
                return []  # an inner loop
            else:
                todo.append((e.dst, path + [e]))
    return out


def _straight_before(head: Location, cycle: set[Edge]) -> Iterator[Edge]:
    """The straight-line code before the loop, nearest first: walking back from the
    loop's one entry for as long as each location has one predecessor (a call ends the
    walk: the callee may write globals)."""
    entering = [e for e in head.entering if e not in cycle]
    visited: set[Location] = {head}
    while len(entering) == 1 and not isinstance(e := entering[0], CallEdge) and e.src not in visited:
        visited.add(e.src)
        yield e
        entering = e.src.entering


def _assigned(e: Edge) -> Variable | None:
    """The variable ``e`` declares or assigns as a whole, if any."""
    if isinstance(e, DeclEdge):
        return e.var
    lhs = getattr(e, "lhs", None)
    return lhs.var if isinstance(lhs, Var) else None


def _entry(program: Program, loop: Loop) -> tuple[dict[Variable, int | Variable], list[Expr]]:
    """What the straight-line code before the loop establishes at its head: the entry
    value of each variable the loop writes (a constant, or a variable the loop leaves
    alone), and facts over variables the loop leaves alone (the conditions the code
    assumes, ``v == e`` for what it assigns), which hold at every iteration.

    The walk goes back from the head keeping, for each register variable, its value at
    the walk's point as an expression over the head's variables: the variable itself
    until an assignment is passed; ``v - e`` past ``v = v + e`` (undone, as modular
    arithmetic can); lost past any other assignment of ``v``, and with it every fact
    that reads ``v`` further back. So ``b0 = b; b = b - n`` gives ``b0 == b + n``, and
    ``p = 0; p = p + n`` the entry value ``n`` of ``p`` (MADWiFi's buffer offsets)."""
    values: dict[Variable, int | Variable] = {}
    facts: list[Expr] = []
    here: dict[Variable, Expr | None] = {}  # a variable's value at the walk's point (absent: its own)

    def at_head(e: Expr) -> Expr | None:
        if not _over(e) or any(x in here and here[x] is None for x in variables_of(e)):
            return None
        return substitute(e, {x: y for x, y in here.items() if y is not None})

    def hold(fact: Expr) -> None:
        if len(facts) < MAX_FACTS and not variables_of(fact) & loop.written:
            facts.append(fact)

    for e in _straight_before(loop.head, set(loop.edges)):
        if isinstance(e, AssumeEdge):
            if (cond := at_head(e.cond)) is not None:
                hold(cond)  # a predicate: the abstraction keeps it or its negation
            continue
        v = _assigned(e)
        if v is None:
            continue
        after = at_head(Var(v.type, v))  # v's value past the edge
        rhs = e.rhs if isinstance(e, AssignEdge) and _register(v) else None
        step = _step_of(v, rhs) if rhs is not None else None
        if step is not None and after is not None and (by := at_head(step[1])) is not None:
            back = _compare("-" if step[0] == "+" else "+", after, by, program)
            here[v] = conv.convert(program.types, back, v.type)  # undone: v's value before
            continue
        here[v] = None
        value = at_head(conv.convert(program.types, rhs, v.type)) if rhs is not None else None
        if after is None or value is None:
            continue
        hold(_compare("==", after, value, program))
        if v in loop.written and v not in values and (start := _solved(v, after, value, program)) is not None:
            if (c := _constant(start)) is not None:
                values[v] = c
            elif isinstance(w := uncast(start), Var) and w.var not in loop.written and w.var.type == v.type:
                values[v] = w.var
    return values, facts


def _solved(v: Variable, after: Expr, value: Expr, program: Program) -> Expr | None:
    """The head's ``v`` from ``after == value``, where ``after`` is ``v`` with steps
    undone (``(v - e1) + e2``...)."""
    while not (isinstance(after := uncast(after), Var) and after.var == v):
        if not (isinstance(after, Binary) and after.op in ("+", "-")):
            return None
        op = "-" if after.op == "+" else "+"
        value = after.right if op == "+" and _constant(value) == 0 else _compare(op, value, after.right, program)
        after = after.left
    return fold(value)


def _over(e: Expr) -> bool:
    """``e`` is integer arithmetic over register variables (no memory: a store anywhere
    may change what it reads; no floats: z3's floating-point queries cost seconds)."""
    return all(isinstance(x, (Var, Const, Unary, Binary, Cast)) and isinstance(x.type, IntType)
               and (not isinstance(x, Var) or _register(x.var)) for x in e.walk())


def _relations(loop: Loop, scope: Set[Variable]) -> list[dict[Variable, int]]:
    """Integer coefficients ``c`` with ``sum c[v] * delta[v] == 0`` on every path through
    the body (a basis of the null space), over two or more variables of ``scope``."""
    if not loop.deltas:
        return []
    names = [v for v in loop.deltas[0] if v in scope and any(d[v] for d in loop.deltas)]
    if len(names) < 2:
        return []
    import sympy  # here: its import takes half a second, which most programs need not pay
    out = []
    for basis in sympy.Matrix([[d[v] for v in names] for d in loop.deltas]).nullspace():
        scale = sympy.ilcm(*(x.q for x in basis))
        ints = [int(x * scale) for x in basis]
        # the sign with more terms added than subtracted: a + b == 3*i, not 3*i == a + b
        g = sympy.igcd(*ints) * (-1 if sum(n < 0 for n in ints) > sum(n > 0 for n in ints) else 1)
        c = {v: n // g for v, n in zip(names, ints) if n}
        if len(c) >= 2:
            out.append(c)
    return sorted(out, key=len)[:MAX_RELATIONS]


def _affine(program: Program, form: dict[Variable, int], k: int, var: dict[Variable, Var],
            op: str = "==") -> Expr:
    """``sum form[v] * v + k op 0``, the negative terms and constant on the right-hand
    side (``a + b == 3 * i``, ``i + 2 * k == 2 * n``, ``s <= 255 * i``)."""
    sides: tuple[list[Expr], list[Expr]] = ([], [])
    for v, n in form.items():
        term = var[v] if abs(n) == 1 else _compare("*", Const(program.types.int, abs(n)), var[v], program)
        sides[n < 0].append(term)
    if k:
        sides[k < 0].append(Const(program.types.int, abs(k)))

    def total(terms: list[Expr]) -> Expr:
        if not terms:
            return Const(program.types.int, 0)
        out = terms[0]
        for t in terms[1:]:
            out = _compare("+", out, t, program)
        return out

    return _compare(op, total(sides[0]), total(sides[1]), program)


def _at_entry(c: dict[Variable, int], entry: dict[Variable, int | Variable]) -> tuple[dict[Variable, int], int]:
    """``sum c[v] * v - sum c[v] * entry[v]`` as a linear form and a constant (a
    variable of unknown entry value is taken as 0 there: a guess Houdini may drop)."""
    form, k = dict(c), 0
    for v, n in c.items():
        start = entry.get(v, 0)
        if isinstance(start, int):
            k -= n * start
        else:
            form[start] = form.get(start, 0) - n
    return {v: n for v, n in form.items() if n}, k


def _scope(program: Program, function: str) -> list[Variable]:
    f = program.functions[function]
    return [v for v in [*program.globals, *f.params, *f.locals] if _register(v)]


def _compare(op: str, left: Expr, right: Expr, program: Program) -> Expr:
    """``left op right`` with C's usual arithmetic conversions (any two integer types)."""
    return conv.binary(program.types, op, left, right)


def _literal(e: Expr) -> Predicate:
    return ((e, True),)


def loop_templates(program: Program, loop: Loop, scope: list[Variable]) -> dict[str, Predicate]:
    """The template predicates of one loop over the variables of ``scope`` (its
    function's registers), the most specific shapes first."""
    out: dict[str, Predicate] = {}
    var = {v: Var(v.type, v) for v in scope}

    def add(e: Expr) -> None:
        out.setdefault(repr(e), _literal(e))

    for v in sorted(loop.written & var.keys(), key=lambda v: v.name):
        stride = loop.strides[v]
        if stride > 1:
            mask = Const(v.type, stride - 1)
            for c in range(stride if stride > 2 else 1):  # mod 2: one predicate and its negation
                add(_compare("==", Binary(v.type, "&", var[v], mask), Const(v.type, c), program))
    for relation in _relations(loop, var.keys()):
        form, k = _at_entry(relation, loop.entry)
        if form.keys() <= var.keys():
            add(_affine(program, form, k, var))
    for fact in loop.facts:
        if variables_of(fact) <= var.keys():
            add(fact)
    for v in sorted(loop.written & var.keys(), key=lambda v: v.name):
        steps, start = loop.steps[v], loop.entry.get(v)
        if steps and start is not None and (isinstance(start, int) or start in var):
            first = Const(v.type, start & ((1 << _bits(v)) - 1)) if isinstance(start, int) else var[start]
            if min(steps) > 0:
                add(_compare("<=", first, var[v], program))
            elif max(steps) < 0:
                add(_compare("<=", var[v], first, program))
    counters = [i for i in var if loop.deltas and all(d.get(i) == 1 for d in loop.deltas)]
    for v in sorted(loop.spans[0].keys() & var.keys() if loop.spans else (), key=lambda v: v.name):
        hi = max(span[v][1] for span in loop.spans)
        if loop.steps[v] is None and min(span[v][0] for span in loop.spans) >= 0 and hi > 0:
            for counter in counters:  # v grows by at most hi an iteration: v - v0 <= hi * (i - i0)
                form, k = _at_entry({v: 1, counter: -hi}, loop.entry)
                if form.keys() <= var.keys():
                    add(_affine(program, form, k, var, "<="))
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
    """Every loop of ``program`` with its template predicates (none in a function over
    ``MAX_SCOPE``, whose loops are not even looked at)."""
    addressed = address_taken(program)
    scopes = {name: _scope(program, name) for name in program.functions}
    loops = (loop_of(program, loc, addressed) for loc in program.locations()
             if loc.is_loop_head and len(scopes[loc.function]) <= MAX_SCOPE)
    return [(loop, preds) for loop in loops
            if (preds := loop_templates(program, loop, scopes[loop.head.function]))]
