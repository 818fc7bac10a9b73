"""Solving path constraints for concolic testing, as CREST and KLEE do it.

A query is "the prefix of a path condition, then the negation of one decision". Three
optimisations, each switchable so that its effect can be measured
(``benchmarks/concolic_table.py --solver-ablation``):

- *constraint independence* (KLEE, CREST): only the constraints that transitively share a
  symbol with the negated condition go to z3; every other input keeps the value it had
  on the path, which satisfies the dropped constraints already;
- a *cache* of results keyed by the (sliced) constraint set: the same query recurs
  whenever paths share a prefix;
- *incremental* solving: one z3 solver keeps the constraints of the last query as
  nested scopes, so a query sharing a prefix with the previous one only pops and pushes
  the difference (SAGE's generational search and DFS negate along one path).

Models are asked for small inputs first (``preferred`` bounds, dropped when they make
the query unsatisfiable): z3 answers ``x != 0`` with any value, and a value in the
billions turns the next run into a recursion or a loop that never ends in time.

Every query has a time limit (the solver's own, a retry's, or less when the caller's
budget has less left); a timeout is "unknown", never a proof, and is cached with its
limit: with more time, the query is asked again.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import z3

from cooptest.core.lifetime import call_forked

SAT, UNSAT, UNKNOWN = "sat", "unsat", "unknown"


def _unchecked(wrapper: Callable[..., Any]) -> Callable[..., Any]:
    """The C function behind one of z3's Python wrappers, which asks for the context's
    error code after each call: the bindings keep it in the wrapper's last default
    argument (``Elementaries``); the wrapper itself where a version does not."""
    elementaries = (wrapper.__defaults__ or (None,))[-1]
    return getattr(elementaries, "f", wrapper)


class _C:
    """The getters ``Symbols`` calls, unchecked."""
    Z3_get_ast_kind = staticmethod(_unchecked(z3.Z3_get_ast_kind))
    Z3_get_quantifier_body = staticmethod(_unchecked(z3.Z3_get_quantifier_body))
    Z3_to_app = staticmethod(_unchecked(z3.Z3_to_app))
    Z3_get_app_num_args = staticmethod(_unchecked(z3.Z3_get_app_num_args))
    Z3_get_app_decl = staticmethod(_unchecked(z3.Z3_get_app_decl))
    Z3_get_decl_kind = staticmethod(_unchecked(z3.Z3_get_decl_kind))
    Z3_get_app_arg = staticmethod(_unchecked(z3.Z3_get_app_arg))
    Z3_get_ast_id = staticmethod(_unchecked(z3.Z3_get_ast_id))
    Z3_get_sort = staticmethod(_unchecked(z3.Z3_get_sort))
    Z3_get_sort_kind = staticmethod(_unchecked(z3.Z3_get_sort_kind))


_NONE: frozenset[int] = frozenset()


class Symbols:
    """The free uninterpreted constants (symbols) of z3 terms, memoised per sub-term.

    Path conditions are DAGs sharing most of their sub-terms, so the memo keeps the cost
    linear in the number of distinct sub-terms over a whole run. The terms seen are kept
    alive: z3 reuses the id of a freed term. Kept for a whole search, they were most of
    a long run's memory (grep, cgs, after 60 iterations: 564,620 sub-terms, 411 of the
    run's 1,168 MB held by nothing else), so past ``LIMIT`` sub-terms the memo starts
    again, and the next conditions walk their sub-terms once more (4 s more of walks in
    100 iterations of grep's 100 s)."""

    LIMIT = 250_000

    def __init__(self) -> None:
        self.arrays: set[int] = set()  # the symbols of array sort (memory) met so far
        self._memo: dict[int, frozenset[int]] = {}
        self._alive: list[z3.ExprRef] = []
        self._roots: dict[int, frozenset[int]] = {}  # by AST address: no call into z3

    def of(self, term: z3.ExprRef) -> frozenset[int]:
        address = term.ast.value
        known = self._roots.get(address)
        if known is not None:
            return known
        if len(self._memo) >= self.LIMIT:
            self._memo.clear()
            self._alive.clear()
            self._roots.clear()
            self.arrays.clear()  # their ids go to new terms
        ctx = term.ctx_ref()
        root = term.as_ast()
        rid = _C.Z3_get_ast_id(ctx, root)
        found = self._memo.get(rid)
        if found is None:
            found = self._collect(ctx, root, rid)
        self._alive.append(term)  # keeps its address from being reused
        self._roots[address] = found
        return found

    def _collect(self, ctx: z3.ContextObj, root: z3.Ast, rid: int) -> frozenset[int]:
        """Symbols of every sub-term of ``root`` not in the memo yet, bottom-up. The C
        API is called without z3's Python wrappers, which ask for the context's error
        code after every call: none of these getters fails on a node z3 made, and the
        walk was 16 of 100 s of grep's search."""
        memo, c = self._memo, _C
        operands: dict[int, list[int]] = {}  # of the nodes below which the walk goes on
        stack = [(root, rid)]
        while stack:
            a, aid = stack[-1]
            if aid in memo:
                stack.pop()
                continue
            ids = operands.get(aid)
            if ids is None:
                kind = c.Z3_get_ast_kind(ctx, a)
                if kind == z3.Z3_QUANTIFIER_AST:  # a lambda (an array the memory model moved or cut)
                    args = [c.Z3_get_quantifier_body(ctx, a)]
                elif kind != z3.Z3_APP_AST:
                    memo[aid] = _NONE
                    stack.pop()
                    continue
                else:
                    app = c.Z3_to_app(ctx, a)
                    n = c.Z3_get_app_num_args(ctx, app)
                    if n == 0:
                        free = c.Z3_get_decl_kind(ctx, c.Z3_get_app_decl(ctx, app)) == z3.Z3_OP_UNINTERPRETED
                        memo[aid] = frozenset((aid,)) if free else _NONE
                        if free and c.Z3_get_sort_kind(ctx, c.Z3_get_sort(ctx, a)) == z3.Z3_ARRAY_SORT:
                            self.arrays.add(aid)
                        stack.pop()
                        continue
                    args = [c.Z3_get_app_arg(ctx, app, i) for i in range(n)]
                ids = operands[aid] = [c.Z3_get_ast_id(ctx, arg) for arg in args]
                stack.extend((arg, i) for arg, i in zip(args, ids) if i not in memo)
                continue
            out = _NONE  # every operand is in the memo now: they were above this node
            for i in ids:
                s = memo[i]
                if s:
                    out = out | s if out else s
            memo[aid] = out
            stack.pop()
        return memo[rid]


@dataclass
class Result:
    status: str
    model: dict[int, z3.ExprRef] = field(default_factory=dict)  # symbol id -> value
    limit_ms: int = 0  # of an UNKNOWN: z3's time, so a cached one answers no query given longer


@dataclass
class SolverStats:
    queries: int = 0
    z3_calls: int = 0
    cache_hits: int = 0
    sat: int = 0
    unsat: int = 0
    unknown: int = 0
    isolated: int = 0  # queries checked in a child
    seconds: float = 0.0
    constraints_in: int = 0  # constraints of the queries as asked
    constraints_solved: int = 0  # constraints left after slicing


class PathSolver:
    def __init__(self, symbols: Symbols | None = None, timeout: float = 1.0, slicing: bool = True,
                 cache: bool = True, incremental: bool = False) -> None:
        self.symbols = symbols or Symbols()
        self.timeout_ms = max(1, int(timeout * 1000))
        self.slicing = slicing
        self.cache: dict[frozenset[int], Result] | None = {} if cache else None
        self._alive: list[z3.BoolRef] = []  # negations in cache keys (constraints live in paths)
        self.incremental = incremental
        self.stats = SolverStats()
        self._z3 = z3.Solver()
        self._scopes: list[int] = []  # ids of the constraints asserted, one scope each
        self.isolating = False  # queries over memory go to a child (``_isolated``)

    def solve(self, prefix: list[z3.BoolRef], negated: z3.BoolRef,
              preferred: Mapping[int, z3.BoolRef | None] | None = None,
              timeout_ms: int | None = None) -> Result:
        """Inputs satisfying ``prefix`` and ``negated`` (values of the symbols in the
        constraints solved; other symbols keep their old values). ``preferred`` maps
        symbol ids to a constraint their values should meet if they can; ``timeout_ms``
        is this query's time limit (default: the solver's). An "unknown" is remembered
        with its limit and answers only queries with no more time."""
        st = self.stats
        st.queries += 1
        st.constraints_in += len(prefix) + 1
        query = self.slice(prefix, negated) if self.slicing else [c for c in prefix if not z3.is_true(c)]
        st.constraints_solved += len(query) + 1
        key = frozenset(c.get_id() for c in query) | {negated.get_id()}
        limit = self.timeout_ms if timeout_ms is None else timeout_ms
        hit = self.cache.get(key) if self.cache is not None else None
        if hit is not None and (hit.status != UNKNOWN or hit.limit_ms >= limit):
            st.cache_hits += 1
            return hit
        t0 = time.perf_counter()
        # only symbols of the query: a bound on another would give it a new value
        solved = frozenset().union(self.symbols.of(negated), *map(self.symbols.of, query))
        bounds = [b for i in solved if (b := (preferred or {}).get(i)) is not None]
        memory = not solved.isdisjoint(self.symbols.arrays)
        isolated = memory and self.isolating
        result = self._check(query, negated, bounds, limit, isolated)
        took = time.perf_counter() - t0
        if memory and (result.status == UNKNOWN or took > limit / 1000 + GRACE):
            self.isolating = True  # z3's core gave up or overran on memory: the next may hang
        st.isolated += isolated
        st.seconds += took
        st.z3_calls += 1
        setattr(st, result.status, getattr(st, result.status) + 1)
        if self.cache is not None:
            self.cache[key] = result
            self._alive.append(negated)  # its id is part of the key: keep it from reuse
        return result

    def slice(self, prefix: list[z3.BoolRef], negated: z3.BoolRef) -> list[z3.BoolRef]:
        """The constraints of ``prefix`` transitively sharing a symbol with ``negated``
        (union-find over symbols), in their order."""
        of = self.symbols.of
        parent: dict[int, int] = {}

        def find(x: int) -> int:
            root = x
            while parent.get(root, root) != root:
                root = parent[root]
            while parent.get(x, x) != root:
                parent[x], x = root, parent[x]
            return root

        syms = [of(c) for c in prefix]
        for s in syms:
            if len(s) > 1:
                it = iter(s)
                r = find(next(it))
                for x in it:
                    rx = find(x)
                    if rx != r:
                        parent[rx] = r
        wanted = {find(x) for x in of(negated)}
        if not wanted:
            return []
        return [c for c, s in zip(prefix, syms) if s and find(next(iter(s))) in wanted]

    def _check(self, query: list[z3.BoolRef], negated: z3.BoolRef, bounds: list[z3.BoolRef],
               timeout_ms: int, isolated: bool) -> Result:
        """``query`` and ``negated`` with the bounds, then (unless that was sat) without,
        both checks together within ``timeout_ms``.

        The bounds are asserted, never assumed: ``check`` with assumptions runs z3's SMT
        core, whose propagation of the assumptions does not look at the time limit. A
        query of array23_pattern's (3,246 constraints over products of 64-bit values)
        took 20 s there against a 1-s limit, and carried the run 11 s past its budget;
        asserted, without push or assumptions, z3 bit-blasts it and answers in 23 ms."""
        s = self._z3
        if self.incremental:
            ids = [c.get_id() for c in query]
            common = 0
            for a, b in zip(self._scopes, ids):
                if a != b:
                    break
                common += 1
            if len(self._scopes) > common:
                s.pop(len(self._scopes) - common)
                del self._scopes[common:]
            for c, cid in zip(query[common:], ids[common:]):
                s.push()
                s.add(c)
                self._scopes.append(cid)

        def attempt(extra: list[z3.BoolRef], limit_ms: int) -> Result:
            if self.incremental:
                s.push()
            else:
                s.reset()
                s.add(*query)
            s.set("timeout", limit_ms)
            s.add(negated, *extra)
            try:
                return _isolated(s, timeout_ms, limit_ms) if isolated else _answer(s, s.check(), timeout_ms)
            finally:
                if self.incremental:
                    s.pop()

        started, left = time.perf_counter(), timeout_ms
        if bounds:
            first = attempt(bounds, timeout_ms)
            left = timeout_ms - int(1000 * (time.perf_counter() - started))
            if first.status == SAT or (first.status == UNKNOWN and left <= 0):
                return first
        return attempt([], max(1, left))


def _answer(s: z3.Solver, r: z3.CheckSatResult, timeout_ms: int) -> Result:
    """The result of ``s``'s check ``r``; an "unknown" is recorded with ``timeout_ms``,
    the whole query's limit (of which the check may have had only what the first one
    left)."""
    if r == z3.sat:
        m = s.model()
        return Result(SAT, {d().get_id(): m[d] for d in m.decls() if d.arity() == 0})
    return Result(UNSAT) if r == z3.unsat else Result(UNKNOWN, limit_ms=timeout_ms)


def _isolated(s: z3.Solver, timeout_ms: int, limit_ms: int) -> Result:
    """Check ``s`` in a forked child killed ``GRACE`` after its limit ``limit_ms``; the
    kill, or a child that died, is an "unknown" as z3's own limit is.

    z3 bit-blasts a query of bit-vectors alone to its SAT solver, which polls the time
    limit; a query over memory (arrays) goes to its SMT core, some of whose propagation
    never does: on grep, such queries over dfa.c's character classes ran in
    ``theory_bv::propagate_bits`` past their 1-s limit until the lane's end, 10-25 s of
    concolic search's minute in most runs (the same query read from its SMT-LIB text
    took 3 ms). In the child the query is the parent's terms as they are, and only the
    model's input values come back. A fork costs 2 ms for a small process and 50 ms for
    one of 900 MB, more than most queries take, so queries of bit-vectors alone stay in
    this process, and those over memory go to a child only once one of them has come
    back unknown or late (``PathSolver.isolating``): on grep the hangs came after such
    answers."""
    answer = call_forked(_check_in_child, s, timeout_ms, seconds=limit_ms / 1000 + GRACE)
    if answer is None:
        return Result(UNKNOWN, limit_ms=timeout_ms)
    status, values, limit = answer
    return Result(status, {k: _value(v) for k, v in values.items()}, limit)


GRACE = 0.25  # seconds past its limit a check's child has to answer


def _check_in_child(s: z3.Solver, timeout_ms: int) -> tuple[str, dict[int, tuple[int, int, int]], int]:
    r = _answer(s, s.check(), timeout_ms)
    return r.status, {k: p for k, v in r.model.items() if (p := _portable(v)) is not None}, r.limit_ms


def _portable(v: z3.ExprRef) -> tuple[int, int, int] | None:
    """A model value as numbers a pipe carries: ``(0, width, bits)`` for a bit-vector,
    ``(ebits, sbits, IEEE bits)`` for a float (-1 for NaN, whose bits z3 leaves
    unspecified); None for the arrays of memory (only inputs are read from a model)."""
    if z3.is_bv_value(v):
        return 0, v.size(), v.as_long()
    if isinstance(v, z3.FPNumRef):
        sort = v.sort()
        bits = -1 if v.isNaN() else z3.simplify(z3.fpToIEEEBV(v)).as_long()
        return sort.ebits(), sort.sbits(), bits
    return None


def _value(v: tuple[int, int, int]) -> z3.ExprRef:
    """The z3 value ``_portable`` gave ``v`` for."""
    first, second, bits = v
    if first == 0:
        return z3.BitVecVal(bits, second)
    sort = z3.FPSort(first, second)
    if bits < 0:
        return z3.fpNaN(sort)
    return z3.simplify(z3.fpBVToFP(z3.BitVecVal(bits, first + second), sort))
