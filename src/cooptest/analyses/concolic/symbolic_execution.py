"""Symbolic execution of a native run on the CFA: the "symbolic" half of concolic testing.

The native run (instrumented build) reports its branch decisions; its symbolic execution
walks the CFA from the entry of ``main`` with a :class:`SymbolicState` and, at every
branch point, takes the edge the native run took. C leaves the evaluation order of call
arguments open, so native events are matched to CFA branch points per branch id in FIFO
order rather than by global position.

Memory is ``symbolic.py``'s: scalars in registers, aggregates and address-taken
variables in flat byte-addressed objects at distinct concrete bases; an address whose
object cannot be found from its constant part is *concretised* (CUTE/CREST): evaluated
under the run's concrete inputs, with ``address == value`` added to the path condition.
Expressions without input symbols are folded to constants as they are built (concrete
values, as in CREST), which keeps terms small and makes concrete branches cheap; pure
operations are memoised across symbolic executions (:class:`TermMemo`), which is what
makes symbolic execution fast enough (z3's Python API costs tens of microseconds per
term).

Every branch condition is also evaluated concretely, under the concrete inputs (other
unknowns, e.g. results of unmodelled library calls, read as 0). Where that disagrees
with the native outcome the symbolic model has *diverged* from the program; symbolic
execution counts it and follows the native run. A condition over values z3 leaves
unspecified (a NaN's bits) has no concrete value, and disagrees with nothing.

*Observers* follow symbolic execution from outside: each is called with every CFA edge
it follows, in order, and the symbolic state after it (``searchers.Guided`` steps its
automaton on them).
"""
from __future__ import annotations

import copy
import signal
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import z3

from cooptest.analyses.concolic.execution_tree import Decision, Path
from cooptest.analyses.concolic.inputs import parse_literal, to_z3
from cooptest.analyses.concolic.run_values import RunValues, Shapes
from cooptest.analyses.concolic.solver import Symbols
from cooptest.analyses.semantics import edge_overflows
from cooptest.analyses.symbolic import Frozen, Pinning, SymbolicState
from cooptest.cfa.ctype import FloatType, IntType, PointerType
from cooptest.cfa.ir import (AssumeEdge, Binary, Cast, Const, Edge, ErrorEdge, Expr, Index, Location,
                             Member, NondetEdge, Program, TerminateEdge, Unary)
from cooptest.core.budget import Budget
from cooptest.harness.executor import Execution

_PURE = (Binary, Unary, Cast, Const)
MEMO_LIMIT = 1_000_000
ADDRESS, CONDITION = -1, -2  # key tags: the address of an lvalue, the condition of an edge

Observer = Callable[[Edge, SymbolicState], None]
"""Called with each CFA edge a symbolic execution follows and the symbolic state after it."""


class TermMemo:
    """Results of pure operations by (IR expression, operand terms), shared by all
    symbolic executions of a run: z3 hash-conses terms, so the operands of the same
    expression are the same terms on every path that computes the same values (inputs
    are ``in<k>`` on every path), and building a term through z3's Python API costs far
    more than a lookup. Holding the terms keeps their ids from being reused: the results
    and the operands a key names, which a simplified result (a number) no longer holds;
    a freed operand's address named another term later (grep's obstack_finish aligns
    ``next_free`` through its integer value, and each object got the first one's)."""

    def __init__(self) -> None:
        self.table: dict[tuple[int, ...], z3.ExprRef] = {}
        self.held: list[Sequence[z3.ExprRef]] = []  # the operands of the keys in ``table``
        self.truth: dict[int, bool] = {}  # input-free conditions by term (``_ref``)
        self.pointers: dict[int, z3.ExprRef] = {}  # pointer constants by value
        self.shapes = Shapes(z3.main_ctx())  # of the nodes the runs' values were read of (``RunValues``)
        self.hits = self.misses = 0

    def clear(self) -> None:
        """Forget all (``truth`` is keyed by the ids of conditions ``table`` holds)."""
        self.table.clear()
        self.held.clear()
        self.truth.clear()


def _ref(term: z3.ExprRef) -> int:
    """A memo key of a term: the address of its z3 AST. Unique among live terms, like
    ``get_id()``, but read without a call into z3; the memo holds the terms it keys by."""
    return term.ast.value


