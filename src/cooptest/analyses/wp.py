"""Weakest preconditions over CFA edges: the backward transfer of every backward analysis.

A :class:`Formula` is a conjunction of literals, each an IR condition or its negation
(the same conditions predicate abstraction uses as predicates). ``BackwardTransfer.pre``
takes a formula that holds after an edge to the formulas (a disjunction of cases) that
hold before it, in the *reachability* sense: every state from which the edge can lead
into a state satisfying ``post`` satisfies one of the returned cases. The cases may be
weaker than the exact pre-image, never stronger. That one property serves both clients:

- predicate refinement (``reachability/predicate.py``) reads the literals of the cases
  along a spurious path as new predicates; any predicate is sound there, weakening only
  costs progress;
- backward reachability (BiTe's R-states: formulas at CFA locations extended backwards
  edge by edge) may drop a case whose formula is unsatisfiable, or an R-state whose
  formula contradicts every symbolic state that reaches its location
  (:func:`satisfiable`): since the cases over-approximate the pre-image, an unsatisfiable
  case proves that no execution through it reaches the target.

Per edge:

- assume ``[c]``: ``post && c`` (a caller may skip an assume, which weakens);
- ``x := e`` for a register variable: ``post[e/x]``; an input, an uninitialised
  declaration or an unknown call result: the literals about ``x`` are dropped (the
  existential quantifier over ``x``, weakened);
- a store ``*a := e`` (Morris' rule): every read ``r`` of the same type that the store
  may hit splits the formula into the case ``a == &r`` with ``r`` replaced by ``e`` and
  the case ``a != &r`` unchanged (a pointer of a type is aligned to it, so two objects
  of one scalar type overlap only if they start at the same address); a read of another
  type, a bit-field, or more than ``max_split`` reads drop the literals (weakening).
  Where the expressions decide it (:func:`alias`: distinct variables, distinct fields
  or constant indices of one) there is no split; a member of a union that lies within
  the bytes stored reads their bits (``BitView``: ``u.value = x`` makes ``u.parts.msw``
  the high word of the double ``x``, as newlib's ``EXTRACT_WORDS`` reads it). A copy of a whole struct or array
  drops what reads the copy (weakening: field-wise copies are not followed);
- a call entering a body (``ctx.callee``): the callee's parameters become the arguments
  (``FunctionCFA.bind``); the callee's own variables are dropped first (in a recursive
  call they are another frame's). A call without a body does what the symbolic state
  makes of it: the result is unknown and a call that may write memory drops every
  literal that reads memory (a call nobody resolved: or a global);
- a return into ``ctx.call``: the literals about the callee's variables, which belong
  to the caller's frame here, are dropped, then the call's result is assigned.

Evaluating a formula in a symbolic state (an S-state of concolic testing, a block of
predicate analysis) is :func:`truth`: the term z3 is asked about.
"""
from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Iterator

import z3

from cooptest.analyses import semantics as sem
from cooptest.analyses.symbolic import SymbolicState
from cooptest.analyses.transfer import EdgeTransfer
from cooptest.cfa import libc_model
from cooptest.cfa.calls import NO_CALL, CallContext, callee_name
from cooptest.cfa.ctype import CType, FloatType, IntType
from cooptest.cfa.fold import const_int, fold
from cooptest.cfa.ir import (AddrOf, AssignEdge, AssumeEdge, Binary, BitView, CallEdge, Cast,
                             Const, DeclEdge, Deref, Edge, Expr, FunctionCFA, Index, Member, NondetEdge,
                             Program, ReturnEdge, Var, Variable, in_memory, selectors,
                             variables_of)

Literal = tuple[Expr, bool]  # an IR condition, asserted (True) or negated (False)
Predicate = tuple[Literal, ...]  # a conjunction of literals: one predicate of a precision


