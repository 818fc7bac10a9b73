"""The C library's string comparisons, as terms over the bytes they read.

A program that checks its input against a keyword (``strcmp(buf, "hello") == 0``) hides
the branch that matters inside the C library, whose code the CFA does not hold. Without
a model the result is a fresh symbol: concolic search never learns which bytes make it
0, and the call havocs memory, since it is given pointers. KLEE runs a C library built
for symbolic execution instead; here the few functions that decide such branches are
terms over the bytes the symbolic state reads for them (``SymbolicState._external``),
as C11 (7.24.4, 7.24.6.3) defines them:

- ``strcmp``/``strncmp``/``memcmp``: the first pair of bytes that differ, read as
  ``unsigned char``, gives the sign; none before a terminator (``strcmp``,
  ``strncmp``) or the count (``strncmp``, ``memcmp``) gives 0. The magnitude is the
  library's own (glibc on i386 returns -1 or 1, on x86-64 the difference of the
  bytes), so it comes from a fresh symbol confined to the sign: a proof holds whatever
  the library, and concolic testing, which reads the symbol as 0, sees -1 and 1.
- ``strlen``: the index of the first terminator.
- ``strchr``/``index``, ``strrchr``/``rindex``, ``memchr`` (7.24.5.2, 7.24.5.5, 7.24.5.1):
  the offset of the first (last) byte equal to ``c`` converted to ``char``, before the
  terminator (or the count), as a term; NULL where there is none. grep's ``comsubs``
  walks its must-strings with ``index()``, and an unknown pointer there made every later
  read of them a divergence.

The state reads at most ``MAX_SCAN`` bytes of an argument, from an address it places
exactly, and stops after a byte that is the constant 0; where the bytes read end
before the answer does, the result is the fresh symbol. In an object written at
symbolic indices every byte read is a z3 ``Select`` over the object's stores, and on
grep, whose regex and must-strings are such objects (their bytes pattern bytes, their
sizes unknown), scanning 256 of them per call was most of a symbolic execution. There
a concolic run, which knows where its own string ends (a byte that is 0 in the run,
though not a constant), reads ``BEYOND_RUN`` bytes further only: the solver may still
lengthen the string by as much in one step, and past them the result is again the
fresh symbol, which keeps the term an over-approximation.

A count that is a term (``strncmp(cp, s, strlen(s))``, as grep's ``istrstr``) bounds
the comparison per byte: byte k counts only where k < count.
"""
from __future__ import annotations

from collections.abc import Sequence

import z3

from cooptest.analyses import terms
from cooptest.analyses.semantics import numeral

MAX_SCAN = 256  # bytes of one argument a model reads
BEYOND_RUN = 32  # bytes a concolic scan reads past the run's terminator (module docstring)
COMPARISONS = {"strcmp": (False, True), "strncmp": (True, True), "memcmp": (True, False)}
"""name: (whether a count is its third argument, whether a terminator ends the comparison)"""
SEARCHES = {"strchr": (False, False), "index": (False, False), "strrchr": (False, True),
            "rindex": (False, True), "memchr": (True, False)}
"""name: (whether a count is its third argument, no terminator ending the search; whether the
last occurrence is the result)"""
MODELLED = {*COMPARISONS, *SEARCHES, "strlen"}


def compare(s1: Sequence[z3.ExprRef], s2: Sequence[z3.ExprRef], count: int | z3.BitVecRef | None,
            terminated: bool, unknown: z3.BitVecRef) -> z3.BitVecRef:
    """The result of comparing the bytes ``s1`` and ``s2`` (8-bit terms), at most
    ``count`` of them (a number or an unsigned term), as a term as wide as ``unknown``,
    the fresh symbol."""
    bits = unknown.size()
    term = count if isinstance(count, z3.BitVecRef) else None
    n = min(len(s1), len(s2), count if isinstance(count, int) else MAX_SCAN)
    magnitude = unknown & ((1 << (bits - 1)) - 1)  # 0 .. 2^(bits-1) - 1
    below = -1 - magnitude  # -1 .. -2^(bits-1): every negative value
    above = z3.If(magnitude == (1 << (bits - 1)) - 1, numeral(1, bits), magnitude + 1)
    zero, nul = numeral(0, bits), numeral(0, 8)
    value = zero if n == count else unknown  # past the bytes read
    if term is not None:
        value = terms.ite(terms.ule(term, numeral(n, term.size())), zero, value)
    for k, a, b in zip(reversed(range(n)), reversed(s1[:n]), reversed(s2[:n])):
        same = terms.ite(terms.eq(a, nul), zero, value) if terminated else value
        value = terms.ite(terms.eq(a, b), same, terms.ite(terms.ult(a, b), below, above))
        if term is not None:
            value = terms.ite(terms.ule(term, numeral(k, term.size())), zero, value)
    return value


def length(s: Sequence[z3.ExprRef], unknown: z3.BitVecRef) -> z3.BitVecRef:
    """``strlen`` of the bytes ``s``, as a term as wide as ``unknown``, the fresh symbol."""
    value, nul = unknown, numeral(0, 8)
    for k in reversed(range(len(s))):
        value = terms.ite(terms.eq(s[k], nul), numeral(k, unknown.size()), value)
    return value


def find(s: Sequence[z3.ExprRef], c: z3.BitVecRef, count: int | z3.BitVecRef | None, last: bool,
         absent: z3.BitVecRef, unknown: z3.BitVecRef) -> z3.BitVecRef:
    """The offset in the bytes ``s`` of the first byte equal to ``c`` (8 bits), or with
    ``last`` of the last one, among the first ``count`` (a number or an unsigned term)
    or, without a count, up to and including the terminator; ``absent`` where there is
    none, ``unknown`` where the bytes read end before the answer. Offsets are as wide as
    ``absent``."""
    bits, nul = absent.size(), numeral(0, 8)
    term = count if isinstance(count, z3.BitVecRef) else None
    n = min(len(s), count if isinstance(count, int) else MAX_SCAN)

    def within(k: int, value: z3.BitVecRef) -> z3.BitVecRef:  # byte k is read only where k < count
        return value if term is None else terms.ite(terms.ule(term, numeral(k, term.size())), absent, value)

    if last:
        assert count is None, "no counted search for the last occurrence is modelled"
        value, going = absent, z3.BoolVal(True)  # going: no terminator before this byte
        for k in range(n):
            value = terms.ite(z3.And(going, terms.eq(s[k], c)), numeral(k, bits), value)
            going = z3.And(going, z3.Not(terms.eq(s[k], nul)))
        return terms.ite(going, unknown, value)
    value = within(n, absent if n == count else unknown)
    for k in reversed(range(n)):
        rest = terms.ite(terms.eq(s[k], nul), absent, value) if count is None else value
        value = within(k, terms.ite(terms.eq(s[k], c), numeral(k, bits), rest))
    return value
