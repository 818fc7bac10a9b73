"""The values of terms in the model of one run, each node evaluated once.

Concolic search checks at every branch of a path that the model of the native run takes
the branch the run took (a divergence otherwise), and reads the run's value of the bytes
a string model scans and of the terms it concretises. z3's ``model.eval`` evaluates its
whole argument on every call: on grep a branch condition holds 1,500 to 5,500 distinct
nodes (reads through chains of 100-200 stores and through the lambdas of strcpy and
realloc), most of them shared with the conditions before it, and those evaluations were
43% of a symbolic execution (seed 1, 30 iterations). Here a node's value is kept for the
life of the model, as CREST keeps a concrete value beside each symbolic one, so that a
path pays for the nodes it adds, not for every node again at every branch.

What is evaluated here: bit-vector and Boolean operations, and reads of arrays through
stores, constant arrays, if-then-else and lambdas of one bound variable (the byte
arrays of ``analyses.symbolic``). Everything else, the free constants first (the
inputs, the unknowns the model completes), floating point, uninterpreted functions, is
z3's own ``model.eval`` with completion, as before, on that node alone. Operations
follow z3's definitions of SMT-LIB's bit-vectors, division by zero included;
``tests/concolic/test_run_values.py`` compares them with z3 on random terms.

Nodes are kept by their z3 ids, so every term evaluated is held (``_held``) as long as
its values are: an id whose term z3 freed may be given to another term.
"""
from __future__ import annotations

import sys
from typing import Callable, Union

import z3

from cooptest.analyses import terms

Value = Union[int, bool]
Env = tuple[tuple[int, int], ...]  # the values of the bound variables (de Bruijn order) and their widths
Key = Union[int, tuple[int, Env]]


def _signed(v: int, w: int) -> int:
    return v - (1 << w) if v >> (w - 1) else v


def _sdiv(a: int, b: int, w: int) -> int:
    sa, sb = _signed(a, w), _signed(b, w)
    if sb == 0:
        return (1 << w) - 1 if sa >= 0 else 1
    q = abs(sa) // abs(sb)
    return (-q if (sa < 0) != (sb < 0) else q) & ((1 << w) - 1)


def _srem(a: int, b: int, w: int) -> int:
    sa, sb = _signed(a, w), _signed(b, w)
    if sb == 0:
        return a
    r = abs(sa) % abs(sb)
    return (-r if sa < 0 else r) & ((1 << w) - 1)


def _smod(a: int, b: int, w: int) -> int:
    sa, sb = _signed(a, w), _signed(b, w)
    return a if sb == 0 else (sa % sb) & ((1 << w) - 1)  # Python's % takes the divisor's sign


def _ashr(a: int, b: int, w: int) -> int:
    return (_signed(a, w) >> min(b, w)) & ((1 << w) - 1)


def _rotate(a: int, n: int, w: int) -> int:
    n %= w
    return ((a << n) | (a >> (w - n))) & ((1 << w) - 1) if n else a


