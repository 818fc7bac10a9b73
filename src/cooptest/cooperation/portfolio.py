"""The default run: a cooperative portfolio that spends the whole budget on every core.

Each core runs a *lane*: analyses one after the other, all sharing one goal board
(``core.parallel``), so that easy goals fall to native random testing, hard ones to
guided concolic search, and dead ones to proofs, whichever core finds them. An analysis
that stops early (a concolic execution tree exhausted without a proof, a CEGAR run out of
goals it can refine for) hands its core to the next analysis of its lane, on the goals
still open; every lane ends with random testing, which never stops by itself, so no core
idles before the budget ends or every goal is decided.

The proving lane starts with the call graph (``analyses.callgraph``): in milliseconds it
proves the goals of every function no call reaches, which the analyses after it then
leave alone (on diskperf 94 goals, where BiTe proved 45 in a minute). The field
invariants (``analyses.field_invariants``) come next, as quick: on openssl's state machines they
prove the cases no store names. Then CoVeriTest, whose rounds give Spacer on the
program's Horn clauses (``analyses.chc``, ``CHC_PAIR``) its turn before the value and the
predicate analysis: over the program's registers (what memory holds is unknown to it)
it finds the loop invariants and the summaries of recursive functions that predicate
CEGAR, which unrolls a recursion path by path, does not (``sum(n, m) == n + m`` on
``sum_non_eq``: the task decided in a second, against two goals unknown after a minute);
on a program that calls through pointers it stops at once. Where Spacer finds nothing in
its turn, the ARGs have theirs within seconds, rather than after a share of the lane
Spacer spent alone.

Why this composition (measured, see benchmarks/RESULTS.md, "Portfolio"): random testing
covers most easy goals within seconds at native speed and seeds concolic search with its
tests; on two cores or more its warm-up lasts a tenth of the lane or, beyond that, as
long as it still finds goals (``UntilStuck``; AFL++'s warm-up too, ``--fuzzer afl``);
concolic search (cgs-decisions) has the best coverage of the single analyses; CoVeriTest's
value/predicate interleaving with ARG reuse is the analysis that proves goals infeasible
(and finds the needle-in-a-haystack inputs concolic search misses, such as loop_foo's).
Its proofs on small programs come within seconds; after half the lane, BiTe's backward
reachability takes over, which proves what the forward ARGs do not get to on the NT
drivers: at 60 s, 45 of diskperf's goals (CoVeriTest for the whole lane: 0) and 77 of
kbfiltr-2's (75; cov_f 92.0%), never fewer on kbfiltr-1 and openssl (RESULTS.md, "BiTe
in the proving lane"). On one core the lane interleaves random, concolic and CoVeriTest.

On a large program (more than ``LARGE`` goals: pals_lcr's 13k) CoVeriTest's ARGs do not
get far in a minute and cover little, while concolic search still finds new goals with
every run, as fast as it gets CPU: there concolic search runs as the single strategy
runs it, from the first second, until it is stuck (``UntilStuck``, after half the lane
at least: on pals_lcr.3.1 its first burst of finds is followed by seconds of padding and
symbolic execution of long paths before the next), and then the fuzzer from its
tests (from grep's back-reference input concolic search covers nothing first after
about 25 s of a minute, where AFL++ started from its tests still does; RESULTS.md,
"auto against AFL++"); the other core proves what the call graph and the field
invariants prove (0.8 s on pals_lcr), then runs the fuzzer at the lowest priority
(``Niced``) beside the board and its TestCov-style count; AFL++ there runs without
its CmpLog stage, as AFL++'s guide to several cores runs most instances: concolic
search solves the comparisons, the testing lane's AFL++ keeps the stage, and the
stage's executions go to mutations (grep at 60 s: 1,739.4 goals against 1,723.8).
A second lane of concolic search took CPU from the first (session 7: at 60 s on
pals_lcr.3.1, 75% of the goals against 78% for concolic search alone). Random testing at equal priority cost
concolic search 13-17% of its symbolic executions; niced, it runs mostly on the CPU concolic search
and the board leave idle (8-12%), and covers goals concolic search's paths do not take: at
60 s on pals_lcr.3.1 (idle, three rounds, TestCov-style count) 71.99 against 69.67 at
equal priority and 67.75 with the core left to the board; on pals_lcr.3 65.41 against
65.07, on pals_lcr.8 69.21 against 70.19, within its spread (two rounds; RESULTS.md,
twenty-third session).

The random-testing turns of the lanes may be AFL++'s instead (``--fuzzer afl``,
``analyses.afl``): the same place in each lane, the board's tests as its seeds, its
queue replayed natively. It is the default for a run given ``--seed-suite`` where AFL++
is installed: a mutation fuzzer is as good as the seeds it starts from. From grep's
back-reference input (RESULTS.md, "auto against AFL++") the portfolio with AFL++ covered
41.75% (TestCov-style, five seeds) against 37.49% with random testing, above in every
seed; from no seed it was the other way round (28.86% against 30.98%: from random
patterns concolic search builds the structure AFL++ lacks). Which fuzzer ran, and why
when the user did not say, is recorded in report.json's ``configuration``.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from cooptest.analyses.afl import fuzzer_missing
from cooptest.analyses.chc import FIRST_LIMIT_MS
from cooptest.cooperation.coveritest import (DEFAULT_PAIR, DEFAULT_REUSE, Configuration,
                                             CoVeriTest, Reuse, paper_pair, parse_sequence, scaled)
from cooptest.core.analysis import Analysis, AnalysisState, Job, Outcome, finish
from cooptest.core.board_view import Board
from cooptest.core.parallel import Lane, Niced, UntilStuck, run_lanes, usable_cores
from cooptest.core.registry import Settings, make_analysis

RANDOM_SHARE = 0.1  # of a lane's budget: the native warm-up before concolic search, at least
SEARCH_LEAST = 0.5  # of a large program's testing lane: concolic search's turn, at least
LARGE = 2000  # goals: above, one lane of concolic search
COVERITEST_SHARE = 0.5  # of the proving lane: the rest goes to BiTe
CHC_PAIR = 30.0  # Spacer's seconds per CoVeriTest round, of a 900-s run (as the 20/80 pair)


FUZZERS = ("random", "afl")  # what runs the lanes' random-testing turns (``--fuzzer``)


@dataclass(frozen=True)
class Fuzzing:
    """The fuzzer of the lanes' random-testing turns, as report.json records it."""

    fuzzer: str = "random"
    default_because: str | None = None  # why, where the user did not choose

    def describe(self) -> dict[str, Any]:
        return {"fuzzer": self.fuzzer, **({"fuzzer_default": self.default_because} if self.default_because else {})}


