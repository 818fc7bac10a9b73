"""Multi-goal partitioning (CPA/Tiger-MGP): one CEGAR run per partition of the goals.

A run that targets every goal at once refines for all of them in one ARG, and one hard
goal can drown the others' precision; a run per partition keeps each ARG and precision
small. Partitions run one after the other, each with an equal share of the budget that
is left; every test any of them finds is replayed natively (``submit`` records every
goal it covers), so later partitions only target goals still open. (The suite is
reduced at the end of every run, whatever produced it: ``GoalBoard.reduce``.)
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from cooptest.analyses.reachability.arg import ReachabilityARG
from cooptest.analyses.reachability.cegar import CEGARAnalysis
from cooptest.analyses.reachability.predicate import PredicateAnalysis
from cooptest.analyses.reachability.value import ValueAnalysis
from cooptest.core.analysis import AnalysisState, Job, Outcome, finish
from cooptest.core.automaton import Product
from cooptest.core.board import GoalBoard

BASES: dict[str, type[CEGARAnalysis]] = {"predicate": PredicateAnalysis, "value": ValueAnalysis}
PARTITIONINGS = ("proximity", "random", "size")


@dataclass
class PartitionedARG(AnalysisState):
    """One ARG per partition (None: not started); passing it back resumes each."""

    partitions: list[list[str]] = field(default_factory=list)
    args: list[ReachabilityARG | None] = field(default_factory=list)

    def frontier_size(self) -> int:
        return sum(a.frontier_size() for a in self.args if a is not None)

    def condition(self, board: GoalBoard | None = None) -> Any:
        """The product of the partitions' conditions: every partition's ARG explores the
        whole program (only its targets differ), so each one's condition is sound."""
        return Product(tuple(a.condition(board) for a in self.args if a is not None))

    def monitor(self) -> Any:
        return Product(tuple(a.monitor() for a in self.args if a is not None))


def partition(program: GoalBoard, goals: frozenset[str], partitioning: str, partitions: int,
              size: int | None, seed: int) -> list[list[str]]:
    """``proximity``: goals sorted by function and line, cut into ``partitions`` runs of
    neighbours; ``random``: shuffled, dealt into ``partitions``; ``size``: proximity
    order cut into parts of ``size`` goals."""
    ordered = sorted(goals, key=lambda g: (program.goals[g].function, program.goals[g].line, g))
    if partitioning == "random":
        random.Random(seed).shuffle(ordered)
        return [p for p in (ordered[k::partitions] for k in range(partitions)) if p]
    if partitioning == "size":
        step = max(1, size or 1)
    elif partitioning == "proximity":
        step = max(1, -(-len(ordered) // max(1, partitions)))
    else:
        raise ValueError(f"unknown partitioning {partitioning!r} (one of {', '.join(PARTITIONINGS)})")
    return [ordered[k:k + step] for k in range(0, len(ordered), step)]


class MultiGoalAnalysis:
    """Multi-goal partitioning over a CEGAR analysis (``base``: predicate or value)."""

    name = "mgp"

    def __init__(self, partitions: int = 4, partitioning: str = "proximity",
                 size: int | None = None, base: str = "predicate", seed: int = 0) -> None:
        if partitioning not in PARTITIONINGS:
            raise ValueError(f"unknown partitioning {partitioning!r} (one of {', '.join(PARTITIONINGS)})")
        self.partitions, self.partitioning, self.size, self.seed = partitions, partitioning, size, seed
        self.base = BASES[base]

    def run(self, board: GoalBoard, job: Job) -> Outcome:
        state = job.state
        if not isinstance(state, PartitionedARG):
            parts = partition(board, board.open(job.goals), self.partitioning, self.partitions,
                              self.size, self.seed)
            state = PartitionedARG(self.name, partitions=parts, args=[None] * len(parts))
        cut = False  # a partition's share ran out: running the state again goes on with it
        for k, part in enumerate(state.partitions):
            if not board.has_open(part) or job.budget.expired():
                continue
            share = job.budget.child(job.budget.remaining() / (len(state.partitions) - k))
            analysis = self.base()
            analysis.name = f"{self.name}/{analysis.name}"
            sub = analysis.run(board, Job(frozenset(part), share, state=state.args[k],
                                          precision=job.precision, condition=job.condition,
                                          monitor=job.monitor))
            state.args[k] = sub.state  # type: ignore[assignment]
            cut |= sub.cut
        state.complete = all(a is not None and a.complete for a in state.args)
        return finish(board, job, state, interrupted=cut)
