"""Field invariants: the values a heap struct's field can hold, and the branches none of
them can take.

Burstall's memory model gives every field of a struct its own array: a store to ``p->f``
changes field ``f`` of some struct and nothing else, so the values ``f`` can ever hold are
the values of the stores to it, whichever object they hit. A state machine kept in a
malloc'ed struct (openssl's ``s->state = 8464; ... if (s->state == 12292)``) then has a
finite set of states, and a case no store names is dead, together with the code only it
leads to. The invariant is flow-insensitive, so it also holds where no path leads; the
proof is the fixpoint (``BurstallModel.solve``) and reachability in the CFA without the
refuted edges (``reachable_locations``).

A field is tracked as the path of member names from a struct reached through a pointer
(``(*p).tmp.next_state``, the root being ``p``'s target). The model holds only where the
program keeps to it; the analysis checks that it does and claims nothing otherwise:

* *Every object of a root is fresh heap memory* (``heap_root``): no variable, array,
  union or other struct holds one; every pointer to one comes from a heap allocator
  (``fresh_heap``: ``malloc``, ``calloc``...)
  (a cast of the allocator's result, no cast from another pointer or an integer, no
  pointer arithmetic, no address of a member), large enough for the whole struct.
* *No read sees what the allocator left* (``stored_first``): ``calloc``'s memory
  reads 0, which the field's invariant then includes; ``malloc``'s holds whatever was
  there (freed memory, glibc's ``MALLOC_PERTURB_`` bytes), so a field of a root that
  ``malloc`` makes has an invariant only where the straight-line code after every such
  allocation stores it before anything reads it (openssl's ``s->state = 8464``), and
  is unknown otherwise.
* *No store reaches a field under another name* (``_stores_keep_to_the_model``): every
  store into memory goes through a pointer the program made soundly (from allocations,
  addresses and loads of such pointers; never from an integer, by arithmetic or read
  uninitialised), at constant in-bounds indices, and calls through pointers use such
  pointers too.
* *Every value comes from a store we see*: a store's values are computed over the same
  sets (constants, conversions and arithmetic of tracked fields and of integer registers
  initialised before every read), anything else is unknown.

On openssl's ``s3_srvr`` tasks it refutes the cases of ``s->state`` that no store names
(and the register ``blastFlag``'s impossible values).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import product
from math import prod
from typing import Callable, Iterator

from cooptest.cfa import libc_model
from cooptest.cfa.calls import address_taken, call_targets, callee_name, callees, expressions
from cooptest.cfa.ctype import ArrayType, CType, IntType, PointerType, StructType
from cooptest.cfa.fold import const_int, fold
from cooptest.cfa.ir import (AddrOf, AssignEdge, AssumeEdge, Binary, CallEdge, Cast, Const,
                             Deref, Edge, Expr, FuncRef, Index, Member, NondetEdge,
                             Program, ReturnEdge, StringLit, Unary, Var, Variable, in_memory,
                             selectors)
from cooptest.core.analysis import AnalysisState, Job, Outcome, finish
from cooptest.core.board_view import Board
from cooptest.core.registry import Settings

ORIGIN = "fields"
MAX_VALUES = 256  # a larger set is as good as unknown, and costly to combine

Values = frozenset[int] | None  # None: any value
FieldKey = tuple[StructType, tuple[str, ...]]  # root struct, member path
Place = FieldKey | Variable


class Refused(Exception):
    """The program leaves Burstall's model (the message says where)."""


@dataclass
class FieldState(AnalysisState):
    """The proof of every goal the invariants decide, by goal id (None: not computed
    yet, or the program leaves the model and ``why_not`` says where)."""

    proofs: dict[str, str] | None = None



# ---------------------------------------------------------------------------- places


def field_key(e: Expr) -> FieldKey | None:
    """The tracked field ``e`` denotes: a member path on ``*p`` for a pointer ``p`` to a
    struct, through struct members only (no unions, no array elements)."""
    path: list[str] = []
    while isinstance(e, Member):
        if not isinstance(e.base.type, StructType) or e.base.type.is_union:
            return None
        path.append(e.field)
        e = e.base
    if not path or not isinstance(e, Deref) or not isinstance(e.type, StructType):
        return None
    return e.type, tuple(reversed(path))


