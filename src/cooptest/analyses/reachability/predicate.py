"""Predicate abstraction with adjustable-block encoding and lazy abstraction.

Blocks end at loop heads, function entries, call-return locations and target states
(states reached by the edge of an open goal). Inside a block the abstract data is the
strongest post (a :class:`SymbolicState` started from the block's abstraction); at a
block end the precision adjustment computes the cartesian predicate abstraction of it
over the predicates of that location (lazy abstraction: predicates per location), or
drops the state if the block is infeasible. The stop operator covers an abstraction
state by one at the same location and call stack whose predicate literals it implies
(a subset of ours); states inside blocks are never covered (blocks are loop free).

Predicates are IR conditions, instantiated in a state with ``SymbolicState.eval``, so
the abstraction is bit-precise over C integers and as sound as the symbolic state:
memory the state cannot follow is havocked (``imprecise``), and an abstraction of an
over-approximation is an over-approximation. A block starts from ``havoc_at``: every
value not constrained by the abstraction is a fresh symbol. Locals of callers are read
in their own frame (:class:`FrameState`), so a predicate about a caller's variable
survives an abstraction inside the callee.

Refinement: z3 no longer exposes interpolation, so predicates come from weakest
preconditions along the spurious path. Going backwards from the target, the conditions
of the assumes in the unsat core of the path's constraints become atoms; every
assignment to a register variable substitutes its right-hand side into the atoms
(``x := e`` turns ``p(x)`` into ``p(e)``), parameter bindings and returned values
likewise; an input or an uninitialised declaration drops the atoms about its variable.
The atoms live at each abstraction state of the path are added to the predicates of its
location. This yields the atoms of the path's WP of ``false`` over the core: sound by
construction (any predicate set is sound, only progress depends on the choice), and the
first abstraction state of the path computed without one of the new predicates is the
refinement pivot.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import z3

from cooptest.analyses import semantics as sem
from cooptest.analyses.reachability.arg import ARGState, CallStack, ReachabilityARG
from cooptest.analyses.reachability.cegar import CEGARAnalysis
from cooptest.analyses.reachability.cpa import Successor, callee_name
from cooptest.analyses.reachability.refinement import PathCheck, calls_of
from cooptest.analyses.symbolic import Frame, SymbolicState, in_memory
from cooptest.cfa.fold import fold
from cooptest.cfa.ctype import IntType
from cooptest.cfa.ir import (LVALUES, AddrOf, AssignEdge, AssumeEdge, Binary, CallEdge, Cast, Const, DeclEdge, Deref, Edge, Expr,
                             Location, NondetEdge, Program, ReturnEdge, Var, Variable,
                             variables_of)

ABSTRACTION_TIMEOUT_MS = 5000


class FrameState(SymbolicState):
    """A symbolic state that reads a local in the innermost frame of its own function
    (the plain state reads the top frame, which is the same for code in scope)."""

    def _frame_of(self, v: Variable) -> Frame:
        if v.is_global:
            return self.globals
        for k in range(len(self.frames) - 1, 0, -1):
            if k - 1 < len(self.call_stack) and callee_name(self.call_stack[k - 1]) == v.function:
                return self.frames[k]
        if v.function == self.program.entry:
            return self.frames[0]
        return self.frames[-1]

    def copy(self) -> FrameState:
        s = super().copy()
        s.__class__ = FrameState
        return s  # type: ignore[return-value]


Literal = tuple[Expr, bool]
Predicate = tuple[Literal, ...]  # a conjunction of IR conditions (or their negations)


@dataclass
class PredicatePrecision:
    """Predicates per location, keyed by their text (IR expressions compare by identity),
    and the loop counters whose values abstractions keep exactly (``explicit``)."""

    predicates: dict[Location, dict[str, Predicate]] = field(default_factory=dict)
    keys: dict[Location, frozenset[str]] = field(default_factory=dict)
    explicit: frozenset[Variable] = frozenset()

    def at(self, location: Location) -> frozenset[str]:
        """What an abstraction at ``location`` is computed with."""
        return self.keys.get(location, frozenset()) | {f"={v.name}" for v in self.explicit}

    def add(self, location: Location, atoms: dict[str, Predicate]) -> None:
        preds = self.predicates.setdefault(location, {})
        preds.update(atoms)
        self.keys[location] = frozenset(preds)

    def size(self) -> int:
        return sum(len(p) for p in self.predicates.values())


@dataclass
class PredicateState:
    """``abstraction``: the predicate literals at the last block end; ``block``: the
    strongest post since then (it assumes the abstraction)."""

    abstraction: frozenset[tuple[str, bool]]
    block: FrameState
    is_abstraction: bool


def _definition(pred: Predicate) -> tuple[Var, Expr] | None:
    """``(v, e)`` if the predicate is ``v == e`` for a register variable ``v`` not in ``e``
    (true in an abstraction, it defines ``v`` in the next block)."""
    if len(pred) != 1 or not pred[0][1]:
        return None
    e = pred[0][0]
    if isinstance(e, Binary) and e.op == "==" and isinstance(e.left, Var) and not in_memory(e.left.var) \
            and e.left.var not in variables_of(e.right) and e.left.type == e.right.type:
        return e.left, e.right
    return None


def _truth(state: SymbolicState, pred: Predicate) -> z3.BoolRef:
    terms = [sem.truth(state.eval(e), e.type) for e, _ in pred]
    return z3.And(*[t if positive else z3.Not(t) for t, (_, positive) in zip(terms, pred)])


def _uncast(e: Expr) -> Expr:
    while isinstance(e, Cast):
        e = e.operand
    return e


def _counted(v: Variable, rhs: Expr) -> bool:
    """``rhs`` is a constant, or ``v`` plus or minus a constant (under casts)."""
    rhs = _uncast(rhs)
    if isinstance(fold(rhs), Const):
        return True
    if isinstance(rhs, Binary) and rhs.op in ("+", "-") and isinstance(fold(rhs.right), Const):
        left = _uncast(rhs.left)
        return isinstance(left, Var) and left.var == v
    return False


def _bounded(cond: Expr) -> Variable | None:
    """The variable ``cond`` compares with a constant (``j < 30``), if it is one."""
    cond = _uncast(cond)
    if isinstance(cond, Binary) and cond.op in ("<", "<=", ">", ">=", "==", "!="):
        for var, bound in ((cond.left, cond.right), (cond.right, cond.left)):
            var = _uncast(var)
            if isinstance(var, Var) and isinstance(fold(bound), Const):
                return var.var
    return None


@lru_cache(maxsize=8)
def loop_counters(program: Program) -> frozenset[Variable]:
    """Integer register variables compared with a constant at a loop head and only ever
    assigned constants or themselves plus or minus a constant: along any path their value
    is a constant, and so is the number of iterations of the loop they count.

    Predicates learn such a counter one value per refinement (``j < 30``, ``j + 1 < 30``,
    ...); an abstraction that keeps its value exactly, as value analysis does, unrolls
    the loop without refining. A loop bounded by a variable (``i < size``) is left to
    predicates, which can generalise over its iterations (``i < size``)."""
    tested: set[Variable] = set()
    spoiled: set[Variable] = set()
    for edge in program.edges():
        if isinstance(edge, AssumeEdge) and edge.src.is_loop_head:
            counter = _bounded(edge.cond)
            if counter is not None:
                tested.add(counter)
        elif isinstance(edge, AssignEdge) and isinstance(edge.lhs, Var) and not _counted(edge.lhs.var, edge.rhs):
            spoiled.add(edge.lhs.var)
        elif isinstance(edge, NondetEdge) and isinstance(edge.lhs, Var):
            spoiled.add(edge.lhs.var)
        elif isinstance(edge, CallEdge) and isinstance(edge.lhs, Var):
            spoiled.add(edge.lhs.var)
    params = {p for f in program.functions.values() for p in f.params}
    return frozenset(v for v in tested - spoiled - params
                     if isinstance(v.type, IntType) and not in_memory(v))


class PredicateCPA:
    name = "predicate"

    def __init__(self, program: Program) -> None:
        self.program = program
        self.block_ends: set[Location] = {f.entry for f in program.functions.values()}
        self.block_ends |= {loc for loc in program.locations() if loc.is_loop_head}
        self.block_ends |= {e.dst for e in program.edges()
                            if isinstance(e, CallEdge) and callee_name(e) in program.functions}

    def initial_state(self, program: Program) -> PredicateState:
        return PredicateState(frozenset(), FrameState(program), True)

    def initial_precision(self) -> PredicatePrecision:
        return PredicatePrecision()

    def snapshot(self, precision: PredicatePrecision, location: Location) -> frozenset[str]:
        return precision.at(location)

    def transfer(self, state: ARGState, succ: Successor, precision: PredicatePrecision) -> PredicateState | None:
        data: PredicateState = state.data
        block = data.block.copy()
        block.step(succ.edge)
        if isinstance(succ.edge, AssumeEdge) and z3.is_false(z3.simplify(block.path_condition[-1])):
            return None
        return PredicateState(data.abstraction, block, False)

    def adjust(self, data: PredicateState, location: Location, call_stack: CallStack,
               precision: PredicatePrecision, target: bool) -> PredicateState | None:
        if location not in self.block_ends and not target:
            return data
        literals = self._abstraction(data.block, precision.predicates.get(location, {}))
        if literals is None:
            return None
        block = FrameState.havoc_at(self.program, list(call_stack))
        for v, value in self._values(data.block, precision.explicit, location, call_stack).items():
            block.write(Var(v.type, v), value)
            literals.add((f"{v.name} == {value}", True))
        preds = precision.predicates.get(location, {})
        for key, value in sorted((lit for lit in literals if lit[0] in preds),
                                 key=lambda lit: _definition(preds[lit[0]]) is None):
            definition = _definition(preds[key]) if value else None
            if definition is not None:  # v == e holds: v's value is e's (keeps pointers exact)
                block.write(definition[0], block.eval(definition[1]))
                continue
            term = _truth(block, preds[key])
            block.path_condition.append(term if value else z3.Not(term))
        return PredicateState(frozenset(literals), block, True)

    def _values(self, block: FrameState, explicit: frozenset[Variable], location: Location,
                call_stack: CallStack) -> dict[Variable, z3.ExprRef]:
        """The explicit variables in scope whose value in ``block`` is a numeral."""
        active = {location.function, self.program.entry} | {callee_name(c) for c in call_stack}
        out = {}
        for v in explicit:
            if v.is_global or v.function in active:
                value = z3.simplify(block.read(Var(v.type, v)))
                if z3.is_bv_value(value):
                    out[v] = value
        return out

    @staticmethod
    def _abstraction(block: FrameState, preds: dict[str, Predicate]) -> set[tuple[str, bool]] | None:
        """The cartesian abstraction of ``block`` over ``preds`` (None: infeasible).

        Every model z3 finds on the way rules out the entailment of the literals it
        falsifies, which saves most of the two entailment checks per predicate."""
        solver = z3.Solver()
        solver.set("timeout", ABSTRACTION_TIMEOUT_MS)
        solver.add(*block.path_condition)
        result = solver.check()
        if result == z3.unsat:
            return None
        probe = block.copy()
        terms = {key: _truth(probe, pred) for key, pred in preds.items()}
        models = [solver.model()] if result == z3.sat else []
        literals: set[tuple[str, bool]] = set()
        for key, term in terms.items():
            for value in (True, False):
                literal = term if value else z3.Not(term)
                if any(z3.is_false(m.eval(literal, model_completion=True)) for m in models):
                    continue
                entailment = solver.check(z3.Not(literal))
                if entailment == z3.unsat:
                    literals.add((key, value))
                    break
                if entailment == z3.sat:
                    models.append(solver.model())
        return literals

    def stop(self, data: PredicateState, reached: list[ARGState], precision: PredicatePrecision) -> ARGState | None:
        if not data.is_abstraction:
            return None
        for other in reached:
            if other.covered_by is None and other.data.is_abstraction and other.data.abstraction <= data.abstraction:
                return other
        return None


def substitute(e: Expr, values: dict[Variable, Expr]) -> Expr:
    """``e`` with register variables replaced (and constants folded)."""
    if isinstance(e, Var):
        return values.get(e.var, e)
    children = e.children()
    if not children:
        return e
    new = [substitute(c, values) for c in children]
    if all(n is c for n, c in zip(new, children)):
        return e
    names = [f for f in ("left", "right", "operand", "pointer", "base", "index") if hasattr(e, f)]
    return _reassociate(fold(replace(e, **dict(zip(names, new)))))  # type: ignore[arg-type]


def _reassociate(e: Expr) -> Expr:
    """``(x + c1) + c2`` as ``x + (c1 + c2)`` (also with ``-``): equal in the wrap-around
    arithmetic of the type, and it keeps WP atoms of unrolled loops short."""
    if not (isinstance(e, Binary) and e.op in ("+", "-") and isinstance(e.type, IntType)
            and isinstance(e.right, Const) and isinstance(e.left, Binary) and e.left.op in ("+", "-")
            and e.left.type == e.type and isinstance(e.left.right, Const)):
        return e
    inner, outer = e.left.right.value, e.right.value
    total = (inner if e.left.op == "+" else -inner) + (outer if e.op == "+" else -outer)
    return Binary(e.type, "+", e.left.left, Const(e.type, e.type.wrap(total)))  # type: ignore[arg-type]


def _address(program: Program, lvalue: Expr) -> Expr:
    if isinstance(lvalue, Deref):
        return lvalue.pointer
    return AddrOf(program.types.pointer(lvalue.type), lvalue)


class Atoms:
    """The WP literals of the path suffix processed so far, keyed by their text: their
    conjunction is the (weakened) weakest precondition of the suffix."""

    def __init__(self) -> None:
        self.literals: dict[str, Literal] = {}
        self.aliases: dict[str, Expr] = {}  # conditions under which a store hits a read

    def add(self, e: Expr, positive: bool) -> None:
        if not isinstance(fold(e), Const):
            self.literals[repr(e)] = (e, positive)

    def map(self, values: dict[Variable, Expr]) -> None:
        old, self.literals = self.literals, {}
        for e, positive in old.values():
            self.add(substitute(e, values), positive)
        aliases, self.aliases = self.aliases, {}
        for e in aliases.values():
            e = substitute(e, values)
            if not isinstance(fold(e), Const):
                self.aliases[repr(e)] = e

    def store(self, program: Program, lhs: Expr) -> None:
        """A store to memory: the WP is a case split on whether it hits a read of an
        atom (Morris' rule); the split's conditions ``&lhs == &read`` become predicates."""
        target = _address(program, lhs)
        for e, _ in list(self.literals.values()):
            for read in e.walk():
                if isinstance(read, LVALUES) and read.type == lhs.type and (
                        not isinstance(read, Var) or in_memory(read.var)):
                    alias = Binary(program.types.int, "==", target, _address(program, read))
                    self.aliases[repr(alias)] = alias

    def assign(self, v: Variable, value: Expr | None) -> None:
        if in_memory(v):
            return
        if value is None:
            self.drop({v})
        else:
            self.map({v: value})

    def drop(self, variables: set[Variable]) -> None:
        self.literals = {k: lit for k, lit in self.literals.items()
                         if not variables_of(lit[0]) & variables}
        self.aliases = {k: e for k, e in self.aliases.items() if not variables_of(e) & variables}

    def predicates(self) -> dict[str, Predicate]:
        """Each atom, and the whole conjunction (the precondition itself, which a
        cartesian abstraction of the atoms alone may not be able to refute)."""
        out: dict[str, Predicate] = {key: ((e, True),) for key, (e, _) in self.literals.items()}
        out.update({key: ((e, True),) for key, e in self.aliases.items()})
        if len(self.literals) > 1:
            cube = tuple(self.literals[k] for k in sorted(self.literals))
            out[" && ".join(("" if p else "!") + k for k, (_, p) in zip(sorted(self.literals), cube))] = cube
        return out


def wp_step(program: Program, atoms: Atoms, edge: Edge, call: CallEdge | None, in_core: bool) -> None:
    """Take ``edge`` backwards: the atoms before it (see the module docstring)."""
    if isinstance(edge, AssumeEdge) and in_core:
        atoms.add(edge.cond, edge.positive)
    elif isinstance(edge, AssignEdge) and isinstance(edge.lhs, Var) and not in_memory(edge.lhs.var):
        atoms.assign(edge.lhs.var, edge.rhs)
    elif isinstance(edge, AssignEdge) and edge.lhs.type.is_scalar():
        atoms.store(program, edge.lhs)
    elif isinstance(edge, DeclEdge):
        v = edge.var
        atoms.assign(v, Const(v.type, 0) if v.is_global and v.type.is_scalar() else None)
    elif isinstance(edge, NondetEdge) and isinstance(edge.lhs, Var):
        atoms.assign(edge.lhs.var, None)
    elif isinstance(edge, CallEdge) and call is not None:
        callee = program.functions[callee_name(edge)]  # type: ignore[index]
        atoms.map({param: arg for param, arg in callee.bind(edge.args) if arg is not None})
        atoms.drop(set(callee.params) | set(callee.locals))
    elif isinstance(edge, ReturnEdge) and call is not None and isinstance(call.lhs, Var):
        value = edge.value
        if value is not None and value.type != call.lhs.type:
            value = Cast(call.lhs.type, value)
        atoms.assign(call.lhs.var, value)


class PredicateAnalysis(CEGARAnalysis):
    """Predicate abstraction with CEGAR (starts without predicates)."""

    name = "predicate"

    def cpa(self, program: Program) -> PredicateCPA:
        return PredicateCPA(program)

    def refine(self, program: Program, arg: ReachabilityARG, path: list[ARGState],
               check: PathCheck) -> ARGState | None:
        edges: list[Edge] = [s.edge for s in path[1:]]  # type: ignore[misc]
        calls = calls_of(program, edges)
        precision: PredicatePrecision = arg.precision
        counters = loop_counters(program)
        atoms = Atoms()
        pivot: ARGState | None = None
        for i in range(len(edges) - 1, -1, -1):
            state = path[i + 1]
            if i < len(edges) - 1 and state.data.is_abstraction and atoms.literals:
                precision.explicit |= counters & set().union(*(variables_of(e) for e, _ in atoms.literals.values()))
                precision.add(state.location, atoms.predicates())
                if not precision.at(state.location) <= state.precision:
                    pivot = state
            wp_step(program, atoms, edges[i], calls.get(i), i in check.core)
        return pivot
