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
from typing import Any

import z3

from cooptest.analyses import semantics as sem
from cooptest.analyses.reachability.arg import ARGState, CallStack, ReachabilityARG
from cooptest.analyses.reachability.cegar import CEGARAnalysis
from cooptest.analyses.reachability.cpa import Successor, callee_name
from cooptest.analyses.reachability.refinement import PathCheck, calls_of
from cooptest.analyses.symbolic import Frame, SymbolicState, in_memory
from cooptest.cfa.fold import fold
from cooptest.cfa.ir import (AssignEdge, AssumeEdge, CallEdge, Cast, Const, DeclEdge, Edge, Expr,
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


@dataclass
class PredicatePrecision:
    """Predicates per location, keyed by their text (IR expressions compare by identity)."""

    predicates: dict[Location, dict[str, Expr]] = field(default_factory=dict)
    keys: dict[Location, frozenset[str]] = field(default_factory=dict)

    def at(self, location: Location) -> frozenset[str]:
        return self.keys.get(location, frozenset())

    def add(self, location: Location, atoms: dict[str, Expr]) -> None:
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


def _truth(state: SymbolicState, e: Expr) -> z3.BoolRef:
    return sem.truth(state.eval(e), e.type)


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
        solver = z3.Solver()
        solver.set("timeout", ABSTRACTION_TIMEOUT_MS)
        solver.add(*data.block.path_condition)
        if solver.check() == z3.unsat:
            return None
        probe = data.block.copy()
        literals: set[tuple[str, bool]] = set()
        for key, pred in precision.predicates.get(location, {}).items():
            term = _truth(probe, pred)
            for value, negated in ((True, z3.Not(term)), (False, term)):
                solver.push()
                solver.add(negated)
                entailed = solver.check() == z3.unsat
                solver.pop()
                if entailed:
                    literals.add((key, value))
                    break
        block = FrameState.havoc_at(self.program, list(call_stack))
        preds = precision.predicates.get(location, {})
        for key, value in literals:
            term = _truth(block, preds[key])
            block.path_condition.append(term if value else z3.Not(term))
        return PredicateState(frozenset(literals), block, True)

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
    return fold(replace(e, **dict(zip(names, new))))  # type: ignore[arg-type]


class Atoms:
    """The WP atoms of the path suffix processed so far, keyed by their text."""

    def __init__(self) -> None:
        self.atoms: dict[str, Expr] = {}

    def add(self, e: Expr) -> None:
        if not isinstance(fold(e), Const):
            self.atoms[repr(e)] = e

    def assign(self, v: Variable, value: Expr | None) -> None:
        if in_memory(v):
            return
        old, self.atoms = self.atoms, {}
        for e in old.values():
            if v not in variables_of(e):
                self.add(e)
            elif value is not None:
                self.add(substitute(e, {v: value}))

    def drop(self, variables: set[Variable]) -> None:
        self.atoms = {k: e for k, e in self.atoms.items() if not variables_of(e) & variables}


def wp_step(program: Program, atoms: Atoms, edge: Edge, call: CallEdge | None, in_core: bool) -> None:
    """Take ``edge`` backwards: the atoms before it (see the module docstring)."""
    if isinstance(edge, AssumeEdge) and in_core:
        atoms.add(edge.cond)
    elif isinstance(edge, AssignEdge) and isinstance(edge.lhs, Var):
        atoms.assign(edge.lhs.var, edge.rhs)
    elif isinstance(edge, DeclEdge):
        v = edge.var
        atoms.assign(v, Const(v.type, 0) if v.is_global and v.type.is_scalar() else None)
    elif isinstance(edge, NondetEdge) and isinstance(edge.lhs, Var):
        atoms.assign(edge.lhs.var, None)
    elif isinstance(edge, CallEdge) and call is not None:
        callee = program.functions[callee_name(edge)]  # type: ignore[index]
        bound = dict(zip(callee.params, edge.args))
        for e in list(atoms.atoms.values()):
            atoms.atoms.pop(repr(e))
            atoms.add(substitute(e, bound))
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
        atoms = Atoms()
        pivot: ARGState | None = None
        for i in range(len(edges) - 1, -1, -1):
            state = path[i + 1]
            if i < len(edges) - 1 and state.data.is_abstraction and atoms.atoms:
                precision.add(state.location, atoms.atoms)
                if not precision.at(state.location) <= state.precision:
                    pivot = state
            wp_step(program, atoms, edges[i], calls.get(i), i in check.core)
        return pivot