@dataclass(frozen=True)
class Formula:
    """A conjunction of literals, keyed by their text (IR expressions compare by
    identity). The empty formula is ``true``; ``false`` is no formula at all (``pre``
    returns no case, ``conjoin`` returns None)."""

    literals: dict[tuple[str, bool], Literal] = field(default_factory=dict, hash=False)

    @property
    def key(self) -> frozenset[tuple[str, bool]]:
        """What identifies the formula (to find a formula again, e.g. in a reached set)."""
        return frozenset(self.literals)

    def conjoin(self, e: Expr, positive: bool = True) -> Formula | None:
        """``self && e`` (``!e`` if not ``positive``); None if ``e`` folds to false."""
        folded = fold(e)
        if isinstance(folded, Const):
            return self if (folded.value != 0) == positive else None
        k = (repr(e), positive)
        if k in self.literals:
            return self
        return Formula({**self.literals, k: (e, positive)})

    def keep(self, wanted: set[tuple[str, bool]] | None = None, *,
             without: frozenset[Variable] | set[Variable] = frozenset()) -> Formula:
        """The literals in ``wanted`` (all if None) that mention none of ``without``."""
        return Formula({k: lit for k, lit in self.literals.items()
                        if (wanted is None or k in wanted) and not variables_of(lit[0]) & without})

    def map(self, f: Callable[[Expr], Expr]) -> Formula | None:
        """Each literal's condition rewritten by ``f`` (None: false)."""
        out: Formula | None = Formula()
        for e, positive in self.literals.values():
            out = out.conjoin(f(e), positive) if out is not None else None
        return out

    def __iter__(self) -> Iterator[Literal]:
        return iter(self.literals.values())

    def __len__(self) -> int:
        return len(self.literals)

    def __repr__(self) -> str:
        if not self.literals:
            return "true"
        return " && ".join(("" if p else "!") + t for t, p in sorted(self.literals))


TRUE = Formula()


# ---------------------------------------------------------------------------- expressions


def substitute(e: Expr, values: dict[Variable, Expr]) -> Expr:
    """``e`` with register variables replaced (and constants folded)."""
    if isinstance(e, Var):
        return values.get(e.var, e)
    return _rebuild(e, lambda c: substitute(c, values))


def _rebuild(e: Expr, f: Callable[[Expr], Expr]) -> Expr:
    children = e.children()
    if not children:
        return e
    new = [f(c) for c in children]
    if all(n is c for n, c in zip(new, children)):
        return e
    names = [n for n in ("left", "right", "operand", "pointer", "base", "index") if hasattr(e, n)]
    return _reassociate(fold(replace(e, **dict(zip(names, new)))))  # type: ignore[arg-type]


def _reassociate(e: Expr) -> Expr:
    """``(x + c1) + c2`` as ``x + (c1 + c2)`` (also with ``-``): equal in the wrap-around
    arithmetic of the type, and it keeps WP atoms of unrolled loops short."""
    if not (isinstance(e, Binary) and e.op in ("+", "-") and isinstance(e.type, IntType)
            and isinstance(e.right, Const) and isinstance(e.left, Binary) and e.left.op in ("+", "-")
            and e.left.type == e.type and isinstance(e.left.right, Const)):
        return e
    inner, outer = e.left.right.value, e.right.value
    total = (inner if e.left.op == "+" else -inner) + (outer if e.op == "+" else -outer)
    return Binary(e.type, "+", e.left.left, Const(e.type, e.type.wrap(total)))  # type: ignore[arg-type]


def address(program: Program, lvalue: Expr) -> Expr:
    """``&lvalue`` as an expression (``*p`` is at ``p``)."""
    if isinstance(lvalue, Deref):
        return lvalue.pointer
    return AddrOf(program.types.pointer(lvalue.type), lvalue)


def memory_reads(e: Expr, lvalue: bool = False) -> Iterator[Expr]:
    """The lvalues ``e`` reads from memory (not registers, not those whose address is
    merely taken), outermost first."""
    if isinstance(e, (Var, Deref, Member, Index)):
        if not lvalue and (not isinstance(e, Var) or in_memory(e.var)):
            yield e
        if isinstance(e, Deref):
            yield from memory_reads(e.pointer)
        elif isinstance(e, Member):
            yield from memory_reads(e.base, lvalue=True)
        elif isinstance(e, Index):
            yield from memory_reads(e.base, lvalue=True)
            yield from memory_reads(e.index)
        return
    if isinstance(e, AddrOf):
        yield from memory_reads(e.operand, lvalue=True)
        return
    for c in e.children():
        yield from memory_reads(c)


