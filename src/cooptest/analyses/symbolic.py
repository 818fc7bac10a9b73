"""Symbolic execution of CFA edges: program memory as z3 terms along one path.

One state serves every client: concolic testing's symbolic execution of a run (with a
concretisation hook), the check of counterexample paths in CEGAR, and the strongest post
inside a block of predicate analysis. Terms are built over input symbols and fresh
symbols, not SSA indices.

Memory model. Scalars whose address is never taken live in registers (one term per
variable). Aggregates and address-taken variables live in byte-addressed objects, each
with a distinct concrete base address far from the others, so a pointer is a plain
bit-vector and ``*(base + symbolic offset)`` stays exact: the object is found from the
constant part of the address, the offset is a z3 array index. An address whose object
cannot be found is concretised through the hook when there is one (concolic testing,
as CUTE does), and otherwise makes the state havoc all memory: an over-approximation,
flagged by ``imprecise``, so that an UNSAT path condition remains a proof while a SAT
one must be confirmed natively. Anything read before it is written is a fresh symbol,
which is also what makes ``havoc_at`` (a state in the middle of a program) sound.

The layout is the model's, not the native one: where the C program can observe it (the
order of two distinct objects or functions, the integer value of an address) an address
is read as its native value instead, a fresh base per object, known only to lie in user
space, plus the exact offset (``_native``). Addresses within one object stay exact, and
distinct objects stay unequal, except one past the end of an object and the start of
another, which may be the same address natively.

Copies share. Concolic testing keeps the state after many decisions of a path so that the
next path resumes there; on a deep recursion a full copy of every frame and object per
snapshot is quadratic in the path's length, in time and in memory. So a copy shares the
frames and memory objects of its original, and each state copies one before its first
write to it (``owner``: the state's ``_token``, renewed on both sides by ``copy``).
"""
from __future__ import annotations

import bisect
import itertools
import math
from dataclasses import dataclass, field
from typing import Callable, ClassVar, Self

import z3

from cooptest.analyses import semantics as sem
from cooptest.analyses import strings, terms
from cooptest.analyses.transfer import EdgeTransfer
from cooptest.cfa.calls import callee_name
from cooptest.cfa import libc_model
from cooptest.cfa.ctype import (ArrayType, CType, FloatType, FunctionType, IntType,
                                PointerType, StructType)
from cooptest.cfa.ir import (AddrOf, AssignEdge, AssumeEdge, Binary, BitView, BlankEdge,
                             CallEdge, Cast, Const, DeclEdge, Deref, Edge, ErrorEdge, Expr,
                             FuncRef, FunctionCFA, Index, Location, Member, NondetEdge, Program, ReturnEdge,
                             StringLit, TerminateEdge, Unary, Var, Variable, in_memory)
from cooptest.harness import ctype_tables

_names = itertools.count()
_tokens = itertools.count(1)  # owners of frames and memory objects (see "Copies share")
GAP = 1 << 16  # bytes between objects: offsets within an object never reach the next
MAX_BYTE_LOOP = 4096  # larger block copies/fills havoc the object instead
FUNCTION_BASE = 0x7F000000
USER_SPACE = {32: (4096, 0xFFFFE000), 64: (4096, 1 << 57)}  # native object addresses lie within
LAYOUT_OPS = ("==", "!=", "<", "<=", ">", ">=", "-")  # pointer operations that see the layout
STRING_BYTES = 32  # the bytes of a ``__VERIFIER_nondet_string()`` input; a NUL follows them


@dataclass(frozen=True)
class Pinning:
    """What a concolic state reads as its value in the run, with no constraint on the
    inputs that keeps it, as CREST does (``_pin``): ``addresses``, an address that depends
    on inputs (CREST's Load and Store); ``library``, the arguments of a C library call
    and every byte the call reads (CREST does not instrument the library, which so
    computes on values). A path that pins anything is imprecise: it proves nothing."""

    addresses: bool = False
    library: bool = False


def fresh_name(prefix: str) -> str:
    return f"{prefix}!{next(_names)}"


@dataclass
class Input:
    """One consumed test input: its symbol, the type it is read as, and where."""

    symbol: z3.ExprRef
    type: CType
    edge: NondetEdge


class FreshBytes:
    """Bytes nobody knows, named when they became unknown and made a z3 array on their
    first read. An unresolved call havocs every object of the program, and on a large
    one most are never read again before the next: making their arrays cost more than
    the rest of grep's symbolic executions. The name is taken at the havoc, so a state that reads
    the bytes makes the very array the havoc would have made."""

    __slots__ = ("name", "ptr_bits", "_array")

    def __init__(self, name: str, ptr_bits: int) -> None:
        self.name, self.ptr_bits = name, ptr_bits
        self._array: z3.ArrayRef | None = None

    def array(self) -> z3.ArrayRef:
        if self._array is None:
            self._array = z3.Array(self.name, z3.BitVecSort(self.ptr_bits), z3.BitVecSort(8))
        return self._array


Cell = tuple[z3.ExprRef, int, int]
"""A byte written at a concrete address: the term stored, which byte of it, its bytes."""


@dataclass
class MemoryObject:
    """Content of one object: bytes written at concrete addresses (``cells``, the fast
    common case), or, once a symbolic address was written, a z3 array (``array``).
    ``default`` is what unwritten bytes hold: zero (globals, calloc) or fresh."""

    base: int
    size: int
    name: str
    default: z3.ArrayRef | FreshBytes
    cells: dict[int, Cell] = field(default_factory=dict)  # by address
    array: z3.ArrayRef | None = None
    owner: int = 0  # the state that may write it in place
    null: z3.BoolRef | None = None  # an allocation that may have failed: "it returned NULL"
    table: ctype_tables.Table | None = None  # glibc's read-only table it holds: read by its runs

    def copy(self, owner: int) -> MemoryObject:
        return MemoryObject(self.base, self.size, self.name, self.default, dict(self.cells), self.array,
                            owner, self.null, self.table)

    def unwritten(self) -> z3.ArrayRef:
        """What the bytes no store reached hold."""
        return self.default.array() if isinstance(self.default, FreshBytes) else self.default


@dataclass
class Frame:
    """The locals of one active call: register values and memory objects."""

    values: dict[Variable, z3.ExprRef] = field(default_factory=dict)
    objects: dict[Variable, int] = field(default_factory=dict)  # variable -> object base
    owner: int = 0  # the state that may write it in place

    def copy(self, owner: int) -> Frame:
        return Frame(dict(self.values), dict(self.objects), owner)


@dataclass(frozen=True)
class Frozen:
    """A state kept to continue from (:meth:`SymbolicState.frozen`)."""

    state: SymbolicState
    lengths: tuple[int, ...]  # of the state's append-only lists when it was kept

    def thaw(self) -> SymbolicState:
        """A state to continue from: the kept one, its lists truncated to their lengths."""
        s = self.state._share()
        for name, n in zip(s.APPEND_ONLY, self.lengths):
            setattr(s, name, getattr(self.state, name)[:n])
        return s


def _byte(term: z3.ExprRef, k: int) -> z3.ExprRef:
    return z3.Extract(8 * k + 7, 8 * k, term)


