"""C types with sizes fixed by a data model (ILP32 or LP64).

A type object already knows its width in bits, so every later stage (z3 encoding,
harness generation, coverage) reads widths off the type instead of asking the data
model again: one place for each fact.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class DataModel(Enum):
    """The two data models of sv-benchmarks tasks; ILP32 is compiled with ``gcc -m32``."""

    ILP32 = "ILP32"
    LP64 = "LP64"

    @property
    def pointer_bits(self) -> int:
        return 32 if self is DataModel.ILP32 else 64

    @property
    def long_bits(self) -> int:
        return 32 if self is DataModel.ILP32 else 64

    @property
    def gcc_flag(self) -> str:
        return "-m32" if self is DataModel.ILP32 else "-m64"

    @property
    def architecture(self) -> str:
        """The ``<architecture>`` of Test-Comp metadata."""
        return "32bit" if self is DataModel.ILP32 else "64bit"


class CType:
    """Base of all C types."""

    def is_scalar(self) -> bool:
        return isinstance(self, (IntType, FloatType, PointerType))

    def is_arithmetic(self) -> bool:
        return isinstance(self, (IntType, FloatType))


@dataclass(frozen=True)
class VoidType(CType):
    def __str__(self) -> str:
        return "void"


@dataclass(frozen=True)
class IntType(CType):
    """An integer type (also ``_Bool``, enums and ``char``) of ``bits`` width.

    ``rank`` orders types for the usual arithmetic conversions (C11 6.3.1.1).
    """

    name: str
    bits: int
    signed: bool
    rank: int
    is_bool: bool = False

    def __str__(self) -> str:
        return self.name

    @property
    def min(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def max(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    def wrap(self, value: int) -> int:
        """The value ``value`` converted to this type (C11 6.3.1.3, two's complement)."""
        if self.is_bool:
            return 1 if value else 0
        value &= (1 << self.bits) - 1
        if self.signed and value >= 1 << (self.bits - 1):
            value -= 1 << self.bits
        return value


@dataclass(frozen=True)
class FloatType(CType):
    """``float`` (32), ``double`` (64), ``long double`` (80-bit x87, stored in 96/128) or
    ``__float128`` (128). The analyses compute a type wider than ``double`` as a
    ``double`` (imprecisely); its size and alignment are gcc's all the same, since they
    place every member after it (``max_align_t`` under -m32 ends with a ``__float128``)."""

    name: str
    bits: int

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class PointerType(CType):
    target: CType
    bits: int

    def __str__(self) -> str:
        return f"{self.target}*"


@dataclass(frozen=True)
class ArrayType(CType):
    """``elem[length]``; ``length`` is None for an incomplete or variable-length array."""

    elem: CType
    length: int | None

    def __str__(self) -> str:
        return f"{self.elem}[{'' if self.length is None else self.length}]"


@dataclass(frozen=True)
class FunctionType(CType):
    ret: CType
    params: tuple[CType, ...]
    variadic: bool = False

    def __str__(self) -> str:
        return f"{self.ret}({', '.join(map(str, self.params))})"


@dataclass(frozen=True)
class Field:
    name: str
    type: CType
    offset: int  # in bytes from the start of the struct (of the storage unit, for bit-fields)
    bit_width: int | None = None  # bit-field width, None for ordinary members
    bit_offset: int = 0  # bit-fields: position of the lowest bit within the storage unit


@dataclass(eq=False)
class StructType(CType):
    """A struct or union; compared by identity because C tags are nominal.

    ``fields`` is filled in when the definition is seen (forward declarations come
    first), hence mutable.
    """

    tag: str
    is_union: bool
    fields: list[Field] = field(default_factory=list)
    size: int | None = None  # bytes; None while incomplete
    align: int = 1
    declared: list[Field] | None = None
    """The members as declared, where they differ from ``fields``: an anonymous struct
    or union member is one member here, and ``fields`` has its members instead."""

    def __str__(self) -> str:
        return f"{'union' if self.is_union else 'struct'} {self.tag}"

    def __hash__(self) -> int:
        return id(self)

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)


@dataclass(frozen=True)
class Member:
    """A member of a struct or union as declared, before it is laid out."""

    name: str
    type: CType
    bit_width: int | None = None  # a bit-field's width
    alignas: int | None = None  # the alignment ``_Alignas`` asks for, if any