def _access(lvalue: Expr) -> tuple[Variable | None, list[tuple[str, object]] | None]:
    """The variable an lvalue lies in (None: reached through a pointer) and the steps
    from it (fields, constant indices; None if an index is not constant)."""
    root, chosen = selectors(lvalue)
    var = root.var if isinstance(root, Var) else None
    steps: list[tuple[str, object]] = []
    for e in chosen:
        if isinstance(e, Member):
            steps.append(("union" if e.struct.is_union else "field", e.field))
        elif (index := const_int(e.index)) is not None:
            steps.append(("index", index))
        else:
            return var, None
    return var, steps


def alias(a: Expr, b: Expr) -> bool | None:
    """Whether two lvalues are the same object (True), disjoint (False), or may overlap
    (None), from what the expressions show: distinct variables are disjoint, and so are
    distinct struct fields or constant indices of one variable."""
    (ra, pa), (rb, pb) = _access(a), _access(b)
    if ra is None or rb is None:
        return None
    if ra is not rb:
        return False
    if pa is None or pb is None:
        return None
    for sa, sb in zip(pa, pb):
        if sa != sb:
            return False if sa[0] == sb[0] != "union" else None
    return True if len(pa) == len(pb) else None


def _bit_field(lvalue: Expr) -> bool:
    return isinstance(lvalue, Member) and \
        lvalue.member.bit_width is not None


def _replace_read(e: Expr, read: str, value: Expr, lvalue: bool = False) -> Expr:
    """``e`` with the memory read whose text is ``read`` replaced by ``value``."""
    if not lvalue and repr(e) == read and isinstance(e, (Var, Deref, Member, Index)):
        return value
    if isinstance(e, AddrOf):
        inner = _replace_read(e.operand, read, value, lvalue=True)
        return e if inner is e.operand else replace(e, operand=inner)
    if isinstance(e, (Member, Index)):
        base = _replace_read(e.base, read, value, lvalue=True)
        if isinstance(e, Index):
            index = _replace_read(e.index, read, value)
            return e if base is e.base and index is e.index else \
                fold(replace(e, base=base, index=index))
        return e if base is e.base else replace(e, base=base)
    return _rebuild(e, lambda c: _replace_read(c, read, value))


# ---------------------------------------------------------------------------- the transfer


@dataclass(frozen=True)
class _Post:
    """What a backward step starts from: the postcondition, and where the path being
    walked says the edge's call or return goes."""

    post: Formula
    ctx: CallContext


