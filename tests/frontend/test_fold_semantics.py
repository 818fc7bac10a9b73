"""The front end's constant folding (``cfa.fold.int_binary``) computes what the one C
semantics of the analyses computes (``analyses.semantics.binary``, which the Csmith
differential run checks against gcc's builds under -m32 and -m64): where C defines the
result, the two agree on every operator, width and signedness; where it does not
(division by zero, a shift past the width) the front end folds nothing."""
from __future__ import annotations

import random

import pytest

from cooptest.analyses import semantics as sem
from cooptest.cfa.ctype import IntType
from cooptest.cfa.fold import int_binary

TYPES = [IntType("int", 32, True, 4), IntType("unsigned int", 32, False, 4),
         IntType("long long", 64, True, 8), IntType("unsigned long long", 64, False, 8)]
OPS = ["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"]


def operand(rng: random.Random, t: IntType) -> int:
    """Edges of the range as often as the rest: that is where wrapping differs."""
    edges = [t.min, t.max, 0, 1, -1 if t.signed else t.max - 1, t.min + 1]
    return rng.choice(edges) if rng.random() < 0.3 else rng.randint(t.min, t.max)


@pytest.mark.parametrize("t", TYPES, ids=str)
def test_folding_computes_the_analyses_semantics(t: IntType) -> None:
    rng = random.Random(t.bits * 2 + t.signed)
    folded = 0
    for _ in range(400):
        op = rng.choice(OPS)
        a = operand(rng, t)
        b = rng.randint(-2, t.bits + 1) if op in ("<<", ">>") else operand(rng, t)
        if op in ("<<", ">>") and not t.signed:
            b = t.wrap(b)
        mine = int_binary(op, a, b, t)
        if mine is None:
            assert (op in ("/", "%") and b == 0) or (op in ("<<", ">>") and not 0 <= b < t.bits)
            continue
        folded += 1
        theirs = sem.value_of(sem.binary(op, sem.const(a, t), sem.const(b, t), t, t, t), t)
        assert mine == theirs, f"{a} {op} {b} in {t}: folded {mine}, semantics {theirs}"
    assert folded > 300
