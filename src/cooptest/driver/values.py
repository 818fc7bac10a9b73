"""C statements that make a value of a library's type from ``__VERIFIER_nondet_*``
inputs: the rules of a harness (issue 43), as UnitTestBot and CBMC's goto-harness
apply them.

* A scalar is one input of its type; an enum is one of its constants first (an index
  input below the number of constants), else any ``int``.
* A pointer is NULL or a fresh object, chosen by an input, so that the function's NULL
  check is a goal like any other (input 0: the object). Pointers are followed at most
  ``max_depth`` times from a parameter; beyond, NULL.
* A pointer to ``char`` (or to ``void``, or to a struct no file defines) is a byte
  buffer of up to ``max_array`` bytes, its length an input, NUL-terminated (a ``char *``
  is a string). A pointer parameter beside an integer parameter named as a length
  (``n``, ``len``, ``size``, ``count``...; after it, else before) is an array of that
  many elements, the length an input of at most ``max_array``; an array parameter
  ``int a[4]`` points to its 4; otherwise a pointer points to one object. Arrays are
  allocated at their largest, zeroed: an allocation of a size that is an input made
  concolic search miss ``strcmp(s, "ring") == 0`` behind it.
* A struct is filled member by member (nested structs, a union's first member; the
  first ``max_array`` elements of an array member; ``const`` members left zero).
* A function pointer is one of the program's functions of its type, a stub of the
  harness (its result an input), or NULL, chosen by an input.

The writer works on the pycparser declarator (for spelling: a fresh object is declared
with the parameter's own pointee type, ``const`` removed) and on the CFA's type of the
same thing (for what it is: widths, fields, the type a function must have) together.
"""
from __future__ import annotations

import copy
import re
from typing import Callable

from pycparser import c_ast, c_generator

from cooptest.cfa.ctype import (ArrayType, CType, DataModel, FloatType, FunctionType, IntType,
                                PointerType, StructType, VoidType)
from cooptest.driver.library import Library, spelled
from cooptest.errors import UserError

LENGTH_NAME = re.compile(r"^(n|len|length|size|count|num|nelem|nmemb|nbytes|cap|capacity|"
                         r".*_(len|length|size|count|num)|n_.*|num_.*)$", re.I)
FILE_TAGS = ("_IO_FILE", "__sFILE", "_iobuf")  # FILE of glibc, BSD libcs, MSVC


def nondet_name(t: CType, model: DataModel) -> str:
    """The ``__VERIFIER_nondet_<name>`` whose values are those of ``t``."""
    if isinstance(t, FloatType):
        return "float" if t.bits == 32 else "double"
    if isinstance(t, IntType):
        if t.is_bool:
            return "bool"
        base = {8: "char", 16: "short", 32: "int"}.get(t.bits)
        if base is None:
            base = "long" if model.long_bits == 64 else "longlong"
        if base == "char" and t.signed:
            return "char"
        return base if t.signed else "u" + base
    raise TypeError(t)


NONDET_TYPES = {"bool": "_Bool", "char": "char", "uchar": "unsigned char", "short": "short",
                "ushort": "unsigned short", "int": "int", "uint": "unsigned int", "long": "long",
                "ulong": "unsigned long", "longlong": "long long",
                "ulonglong": "unsigned long long", "float": "float", "double": "double"}


def renamed(node: c_ast.Node, name: str) -> c_ast.Node:
    """A copy of the declarator ``node`` that declares ``name``."""
    node = copy.deepcopy(node)
    inner = node
    while not isinstance(inner, c_ast.TypeDecl):
        inner = inner.type
    inner.declname = name
    return node


def unqualified(node: c_ast.Node, aliases: dict[int, str] | None = None) -> c_ast.Node:
    """``node`` without ``const`` at its top (through arrays: their elements'): the
    type of an object the harness writes (a copy, ``spelled``)."""
    node = spelled(node, aliases or {})
    inner = node
    while isinstance(inner, c_ast.ArrayDecl):
        inner = inner.type
    if isinstance(inner, (c_ast.TypeDecl, c_ast.PtrDecl)):
        inner.quals = [q for q in inner.quals if q != "const"]
    return node


def declare(node: c_ast.Node, name: str, storage: tuple[str, ...] = (),
            aliases: dict[int, str] | None = None) -> str:
    """``T name`` for the declarator ``node`` (no semicolon), naming the structs it
    refers to rather than defining them (``spelled``)."""
    node = spelled(node, aliases or {})
    decl = c_ast.Decl(name, [], [], list(storage), [], renamed(node, name), None, None)
    return c_generator.CGenerator().visit(decl)