def _root(e: Expr) -> StructType | None:
    """The struct type of ``*p`` when the lvalue ``e`` lies in it (members and elements)."""
    root, _ = selectors(e)
    return root.type if isinstance(root, Deref) and isinstance(root.type, StructType) else None


def _contains(t: CType, s: StructType, seen: set[int]) -> bool:
    """Whether an object of type ``t`` holds an ``s`` (itself, an element or a member)."""
    if t is s:
        return True
    if isinstance(t, ArrayType):
        return _contains(t.elem, s, seen)
    if isinstance(t, StructType) and id(t) not in seen:
        seen.add(id(t))
        return any(_contains(f.type, s, seen) for f in t.fields)
    return False


def _points_to(t: CType, root: StructType) -> bool:
    return isinstance(t, PointerType) and t.target is root


def _base_pointer(e: Expr) -> Expr | None:
    """The pointer ``p`` of an lvalue ``(*p).a.b``."""
    while isinstance(e, Member):
        e = e.base
    return e.pointer if isinstance(e, Deref) else None


def _store(edge: Edge) -> Expr | None:
    """The lvalue ``edge`` writes, if any."""
    return edge.lhs if isinstance(edge, (AssignEdge, NondetEdge, CallEdge)) else None


def _initialised(program: Program) -> dict[int, frozenset[Variable]]:
    """For every edge (by id), the register locals written on every path to it: a forward
    must-analysis per function (parameters are written by the call)."""
    out: dict[int, frozenset[Variable]] = {}
    for cfa in program.functions.values():
        at: dict[int, frozenset[Variable]] = {cfa.entry.id: frozenset(cfa.params)}
        work = [cfa.entry]
        while work:
            loc = work.pop()
            for edge in loc.leaving:
                lhs = _store(edge)
                after = at[loc.id] | ({lhs.var} if isinstance(lhs, Var) else set())
                old = at.get(edge.dst.id)
                new = after if old is None else old & after
                if new != old:
                    at[edge.dst.id] = new
                    work.append(edge.dst)
        for loc in cfa.locations:
            for edge in loc.leaving:
                out[id(edge)] = at.get(loc.id, frozenset(cfa.locals))  # unreachable: all
    return out


# ---------------------------------------------------------------------------- the model


