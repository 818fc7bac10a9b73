"""The analyses and searches cooptest offers, by name, with the defaults.

The command line, ``bench`` and every cooperation read this table; none of them imports
an analysis module directly, and the modules themselves are imported only when an
analysis is made (``cooptest cfa`` never loads z3's solver-heavy code paths).

A *strategy* (``--strategy``) is what ``generate`` runs: a single analysis or a
cooperation of several. A *search* (``--search``) is how concolic testing picks the next
decision to negate. The two words are never used for each other.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

from cooptest.core.analysis import Analysis

DEFAULT_STRATEGY = "auto"
DEFAULT_SEARCH = "cgs"
SEARCHES = ("cgs", "dfs", "bfs", "random-branch", "uniform-random", "cfg", "generational", "carfast")
"""The searchers of ``analyses.concolic.searchers``, by name (checked by a test)."""


@dataclass(frozen=True)
class Settings:
    """What the user chose; each analysis reads the settings that concern it."""

    search: str = DEFAULT_SEARCH
    partitions: int = 4
    seed: int = 0
    extra: dict[str, Any] = field(default_factory=dict)  # settings of cooperations


@dataclass(frozen=True)
class StrategySpec:
    name: str
    summary: str
    make: Callable[[Settings], Analysis]
    proves: bool  # whether it can claim goals infeasible
    uses_search: bool = False
    iterated: bool = False  # ``--max-iterations`` bounds its concolic search


def _lazy(strategy: str, module: str, factory: str) -> Callable[[Settings], Analysis]:
    def make(settings: Settings) -> Analysis:
        from cooptest.errors import UserError
        try:
            loaded = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name and module.startswith(e.name):  # an installation without it
                raise UserError(f"strategy {strategy!r} is not available in this installation "
                                f"({module} is missing)") from None
            raise
        return getattr(loaded, factory)(settings)
    return make


STRATEGIES: dict[str, StrategySpec] = {s.name: s for s in (
    StrategySpec("concolic", "concolic testing; --search picks the decision to negate",
                 _lazy("concolic", "cooptest.analyses.concolic", "from_settings"), proves=True,
                 uses_search=True, iterated=True),
    StrategySpec("random", "coverage-guided random testing at native speed",
                 _lazy("random", "cooptest.analyses.random_testing", "from_settings"), proves=False),
    StrategySpec("value", "CEGAR reachability with explicit values",
                 _lazy("value", "cooptest.analyses.reachability", "value_from_settings"), proves=True),
    StrategySpec("predicate", "CEGAR reachability with predicate abstraction",
                 _lazy("predicate", "cooptest.analyses.reachability", "predicate_from_settings"), proves=True),
    StrategySpec("mgp", "multi-goal partitioning: --partitions predicate-analysis runs",
                 _lazy("mgp", "cooptest.analyses.reachability", "mgp_from_settings"), proves=True),
    StrategySpec("callgraph", "proves the goals of functions no call can reach (no tests)",
                 _lazy("callgraph", "cooptest.analyses.callgraph", "from_settings"), proves=True),
    StrategySpec("fields", "proves branches no value stored in a heap struct's field takes (no tests)",
                 _lazy("fields", "cooptest.analyses.fields", "from_settings"), proves=True),
    StrategySpec("chc", "proves goals with the program's Horn clauses, solved by z3's Spacer: "
                 "loops and recursion over registers (no tests)",
                 _lazy("chc", "cooptest.analyses.chc", "from_settings"), proves=True),
    StrategySpec("auto", "a portfolio of cooperating analyses on every core (--jobs)",
                 _lazy("auto", "cooptest.cooperation.portfolio", "from_settings"), proves=True,
                 iterated=True),  # each concolic lane's own search
    StrategySpec("crabs", "Crabs: concolic testing steered by monitors made of predicate ARGs",
                 _lazy("crabs", "cooptest.cooperation.crabs", "from_settings"), proves=True,
                 uses_search=True),
    StrategySpec("coveritest", "CoVeriTest: analyses interleaved with time limits and reuse",
                 _lazy("coveritest", "cooptest.cooperation.coveritest", "from_settings"),
                 proves=True),
    StrategySpec("bite", "BiTe: concolic S-states meet weakest-precondition R-states at a frontier",
                 _lazy("bite", "cooptest.cooperation.bite", "from_settings"), proves=True),
)}


def make_analysis(strategy: str, settings: Settings | None = None) -> Analysis:
    """The analysis (or cooperation) named ``strategy``."""
    from cooptest.errors import UserError
    spec = STRATEGIES.get(strategy)
    if spec is None:
        raise UserError(f"unknown strategy {strategy!r} (known: {', '.join(STRATEGIES)})")
    settings = settings or Settings()
    if settings.search not in SEARCHES:
        raise UserError(f"unknown search {settings.search!r} (known: {', '.join(SEARCHES)})")
    return spec.make(settings)