def _memoizable(e: Expr) -> bool:
    """Operations whose evaluation has no side effect on the state: not divisions (they
    add a divisor guard to the path condition), not long double arithmetic or casts of
    aggregates (they mark the state imprecise), not comparisons or differences of two
    pointers and casts of pointers to integers (where they see the native layout, they
    constrain a fresh address symbol), not the truth of a pointer (an allocation may
    have failed: ``SymbolicState._null`` marks the state imprecise)."""
    if isinstance(e, Binary):
        return e.op not in ("/", "%") and not (isinstance(e.left.type, FloatType) and e.left.type.bits > 64) \
            and not (isinstance(e.left.type, PointerType) and isinstance(e.right.type, PointerType))
    if isinstance(e, Cast):
        return e.operand.type.is_scalar() and not (isinstance(e.operand.type, PointerType)
                                                   and isinstance(e.type, IntType))
    if isinstance(e, Unary):
        return not (e.op == "!" and isinstance(e.operand.type, PointerType))
    return isinstance(e, Const)


class ConcolicState(SymbolicState):
    """A symbolic state that folds input-free operations to constants as it goes (the
    concrete values of CREST) and memoises pure operations, address arithmetic, branch
    conditions and pointer constants in a :class:`TermMemo`.

    A memoised operation evaluates its operands first; on a miss, the operand terms are
    left in ``_known`` for the nested call of the base class, which then finds them
    instead of evaluating the operands again (the state does not change within one
    evaluation)."""

    symbols: Symbols
    memo: TermMemo
    model: z3.ModelRef

    def start(self, symbols: Symbols, memo: TermMemo, model: z3.ModelRef) -> None:
        """``model``: the concrete values of the run, extended as unknowns appear."""
        self.symbols, self.memo = symbols, memo
        self.rebind(model)
        self.facts: list[tuple[z3.FuncDeclRef, z3.ExprRef]] = []  # values the model got besides inputs
        self._known: dict[int, z3.ExprRef] = {}  # values of sub-expressions, by id
        self._known_addr: dict[int, z3.ExprRef] = {}  # addresses of sub-lvalues, by id
        self._depth = 0
        self._unknowns = 0
        self.concretizations: list[tuple[z3.ExprRef, int]] = []  # terms concretised, and their values

    def rebind(self, model: z3.ModelRef) -> None:
        """Read concrete values (concretisation, divergence checks) from ``model``."""
        self.model = model
        if len(self.memo.shapes) >= MEMO_LIMIT:  # between paths: no evaluation is under way
            self.memo.shapes.clear()
        self.run = RunValues(model, self.memo.shapes)

        def concretize(term: z3.ExprRef) -> int:
            value = self.value_of(term)
            self.concretizations.append((term, value))
            return value
        self.concretize = concretize

    def value_of(self, term: z3.ExprRef) -> int:
        """The bit-vector term's value in the run (``RunValues``: once per node; the
        string models ask for the bytes of a string at every position a loop starts a
        comparison from, grep's istrstr)."""
        value = self.run.value(term)
        assert isinstance(value, int)
        return value

    def holds(self, condition: z3.BoolRef) -> bool:
        """Whether the condition is true in the run."""
        return self.run.value(condition) is True

    def record_value(self, constant: z3.FuncDeclRef | z3.ExprRef, value: z3.ExprRef) -> None:
        """Give a constant of the model its value in the run (an input it read, an
        object's native address)."""
        self.run.assign(constant, value)

    APPEND_ONLY = SymbolicState.APPEND_ONLY + ("facts", "concretizations")

    def _share(self) -> ConcolicState:
        s = super()._share()
        assert isinstance(s, ConcolicState)
        s._known, s._known_addr = {}, {}
        return s

    def native_base(self, base: int, size: int, name: str) -> z3.ExprRef:
        """Concretely, the model's own address (a valid user-space one): a null check
        of a cast address then goes the way the native run went."""
        symbol = super().native_base(base, size, name)
        self.facts.append((symbol.decl(), self.ptr(base)))
        self.record_value(symbol.decl(), self.ptr(base))
        return symbol

    def ends_run(self, byte: z3.ExprRef) -> bool:
        """Whether ``byte`` is 0 in the run: a string model reads ``strings.BEYOND_RUN``
        bytes past it only."""
        return self.value_of(byte) == 0

    def fresh_name(self, prefix: str) -> str:
        """Numbered in the order of this symbolic execution, so that the symbolic
        executions of paths sharing a prefix build the same terms there and hit the
        memo. A name may mean another unknown on another path; that is harmless, as each
        path condition is solved on its own."""
        self._unknowns += 1
        return f"{prefix}#{self._unknowns}"

    def _leave(self) -> None:
        self._depth -= 1
        if not self._depth:
            self._known.clear()
            self._known_addr.clear()

    def _lookup(self, key: tuple[int, ...], operands: Sequence[z3.ExprRef],
                compute: Callable[[], z3.ExprRef]) -> z3.ExprRef:
        """The memo's result for ``key``, which names ``operands`` by ``_ref``."""
        memo = self.memo
        term = memo.table.get(key)
        if term is None:
            memo.misses += 1
            term = compute()
            if not z3.is_const(term) and not self.symbols.of(term):
                term = z3.simplify(term)
            if len(memo.table) >= MEMO_LIMIT:
                memo.clear()
            memo.table[key] = term
            memo.held.append(operands)
        else:
            memo.hits += 1
        return term

    def eval(self, e: Expr) -> z3.ExprRef:
        if self._depth:
            known = self._known.get(id(e))
            if known is not None:
                return known
        if not isinstance(e, _PURE) or not _memoizable(e):
            return super().eval(e)
        self._depth += 1
        try:
            kids = [self.eval(c) for c in e.children()]
            for c, k in zip(e.children(), kids):
                self._known[id(c)] = k
            return self._lookup((id(e), *map(_ref, kids)), kids, lambda: super(ConcolicState, self).eval(e))
        finally:
            self._leave()

    def address(self, e: Expr) -> z3.ExprRef:
        if self._depth:
            known = self._known_addr.get(id(e))
            if known is not None:
                return known
        if not isinstance(e, (Member, Index)):
            return super().address(e)
        self._depth += 1
        try:
            base = self._known_addr[id(e.base)] = self.address(e.base)
            key: tuple[int, ...] = (id(e), ADDRESS, _ref(base))
            operands = [base]
            if isinstance(e, Index):
                index = self._known[id(e.index)] = self.eval(e.index)
                key += (_ref(index),)
                operands.append(index)
            return self._lookup(key, operands, lambda: super(ConcolicState, self).address(e))
        finally:
            self._leave()

    def condition(self, edge: AssumeEdge) -> z3.BoolRef:
        if isinstance(edge.cond.type, PointerType):  # see _memoizable
            return super().condition(edge)
        self._depth += 1
        try:
            term = self._known[id(edge.cond)] = self.eval(edge.cond)
            return self._lookup((id(edge), CONDITION, _ref(term)), (term,),
                                lambda: super(ConcolicState, self).condition(edge))
        finally:
            self._leave()

    def ptr(self, value: int) -> z3.ExprRef:
        term = self.memo.pointers.get(value)
        if term is None:
            term = self.memo.pointers[value] = super().ptr(value)
        return term


