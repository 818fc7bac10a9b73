"""CoVeriTest (Beyer & Jakobs, FASE 2019): cooperative verifier-based testing.

A configuration is a sequence of (analysis, time limit) pairs and a reuse type. Rounds
run the pairs in order, each on the goals still open, until the budget ends, every goal
is decided, or one analysis explores the whole program (its complete ARG has then proven
every goal it did not reach infeasible: nothing is left for the others). Alg. 1:

    states := [none, ..., none]
    while open goals and budget left:
        for i, (analysis_i, t_i) in configuration:
            job := Job(open goals, budget for t_i, **reuse(i))      # Alg. 2-3
            states[i] := analysis_i.run(board, job).state
            if states[i] is complete: stop

``reuse(i)`` is the reuse type, the paper's nine (FASE 2019, Sect. 3: what a run of an
analysis starts from besides the open goals):

- ``plain``: every run starts from scratch;
- ``reuse-prec``: a run restarts with the precision its analysis had learnt;
- ``reuse-arg``: a run continues its analysis's own ARG (state);
- ``cond-v`` / ``cond-p`` / ``cond-vp``: the value / predicate / both analyses are the
  conditional model checkers whose *condition* (the state space its ARG explored
  completely, every goal in it decided) the analysis that runs next reads and skips:
  under ``cond-v`` the predicate analysis skips what the value analysis explored,
  under ``cond-p`` the value analysis what the predicate analysis did; each run
  starts from scratch otherwise;
- ``cond-v+r`` / ``cond-p+r`` / ``cond-vp+r``: the same, with reuse: an analysis that
  reads no condition continues its ARG (so the condition it hands on grows from round
  to round), one that reads a condition restarts with its own precision (a condition
  and a continued ARG do not mix: the old ARG was built without the condition).

A condition is read from the analysis just before in the sequence (the last one's for
the first, from the second round on), if that analysis's letter is in the type's name.
Any analysis of the registry may sit in the sequence (value, predicate, concolic,
random): a reuse type that does not apply to it (random testing has no precision)
leaves it as ``plain`` or ``reuse-arg`` would. The time limits are seconds, or the
paper's pairs for a 900-s run (``TIME_PAIRS``) scaled to the job's budget.

Until issue 40, ``cond-v`` conditioned the value analysis on the predicate analysis's
condition (the paper's ``cond-p``, and the reverse), and ``cond-v+r``/``cond-p+r``
restarted both analyses with their precisions; RESULTS.md's reuse table of 11-23
measured those. That ``+r`` variant trailed reuse-arg there by 4-5 points of TestCov
coverage, so it is not kept under a name of its own.

Every test and proof names the analysis and the round that produced it (the board's
``context``); report.json names the configuration (``describe``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from cooptest.core.analysis import Analysis, AnalysisState, Job, Outcome, Run, Stopped, finish
from cooptest.core.board_view import Board, Labelled
from cooptest.core.parallel import Lane, run_lanes
from cooptest.core.registry import STRATEGIES, Settings, make_analysis
from cooptest.errors import UserError

REUSE_TYPES = ("plain", "cond-v", "cond-p", "cond-vp", "reuse-prec", "reuse-arg",
               "cond-v+r", "cond-p+r", "cond-vp+r")
TIME_PAIRS = {"10/10": (10, 10), "50/50": (50, 50), "100/100": (100, 100),
              "250/250": (250, 250), "20/80": (20, 80), "80/20": (80, 20)}
PAPER_RUN = 900.0  # the paper's time limits are of a 900-s run
DEFAULT_PAIR, DEFAULT_REUSE = "20/80", "reuse-arg"  # the paper's best configuration
CONDITIONED = {"v": "value", "p": "predicate"}  # the analyses the letters of cond-X name


@dataclass(frozen=True)
class Reuse:
    """A reuse type: what a run starts from besides the open goals (module docstring)."""

    name: str
    own: str  # "none", "precision" or "arg": what a run that reads no condition takes from its last state
    producers: frozenset[str]  # cond-X: the analyses X whose condition the next analysis reads
    conditioned_own: str = "none"  # what a run that reads a condition takes from its last state

    @staticmethod
    def named(name: str) -> Reuse:
        if name not in REUSE_TYPES:
            raise UserError(f"unknown reuse type {name!r} (known: {', '.join(REUSE_TYPES)})")
        if not name.startswith("cond-"):
            return Reuse(name, {"plain": "none", "reuse-prec": "precision", "reuse-arg": "arg"}[name],
                         frozenset())
        letters = name.removeprefix("cond-").removesuffix("+r")
        reuse = name.endswith("+r")
        return Reuse(name, "arg" if reuse else "none", frozenset(CONDITIONED[c] for c in letters),
                     "precision" if reuse else "none")


@dataclass(frozen=True)
class Configuration:
    """``pairs``' limits are seconds, or, with ``of_run``, limits for a run of that many
    seconds (the paper's pairs are of a 900-s run), scaled to the job's budget when the
    job starts: the driver's job is where the budget is known, not the settings."""

    pairs: tuple[tuple[str, float], ...]
    reuse: Reuse
    parallel: bool = False
    of_run: float | None = None

    def limits(self, budget: float) -> tuple[tuple[str, float], ...]:
        """The pairs in seconds, for a job of ``budget`` seconds."""
        return self.pairs if self.of_run is None else scaled(self.pairs, budget, self.of_run)

    def describe(self) -> dict[str, Any]:
        return {"sequence": [f"{a}:{t:g}" for a, t in self.pairs], "reuse": self.reuse.name,
                "parallel": self.parallel, **({"limits_of_run": self.of_run} if self.of_run else {})}


def parse_sequence(text: str) -> tuple[tuple[str, float], ...]:
    """``value:20,predicate:80`` as (analysis, seconds) pairs."""
    pairs = []
    for item in text.split(","):
        name, sep, seconds = item.strip().partition(":")
        try:
            limit = float(seconds)
        except ValueError:
            limit = -1.0
        if not sep or not name or not limit > 0 or limit == float("inf"):
            raise UserError(f"bad --sequence item {item!r} (expected ANALYSIS:SECONDS, "
                            f"e.g. value:20,predicate:80)")
        if name in ("coveritest", "auto"):
            raise UserError(f"a CoVeriTest sequence cannot contain {name}")
        if name not in STRATEGIES:
            raise UserError(f"unknown analysis {name!r} in --sequence (known: "
                            f"{', '.join(n for n in STRATEGIES if n not in ('coveritest', 'auto'))})")
        pairs.append((name, limit))
    return tuple(pairs)


def paper_pair(pair: str) -> tuple[tuple[str, float], ...]:
    """The paper's value/predicate time pair ``pair``, in seconds of its 900-s run."""
    if pair not in TIME_PAIRS:
        raise UserError(f"unknown time pair {pair!r} (known: {', '.join(TIME_PAIRS)})")
    v, p = TIME_PAIRS[pair]
    return (("value", float(v)), ("predicate", float(p)))


def scaled(sequence: tuple[tuple[str, float], ...], budget: float,
           of_run: float = PAPER_RUN) -> tuple[tuple[str, float], ...]:
    """``sequence``'s time limits, given for a run of ``of_run`` seconds (the paper's
    900), scaled to a run of ``budget`` seconds."""
    return tuple((analysis, seconds * budget / of_run) for analysis, seconds in sequence)


@dataclass
class CoVeriTestState(AnalysisState):
    """The last state of every analysis of the sequence, how its last run stopped and
    the seconds its runs took together, and the round reached."""

    states: list[AnalysisState | None] = field(default_factory=list)
    stopped: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    round: int = 0

    def reported_runs(self, stopped: Stopped, seconds: float) -> list[Run]:
        """The analyses of the sequence, each with its rounds' time and why it could
        do nothing, if it could not (the report's reader learns that Spacer stayed out
        of the program, not just that CoVeriTest ran)."""
        if self.runs or not any(self.states):
            return super().reported_runs(stopped, seconds)
        return [Run(f"{self.analysis}: {s.analysis}", self.stopped[i], round(self.seconds[i], 2), s.why_not)
                for i, s in enumerate(self.states) if s is not None]


class CoVeriTest:
    name = "coveritest"

    def __init__(self, configuration: Configuration, settings: Settings) -> None:
        self.configuration = configuration
        self.analyses: list[Analysis] = [make_analysis(a, settings)
                                         for a, _ in configuration.pairs]

    def run(self, board: Board, job: Job) -> Outcome:
        if self.configuration.parallel:
            return self.run_parallel(board, job)
        return self.interleave(board, job)

    def run_parallel(self, board: Board, job: Job) -> Outcome:
        """The paper's Claim 5: the same analyses at once, one per core, each for the
        whole budget on the shared board (no time limits, no conditions)."""
        state = CoVeriTestState(self.name, states=[None] * len(self.analyses))
        state.runs = run_lanes(board, [Lane([(a, None)], a.name) for a in self.analyses],
                                job.goals, job.budget)
        return finish(board, job, state)

    def interleave(self, board: Board, job: Job) -> Outcome:
        n = len(self.analyses)
        state = job.state if isinstance(job.state, CoVeriTestState) else \
            CoVeriTestState(self.name, states=[None] * n, stopped=[""] * n, seconds=[0.0] * n)
        limits = self.configuration.limits(job.budget.remaining())
        while board.has_open(job.goals) and not job.budget.expired():
            state.round += 1
            for i, analysis in enumerate(self.analyses):
                if not board.has_open(job.goals) or job.budget.expired():
                    break
                started = time.monotonic()
                outcome = analysis.run(Labelled(board, f"round {state.round}"),
                                       self._job(state, i, job, board, limits[i][1]))
                state.seconds[i] += time.monotonic() - started
                state.states[i], state.stopped[i] = outcome.state, outcome.stopped
                if outcome.state.complete:  # its proofs decided every goal it left
                    state.complete = True
                    return Outcome(state, "exhausted")
            # A round the budget or the board ended early ends the loop anyway; after a
            # whole round, state.stopped is how each analysis of the sequence stopped in it.
            if all(s == "exhausted" for s in state.stopped):
                break  # no analysis of the sequence can do more
        return finish(board, job, state)

    def _job(self, state: CoVeriTestState, i: int, job: Job, board: Board, limit: float) -> Job:
        """Alg. 2-3: the start of run ``i`` under the reuse type, for ``limit`` seconds."""
        pairs, reuse = self.configuration.pairs, self.configuration.reuse
        own = state.states[i]
        # the analysis before this one (the last one's, for the first) hands on its condition
        reads = len(pairs) > 1 and pairs[i - 1][0] in reuse.producers
        previous = state.states[i - 1] if reads else None
        takes = reuse.conditioned_own if reads else reuse.own
        kwargs: dict[str, Any] = {}
        if own is not None and takes == "arg":
            kwargs["state"] = own
        elif own is not None and takes == "precision":
            kwargs["precision"] = own.reusable_precision()
        if previous is not None:
            kwargs["condition"] = previous.condition(board)
        return Job(board.open(job.goals), job.budget.child(limit), **kwargs)


def from_settings(settings: Settings) -> CoVeriTest:
    """``settings.extra``: ``sequence`` (text) or ``time_pair`` (scaled to the job's
    budget), and ``reuse``."""
    extra = settings.extra
    reuse, parallel = Reuse.named(extra.get("reuse") or DEFAULT_REUSE), bool(extra.get("parallel"))
    if extra.get("sequence"):
        return CoVeriTest(Configuration(parse_sequence(extra["sequence"]), reuse, parallel), settings)
    return CoVeriTest(Configuration(paper_pair(extra.get("time_pair") or DEFAULT_PAIR), reuse, parallel,
                                    of_run=PAPER_RUN), settings)