class BurstallModel:
    """The checks of the module docstring and the fixpoint of the field invariants."""

    def __init__(self, program: Program) -> None:
        self.program = program
        # Only what a chain of calls from main may enter runs (calls through pointers
        # made unsoundly are refused below): the unused inline functions of system
        # headers (``__bswap_16`` calling ``__builtin_bswap16``) do not count.
        self.edges = [edge for name in sorted(callees(program, {program.entry}))
                      for edge in program.functions[name].edges()]
        self.init = _initialised(program)
        self.addressed = address_taken(program)
        self.params: dict[Variable, list[tuple[Edge, Expr | None]]] = {}
        blind = self._library()
        self._bind_parameters()
        self.untrusted = self._untrusted_places(blind)
        self._stores_keep_to_the_model()
        self.values: dict[Place, Values] = {}

    # -- whole-program checks

    def _library(self) -> set[Place | None]:
        """Refused: a library function (``cfa.libc_model``) that may write memory other
        than a counted write into a variable, or free some (then memory is reused and
        stale pointers alias). A write into a variable (``memcpy(&v, src, n)`` within
        ``v``) makes what it writes unknown: pointers read from memory then count as
        made unsoundly."""
        blind: set[Place | None] = set()
        for edge in self.edges:
            if not isinstance(edge, CallEdge):
                continue
            name = callee_name(edge)
            if name is None or name in self.program.functions or fresh_heap(name):
                continue
            written = libc_model.writes(edge, name)
            if written == ():
                continue
            if written is not None and len(written) == 1 and self._into_variable(edge, written[0]):
                blind.add(None)
                continue
            raise Refused(f"line {edge.line}: {name}() may write memory the model does not follow")
        return blind

    def _into_variable(self, edge: CallEdge, write: libc_model.Write) -> bool:
        if write.count is None or write.ends:
            return False
        dest = edge.args[write.argument]
        while isinstance(dest, Cast):
            dest = dest.operand
        size = const_int(edge.args[write.count])
        return isinstance(dest, AddrOf) and isinstance(dest.operand, Var) and size is not None \
            and 0 <= size <= self.program.types.sizeof(dest.operand.type) \
            and not isinstance(edge.lhs, Expr)

    def _bind_parameters(self) -> None:
        for edge in self.edges:
            if isinstance(edge, CallEdge):
                for target in call_targets(self.program, edge, self.addressed):
                    for param, arg in self.program.functions[target].bind(edge.args):
                        self.params.setdefault(param, []).append((edge, arg))

    def _place(self, lvalue: Expr) -> Place | None:
        """Where a store or load of ``lvalue`` goes, as the trust analysis tells places
        apart (None: some other memory)."""
        if isinstance(lvalue, Var):
            return lvalue.var
        return field_key(lvalue)

    def _untrusted_places(self, blind: set[Place | None]) -> set[Place | None]:
        """The places that may hold a pointer the program did not make soundly (from an
        integer, by arithmetic, read uninitialised or through such a pointer): a least
        fixpoint over every store and parameter binding."""
        untrusted = set(blind)
        changed = True
        while changed:
            changed = False
            for edge in self.edges:
                lhs = _store(edge)
                if lhs is None or not isinstance(lhs.type, PointerType):
                    continue
                place = self._place(lhs)
                if place in untrusted:
                    continue
                if isinstance(edge, AssignEdge):
                    ok = self.trusted(edge.rhs, edge, untrusted)
                elif isinstance(edge, CallEdge):
                    targets = call_targets(self.program, edge, self.addressed)
                    ok = fresh_heap(callee_name(edge)) or bool(targets) and all(
                        self.trusted(r.value, r, untrusted)
                        for t in targets for r in self.program.functions[t].edges()
                        if isinstance(r, ReturnEdge) and r.value is not None)
                else:
                    ok = False  # a nondet pointer
                if not ok:
                    untrusted.add(place)
                    changed = True
            for param, bindings in self.params.items():
                if isinstance(param.type, PointerType) and param not in untrusted and not all(
                        arg is not None and self.trusted(arg, edge, untrusted)
                        for edge, arg in bindings):
                    untrusted.add(param)
                    changed = True
        return untrusted

    def trusted(self, e: Expr, edge: Edge, untrusted: set[Place | None]) -> bool:
        """Whether the pointer ``e`` (read at ``edge``) was made soundly."""
        f = fold(e)
        if isinstance(f, Const):
            return f.value == 0
        if isinstance(e, (FuncRef, StringLit)):
            return True
        if isinstance(e, Cast):
            if not isinstance(e.operand.type, (PointerType, ArrayType)):
                return const_int(e.operand) == 0  # the null pointer, or made from an integer
            return self.trusted(e.operand, edge, untrusted)
        if isinstance(e, AddrOf):
            return self._lvalue_sound(e.operand, edge, untrusted)
        if isinstance(e, Var):
            v = e.var
            if v.is_global or v.function is None:
                return v not in untrusted
            if in_memory(v):
                return False  # a local in memory: maybe never written
            return v not in untrusted and v in self.init[id(edge)]
        if isinstance(e, (Member, Index, Deref)):
            base: Expr = e
            while isinstance(base, (Member, Index)):
                base = base.base
            on_stack = isinstance(base, Var) and not base.var.is_global and base.var.function
            return not on_stack and self._place(e) not in untrusted \
                and self._lvalue_sound(e, edge, untrusted)
        return False  # arithmetic, calls' results by other names, anything else

    def _lvalue_sound(self, e: Expr, edge: Edge, untrusted: set[Place | None]) -> bool:
        """Whether the lvalue ``e`` names memory the program may access: every pointer on
        the way made soundly, every index a constant within its array."""
        root, chosen = selectors(e)
        for s in chosen:
            if isinstance(s, Index):
                index = const_int(s.index)
                length = s.base.type.length if isinstance(s.base.type, ArrayType) else None
                if index is None or length is None or not 0 <= index < length:
                    return False
        if isinstance(root, Deref):
            return self.trusted(root.pointer, edge, untrusted)
        return isinstance(root, (Var, StringLit))

    def _stores_keep_to_the_model(self) -> None:
        """Refused: a store through a pointer not made soundly or at a computed index
        (it may land in any object), or a call through such a function pointer."""
        for edge in self.edges:
            lhs = _store(edge)
            if lhs is not None and not self._lvalue_sound(lhs, edge, self.untrusted):
                raise Refused(f"line {edge.line}: a store to {lhs!r} may land anywhere")
            if isinstance(edge, CallEdge) and callee_name(edge) is None:
                assert not isinstance(edge.callee, str)  # a name is callee_name's
                if not self.trusted(edge.callee, edge, self.untrusted):
                    raise Refused(f"line {edge.line}: a call through a pointer made unsoundly")

    # -- the struct types whose objects are fresh heap memory

    def heap_root(self, root: StructType) -> str | None:
        """Why objects of ``root`` may not be fresh heap memory each reached only
        through pointers a heap allocator made (None: they are)."""
        if root.is_union:
            return f"{root} is a union"
        for v in [*self.program.globals, *(x for f in self.program.functions.values()
                                           for x in (*f.params, *f.locals))]:
            if _contains(v.type, root, set()):
                return f"variable {v.source_name} holds a {root}"
        for edge in self.edges:
            for e in expressions(edge):
                for sub in e.walk():
                    if (why := self._leaves_heap(sub, root, edge)) is not None:
                        return f"line {edge.line}: {why}"
            lhs = _store(edge)
            if lhs is not None and _root(lhs) is root and not isinstance(lhs.type, (IntType, PointerType)):
                return f"line {edge.line}: a store of a whole {lhs.type} into a {root}"
            if isinstance(edge, NondetEdge) and lhs is not None \
                    and isinstance(lhs.type, PointerType) and lhs.type.target is root:
                return f"line {edge.line}: a nondeterministic {root} pointer"
        return None

    def _leaves_heap(self, e: Expr, root: StructType, edge: Edge) -> str | None:
        if isinstance(e.type, (StructType, ArrayType)) and e.type is not root \
                and _contains(e.type, root, set()):
            return f"a {e.type} holds a {root}"
        if isinstance(e, AddrOf) and _root(e.operand) is root and not isinstance(e.operand, Deref):
            return f"the address of a member of a {root}"
        if isinstance(e, Binary) and any(_points_to(x.type, root) for x in (e.left, e.right)) \
                and e.op not in ("==", "!=", "<", "<=", ">", ">="):
            return f"arithmetic on a {root} pointer"
        if isinstance(e, Cast) and _points_to(e.operand.type, root) != _points_to(e.type, root) \
                and not isinstance(e.type, IntType):
            if _points_to(e.type, root) and (const_int(e.operand) == 0 or self._allocation(e, edge)):
                return None
            return f"a cast between {e.operand.type} and {e.type}"
        return None

    def _allocation(self, cast: Expr, edge: Edge) -> bool:
        """Whether ``cast`` converts a fresh allocation: ``p = (T *) tmp`` into a register
        or a field, where ``tmp`` is a register only ever written by an allocator."""
        if not (isinstance(edge, AssignEdge) and edge.rhs is cast and isinstance(cast, Cast)
                and isinstance(cast.operand, Var) and self._place(edge.lhs) is not None
                and not (isinstance(edge.lhs, Var) and in_memory(edge.lhs.var))):
            return False
        tmp = cast.operand.var
        writes_of, _ = self._registers
        writes = writes_of.get(id(tmp), [])
        return bool(writes) and not in_memory(tmp) and all(
            isinstance(w, CallEdge) and fresh_heap(callee_name(w)) for w in writes) \
            and self._only_cast_to(tmp, cast.type)

    def _only_cast_to(self, tmp: Variable, pointer: CType) -> bool:
        """Whether every read of ``tmp`` is ``P = (pointer) tmp``: one allocation seen
        as two struct types (``a = (struct A *) t; b = (struct B *) t``) would make
        fields of different types alias."""
        _, reads_of = self._registers
        return all(isinstance(edge, AssignEdge) and isinstance(edge.rhs, Cast)
                   and edge.rhs.operand is sub and edge.rhs.type == pointer
                   for edge, sub in reads_of.get(id(tmp), []))

    @cached_property
    def _registers(self) -> tuple[dict[int, list[Edge]], dict[int, list[tuple[Edge, Var]]]]:
        """The edges storing into each variable, and its reads outside the stored
        lvalue (keyed by the ``Variable``'s identity): one walk of the program for all
        the casts ``_allocation`` checks, which was quadratic (0.8 s on openssl)."""
        writes: dict[int, list[Edge]] = {}
        reads: dict[int, list[tuple[Edge, Var]]] = {}
        for edge in self.edges:
            lhs = _store(edge)
            if isinstance(lhs, Var):
                writes.setdefault(id(lhs.var), []).append(edge)
            for e in expressions(edge):
                if e is not lhs:
                    for sub in e.walk():
                        if isinstance(sub, Var):
                            reads.setdefault(id(sub.var), []).append((edge, sub))
        return writes, reads

    def allocations(self, root: StructType) -> list[CallEdge]:
        """The allocator calls that make the objects of a heap root (``P = (T *) tmp``,
        ``tmp`` written by them; the root passed ``heap_root``)."""
        temps = {id(edge.rhs.operand.var) for edge in self.edges  # type: ignore[attr-defined]
                 if isinstance(edge, AssignEdge) and isinstance(edge.rhs, Cast)
                 and _points_to(edge.rhs.type, root) and self._allocation(edge.rhs, edge)}
        return [w for w in self.edges
                if isinstance(w, CallEdge) and isinstance(w.lhs, Var) and id(w.lhs.var) in temps]

    # -- the invariants

    def tracked_fields(self, kinds: tuple[type, ...] = (IntType,)) -> set[FieldKey]:
        """The fields of types ``kinds`` (no bit-fields) of the heap roots the program
        reads."""
        wanted: dict[StructType, set[tuple[str, ...]]] = {}
        for edge in self.edges:
            for e in expressions(edge):
                for sub in e.walk():
                    if (key := field_key(sub)) is not None and isinstance(sub.type, kinds) \
                            and not _bit_field(sub):
                        wanted.setdefault(key[0], set()).add(key[1])
        out: set[FieldKey] = set()
        for root, paths in wanted.items():
            if root.size is not None and self.heap_root(root) is None and all(
                    (n := _allocated_bytes(call)) is not None and n >= root.size
                    for call in self.allocations(root)):
                out |= {(root, path) for path in paths}
        return out

    def stored_first(self, key: FieldKey) -> bool:
        """Whether no read of field ``key`` sees what the allocator left there: every
        object of its root comes from ``calloc`` (zeroes), or from a ``malloc`` whose
        straight-line code next stores the field through the new pointer, calling only
        allocators and reading the field nowhere on the way. ``malloc``'s memory holds
        whatever was there before (freed memory, ``MALLOC_PERTURB_``): no invariant may
        take it for 0."""
        return all(_zeroed(call) or _stores_before_reads(call, key)
                   for call in self.allocations(key[0]))
    def solve(self, keys: set[FieldKey]) -> dict[Place, Values]:
        """The least fixpoint of the values of ``keys`` and of the integer registers."""
        registers = {v for v in [*self.program.globals,
                                 *(x for f in self.program.functions.values()
                                   for x in (*f.params, *f.locals))]
                     if isinstance(v.type, IntType) and not in_memory(v)}
        uninitialised = self._read_uninitialised(registers)
        values: dict[Place, Values] = {v: frozenset({0}) if v.is_global or v.function is None
                                       else frozenset() for v in registers}
        values.update({v: None for v in uninitialised})
        values.update({k: frozenset({0}) if self.stored_first(k) else None for k in keys})
        self.values = values
        changed = True
        while changed:
            changed = False
            for place, new in self._definitions(registers, keys):
                old = values[place]
                if old is None:
                    continue
                joined = None if new is None or len(old | new) > MAX_VALUES else old | new
                if joined != old:
                    values[place] = joined
                    changed = True
        return values

    def _definitions(self, registers: set[Variable], keys: set[FieldKey]) -> Iterator[tuple[Place, Values]]:
        """Every (place, values of one definition of it) under the current values."""
        for edge in self.edges:
            lhs = _store(edge)
            if lhs is None:
                continue
            place = self._place(lhs)
            if place not in registers and place not in keys:
                continue
            if isinstance(edge, AssignEdge):
                yield place, self.evaluate(edge.rhs, edge)
            elif isinstance(edge, CallEdge):
                targets = call_targets(self.program, edge, self.addressed)
                returns = [r for t in targets for r in self.program.functions[t].edges()
                           if isinstance(r, ReturnEdge)]
                if callee_name(edge) is None or not targets \
                        or any(r.value is None for r in returns):
                    yield place, None
                for r in returns:
                    yield place, self.evaluate(r.value, r)  # type: ignore[arg-type]
            else:
                yield place, None
        for param, bindings in self.params.items():
            if param in registers:
                for edge, arg in bindings:
                    yield param, None if arg is None else self.evaluate(arg, edge)

    def _read_uninitialised(self, registers: set[Variable]) -> set[Variable]:
        out: set[Variable] = set()
        for edge in self.edges:
            lhs = _store(edge)
            for e in expressions(edge):
                for sub in e.walk():
                    if isinstance(sub, Var) and sub is not lhs and sub.var in registers \
                            and not sub.var.is_global and sub.var.function is not None \
                            and sub.var not in self.init[id(edge)]:
                        out.add(sub.var)
        return out

    def evaluate(self, e: Expr, edge: Edge) -> Values:
        """The values the integer expression ``e`` may have at ``edge`` (None: any)."""
        c = const_int(e)
        if c is not None:
            return frozenset({c})
        if not isinstance(e.type, IntType):
            return None
        if isinstance(e, Var):
            return self.values.get(e.var)
        if (key := field_key(e)) is not None:
            pointer = e
            while isinstance(pointer, Member):
                pointer = pointer.base
            if key not in self.values or \
                    not self.trusted(pointer.pointer, edge, self.untrusted):  # type: ignore[attr-defined]
                return None
            return self.values[key]
        if isinstance(e, Cast) and isinstance(e.operand.type, IntType):
            return self._combine(e, (e.operand,), edge, lambda a: Cast(e.type, a[0]))
        if isinstance(e, Unary):
            return self._combine(e, (e.operand,), edge, lambda a: Unary(e.type, e.op, a[0]))
        if isinstance(e, Binary) and all(isinstance(x.type, IntType) for x in (e.left, e.right)):
            return self._combine(e, (e.left, e.right), edge,
                                 lambda a: Binary(e.type, e.op, a[0], a[1]))
        return None

    def _combine(self, e: Expr, operands: tuple[Expr, ...], edge: Edge,
                 rebuild: Callable[[list[Const]], Expr]) -> Values:
        evaluated = [self.evaluate(x, edge) for x in operands]
        sets = [v for v in evaluated if v is not None]
        if len(sets) < len(evaluated) or prod(len(v) for v in sets) > MAX_VALUES:
            return None
        out: set[int] = set()
        for combo in product(*sets):
            r = const_int(rebuild([Const(x.type, v) for x, v in zip(operands, combo)]))
            if r is None:
                return None  # undefined (a division by zero, an overlong shift)
            out.add(r)
        return frozenset(out)