# Binary bit-vector operations: (a, b, width) -> value
_BINARY: dict[int, Callable[[int, int, int], Value]] = {
    z3.Z3_OP_BSUB: lambda a, b, w: (a - b) & ((1 << w) - 1),
    z3.Z3_OP_BUDIV: lambda a, b, w: (1 << w) - 1 if b == 0 else a // b,
    z3.Z3_OP_BUDIV_I: lambda a, b, w: (1 << w) - 1 if b == 0 else a // b,
    z3.Z3_OP_BUREM: lambda a, b, w: a if b == 0 else a % b,
    z3.Z3_OP_BUREM_I: lambda a, b, w: a if b == 0 else a % b,
    z3.Z3_OP_BSDIV: _sdiv, z3.Z3_OP_BSDIV_I: _sdiv,
    z3.Z3_OP_BSREM: _srem, z3.Z3_OP_BSREM_I: _srem,
    z3.Z3_OP_BSMOD: _smod, z3.Z3_OP_BSMOD_I: _smod,
    z3.Z3_OP_BSHL: lambda a, b, w: 0 if b >= w else (a << b) & ((1 << w) - 1),
    z3.Z3_OP_BLSHR: lambda a, b, w: 0 if b >= w else a >> b,
    z3.Z3_OP_BASHR: _ashr,
    z3.Z3_OP_BNAND: lambda a, b, w: ~(a & b) & ((1 << w) - 1),
    z3.Z3_OP_BNOR: lambda a, b, w: ~(a | b) & ((1 << w) - 1),
    z3.Z3_OP_BXNOR: lambda a, b, w: ~(a ^ b) & ((1 << w) - 1),
    z3.Z3_OP_BCOMP: lambda a, b, w: int(a == b),
    z3.Z3_OP_ULEQ: lambda a, b, w: a <= b, z3.Z3_OP_ULT: lambda a, b, w: a < b,
    z3.Z3_OP_UGEQ: lambda a, b, w: a >= b, z3.Z3_OP_UGT: lambda a, b, w: a > b,
    z3.Z3_OP_SLEQ: lambda a, b, w: _signed(a, w) <= _signed(b, w),
    z3.Z3_OP_SLT: lambda a, b, w: _signed(a, w) < _signed(b, w),
    z3.Z3_OP_SGEQ: lambda a, b, w: _signed(a, w) >= _signed(b, w),
    z3.Z3_OP_SGT: lambda a, b, w: _signed(a, w) > _signed(b, w),
}
# Bit-vector operations of any arity that fold their operands: (values, width) -> value
_FOLD: dict[int, Callable[[list[int], int], int]] = {
    z3.Z3_OP_BADD: lambda vs, w: sum(vs) & ((1 << w) - 1),
    z3.Z3_OP_BMUL: lambda vs, w: _product(vs) & ((1 << w) - 1),
    z3.Z3_OP_BAND: lambda vs, w: _fold(vs, int.__and__),
    z3.Z3_OP_BOR: lambda vs, w: _fold(vs, int.__or__),
    z3.Z3_OP_BXOR: lambda vs, w: _fold(vs, int.__xor__),
}
_UNARY: dict[int, Callable[[int, int], int]] = {
    z3.Z3_OP_BNEG: lambda a, w: -a & ((1 << w) - 1),
    z3.Z3_OP_BNOT: lambda a, w: ~a & ((1 << w) - 1),
}
# The operand widths a comparison's width is (the result is a Boolean or one bit)
_OPERAND_WIDTH = frozenset({z3.Z3_OP_ULEQ, z3.Z3_OP_ULT, z3.Z3_OP_UGEQ, z3.Z3_OP_UGT, z3.Z3_OP_SLEQ,
                            z3.Z3_OP_SLT, z3.Z3_OP_SGEQ, z3.Z3_OP_SGT, z3.Z3_OP_BCOMP})
_PARAMETRISED = frozenset({z3.Z3_OP_EXTRACT, z3.Z3_OP_ZERO_EXT, z3.Z3_OP_SIGN_EXT, z3.Z3_OP_REPEAT,
                           z3.Z3_OP_ROTATE_LEFT, z3.Z3_OP_ROTATE_RIGHT})
_STRUCTURAL = frozenset({z3.Z3_OP_TRUE, z3.Z3_OP_FALSE, z3.Z3_OP_EQ, z3.Z3_OP_DISTINCT, z3.Z3_OP_ITE,
                         z3.Z3_OP_AND, z3.Z3_OP_OR, z3.Z3_OP_NOT, z3.Z3_OP_IMPLIES, z3.Z3_OP_IFF,
                         z3.Z3_OP_XOR, z3.Z3_OP_CONCAT, z3.Z3_OP_SELECT})
