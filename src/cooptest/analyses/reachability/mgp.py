"""Multi-goal partitioning (CPA/Tiger-MGP): one CEGAR run per partition of the goals.

A run that targets every goal at once refines for all of them in one ARG, and one hard
goal can drown the others' precision; a run per partition keeps each ARG and precision
small. Partitions run one after the other, each with an equal share of the budget that
is left; every test any of them finds is replayed natively (``submit`` records every
goal it covers), so later partitions only target goals still open. The suite is then
reduced: a test is redundant when the goals it covered first are all covered by the
other tests kept.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from cooptest.analyses.interface import ARG, AnalysisResult, Budget, ProgramUnderTest
from cooptest.analyses.reachability.arg import ReachabilityARG
from cooptest.analyses.reachability.cegar import CEGARAnalysis
from cooptest.analyses.reachability.predicate import PredicateAnalysis
from cooptest.analyses.reachability.value import ValueAnalysis
from cooptest.harness.testsuite import TestCase

BASES: dict[str, type[CEGARAnalysis]] = {"predicate": PredicateAnalysis, "value": ValueAnalysis}
STRATEGIES = ("proximity", "random", "size")


@dataclass
class PartitionedARG(ARG):
    """One ARG per partition (None: not started); passing it back resumes each."""

    partitions: list[list[str]] = field(default_factory=list)
    args: list[ReachabilityARG | None] = field(default_factory=list)

    def frontier_size(self) -> int:
        return sum(a.frontier_size() for a in self.args if a is not None)


def partition(program: ProgramUnderTest, goals: set[str], strategy: str, partitions: int,
              size: int | None, seed: int) -> list[list[str]]:
    """``proximity``: goals sorted by function and line, cut into ``partitions`` runs of
    neighbours; ``random``: shuffled, dealt into ``partitions``; ``size``: proximity
    order cut into parts of ``size`` goals."""
    ordered = sorted(goals, key=lambda g: (program.goals[g].function, program.goals[g].line, g))
    if strategy == "random":
        random.Random(seed).shuffle(ordered)
        return [p for p in (ordered[k::partitions] for k in range(partitions)) if p]
    if strategy == "size":
        step = max(1, size or 1)
    elif strategy == "proximity":
        step = max(1, -(-len(ordered) // max(1, partitions)))
    else:
        raise ValueError(f"unknown partitioning {strategy!r} (one of {', '.join(STRATEGIES)})")
    return [ordered[k:k + step] for k in range(0, len(ordered), step)]


def reduce_suite(records: list[tuple[TestCase, set[str], set[str]]]) -> list[TestCase]:
    """Drop redundant tests (records: test, goals it covered first, goals it covers),
    trying the tests that covered the fewest goals first."""
    kept = list(range(len(records)))
    for i in sorted(kept, key=lambda k: (len(records[k][1]), -k)):
        others = set().union(*(records[k][2] for k in kept if k != i))
        if records[i][1] <= others:
            kept.remove(i)
    return [records[k][0] for k in kept]


class MultiGoalAnalysis:
    """Multi-goal partitioning over a CEGAR analysis (``base``: predicate or value)."""

    name = "mgp"

    def __init__(self, partitions: int = 4, strategy: str = "proximity", size: int | None = None,
                 base: str = "predicate", seed: int = 0) -> None:
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown partitioning {strategy!r} (one of {', '.join(STRATEGIES)})")
        self.partitions, self.strategy, self.size, self.seed = partitions, strategy, size, seed
        self.base = BASES[base]

    def run(self, program: ProgramUnderTest, goals: set[str], budget: Budget,
            arg: PartitionedARG | None = None, condition: Any = None,
            precision: Any = None) -> AnalysisResult:
        if arg is None:
            parts = partition(program, goals, self.strategy, self.partitions, self.size, self.seed)
            arg = PartitionedARG(self.name, partitions=parts, args=[None] * len(parts))
        result = AnalysisResult(arg=arg)
        records: list[tuple[TestCase, set[str], set[str]]] = []
        for k, part in enumerate(arg.partitions):
            todo = set(part) & program.open_goals()
            if not todo or budget.expired():
                continue
            share = budget.part(budget.remaining() / (len(arg.partitions) - k))
            analysis = self.base()
            analysis.name = f"{self.name}/{analysis.name}"
            sub = analysis.run(program, todo, share, arg=arg.args[k], condition=condition,
                               precision=precision)
            arg.args[k] = sub.arg  # type: ignore[assignment]
            fresh = {id(t) for t in sub.tests}
            records += [r for r in sub.arg.test_coverage if id(r[0]) in fresh]  # type: ignore[union-attr]
            result.covered |= sub.covered
            result.infeasible.update(sub.infeasible)
        arg.complete = all(a is not None and a.complete for a in arg.args)
        result.tests = reduce_suite(records)
        return result
