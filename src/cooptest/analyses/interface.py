"""The interface every analysis shares and every cooperation composes (CoVeriTest):

    run(program, goals, budget, arg=None, condition=None, precision=None)
        -> AnalysisResult(tests, covered, infeasible, arg)

``program`` is a :class:`ProgramUnderTest`: the CFA together with its native build, so
that an analysis can only claim a goal covered through :meth:`ProgramUnderTest.submit`,
which replays the test natively and records what the replay passed through. Passing the
returned ``arg`` back continues the exploration; a ``precision`` restarts with it; a
``condition`` describes state space already explored (accepted now, used by the
cooperation wave).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from cooptest.cfa.ir import Goal, Program
from cooptest.harness.executor import Execution, Executor
from cooptest.harness.testsuite import SuiteWriter, TestCase


@dataclass
class Budget:
    """A wall-clock deadline (``time.monotonic``); analyses poll ``expired()``."""

    deadline: float

    @staticmethod
    def seconds(s: float) -> Budget:
        return Budget(time.monotonic() + s)

    def remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def expired(self) -> bool:
        return time.monotonic() >= self.deadline

    def part(self, seconds: float) -> Budget:
        """A sub-budget of at most ``seconds`` that never outlives this one."""
        return Budget(min(self.deadline, time.monotonic() + seconds))


@dataclass
class ARG:
    """An abstract reachability graph, resumable: what an analysis explored so far.

    Subclasses hold their abstract states; the common part is what a cooperation needs
    to know: which analysis made it, whether it is complete (no frontier left: every
    goal not reached is then infeasible) and the precision it was built with."""

    analysis: str
    precision: Any = None
    complete: bool = False

    def frontier_size(self) -> int:
        return 0


@dataclass
class AnalysisResult:
    tests: list[TestCase] = field(default_factory=list)
    covered: set[str] = field(default_factory=set)  # goal ids newly covered by this run
    infeasible: dict[str, str] = field(default_factory=dict)  # goal id -> proof
    arg: ARG | None = None


class Analysis(Protocol):
    name: str

    def run(self, program: ProgramUnderTest, goals: set[str], budget: Budget,
            arg: ARG | None = None, condition: Any = None,
            precision: Any = None) -> AnalysisResult: ...


Listener = Callable[["ProgramUnderTest", str, dict[str, Any]], None]


class ProgramUnderTest:
    """The CFA, its goals, the native executor and the suite being written.

    The single place where goals change status: ``submit`` (a native replay covered it)
    and ``prove_infeasible`` (an analysis proved it). Listeners (the progress display)
    hear of every change."""

    def __init__(self, program: Program, executor: Executor, suite: SuiteWriter | None = None) -> None:
        self.program = program
        self.executor = executor
        self.suite = suite
        self.goals: dict[str, Goal] = {g.id: g for g in program.goals()}
        self.covered: dict[str, str] = {}  # goal id -> name of the first test covering it
        self.infeasible: dict[str, str] = {}  # goal id -> proof
        self.refused: dict[str, str] = {}  # goal id -> why its proofs are not trusted
        self.tests: list[TestCase] = []
        self.executions = 0
        self.listeners: list[Listener] = []
        self.stats: dict[str, int] = {}

    def open_goals(self) -> set[str]:
        return set(self.goals) - set(self.covered) - set(self.infeasible)

    def count(self, stat: str, n: int = 1) -> None:
        self.stats[stat] = self.stats.get(stat, 0) + n

    def notify(self, event: str, **info: Any) -> None:
        for listener in self.listeners:
            listener(self, event, info)

    def submit(self, inputs: list[str], origin: str, keep: bool = True) -> Execution:
        """Replay ``inputs`` natively; goals its trace passes through are covered.

        The test joins the suite when it covers a goal no earlier test covered (and
        ``keep``); ``Execution.new`` tells which goals those were."""
        ex = self.executor.run(inputs)
        self.executions += 1
        ex.new = ex.covered - set(self.covered)
        if ex.new and keep:
            test = TestCase(list(inputs), covers_error=ex.error_reached)
            name = self.suite.add(test) if self.suite is not None else f"test{len(self.tests)}"
            test.name = name
            self.tests.append(test)
            for g in sorted(ex.new):
                self.covered[g] = name
                if g in self.infeasible:  # never happens for a sound analysis: say so loudly
                    raise AssertionError(f"goal {g} proven infeasible by {self.infeasible[g]} "
                                         f"but covered by test {name}")
            self.notify("covered", goals=ex.new, origin=origin, test=name)
        return ex

    def prove_infeasible(self, goal: str, proof: str) -> bool:
        """Accept ``proof`` unless the program does what the CFA does not model; says
        whether the goal is infeasible now."""
        if (refused := self.program.proof_blockers.reason(self.goals[goal])) is not None:
            self.refused[goal] = refused
            return False
        if goal in self.covered:
            raise AssertionError(f"{proof} claims covered goal {goal} infeasible")
        if goal not in self.infeasible:
            self.infeasible[goal] = proof
            self.notify("infeasible", goals={goal}, origin=proof)
        return True
