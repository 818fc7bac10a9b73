"""A test of a library's harness as the C a developer would write: the function called
with the arguments the test's inputs built, each object spelled out.

The harness decides from inputs where it builds a value (NULL or an object, how many
elements, which enumerator or function); ``ConcreteWriter`` is the same ``ValueWriter``
taking each decision as the test's inputs take it, so the rules that build values stay
in one place (``values``) and a test's objects are the harness's, element for element.
The inputs are read as TestCov's harness reads them (``sscanf`` with its formats,
``0x`` in hexadecimal, ``'c'`` for a char), then wrapped to the type's width as C's
conversion does.
"""
from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass

from pycparser import c_ast

from cooptest.cfa.ctype import ArrayType, CType, FloatType, IntType, PointerType, StructType
from cooptest.driver.library import Library
from cooptest.driver.values import NONDET_TYPES, ValueWriter, nondet_name
from cooptest.errors import UserError
from cooptest.frontend.literals import c_string

_NUMBER = re.compile(r"\s*([+-]?)(0[xX][0-9a-fA-F]+|\d+)")
_ZERO = re.compile(r" = (0|0u|0LL|0uLL|0x0\.0p\+0);$")  # a zero as ``literal`` writes it
_ARITHMETIC = re.compile(r"^[\d\s()+\-*/]+$")  # an array dimension gcc folded to digits and operators


class OutOfInputs(Exception):
    """The test's inputs end before the arguments are built: the run never called."""


def value_of(raw: str, nondet: str) -> int | float:
    """The value ``__VERIFIER_nondet_<nondet>()`` returns for the input text ``raw``."""
    text = raw.strip()
    if nondet == "char" and text.startswith("'") and len(text) >= 3:
        return _wrap(ord(text[1]), 8, True)
    if text[:1] in "'\"":
        text = text[1:-1]
    if nondet in ("float", "double"):
        number = float(text.rstrip("fFlL"))
        return struct.unpack("f", struct.pack("f", number))[0] if nondet == "float" \
            and math.isfinite(number) and abs(number) < 3.5e38 else number
    m = _NUMBER.match(text)
    if m is None:
        raise OutOfInputs(f"unparsable input {raw!r}")
    value = int(m.group(2), 16 if m.group(2)[:2] in ("0x", "0X") else 10)
    value = -value if m.group(1) == "-" else value
    if nondet == "bool":  # read as an int, then converted to _Bool
        return int(_wrap(value, 32, True) != 0)
    ctype = NONDET_TYPES[nondet]
    bits = {"char": 8, "short": 16, "int": 32, "long": 64, "long long": 64}[ctype.removeprefix("unsigned ")]
    return _wrap(value, bits, not ctype.startswith("unsigned"))


def _wrap(value: int, bits: int, signed: bool) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if signed and value >> (bits - 1) else value


def literal(value: int | float, ctype: CType) -> str:
    """``value`` as a C constant of ``ctype``'s type (``'a'`` for a printable char)."""
    if isinstance(ctype, FloatType):
        if math.isnan(value):
            return "__builtin_nan(\"\")"
        if math.isinf(value):
            return f"{'-' if value < 0 else ''}__builtin_inf()"
        return float(value).hex()
    assert isinstance(ctype, IntType) and isinstance(value, int)  # value_of: an integer's input
    if ctype.bits == 8 and not ctype.is_bool and 32 <= value < 127 and chr(value) not in "'\\":
        return f"'{chr(value)}'"
    if value == -(1 << (ctype.bits - 1)) and ctype.bits >= 32:
        return f"({value + 1}{'LL' if ctype.bits > 32 else ''} - 1)"
    suffix = ("" if ctype.signed else "u") + ("LL" if ctype.bits > 32 else "")
    return f"{value}{suffix if ctype.bits >= 32 and not ctype.is_bool else ''}"


@dataclass
class Made:
    """An object the test builds: ``n`` elements of ``target`` at ``name``."""

    name: str
    target: CType
    n: int
    constant: bool  # the function may not write it (a ``const`` pointee)