_EVALUATED = frozenset(_BINARY) | frozenset(_FOLD) | frozenset(_UNARY) | _PARAMETRISED | _STRUCTURAL


def _product(vs: list[int]) -> int:
    p = 1
    for v in vs:
        p *= v
    return p


def _fold(vs: list[int], op: Callable[[int, int], int]) -> int:
    acc = vs[0]
    for v in vs[1:]:
        acc = op(acc, v)
    return acc


NUMBER, APP, VAR, LAMBDA, OPAQUE = range(5)  # the kinds of node a Shape describes
TABLE_AFTER = 32  # stores a read walks before the chain is tabulated
# entries of all tables of one model at most: each table copies the one below it, so a
# chain of n stores read as it grows holds n^2/64 entries; past the bound reads walk
TABLE_ENTRIES = 1 << 21
ANY = 1 << 30  # bound variables a node z3 evaluates may depend on: all


class Shape:
    """What evaluation needs of one node, read through z3's C API once: its kind (an
    operation of ``_EVALUATED``, a numeral, a bound variable, a lambda, or OPAQUE for
    z3 to evaluate), operands, width (0: Boolean, -1: another sort) and parameters."""

    __slots__ = ("kind", "op", "args", "width", "params", "ast")

    def __init__(self, kind: int, op: int, args: tuple[int, ...], width: int, params: tuple[int, ...],
                 ast: z3.Ast) -> None:
        self.kind, self.op, self.args, self.width, self.params, self.ast = kind, op, args, width, params, ast


