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
DEFAULT_SEARCH = "cgs-decisions"
SEARCHES = ("cgs", "cgs-decisions", "cgs-eager", "dfs", "crest-dfs", "bfs", "random-branch", "uniform-random",
            "cfg", "crest-cfg", "generational", "carfast")
"""The searchers of ``analyses.concolic.searchers``, by name (checked by a test)."""
FRESH_INPUTS = ("both", "zero", "random")
"""What concolic search gives an input neither the solver nor an earlier run chose
(``analyses.concolic.padding``): both, the default (random values, and a second start
from zeros), zeros, or random values (CREST's)."""
ADDRESSES = ("symbolic", "concrete")
"""How concolic search reads and writes at an address that depends on inputs
(``SymbolicState._pinned``): as a term, the default, or at the run's address with no
constraint (CREST's)."""
UNCONSTRAINED = ("keep", "fresh")
"""What concolic search gives, after a negation, an input of the path that no constraint
up to the negated decision reads (``ConcolicAnalysis._solve``): the parent run's value,
the default (CREST's ``SolveAtBranch``), or a fresh input (``analyses.concolic.padding``),
as the CGS author's CREST does (``SolveAtBranchNew``)."""
LIBRARY = ("symbolic", "concrete")
"""What a C library call that concolic search models (``strcmp``, ``strlen``, ``strchr``,
copies and their kin) computes on (``SymbolicState._library_value``): terms over its
arguments and the bytes it reads, the default, or their values in the run with no
constraint (CREST's, whose library is not instrumented)."""


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
    search: str = DEFAULT_SEARCH  # the search it runs unless --search names another


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
                 uses_search=True),
    StrategySpec("random", "coverage-guided random testing at native speed",
                 _lazy("random", "cooptest.analyses.random_testing", "from_settings"), proves=False),
    StrategySpec("afl", "AFL++ (afl-fuzz, needs afl++) seeded with the board's tests, each entry "
                 "of its queue a test once replayed natively",
                 _lazy("afl", "cooptest.analyses.afl", "from_settings"), proves=False),
    StrategySpec("value", "CEGAR reachability with explicit values",
                 _lazy("value", "cooptest.analyses.reachability", "value_from_settings"), proves=True),
    StrategySpec("predicate", "CEGAR reachability with predicate abstraction",
                 _lazy("predicate", "cooptest.analyses.reachability", "predicate_from_settings"), proves=True),
    StrategySpec("mgp", "multi-goal partitioning: --partitions predicate-analysis runs",
                 _lazy("mgp", "cooptest.analyses.reachability", "mgp_from_settings"), proves=True),
    StrategySpec("callgraph", "proves the goals of functions no call can reach (no tests)",
                 _lazy("callgraph", "cooptest.analyses.callgraph", "from_settings"), proves=True),
    StrategySpec("fields", "proves branches no value stored in a heap struct's field takes (no tests)",
                 _lazy("fields", "cooptest.analyses.field_invariants", "from_settings"), proves=True),
    StrategySpec("chc", "proves goals with the program's Horn clauses, solved by z3's Spacer: "
                 "loops and recursion over registers (no tests)",
                 _lazy("chc", "cooptest.analyses.chc", "from_settings"), proves=True),
    StrategySpec("auto", "a portfolio of cooperating analyses on every core (--jobs)",
                 _lazy("auto", "cooptest.cooperation.portfolio", "from_settings"), proves=True),
    StrategySpec("crabs", "Crabs: concolic testing steered by monitors made of predicate ARGs",
                 _lazy("crabs", "cooptest.cooperation.crabs", "from_settings"), proves=True,
                 uses_search=True, search="crest-cfg"),  # the paper ran CREST's CFG search
    StrategySpec("coveritest", "CoVeriTest: analyses interleaved with time limits and reuse",
                 _lazy("coveritest", "cooptest.cooperation.coveritest", "from_settings"),
                 proves=True),
    StrategySpec("bite", "BiTe: concolic S-states meet weakest-precondition R-states at a frontier",
                 _lazy("bite", "cooptest.cooperation.bite", "from_settings"), proves=True),
)}


@dataclass(frozen=True)
class Applies:
    """The strategies an option of ``generate`` does something for; ``what`` names them
    in the refusal where a list alone would not say why."""

    strategies: tuple[str, ...]
    what: str = ""