def chosen_fuzzer(settings: Settings) -> Fuzzing:
    """``--fuzzer``, or else AFL++ for a run given seeds (``seeded``) where it is
    installed, or else cooptest's random testing (see the module docstring)."""
    if settings.extra.get("fuzzer"):
        return Fuzzing(settings.extra["fuzzer"])
    if settings.extra.get("seeded") and fuzzer_missing() is None:
        return Fuzzing("afl", "a seed suite, and AFL++ installed")
    return Fuzzing(FUZZERS[0])


def lanes_for(jobs: int, settings: Settings, goals: int, budget: float) -> list[Lane]:
    """The lanes of ``jobs`` cores for a program with ``goals`` goals and a job of
    ``budget`` seconds, to which the CoVeriTest lane's pairs are scaled (see the module
    docstring), whose random-testing turns run ``settings.extra["fuzzer"]``."""
    fuzzer = settings.extra.get("fuzzer") or FUZZERS[0]

    def make(name: str, seed: int = 0, **extra: object) -> Analysis:
        return make_analysis(fuzzer if name == "random" else name,
                             replace(settings, seed=settings.seed + seed, extra={**settings.extra, **extra}))

    def coveritest() -> Analysis:
        """The CoVeriTest lane: Spacer's turn, then the value/predicate pair, unless the
        user gave the lane's ``--sequence`` (then it is the whole sequence); ``--time-pair``
        and ``--reuse`` as ``--strategy coveritest`` takes them."""
        extra = settings.extra
        reuse = Reuse.named(extra.get("reuse") or DEFAULT_REUSE)
        if extra.get("sequence"):
            return CoVeriTest(Configuration(parse_sequence(extra["sequence"]), reuse), settings)
        (chc, turn), *pair = scaled((("chc", CHC_PAIR), *paper_pair(extra.get("time_pair") or DEFAULT_PAIR)),
                                    budget)
        sequence = ((chc, max(turn, FIRST_LIMIT_MS / 1000)), *pair)  # at least one whole query
        return CoVeriTest(Configuration(sequence, reuse), settings)

    if jobs <= 1:
        return [Lane([(make("callgraph"), None), (make("fields"), None),
                      (make("random"), RANDOM_SHARE), (make("concolic"), 0.5), (coveritest(), None),
                      (make("random", 1), None)], "all")]
    if goals > LARGE:
        search = UntilStuck(make("concolic"), SEARCH_LEAST)
        lanes = [Lane([(search, None), (make("random", 1), None)], "testing"),
                 Lane([(make("callgraph"), None), (make("fields"), None),
                       (Niced(make("random", 2, cmplog=False)), None)], "proving")]
    else:
        directed = make_analysis("concolic", replace(settings, search="cfg"))
        warm_up = UntilStuck(make("random"), RANDOM_SHARE)
        lanes = [Lane([(warm_up, None), (make("concolic"), None), (make("random", 1), None)], "testing"),
                 Lane([(make("callgraph"), None), (make("fields"), None),
                       (coveritest(), COVERITEST_SHARE), (make("bite"), None), (directed, None),
                       (make("random", 2), None)], "proving")]
    return lanes + [Lane([(make("random", 3 + k), None)], f"random-{k}") for k in range(jobs - 2)]


class Portfolio:
    name = "auto"

    def __init__(self, settings: Settings) -> None:
        self.jobs = int(settings.extra.get("jobs") or len(usable_cores()))
        self.configuration = chosen_fuzzer(settings)
        self.settings = replace(settings, extra={**settings.extra, "fuzzer": self.configuration.fuzzer})
        if self.configuration.fuzzer == "afl":  # refused now if AFL++ is missing
            make_analysis("afl", settings)
        if settings.extra.get("sequence"):  # refused now, not once a lane builds it
            parse_sequence(settings.extra["sequence"])

    def run(self, board: Board, job: Job) -> Outcome:
        state = AnalysisState(self.name)
        lanes = lanes_for(self.jobs, self.settings, len(board.goals), job.budget.remaining())
        state.runs = run_lanes(board, lanes, job.goals, job.budget)
        return finish(board, job, state)


def from_settings(settings: Settings) -> Portfolio:
    return Portfolio(settings)