class ConcreteWriter(ValueWriter):
    """A ``ValueWriter`` that writes the values one test's inputs give."""

    def __init__(self, lib: Library, max_depth: int, max_array: int) -> None:
        super().__init__(lib, max_depth, max_array)
        self.inputs: list[str] = []
        self.objects: list[Made] = []

    def start(self, inputs: list[str]) -> None:
        """Write the next test, from ``inputs``."""
        self.inputs, self.objects = list(inputs), []

    def take(self, nondet: str) -> int | float:
        if not self.inputs:
            raise OutOfInputs("the inputs end before the call")
        self.nondets.add(nondet)
        return value_of(self.inputs.pop(0), nondet)

    def input(self, t: CType) -> str:
        return literal(self.take(nondet_name(t, self.model)), t)

    def pick(self, out: list[str], ind: str, lv: str, options: list[str], otherwise) -> None:
        k = self.take("uint")
        assert isinstance(k, int)
        out.append(f"{ind}{lv} = {options[k] if k < len(options) else otherwise()};")

    def either(self, out: list[str], ind: str, null, made) -> None:
        (null if self.take("bool") else made)(out, ind)

    def count(self, out: list[str], ind: str) -> str:
        return str(self.take("uint") % (self.max_array + 1))

    def bounded(self, fixed: str, most: int) -> str:
        if not _ARITHMETIC.match(fixed):
            raise UserError(f"an array parameter of {fixed} elements: cooptest cannot count them "
                            "for a unit test")
        return str(min(int(eval(fixed, {"__builtins__": {}})), most))  # digits and operators only

    def repeat(self, out: list[str], ind: str, times, body) -> None:
        lines: list[str] = []
        for i in range(int(times)):
            body(lines, ind, str(i))
        byte_arrays = {m.name for m in self.objects if isinstance(m.target, IntType) and m.target.bits == 8}
        out += _as_string(lines, ind, int(times), byte_arrays)

    def fill(self, out: list[str], ind: str, lv: str, node: c_ast.Node, t: CType, depth: int,
             where: str) -> None:
        """As the harness fills ``lv``, but a zero stored into a fresh object, which
        calloc made zero, is left unwritten."""
        if not isinstance(t, (IntType, FloatType)):
            super().fill(out, ind, lv, node, t, depth, where)
            return
        lines: list[str] = []
        super().fill(lines, ind, lv, node, t, depth, where)
        fresh = re.match(r"\*?(\w+)", lv)
        if fresh and any(m.name == fresh[1] for m in self.objects):
            lines = [ln for ln in lines if not _ZERO.search(ln)]
        out += lines

    def made(self, obj: str, target: CType, n: str, pointee: c_ast.Node) -> None:
        inner = pointee.type if isinstance(pointee, c_ast.Decl) else pointee
        constant = isinstance(inner, (c_ast.TypeDecl, c_ast.PtrDecl)) and "const" in inner.quals
        self.objects.append(Made(obj, target, int(n), constant))


_BYTE = re.compile(r"^\s*(\w+)\[(\d+)\] = ('(?:[^'\\])'|-?\d+);$")


def _as_string(lines: list[str], ind: str, n: int, byte_arrays: set[str]) -> list[str]:
    """The bytes of a fresh char array, one statement each, as one ``memcpy`` from a
    string literal (``memcpy(object5, "{\"a\":1}", 7);``); other lines as they are."""
    matches = [m for ln in lines if (m := _BYTE.match(ln)) is not None]
    if n < 2 or not lines or len(matches) < len(lines) or {m[1] for m in matches} - byte_arrays \
            or len({m[1] for m in matches}) != 1:
        return lines
    data = bytearray(n)
    for m in matches:
        value = m[3]
        data[int(m[2])] = ord(value[1]) if value.startswith("'") else int(value) & 0xFF
    text = c_string(bytes(data).decode("utf-8", errors="surrogateescape"))
    return [f"{ind}memcpy({matches[0][1]}, {text}, {n});"]


def leaves(lv: str, t: CType, most: int, limit: int = 64) -> list[tuple[str, CType]]:
    """The scalars and pointers inside the object ``lv`` of type ``t`` (arrays up to
    ``most`` elements, a union's first member), at most ``limit``: what a call may
    write there."""
    if isinstance(t, (IntType, FloatType, PointerType)):
        return [(lv, t)]
    out: list[tuple[str, CType]] = []
    if isinstance(t, ArrayType) and t.length:
        for i in range(min(t.length, most)):
            out += leaves(f"{lv}[{i}]", t.elem, most, limit - len(out))
            if len(out) >= limit:
                break
    elif isinstance(t, StructType) and t.size is not None:
        for f in t.fields[:1] if t.is_union else t.fields:
            if f.name.startswith("__pad") or not f.name or (isinstance(f.type, ArrayType) and not f.type.length):
                continue
            member = f"{lv[1:]}->{f.name}" if lv.startswith("*") and lv[1:].isidentifier() else f"{lv}.{f.name}"
            out += leaves(member, f.type, most, limit - len(out))
            if len(out) >= limit:
                break
    return out[:limit]
