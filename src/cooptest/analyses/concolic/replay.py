"""Symbolic replay of a native run on the CFA: the "symbolic" half of concolic testing.

The native run (instrumented build) reports its branch decisions; the replay walks the
CFA from the entry of ``main`` with a :class:`SymbolicState` and, at every branch point,
takes the edge the native run took. C leaves the evaluation order of call arguments
open, so native events are matched to CFA branch points per branch id in FIFO order
rather than by global position.

Memory is ``symbolic.py``'s: scalars in registers, aggregates and address-taken
variables in flat byte-addressed objects at distinct concrete bases; an address whose
object cannot be found from its constant part is *concretised* (CUTE/CREST): evaluated
under the run's concrete inputs, with ``address == value`` added to the path condition.
Expressions without input symbols are folded to constants as they are built (concrete
values, as in CREST), which keeps terms small and makes concrete branches cheap.

Every branch condition is also evaluated concretely, under the concrete inputs (other
unknowns, e.g. results of unmodelled library calls, read as 0). Where that disagrees
with the native outcome the symbolic model has *diverged* from the program; the replay
counts it and follows the native run.
"""
from __future__ import annotations

from collections import defaultdict, deque

import z3

from cooptest.analyses.concolic.execution_tree import Decision, Path
from cooptest.analyses.concolic.inputs import parse_literal, to_z3
from cooptest.analyses.concolic.solver import Symbols
from cooptest.analyses.symbolic import SymbolicState
from cooptest.cfa.ir import AssumeEdge, Binary, Cast, Edge, Expr, NondetEdge, Program, Unary
from cooptest.harness.executor import Execution

_FOLDED = (Binary, Unary, Cast)


class ConcolicState(SymbolicState):
    """A symbolic state that folds input-free operations to constants as it goes."""

    symbols: Symbols

    def eval(self, e: Expr) -> z3.ExprRef:
        term = super().eval(e)
        if isinstance(e, _FOLDED) and not self.symbols.of(term) and not z3.is_const(term):
            term = z3.simplify(term)
        return term


def replay(program: Program, execution: Execution, symbols: Symbols, visited: set[Edge],
           max_steps: int = 200_000) -> Path:
    """The path of ``execution`` through the CFA, with its path condition; adds the
    edges it traverses to ``visited``."""
    inputs = execution.inputs
    model = z3.Model()
    state = ConcolicState(program, lambda t: model.eval(t, model_completion=True).as_long())
    state.symbols = symbols
    input_ids: set[int] = set()
    queues: dict[int, deque[bool]] = defaultdict(deque)
    for branch, outcome in execution.decisions():
        queues[branch].append(outcome)
    path = Path(list(inputs), state.inputs, state.path_condition, [], [])
    path.crashed = execution.crashed or execution.timed_out or execution.truncated
    pc = state.path_condition
    loc = program.main.entry
    for _ in range(max_steps):
        leaving = loc.leaving
        if not leaving:
            break
        first = leaving[0]
        if isinstance(first, AssumeEdge) and first.branch is not None:
            queue = queues.get(first.branch)
            if not queue:
                break  # the native run ended before this decision
            outcome = queue.popleft()
            edge = next(e for e in leaving if e.positive == outcome)
            before = len(pc)
            cond = state.condition(edge)
            pc.append(cond)
            syms = symbols.of(cond)
            concrete = z3.is_true(model.eval(cond, model_completion=True) if syms else z3.simplify(cond))
            if not concrete:
                path.divergences += 1
            if syms & input_ids:
                path.decisions.append(Decision(edge.branch, outcome, cond, before, len(pc)))
            path.trace.append((edge.branch, outcome))
            visited.add(edge)
            loc = edge.dst
            continue
        visited.add(first)
        if isinstance(first, NondetEdge):
            k = len(state.inputs)
            if k >= len(inputs):
                path.starved = True
                break
            loc = state.step(first)
            read = state.inputs[-1]
            value = parse_literal(inputs[k], read.type)
            if value is not None:
                model.update_value(read.symbol, to_z3(value, read.type))
                input_ids.add(read.symbol.get_id())
            continue
        if isinstance(first, AssumeEdge):  # __VERIFIER_assume: the native run aborts when false
            loc = state.step(first)
            if not z3.is_true(model.eval(pc[-1], model_completion=True)):
                break
            continue
        loc = state.step(first)
        if loc is None:
            break
    path.concretized = state.concretized
    path.imprecise = state.imprecise
    return path