def fresh_heap(name: str | None) -> bool:
    """Whether ``name`` allocates a fresh object on the heap (``cfa.libc_model``): not
    one that ends with its caller's frame, nor one that takes over another object."""
    a = libc_model.function(name).allocation
    return a is not None and not a.frame and not a.resizes


def _zeroed(call: CallEdge) -> bool:
    a = libc_model.function(callee_name(call)).allocation
    return a is not None and a.zeroed


def _stores_before_reads(call: CallEdge, key: FieldKey, steps: int = 256) -> bool:
    """Whether the straight-line code after the allocation ``call`` stores field
    ``key`` through the new pointer before anything reads the field or calls a
    function other than an allocator."""
    assert isinstance(call.lhs, Var)
    tmp, pointers = call.lhs.var, set()  # the places that hold the new object
    loc = call.dst
    for _ in range(steps):
        if len(loc.leaving) != 1:
            return False
        edge = loc.leaving[0]
        lhs = _store(edge)
        if isinstance(edge, CallEdge) and not fresh_heap(callee_name(edge)):
            return False
        reads = [e for e in expressions(edge) if e is not lhs]
        if lhs is not None and (pointer := _base_pointer(lhs)) is not None:
            reads.append(pointer)
        if any(isinstance(sub, Member) and field_key(sub) == key for e in reads for sub in e.walk()):
            return False
        if lhs is not None and field_key(lhs) == key and (alias := _alias(_base_pointer(lhs))) is not None \
                and alias in pointers:
            return True
        if isinstance(edge, AssignEdge) and isinstance(edge.rhs, Cast) \
                and isinstance(edge.rhs.operand, Var) and edge.rhs.operand.var is tmp:
            if (alias := _alias(edge.lhs)) is not None:
                pointers.add(alias)
        elif lhs is not None:
            pointers.discard(_alias(lhs))
        loc = edge.dst
    return False