CONCOLIC_SEARCH = Applies(("concolic", "crabs", "auto"), "strategies with concolic search: concolic, crabs, auto")
"""The options of concolic search's semantics (``--fresh-inputs``, ``--unconstrained``,
``--addresses``, ``--library``)."""
OPTIONS: dict[str, Applies] = {
    "--search": Applies(("concolic", "crabs", "bite", "auto")),
    "--partitions": Applies(("mgp",)),
    "--partitioning": Applies(("mgp",)),
    "--partition-size": Applies(("mgp",)),
    "--sequence": Applies(("coveritest", "auto")),
    "--time-pair": Applies(("coveritest", "auto")),
    "--reuse": Applies(("coveritest", "auto")),
    "--parallel": Applies(("coveritest",)),
    "--testing-share": Applies(("crabs",)),
    "--no-monitor": Applies(("crabs",)),
    "--frontier-order": Applies(("bite", "auto")),
    "--jobs": Applies(("auto",)),
    "--fuzzer": Applies(("auto",)),
    "--max-iterations": Applies(("concolic", "auto"), "strategies with concolic search: concolic, auto"),
    "--dfs-depth": Applies(("concolic",), "--strategy concolic --search crest-dfs"),
    "--fresh-inputs": CONCOLIC_SEARCH,
    "--unconstrained": CONCOLIC_SEARCH,
    "--addresses": CONCOLIC_SEARCH,
    "--library": CONCOLIC_SEARCH,
}
"""Which strategy each option of ``generate`` that is not about the program, the budget
or the outputs applies to: the one table ``check_options`` reads, so that an option is
either applied or refused, never accepted and ignored. ``auto`` takes the options of the
analyses it runs: ``--search`` its concolic lanes and BiTe, ``--frontier-order`` BiTe,
``--reuse``/``--sequence``/``--time-pair`` its CoVeriTest lane. ``--parallel`` is
CoVeriTest's own lanes, which a lane of ``auto`` cannot fork. ``--max-iterations`` is
not crabs' (a fresh execution tree each round: N per round is not CREST's N);
``--dfs-depth`` is CREST's ``-dfs D`` and so the concolic strategy's with ``--search
crest-dfs`` alone (``check_options`` refuses it with another search)."""
SEQUENCED = ("coveritest", "auto")  # their --sequence names analyses, whose options apply too
EXCLUSIVE = (("--sequence", "--time-pair"),)


def _listed(names: tuple[str, ...]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def applies(option: str, strategy: str, sequence: str | None = None) -> bool:
    """Whether ``option`` does something for ``strategy``; for a strategy that runs a
    ``--sequence``, also when it does for an analysis the sequence names (``--search``
    for ``--sequence concolic:5,value:5``)."""
    spec = OPTIONS.get(option)
    if spec is None or strategy in spec.strategies:
        return True
    if strategy not in SEQUENCED or not sequence:
        return False
    named = {item.partition(":")[0].strip() for item in sequence.split(",")} - set(SEQUENCED)
    return any(n in spec.strategies for n in named)


def check_options(strategy: str, given: dict[str, Any]) -> None:
    """A UserError (one line, exit 2) for the first option in ``given`` (flag -> value,
    the options the user gave) that does nothing for ``strategy``, or two that exclude
    each other; checked here once, before anything runs."""
    from cooptest.errors import UserError
    for option in given:
        if not applies(option, strategy, given.get("--sequence")):
            spec = OPTIONS[option]
            raise UserError(f"{option} applies to {spec.what or _listed(spec.strategies)}")
    for a, b in EXCLUSIVE:
        if a in given and b in given:
            raise UserError(f"give either {a} or {b}, not both")
    if "--dfs-depth" in given and given.get("--search") != "crest-dfs":
        raise UserError(f"--dfs-depth applies to {OPTIONS['--dfs-depth'].what}")
    size = given.get("--partitioning") == "size"  # parts of a size, not a number of parts
    if "--partition-size" in given and not size:
        raise UserError("--partition-size applies to --partitioning size")
    if "--partitions" in given and size:
        raise UserError("--partitioning size takes --partition-size, not --partitions")


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
