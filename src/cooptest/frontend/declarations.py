"""C types from pycparser declarators: base types, typedefs, struct/union/enum, pointers,
arrays and function types, resolved in the current scope."""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

from pycparser import c_ast, c_generator

from cooptest.cfa.ctype import (ArrayType, CType, FunctionType, IntType, Member, PointerType,
                                StructType, Types, VoidType)
from cooptest.errors import Unsupported
from cooptest.frontend.conversions import decayed_type
from cooptest.frontend.parser import TypeOf
from cooptest.frontend.scope import EnumConst, Scope, Typedef

ConstEval = Callable[[c_ast.Node], int | None]


def where(node: c_ast.Node | None) -> tuple[str | None, int | None]:
    coord = getattr(node, "coord", None)
    return (coord.file, coord.line) if coord else (None, None)


def unsupported(what: str, node: c_ast.Node | None) -> Unsupported:
    file, line = where(node)
    return Unsupported(f"unsupported construct: {what}", file, line)


class LinkedTags:
    """Struct and union types across translation units: one type object for a tag that
    every file defines alike (a header's struct), as the linker assumes of compatible
    types (C11 6.2.7); ``StructType`` is compared by identity, so without this a value
    passed from one file to another would change type on the way.

    A file-scope tag first met in a file that has not defined it is taken to be the
    earlier files' type; when the file's own definition comes it must then agree, or the
    program is refused (its tags would mean two types cooptest cannot tell apart). A
    definition met first is compared at once, and a different one is a type of its own.
    Anonymous structs are keyed by their text (a typedef'd header struct is the same text
    in every file)."""

    def __init__(self) -> None:
        self.canonical: dict[str, tuple[StructType, str | None]] = {}  # key -> (type, file)
        self.adopted: set[str] = set()  # keys taken from earlier files by this file

    def next_unit(self) -> None:
        self.adopted = set()


def same_layout(a: StructType, b: StructType) -> bool:
    """Whether two complete struct types are the same type in two files: members of
    the same names, types, offsets and widths (structs within compared by tag)."""
    return (a.is_union == b.is_union and a.size == b.size and len(a.fields) == len(b.fields)
            and all(f.name == g.name and f.offset == g.offset and f.bit_width == g.bit_width
                    and f.bit_offset == g.bit_offset and _same_type(f.type, g.type)
                    for f, g in zip(a.fields, b.fields)))


def _same_type(a: CType, b: CType) -> bool:
    if isinstance(a, StructType) and isinstance(b, StructType):
        return a.tag == b.tag and a.is_union == b.is_union
    if isinstance(a, PointerType) and isinstance(b, PointerType):
        return _same_type(a.target, b.target)
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        return a.length == b.length and _same_type(a.elem, b.elem)
    if isinstance(a, FunctionType) and isinstance(b, FunctionType):
        return (a.variadic == b.variadic and len(a.params) == len(b.params)
                and _same_type(a.ret, b.ret) and all(map(_same_type, a.params, b.params)))
    return a == b


