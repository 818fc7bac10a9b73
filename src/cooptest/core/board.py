"""The goal board: the one channel through which results leave an analysis.

Every goal of the program is *open*, *covered* (by a named test) or *infeasible* (by a
named proof). There are exactly two ways to change that, and both are here:

- :meth:`GoalBoard.submit` runs a test natively on the instrumented build; the goals
  its trace passes through are covered, once a second run of the same test (the
  *confirmation*) passes through them too. Symbolic models never cover anything.
- :meth:`GoalBoard.prove_infeasible` records a proof. A proof about a goal that a test
  reaches is a soundness bug of the prover (or of cooptest's model of C), whichever of
  the two arrived first: the native run is the authority, so the claim is withdrawn
  (the goal is covered by the test) and the board keeps a :class:`Contradiction`
  naming the prover, its proof and the test, which the report shows as a defect of
  cooptest. The run goes on: a wrong claim of one prover costs that goal, not the
  suite the other analyses found (it used to raise, and end the run with exit 3).

A program that reads indeterminate memory (``alloca``'d bytes, an uninitialised local) or
branches on an address takes other paths from run to run, with the same inputs: atol's
tests reached 4 of their 11 goals in some of ten runs only. "Covered by test T" must
hold when the engineer runs T again, so a goal a run reaches first is credited only if
the confirmation reaches it as well; one it does not stays open, *unconfirmed*, with
the test kept (TestCov's run may reach it). A goal a test reaches with probability q
per run passes a confirmation with probability q, and the analyses try again and again:
once a goal has been seen unconfirmed, ``FLAKY_CONFIRMATIONS`` runs must all reach it
(q^4). The check catches flaky coverage; it cannot prove a path stable. A confirmation
costs a native run per test that reaches a goal first (2% of atol's runs at 60 s, but
a third of pals_lcr's, where almost every concolic iteration does), so programs whose
path is a function of their inputs alone (``cfa.determinism``: 72 of the 190 dev tasks,
pals_lcr among them) get none.

Analyses return only their state and why they stopped (``core.analysis``); whatever
they found is already on the board. The suite the kept tests go to, the counts and
the listeners that hear of every change (report, progress display) are the run's
(``core.run_context``); the suite's reduction at the end is ``core.reduction``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from cooptest.cfa.determinism import variation_source
from cooptest.cfa.ir import Goal, Program
from cooptest.harness.crash import Crash
from cooptest.harness.executor import ENDED, Execution, Executor, failure
from cooptest.core.board_events import BoardEvent, Covered, Infeasible, Kept, Refuted, Tick
from cooptest.core.run_context import RunContext
from cooptest.harness.testsuite import TestCase

FLAKY_CONFIRMATIONS = 4  # runs that confirm a goal some test reached unconfirmed before
# A kept test's prefix is run (``_trim``) when the test holds at least UNREAD inputs its
# run did not read, and its run took at most QUICK seconds or prefix runs have taken at
# most TRIM_SHARE of the board's time.
UNREAD = 64
QUICK = 0.05
TRIM_SHARE = 0.05

PROOF_CHARS = 4_000
"""A proof's text beyond this is left out (``evidence``): it is read by people, and it travels
from the lanes' workers to the report, where a 133-MB one once made a run stop for memory."""


def prover_of(proof: str, origin: str | None) -> str:
    """Who claims ``proof``: ``origin`` where the claim names it, else the proof's first
    word (a proof reads ``value: ...``, ``chc: ...``)."""
    return origin or proof.split(":", 1)[0]


def evidence(proof: str) -> str:
    """``proof`` as the board keeps it: its first ``PROOF_CHARS`` characters."""
    if len(proof) <= PROOF_CHARS:
        return proof
    return f"{proof[:PROOF_CHARS]}... ({len(proof) - PROOF_CHARS:,} more characters)"