class Types:
    """The type constructors of one data model: ``Types(DataModel.LP64).int``; plain
    ``char`` is signed, as gcc's on x86, unless ``unsigned_char`` (-funsigned-char)."""

    def __init__(self, model: DataModel, unsigned_char: bool = False) -> None:
        self.model = model
        lb = model.long_bits
        self.bool = IntType("_Bool", 8, False, 0, is_bool=True)
        self.char = IntType("char", 8, not unsigned_char, 1)
        self.schar = IntType("signed char", 8, True, 1)
        self.uchar = IntType("unsigned char", 8, False, 1)
        self.short = IntType("short", 16, True, 2)
        self.ushort = IntType("unsigned short", 16, False, 2)
        self.int = IntType("int", 32, True, 3)
        self.uint = IntType("unsigned int", 32, False, 3)
        self.long = IntType("long", lb, True, 4)
        self.ulong = IntType("unsigned long", lb, False, 4)
        self.longlong = IntType("long long", 64, True, 5)
        self.ulonglong = IntType("unsigned long long", 64, False, 5)
        self.int128 = IntType("__int128", 128, True, 6)
        self.uint128 = IntType("unsigned __int128", 128, False, 6)
        self.float = FloatType("float", 32)
        self.double = FloatType("double", 64)
        self.longdouble = FloatType("long double", 80)
        self.float128 = FloatType("__float128", 128)  # also _Float128
        self.void = VoidType()
        self.size_t = self.ulong if model is DataModel.LP64 else self.uint
        self.ptrdiff_t = self.long if model is DataModel.LP64 else self.int

    def pointer(self, target: CType) -> PointerType:
        return PointerType(target, self.model.pointer_bits)

    def sizeof(self, t: CType) -> int:
        """Size in bytes as gcc lays it out for this data model."""
        if isinstance(t, IntType):
            return t.bits // 8
        if isinstance(t, FloatType):
            if t.bits == 80:
                return 12 if self.model is DataModel.ILP32 else 16
            return t.bits // 8
        if isinstance(t, PointerType):
            return t.bits // 8
        if isinstance(t, ArrayType):
            return self.sizeof(t.elem) * (t.length or 0)
        if isinstance(t, StructType):
            return t.size or 0
        if isinstance(t, (VoidType, FunctionType)):
            return 1  # gcc extension: sizeof(void) == 1
        raise TypeError(t)

    def alignof(self, t: CType) -> int:
        if isinstance(t, ArrayType):
            return self.alignof(t.elem)
        if isinstance(t, StructType):
            return t.align
        if t == self.float128:
            return 16  # in both psABIs, i386's too
        size = self.sizeof(t)
        if self.model is DataModel.ILP32:
            # i386 System V: 8-byte scalars are 4-aligned inside structs
            return min(size, 4)
        return min(size, 16)

    def layout(self, s: StructType, members: list[Member], pack: int | None = None) -> None:
        """Complete ``s`` with ``members`` laid out as gcc does (``pack``: the greatest
        alignment a member keeps, ``N`` under ``#pragma pack(N)``, 1 for
        ``__attribute__((packed))``; ``_Alignas`` raises a member's above it)."""
        offset_bits = 0
        align = 1
        fields: list[Field] = []
        for name, t, width, alignas in ((m.name, m.type, m.bit_width, m.alignas) for m in members):
            a = self.alignof(t) if pack is None else min(pack, self.alignof(t))
            a = max(a, alignas or 1)
            align = max(align, a)
            if s.is_union:
                fields.append(Field(name, t, 0, width))
                continue
            if width is not None:
                unit = self.sizeof(t) * 8
                if width == 0 or (offset_bits % unit) + width > unit:
                    offset_bits = -(-offset_bits // unit) * unit
                fields.append(Field(name, t, (offset_bits // unit) * (unit // 8), width, offset_bits % unit))
                offset_bits += width
                continue
            offset_bits = -(-offset_bits // (a * 8)) * (a * 8)
            fields.append(Field(name, t, offset_bits // 8, None))
            offset_bits += self.sizeof(t) * 8
        size_bytes = max((self.sizeof(f.type) for f in fields), default=0) if s.is_union \
            else -(-offset_bits // 8)
        s.fields = fields
        s.align = align
        s.size = -(-size_bytes // align) * align

    def integer_promote(self, t: IntType) -> IntType:
        """C11 6.3.1.1: types of rank below int become int."""
        if t.rank < self.int.rank:
            return self.int
        return t

    def usual_arithmetic(self, a: CType, b: CType) -> CType:
        """C11 6.3.1.8: the common type of a binary arithmetic operation."""
        if isinstance(a, FloatType) or isinstance(b, FloatType):
            fa = a.bits if isinstance(a, FloatType) else 0
            fb = b.bits if isinstance(b, FloatType) else 0
            return a if fa >= fb else b
        assert isinstance(a, IntType) and isinstance(b, IntType)
        a, b = self.integer_promote(a), self.integer_promote(b)
        if a == b:
            return a
        if a.signed == b.signed:
            return a if a.rank >= b.rank else b
        unsigned, signed = (a, b) if not a.signed else (b, a)
        if unsigned.rank >= signed.rank:
            return unsigned
        if signed.bits > unsigned.bits:
            return signed
        return self.unsigned_of(signed)

    def unsigned_of(self, t: IntType) -> IntType:
        for u in (self.uchar, self.ushort, self.uint, self.ulong, self.ulonglong, self.uint128):
            if u.rank == t.rank and not (t is self.char and u is not self.uchar):
                return u
        raise TypeError(t)
