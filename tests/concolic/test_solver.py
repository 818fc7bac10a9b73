"""The solver's optimisations change cost, never answers: constraint independence, the
cache and incremental solving agree with a plain solve of the whole prefix."""
from __future__ import annotations

import pytest
import z3

from cooptest.analyses.concolic.inputs import parse_literal, to_z3
from cooptest.analyses.concolic.solver import SAT, PathSolver, Symbols
from cooptest.analyses.concolic.symbolic_execution import TermMemo, execute_symbolically

from concolic_programs import MEMORY, NESTED

INPUTS = {
    "nested": (NESTED, [["0", "0", "0"], ["101", "-8", "122"], ["150", "151", "97"], ["7", "7", "1"]]),
    "memory": (MEMORY, [["0", "5"], ["1", "77"], ["2", "3"], ["3", "0"]]),
}
VARIANTS = [dict(slicing=True), dict(cache=True), dict(incremental=True),
            dict(slicing=True, cache=True, incremental=True)]


def satisfies(path, query, model) -> bool:
    """Whether the model, completed with the path's old input values, satisfies the
    whole (unsliced) query."""
    prefix, negated = query
    s = z3.Solver()
    s.add(*prefix, negated)
    for k, read in enumerate(path.symbols):
        value = model.get(read.symbol.get_id())
        s.add(read.symbol == (value if value is not None else to_z3(parse_literal(path.inputs[k], read.type), read.type)))
    return s.check() == z3.sat


@pytest.mark.parametrize("program", sorted(INPUTS))
def test_optimised_solving_agrees_with_plain_solving(make_program, program: str) -> None:
    source, vectors = INPUTS[program]
    put = make_program(source)
    symbols, memo = Symbols(), TermMemo()
    plain = PathSolver(symbols, slicing=False, cache=False, incremental=False)
    variants = [PathSolver(symbols, **{"slicing": False, "cache": False, **v}) for v in VARIANTS]
    queries = 0
    for _ in range(2):  # twice: the second round hits the caches
        for inputs in vectors:
            path = execute_symbolically(put.program, put.submit(inputs, "test"), symbols, memo, set())
            for i in range(len(path.decisions)):
                query = path.query(i)
                expected = plain.solve(*query)
                for solver in variants:
                    got = solver.solve(*query)
                    assert got.status == expected.status
                    if got.status == SAT:
                        assert satisfies(path, query, got.model)
                queries += 1
    assert queries >= 8
    assert variants[1].stats.cache_hits >= queries // 2
    assert variants[0].stats.constraints_solved <= plain.stats.constraints_solved


def test_slice_keeps_constraints_sharing_symbols_transitively() -> None:
    a, b, c, d = z3.BitVecs("a b c d", 32)
    prefix = [a > 1, b == a + 1, c < 5, d != 0]
    solver = PathSolver()
    assert solver.slice(prefix, b < 9) == [prefix[0], prefix[1]]
    assert solver.slice(prefix, c == d) == [prefix[2], prefix[3]]
    assert solver.slice(prefix, z3.BoolVal(True)) == []


@pytest.mark.parametrize("incremental", [False, True])
def test_small_values_come_first_and_the_bounds_go_where_they_exclude_every_model(
        incremental: bool) -> None:
    x, y = z3.BitVecs("x y", 32)
    preferred = {s.get_id(): z3.And(s >= -100, s <= 100) for s in (x, y)}
    solver = PathSolver(cache=False, incremental=incremental)

    def values(result) -> dict[str, int]:
        return {n: result.model[s.get_id()].as_signed_long() for n, s in (("x", x), ("y", y))
                if s.get_id() in result.model}

    small = solver.solve([x != 0], y > x + 7, preferred)
    assert small.status == SAT and all(-100 <= v <= 100 for v in values(small).values())
    large = solver.solve([x != 0], x > 5000, preferred)  # no small model: the bounds go
    assert large.status == SAT and values(large)["x"] > 5000
    assert solver.solve([x > 3], x < 2, preferred).status == "unsat"
    again = solver.solve([x != 0], y > x + 7, preferred)  # nothing of the last queries stays
    assert again.status == SAT and all(-100 <= v <= 100 for v in values(again).values())


