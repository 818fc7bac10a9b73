"""Search strategies of concolic testing, by name (one small class per file)."""
from __future__ import annotations

from cooptest.analyses.concolic.strategies.base import SearchContext, Searcher
from cooptest.analyses.concolic.strategies.bfs import BreadthFirst
from cooptest.analyses.concolic.strategies.carfast import CarFast
from cooptest.analyses.concolic.strategies.cfg import CfgDirected
from cooptest.analyses.concolic.strategies.cgs import ContextGuided
from cooptest.analyses.concolic.strategies.dfs import DepthFirst
from cooptest.analyses.concolic.strategies.generational import Generational
from cooptest.analyses.concolic.strategies.random_branch import RandomBranch
from cooptest.analyses.concolic.strategies.uniform_random import UniformRandomPath

STRATEGIES: dict[str, type[Searcher]] = {s.name: s for s in (
    ContextGuided, DepthFirst, BreadthFirst, RandomBranch, UniformRandomPath, CfgDirected,
    Generational, CarFast)}
DEFAULT = ContextGuided.name

__all__ = ["STRATEGIES", "DEFAULT", "SearchContext", "Searcher"]