class BackwardTransfer(EdgeTransfer[_Post, list[Formula]]):
    """Weakest preconditions (pre-images, weakened where exactness would cost a
    disjunction per literal) of CFA edges, as the cases of the one edge transfer
    (``analyses.transfer``); see the module docstring."""

    def __init__(self, program: Program, max_split: int = 3) -> None:
        self.program = program
        self.max_split = max_split

    def pre(self, post: Formula, edge: Edge, ctx: CallContext = NO_CALL) -> list[Formula]:
        """The cases (a disjunction) one of which holds before ``edge`` in every state
        from which ``edge`` can lead into ``post``; [] when none can."""
        return self.transfer(_Post(post, ctx), edge)

    def callee(self, s: _Post, edge: CallEdge) -> str | None:
        return s.ctx.callee  # the body the path enters, None where it enters none

    def assume(self, s: _Post, edge: AssumeEdge) -> list[Formula]:
        return _some(s.post.conjoin(edge.cond, edge.positive))

    def assign(self, s: _Post, edge: AssignEdge) -> list[Formula]:
        return self._assign(s.post, edge.lhs, edge.rhs)

    def declare(self, s: _Post, edge: DeclEdge, zero: bool) -> list[Formula]:
        var = edge.var
        if zero and var.type.is_scalar() and not in_memory(var):
            return self._assign(s.post, Var(var.type, var), Const(var.type, 0))
        return [s.post.keep(without={var})]  # a new object: no pointer leads into it yet

    def nondet(self, s: _Post, edge: NondetEdge) -> list[Formula]:
        return [self._havoc(s.post, edge.lhs)] if edge.lhs is not None else [s.post]

    def blank(self, s: _Post, edge: Edge) -> list[Formula]:
        return [s.post]  # blank, error and termination edges change no value

    def _assign(self, post: Formula, lhs: Expr, rhs: Expr | None) -> list[Formula]:
        """``lhs := rhs`` (None: an unknown value)."""
        if isinstance(lhs, Var) and not in_memory(lhs.var):
            if rhs is None:
                return [post.keep(without={lhs.var})]
            return _some(post.map(lambda e: substitute(e, {lhs.var: rhs})))
        if rhs is None or not lhs.type.is_scalar() or _bit_field(lhs):
            return [self._havoc(post, lhs)]
        return self._store(post, lhs, rhs)

    def _store(self, post: Formula, lhs: Expr, rhs: Expr) -> list[Formula]:
        """Morris' rule for ``lhs := rhs`` through memory (module docstring)."""
        hit: dict[str, Expr] = {}  # reads the store certainly overwrites: their new values
        split: dict[str, Expr] = {}  # reads it may overwrite, by text
        dropped: set[tuple[str, bool]] = set()
        for k, (e, _) in post.literals.items():
            reads: list[tuple[Expr, bool | None, Expr | None]] = []  # (read, alias, view)
            for r in memory_reads(e):
                same = alias(lhs, r)
                view = self._view(lhs, r, rhs) if same is None else None
                if same is not False and view is not False:
                    reads.append((r, same, view if isinstance(view, Expr) else None))
            exact = all((r.type == lhs.type or view is not None) and not _bit_field(r)
                        and not _bit_field(lhs)
                        and all(alias(lhs, inner) is False for inner in memory_reads(r, lvalue=True))
                        for r, _, view in reads)
            maybe = {repr(r): r for r, same, view in reads if same is None and view is None}
            if not exact or len(split.keys() | maybe.keys()) > self.max_split:
                dropped.add(k)
                continue
            hit.update({repr(r): view or rhs for r, same, view in reads if same or view is not None})
            split.update(maybe)
        base: Formula | None = post.keep(set(post.literals) - dropped)
        for text, value in hit.items():
            base = base.map(functools.partial(_replace_read, read=text, value=value)) if base is not None else None
        target = address(self.program, lhs)
        cases: list[Formula] = []
        for aliased in itertools.product((False, True), repeat=len(split)):
            case: Formula | None = base
            for (text, read), same in zip(split.items(), aliased):
                if case is None:
                    break
                case = case.conjoin(Binary(self.program.types.int, "==", target,
                                           address(self.program, read)), same)
                if same and case is not None:
                    case = case.map(functools.partial(_replace_read, read=text, value=rhs))
            cases.extend(_some(case))
        return cases

    def _view(self, lhs: Expr, read: Expr, rhs: Expr) -> Expr | bool | None:
        """What ``read`` holds after ``lhs := rhs`` where :func:`alias` cannot tell, when
        both lie in one variable at offsets their fields and constant indices fix (the
        members of a union): False if their bytes are disjoint, the bits of ``rhs`` it
        reads if it lies within ``lhs`` (both integers or floats: an address's bits are
        not the model's numeral), None otherwise."""
        a, b = self._placement(lhs), self._placement(read)
        if a is None or b is None or a[0] is not b[0]:
            return None
        (_, start, size), (_, at, width) = a, b
        if at + width <= start or start + size <= at:
            return False
        if not (start <= at and at + width <= start + size
                and self._plain(lhs.type) and self._plain(read.type)):
            return None
        source = rhs if rhs.type == lhs.type else Cast(lhs.type, rhs)
        return source if (at, width, read.type) == (start, size, lhs.type) else \
            BitView(read.type, source, at - start)

    def _placement(self, lvalue: Expr) -> tuple[Variable, int, int] | None:
        """The variable ``lvalue`` lies in, its byte offset there and its size, when every
        step to it is a field (no bit-field) or a constant index."""
        root, chosen = selectors(lvalue)
        if not isinstance(root, Var):
            return None
        offset = 0
        for e in chosen:
            if isinstance(e, Member):
                f = e.member
                if f.bit_width is not None:
                    return None
                offset += f.offset
            elif (index := const_int(e.index)) is not None:
                offset += index * self.program.types.sizeof(e.type)
            else:
                return None
        return root.var, offset, self.program.types.sizeof(lvalue.type)

    def _plain(self, t: CType) -> bool:
        """An integer or float whose value is all of its bytes (no ``_Bool``, no x87
        long double or ``__float128``, which the symbolic state keeps as a double)."""
        return isinstance(t, IntType) and not t.is_bool and t.bits == 8 * self.program.types.sizeof(t) \
            or isinstance(t, FloatType) and t.bits in (32, 64)

    def _havoc(self, post: Formula, lhs: Expr) -> Formula:
        """``lhs`` gets an unknown value: drop what may read it."""
        if isinstance(lhs, Var) and not in_memory(lhs.var):
            return post.keep(without={lhs.var})
        return self._forget(post, memory=lhs)

    @staticmethod
    def _forget(post: Formula, memory: Expr | None = None, everything: bool = False,
                globals_too: bool = False) -> Formula:
        """Drop the literals that read memory that may overlap ``memory``, or, if
        ``everything``, that read any memory; with ``globals_too`` also those that read
        a global in a register."""
        def stale(e: Expr) -> bool:
            if globals_too and any(v.is_global for v in variables_of(e)):
                return True
            if everything:
                return any(True for _ in memory_reads(e))
            return memory is not None and any(alias(memory, r) is not False for r in memory_reads(e))
        return Formula({k: lit for k, lit in post.literals.items() if not stale(lit[0])})

    def enter(self, s: _Post, edge: CallEdge, body: FunctionCFA,
              bindings: list[tuple[Variable, Expr | None]]) -> list[Formula]:
        registers = {p: a for p, a in bindings if a is not None and not in_memory(p)}
        pre = s.post.keep(without=set(body.locals) | set(body.params) - registers.keys())
        return _some(pre.map(lambda e: substitute(e, registers)))

    def outside(self, s: _Post, edge: CallEdge, name: str | None) -> list[Formula]:
        return [self._unknown_call(s.post, edge)]

    def _unknown_call(self, post: Formula, edge: CallEdge) -> Formula:
        """A call not entered: a library function as ``cfa.libc_model`` says (its result
        unknown; memory forgotten where it may write any; the globals in registers
        kept), anything at all for a body or pointer nobody resolved."""
        name = edge.callee if isinstance(edge.callee, str) else None
        library = name is not None and name not in self.program.functions
        writes = not library or libc_model.may_write(edge, name)
        pre = self._forget(post, everything=writes, globals_too=not library)
        return self._havoc(pre, edge.lhs) if edge.lhs is not None else pre

    def leave(self, s: _Post, edge: ReturnEdge) -> list[Formula]:
        call = s.ctx.call
        if call is None:
            return [s.post]
        cfa = self.program.functions[edge.src.function]
        pre = s.post.keep(without=set(cfa.params) | set(cfa.locals))
        if call.lhs is None:
            return [pre]
        value = edge.value
        if value is not None and value.type != call.lhs.type and call.lhs.type.is_scalar():
            value = Cast(call.lhs.type, value)
        return self._assign(pre, call.lhs, value if call.lhs.type.is_scalar() else None)


