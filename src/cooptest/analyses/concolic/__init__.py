"""Concolic testing (DART/CUTE/CREST) with pluggable search strategies.

``ConcolicAnalysis(search=name, seed_tests=..., rng_seed=...)`` implements the analysis
interface; ``STRATEGIES`` maps strategy names to searcher classes."""
from cooptest.analyses.concolic.engine import ConcolicAnalysis
from cooptest.analyses.concolic.execution_tree import ConcolicARG
from cooptest.analyses.concolic.strategies import DEFAULT, STRATEGIES

__all__ = ["ConcolicAnalysis", "ConcolicARG", "STRATEGIES", "DEFAULT"]