def _alias(e: Expr | None) -> object:
    """What names the place ``e``, a pointer the program stores an allocation in: its
    register, or its field (which no other name reaches in Burstall's model)."""
    if isinstance(e, Var):
        return e.var
    if isinstance(e, Member):
        return field_key(e)
    return None


def _bit_field(e: Expr) -> bool:
    assert isinstance(e, Member) and isinstance(e.base.type, StructType)
    return e.base.type.field(e.field).bit_width is not None


def _allocated_bytes(call: CallEdge) -> int | None:
    sizes = [const_int(a) for a in call.args]
    if None in sizes or not sizes:
        return None
    return prod(sizes)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- cells


class HeapCells:
    """The integer and pointer fields of heap structs made once per run, each a single
    memory cell that a value analysis may track as it tracks a global variable (strong
    updates included).

    Burstall's model (above) says a store to ``p->f`` changes field ``f`` and nothing
    else; if, moreover, the program makes at most one object of the root (one allocator
    call, in ``main``, on no cycle, ``main`` never called), every ``p->f`` names the same
    cell, which reads 0 until its first store (fresh heap memory; before the allocation,
    a sound pointer to the root is null and a read of it crashes). A read counts only
    through a pointer made soundly; anything else reads as unknown."""

    def __init__(self, program: Program) -> None:
        self.keys: frozenset[FieldKey] = frozenset()
        try:
            model = BurstallModel(program)
        except Refused:
            return
        self.model = model
        keys = model.tracked_fields((IntType, PointerType))
        once = _made_once(program, {key[0] for key in keys}, model)
        self.keys = frozenset(key for key in keys if key[0] in once)

    def place(self, e: Expr, edge: Edge) -> FieldKey | None:
        """The cell ``e`` reads or writes at ``edge``, if it is one of ours."""
        if not self.keys or (key := field_key(e)) not in self.keys:
            return None
        pointer = _base_pointer(e)
        return key if pointer is not None and self.model.trusted(
            pointer, edge, self.model.untrusted) else None

    def cells_of(self, e: Expr, edge: Edge) -> set[FieldKey]:
        """The cells the expression ``e`` reads at ``edge``."""
        if not self.keys:
            return set()
        return {key for sub in e.walk() if isinstance(sub, Member)
                and (key := self.place(sub, edge)) is not None}


