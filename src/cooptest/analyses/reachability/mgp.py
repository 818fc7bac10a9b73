"""Multi-goal partitioning (CPA/Tiger-MGP, Ruland et al., STTT 2021): one CEGAR run per
partition of the goals.

A run that targets every goal at once refines for all of them in one ARG, and one hard
goal can drown the others' precision; a run per partition keeps each ARG and precision
small. The goals are partitioned (``--partitioning``, the paper's three): ``random``
(shuffled and dealt into ``--partitions`` parts; the paper's best, with 4 parts),
``proximity`` (neighbours in the program, split into ``--partitions`` runs; cooptest's
default, as before) or ``size`` (proximity order split into parts of ``--partition-size``
goals). Partitions run one after the other, each with T/n of the run's time T, as the
paper gives them: a partition that ends early leaves its time unused by the next one
(each had what was left / partitions left before, which gave the later partitions the
time the early ones did not use). Time left once every partition had its share goes
round again, in equal shares, to the partitions still open whose runs their share stopped: no
core idles while the budget lasts. Every test any partition finds is replayed natively
(``submit`` records every goal it covers), so later partitions only target goals still
open. Redundant tests are removed at the end of every run, whatever produced them, by
marginal gain (``core.reduction.reduce_suite``).
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from cooptest.analyses.reachability.arg import ReachabilityARG
from cooptest.analyses.reachability.cegar import CEGARAnalysis
from cooptest.analyses.reachability.predicate import PredicateAnalysis
from cooptest.analyses.reachability.value import ValueAnalysis
from cooptest.core.analysis import AnalysisState, Job, Outcome, Run, Stopped, finish
from cooptest.core.automaton import Product
from cooptest.core.board_view import Board
from cooptest.core.budget import Budget

BASES: dict[str, type[CEGARAnalysis]] = {"predicate": PredicateAnalysis, "value": ValueAnalysis}
PARTITIONINGS = ("proximity", "random", "size")
DEFAULT_PARTITIONING = "proximity"


@dataclass
class PartitionedARG(AnalysisState):
    """One ARG per partition (None: not started); passing it back resumes each."""

    partitions: list[list[str]] = field(default_factory=list)
    args: list[ReachabilityARG | None] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)  # each partition's runs together
    stopped: list[str] = field(default_factory=list)  # how each partition's last run stopped

    def reported_runs(self, stopped: Stopped, seconds: float) -> list[Run]:
        """One run per partition: how the time was shared, and what each did with it."""
        n = len(self.partitions)
        return [Run(f"{self.analysis}: partition {k + 1} of {n} "
                    f"({len(part)} goal{'' if len(part) == 1 else 's'})",
                    self.stopped[k] or "skipped", round(self.seconds[k], 2))
                for k, part in enumerate(self.partitions)] or super().reported_runs(stopped, seconds)

    def frontier_size(self) -> int:
        return sum(a.frontier_size() for a in self.args if a is not None)

    def condition(self, board: Board | None = None) -> Any:
        """The product of the partitions' conditions: every partition's ARG explores the
        whole program (only its targets differ), so each one's condition is sound."""
        return Product(tuple(a.condition(board) for a in self.args if a is not None))

    def monitor(self, board: Board | None = None) -> Any:
        return Product(tuple(a.monitor(board) for a in self.args if a is not None))


def partition(program: Board, goals: frozenset[str], partitioning: str, partitions: int,
              size: int | None, seed: int) -> list[list[str]]:
    """``proximity``: goals sorted by function and line, split into ``partitions`` runs of
    neighbours; ``random``: shuffled, dealt into ``partitions``; ``size``: proximity
    order split into parts of ``size`` goals."""
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


@dataclass(frozen=True)
class Partitioning:
    """How the goals are partitioned, as report.json's ``configuration`` names it."""

    kind: str
    partitions: int
    size: int | None

    def describe(self) -> dict[str, Any]:
        if self.kind == "size":
            return {"partitioning": "size", "partition_size": self.size or 1}
        return {"partitioning": self.kind, "partitions": self.partitions}


class MultiGoalAnalysis:
    """Multi-goal partitioning over a CEGAR analysis (``base``: predicate or value)."""

    name = "mgp"

    def __init__(self, partitions: int = 4, partitioning: str = DEFAULT_PARTITIONING,
                 size: int | None = None, base: str = "predicate", seed: int = 0) -> None:
        if partitioning not in PARTITIONINGS:
            raise ValueError(f"unknown partitioning {partitioning!r} (one of {', '.join(PARTITIONINGS)})")
        self.partitions, self.partitioning, self.size, self.seed = partitions, partitioning, size, seed
        self.base = BASES[base]
        self.configuration = Partitioning(partitioning, partitions, size)

    def run(self, board: Board, job: Job) -> Outcome:
        state = job.state
        if not isinstance(state, PartitionedARG):
            parts = partition(board, board.open(job.goals), self.partitioning, self.partitions,
                              self.size, self.seed)
            n = len(parts)
            state = PartitionedARG(self.name, partitions=parts, args=[None] * n,
                                   seconds=[0.0] * n, stopped=[""] * n)
        interrupted = False  # a partition's share ran out: running the state again goes on with it
        pending = list(range(len(state.partitions)))  # the paper's pass: every partition T/n
        while pending and not job.budget.expired():
            share = job.budget.remaining() / len(pending)
            again = []
            for k in pending:
                if not board.has_open(state.partitions[k]) or job.budget.expired():
                    continue
                sub = self._run_partition(board, job, state, k, job.budget.child(share))
                if sub.unfinished:
                    again.append(k)
            interrupted = bool(again)
            pending = again  # time the others left unused: in equal shares to these
        state.complete = all(a is not None and a.complete for a in state.args)
        return finish(board, job, state, interrupted=interrupted)

    def _run_partition(self, board: Board, job: Job, state: PartitionedARG, k: int,
                       share: Budget) -> Outcome:
        """One CEGAR run for partition ``k`` within ``share``, continuing its ARG."""
        analysis = self.base()
        analysis.name = f"{self.name}/{analysis.name}"
        started = time.monotonic()
        sub = analysis.run(board, Job(frozenset(state.partitions[k]), share, state=state.args[k],
                                      precision=job.precision, condition=job.condition,
                                      monitor=job.monitor))
        assert isinstance(sub.state, ReachabilityARG)  # a CEGAR run's state
        state.args[k] = sub.state
        state.seconds[k] += time.monotonic() - started
        state.stopped[k] = sub.stopped
        return sub
