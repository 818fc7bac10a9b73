"""Constant folding of IR expressions with exact C integer semantics.

Needed where C demands constants (array sizes, case labels, enum values, bit-field
widths) and to keep CFAs small (``sizeof`` arithmetic, ``-1`` literals)."""
from __future__ import annotations

from cooptest.cfa.ctype import IntType
from cooptest.cfa.ir import Binary, Cast, Const, Expr, Unary


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def int_binary(op: str, a: int, b: int, t: IntType) -> int | None:
    """``a op b`` in type ``t`` (operands already of ``t``); None where C leaves it undefined."""
    if op == "+":
        return t.wrap(a + b)
    if op == "-":
        return t.wrap(a - b)
    if op == "*":
        return t.wrap(a * b)
    if op in ("/", "%"):
        if b == 0:
            return None
        q = _c_div(a, b)
        return t.wrap(q) if op == "/" else t.wrap(a - q * b)
    if op == "&":
        return t.wrap(a & b)
    if op == "|":
        return t.wrap(a | b)
    if op == "^":
        return t.wrap(a ^ b)
    if op in ("<<", ">>"):
        if b < 0 or b >= t.bits:
            return None
        return t.wrap(a << b) if op == "<<" else t.wrap(a >> b)
    raise ValueError(op)


COMPARE = {"==": int.__eq__, "!=": int.__ne__, "<": int.__lt__, "<=": int.__le__,
           ">": int.__gt__, ">=": int.__ge__}


def uncast(e: Expr) -> Expr:
    """``e`` under its casts (what a loop-step or bound pattern looks at)."""
    while isinstance(e, Cast):
        e = e.operand
    return e


def fold(e: Expr) -> Expr:
    """``e`` with its top operation evaluated when its operands are integer constants."""
    if isinstance(e, Cast) and isinstance(e.operand, Const) and isinstance(e.type, IntType) \
            and isinstance(e.operand.value, int):
        return Const(e.type, e.type.wrap(e.operand.value))
    if isinstance(e, Cast) and isinstance(e.operand, Const) and isinstance(e.type, IntType):
        v = e.operand.value
        if v == v and abs(v) != float("inf") and e.type.min <= int(v) <= e.type.max:
            return Const(e.type, e.type.wrap(int(v)))
    if isinstance(e, Unary) and isinstance(e.operand, Const) and isinstance(e.type, IntType) \
            and isinstance(e.operand.value, int):
        v = e.operand.value
        r = {"-": -v, "~": ~v, "!": int(v == 0)}[e.op]
        return Const(e.type, e.type.wrap(r))
    if isinstance(e, Binary) and isinstance(e.left, Const) and isinstance(e.right, Const) \
            and isinstance(e.type, IntType) and isinstance(e.left.type, IntType) \
            and isinstance(e.right.type, IntType):
        a, b = e.left.value, e.right.value
        assert isinstance(a, int) and isinstance(b, int)
        if e.op in COMPARE:
            return Const(e.type, int(COMPARE[e.op](a, b)))
        folded = int_binary(e.op, a, b, e.type)
        if folded is not None:
            return Const(e.type, folded)
    return e


def const_int(e: Expr) -> int | None:
    """The integer value of ``e`` if it folds to a constant."""
    e = fold(e)
    return e.value if isinstance(e, Const) and isinstance(e.value, int) else None