def _reference_symbols(term: z3.ExprRef) -> frozenset[int]:
    """The uninterpreted constants of ``term``, by a walk of its DAG through z3's Python API."""
    seen: set[int] = set()
    found: set[int] = set()
    stack = [term]
    while stack:
        t = stack.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            found.add(t.get_id())
        stack.extend(t.children())
    return frozenset(found)


def test_symbols_past_their_limit_start_again_and_stay_right() -> None:
    """The memo of ``Symbols`` forgets everything past ``LIMIT`` sub-terms (grep's runs
    held 400 MB in it). Terms asked once are then dropped, so z3 gives their ids to
    new terms: an answer kept from before the memo started again would name the old
    term's symbols."""
    import gc
    import random
    rng = random.Random(7)
    symbols = Symbols()
    symbols.LIMIT = 60
    inputs = [z3.BitVec(f"in{k}", 8) for k in range(6)]
    largest = 0
    for step in range(3000):
        fresh = z3.BitVec(f"fresh#{step}", 8)  # an unknown of one path, gone after it
        term: z3.ExprRef = rng.choice(inputs + [fresh, z3.BitVecVal(step % 256, 8)])
        for _ in range(rng.randrange(1, 12)):
            other = rng.choice(inputs + [fresh, z3.BitVecVal(rng.randrange(256), 8)])
            term = rng.choice([term + other, term * other, term & other, z3.If(term > other, term, other)])
        assert symbols.of(term) == _reference_symbols(term), term
        largest = max(largest, len(symbols._memo))
        del term, fresh
        if step % 100 == 0:
            gc.collect()
    assert largest < symbols.LIMIT + 200, largest  # one term's sub-terms past the limit at most


def test_queries_over_memory_go_to_a_child_once_one_came_back_unknown() -> None:
    """Queries reading an array (memory) are checked in this process until one of them
    comes back unknown (z3's SMT core may then outrun its time limit on the next, as
    on grep); from then on in a forked child, whose model's bit-vector and float
    values come back as in-process solving gives them, NaN included. An unsat query
    stays unsat; queries of bit-vectors alone never leave."""
    mem = z3.Array("mem", z3.BitVecSort(64), z3.BitVecSort(8))
    i, c = z3.BitVec("i", 64), z3.BitVec("c", 8)
    f = z3.FP("f", z3.Float64())
    g = z3.FP("g", z3.Float32())
    symbols = Symbols()
    solver = PathSolver(symbols, cache=False)
    prefix = [z3.ULT(i, 8), z3.Select(mem, i) == c + 1, z3.fpGT(f, z3.FPVal(1.5, z3.Float64()))]
    negated = z3.And(c == 41, z3.fpIsNaN(g), z3.fpLT(f, z3.FPVal(1e9, z3.Float64())))

    def check(result) -> None:
        assert result.status == SAT
        values = result.model
        assert values[c.get_id()].as_long() == 41 and values[i.get_id()].as_long() < 8
        assert values[f.get_id()].sort() == z3.Float64()
        assert z3.is_true(z3.simplify(z3.fpGT(values[f.get_id()], 1.5)))
        assert values[g.get_id()].isNaN() and values[g.get_id()].sort() == z3.Float32()

    check(solver.solve(prefix, negated))
    assert mem.get_id() in symbols.arrays and not {i.get_id(), c.get_id()} & symbols.arrays
    assert solver.stats.isolated == 0 and not solver.isolating
    x, y = z3.BitVecs("x y", 64)  # factoring a 64-bit number: no answer within 50 ms
    hard = [x * y == 0x7FFFFFFFFFFFFFE7 * 3 + 12345, z3.UGT(x, 1), z3.UGT(y, 1), z3.ULT(x, 2**32)]
    assert solver.solve(hard, z3.Select(mem, x) == 1, timeout_ms=50).status == "unknown"
    assert solver.isolating
    check(solver.solve(prefix, negated))
    assert solver.stats.isolated == 1
    assert solver.solve(prefix, z3.UGT(i, 9)).status == "unsat"
    assert solver.stats.isolated == 2
    assert solver.solve([x > 3], x < 2).status == "unsat" and solver.stats.isolated == 2
