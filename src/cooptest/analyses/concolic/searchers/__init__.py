"""Search strategies of concolic testing, by name (one small class per file), and the
wrappers that compose them (``Interleaved``, ``Guided``)."""
from __future__ import annotations

from cooptest.analyses.concolic.searchers.base import SearchContext, Searcher
from cooptest.analyses.concolic.searchers.bfs import BreadthFirst
from cooptest.analyses.concolic.searchers.carfast import CarFast
from cooptest.analyses.concolic.searchers.cfg import CfgDirected
from cooptest.analyses.concolic.searchers.cgs import ContextGuided, DecisionContextGuided, EagerContextGuided
from cooptest.analyses.concolic.searchers.crest_cfg import CrestCfg
from cooptest.analyses.concolic.searchers.crest_dfs import CrestDepthFirst
from cooptest.analyses.concolic.searchers.dfs import DepthFirst
from cooptest.analyses.concolic.searchers.generational import Generational
from cooptest.analyses.concolic.searchers.guided import Guided
from cooptest.analyses.concolic.searchers.interleaved import Interleaved
from cooptest.analyses.concolic.searchers.random_branch import RandomBranch
from cooptest.analyses.concolic.searchers.uniform_random import UniformRandomPath
from cooptest.core.registry import DEFAULT_SEARCH

SEARCHERS: dict[str, type[Searcher]] = {s.name: s for s in (
    ContextGuided, DecisionContextGuided, EagerContextGuided, DepthFirst, CrestDepthFirst, BreadthFirst,
    RandomBranch, UniformRandomPath, CfgDirected, CrestCfg, Generational, CarFast)}
DEFAULT = DEFAULT_SEARCH  # the command line's default, named in one place

__all__ = ["SEARCHERS", "DEFAULT", "SearchContext", "Searcher", "Interleaved", "Guided"]