def _constant(node: c_ast.Node) -> bool:
    inner = node.type if isinstance(node, c_ast.Decl) else node
    return isinstance(inner, c_ast.TypeDecl) and "const" in inner.quals


class ValueWriter:
    """Writes, into ``lines``, the statements that build values from inputs."""

    def __init__(self, lib: Library, max_depth: int, max_array: int) -> None:
        self.lib, self.max_depth, self.max_array = lib, max_depth, max_array
        self.model = lib.program.data_model
        self.nondets: set[str] = set()
        self.callbacks: list[str] = []  # definitions of the harness's function stubs
        self._callback_of: dict[str, str] = {}  # a function type's text: its stub
        self._fresh = 0
        self.reserved: set[str] = set()  # the names of the called function's parameters

    # ------------------------------------------------------------------ helpers

    def fresh(self, stem: str) -> str:
        """A name no parameter of the function being called has."""
        self._fresh += 1
        while f"{stem}{self._fresh}" in self.reserved:
            self._fresh += 1
        return f"{stem}{self._fresh}"

    def declare(self, node: c_ast.Node, name: str, storage: tuple[str, ...] = ()) -> str:
        return declare(node, name, storage, self.lib.aliases)

    def input(self, t: CType) -> str:
        name = nondet_name(t, self.model)
        self.nondets.add(name)
        return f"__VERIFIER_nondet_{name}()"

    def length(self) -> str:
        """An input from 0 to ``max_array``."""
        self.nondets.add("uint")
        return f"__VERIFIER_nondet_uint() % {self.max_array + 1}u"

    def choice(self) -> str:
        self.nondets.add("bool")
        return "__VERIFIER_nondet_bool()"

    # ------------------------------------------------------------------ values

    def fill(self, out: list[str], ind: str, lv: str, node: c_ast.Node, t: CType, depth: int,
             where: str) -> None:
        """Statements giving the object ``lv`` (declared by ``node``, of CFA type ``t``)
        a value from inputs. ``where`` names it in a message."""
        shape = self.lib.resolve(node)
        if isinstance(t, (IntType, FloatType)):
            if isinstance(shape, c_ast.Enum) and shape.values is not None \
                    and shape.values.enumerators:
                self._enum(out, ind, lv, shape)
            else:
                out.append(f"{ind}{lv} = {self.input(t)};")
        elif isinstance(t, PointerType):
            pointee = shape.type if isinstance(shape, (c_ast.PtrDecl, c_ast.ArrayDecl)) else None
            fixed = c_generator.CGenerator().visit(shape.dim) \
                if isinstance(shape, c_ast.ArrayDecl) and shape.dim is not None else None
            self.pointer(out, ind, lv, pointee, t, depth, where, fixed=fixed)
        elif isinstance(t, StructType):
            self._struct(out, ind, lv, shape, t, depth, where)
        elif isinstance(t, ArrayType) and t.length:
            elem = shape.type if isinstance(shape, c_ast.ArrayDecl) else None
            if elem is None:
                return
            self.repeat(out, ind, min(t.length, self.max_array),
                        lambda body, inner, i: self.fill(body, inner, f"{lv}[{i}]", elem, t.elem,
                                                         depth, where))

    def _enum(self, out: list[str], ind: str, lv: str, enum: c_ast.Enum) -> None:
        int_type = self.lib.program.types.int
        self.pick(out, ind, lv, [e.name for e in enum.values.enumerators],
                  lambda: self.input(int_type))

    # ------------------------------------------------------------------ decisions
    # Where the harness decides from inputs: a concrete writer (``driver.concrete``)
    # takes each decision as a test's inputs did and writes the outcome alone.

    def pick(self, out: list[str], ind: str, lv: str, options: list[str],
             otherwise: Callable[[], str]) -> None:
        """``lv`` gets the option an input indexes, else ``otherwise()``."""
        k = self.fresh("k")
        chosen = "".join(f"{k} == {n}u ? {c} : " for n, c in enumerate(options))
        self.nondets.add("uint")
        out.append(f"{ind}{{ unsigned {k} = __VERIFIER_nondet_uint();")
        out.append(f"{ind}  {lv} = {chosen}{otherwise()}; }}")

    def either(self, out: list[str], ind: str, null: Callable[[list[str], str], None],
               made: Callable[[list[str], str], None]) -> None:
        """``null`` or ``made``, as an input chooses."""
        out.append(f"{ind}if ({self.choice()}) {{")
        null(out, ind + "  ")
        out.append(f"{ind}}} else {{")
        made(out, ind + "  ")
        out.append(f"{ind}}}")

    def count(self, out: list[str], ind: str) -> str:
        """A number of elements from 0 to ``max_array``, from an input."""
        n = self.fresh("length")
        out.append(f"{ind}unsigned {n} = {self.length()};")
        return n

    def bounded(self, fixed: str, most: int) -> str:
        """The elements filled of an array parameter of ``fixed`` elements."""
        return str(min(int(fixed), most)) if fixed.isdigit() else f"({fixed} < {most} ? {fixed} : {most})"

    def repeat(self, out: list[str], ind: str, times: str | int,
               body: Callable[[list[str], str, str], None]) -> None:
        """``body`` for each index below ``times``."""
        i = self.fresh("i")
        lines: list[str] = []
        body(lines, ind + "    ", i)
        if lines:
            out.append(f"{ind}{{ unsigned {i}; for ({i} = 0; {i} < {times}; {i}++) {{")
            out += lines
            out.append(f"{ind}}} }}")

    def made(self, obj: str, target: CType, n: str, pointee: c_ast.Node) -> None:
        """The object(s) ``obj`` of ``n`` elements is made (what a concrete writer observes)."""

    def _struct(self, out: list[str], ind: str, lv: str, shape: c_ast.Node, t: StructType,
                depth: int, where: str) -> None:
        if t.size is None or not isinstance(shape, (c_ast.Struct, c_ast.Union)):
            return  # incomplete: nothing to fill
        fields = t.fields[:1] if t.is_union else t.fields
        for f in fields:
            if f.name.startswith("__pad") or (isinstance(f.type, ArrayType) and not f.type.length):
                continue
            decl = self.lib.member(shape, f.name)
            if decl is None or _constant(decl):
                continue
            member = f"{lv[1:]}->{f.name}" if lv.startswith("*") and lv[1:].isidentifier() \
                else f"{lv}.{f.name}"
            self.fill(out, ind, member, decl.type, f.type, depth, f"{where}.{f.name}")

    def pointer(self, out: list[str], ind: str, lv: str, pointee: c_ast.Node | None,
                t: PointerType, depth: int, where: str, length: str | None = None,
                fixed: str | None = None) -> None:
        """NULL or a fresh object for the pointer ``lv``; ``length``: the variable
        that gets the number of elements made (a length parameter), if any; ``fixed``:
        the number of elements of an array parameter (``int a[4]``)."""
        target = t.target
        if isinstance(target, FunctionType):
            self._function(out, ind, lv, pointee, target)
            return
        if isinstance(target, StructType) and target.tag in FILE_TAGS:
            if depth == 0:
                raise UserError(f"{where} is a FILE *: cooptest makes no stream from inputs "
                                "(write a harness that opens one, and give it as the program)")
            out.append(f"{ind}{lv} = 0;")
            return
        if depth >= self.max_depth or pointee is None:
            out.append(f"{ind}{lv} = 0;{'  /* deeper than --max-depth */' if depth else ''}")
            if length:
                out.append(f"{ind}{length} = 0;")
            return
        def null(lines: list[str], inner: str) -> None:
            lines.append(f"{inner}{lv} = 0;")
            if length:
                lines.append(f"{inner}{length} = 0;")
        self.either(out, ind, null, lambda lines, inner: self._object(
            lines, inner, lv, pointee, target, depth, where, length, fixed))

    def _object(self, out: list[str], ind: str, lv: str, pointee: c_ast.Node, target: CType,
                depth: int, where: str, length: str | None, fixed: str | None) -> None:
        """The fresh object(s) ``lv`` points to: bytes, an array of a length that is an
        input (``length``) or fixed (``fixed``, an array parameter's), or one object."""
        obj = self.fresh("object")
        bytes_ = isinstance(target, VoidType) or (isinstance(target, IntType) and target.bits == 8) \
            or (isinstance(target, StructType) and target.size is None)
        spelled = f"unsigned char *{obj}" if bytes_ and not isinstance(target, IntType) \
            else self.declare(c_ast.PtrDecl([], unqualified(pointee, self.lib.aliases), None), obj)
        # an anonymous struct no typedef names is spelled as another one of the same layout
        cast = "(void *)" if "{" in spelled or not isinstance(target, IntType) and bytes_ else ""
        count, most = fixed or str(self.max_array + bytes_), self.max_array
        if bytes_ or length:
            n = self.count(out, ind)
        elif fixed:
            n = self.bounded(fixed, most)
        else:
            n, count = "", "1"
        out.append(f"{ind}{spelled} = calloc({count}, sizeof *{obj});")
        elem = target if not bytes_ or isinstance(target, IntType) else self.lib.program.types.uchar
        self.made(obj, elem, n or "1", pointee)
        if n:
            self.repeat(out, ind, n, lambda body, inner, i: self.fill(
                body, inner, f"{obj}[{i}]", pointee, elem, depth + 1, where + "[]"))
            if length:
                out.append(f"{ind}{length} = {n};")
        else:
            self.fill(out, ind, f"*{obj}", pointee, target, depth + 1, f"*{where}")
        out.append(f"{ind}{lv} = {cast}{obj};")

    def _function(self, out: list[str], ind: str, lv: str, pointee: c_ast.Node | None,
                  t: FunctionType) -> None:
        """One of the program's functions of type ``t``, the harness's stub, or NULL."""
        names = sorted(n for n in self.lib.external_functions()
                       if n in self.lib.program.functions and self.lib.program.functions[n].type == t)
        shape = self.lib.resolve(pointee) if pointee is not None else None
        if isinstance(shape, c_ast.FuncDecl):
            names.append(self.callback(shape, t))
        self.pick(out, ind, lv, names, lambda: "0")

    # ------------------------------------------------------------------ stubs

    def callback(self, shape: c_ast.FuncDecl, t: FunctionType) -> str:
        """The harness's stub of function type ``t``, written once per type."""
        key = c_generator.CGenerator().visit(c_ast.Typename(None, [], None, shape))
        if key not in self._callback_of:
            name = self.fresh("callback")
            self._callback_of[key] = name
            self.callbacks.append(self.stub(name, shape, t, static=True))
        return self._callback_of[key]

    def stub(self, name: str, shape: c_ast.FuncDecl, t: FunctionType, static: bool = False) -> str:
        """A definition of ``name``, of function type ``shape``, whose result is an input
        and which gives the objects its pointer parameters point to (``int *``, never a
        ``char`` buffer or a struct the caller built) a value from inputs."""
        fdecl = copy.deepcopy(shape)
        params: list[tuple[str, c_ast.Node]] = []
        if fdecl.args is not None:
            if any(isinstance(p, c_ast.ID) for p in fdecl.args.params):
                fdecl.args = None  # K&R: the stub takes what it is given
            else:
                kept = []
                for i, p in enumerate(fdecl.args.params):
                    if isinstance(p, c_ast.EllipsisParam) or _is_void(p):
                        kept.append(p)
                        continue
                    pname = f"a{i}"
                    kept.append(c_ast.Decl(pname, [], [], [], [], renamed(p.type, pname), None, None))
                    params.append((pname, p.type))
                fdecl.args = c_ast.ParamList(kept)
        head = self.declare(fdecl, name, ("static",) if static else ())
        body: list[str] = []
        for (pname, pnode), pt in zip(params, t.params):
            shape_p = self.lib.resolve(pnode)
            if isinstance(pt, PointerType) and isinstance(pt.target, (IntType, FloatType)) \
                    and pt.target.bits > 8 and isinstance(shape_p, c_ast.PtrDecl) \
                    and not _constant(shape_p.type):
                body.append(f"  if ({pname}) *{pname} = {self.input(pt.target)};")
        if not isinstance(t.ret, VoidType):
            ret = unqualified(fdecl.type, self.lib.aliases)
            body.insert(0, f"  {self.declare(ret, 'result')};")
            if isinstance(t.ret, StructType):
                body.append("  memset(&result, 0, sizeof result);")
            self.fill(body, "  ", "result", ret, t.ret, 0, f"the result of {name}")
            body.append("  return result;")
        return f"{head} {{\n" + "\n".join(body) + ("\n" if body else "") + "}"


def _is_void(p: c_ast.Node) -> bool:
    inner = getattr(p, "type", None)
    return isinstance(p, c_ast.Typename) and isinstance(inner, c_ast.TypeDecl) \
        and isinstance(inner.type, c_ast.IdentifierType) and inner.type.names == ["void"]
