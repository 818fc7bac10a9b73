"""Concolic testing (DART, CUTE, CREST) of a program under test.

One iteration: choose inputs, run them natively (``ProgramUnderTest.submit``: the only
way goals get covered), replay the run symbolically on the CFA (``replay.py``), add the
path to the execution tree; then let the search strategy pick an open decision of the
tree, solve its prefix with the decision negated and use the model as the next inputs.

Inputs. The k-th input read is the z3 symbol ``in<k>`` of its nondet type; a model is
written back as C literal text per type (``inputs.py``); inputs the model leaves free
keep the value they had on the path the decision came from. A run that asks for more
inputs than it got exits natively at that read (the harness exits with code 1); the
engine then runs it again with the inputs padded with zeros, doubling, until the run no
longer starves (or reads ``MAX_INPUTS``); the padding is found by native runs alone, the
replay only follows the last one. When the strategy has nothing left to propose the engine restarts from
random inputs (as CREST does), unless the execution tree is complete.

Memory is handled by ``symbolic.py`` (registers and flat byte-addressed objects) with
CUTE-style concretisation of addresses it cannot resolve, see ``replay.py``.

Completeness. An execution tree without open decisions proves every goal it did not
reach infeasible only if each path's symbolic model was exact: no concretisation, no
imprecision (havoc of unknown calls), no divergence, no solver timeout, no misprediction
and no native crash or timeout. Only then is the ARG marked complete.
"""
from __future__ import annotations

import random
from typing import Any

from cooptest.analyses.concolic.execution_tree import (MISPREDICTED, UNKNOWN, UNSAT, ConcolicARG,
                                                       ExecutionTree, Node, Path)
from cooptest.analyses.concolic.inputs import PADDING, literal, small, to_z3
from cooptest.analyses.concolic.replay import TermMemo, replay
from cooptest.analyses.concolic import solver
from cooptest.analyses.concolic.solver import PathSolver, Symbols
from cooptest.analyses.concolic.static import StaticInfo
from cooptest.analyses.concolic.strategies import DEFAULT, STRATEGIES, SearchContext
from cooptest.analyses.interface import AnalysisResult, Budget, ProgramUnderTest
from cooptest.cfa.ctype import CType, FloatType, IntType
from cooptest.errors import UserError
from cooptest.harness.executor import Execution

ORIGIN = "concolic"
FIRST_PADDING = 8  # inputs given to a run that starved on no inputs at all
MAX_INPUTS = 1 << 18  # padding stops here (programs reading inputs in an endless loop)
STARVED = 1  # exit code of the harness when inputs run out


