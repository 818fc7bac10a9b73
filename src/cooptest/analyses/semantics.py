"""C operator semantics on z3 terms: the one place where the analyses learn what ``+``,
``/``, ``>>`` or a cast mean on bit-vectors and floats.

Integers are bit-vectors of their type's width; signedness is not part of a z3 term, so
every function takes the IR type that says how to read the bits (the front end has made
all conversions explicit, so operands of an operation share one type). Floats are z3
IEEE floating point (``long double`` as double: analyses that care must treat it as
unknown). Undefined behaviour (signed overflow, division by zero, oversized shifts) is
given the value gcc's x86 code computes, because tests are replayed on that code.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable

import z3

from cooptest.cfa.calls import expressions
from cooptest.cfa.ctype import CType, FloatType, IntType, PointerType
from cooptest.cfa.ir import Binary, Edge, Expr, Unary
from cooptest.cfa.signed_overflow import overflowing

RNE = z3.RNE()
RTZ = z3.RTZ()


def sort_of(t: CType) -> z3.SortRef:
    """The z3 sort of a scalar C type (pointers are bit-vectors of the pointer width)."""
    if isinstance(t, IntType):
        return z3.BitVecSort(t.bits)
    if isinstance(t, PointerType):
        return z3.BitVecSort(t.bits)
    if isinstance(t, FloatType):
        return z3.Float32() if t.bits == 32 else z3.Float64()
    raise TypeError(f"no scalar sort for {t}")


def const(value: int | float, t: CType) -> z3.ExprRef:
    if isinstance(t, FloatType):
        return z3.FPVal(value, sort_of(t))
    return numeral(value, t.bits)  # type: ignore[arg-type, attr-defined]


def numeral(value: int, bits: int) -> z3.BitVecNumRef:
    """The ``bits``-wide numeral of ``value`` modulo 2**bits, as ``z3.BitVecVal``."""
    return _bit_vector(value & ((1 << bits) - 1), bits)


@lru_cache(maxsize=1 << 16)
def _bit_vector(value: int, bits: int) -> z3.BitVecNumRef:
    """Numerals recur all the time (0, 1, bounds, the addresses of objects) and z3's
    Python API takes tens of microseconds to build one (a sort, a numeral and their
    Python objects): on grep, 8% of a symbolic execution."""
    return z3.BitVecVal(value, bits)


def fresh(name: str, t: CType) -> z3.ExprRef:
    return z3.Const(name, sort_of(t))


def is_signed(t: CType) -> bool:
    return isinstance(t, IntType) and t.signed


def truth(term: z3.ExprRef, t: CType) -> z3.BoolRef:
    """C's ``term != 0`` as a z3 Boolean."""
    if isinstance(t, FloatType):
        return z3.Not(z3.fpIsZero(term))
    return term != 0


def from_bool(b: z3.BoolRef, t: CType) -> z3.ExprRef:
    return z3.If(b, const(1, t), const(0, t))


def cast(term: z3.ExprRef, src: CType, dst: CType) -> z3.ExprRef:
    """Conversion C11 6.3.1 of ``term`` from ``src`` to ``dst``."""
    if isinstance(dst, IntType) and dst.is_bool:
        return from_bool(truth(term, src), dst)
    if isinstance(src, FloatType) and isinstance(dst, FloatType):
        return z3.fpFPToFP(RNE, term, sort_of(dst)) if src.bits != dst.bits else term
    if isinstance(src, FloatType):
        # out-of-range conversion is undefined; x86 cvttsd2si yields INT_MIN, which z3's
        # unspecified result need not match: analyses treat such paths as imprecise
        bits = dst.bits  # type: ignore[attr-defined]
        return z3.fpToSBV(RTZ, term, z3.BitVecSort(bits)) if is_signed(dst) or bits < 64 \
            else z3.fpToUBV(RTZ, term, z3.BitVecSort(bits))
    if isinstance(dst, FloatType):
        if is_signed(src):
            return z3.fpSignedToFP(RNE, term, sort_of(dst))
        return z3.fpUnsignedToFP(RNE, term, sort_of(dst))
    sb, db = term.size(), dst.bits  # type: ignore[attr-defined]
    if db == sb:
        return term
    if db < sb:
        return z3.Extract(db - 1, 0, term)
    return z3.SignExt(db - sb, term) if is_signed(src) else z3.ZeroExt(db - sb, term)