def _made_once(program: Program, roots: set[StructType], model: BurstallModel) -> set[StructType]:
    """The roots whose objects one allocator call makes, in ``main``, on no cycle of
    its CFA, ``main`` being called by nobody: at most one object per run."""
    if any(isinstance(edge, CallEdge) and program.entry in call_targets(program, edge, model.addressed)
           for edge in model.edges):
        return set()
    out = set()
    for root in roots:
        calls = model.allocations(root)
        if len(calls) == 1 and calls[0].src.function == program.entry and not _on_cycle(calls[0]):
            out.add(root)
    return out


def _on_cycle(edge: Edge) -> bool:
    """Whether ``edge``'s source is reachable from its target within the function."""
    seen, work = {edge.dst.id}, [edge.dst]
    while work:
        loc = work.pop()
        if loc is edge.src:
            return True
        for e in loc.leaving:
            if e.dst.id not in seen:
                seen.add(e.dst.id)
                work.append(e.dst)
    return False


# ---------------------------------------------------------------------------- the proofs


def refuted_edges(program: Program) -> tuple[dict[int, str], str | None]:
    """The assume edges (by id) no value of the field invariants lets pass, each with
    its proof, or why the program leaves the model."""
    try:
        model = BurstallModel(program)
    except Refused as e:
        return {}, str(e)
    keys = model.tracked_fields()
    if not keys:
        return {}, "no branch reads a field of fresh heap structs"
    values = model.solve(keys)
    out: dict[int, str] = {}
    for edge in model.edges:
        if not isinstance(edge, AssumeEdge):
            continue
        truth = model.evaluate(edge.cond, edge)
        if truth is None or not truth:
            continue
        if truth == {0} if edge.positive else 0 not in truth:
            read = sorted({_describe(k, values[k]) for sub in edge.cond.walk()
                           if (k := field_key(sub)) in keys})
            out[id(edge)] = f"{ORIGIN}: {', '.join(read) or 'the values read'} never pass {edge!r}"
    return out, None