@dataclass(eq=False)
class Snapshot:
    """The symbolic execution of ``path`` just after its decision ``index``: the
    symbolic state, the location and step count reached, and how much of the trace was
    consumed. A run sharing that much of the path resumes its symbolic execution here
    (:func:`resume`).

    The state depends on the CFA path and on the values of the terms symbolic execution
    concretised (unknowns read as 0 concretely under any inputs): it is the state of
    every run that takes the same path with the same concretised values (:func:`resume`
    checks both). Divergences up to the snapshot are then the same too, except on
    decisions, which such a run satisfies."""

    path: Path
    index: int
    state: Frozen  # a ConcolicState
    loc: Location
    steps: int
    divergences: int
    model: z3.ModelRef  # the values symbolic execution had read (a copy: it goes on)
    input_ids: frozenset[int]  # the ids of the symbols of those inputs
    _premise: z3.BoolRef | None = field(default=None, init=False, repr=False)

    @property
    def consumed(self) -> int:
        """Trace entries (branch decisions) up to and including decision ``index``."""
        return self.path.decisions[self.index].position + 1

    def premise(self, state: ConcolicState) -> z3.BoolRef:
        """What a run resuming here satisfies: the decisions so far, and the values of
        the terms concretised (``state`` is this snapshot's, thawed)."""
        if self._premise is None:
            self._premise = z3.And([d.cond for d in self.path.decisions[:self.index + 1]]
                                   + [t == z3.BitVecVal(v, t.size()) for t, v in state.concretizations])
        return self._premise

    def model_for(self, state: ConcolicState, inputs: Sequence[str]) -> tuple[z3.ModelRef, set[int]]:
        """The model of a run with ``inputs`` resuming here, and the ids of its inputs'
        symbols: this snapshot's, copied and changed where the run's inputs differ (a
        child's, in the few the solver chose). Built afresh, it costs a z3 value per
        input read: 30 ms an iteration on array_4's 1,023."""
        model, ids, own = copy.copy(self.model), set(self.input_ids), self.path.inputs
        for k, read in enumerate(state.inputs):
            if k < len(own) and own[k] == inputs[k]:
                continue
            value = parse_literal(inputs[k], read.type)
            if value is None:  # no value where the copy has one: a model cannot forget one
                return _model(state, inputs)
            model.update_value(read.symbol, to_z3(value, read.type))
            ids.add(read.symbol.get_id())
        return model, ids


