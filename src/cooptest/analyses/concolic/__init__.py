"""Concolic testing (DART/CUTE/CREST) with pluggable search strategies.

``ConcolicAnalysis(search=name, rng_seed=...)`` implements the analysis interface;
``SEARCHERS`` maps search names to searcher classes."""
from cooptest.analyses.concolic.engine import ConcolicAnalysis, from_settings
from cooptest.analyses.concolic.execution_tree import ConcolicSearchState
from cooptest.analyses.concolic.searchers import DEFAULT, SEARCHERS

__all__ = ["ConcolicAnalysis", "ConcolicSearchState", "from_settings", "SEARCHERS", "DEFAULT"]