def field_name(key: FieldKey) -> str:
    """A heap cell as a reader names it: ``struct tag.member.member``."""
    return f"{key[0]}.{'.'.join(key[1])}"


def _describe(key: FieldKey, values: Values) -> str:
    shown = sorted(values or ())
    text = ", ".join(map(str, shown[:8])) + (", ..." if len(shown) > 8 else "")
    return f"{field_name(key)} in {{{text}}}"


def reachable_locations(program: Program, refuted: dict[int, str]) -> set[int]:
    """The locations (by id) some path from the entry may reach without a refuted edge;
    a call reaches its callees' entries and, as if it returned, its successor."""
    addressed = address_taken(program)
    start = program.main.entry
    seen, work = {start.id}, [start]
    while work:
        loc = work.pop()
        for edge in loc.leaving:
            if id(edge) in refuted:
                continue
            nxt = [edge.dst]
            if isinstance(edge, CallEdge):
                nxt += [program.functions[t].entry
                        for t in call_targets(program, edge, addressed)]
            for n in nxt:
                if n.id not in seen:
                    seen.add(n.id)
                    work.append(n)
    return seen


class FieldAnalysis:
    """Proves the goals that only refuted branches lead to (the module docstring)."""

    name = ORIGIN

    def run(self, board: Board, job: Job) -> Outcome:
        state = job.state if isinstance(job.state, FieldState) else FieldState(self.name)
        if state.proofs is None and state.why_not is None:
            refuted, state.why_not = refuted_edges(board.program)
            if state.why_not is None:
                state.proofs = _proofs(board.program, refuted)
        for g in sorted(board.open(job.goals)):
            if state.proofs and g in state.proofs:
                board.prove_infeasible(g, state.proofs[g])
        return finish(board, job, state)


def _proofs(program: Program, refuted: dict[int, str]) -> dict[str, str]:
    reachable = reachable_locations(program, refuted)
    out: dict[str, str] = {}
    for goal in program.goals():
        if id(goal.edge) in refuted:
            out[goal.id] = refuted[id(goal.edge)]
        elif goal.edge.src.id not in reachable:
            out[goal.id] = f"{ORIGIN}: only refuted branches lead to line {goal.line}"
    return out


def from_settings(settings: Settings) -> FieldAnalysis:
    return FieldAnalysis()


__all__ = ["BurstallModel", "FieldAnalysis", "FieldState", "HeapCells", "refuted_edges", "from_settings"]
