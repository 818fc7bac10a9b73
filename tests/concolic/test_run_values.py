"""The run's values of terms (``RunValues``) against z3's ``model.eval``: random terms over
every operation it evaluates itself, reads of arrays through stores, if-then-else and
lambdas as ``analyses.symbolic`` builds them, and constants given values after a read."""
from __future__ import annotations

import random

import pytest
import z3

from cooptest.analyses.concolic.run_values import RunValues, Shapes

WIDTHS = (1, 8, 16, 32, 64)
CORNERS = (0, 1, 2, 3, 7, 8, 31, 32, 63, 64, 127, 128, 255)


class Terms:
    """A random term generator over a few constants of each width, some with values in
    the model and some for z3 to complete."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.model = z3.Model()
        self.consts = {w: [z3.BitVec(f"x{w}_{k}", w) for k in range(3)] for w in WIDTHS}
        for w, cs in self.consts.items():
            for c in cs[:2]:
                self.model.update_value(c, z3.BitVecVal(self.number(w), w))
        self.arrays = [z3.Array(f"mem{k}", z3.BitVecSort(32), z3.BitVecSort(8)) for k in range(2)]
        self.model.update_value(self.arrays[0], z3.K(z3.BitVecSort(32), z3.BitVecVal(5, 8)))

    def number(self, w: int) -> int:
        r = self.rng.random()
        if r < 0.4:
            return self.rng.choice(CORNERS) % (1 << w)
        if r < 0.6:
            return ((1 << w) - 1 - self.rng.choice(CORNERS)) % (1 << w)  # negative as signed
        return self.rng.getrandbits(w)

    def bv(self, w: int, depth: int) -> z3.BitVecRef:
        rng = self.rng
        if depth <= 0 or rng.random() < 0.2:
            return rng.choice(self.consts[w]) if rng.random() < 0.6 else z3.BitVecVal(self.number(w), w)
        a, b = self.bv(w, depth - 1), self.bv(w, depth - 1)
        choice = rng.randrange(14)
        if choice == 0:
            op = rng.choice([lambda: a + b, lambda: a - b, lambda: a * b, lambda: -a, lambda: ~a,
                             lambda: a & b, lambda: a | b, lambda: a ^ b, lambda: a + b + a])
            return op()
        if choice == 1:
            return rng.choice([z3.UDiv, z3.URem, z3.SRem, lambda p, q: p % q])(a, b) if rng.random() < 0.7 else a / b
        if choice == 2:
            return rng.choice([lambda: a << b, lambda: z3.LShR(a, b), lambda: a >> b])()
        if choice == 3 and w > 1:
            high = rng.randrange(w)
            low = rng.randrange(high + 1)
            inner = self.bv(w, depth - 1)
            part = z3.Extract(high, low, inner)
            rest = w - (high - low + 1)
            return z3.SignExt(rest, part) if rng.random() < 0.5 else z3.ZeroExt(rest, part)
        if choice == 4 and w // 2 in self.consts and w > 1:
            return z3.Concat(self.bv(w // 2, depth - 1), self.bv(w // 2, depth - 1))
        if choice == 5:
            return z3.If(self.boolean(depth - 1), a, b)
        if choice == 6 and w == 8:
            return self.read(depth - 1)
        if choice == 7 and w % 8 == 0 and w > 8:
            return z3.Concat(*(self.read(depth - 1) for _ in range(w // 8)))
        if choice == 8:
            return rng.choice([z3.RotateLeft, z3.RotateRight])(a, z3.BitVecVal(rng.randrange(2 * w), w))
        if choice == 9 and w % 8 == 0:
            return z3.RepeatBitVec(w // 8, self.bv(8, depth - 1))
        if choice == 10:
            return z3.BVRedOr(a) if w == 1 else z3.ZeroExt(w - 1, z3.BVRedAnd(a)) if rng.random() < 0.5 else a
        return a + b

    def boolean(self, depth: int) -> z3.BoolRef:
        rng = self.rng
        w = rng.choice(WIDTHS)
        if depth <= 0:
            return rng.choice([z3.BoolVal(True), z3.BoolVal(False), self.bv(w, 0) == self.bv(w, 0)])
        a, b = self.bv(w, depth - 1), self.bv(w, depth - 1)
        choice = rng.randrange(6)
        if choice == 0:
            return rng.choice([z3.ULT, z3.ULE, z3.UGT, z3.UGE])(a, b)
        if choice == 1:
            return rng.choice([lambda: a < b, lambda: a <= b, lambda: a > b, lambda: a >= b,
                               lambda: a == b, lambda: a != b, lambda: z3.Distinct(a, b, a + 1)])()
        if choice == 2:
            p, q = self.boolean(depth - 1), self.boolean(depth - 1)
            return rng.choice([lambda: z3.And(p, q, p), lambda: z3.Or(p, q), lambda: z3.Not(p),
                               lambda: z3.Implies(p, q), lambda: z3.Xor(p, q), lambda: p == q])()
        if choice == 3:
            return z3.If(self.boolean(depth - 1), self.boolean(depth - 1), self.boolean(depth - 1))
        if choice == 4:
            return self.read(depth - 1) == z3.BitVecVal(self.number(8), 8)
        return a == b

    def index(self, depth: int) -> z3.BitVecRef:
        """An address: a small constant (so that stores and reads meet) or a term."""
        if self.rng.random() < 0.6:
            return z3.BitVecVal(self.rng.randrange(8), 32)
        return z3.ZeroExt(24, self.bv(8, min(depth, 1))) & 7

    def array(self, depth: int) -> z3.ArrayRef:
        rng = self.rng
        choice = rng.randrange(5)
        if depth <= 0 or choice == 0:
            return rng.choice([*self.arrays, z3.K(z3.BitVecSort(32), z3.BitVecVal(self.number(8), 8))])
        if choice in (1, 2):
            arr = self.array(depth - 1)
            for _ in range(rng.randrange(1, 6)):
                arr = z3.Store(arr, self.index(depth - 1), self.bv(8, depth - 1))
            return arr
        if choice == 3:
            return z3.If(self.boolean(depth - 1), self.array(depth - 1), self.array(depth - 1))
        i = z3.BitVec("i", 32)  # as symbolic.py's strcpy and realloc build them
        bound = self.index(depth - 1)
        return z3.Lambda([i], z3.If(z3.UGE(i, bound), self.array(depth - 1)[i],
                                    self.array(depth - 1)[i + 1]))

    def read(self, depth: int) -> z3.BitVecRef:
        return self.array(depth)[self.index(depth)]


def test_run_values_are_z3s_on_random_terms() -> None:
    """2,000 random terms (fresh generators, so that completions happen in every order),
    read in the models of five runs that share the shapes of their nodes, as the paths
    of a search do: every value as z3 evaluates it."""
    checked = 0
    for seed in range(40):
        t = Terms(random.Random(seed))
        shapes = Shapes(z3.main_ctx())
        for k in range(50):
            if k % 10 == 0:  # another run: other values of the inputs
                for w, cs in t.consts.items():
                    t.model.update_value(cs[0], z3.BitVecVal(t.number(w), w))
                values = RunValues(t.model, shapes)
            term = t.boolean(4) if t.rng.random() < 0.5 else t.bv(t.rng.choice(WIDTHS), 4)
            want = t.model.eval(term, model_completion=True)
            got = values.value(term)
            expected = z3.is_true(want) if z3.is_bool(term) else want.as_long()
            assert got == expected, (seed, term, got, expected)
            checked += 1
    assert checked == 2000


def test_a_constant_given_a_value_after_a_read_is_read_again() -> None:
    """A constant the model completed (0) and then the run gave a value: the terms
    holding it take the new value, as z3 would give them."""
    x = z3.BitVec("x", 32)
    values = RunValues(z3.Model())
    assert values.value(x + 1 == 1) is True
    values.assign(x.decl(), z3.BitVecVal(41, 32))
    assert values.value(x + 1 == 1) is False
    assert values.value(x + 1) == 42


@pytest.mark.slow
def test_a_long_store_chain_is_read_without_recursion() -> None:
    """20,000 stores (a buffer written byte by byte, read as it is written) and a term
    nested as deep: no recursion limit, the value z3 gives."""
    arr = z3.K(z3.BitVecSort(32), z3.BitVecVal(0, 8))
    values = RunValues(z3.Model())
    for a in range(20_000):
        arr = z3.Store(arr, z3.BitVecVal(a, 32), z3.BitVecVal(a % 251, 8))
        if a % 2:  # read after a write, as a program filling a buffer: a table per 32 stores
            assert values.value(arr[z3.BitVecVal(a // 2, 32)]) == (a // 2) % 251
    deep = z3.BitVecVal(0, 8)
    for k in range(5_000):
        deep = deep + arr[z3.BitVecVal(k, 32)]
    model = z3.Model()
    values = RunValues(model)
    assert values.value(arr[z3.BitVecVal(17, 32)]) == 17
    assert values.value(arr[z3.BitVecVal(30_000, 32)]) == 0
    assert values.value(deep) == model.eval(deep, model_completion=True).as_long()