class TypeResolver:
    def __init__(self, types: Types, scope: Scope, const_eval: ConstEval,
                 packed: frozenset[str] = frozenset()) -> None:
        self.types = types
        self.scope = scope
        self.const_eval = const_eval
        self.type_of: Callable[[c_ast.Node], CType] | None = None  # of typeof(expr)
        self.packed = packed  # tags of structs and unions declared packed
        self.pack: int | None = None  # the greatest member alignment under #pragma pack
        self.packs: list[int | None] = []  # #pragma pack(push)
        self.linked = LinkedTags()
        self.file: str | None = None  # the translation unit being resolved
        self.enumerations: list[tuple[str | None, IntType, tuple[tuple[str, int], ...]]] = []
        """Every enum defined: tag, type, (enumerator, value) in order (to compare with gcc's)."""
        self._anon = 0

    def base_type(self, names: list[str], node: c_ast.Node) -> CType:
        """``unsigned long int`` and friends (C11 6.7.2)."""
        t = self.types
        words = names
        unsigned = "unsigned" in words
        signed = "signed" in words
        longs = words.count("long")
        if "_Complex" in words:
            raise unsupported("complex type", node)
        if "void" in words:
            return t.void
        if "_Bool" in words:
            return t.bool
        if "char" in words:
            return t.uchar if unsigned else t.schar if signed else t.char
        if "short" in words:
            return t.ushort if unsigned else t.short
        if "__int128" in words:
            return t.uint128 if unsigned else t.int128
        if "float" in words:
            return t.float
        if "double" in words:
            return t.longdouble if longs else t.double
        if longs >= 2:
            return t.ulonglong if unsigned else t.longlong
        if longs == 1:
            return t.ulong if unsigned else t.long
        if {"int", "signed", "unsigned"} & set(words):
            return t.uint if unsigned else t.int
        if len(names) == 1:
            found = self.scope.lookup(names[0])
            if isinstance(found, Typedef):
                return found.type
        raise unsupported(f"type {' '.join(names)}", node)

    def resolve(self, node: c_ast.Node) -> CType:
        """The C type a declarator (``Decl.type``, ``Typename.type``) denotes."""
        if isinstance(node, c_ast.TypeDecl):
            return self.resolve(node.type)
        if isinstance(node, TypeOf):
            if isinstance(node.expr, c_ast.Typename):
                return self.resolve(node.expr)
            if self.type_of is None:
                raise unsupported("typeof of an expression", node)
            return self.type_of(node.expr)
        if isinstance(node, c_ast.IdentifierType):
            return self.base_type(node.names, node)
        if isinstance(node, c_ast.PtrDecl):
            return self.types.pointer(self.resolve(node.type))
        if isinstance(node, c_ast.ArrayDecl):
            elem = self.resolve(node.type)
            length = None
            if node.dim is not None:
                length = self.const_eval(node.dim)
            return ArrayType(elem, length)
        if isinstance(node, c_ast.FuncDecl):
            return self.function_type(node)
        if isinstance(node, (c_ast.Struct, c_ast.Union)):
            return self.struct(node)
        if isinstance(node, c_ast.Enum):
            return self.enum(node)
        if isinstance(node, c_ast.Typename):
            return self.resolve(node.type)
        raise unsupported(type(node).__name__, node)

    def function_type(self, node: c_ast.FuncDecl) -> FunctionType:
        """The type of a function; without a prototype (``int f()``, or K&R ``int f(a, b)``
        whose parameter list names no types) it takes any arguments, default-promoted."""
        ret = self.resolve(node.type)
        if node.args is None or any(isinstance(p, c_ast.ID) for p in node.args.params):
            return FunctionType(ret, (), True)
        params: list[CType] = []
        variadic = False
        for p in node.args.params:
            if isinstance(p, c_ast.EllipsisParam):
                variadic = True
                continue
            pt = self.param_type(self.resolve(p.type))
            if isinstance(pt, VoidType):
                continue
            params.append(pt)
        return FunctionType(ret, tuple(params), variadic)

    def param_type(self, t: CType) -> CType:
        """Parameters of array or function type are adjusted to pointers (C11 6.7.6.3)."""
        return decayed_type(self.types, t)

    def struct(self, node: c_ast.Struct | c_ast.Union) -> StructType:
        is_union = isinstance(node, c_ast.Union)
        tag = node.name
        key = None
        if tag is None:
            self._anon += 1
            tag = f"__anon{self._anon}"
            if node.decls is not None and self.scope.at_file_scope():
                key = "anon " + c_generator.CGenerator().visit(node)
        elif self.scope.at_file_scope():
            key = f"{'union' if is_union else 'struct'} {tag}"
        found = self.scope.lookup_tag(tag, innermost_only=node.decls is not None)
        if not isinstance(found, StructType):
            if node.decls is None:
                found = self.scope.lookup_tag(tag)
            if not isinstance(found, StructType):
                earlier = self.linked.canonical.get(key) if key else None
                if earlier is not None and earlier[1] != self.file and node.decls is None:
                    found = earlier[0]  # the earlier files' type, until this file defines it
                    self.linked.adopted.add(key)  # type: ignore[arg-type]
                else:
                    found = StructType(tag, is_union)
                self.scope.declare_tag(tag, found)
        if node.decls is not None and (found.size is None or key in self.linked.adopted):
            own = found if found.size is None else StructType(tag, is_union)
            self._define(own, node, tag)
            if own is not found and not same_layout(own, found):
                raise unsupported(f"{own} defined differently here and in "
                                  f"{self.linked.canonical[key][1]}", node)  # type: ignore[index]
            self.linked.adopted.discard(key)
            if key is not None:
                earlier = self.linked.canonical.get(key)
                if earlier is None:
                    self.linked.canonical[key] = (found, self.file)
                elif earlier[1] != self.file and earlier[0] is not found \
                        and same_layout(found, earlier[0]):
                    found = earlier[0]
                    self.scope.declare_tag(tag, found)
        return found

    def _define(self, found: StructType, node: c_ast.Struct | c_ast.Union, tag: str) -> None:
        members: list[Member] = []
        anonymous: set[str] = set()
        for d in node.decls or []:
            mt = self.resolve(d.type)
            width = self.const_eval(d.bitsize) if d.bitsize is not None else None
            name = d.name or f"__pad{len(members)}"
            if d.name is None and isinstance(mt, StructType):
                # an anonymous struct or union member is laid out as one member, and
                # its fields are the outer one's (C11 6.7.2.1p13): a union's overlap
                name = f"__anonymous{len(members)}"
                anonymous.add(name)
            members.append(Member(name, mt, width, self._alignas(d)))
        pack = 1 if tag in self.packed else self.pack
        if pack is not None and any(m.bit_width is not None for m in members):
            raise unsupported("bit-fields in a packed struct", node)
        self.types.layout(found, members, pack)
        if anonymous:
            found.declared = found.fields
        found.fields = [lifted for f in found.fields for lifted in (
            [replace(g, offset=g.offset + f.offset) for g in f.type.fields]  # type: ignore[attr-defined]
            if f.name in anonymous else [f])]

    def _alignas(self, d: c_ast.Decl) -> int | None:
        """The alignment ``_Alignas`` asks of a member: the greatest of its
        specifiers', a constant or a type's (C11 6.7.5)."""
        asked = [self.types.alignof(self.resolve(a.alignment)) if isinstance(a.alignment, c_ast.Typename)
                 else self.const_eval(a.alignment) for a in getattr(d, "align", None) or []]
        if any(a is None for a in asked):
            raise unsupported("_Alignas of a non-constant", d)
        return max(asked, default=None)  # type: ignore[type-var]

    def pragma(self, node: c_ast.Pragma) -> None:
        """Follow ``#pragma pack``, gcc's (MSVC's) bound on the alignment of the members
        of the structs defined after it: ``pack(N)``, ``pack()``, ``pack(push[, N])``,
        ``pack(pop)``. Another form of it would leave cooptest's layout unlike gcc's."""
        name, _, rest = node.string.strip().partition("(")
        if name.strip() != "pack":
            return
        args = [a.strip() for a in rest.rpartition(")")[0].split(",") if a.strip()]
        if args == ["pop"]:
            self.pack = self.packs.pop() if self.packs else None
            return
        if args[:1] == ["push"]:
            self.packs.append(self.pack)
            args = args[1:]
            if not args:
                return
        if len(args) > 1 or args and not args[0].isdigit():
            raise unsupported(f"#pragma {node.string.strip()}", node)
        self.pack = int(args[0]) or None if args else None

    def enum(self, node: c_ast.Enum) -> CType:
        """An enumerated type as gcc makes it (``finish_enum``): ``unsigned int`` when no
        enumerator is negative, else ``int``, and a 64-bit type of that signedness when
        the values need more than 32 bits. An enumerator whose value fits ``int`` has
        type ``int``, another the enum's type; within the list, its initialiser's."""
        if node.values is None:  # a reference to the tag, or GNU C's forward declaration
            found = self.scope.lookup_tag(node.name) if node.name else None
            return found if isinstance(found, IntType) else self.types.uint
        value, vtype = -1, self.types.int
        values: list[tuple[str, int]] = []
        for e in node.values.enumerators:
            if e.value is not None:
                v = self.const_eval(e.value)
                if v is None:
                    raise unsupported("non-constant enumerator", e)
                value = v
                given = self.type_of(e.value) if self.type_of is not None else vtype
                if not isinstance(given, IntType):
                    raise unsupported("enumerator of a type not an integer", e)
                vtype = given
            else:
                value += 1
            if not vtype.min <= value <= vtype.max:
                raise unsupported("enumerator overflows its type", e)
            values.append((e.name, value))
            # in scope at once: a later enumerator may be defined by an earlier one
            self.scope.declare(e.name, EnumConst(value, self._enumerator_type(value, vtype)))
        enum = self._enum_type(min(v for _, v in values), max(v for _, v in values))
        for name, v in values:
            self.scope.declare(name, EnumConst(v, self._enumerator_type(v, enum)))
        if node.name:
            self.scope.declare_tag(node.name, enum)
        self.enumerations.append((node.name, enum, tuple(values)))
        return enum

    def _enumerator_type(self, value: int, otherwise: IntType) -> IntType:
        return self.types.int if self.types.int.min <= value <= self.types.int.max else otherwise

    def _enum_type(self, least: int, greatest: int) -> IntType:
        """gcc's type for an enum of values ``least`` to ``greatest``: the signedness
        of the least, the precision of the wider end (``tree_int_cst_min_precision``)."""
        t = self.types
        unsigned = least >= 0
        bits = max((v if v >= 0 else ~v).bit_length() + (not unsigned) for v in (least, greatest))
        if bits <= 32:
            return t.uint if unsigned else t.int
        if bits <= 64:
            wide = (t.ulong, t.long) if t.long.bits == 64 else (t.ulonglong, t.longlong)
            return wide[0] if unsigned else wide[1]
        return t.uint128 if unsigned else t.int128