class SymbolicState(EdgeTransfer["SymbolicState", "Location | None"]):
    """The state at the entry of ``program.main`` (see the module docstring)."""

    def __init__(self, program: Program, concretize: Callable[[z3.ExprRef], int] | None = None) -> None:
        self.program = program
        self.types = program.types
        self.ptr_bits = program.data_model.pointer_bits
        self.concretize = concretize
        self.path_condition: list[z3.BoolRef] = []
        self.inputs: list[Input] = []
        self.imprecise = False
        self.concretized = 0
        self.pinning = Pinning()  # concolic states only: see ``_pin``
        self.call_stack: list[CallEdge] = []
        self._token = next(_tokens)
        self.frames: list[Frame] = [Frame(owner=self._token)]
        self.globals = Frame(owner=self._token)
        self.objects: dict[int, MemoryObject] = {}
        self._bases: list[int] = []
        self._next_base = 0x10000
        self._strings: dict[int, int] = {}
        self._ctype: dict[str, int] = {}  # glibc's ctype functions -> the pointer they return
        self._functions = {name: FUNCTION_BASE + 16 * i for i, name in enumerate(
            sorted(set(program.functions) | set(program.declared_functions)))}
        self._function_at = {a: n for n, a in self._functions.items()}
        self._native_bases: dict[int, z3.ExprRef] = {}

    def fresh_name(self, prefix: str) -> str:
        """A name for a fresh unknown (uninitialised memory, havoc), never used before."""
        return fresh_name(prefix)

    @classmethod
    def havoc_at(cls, program: Program, call_stack: list[CallEdge],
                 concretize: Callable[[z3.ExprRef], int] | None = None) -> Self:
        """A state inside a call stack where nothing is known: every read is fresh."""
        s = cls(program, concretize)
        s.call_stack = list(call_stack)
        s.frames = [Frame(owner=s._token) for _ in range(len(call_stack) + 1)]
        return s

    APPEND_ONLY: ClassVar[tuple[str, ...]] = ("path_condition", "inputs")  # lists a state only ever appends to

    def copy(self) -> Self:
        s = self._share()
        for name in self.APPEND_ONLY:
            setattr(s, name, list(getattr(self, name)))
        return s

    def frozen(self) -> Frozen:
        """This state as it is now, to continue from later (:meth:`Frozen.thaw`), at a
        cost independent of the path's length: the append-only lists, which this state
        goes on appending to, are shared, and only their lengths kept."""
        return Frozen(self._share(), tuple(len(getattr(self, n)) for n in self.APPEND_ONLY))

    def _share(self) -> Self:
        """A copy whose append-only lists are still this state's."""
        s = object.__new__(type(self))
        s.__dict__.update(self.__dict__)
        s.call_stack = list(self.call_stack)
        s.frames = list(self.frames)  # shared with self until written (see "Copies share")
        s.objects = dict(self.objects)
        self._token, s._token = next(_tokens), next(_tokens)
        s._bases = list(self._bases)
        s._strings = dict(self._strings)
        s._ctype = dict(self._ctype)
        s._native_bases = dict(self._native_bases)
        return s

    # ------------------------------------------------------------------ objects

    def _allocate(self, size: int, name: str, zero: bool, may_fail: bool = False) -> int:
        base = self._next_base
        self._next_base += max(size, 1) + GAP
        self._next_base = -(-self._next_base // 16) * 16
        sort = z3.BitVecSort(self.ptr_bits)
        default = z3.K(sort, sem.numeral(0, 8)) if zero else self._fresh_bytes(name)
        null = z3.Bool(self.fresh_name(f"null_{name}")) if may_fail else None
        self.objects[base] = MemoryObject(base, size, name, default, owner=self._token, null=null)
        bisect.insort(self._bases, base)
        return base

    def _frame_index(self, v: Variable) -> int:
        """Which frame holds the local ``v``: the top one."""
        return -1

    def _frame_of(self, v: Variable) -> Frame:
        """The frame holding ``v``, this state's own (copied if shared), to read or write."""
        if v.is_global:
            if self.globals.owner != self._token:
                self.globals = self.globals.copy(self._token)
            return self.globals
        k = self._frame_index(v)
        frame = self.frames[k]
        if frame.owner != self._token:
            frame = self.frames[k] = frame.copy(self._token)
        return frame

    def _own(self, obj: MemoryObject) -> MemoryObject:
        """``obj`` to write in place: this state's own copy if it is shared."""
        if obj.owner != self._token:
            obj = self.objects[obj.base] = obj.copy(self._token)
        return obj

    def _object_base(self, v: Variable) -> int:
        frame = self._frame_of(v)
        base = frame.objects.get(v)
        if base is None:
            base = self._allocate(self.types.sizeof(v.type), v.name, zero=False)
            frame.objects[v] = base
        return base

    def _object_at(self, addr: int) -> MemoryObject | None:
        i = bisect.bisect_right(self._bases, addr) - 1
        if i < 0:
            return None
        obj = self.objects[self._bases[i]]
        return obj if addr < obj.base + max(obj.size, 1) + GAP // 2 else None

    def _resolve(self, addr: z3.ExprRef, numeral: int | None = None) -> MemoryObject | None:
        """The object an address points into, from the constant part of its term
        (``numeral``: the address's value, when the caller has read it already). Else
        CUTE's concretisation, with the constraint that keeps the address; with
        ``pinning.addresses`` the caller pins it instead (``_pinned``: no constraint)."""
        hint = numeral if numeral is not None else _constant_part(addr)
        if hint is not None:
            obj = self._object_at(hint)
            if obj is not None:
                return obj
        if self.concretize is not None and not self.pinning.addresses:
            value = self.concretize(addr)
            obj = self._object_at(value)
            if obj is not None:
                self.concretized += 1
                self.path_condition.append(addr == self.ptr(value))
                return obj
        return None

    def _placed(self, addr: z3.ExprRef) -> tuple[int, int, str] | None:
        """Base, size and name of the object or function the model placed ``addr`` in."""
        hint = _constant_part(addr)
        if hint is None:
            return None
        obj = self._object_at(hint)
        if obj is not None:
            return obj.base, max(obj.size, 1), obj.name
        name = self._function_at.get(hint)
        return (hint, 1, name) if name is not None else None

    def _native(self, addr: z3.ExprRef, placed: tuple[int, int, str]) -> z3.ExprRef:
        """``addr`` as the native program sees it (see the module docstring)."""
        base, size, name = placed
        symbol = self._native_bases.get(base)
        if symbol is None:
            symbol = self._native_bases[base] = self.native_base(base, size, name)
        return symbol + (addr - self.ptr(base))

    def native_base(self, base: int, size: int, name: str) -> z3.ExprRef:
        """A fresh symbol for the native address of the object the model placed at
        ``base``: somewhere in user space, with room for its ``size`` bytes."""
        symbol = z3.BitVec(self.fresh_name(f"addr_{name}"), self.ptr_bits)
        low, high = USER_SPACE[self.ptr_bits]
        self.path_condition.append(z3.And(z3.UGE(symbol, low), z3.ULE(symbol, high - size)))
        return symbol

    def _havoc_memory(self, registers: bool = False) -> None:
        """An unknown write: every object may have changed, and with ``registers`` the
        globals that live in registers too (a call of a function nobody resolved, which
        may assign them by name). A write through a pointer cannot reach those: their
        address is never taken."""
        self.imprecise = True
        for base, obj in list(self.objects.items()):
            if obj.table is not None:
                continue  # read-only: the C library's own tables
            self.objects[base] = MemoryObject(obj.base, obj.size, obj.name, self._fresh_bytes(obj.name),
                                              owner=self._token, null=obj.null)
        if registers:
            self.globals = Frame({}, dict(self.globals.objects), self._token)

    # ------------------------------------------------------------------ bytes

    def _pinned(self, addr: z3.ExprRef) -> int | None:
        """With ``pinning.addresses``, the run's value of an address that depends on
        inputs, as CREST reads and writes memory: the byte there, whatever the inputs, and
        no constraint that keeps the address (the solver may move it, and the next run then
        diverges). None otherwise: the address stays a term."""
        if not self.pinning.addresses or self.concretize is None:
            return None
        return self._pin(addr)

    def _pin(self, term: z3.ExprRef) -> int:
        """The run's value of ``term`` (``concretize`` is set), with no constraint: the
        path is imprecise, and the pin counted among the concretisations."""
        assert self.concretize is not None
        self.imprecise = True
        self.concretized += 1
        return self.concretize(term)

    def _library_value(self, term: z3.ExprRef) -> z3.ExprRef:
        """A value the C library is given or reads (an argument, a byte): with
        ``pinning.library`` a bit-vector with symbols is its value in the run, as in
        CREST, whose library is not instrumented; otherwise the term itself."""
        if not self.pinning.library or self.concretize is None or not z3.is_bv(term) \
                or _numeral(term) is not None or _closed(term):
            return term
        return sem.numeral(self._pin(term), term.size())

    def _load_bytes(self, addr: z3.ExprRef, n: int) -> z3.ExprRef | None:
        a = _numeral(addr)
        obj = self._resolve(addr, a)
        if a is None and obj is not None and obj.table is not None and n == obj.table.size:
            # exact for indices from -128 to 255 only: what C allows (an unsigned char's
            # value or EOF), but a path whose index may lie beyond proves nothing
            self.imprecise = True
            return _table_entry(obj.table, addr - self.ptr(obj.base), self.ptr_bits)
        if a is None and (a := self._pinned(addr)) is not None:
            addr, obj = self.ptr(a), self._object_at(a)
        if obj is None:
            return None
        if a is not None and obj.array is None:
            cells = [obj.cells.get(a + i) for i in range(n)]
            first = cells[0]
            if first is not None and first[1] == 0 and first[2] == n and all(
                    c is not None and c[0] is first[0] and c[1] == i for i, c in enumerate(cells)):
                return first[0]
            # arrays are indexed with terms: z3.Select with an int takes a slow generic path;
            # an unwritten byte of a zeroed object is the constant itself, so that a scan for
            # a terminator (``_bytes_from``) sees it without simplifying the term
            default = obj.default
            constant = default.arg(0) if not isinstance(default, FreshBytes) and z3.is_K(default) else None
            parts = [(_byte(c[0], c[1]) if c is not None
                      else constant if constant is not None else obj.unwritten()[self.ptr(a + i)])
                     for i, c in enumerate(cells)]
        else:
            arr = self._materialize(obj)
            parts = [terms.select(arr, _add(addr, self.ptr(i))) for i in range(n)]
        return parts[0] if n == 1 else z3.Concat(*reversed(parts))

    def _materialize(self, obj: MemoryObject) -> z3.ArrayRef:
        if obj.array is None:
            obj = self._own(obj)
            arr = obj.unwritten()
            for a, (t, k, _) in obj.cells.items():
                arr = z3.Store(arr, self.ptr(a), _byte(t, k))
            obj.array = arr
            obj.cells = {}
        return obj.array

    def _store_bytes(self, addr: z3.ExprRef, value: z3.ExprRef) -> None:
        n = value.size() // 8
        a = _numeral(addr)
        obj = self._resolve(addr, a)
        if a is None and (a := self._pinned(addr)) is not None:
            addr, obj = self.ptr(a), self._object_at(a)
        if obj is None:
            self._havoc_memory()
            return
        obj = self._own(obj)
        obj.table = None  # written: its cells say what it holds
        if a is not None and obj.array is None:
            for i in range(n):
                obj.cells[a + i] = (value, i, n)
            return
        arr = self._materialize(obj)
        for i in range(n):
            arr = z3.Store(arr, _add(addr, self.ptr(i)), _byte(value, i))
        obj.array = arr

    # ------------------------------------------------------------------ values

    def _to_bits(self, value: z3.ExprRef, t: CType) -> z3.ExprRef:
        if isinstance(t, FloatType):
            bits = z3.fpToIEEEBV(value)
            if t.bits > 64:  # stored as a double in this model
                self.imprecise = True
            return bits
        return value

    def _from_bits(self, bits: z3.ExprRef, t: CType) -> z3.ExprRef:
        if isinstance(t, FloatType):
            return z3.fpBVToFP(bits, sem.sort_of(t))
        return bits

    def _scalar_size(self, t: CType) -> int:
        return 8 if isinstance(t, FloatType) and t.bits > 64 else self.types.sizeof(t)

    def load(self, addr: z3.ExprRef, t: CType) -> z3.ExprRef:
        bits = self._load_bytes(addr, self._scalar_size(t))
        if bits is None:
            self.imprecise = True
            return sem.fresh(self.fresh_name("unknown"), t)
        return self._from_bits(bits, t)

    def store(self, addr: z3.ExprRef, value: z3.ExprRef, t: CType) -> None:
        self._store_bytes(addr, self._to_bits(value, t))

    def ptr(self, value: int) -> z3.ExprRef:
        return sem.numeral(value, self.ptr_bits)

    def address(self, e: Expr) -> z3.ExprRef:
        """The address of an lvalue."""
        if isinstance(e, Var):
            return self.ptr(self._object_base(e.var))
        if isinstance(e, Deref):
            return self.eval(e.pointer)
        if isinstance(e, Index):
            elem = self.types.sizeof(e.type)
            return _add(self.address(e.base), _mul(self._index(e.index), elem, self.ptr_bits))
        if isinstance(e, Member):
            st = e.base.type
            assert isinstance(st, StructType)
            return _add(self.address(e.base), self.ptr(st.field(e.field).offset))
        if isinstance(e, StringLit):
            base = self._strings.get(id(e))
            if base is None:
                base = self._allocate(len(e.value), "string", zero=True)
                self._strings[id(e)] = base
                for i, b in enumerate(e.value):
                    self.objects[base].cells[base + i] = (sem.numeral(b, 8), 0, 1)
            return self.ptr(base)
        raise TypeError(f"not an lvalue: {e!r}")

    def _index(self, index: Expr) -> z3.ExprRef:
        term = self.eval(index)
        assert isinstance(index.type, IntType)
        return sem.cast(term, index.type, self.types.ptrdiff_t if self.ptr_bits == 64 else self.types.int)

    def read(self, e: Expr) -> z3.ExprRef:
        """The value of a scalar lvalue."""
        if isinstance(e, Var) and not in_memory(e.var):
            frame = self._frame_of(e.var)
            value = frame.values.get(e.var)
            if value is None:
                value = sem.fresh(self.fresh_name(e.var.name), e.type)
                frame.values[e.var] = value
            return value
        if isinstance(e, Member):
            f = e.member
            if f.bit_width is not None:
                unit = self.load(self.address(e), f.type)
                assert isinstance(f.type, IntType)
                bits = z3.Extract(f.bit_offset + f.bit_width - 1, f.bit_offset, unit)
                extend = z3.SignExt if f.type.signed else z3.ZeroExt
                return extend(f.type.bits - f.bit_width, bits) if f.bit_width < f.type.bits else bits
        return self.load(self.address(e), e.type)

    def write(self, lhs: Expr, value: z3.ExprRef) -> None:
        """``lhs = value`` for a scalar lvalue (``value`` already of ``lhs.type``)."""
        if isinstance(lhs, Var) and not in_memory(lhs.var):
            self._frame_of(lhs.var).values[lhs.var] = value
            return
        if isinstance(lhs, Member):
            f = lhs.member
            if f.bit_width is not None:
                addr = self.address(lhs)
                unit = self.load(addr, f.type)
                width, low = f.bit_width, f.bit_offset
                mask = ((1 << width) - 1) << low
                new = (unit & ~sem.numeral(mask, unit.size())) | (
                    (value << low) & sem.numeral(mask, unit.size()))
                self.store(addr, new, f.type)
                return
        self.store(self.address(lhs), value, lhs.type)

    def eval(self, e: Expr) -> z3.ExprRef:
        """The value of a scalar expression in this state."""
        if isinstance(e, Const):
            if isinstance(e.type, FloatType):
                return sem.const(e.value, e.type)
            return sem.const(int(e.value), e.type)
        if isinstance(e, (Var, Deref, Member, Index)):
            return self.read(e)
        if isinstance(e, AddrOf):
            if isinstance(e.operand, FuncRef):
                return self.ptr(self._functions.get(e.operand.name, 0))
            return self.address(e.operand)
        if isinstance(e, FuncRef):
            return self.ptr(self._functions.get(e.name, 0))
        if isinstance(e, Cast):
            if not e.operand.type.is_scalar():
                return self._unknown(e.type)
            value = self.eval(e.operand)
            if isinstance(e.operand.type, PointerType) and isinstance(e.type, IntType) and not e.type.is_bool:
                placed = self._placed(value)
                if placed is not None:  # the integer value of an address is the native one
                    return sem.cast(self._native(value, placed), self.types.size_t, e.type)
            return sem.cast(value, e.operand.type, e.type)
        if isinstance(e, Unary):
            value = self.eval(e.operand)
            if e.op == "!" and isinstance(e.operand.type, PointerType):
                return sem.from_bool(z3.Not(self._truth(value, e.operand.type)), e.type)
            return sem.unary(e.op, value, e.operand.type, e.type)
        if isinstance(e, Binary):
            return self._binary(e)
        if isinstance(e, StringLit):
            return self.address(e)
        if isinstance(e, BitView):
            bits = self._to_bits(self.eval(e.operand), e.operand.type)
            low = 8 * e.offset  # little-endian, as both data models are
            return self._from_bits(z3.Extract(low + 8 * self.types.sizeof(e.type) - 1, low, bits), e.type)
        raise TypeError(f"cannot evaluate {e!r}")

    def _unknown(self, t: CType) -> z3.ExprRef:
        self.imprecise = True
        return sem.fresh(self.fresh_name("unknown"), t)

    def _binary(self, e: Binary) -> z3.ExprRef:
        lt, rt = e.left.type, e.right.type
        a, b = self.eval(e.left), self.eval(e.right)
        if e.op in ("==", "!=") and isinstance(lt, PointerType) and isinstance(rt, PointerType):
            equal = self._equal_if_null(a, b)
            if equal is not None:
                return sem.from_bool(equal if e.op == "==" else z3.Not(equal), e.type)
        if isinstance(lt, PointerType) and e.op in ("+", "-") and isinstance(rt, IntType):
            step = self.types.sizeof(lt.target) if not isinstance(lt.target, FunctionType) else 1
            offset = _mul(sem.cast(b, rt, self._ptr_int()), step, self.ptr_bits)
            return _add(a, offset) if e.op == "+" else a - offset
        if isinstance(lt, PointerType) and isinstance(rt, PointerType) and e.op in LAYOUT_OPS:
            a, b = self._across_objects(e.op, a, b)
        if isinstance(lt, PointerType) and isinstance(rt, PointerType) and e.op == "-":
            step = max(self.types.sizeof(lt.target), 1)
            diff = (a - b) / step if step > 1 else a - b
            return sem.cast(diff, self._ptr_int(), e.type)
        if isinstance(lt, FloatType) and lt.bits > 64:
            self.imprecise = True
        guard = sem.division_by_zero(e.op, b, lt)
        if guard is not None and not z3.is_bv_value(b):
            self.path_condition.append(z3.Not(guard))
        return sem.binary(e.op, a, b, lt, rt, e.type)

    def _across_objects(self, op: str, a: z3.ExprRef, b: z3.ExprRef) -> tuple[z3.ExprRef, z3.ExprRef]:
        """Two addresses to compare or subtract: exact within one object; across two,
        native (whatever the layout), but for equality only where one is one past the
        end of its object and the other the start of its own (else they differ)."""
        pa, pb = self._placed(a), self._placed(b)
        if pa is None or pb is None or pa[0] == pb[0]:
            return a, b
        if op not in ("==", "!="):
            return self._native(a, pa), self._native(b, pb)
        off_a, off_b = a - self.ptr(pa[0]), b - self.ptr(pb[0])
        touching = z3.simplify(z3.Or(z3.And(off_a == pa[1], off_b == 0), z3.And(off_b == pb[1], off_a == 0)))
        if z3.is_false(touching):
            return a, b
        return z3.If(touching, self._native(a, pa), a), z3.If(touching, self._native(b, pb), b)

    def _ptr_int(self) -> IntType:
        return self.types.long if self.ptr_bits == 64 else self.types.int

    def condition(self, edge: AssumeEdge) -> z3.BoolRef:
        c = self._truth(self.eval(edge.cond), edge.cond.type)
        return c if edge.positive else z3.Not(c)

    def _truth(self, value: z3.ExprRef, t: CType) -> z3.BoolRef:
        """C's ``value != 0``; for the address of an allocation, that it did not fail."""
        null = self._null(value) if isinstance(t, PointerType) else None
        return sem.truth(value, t) if null is None else z3.Not(null)

    def _equal_if_null(self, a: z3.ExprRef, b: z3.ExprRef) -> z3.BoolRef | None:
        """``a == b`` where an allocation's failure decides it (``_null``): an
        allocation and null are equal if it failed, two allocations if both did (NULL ==
        NULL). None where the model's own comparison holds."""
        nulls = [self._failed(a), self._failed(b)]
        if nulls[0] is not None and nulls[1] is not None:
            if nulls[0].eq(nulls[1]):  # one allocation: equal to itself
                return None
            equal = z3.And(*nulls)
        elif nulls[0] is not None or nulls[1] is not None:
            null, other = (nulls[0], b) if nulls[0] is not None else (nulls[1], a)
            if _as_int(other) != 0:
                return None
            equal = null
        else:
            return None
        self.imprecise = True
        return equal

    def _null(self, value: z3.ExprRef) -> z3.BoolRef | None:
        """Whether ``value``, the address an allocation returned, is NULL: ``malloc``
        may fail (a test asking for 4 GB gets NULL under its 2-GB limit), so a proof
        must not assume it does not. The model still places the object at its own
        address: a path that goes on as if NULL were memory crashes natively, so it
        only adds paths. No input decides the answer, so a path that asks is imprecise:
        a satisfiable NULL side is no test, and concolic search cannot exhaust it.
        None for any other value."""
        null = self._failed(value)
        if null is not None:
            self.imprecise = True
        return null

    def _failed(self, value: z3.ExprRef) -> z3.BoolRef | None:
        """The "it returned NULL" of the allocation whose address ``value`` is."""
        obj = self.objects.get(_numeral(value))  # type: ignore[arg-type]
        return obj.null if obj is not None else None

    # ------------------------------------------------------------------ edges

    def step(self, edge: Edge) -> Location | None:
        """Strongest post of ``edge``; returns the location control goes to."""
        return self.transfer(self, edge)

    # the cases of the one edge transfer (``analyses.transfer``): the state transfers
    # itself (``s`` is ``self``) and gives the location control goes to

    def assume(self, s: SymbolicState, edge: AssumeEdge) -> Location | None:
        self.path_condition.append(self.condition(edge))
        return edge.dst

    def assign(self, s: SymbolicState, edge: AssignEdge) -> Location | None:
        self._assign(edge.lhs, edge.rhs)
        return edge.dst

    def declare(self, s: SymbolicState, edge: DeclEdge, zero: bool) -> Location | None:
        self._declare(edge.var, zero)
        return edge.dst

    def nondet(self, s: SymbolicState, edge: NondetEdge) -> Location | None:
        self._nondet(edge)
        return edge.dst

    def blank(self, s: SymbolicState, edge: Edge) -> Location | None:
        assert isinstance(edge, (BlankEdge, ErrorEdge, TerminateEdge)), edge
        return edge.dst

    def _assign(self, lhs: Expr, rhs: Expr) -> None:
        if lhs.type.is_scalar():
            self.write(lhs, self.eval(rhs))
            return
        size = self.types.sizeof(lhs.type)
        dst = self.address(lhs)
        if isinstance(rhs, Const):  # zero-initialisation of an aggregate
            obj = self._resolve(dst)
            if obj is not None and _numeral(dst) == obj.base and size >= obj.size:
                obj = self._own(obj)
                obj.default = z3.K(z3.BitVecSort(self.ptr_bits), sem.numeral(0, 8))
                obj.cells, obj.array = {}, None
                return
            self._fill(dst, [sem.numeral(0, 8)] * size if size <= MAX_BYTE_LOOP else None)
            return
        src = self.address(rhs)
        self._fill(dst, [self._load_bytes(src + i, 1) for i in range(size)] if size <= MAX_BYTE_LOOP else None)

    def _fill(self, dst: z3.ExprRef, data: list[z3.ExprRef | None] | None) -> None:
        """Write bytes at ``dst``; ``None`` (too large or unknown) havocs the object."""
        if data is None or any(b is None for b in data):
            obj = self._resolve(dst)
            if obj is None:
                self._havoc_memory()
                return
            self.imprecise = True
            self._forget(obj)
            return
        for i, b in enumerate(data):
            self._store_bytes(_add(dst, self.ptr(i)), b)

    def _forget(self, obj: MemoryObject) -> None:
        """Every byte of ``obj`` is a fresh unknown."""
        obj = self._own(obj)
        obj.default = self._fresh_bytes(obj.name)
        obj.cells, obj.array = {}, None

    def _fresh_bytes(self, name: str) -> FreshBytes:
        return FreshBytes(self.fresh_name(f"mem_{name}"), self.ptr_bits)

    def _declare(self, v: Variable, zero: bool = False) -> None:
        """``v`` comes into existence, zero or indeterminate."""
        frame = self._frame_of(v)
        if in_memory(v):
            frame.objects[v] = self._allocate(self.types.sizeof(v.type), v.name, zero=zero)
        elif zero:
            frame.values[v] = sem.const(0, v.type) if not isinstance(v.type, FloatType) \
                else sem.const(0.0, v.type)
        else:  # uninitialised: a fresh value, made when first read (most never are)
            frame.values.pop(v, None)

    def _nondet(self, edge: NondetEdge) -> None:
        if edge.kind == "string":
            self._nondet_string(edge)
            return
        t = edge.value_type
        if not t.is_scalar():
            t = self.types.int
        symbol = sem.fresh(f"in{len(self.inputs)}", t)
        if isinstance(t, IntType) and t.is_bool:
            self.path_condition.append(z3.ULE(symbol, 1))
        if isinstance(t, FloatType) and t.bits > 64:
            self.imprecise = True
        self.inputs.append(Input(symbol, t, edge))
        if edge.lhs is not None:
            self.write(edge.lhs, sem.cast(symbol, t, edge.lhs.type) if edge.lhs.type.is_scalar() else symbol)

    def _nondet_string(self, edge: NondetEdge) -> None:
        """``__VERIFIER_nondet_string()``: a fresh object of ``STRING_BYTES`` input
        bytes and a NUL. The bytes are printable or NUL, the first is not NUL (the
        harness leaves its buffer unset on an empty line), and none follows a NUL but
        NULs: what the text of the input (``concolic.inputs.literal``) can say."""
        t = ArrayType(self.types.char, STRING_BYTES)
        symbol = z3.BitVec(f"in{len(self.inputs)}", 8 * STRING_BYTES)
        base = self._allocate(STRING_BYTES + 1, "string input", zero=True)
        data = [z3.Extract(8 * i + 7, 8 * i, symbol) for i in range(STRING_BYTES)]
        for i, b in enumerate(data):
            self.objects[base].cells[base + i] = (b, 0, 1)
        self.path_condition.append(data[0] != 0)
        self.path_condition.extend(z3.Or(b == 0, z3.And(z3.UGE(b, 0x20), z3.ULE(b, 0x7e))) for b in data)
        self.path_condition.extend(z3.Implies(a == 0, b == 0) for a, b in zip(data, data[1:]))
        self.inputs.append(Input(symbol, t, edge))
        if edge.lhs is not None:
            self.write(edge.lhs, self.ptr(base))

    def callee(self, s: SymbolicState, edge: CallEdge) -> str | None:
        """The static callee (``cfa.calls``, as every analysis resolves it), else the
        function the pointer's value is the address of in this state."""
        name = callee_name(edge)
        if name is not None:
            return name
        assert not isinstance(edge.callee, str)  # a name is callee_name's
        target = z3.simplify(self.eval(edge.callee))
        if not z3.is_bv_value(target) and self.concretize is not None:
            value = self.concretize(target)
            self.concretized += 1
            self.path_condition.append(target == self.ptr(value))
            target = self.ptr(value)
        return self._function_at.get(target.as_long()) if z3.is_bv_value(target) else None

    def outside(self, s: SymbolicState, edge: CallEdge, name: str | None) -> Location | None:
        self._external(edge, name)
        return edge.dst

    def enter(self, s: SymbolicState, edge: CallEdge, body: FunctionCFA,
              bindings: list[tuple[Variable, Expr | None]]) -> Location | None:
        values = [self.eval(a) if a is not None and a.type.is_scalar() else a for _, a in bindings]
        self.call_stack.append(edge)
        self.frames.append(Frame(owner=self._token))
        for (param, _), value in zip(bindings, values):
            if value is None:  # a parameter the call does not define: fresh
                self.imprecise = True
                self._declare(param)
            elif isinstance(value, Expr):  # aggregate passed by value: copy its bytes
                self._declare(param)
                saved = self.frames.pop()
                src = [self._load_bytes(_add(self.address(value), self.ptr(i)), 1)
                       for i in range(self.types.sizeof(param.type))]
                self.frames.append(saved)
                self._fill(self.address(Var(param.type, param)), src)
            else:
                if in_memory(param):
                    self._declare(param)
                self.write(Var(param.type, param), value)
        return body.entry

    def leave(self, s: SymbolicState, edge: ReturnEdge) -> Location | None:
        value: z3.ExprRef | list | None = None
        if edge.value is not None:
            if edge.value.type.is_scalar():
                value = self.eval(edge.value)
            else:
                addr = self.address(edge.value)
                value = [self._load_bytes(_add(addr, self.ptr(i)), 1)
                         for i in range(min(self.types.sizeof(edge.value.type), MAX_BYTE_LOOP + 1))]
        if not self.call_stack:
            return edge.dst
        call = self.call_stack.pop()
        self.frames.pop()
        if call.lhs is not None and value is not None:
            if isinstance(value, list):
                self._fill(self.address(call.lhs), value if len(value) <= MAX_BYTE_LOOP else None)
            else:
                assert edge.value is not None
                self.write(call.lhs, sem.cast(value, edge.value.type, call.lhs.type))
        return call.dst

    def _external(self, edge: CallEdge, name: str | None) -> None:
        """A function without a body, as ``cfa.libc_model`` describes it: its writes
        through its arguments (copies and fills exact where short and counted), its
        allocation, its result (an argument, a constant, a term of ``strings`` or of
        glibc's ctype tables, else unknown). A library function changes the program's
        memory only through the pointers it is given (one without pointer arguments,
        nothing): the globals in registers keep their values across it, as its model
        in ``wp`` keeps what it knows of them."""
        f = libc_model.function(name)
        args = [self._library_value(self.eval(a)) for a in edge.args]
        resized = None
        if f.allocation is not None and f.allocation.resizes and args:
            if _numeral(args[0]) != 0:
                self.imprecise = True  # whether the object moves is glibc's heap's choice, not the inputs'
            base = self._in_place(args[0], self._size(f.allocation, args))
            if base is not None:
                self._result(edge, self.ptr(base))
                return
            resized = self._resized(args[0])
        written = libc_model.writes(edge, name)
        if written is None:
            self._havoc_memory(registers=name is None)
        for w in written or ():
            self._write_through(w, args)
        if name == "setlocale":
            self.imprecise = True  # the ctype tables are the "C" locale's
        if f.allocation is not None:
            self._result(edge, self.ptr(self._allocation(f.allocation, name or "", args, resized)))
        elif f.returns is not None:
            self._result(edge, args[f.returns])
        elif f.constant is not None and (constant := self._constant(edge, f.constant)) is not None:
            if edge.lhs is not None:
                self.write(edge.lhs, sem.cast(*constant, edge.lhs.type))
        elif name in strings.MODELLED:
            self._string_function(edge, name, args)
        elif name in ctype_tables.FUNCTIONS and not edge.args \
                and (location := self._ctype_table(name)) is not None:
            self._result(edge, self.ptr(location))
        elif name in ctype_tables.CASE_MAPS and len(args) == 1 \
                and (value := self._case_map(name, args[0])) is not None:
            if edge.lhs is not None:
                self.write(edge.lhs, sem.cast(value, self.types.int, edge.lhs.type))
        elif edge.lhs is not None:
            self.write(edge.lhs, self._unknown(edge.lhs.type))

    def _write_through(self, w: libc_model.Write, args: list[z3.ExprRef]) -> None:
        """The bytes ``w`` writes: a copy or a fill of a known, short count exactly, the
        end of an object's lifetime (``_end``), otherwise its whole object havocked."""
        dst = args[w.argument]
        if w.ends:
            self._end(dst)
            return
        if w.source is not None and w.count is None:
            self._string_copy(dst, args[w.source], w.appends)
            return
        count = _as_int(args[w.count]) if w.count is not None else None
        data: list[z3.ExprRef | None] | None = None
        if count is not None and count <= MAX_BYTE_LOOP:
            if w.source is not None:
                data = [None if (b := self._load_bytes(_add(args[w.source], self.ptr(i)), 1)) is None
                        else self._library_value(b) for i in range(count)]
            elif w.fill is not None:
                data = [z3.Extract(7, 0, args[w.fill])] * count
        self._fill(dst, data)

    def _string_copy(self, dst: z3.ExprRef, src: z3.ExprRef, appends: bool) -> None:
        """``strcpy(dst, src)`` (``strcat`` with ``appends``) as C defines it, byte by
        byte: byte k of the copy is src[k] if none of src[0..k-1] is 0, else what dst
        held, so a symbolic byte that is 0 in some run ends that run's copy there. The
        source is read up to its first constant 0 (``_bytes_from``); where the bytes read
        end before one, the rest of the destination is unknown where the copy goes on
        past them (``_unknown_from``: grep's ``icpyalloc`` copies must-strings whose
        terminators are inputs). Where the source cannot be read, or (for ``strcat``)
        the destination's end is not a constant offset, the object is havocked (``_fill``)."""
        source = self._bytes_from(src, terminated=True)
        if appends and source is not None:
            held = self._bytes_from(dst, terminated=True)
            if held is None or any(_numeral(b) is None for b in held) or _numeral(held[-1]) != 0:
                source = None
            else:
                dst = _add(dst, self.ptr(len(held) - 1))
        if source is None:
            self._fill(dst, None)
            return
        data: list[z3.ExprRef | None] = []
        copying: z3.BoolRef = z3.BoolVal(True)  # no byte before this one was 0
        nul = sem.numeral(0, 8)
        for k, byte in enumerate(source):
            if z3.is_true(copying):
                data.append(byte)
            else:
                old = self._load_bytes(_add(dst, self.ptr(k)), 1)
                data.append(None if old is None else terms.ite(copying, byte, old))
            value = _numeral(byte)  # terms are not simplified: nested copies made that exponential
            if value == 0:  # the last byte read (``_bytes_from`` stops at a constant 0)
                copying = z3.BoolVal(False)
            elif value is None:
                nonzero = z3.Not(terms.eq(byte, nul))
                copying = nonzero if z3.is_true(copying) else z3.And(copying, nonzero)
        self._fill(dst, data)
        if _numeral(source[-1]) != 0 and not z3.is_false(copying):
            self._unknown_from(_add(dst, self.ptr(len(source))))

    def _unknown_from(self, address: z3.ExprRef) -> None:
        """Every byte of an object from ``address`` on is a fresh unknown: the rest of a
        copy whose end lies past the bytes read, an over-approximation of what it wrote
        and of what was there (so the path is imprecise). An object of cells keeps those
        below ``address``; an array becomes one term, a lambda over it, however large."""
        obj = self._resolve(address)
        if obj is None:
            self._havoc_memory()
            return
        self.imprecise = True
        obj = self._own(obj)
        fresh = self._fresh_bytes(obj.name)
        a = _numeral(address)
        if a is not None and obj.array is None:
            default = obj.default
            if not isinstance(default, FreshBytes):  # a constant the bytes below keep
                for k in range(obj.base, min(a, obj.base + obj.size)):
                    obj.cells.setdefault(k, (default.arg(0), 0, 1))
            obj.cells = {k: cell for k, cell in obj.cells.items() if k < a}
            obj.default = fresh
            return
        held = self._materialize(obj)
        i = z3.BitVec("i", self.ptr_bits)
        obj.array = z3.Lambda([i], z3.If(z3.UGE(i, address), terms.select(fresh.array(), i), terms.select(held, i)))

    def _end(self, address: z3.ExprRef) -> None:
        """``free``: what the object held is gone (glibc keeps its lists of free chunks
        in them), so a read after it is a fresh unknown; no imprecision, since a
        program without undefined behaviour never reads it. Freeing NULL does nothing."""
        if _numeral(address) == 0:
            return
        obj = self._resolve(address)
        if obj is None:
            self._havoc_memory()
        else:
            self._forget(obj)

    def _allocation(self, a: libc_model.Allocation, name: str, args: list[z3.ExprRef],
                    resized: dict[int, Cell] | MemoryObject | None = None) -> int:
        """The base of a new object: a symbolic size, or one the call does not pass,
        gets a page (room for what a program writes there). A resizing call (realloc)
        copies what the program wrote in the old object (``resized``: its bytes by offset)
        up to the new size; the rest is indeterminate, as in C. Where the old object's
        contents are not known so (``_resized``), the path is imprecise. A size that is
        not a number gets a page and keeps every byte written (grep's ``icatalloc`` grows
        its must-strings by ``strlen``s of inputs; had they been dropped, every later read
        of the old string was a fresh byte and a divergence)."""
        size = self._size(a, args)
        if a.resizes and (resized is None or not size):
            self.imprecise = True
        room = size or 4096
        base = self._allocate(room, name, zero=a.zeroed, may_fail=a.may_fail)
        new = self.objects[base]
        if isinstance(resized, MemoryObject):  # its array, moved to the new base
            i = z3.BitVec("i", self.ptr_bits)
            kept = z3.ULT(i - self.ptr(base), self.ptr(min(resized.size, room)))
            new.array = z3.Lambda([i], z3.If(kept, terms.select(resized.array, i + self.ptr(resized.base - base)),
                                             terms.select(new.unwritten(), i)))
        elif resized:
            for offset, cell in resized.items():
                if offset < room:
                    new.cells[base + offset] = cell
        return base

    @staticmethod
    def _size(a: libc_model.Allocation, args: list[z3.ExprRef]) -> int:
        """The bytes an allocation asks for; 0 where an argument is not a number."""
        sizes = [_as_int(args[i]) if i < len(args) else None for i in a.size]
        return math.prod(n for n in sizes if n is not None) if None not in sizes else 0

    def _in_place(self, pointer: z3.ExprRef, size: int) -> int | None:
        """A resizing call (realloc) on the object ``pointer`` is the base of, as glibc
        makes it where the chunk can grow or shrink where it is: the object keeps its
        address and its contents, ``size`` bytes long now. Whether glibc moves it depends
        on its heap, which the model does not follow; in place is what lets a program that
        compares the old pointer with the new one (grep's regex compiler, ``if (old_buffer
        != bufp->buffer)`` before moving its pointers) go on pointing into the object
        natively and in the model alike, where a moved object would leave the model's
        pointers in a freed one when the native run found it in place. Either way the
        answer is the library's, not the inputs', so the path is imprecise (``_external``):
        a tree of such paths proves nothing. None (the object moves) where the pointer is
        no object's base, the size is not a number, or the object would reach the next one."""
        address = _numeral(pointer)
        obj = self._object_at(address) if address else None
        if obj is None or address != obj.base or not size:
            return None
        later = bisect.bisect_right(self._bases, obj.base)
        if later < len(self._bases) and obj.base + size + GAP > self._bases[later]:
            return None
        self._own(obj).size = size
        self._next_base = max(self._next_base, -(-(obj.base + size + GAP) // 16) * 16)
        return obj.base

    def _resized(self, pointer: z3.ExprRef) -> dict[int, Cell] | MemoryObject | None:
        """The bytes the program wrote in the object ``pointer`` is the base of, by
        offset, before a call resizes it (none for NULL: realloc is then malloc), or the
        object itself where it was written at symbolic indices (its array is carried
        over). None where the pointer is not a number or points into an object. A
        pointer is not concretised here: the call's own write (``_end``) resolves it once."""
        address = _numeral(pointer)
        if address == 0:
            return {}
        old = self._object_at(address) if address is not None else None
        if old is None or address != old.base:
            return None
        if old.array is not None:
            return old.copy(old.owner)  # as it is now: the call's ``_end`` forgets the object
        return {a - old.base: cell for a, cell in old.cells.items()}

    def _constant(self, edge: CallEdge, c: libc_model.Constant) -> tuple[z3.ExprRef, CType] | None:
        """The constant result of ``edge`` and its type; None where the call does not
        have the constant's type (a floating one, or an ``int`` without arguments)."""
        ret = edge.ftype.ret if edge.ftype is not None else None
        if c.float_bits is not None:
            return (sem.const(c.value, ret), ret) if isinstance(ret, FloatType) else None
        return (sem.const(int(c.value), self.types.int), self.types.int) if not edge.args else None

    def _string_function(self, edge: CallEdge, name: str, args: list[z3.ExprRef]) -> None:
        """``strcmp``, ``strchr`` and their kin (``strings``): they read memory and write none."""
        if edge.lhs is None:
            return
        if name in strings.SEARCHES:
            self._result(edge, self._search(name, args))
            return
        t = edge.ftype.ret if edge.ftype is not None else None
        if not isinstance(t, IntType):
            t = self.types.size_t if name == "strlen" else self.types.int
        value = self._unknown(t)
        if name == "strlen" and len(args) == 1:
            s = self._bytes_from(args[0], terminated=True)
            if s is not None:
                value = strings.length(s, value)
        elif name in strings.COMPARISONS:
            counted, terminated = strings.COMPARISONS[name]
            count = self._count(args[2]) if counted and len(args) == 3 else None
            if count is not None or not counted:
                most = count if isinstance(count, int) else None
                s1, s2 = (self._bytes_from(a, terminated, most) for a in args[:2])
                if s1 is not None and s2 is not None:
                    value = strings.compare(s1, s2, count, terminated, value)
        if self.pinning.library:
            value = z3.simplify(value)  # of bytes that are numbers: a number, or a sign of the magnitude's symbol
        self.write(edge.lhs, sem.cast(value, t, edge.lhs.type))

    def _search(self, name: str, args: list[z3.ExprRef]) -> z3.ExprRef:
        """The pointer ``strchr(s, c)`` and its kin return: ``s`` plus the offset
        ``strings.find`` gives, whose "none" is ``-s`` (NULL), so the result keeps ``s``'s
        object as its constant part and a read through it stays exact. The path is
        imprecise only where the answer may lie past the bytes read; the result is an
        unknown pointer where they cannot be read."""
        counted, last = strings.SEARCHES[name]
        pointer = self.types.pointer(self.types.void)
        count = self._count(args[2]) if counted and len(args) == 3 else None
        if len(args) != (3 if counted else 2) or counted and count is None:
            return self._unknown(pointer)
        most = count if isinstance(count, int) else None
        s = self._bytes_from(args[0], terminated=not counted, most=most)
        if s is None:
            return self._unknown(pointer)
        if not (len(s) == count if isinstance(count, int) else not counted and _numeral(s[-1]) == 0):
            self.imprecise = True  # the answer may lie past the bytes read
        base, c = args[0], z3.Extract(7, 0, args[1])
        past = sem.fresh(self.fresh_name("unknown"), pointer)
        offset = strings.find(s, c, count, last, self.ptr(0) - base, past - base)
        if all(_numeral(b) is not None for b in (*s, base)) and _as_int(c) is not None:
            offset = z3.simplify(offset)  # a string of known bytes: a number, or -s
        return _add(base, offset)

    def _count(self, arg: z3.ExprRef) -> int | z3.BitVecRef | None:
        """A ``size_t`` count argument: its number, or the term itself (``strings``
        bounds a comparison or a search by it byte by byte); None for anything else."""
        count = _as_int(arg)
        if count is None and arg.size() == self.ptr_bits:
            return arg
        return count

    def _bytes_from(self, address: z3.ExprRef, terminated: bool, most: int | None = None) -> list[z3.ExprRef] | None:
        """The bytes from ``address`` to the end of its object, at most
        ``strings.MAX_SCAN`` (and ``most``), and with ``terminated`` up to the first that
        is the constant 0, or, in an object written at symbolic indices,
        ``strings.BEYOND_RUN`` past the one the run ends at; None where the model does
        not place ``address`` exactly. An address that is a term is placed by the run
        where there is one (concretised, as ``_resolve`` does)."""
        a = _numeral(address)
        obj = self._resolve(address, a)
        if obj is not None and a is None and self.concretize is not None:
            a = self.concretize(address)
            self.concretized += 1
            self.path_condition.append(address == self.ptr(a))
        if a is None or obj is None or not obj.base <= a <= obj.base + obj.size:
            return None
        out: list[z3.ExprRef] = []
        limit = min(obj.base + obj.size - a, strings.MAX_SCAN, strings.MAX_SCAN if most is None else most)
        bounded = terminated and obj.array is not None  # until the run's terminator is read
        while len(out) < limit:
            byte = self._load_bytes(self.ptr(a + len(out)), 1)
            if byte is None:
                return None
            byte = self._library_value(byte)
            out.append(byte)
            if terminated and _numeral(byte) == 0:
                break
            if bounded and self.ends_run(byte):
                bounded, limit = False, min(limit, len(out) + strings.BEYOND_RUN)
        return out

    def ends_run(self, byte: z3.ExprRef) -> bool:
        """Whether a byte that is not a constant is 0 in the run being executed, where
        there is one (``strings.BEYOND_RUN``); a plain symbolic state has no run."""
        return False

    def _ctype_table(self, name: str) -> int | None:
        """Where ``name()`` (``__ctype_b_loc`` and its kin) points: an object holding
        the address of entry 0 of glibc's table (``harness.ctype_tables``), so that
        ``isalnum(c)`` on an input byte is a read of known bytes at a symbolic index.
        None if glibc could not be asked."""
        if name in self._ctype:
            return self._ctype[name]
        known = ctype_tables.tables(self.program.data_model)
        if known is None:
            return None
        table = known[name]
        data = self._allocate(len(table.entries) * table.size, f"{name} table", zero=True)
        for i, value in enumerate(table.entries):
            entry = sem.numeral(value, 8 * table.size)
            for k in range(table.size):
                self.objects[data].cells[data + i * table.size + k] = (entry, k, table.size)
        self.objects[data].table = table
        width = self.ptr_bits // 8
        location = self._allocate(width, name, zero=True)
        address = self.ptr(data - ctype_tables.FIRST * table.size)
        for k in range(width):
            self.objects[location].cells[location + k] = (address, k, width)
        self._ctype[name] = location
        return location

    def _case_map(self, name: str, c: z3.ExprRef) -> z3.ExprRef | None:
        """``tolower(c)``/``toupper(c)`` (an int) as glibc computes them: its table's
        entry for ``c`` from -128 to 255, ``c`` itself beyond."""
        known = ctype_tables.tables(self.program.data_model)
        if known is None or c.size() != 32:
            return None
        table = known[ctype_tables.CASE_MAPS[name]]
        offset = (z3.SignExt(self.ptr_bits - 32, c) - ctype_tables.FIRST) * table.size
        inside = z3.And(c >= ctype_tables.FIRST, c <= ctype_tables.LAST)
        return z3.If(inside, _table_entry(table, offset, self.ptr_bits), c)

    def _result(self, edge: CallEdge, value: z3.ExprRef) -> None:
        if edge.lhs is not None:
            self.write(edge.lhs, sem.cast(value, self.types.pointer(self.types.void), edge.lhs.type))


def _table_entry(table: ctype_tables.Table, offset: z3.ExprRef, ptr_bits: int) -> z3.ExprRef:
    """The entry at byte ``offset`` (a term, a multiple of the entry's size) of a
    table, as a choice among its runs; past either end, the nearest run's term (C
    leaves such a read undefined)."""
    bits = 8 * table.size
    index = z3.LShR(offset, table.size.bit_length() - 1)  # sizes are powers of two
    position = z3.Extract(bits - 1, 0, index) if bits <= ptr_bits else z3.ZeroExt(bits - ptr_bits, index)

    def term(run: ctype_tables.Run) -> z3.ExprRef:
        if run.step == 0:
            return sem.numeral(run.value, bits)
        return position + sem.numeral(run.value - run.first, bits)

    result = term(table.runs[-1])
    for run in reversed(table.runs[:-1]):
        result = z3.If(z3.ULE(index, run.last), term(run), result)
    return result


def _numeral(term: z3.ExprRef) -> int | None:
    """The value of a bit-vector numeral, None for any other term: two z3 calls where
    ``is_bv_value`` and ``as_long`` make about ten (this is symbolic execution's hottest test)."""
    ctx, ast = term.ctx_ref(), term.as_ast()
    if z3.Z3_get_ast_kind(ctx, ast) != z3.Z3_NUMERAL_AST:
        return None
    return int(z3.Z3_get_numeral_string(ctx, ast))


def _as_int(term: z3.ExprRef) -> int | None:
    """The value of a term without symbols (``4 * 3``); None for one with symbols,
    which is not simplified: on grep, simplifying ``strlen``s of must-strings to learn
    they are no numbers was most of a symbolic execution."""
    value = _numeral(term)
    if value is not None or not _closed(term):
        return value
    return _numeral(z3.simplify(term))


def _closed(term: z3.ExprRef) -> bool:
    """Whether ``term`` holds no symbol (uninterpreted constant) and no lambda: the walk
    ends at the first one, which in a term over inputs comes soon."""
    ctx = term.ctx_ref()
    stack, seen = [term.as_ast()], set()
    while stack:
        a = stack.pop()
        kind = z3.Z3_get_ast_kind(ctx, a)
        if kind == z3.Z3_NUMERAL_AST:
            continue
        if kind != z3.Z3_APP_AST:
            return False  # a lambda or a bound variable
        app = z3.Z3_to_app(ctx, a)
        n = z3.Z3_get_app_num_args(ctx, app)
        if z3.Z3_get_decl_kind(ctx, z3.Z3_get_app_decl(ctx, app)) == z3.Z3_OP_UNINTERPRETED:
            return False
        for k in range(n):
            arg = z3.Z3_get_app_arg(ctx, app, k)
            key = z3.Z3_get_ast_id(ctx, arg)
            if key not in seen:
                seen.add(key)
                stack.append(arg)
    return True


def _constant_part(addr: z3.ExprRef) -> int | None:
    """The sum of the numerals at the top of an address term (``base + offset``).
    Asked at every access through a pointer, on terms that share their subterms, so the
    answers are kept per subterm (:data:`_CONSTANT_PARTS`) and the term is walked with
    z3's C API: on grep the walk through z3's Python wrappers was most of a symbolic execution."""
    ctx = addr.ctx_ref()
    if len(_CONSTANT_PARTS) > CONSTANT_PARTS_KEPT:
        _CONSTANT_PARTS.clear()
        _KEPT_ALIVE.clear()
    key = z3.Z3_get_ast_id(ctx, addr.as_ast())
    if key not in _CONSTANT_PARTS:
        _KEPT_ALIVE.append(addr)  # an id names its term only while the term lives
    return _constant_part_of(ctx, addr.as_ast(), (1 << addr.size()) - 1)


CONSTANT_PARTS_KEPT = 200_000
_CONSTANT_PARTS: dict[int, int | None] = {}  # z3's id of a term -> its constant part
_KEPT_ALIVE: list[z3.ExprRef] = []  # the terms asked, which keep their subterms alive


def _constant_part_of(ctx: z3.ContextObj, ast: z3.Ast, mask: int) -> int | None:
    key = z3.Z3_get_ast_id(ctx, ast)
    if key in _CONSTANT_PARTS:
        return _CONSTANT_PARTS[key]
    value: int | None = None
    kind = z3.Z3_get_ast_kind(ctx, ast)
    if kind == z3.Z3_NUMERAL_AST:
        value = int(z3.Z3_get_numeral_string(ctx, ast))
    elif kind == z3.Z3_APP_AST:
        op = z3.Z3_get_decl_kind(ctx, z3.Z3_get_app_decl(ctx, ast))
        if op == z3.Z3_OP_BADD:
            parts = [_constant_part_of(ctx, z3.Z3_get_app_arg(ctx, ast, i), mask)
                     for i in range(z3.Z3_get_app_num_args(ctx, ast))]
            found = [c for c in parts if c is not None]
            value = sum(found) & mask if found else None
        elif op == z3.Z3_OP_BSUB:
            left = _constant_part_of(ctx, z3.Z3_get_app_arg(ctx, ast, 0), mask)
            right = z3.Z3_get_app_arg(ctx, ast, 1)
            if left is not None:
                value = left
                if z3.Z3_get_ast_kind(ctx, right) == z3.Z3_NUMERAL_AST:
                    value = (left - int(z3.Z3_get_numeral_string(ctx, right))) & mask
    _CONSTANT_PARTS[key] = value
    return value


def _add(a: z3.ExprRef, b: z3.ExprRef) -> z3.ExprRef:
    vb = _numeral(b)
    if vb == 0:
        return a
    if vb is not None:
        va = _numeral(a)
        if va is not None:
            return sem.numeral(va + vb, a.size())
    return a + b


def _mul(a: z3.ExprRef, k: int, bits: int) -> z3.ExprRef:
    if a.size() != bits:
        a = z3.SignExt(bits - a.size(), a) if a.size() < bits else z3.Extract(bits - 1, 0, a)
    va = _numeral(a)
    if va is not None:
        return sem.numeral(va * k, bits)
    return a * sem.numeral(k, bits) if k != 1 else a