@dataclass
class TestRecord:
    """A test the suite holds: who produced it, the goals it covered first, all goals
    its native run covers (confirmed), and those its confirmation did not reach."""

    __test__ = False  # not a pytest class despite its name

    test: TestCase
    origin: str
    first: frozenset[str]
    covers: frozenset[str]
    unconfirmed: frozenset[str] = frozenset()
    crash: Crash | None = None  # the signal its run died of, and the program's line of the fault


@dataclass
class Contradiction:
    """A claim of infeasibility that a native run refuted: ``prover`` (the analysis and
    round that claimed it) proved ``goal`` infeasible with ``proof``, and the run of
    ``test`` reaches it. ``first`` says which came first ("proof": the claim withdrawn
    when the test arrived; "test": the proof refused when it arrived); ``at`` is when
    the board saw the contradiction, in seconds of the run."""

    goal: str
    prover: str
    proof: str
    test: str
    first: str
    at: float


@dataclass
class GoalBoard:
    """The CFA's goals, their status, the tests that decided them and the native
    executor they run on."""

    program: Program
    executor: Executor
    run: RunContext = field(default_factory=RunContext)  # the driver's: suite, counts, listeners
    goals: dict[str, Goal] = field(init=False)
    variation: str | None = field(init=False)  # why two runs of one test may differ
    covered: dict[str, str] = field(default_factory=dict)  # goal -> name of its test
    infeasible: dict[str, str] = field(default_factory=dict)  # goal -> proof
    refused: dict[str, str] = field(default_factory=dict)  # goal -> why no proof is trusted
    # overflow site (``proof_blockers.site_key``) -> the proof that no run of the CFA overflows there
    no_overflow: dict[str, str] = field(default_factory=dict)
    unconfirmed: dict[str, str] = field(default_factory=dict)  # open goal -> test reaching it once
    # goal -> analysis -> why it left the goal open, and whether that is all it can say
    # (``give_up``): what report.json's ``why_open`` lists of an open goal
    gave_up: dict[str, dict[str, tuple[str, bool]]] = field(default_factory=dict)
    origin: dict[str, str] = field(default_factory=dict)  # goal -> analysis that decided it
    records: list[TestRecord] = field(default_factory=list)
    contradictions: list[Contradiction] = field(default_factory=list)  # refuted claims
    executions: int = 0
    trimming: float = 0.0  # seconds of the runs of kept tests' prefixes (``_trim``)
    born: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.goals = {g.id: g for g in self.program.goals()}
        self.variation = variation_source(self.program)  # None: runs need no confirmation

    @property
    def tests(self) -> list[TestCase]:
        return [r.test for r in self.records]

    def open(self, among: Iterable[str] | None = None) -> frozenset[str]:
        """The goals neither covered nor proven infeasible (of ``among``, if given)."""
        return frozenset(self._open_of(self.goals.keys() if among is None else among))

    def is_open(self, goal: str) -> bool:
        return self.has_open((goal,))

    def has_open(self, among: Iterable[str] | None = None) -> bool:
        """Whether any goal (of ``among``) is open: the test of every analysis' loop,
        which must not build the set of open goals on each turn (3 ms on pals_lcr's 13k
        goals, 40% of its concolic search, whose loop turns once per query)."""
        if among is None:
            return not self.decided()
        return next(self._open_of(among), None) is not None

    def _open_of(self, pool: Iterable[str]) -> Iterator[str]:
        goals, covered, infeasible = self.goals, self.covered, self.infeasible
        return (g for g in pool if g in goals and g not in covered and g not in infeasible)

    def decided(self) -> bool:
        return len(self.covered) + len(self.infeasible) >= len(self.goals)

    @property
    def stats(self) -> dict[str, int]:
        return self.run.stats

    def count(self, stat: str, n: int = 1) -> None:
        self.run.count(stat, n)

    def set_stat(self, stat: str, value: int) -> None:
        self.run.set_stat(stat, value)

    def notify(self, event: BoardEvent) -> None:
        for listener in self.run.listeners:
            listener(self, event)

    def submit(self, inputs: list[str], origin: str) -> Execution:
        """Run ``inputs`` natively; goals its trace passes through are covered (if its
        confirmation passes through them too, see the module docstring).

        The test joins the suite when it reaches a goal no earlier test covered;
        ``Execution.new`` tells which goals it covers first."""
        return self._run(inputs, origin, always=False)

    def keep(self, inputs: list[str], origin: str) -> Execution:
        """Run ``inputs`` natively and keep the test even if it covers no goal first:
        the live meter found it covers goals of TestCov's build the suite does not
        (``core.live_coverage``)."""
        return self._run(inputs, origin, always=True)

    def _run(self, inputs: list[str], origin: str, always: bool) -> Execution:
        ex = self._native(inputs)
        if not ex.stopped:  # how the program's runs end, so that a run where every test fails says so
            self.count(ENDED + (failure(ex) or "normally"))
        confirmations = 0
        # where runs cannot vary, no set difference here: accept makes its own
        if self.variation is not None and (fresh := ex.covered - self.covered.keys()):
            confirmations = FLAKY_CONFIRMATIONS if fresh & self.unconfirmed.keys() else 1
        for _ in range(confirmations):
            again = self._native(inputs)
            self.count("confirmations")
            if not again.timed_out:  # a run the clock stopped says nothing about the path
                ex.unconfirmed |= ex.covered - again.covered
        self._trim(inputs, ex, always)
        ex.new = set(self.accept(inputs, origin, ex, always))
        self.notify(Tick())
        return ex

    def _trim(self, inputs: list[str], ex: Execution, always: bool) -> None:
        """Set ``ex.needed`` to the inputs the run read, when a run of just those ends
        as ``ex`` did: a random test drawn with 4,096 inputs, or padded to 2^19, may
        read a dozen. The run of the prefix decides, not the count alone: a program may
        read standard input itself, or vary from run to run. Each prefix run costs as
        much as the run again: a test is shortened only where that saves many inputs (not the
        one a padding overshot by: on pals_lcr, 360 prefix runs to save 2,700 inputs
        cost a fifth of concolic search), and a slow program's within a share of the
        time."""
        n = ex.inputs_read
        if n is None or len(inputs) - n < UNREAD:
            return  # first: the goals a run covers are thousands on pals_lcr
        if not always and not ex.covered - self.covered.keys():
            return  # the test is not kept
        if ex.seconds > QUICK and self.trimming > TRIM_SHARE * (time.monotonic() - self.born):
            return
        short = self._native(inputs[:n])
        self.trimming += short.seconds
        self.count("prefix_runs")
        if (short.covered, short.error_reached, short.exit_code, short.signal) == \
                (ex.covered, ex.error_reached, ex.exit_code, ex.signal):
            ex.needed = n
            self.count("trimmed_tests")

    def _native(self, inputs: list[str]) -> Execution:
        ex = self.executor.run(inputs)
        self.executions += 1
        if ex.timed_out and not ex.stopped:  # each costs the executor's time limit, and covers nothing
            self.count("timeouts")
        return ex

    def accept(self, inputs: list[str], origin: str, ex: Execution,
               always: bool = False) -> frozenset[str]:
        """Record the native run ``ex`` of ``inputs`` (here, or in a worker process):
        the goals it covers first (confirmed), and the test if it reaches any goal first
        (or ``always``)."""
        reached = frozenset(ex.covered - self.covered.keys())
        new = reached - ex.unconfirmed
        if not reached and not always:
            return new
        test = TestCase(list(inputs[:ex.needed]), covers_error=ex.error_reached)
        test.name = self.run.suite.add(test) if self.run.suite is not None else f"test{len(self.records)}"
        self.records.append(TestRecord(test, origin, new, frozenset(ex.covered - ex.unconfirmed),
                                       frozenset(ex.covered & ex.unconfirmed),
                                       ex.crash if not ex.error_reached else None))
        for g in sorted(reached & self.infeasible.keys()):  # never for a sound prover
            self._contradicted(g, self.origin.pop(g, ""), self.infeasible.pop(g), test.name,
                               first="proof")
        for g in sorted(reached - new):
            self.unconfirmed.setdefault(g, test.name)
        if not new:
            self.notify(Kept(origin, test.name))
            return new
        for g in sorted(new):
            self.unconfirmed.pop(g, None)
            self.covered[g] = test.name
            self.origin[g] = origin
        self.notify(Covered(frozenset(new), origin, test.name))
        return new

    def give_up(self, goals: Iterable[str], analysis: str, why: str, general: bool = False) -> None:
        """Record why ``analysis`` leaves ``goals`` open (the result channel of what an
        analysis could not do, as ``prove_infeasible`` is of what it did): a construct it
        does not model that blocked its proof, its solver answering "unknown" at its own
        limit, its refinement giving up. ``general``: what the analysis's run as a whole
        says of every goal it left open (its time ran out, it explored all it can, the
        program is outside its fragment; ``core.analysis.finish``), which never replaces
        what it said of a goal in particular, and is replaced by what its next run says:
        a note a deadline caused is never final. Notes of goals decided since are not
        shown (report.json shows them of open goals only)."""
        for g in goals:
            if g not in self.goals:
                continue
            notes = self.gave_up.setdefault(g, {})
            earlier = notes.get(analysis)
            if general and earlier is not None and not earlier[1]:
                continue
            notes[analysis] = (why, general)

    def prove_infeasible(self, goal: str, proof: str, origin: str | None = None,
                         reads: frozenset[str] | None = None) -> bool:
        """Record ``proof`` that no execution reaches ``goal``; ``origin`` names the
        analysis (and round) when ``proof`` does not start with it; ``reads``: the
        overflow sites its argument reads, where the prover knows them
        (``ProofBlockers.reason``). Refused (False) where the program does what the CFA
        does not model (``cfa.proof_blockers``): every prover passes here, so no prover can
        be unsound there."""
        if goal not in self.goals:
            return False
        proof = evidence(proof)
        if (refused := self.program.proof_blockers.reason(self.goals[goal], self.no_overflow.keys(),
                                                          reads)) is not None:
            self.refused[goal] = refused
            self.give_up((goal,), prover_of(proof, origin), f"its proof was refused: {refused}")
            return False
        prover = prover_of(proof, origin)
        if (test := self.covered.get(goal) or self.unconfirmed.get(goal)) is not None:
            self._contradicted(goal, prover, proof, test, first="test")
            return False
        if goal not in self.infeasible:
            self.infeasible[goal] = proof
            self.origin[goal] = prover
            self.notify(Infeasible(frozenset({goal}), prover))
        return True

    def prove_no_overflow(self, site: str, proof: str) -> bool:
        """Record ``proof`` that no run of the CFA overflows at the overflow site ``site``:
        proofs of the goals behind it are trusted once every site before them has one
        (``ProofBlockers.reason``). A goal refused before is open to its prover again.
        False if the board knew it already (or no such site)."""
        if site not in self.program.proof_blockers.overflow_sites or site in self.no_overflow:
            return False
        self.no_overflow[site] = proof
        for goal in [g for g in self.refused
                     if self.program.proof_blockers.reason(self.goals[g], self.no_overflow.keys()) is None]:
            del self.refused[goal]
        return True

    def _contradicted(self, goal: str, prover: str, proof: str, test: str, first: str) -> None:
        """Record that ``test`` reaches ``goal``, which ``prover`` claimed infeasible with
        ``proof`` (once per goal and proof: a prover may claim a goal again, in a later
        round or a worker that has not heard of the test yet)."""
        if any(c.goal == goal and c.proof == proof for c in self.contradictions):
            return
        c = Contradiction(goal, prover, proof, test, first, round(time.monotonic() - self.born, 3))
        self.contradictions.append(c)
        self.notify(Refuted(c))
