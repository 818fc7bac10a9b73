"""z3 terms built through z3's C API, for the models that build thousands per call.

z3's Python constructors (``z3.If``, ``==``, ``z3.ULT``, ``array[index]``) check and
coerce their operands on every call: 12-35 µs each, against 5-8 µs for the C call
itself. The string models (``strings``) and the byte reads of arrays
(``SymbolicState._load_bytes``) build a term per byte scanned, and on grep these
constructors were a third of a symbolic execution. Operands must already be z3 terms of
matching sorts; no numbers are coerced here.
"""
from __future__ import annotations

import z3


def ite(c: z3.BoolRef, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
    """``If(c, a, b)`` of two bit-vectors of one width."""
    return z3.BitVecRef(z3.Z3_mk_ite(a.ctx_ref(), c.as_ast(), a.as_ast(), b.as_ast()), a.ctx)


def eq(a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BoolRef:
    return z3.BoolRef(z3.Z3_mk_eq(a.ctx_ref(), a.as_ast(), b.as_ast()), a.ctx)


def ult(a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BoolRef:
    return z3.BoolRef(z3.Z3_mk_bvult(a.ctx_ref(), a.as_ast(), b.as_ast()), a.ctx)


def ule(a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BoolRef:
    return z3.BoolRef(z3.Z3_mk_bvule(a.ctx_ref(), a.as_ast(), b.as_ast()), a.ctx)


def select(array: z3.ArrayRef, index: z3.BitVecRef) -> z3.BitVecRef:
    """``array[index]`` of an array of bytes."""
    return z3.BitVecRef(z3.Z3_mk_select(array.ctx_ref(), array.as_ast(), index.as_ast()), array.ctx)
