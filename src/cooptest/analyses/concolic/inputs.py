"""Test inputs as C literal text and as values of the input symbols.

The native harness reads each input with ``sscanf`` (see ``harness/nondet.py``), so a
value found by the solver is written as text that ``sscanf`` reads back exactly: signed
decimal for signed integers, unsigned decimal for unsigned ones, ``0``/``1`` for
``_Bool``, characters as integers, floating-point values by ``repr`` (the shortest
decimal that reads back as the same double; a float's value is exact in a double, so
``strtof`` of that text rounds to the same float).

A ``__VERIFIER_nondet_string()`` input is a line the harness reads with ``%[^\\n]``
into a buffer of its own: its symbol is the vector of its first bytes
(``symbolic.STRING_BYTES``; byte ``i`` at bits ``8i``), of type ``char[STRING_BYTES]``,
and its text is the bytes
before the first NUL between double quotes, which the harness strips (as TestCov's
does), so that any printable content reads back as it is.
"""
from __future__ import annotations

import math
import struct

import z3

from cooptest.analyses.semantics import sort_of
from cooptest.cfa.ctype import ArrayType, CType, FloatType, IntType, PointerType

SMALL = 255  # what the solver is first asked to keep integer inputs within (magnitude)


def parse_literal(text: str, t: CType) -> int | float | None:
    """The value the harness reads from ``text`` for an input of type ``t`` (None when
    this module cannot tell, e.g. strings)."""
    if isinstance(t, ArrayType):
        return _string_value(text, t)
    s = text.strip()
    if isinstance(t, FloatType):
        s = s.rstrip("fFlL")
        try:
            return float.fromhex(s) if s.lower().lstrip("+-").startswith("0x") else float(s)
        except ValueError:
            return None
    if not isinstance(t, (IntType, PointerType)):
        return None
    if len(s) >= 3 and s[0] == "'" and s[-1] == "'":
        return _wrap(ord(s[1]), t)
    if len(s) >= 2 and s[0] in "'\"" and s[-1] == s[0]:
        s = s[1:-1]
    s = s.rstrip("uUlL")
    try:
        value = int(s, 16) if s.lower().startswith("0x") else int(s, 10)
    except ValueError:
        return None
    return _wrap(value, t)


def small(symbol: z3.ExprRef, t: CType) -> z3.BoolRef | None:
    """``symbol``, an input of type ``t``, is small: within ``[-SMALL, SMALL]`` if
    signed, ``[0, SMALL]`` if unsigned (None for types without such a bound)."""
    if not isinstance(t, IntType) or t.is_bool or t.bits <= 8:
        return None
    if t.signed:
        return z3.And(symbol >= -SMALL, symbol <= SMALL)
    return z3.ULE(symbol, SMALL)


def _wrap(value: int, t: CType) -> int:
    if isinstance(t, IntType):
        return t.wrap(value)
    return value & ((1 << t.bits) - 1)  # type: ignore[attr-defined]


def to_z3(value: int | float, t: CType) -> z3.ExprRef:
    if isinstance(t, FloatType):
        return z3.FPVal(value, sort_of(t))
    if isinstance(t, ArrayType):
        return z3.BitVecVal(int(value), 8 * (t.length or 0))
    return z3.BitVecVal(value & ((1 << t.bits) - 1), t.bits)  # type: ignore[attr-defined]


def literal(value: z3.ExprRef, t: CType) -> str:
    """C literal text of a model value of an input of type ``t``."""
    if isinstance(t, ArrayType):
        data = value.as_long().to_bytes(t.length or 0, "little")
        return '"' + data.split(b"\0", 1)[0].decode("latin-1") + '"'
    if isinstance(t, FloatType):
        f = float_of(value)
        if math.isnan(f):
            return "nan"
        return repr(f)
    v = value.as_long()
    if isinstance(t, IntType):
        if t.is_bool:
            return "1" if v else "0"
        return str(t.wrap(v))
    return str(v)


def float_of(value: z3.ExprRef) -> float:
    """The Python float of a z3 floating-point value, exactly, through its IEEE bits
    (``semantics.eval_fp`` relies on ``FPNumRef.as_decimal``, which z3 lacks)."""
    if value.isNaN():
        return math.nan  # its IEEE bits are unspecified in z3
    bits = z3.simplify(z3.fpToIEEEBV(value)).as_long()
    if value.sort().ebits() == 8:
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def _string_value(text: str, t: ArrayType) -> int:
    """What the harness makes of the line ``text`` (one leading quote and the last
    character dropped, as it does), as the symbol's value."""
    if text[:1] in ("'", '"'):
        text = text[1:-1]
    data = text.split("\n", 1)[0].encode("latin-1", "replace")[:t.length or 0]
    return int.from_bytes(data.ljust(t.length or 0, b"\0"), "little")
