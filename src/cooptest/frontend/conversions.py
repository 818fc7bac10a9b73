"""The implicit conversions of C (C11 6.3), made explicit in the IR.

Every function here takes typed IR expressions and returns typed IR expressions whose
operands already have the types the operation works in; this is the one place where the
promotion and usual-arithmetic-conversion rules are applied."""
from __future__ import annotations

from cooptest.cfa.ctype import (ArrayType, CType, FloatType, FunctionType, IntType,
                                PointerType, StructType, Types)
from cooptest.cfa.fold import fold
from cooptest.cfa.ir import (AddrOf, ARITH_OPS, Binary, Cast, COMPARE_OPS, Const, Expr,
                             FuncRef, Index, Member, SHIFT_OPS, Unary)


class TypeMismatch(Exception):
    """Operands of an operation C does not allow (reported as unsupported construct)."""


def decayed_type(types: Types, t: CType) -> CType:
    """The type a value of type ``t`` has once used: an array becomes a pointer to its
    first element, a function a pointer to the function (C11 6.3.2.1p3-4), as a
    parameter declared so is adjusted (C11 6.7.6.3p7-8).

    The one statement of the rule, for ``decay`` and for the places that need the type
    before the operand is evaluated (the result type of ``?:``)."""
    if isinstance(t, ArrayType):
        return types.pointer(t.elem)
    if isinstance(t, FunctionType):
        return types.pointer(t)
    return t


def decay(types: Types, e: Expr) -> Expr:
    """Lvalue conversion of ``e`` to a value of its ``decayed_type``; a bit-field's
    value has the type its width fits (``bit_field_type``)."""
    if isinstance(e.type, ArrayType):
        return AddrOf(decayed_type(types, e.type), Index(e.type.elem, e, Const(types.int, 0)))
    if isinstance(e.type, FunctionType) and isinstance(e, FuncRef):
        return FuncRef(decayed_type(types, e.type), e.name)
    if isinstance(e, Member) and (t := bit_field_type(types, e)) is not None:
        return Cast(t, e)
    return e


def bit_field_type(types: Types, e: Member) -> IntType | None:
    """The type the value of a bit-field promotes to where it is narrower than its
    declared type (C11 6.3.1.1p2, gcc for every integer type): ``int`` when an ``int``
    holds all its values (``unsigned a : 4`` makes ``s.a - 8 < 0`` true), ``unsigned
    int`` for 32 unsigned bits; None for an ordinary member or a wider bit-field."""
    base = e.base.type
    if not isinstance(base, StructType) or not isinstance(e.type, IntType) or e.type.is_bool:
        return None
    width = base.field(e.field).bit_width
    if width is None or width > types.int.bits:
        return None
    t = types.int if width < types.int.bits or e.type.signed else types.uint
    return None if e.type == t else t


def argument_type(types: Types, t: CType) -> CType:
    """The type an argument of type ``t`` is passed in where no prototype gives the
    parameter's type: the default argument promotions (C11 6.5.2.2p6) promote integers
    and widen ``float`` to ``double``. A K&R definition receives its parameters so."""
    if isinstance(t, IntType):
        return types.integer_promote(t)
    if isinstance(t, FloatType) and t.bits < types.double.bits:
        return types.double
    return t


def convert(types: Types, e: Expr, t: CType) -> Expr:
    """``e`` converted to ``t`` as by assignment (constants folded)."""
    e = decay(types, e)
    if e.type == t:
        return e
    if isinstance(t, StructType) or isinstance(e.type, StructType):
        if e.type is t:
            return e
        raise TypeMismatch(f"cannot convert {e.type} to {t}")
    if isinstance(e, Const) and isinstance(t, FloatType) and isinstance(e.type, IntType):
        return Const(t, float(e.value))
    return fold(Cast(t, e))


def promote(types: Types, e: Expr) -> Expr:
    """Integer promotion of ``e`` (C11 6.3.1.1)."""
    e = decay(types, e)
    if isinstance(e.type, IntType):
        return convert(types, e, types.integer_promote(e.type))
    return e


def to_condition(types: Types, e: Expr) -> Expr:
    """A scalar suitable as the condition of an assume edge (``!= 0`` is implicit)."""
    e = promote(types, e)
    if not e.type.is_scalar():
        raise TypeMismatch(f"condition of type {e.type}")
    return e


def unary(types: Types, op: str, e: Expr) -> Expr:
    if op == "!":
        return fold(Unary(types.int, "!", to_condition(types, e)))
    e = promote(types, e)
    if op == "+":
        return e
    return fold(Unary(e.type, op, e))


def _null_to(types: Types, e: Expr, t: CType) -> Expr:
    return convert(types, e, t) if isinstance(e.type, IntType) else e


def binary(types: Types, op: str, a: Expr, b: Expr) -> Expr:
    """``a op b`` with C's conversions (also pointer arithmetic and comparisons)."""
    a, b = decay(types, a), decay(types, b)
    pa, pb = isinstance(a.type, PointerType), isinstance(b.type, PointerType)
    if op in COMPARE_OPS:
        if pa or pb:
            t = a.type if pa else b.type
            a, b = _null_to(types, a, t), _null_to(types, b, t)
            if not (isinstance(a.type, PointerType) and isinstance(b.type, PointerType)):
                raise TypeMismatch("comparison of pointer and non-integer")
            if a.type != b.type:
                b = Cast(a.type, b)
            return Binary(types.int, op, a, b)
        t = types.usual_arithmetic(a.type, b.type)
        return fold(Binary(types.int, op, convert(types, a, t), convert(types, b, t)))
    if op in ("+", "-") and (pa or pb):
        if pa and pb and op == "-":
            return Binary(types.ptrdiff_t, "-", a, b)
        if pb and op == "+":
            a, b = b, a
        if not isinstance(b.type, IntType):
            raise TypeMismatch("pointer arithmetic with a non-integer")
        return Binary(a.type, op, a, promote(types, b))
    if not (a.type.is_arithmetic() and b.type.is_arithmetic()):
        raise TypeMismatch(f"operator {op} on {a.type} and {b.type}")
    if op in SHIFT_OPS:
        a, b = promote(types, a), promote(types, b)
        return fold(Binary(a.type, op, a, b))
    assert op in ARITH_OPS, op
    t = types.usual_arithmetic(a.type, b.type)
    if op in ("%", "&", "|", "^") and isinstance(t, FloatType):
        raise TypeMismatch(f"operator {op} on floating operands")
    return fold(Binary(t, op, convert(types, a, t), convert(types, b, t)))