class Shapes:
    """The shapes of the nodes evaluated over a whole search: a node's shape does not
    depend on the model, and reading it through the C API was most of what evaluation
    still cost (12% of a symbolic execution on grep, seed 3, when read once per path).
    A reference to every node it describes is held, so that no id it keys by is given
    to another term; ``clear`` lets them go (between paths, never within one)."""

    def __init__(self, ctx: z3.Context) -> None:
        self._ctx = ctx
        self._c = ctx.ref()
        self._asts: dict[int, z3.Ast] = {}  # nodes seen, by id, each referenced
        self._shapes: dict[int, Shape] = {}
        self._bounds: dict[int, int] = {}  # by id: how many bound variables a node's value depends on

    def __len__(self) -> int:
        return len(self._asts)

    def clear(self) -> None:
        for ast in self._asts.values():
            z3.Z3_dec_ref(self._c, ast)
        self._asts.clear()
        self._shapes.clear()
        self._bounds.clear()

    def __del__(self) -> None:
        if not sys.is_finalizing():  # z3's context may be gone before this table
            self.clear()

    def id(self, ast: z3.Ast) -> int:
        """The node's id; its shape is read when evaluation first needs it (reading the
        operands' shapes at once would recurse down chains of thousands of stores)."""
        i: int = z3.Z3_get_ast_id(self._c, ast)
        if i not in self._asts:
            z3.Z3_inc_ref(self._c, ast)
            self._asts[i] = ast
        return i

    def shape(self, i: int) -> Shape:
        shape = self._shapes.get(i)
        if shape is None:
            shape = self._shapes[i] = self._read_shape(self._asts[i])
        return shape

    def _width(self, ast: z3.Ast) -> int:
        """A bit-vector's width; 0 for a Boolean, -1 for any other sort."""
        c = self._c
        sort = z3.Z3_get_sort(c, ast)
        sort_kind = z3.Z3_get_sort_kind(c, sort)
        return z3.Z3_get_bv_sort_size(c, sort) if sort_kind == z3.Z3_BV_SORT \
            else 0 if sort_kind == z3.Z3_BOOL_SORT else -1

    def _read_shape(self, ast: z3.Ast) -> Shape:
        c = self._c
        kind = z3.Z3_get_ast_kind(c, ast)
        if kind == z3.Z3_VAR_AST:
            return Shape(VAR, 0, (), self._width(ast), (z3.Z3_get_index_value(c, ast),), ast)
        if kind == z3.Z3_QUANTIFIER_AST:
            if z3.Z3_is_lambda(c, ast) and z3.Z3_get_quantifier_num_bound(c, ast) == 1:
                return Shape(LAMBDA, 0, (self.id(z3.Z3_get_quantifier_body(c, ast)),), -1, (), ast)
            return Shape(OPAQUE, 0, (), -1, (), ast)  # free variables: any (``_bound``)
        width = self._width(ast)
        if kind == z3.Z3_NUMERAL_AST and width > 0:
            return Shape(NUMBER, 0, (), width, (int(z3.Z3_get_numeral_string(c, ast)),), ast)
        if kind != z3.Z3_APP_AST:
            return Shape(OPAQUE, 0, (), width, (), ast)
        decl = z3.Z3_get_app_decl(c, ast)
        op = z3.Z3_get_decl_kind(c, decl)
        operands = [z3.Z3_get_app_arg(c, ast, k) for k in range(z3.Z3_get_app_num_args(c, ast))]
        if op in (z3.Z3_OP_STORE, z3.Z3_OP_CONST_ARRAY) or op == z3.Z3_OP_ITE and width < 0:
            pass  # arrays: read by _select, never valued
        elif op not in _EVALUATED or width < 0 \
                or op in (z3.Z3_OP_EQ, z3.Z3_OP_DISTINCT) and any(self._width(a) < 0 for a in operands) \
                or op == z3.Z3_OP_SELECT and (len(operands) != 2 or self._width(operands[1]) <= 0):
            # floats, free constants, functions: z3's (the operands for ``_bound``)
            return Shape(OPAQUE, op, tuple(self.id(a) for a in operands), width, (), ast)
        params = tuple(z3.Z3_get_decl_int_parameter(c, decl, k)
                       for k in range(z3.Z3_get_decl_num_parameters(c, decl))) if op in _PARAMETRISED else ()
        return Shape(APP, op, tuple(self.id(a) for a in operands), width, params, ast)

    def bound(self, root: int) -> int:
        """How many of the innermost bound variables the node's value may depend on (1 +
        the highest de Bruijn index free in it; 0: none, a closed term, whose value is
        kept once for every binding of the lambda it is read in)."""
        bounds = self._bounds
        stack = [root]
        while stack:
            node = stack[-1]
            if node in bounds:
                stack.pop()
                continue
            shape = self.shape(node)
            if shape.kind == VAR:
                bounds[node] = shape.params[0] + 1
            elif shape.kind == OPAQUE and not shape.args and shape.width < 0 \
                    and z3.Z3_get_ast_kind(self._c, shape.ast) == z3.Z3_QUANTIFIER_AST:
                bounds[node] = ANY  # a quantifier z3 evaluates
            else:
                missing = [a for a in shape.args if a not in bounds]
                if missing:
                    stack.extend(missing)
                    continue
                inner = max((bounds[a] for a in shape.args), default=0)
                bounds[node] = max(inner - 1, 0) if shape.kind == LAMBDA else inner
            stack.pop()
        return bounds[root]


