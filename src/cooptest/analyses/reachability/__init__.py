"""Reachability analyses with coverage-driven CEGAR: explicit values, predicate
abstraction, and multi-goal partitioning over either (see ``cegar.py`` for the loop,
``cpa.py`` for the algorithm, ``arg.py`` for the resumable ARG)."""
from __future__ import annotations

from cooptest.analyses.reachability.mgp import DEFAULT_PARTITIONING, MultiGoalAnalysis
from cooptest.analyses.reachability.predicate import PredicateAnalysis
from cooptest.analyses.reachability.value import ValueAnalysis

from cooptest.core.registry import Settings


def value_from_settings(settings: Settings) -> ValueAnalysis:
    return ValueAnalysis()


def predicate_from_settings(settings: Settings) -> PredicateAnalysis:
    return PredicateAnalysis()


def mgp_from_settings(settings: Settings) -> MultiGoalAnalysis:
    """``settings.extra``: ``partitioning`` (default proximity) and, for ``size``,
    ``partition_size``."""
    return MultiGoalAnalysis(partitions=settings.partitions,
                             partitioning=settings.extra.get("partitioning") or DEFAULT_PARTITIONING,
                             size=settings.extra.get("partition_size"), seed=settings.seed)