class ConcolicAnalysis:
    """``run`` explores until the budget ends or every requested goal is covered."""

    name = "concolic"

    def __init__(self, search: str = DEFAULT, seed_tests: list[list[str]] | None = None,
                 rng_seed: int = 0, solver_timeout: float = 1.0, slicing: bool = True,
                 cache: bool = True, incremental: bool = False, **search_options: Any) -> None:
        if search not in STRATEGIES:
            raise UserError(f"unknown search strategy {search!r} (known: {', '.join(STRATEGIES)})")
        self.search = search
        self.search_options = search_options
        self.seed_tests = [list(t) for t in seed_tests or []]
        self.rng_seed = rng_seed
        self.solver_options = dict(timeout=solver_timeout, slicing=slicing, cache=cache,
                                   incremental=incremental)

    def new_arg(self, program: ProgramUnderTest) -> ConcolicARG:
        symbols = Symbols()
        ctx = SearchContext(program.program, program.covered, random.Random(self.rng_seed),
                            StaticInfo(program.program))
        return ConcolicARG(self.name, tree=ExecutionTree(),
                           searcher=STRATEGIES[self.search](ctx, **self.search_options),
                           pending=self.seed_tests + [[]], symbols=symbols, memo=TermMemo(),
                           solver=PathSolver(symbols, **self.solver_options))

    def run(self, program: ProgramUnderTest, goals: set[str], budget: Budget,
            arg: ConcolicARG | None = None, condition: Any = None,
            precision: Any = None) -> AnalysisResult:
        if arg is None:
            arg = self.new_arg(program)
        covered_before, tests_before = set(program.covered), len(program.tests)
        arg.searcher.ctx.covered = program.covered
        while not budget.expired() and goals - set(program.covered) - set(program.infeasible):
            negated: Node | None = None
            if arg.pending:
                inputs = arg.pending.pop(0)
            else:
                negated = arg.searcher.select(arg.tree)
                if negated is None:
                    if not arg.tree.frontier and arg.exact:
                        arg.complete = True
                        break
                    if arg.last is not None and not arg.last.symbols:
                        break  # the program reads no input: every run is the same
                    program.count("restarts")
                    inputs = self._random_inputs(arg)
                else:
                    inputs = self._solve(program, arg, negated)
                    if inputs is None:
                        continue
            path = self._execute(program, arg, inputs, budget)
            nodes = arg.tree.insert(path)
            if negated is not None and negated.closed is None:
                arg.tree.close(negated, MISPREDICTED)
                arg.exact = False
                program.count("mispredictions")
            arg.searcher.update(arg.tree, path, nodes, negated)
        new = set(program.covered) - covered_before
        proof = "concolic: execution tree exhausted with an exact symbolic model"
        infeasible = {g: proof for g in sorted(goals - set(program.covered))
                      if arg.complete and program.prove_infeasible(g, proof)}
        return AnalysisResult(program.tests[tests_before:], new, infeasible, arg)

    def _solve(self, program: ProgramUnderTest, arg: ConcolicARG, node: Node) -> list[str] | None:
        """Inputs for the path to ``node.parent`` followed by the other side of ``node``."""
        path = node.path
        assert path is not None
        result = arg.solver.solve(*path.query(node.index), arg.small)
        program.count("solver_calls")
        if result.status != solver.SAT:
            arg.tree.close(node, UNSAT if result.status == solver.UNSAT else UNKNOWN)
            program.count(f"solver_{result.status}")
            if result.status != solver.UNSAT:
                arg.exact = False
            return None
        inputs = list(path.inputs)
        for k, read in enumerate(path.symbols):
            value = result.model.get(read.symbol.get_id())
            if value is not None:
                inputs[k] = literal(value, read.type)
        return inputs

    def _execute(self, program: ProgramUnderTest, arg: ConcolicARG, inputs: list[str],
                 budget: Budget) -> Path:
        """Run ``inputs`` natively, padded until the run no longer starves, and replay
        the run symbolically."""
        ctx = arg.searcher.ctx
        while True:
            execution = self._run_padded(program, inputs, budget)
            inputs = execution.inputs
            path = replay(program.program, execution, arg.symbols, arg.memo, ctx.covered_edges,
                          deadline=budget.deadline)
            path.new_goals = execution.new
            if path.starved and not path.cut and not budget.expired() and len(inputs) < MAX_INPUTS:
                inputs = _padded(inputs)
                continue
            return self._account(program, arg, path)

    @staticmethod
    def _run_padded(program: ProgramUnderTest, inputs: list[str], budget: Budget) -> Execution:
        """Native runs only: while a run may have ended for lack of input (the harness
        exits with code 1) and more input makes it go further, double the inputs. The
        native run covers goals however long the path, while the replay of a path
        through a loop reading 10^5 inputs would be cut."""
        execution = program.submit(inputs, ORIGIN)
        program.count("iterations")
        while execution.exit_code == STARVED and not execution.error_reached \
                and len(inputs) < MAX_INPUTS and not budget.expired():
            longer = program.submit(_padded(inputs), ORIGIN)
            program.count("iterations")
            if longer.events == execution.events:
                break  # the program exited with 1 by itself
            inputs, execution = longer.inputs, longer
        return execution

    def _account(self, program: ProgramUnderTest, arg: ConcolicARG, path: Path) -> Path:
        for read in path.symbols:
            key = read.symbol.get_id()
            if key not in arg.small:
                arg.small[key] = small(read.symbol, read.type)
        if path.divergences:
            program.count("divergences", path.divergences)
            program.count("diverged_runs")
        if path.concretized:
            program.count("concretizations", path.concretized)
        if path.divergences or path.concretized or path.imprecise or path.crashed or path.starved \
                or path.cut:
            arg.exact = False
        program.notify("iteration", iterations=program.stats.get("iterations", 0),
                       covered=len(program.covered), divergences=program.stats.get("divergences", 0))
        arg.last = path
        return path

    def _random_inputs(self, arg: ConcolicARG) -> list[str]:
        """Random values of the types the last path read (a CREST-style restart)."""
        rng = arg.searcher.ctx.rng
        last = arg.last
        if last is None or not last.symbols:
            return [str(rng.randint(-100, 100)) for _ in range(FIRST_PADDING)]
        return [literal(to_z3(_random_value(rng, r.type), r.type), r.type) for r in last.symbols]


def _padded(inputs: list[str]) -> list[str]:
    return inputs + [PADDING] * (len(inputs) or FIRST_PADDING)


def _random_value(rng: random.Random, t: CType) -> int | float:
    if isinstance(t, FloatType):
        return rng.uniform(-1000.0, 1000.0)
    if isinstance(t, IntType):
        if t.is_bool:
            return rng.randint(0, 1)
        return rng.randint(max(t.min, -128), min(t.max, 255)) if rng.random() < 0.5 \
            else rng.randint(t.min, t.max)
    return 0