def overflows(op: str, a: z3.ExprRef, b: z3.ExprRef | None) -> z3.BoolRef | None:
    """When the signed operation ``a op b`` (``-a`` for ``b`` None) leaves its type: the
    bits the CFA wraps are then not C's value, and gcc may have computed another
    (``frontend.folding``). None for an operation not judged here (a shift)."""
    if b is None:
        return z3.Not(z3.BVSNegNoOverflow(a)) if op == "-" else None
    if op == "+":
        return z3.Not(z3.And(z3.BVAddNoOverflow(a, b, True), z3.BVAddNoUnderflow(a, b)))
    if op == "-":
        return z3.Not(z3.And(z3.BVSubNoOverflow(a, b), z3.BVSubNoUnderflow(a, b, True)))
    if op == "*":
        return z3.Not(z3.And(z3.BVMulNoOverflow(a, b, True), z3.BVMulNoUnderflow(a, b)))
    if op in ("/", "%"):
        return z3.Not(z3.BVSDivNoOverflow(a, b))
    return None


def edge_overflows(edge: Edge, term: Callable[[Expr], z3.ExprRef]) -> list[z3.BoolRef] | None:
    """When each signed operation of ``edge`` that may leave its type
    (``signed_overflow.overflowing``) does, over the terms ``term`` gives its operands
    (an analysis's own: chc's clauses, a symbolic execution's state); None where one is not
    judged here (a shift): it may overflow for all anyone knows."""
    conditions = []
    for x in (x for e in expressions(edge) for x in e.walk() if overflowing(x)):
        if isinstance(x, Binary):
            condition = overflows(x.op, term(x.left), term(x.right))
        else:
            assert isinstance(x, Unary)  # ``overflowing``: a binary operation or a negation
            condition = overflows(x.op, term(x.operand), None)
        if condition is None:
            return None
        conditions.append(condition)
    return conditions


def unary(op: str, term: z3.ExprRef, t: CType, result: CType) -> z3.ExprRef:
    if op == "!":
        return from_bool(z3.Not(truth(term, t)), result)
    if op == "-":
        return z3.fpNeg(term) if isinstance(t, FloatType) else -term
    if op == "~":
        return ~term
    raise ValueError(op)


def _shift_amount(b: z3.ExprRef, width: int, signed_b: bool) -> z3.ExprRef:
    """The right operand of a shift brought to the left operand's width; x86 masks the
    amount to 5 (or 6) bits, which is what the native code does for oversized shifts."""
    if b.size() > width:
        b = z3.Extract(width - 1, 0, b)
    elif b.size() < width:
        b = z3.SignExt(width - b.size(), b) if signed_b else z3.ZeroExt(width - b.size(), b)
    mask = 31 if width <= 32 else 63
    return b & mask


def binary(op: str, a: z3.ExprRef, b: z3.ExprRef, t: CType, right_type: CType,
           result: CType) -> z3.ExprRef:
    """``a op b`` where ``a`` has type ``t`` (and ``b`` too, except for shifts, where it
    has ``right_type``); comparisons yield an ``int`` 0/1 of type ``result``."""
    if isinstance(t, FloatType):
        return _float_binary(op, a, b, result)
    signed = is_signed(t)
    if op in ("==", "!=", "<", "<=", ">", ">="):
        cmp = {
            "==": lambda: a == b, "!=": lambda: a != b,
            "<": lambda: a < b if signed else z3.ULT(a, b),
            "<=": lambda: a <= b if signed else z3.ULE(a, b),
            ">": lambda: a > b if signed else z3.UGT(a, b),
            ">=": lambda: a >= b if signed else z3.UGE(a, b),
        }[op]()
        return from_bool(cmp, result)
    if op in ("+", "-"):
        return _sum(a, b, op)
    if op == "*":
        return a * b
    if op == "/":
        return a / b if signed else z3.UDiv(a, b)
    if op == "%":
        return z3.SRem(a, b) if signed else z3.URem(a, b)
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    if op in ("<<", ">>"):
        amount = _shift_amount(b, a.size(), is_signed(right_type))
        if op == "<<":
            return a << amount
        return a >> amount if signed else z3.LShR(a, amount)
    raise ValueError(op)