def _some(f: Formula | None) -> list[Formula]:
    return [] if f is None else [f]


# ---------------------------------------------------------------------------- formulas in states


class FrameState(SymbolicState):
    """A symbolic state that reads a local in the innermost frame of its own function
    (the plain state reads the top frame, which is the same for code in scope): a formula
    at a location may speak about the locals of the callers on its call stack. A frame
    entered through a function pointer is found only if the pointer resolves statically
    (``cfa.calls``); otherwise its locals are read in the top frame."""

    def _frame_index(self, v: Variable) -> int:
        for k in range(len(self.frames) - 1, 0, -1):
            if k - 1 < len(self.call_stack) and callee_name(self.call_stack[k - 1]) == v.function:
                return k
        if v.function == self.program.entry:
            return 0
        return -1

    @staticmethod
    def of(state: SymbolicState) -> FrameState:
        """A copy of ``state`` that reads locals in their own frames."""
        s = SymbolicState.copy(state)
        s.__class__ = FrameState
        return s  # type: ignore[return-value]


def truth(state: SymbolicState, literals: Iterable[Literal]) -> z3.BoolRef:
    """The conjunction of ``literals`` in ``state`` (evaluation may add side conditions,
    such as a divisor being nonzero, to its path condition)."""
    terms = [(sem.truth(state.eval(e), e.type), positive) for e, positive in literals]
    return z3.And(*[t if positive else z3.Not(t) for t, positive in terms])