def _model(state: ConcolicState, inputs: Sequence[str]) -> tuple[z3.ModelRef, set[int]]:
    """A model of the values ``state`` was executed symbolically with: its facts, and
    ``inputs`` for the inputs it read (an unparsable one has none); the ids of those
    inputs."""
    model = z3.Model()
    for decl, value in state.facts:
        model.update_value(decl, value)
    ids: set[int] = set()
    for read, text in zip(state.inputs, inputs):
        value = parse_literal(text, read.type)
        if value is not None:
            model.update_value(read.symbol, to_z3(value, read.type))
            ids.add(read.symbol.get_id())
    return model, ids


@dataclass
class Start:
    """Where a symbolic execution begins: at the entry of ``main``, or resumed from a snapshot."""

    state: ConcolicState
    model: z3.ModelRef
    path: Path
    queues: dict[int, deque[bool]]
    input_ids: set[int]
    loc: Location
    steps: int = 0


def _queues(execution: Execution) -> dict[int, deque[bool]]:
    """The native run's decisions per branch point, in order (see the module docstring)."""
    queues: dict[int, deque[bool]] = defaultdict(deque)
    for branch, outcome in execution.decisions():
        queues[branch].append(outcome)
    return queues


def begin(program: Program, execution: Execution, symbols: Symbols, memo: TermMemo,
          pinning: Pinning = Pinning()) -> Start:
    model = z3.Model()
    state = ConcolicState(program)
    state.pinning = pinning
    state.start(symbols, memo, model)
    path = Path(list(execution.inputs), state.inputs, state.path_condition, [], [])
    return Start(state, model, path, _queues(execution), set(), program.main.entry)


def resume(snapshot: Snapshot, execution: Execution) -> Start | None:
    """Where the symbolic execution of ``execution`` can start when the run shares the
    path of ``snapshot`` up to its decision: the snapshot's state with the run's own
    inputs. None when the run went another way, or when under its inputs a decision of
    the prefix does not hold (a divergence, which only a symbolic execution from the
    start counts) or a concretised term has another value (symbolic execution would have
    made another state)."""
    old = snapshot.path
    queues = _queues(execution)
    for branch, outcome in old.trace[:snapshot.consumed]:
        queue = queues.get(branch)
        if not queue or queue.popleft() != outcome:
            return None
    inputs = execution.inputs
    state = snapshot.state.thaw()
    assert isinstance(state, ConcolicState)
    if len(inputs) < len(state.inputs):
        return None
    model, input_ids = snapshot.model_for(state, inputs)
    state.rebind(model)
    if not state.holds(snapshot.premise(state)):
        return None
    decisions = old.decisions[:snapshot.index + 1]
    path = Path(list(inputs), state.inputs, state.path_condition, decisions, old.trace[:snapshot.consumed])
    path.divergences = snapshot.divergences
    return Start(state, model, path, queues, input_ids, snapshot.loc, snapshot.steps)


