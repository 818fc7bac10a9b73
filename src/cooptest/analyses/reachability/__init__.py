"""Reachability analyses with coverage-driven CEGAR: explicit values, predicate
abstraction, and multi-goal partitioning over either (see ``cegar.py`` for the loop,
``cpa.py`` for the algorithm, ``arg.py`` for the resumable ARG)."""
from __future__ import annotations

from cooptest.analyses.reachability.mgp import MultiGoalAnalysis
from cooptest.analyses.reachability.predicate import PredicateAnalysis
from cooptest.analyses.reachability.value import ValueAnalysis

ANALYSES = {"value": ValueAnalysis, "predicate": PredicateAnalysis, "mgp": MultiGoalAnalysis}