def _sum(a: z3.ExprRef, b: z3.ExprRef, op: str) -> z3.ExprRef:
    """``a + b`` or ``a - b``, with constant offsets folded: ``(x - 1) - 1`` is ``x - 2``.
    A counter decremented from an input (a loop, a recursion ``f(x - 1)``) then stays one
    term deep instead of growing by one operation per step, which made evaluating and
    solving its conditions quadratic in the path's length (KLEE's expression builder
    folds the same way)."""
    if z3.is_bv_value(a) and op == "+":
        a, b = b, a
    if z3.is_bv_value(b):
        base, offset = _offset(a)
        if base is not a:  # an offset to fold into
            width = a.size()
            k = (offset + b.as_long() if op == "+" else offset - b.as_long()) % (1 << width)
            if k == 0:
                return base
            if k >= 1 << (width - 1):  # a negative offset reads as a subtraction
                return base - numeral((1 << width) - k, width)
            return base + numeral(k, width)
    return a + b if op == "+" else a - b


def _offset(term: z3.ExprRef) -> tuple[z3.ExprRef, int]:
    """``term`` as ``base + offset`` when it is a sum or difference with a constant."""
    if z3.is_app(term) and term.num_args() == 2:
        kind = term.decl().kind()
        if kind == z3.Z3_OP_BADD or kind == z3.Z3_OP_BSUB:
            c = term.arg(1)
            if z3.is_bv_value(c):
                return term.arg(0), c.as_long() if kind == z3.Z3_OP_BADD else -c.as_long()
    return term, 0


def _float_binary(op: str, a: z3.ExprRef, b: z3.ExprRef, result: CType) -> z3.ExprRef:
    if op in ("==", "!=", "<", "<=", ">", ">="):
        cmp = {"==": z3.fpEQ, "!=": lambda x, y: z3.Not(z3.fpEQ(x, y)), "<": z3.fpLT,
               "<=": z3.fpLEQ, ">": z3.fpGT, ">=": z3.fpGEQ}[op](a, b)
        return from_bool(cmp, result)
    fn = {"+": z3.fpAdd, "-": z3.fpSub, "*": z3.fpMul, "/": z3.fpDiv}.get(op)
    if fn is None:
        raise ValueError(op)
    return fn(RNE, a, b)


def division_by_zero(op: str, b: z3.ExprRef, t: CType) -> z3.BoolRef | None:
    """The condition under which ``a op b`` traps natively (SIGFPE): integer ``/`` and
    ``%`` by zero. Paths through it end there, so analyses add ``b != 0`` to a path that
    goes on."""
    if op in ("/", "%") and isinstance(t, IntType):
        return b == 0
    return None


def value_of(term: z3.ExprRef, t: CType) -> int | float | None:
    """The Python value of a constant term read as type ``t`` (None if not constant)."""
    term = z3.simplify(term)
    if isinstance(t, FloatType):
        if z3.is_fp_value(term):
            return float(eval_fp(term))
        return None
    if not z3.is_bv_value(term):
        return None
    v = term.as_long()
    if isinstance(t, IntType):
        return t.wrap(v)
    return v


def eval_fp(term: z3.FPNumRef) -> float:
    if term.isNaN():
        return float("nan")
    if term.isInf():
        return float("-inf") if term.isNegative() else float("inf")
    return float(term.as_decimal(40).rstrip("?")) if not term.isZero() else (-0.0 if term.isNegative() else 0.0)