def execute_symbolically(program: Program, execution: Execution, symbols: Symbols, memo: TermMemo,
                         visited: set[Edge], max_steps: int = 20_000, budget: Budget | None = None,
                         observers: Sequence[Observer] = (), start: Start | None = None,
                         keep: Callable[[Decision], bool] | None = None,
                         sites: Mapping[Edge, str] = {}, pinning: Pinning = Pinning()) -> Path:
    """The path of ``execution`` through the CFA, with its path condition; adds the
    edges it traverses to ``visited`` and shows them to ``observers``. A symbolic
    execution longer than ``max_steps`` edges, or still running when ``budget`` expires
    or is cancelled, is truncated there (``Path.truncated``).

    ``start``: where to begin (:func:`resume`; default: the entry of ``main``). After
    each decision that ``keep`` asks for, the state is kept in ``Path.snapshots``.
    ``sites``: the overflow sites (edge -> ``site_key``); at each one the path passes,
    whether its condition so far allows a signed operation of the edge to overflow
    (``Path.overflowing``: :func:`_overflow_allowed`). ``pinning``: what a run begun
    here reads as its value in the run, as CREST does (``symbolic.Pinning``); a resumed
    one pins as its snapshot did."""
    inputs = execution.inputs
    start = start or begin(program, execution, symbols, memo, pinning)
    state, model, path, queues, input_ids = start.state, start.model, start.path, start.queues, start.input_ids
    path.crashed = execution.crashed or execution.timed_out or execution.truncated
    last: Edge | None = None  # the last edge without a branch decision stepped
    assumed_false = False  # the path ends in a __VERIFIER_assume whose condition is false
    pc = state.path_condition
    loc = start.loc
    for step in range(start.steps, max_steps + 1):
        if step & 1023 == 1023 and budget is not None and budget.expired() or step == max_steps:
            path.truncated = True
            break
        leaving = loc.leaving
        if not leaving:
            break
        first = leaving[0]
        if isinstance(first, AssumeEdge) and first.branch is not None:
            branch = first.branch  # the branch point's, on both of its edges
            queue = queues.get(branch)
            if not queue:
                break  # the native run ended before this decision
            outcome = queue.popleft()
            edge = next(e for e in leaving if isinstance(e, AssumeEdge) and e.positive == outcome)
            if edge in sites:
                _check_site(state, path, sites[edge], edge)
            before = len(pc)
            cond = state.condition(edge)
            pc.append(cond)
            syms = symbols.of(cond)
            if syms:
                concrete = state.holds(cond)
            else:
                known = memo.truth.get(_ref(cond))
                if known is None:
                    known = memo.truth[_ref(cond)] = not z3.is_false(z3.simplify(cond))
                concrete = known
            if not concrete:
                path.divergences += 1
            decision = None
            if syms & input_ids:
                decision = Decision(branch, outcome, cond, before, len(pc), edge, len(path.trace))
                path.decisions.append(decision)
            path.trace.append((branch, outcome))
            visited.add(edge)
            for observe in observers:
                observe(edge, state)
            loc = edge.dst
            if decision is not None and keep is not None and keep(decision):
                path.snapshots.append(Snapshot(path, len(path.decisions) - 1, state.frozen(), loc, step + 1,
                                               path.divergences, copy.copy(model), frozenset(input_ids)))
            continue
        visited.add(first)
        last = first
        if first in sites:
            _check_site(state, path, sites[first], first)
        if isinstance(first, NondetEdge):
            k = len(state.inputs)
            if k >= len(inputs):
                path.starved = True
                break
            after = state.step(first)
            read = state.inputs[-1]
            value = parse_literal(inputs[k], read.type)
            if value is not None:
                state.record_value(read.symbol, to_z3(value, read.type))
                input_ids.add(read.symbol.get_id())
        elif isinstance(first, AssumeEdge):  # __VERIFIER_assume: the native run aborts when false
            after = state.step(first)
            if not state.holds(pc[-1]):
                assumed_false = True
                break
        else:
            after = state.step(first)
        for observe in observers:
            observe(first, state)
        if after is None:
            break
        loc = after
    path.concretized = state.concretized
    path.imprecise = state.imprecise
    aborted = assumed_false or isinstance(last, ErrorEdge) or \
        isinstance(last, TerminateEdge) and last.kind == "abort"
    if aborted and execution.signal == signal.SIGABRT and not execution.timed_out and not execution.truncated:
        path.crashed = False  # the SIGABRT is the abort() the path ends in: no crash
    return path


SITE_CHECKS = 64
"""The checks of overflow sites a symbolic execution makes at most; past them every site
counts as one where an overflow is allowed (a loop through a site asks the solver each
round)."""
SITE_MS = 500


def _check_site(state: ConcolicState, path: Path, site: str, edge: Edge) -> None:
    if site in path.overflowing:
        return
    path.site_checks += 1
    if path.site_checks > SITE_CHECKS or _overflow_allowed(state, edge):
        path.overflowing.add(site)


def _overflow_allowed(state: ConcolicState, edge: Edge) -> bool:
    """Whether some input that takes the path so far makes a signed operation of
    ``edge`` leave its type (``semantics.overflows``), judged before the edge is taken;
    True also where that is not decided (z3's unknown, a shift). Its operands are
    evaluated on a copy of the state: concretising an address there must not change
    the path's condition. Every run of the CFA takes some path of an exhausted tree,
    so a site no path allows an overflow at is one no run overflows at."""
    probe = state.copy()
    conditions = edge_overflows(edge, probe.eval)
    if conditions is None or probe.concretized > state.concretized or probe.imprecise:
        return True  # a concretised address narrows the condition to this run's inputs
    allowed = z3.simplify(z3.Or(*conditions)) if conditions else z3.BoolVal(False)
    if z3.is_false(allowed) or z3.is_true(allowed):  # operands the run computed concretely
        return z3.is_true(allowed)
    solver = z3.SolverFor("QF_BV")
    solver.set("timeout", SITE_MS)
    solver.add(*probe.path_condition, allowed)
    return solver.check() != z3.unsat