class RunValues:
    """The run's value of each term in ``model`` (see the module docstring). Values of
    the model's constants may be added (``assign``) as the run reads inputs; giving one
    a value the evaluation already read forgets every value."""

    def __init__(self, model: z3.ModelRef, shapes: Shapes | None = None) -> None:
        self.model = model
        self._ctx = model.ctx
        self.shapes = shapes if shapes is not None else Shapes(model.ctx)
        self._values: dict[Key, Value] = {}
        self._tables: dict[int, tuple[dict[int, int], int]] = {}  # store chains read (``_through_stores``)
        self._tabulated = 0  # their entries
        self._held: list[z3.ExprRef] = []
        self._read: set[int] = set()  # ids of the constants whose model value was read
        self._opaque = False  # z3 evaluated a node holding constants not in _read

    def value(self, term: z3.ExprRef) -> Value:
        """The run's value of a bit-vector (an int, unsigned) or Boolean term."""
        self._held.append(term)
        return self._eval(self.shapes.id(term.as_ast()), ())

    def assign(self, constant: z3.FuncDeclRef | z3.ExprRef, value: z3.ExprRef) -> None:
        """Give ``constant`` (its declaration or itself) a value in the model (an input
        read by the run)."""
        self.model.update_value(constant, value)
        term = constant() if isinstance(constant, z3.FuncDeclRef) else constant
        if self._opaque or term.get_id() in self._read:  # its old value (a completion) was read
            self._values.clear()
            self._tables.clear()
            self._tabulated = 0
            self._read.clear()
            self._opaque = False

    def _key(self, node: int, env: Env) -> Key:
        return node if not env or not self.shapes.bound(node) else (node, env)

    # ------------------------------------------------------------------ evaluation

    def _eval(self, root: int, env: Env) -> Value:
        """The value of node ``root`` under ``env``, by an explicit stack: a step that
        finds an operand without a value pushes it and is tried again."""
        values = self._values
        root_key = self._key(root, env)
        found = values.get(root_key)
        if found is not None:
            return found
        stack: list[tuple[int, Env]] = [(root, env)]
        while stack:
            node, e = stack[-1]
            key = self._key(node, e)
            if key in values:
                stack.pop()
                continue
            if key == node:
                e = ()  # a closed term: its reads of lambdas bind their own variable alone
            missing = self._step(node, e, key)
            if missing:
                stack.extend(missing)
            else:
                stack.pop()
        return values[root_key]

    def _step(self, node: int, env: Env, key: Key) -> list[tuple[int, Env]]:
        """Set the value of ``node`` under ``env``, or return operands without one."""
        values = self._values
        shape = self.shapes.shape(node)
        kind = shape.kind
        if kind == NUMBER:
            values[key] = shape.params[0]
            return []
        if kind == VAR:
            values[key] = env[shape.params[0]][0]
            return []
        if kind != APP:
            values[key] = self._by_z3(shape, env)
            return []
        op, args = shape.op, shape.args

        def get(a: int) -> Value | None:
            return values.get(self._key(a, env))

        if op == z3.Z3_OP_ITE:
            c = get(args[0])
            if c is None:
                return [(args[0], env)]
            chosen = args[1] if c else args[2]
            v = get(chosen)
            if v is None:
                return [(chosen, env)]
            values[key] = v
            return []
        if op in (z3.Z3_OP_AND, z3.Z3_OP_OR):
            stop = op == z3.Z3_OP_OR  # the value that decides
            for a in args:
                v = get(a)
                if v is None:
                    return [(a, env)]
                if v == stop:
                    values[key] = stop
                    return []
            values[key] = not stop
            return []
        if op == z3.Z3_OP_TRUE or op == z3.Z3_OP_FALSE:
            values[key] = op == z3.Z3_OP_TRUE
            return []
        if op == z3.Z3_OP_SELECT:
            return self._select(node, shape, env, key)
        operands = [get(a) for a in args]
        missing = [(a, env) for a, v in zip(args, operands) if v is None]
        if missing:
            return missing
        vs: list[int] = operands  # type: ignore[assignment]
        w = shape.width
        if op in _BINARY:
            if op in _OPERAND_WIDTH:
                w = self.shapes.shape(args[0]).width
            values[key] = _BINARY[op](vs[0], vs[1], w) if len(vs) == 2 else _chain(_BINARY[op], vs, w)
        elif op in _FOLD:
            values[key] = _FOLD[op](vs, w)
        elif op in _UNARY:
            values[key] = _UNARY[op](vs[0], w)
        elif op == z3.Z3_OP_EQ or op == z3.Z3_OP_IFF:
            values[key] = all(v == vs[0] for v in vs[1:])
        elif op == z3.Z3_OP_DISTINCT:
            values[key] = len(set(vs)) == len(vs)
        elif op == z3.Z3_OP_NOT:
            values[key] = not vs[0]
        elif op == z3.Z3_OP_IMPLIES:
            values[key] = not vs[0] or bool(vs[1])
        elif op == z3.Z3_OP_XOR:
            values[key] = bool(vs[0]) != bool(vs[1])
        elif op == z3.Z3_OP_CONCAT:
            acc = 0
            for a, v in zip(args, vs):
                acc = (acc << self.shapes.shape(a).width) | v
            values[key] = acc
        elif op == z3.Z3_OP_EXTRACT:
            high, low = shape.params
            values[key] = (vs[0] >> low) & ((1 << (high - low + 1)) - 1)
        elif op == z3.Z3_OP_ZERO_EXT:
            values[key] = vs[0]
        elif op == z3.Z3_OP_SIGN_EXT:
            values[key] = _signed(vs[0], self.shapes.shape(args[0]).width) & ((1 << w) - 1)
        elif op == z3.Z3_OP_REPEAT:
            inner = self.shapes.shape(args[0]).width
            values[key] = sum(vs[0] << (inner * k) for k in range(shape.params[0]))
        elif op == z3.Z3_OP_ROTATE_LEFT:
            values[key] = _rotate(vs[0], shape.params[0], w)
        elif op == z3.Z3_OP_ROTATE_RIGHT:
            values[key] = _rotate(vs[0], w - shape.params[0] % w, w)
        else:  # pragma: no cover - _EVALUATED lists exactly the operations above
            raise AssertionError(f"operation {op} has no evaluation")
        return []

    def _select(self, node: int, shape: Shape, env: Env, key: Key) -> list[tuple[int, Env]]:
        """A read of an array at an index: through its stores, the branch of an
        if-then-else its condition takes, a lambda's body with the index bound, down to
        a constant array or to an array z3 evaluates (a free one)."""
        values, shape_of = self._values, self.shapes.shape
        array, index = shape.args
        idx = values.get(self._key(index, env))
        if idx is None:
            return [(index, env)]
        assert isinstance(idx, int)
        a = array
        while True:
            s = shape_of(a)
            if s.kind == APP and s.op == z3.Z3_OP_STORE:
                found = self._through_stores(a, idx, env)
                if isinstance(found, list):
                    return found
                a, stored = found
                if stored:
                    return self._take(a, env, key)
            elif s.kind == APP and s.op == z3.Z3_OP_CONST_ARRAY:
                return self._take(s.args[0], env, key)
            elif s.kind == APP and s.op == z3.Z3_OP_ITE:
                c = values.get(self._key(s.args[0], env))
                if c is None:
                    return [(s.args[0], env)]
                a = s.args[1] if c else s.args[2]
            elif s.kind == LAMBDA:
                return self._take(s.args[0], ((idx, shape_of(index).width), *env), key)
            else:
                values[key] = self._read_by_z3(s, idx, shape_of(index).width, env)
                return []

    def _through_stores(self, top: int, idx: int, env: Env) -> tuple[int, bool] | list[tuple[int, Env]]:
        """A read at ``idx`` of the chain of stores from ``top`` down: (the value stored
        there, True), or (the first node below the chain, False), or the indices without
        a value. In a closed array, a walk of more than ``TABLE_AFTER`` stores leaves a
        table of the chain at ``top`` (``_tabulate``): a buffer written byte by byte and
        read after each write is a chain of thousands of stores, each read of which
        walked it from the top (5,000 reads of a 20,000-store chain: 28 s walked, 1 s
        for z3)."""
        values, tables, shape_of = self._values, self._tables, self.shapes.shape
        a, steps = top, 0
        while True:
            table = None if env else tables.get(a)
            if table is not None:
                stored, base = table
                value = stored.get(idx)
                found = (value, True) if value is not None else (base, False)
                break
            s = shape_of(a)
            if s.kind != APP or s.op != z3.Z3_OP_STORE:
                found = (a, False)
                break
            at = values.get(self._key(s.args[1], env))
            if at is None:
                return self._unvalued_indices(a, env)
            if at == idx:
                found = (s.args[2], True)
                break
            a, steps = s.args[0], steps + 1
        if not env and steps > TABLE_AFTER and self._tabulated < TABLE_ENTRIES:
            self._tabulate(top)
        return found

    def _tabulate(self, top: int) -> None:
        """The table of the chain of stores from ``top``: the value node stored at each
        index (the topmost store's), and the first node below the chain; built on the
        nearest table below, if any."""
        values, tables, shape_of = self._values, self._tables, self.shapes.shape
        stores: list[tuple[int, int]] = []
        a = top
        while True:
            table = tables.get(a)
            if table is not None:
                stored, base = dict(table[0]), table[1]
                break
            s = shape_of(a)
            if s.kind != APP or s.op != z3.Z3_OP_STORE:
                stored, base = {}, a
                break
            at = values.get(s.args[1])
            if not isinstance(at, int):
                return  # an index not valued yet (below a table's walk): tabulated later
            stores.append((at, s.args[2]))
            a = s.args[0]
        for at, value in reversed(stores):
            stored[at] = value
        tables[top] = (stored, base)
        self._tabulated += len(stored)

    def _unvalued_indices(self, array: int, env: Env) -> list[tuple[int, Env]]:
        """The indices without a value of the stores from ``array`` down, all at once (a
        read tried again walks the chain again), to the first other node, table, or
        index with a value: below it an earlier read valued them (a read that finds one
        without a value after all asks again)."""
        missing: list[tuple[int, Env]] = []
        while (s := self.shapes.shape(array)).kind == APP and s.op == z3.Z3_OP_STORE \
                and (env or array not in self._tables):
            if self._key(s.args[1], env) in self._values:
                break
            missing.append((s.args[1], env))
            array = s.args[0]
        return missing

    def _take(self, source: int, env: Env, key: Key) -> list[tuple[int, Env]]:
        """Set ``key``'s value to ``source``'s, or return it to be evaluated first."""
        v = self._values.get(self._key(source, env))
        if v is None:
            return [(source, env)]
        self._values[key] = v
        return []

    # ------------------------------------------------------------------ z3's evaluation

    def _by_z3(self, shape: Shape, env: Env) -> Value:
        return self._literal(self.model.eval(self._closed(shape, env), model_completion=True))

    def _read_by_z3(self, array: Shape, index: int, width: int, env: Env) -> Value:
        term = self._closed(array, env)
        return self._literal(self.model.eval(terms.select(term, z3.BitVecVal(index, width)),
                                             model_completion=True))

    def _closed(self, shape: Shape, env: Env) -> z3.ExprRef:
        """The node as a term z3 evaluates, its bound variables replaced by their
        values; notes which of the model's values it may read."""
        term = z3.z3._to_expr_ref(shape.ast, self._ctx)
        if env:
            term = z3.substitute_vars(term, *(z3.BitVecVal(v, w) for v, w in env))
        if z3.is_const(term) and term.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            self._read.add(term.get_id())
        else:
            self._opaque = True
        return term

    @staticmethod
    def _literal(v: z3.ExprRef) -> Value:
        if z3.is_true(v) or z3.is_false(v):
            return z3.is_true(v)
        if z3.is_bv_value(v):
            return v.as_long()
        raise ValueError(f"z3 gave no value for a term of the run: {v}")


def _chain(op: Callable[[int, int, int], Value], vs: list[int], w: int) -> Value:
    """A binary operation z3 applies to more operands, left to right (``bvsub a b c``)."""
    acc: Value = vs[0]
    for v in vs[1:]:
        acc = op(int(acc), v, w)
    return acc
