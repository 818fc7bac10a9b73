"""``report.json``: the status of every goal (covered by which test, infeasible by which
proof, or unknown) and a summary, kept valid on disk throughout a run.

The report listens to the :class:`GoalBoard`; it is rewritten when a test joins the
suite, at least every ``min_interval`` seconds, and once more at the end, so that a run
killed at any moment leaves a report that agrees with the suite written so far.
Rewriting never takes more than ``WRITE_SHARE`` of the run: the report of a program with
13k goals takes 0.15 s to write, which after every new test took a third of the parent's
time. The suite is published with the report (``report.publication``, not after every
test), holding the tests the report lists: after a SIGKILL the two agree (a report that
lagged the suite by seconds listed 40 tests where the zip held 41). Where the report is
cheap, both follow every new test at once; on a program with 13k goals, a few seconds
behind, and a test waiting is published at the next ``Tick`` the share allows, whatever
else happens (the end of a run, also one stopped by a signal, writes the last one).

A claim of infeasibility a test refuted (``core.board.Contradiction``) is a defect of
cooptest, not of the program: the goal is reported covered, with the refuted claim in
its ``contradicted`` field, and ``contradictions`` (top level; a count in the summary)
lists every one with the prover, its proof and the test that reaches the goal, so that
a user can replay the test and a developer can find the prover's mistake.
"""
from __future__ import annotations

import json
import os
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from cooptest.cfa.calls import first_decision
from cooptest.cfa.ir import Goal
from cooptest.core.analysis import Run
from cooptest.core.board import GoalBoard
from cooptest.core.board_events import BoardEvent, Covered, Iteration, Tick
from cooptest.core.parallel import LaneRecords
from cooptest.harness.executor import AT, ENDED, NO_GOAL
from cooptest.report.files import short_names
from cooptest.report.publication import Publication

WRITE_SHARE = 0.05  # of the run's time, at most, spent rewriting report.json


def coverage_percent(covered: int, goals: int) -> float:
    """``covered/goals`` in percent; 100 without goals (nothing left to cover)."""
    return round(100.0 * covered / goals, 2) if goals else 100.0


def per_function(goals: list[dict[str, Any]], functions: list[str]) -> dict[str, dict[str, Any]]:
    """The goals of each tested function (its own, not those of what it calls) and how
    many are decided: a library's report function by function."""
    out = {}
    for name in functions:
        mine = [g["status"] for g in goals if g["function"] == name]
        covered, infeasible = mine.count("covered"), mine.count("infeasible")
        out[name] = {"goals": len(mine), "covered": covered, "infeasible": infeasible,
                     "unknown": len(mine) - covered - infeasible,
                     "cov_f": coverage_percent(covered, len(mine) - infeasible)}
    return out


def every_run_failed(endings: dict[str, int], goals: dict[str, Goal],
                     first: tuple[str, int] | None = None,
                     names: dict[str, str] | None = None) -> str | None:
    """What to say of a run none of whose tests ended normally, from the counts of how
    they ended (``harness.executor.failure``, with ``normally`` for the others): how
    many crashed, timed out or exited before any goal. A crash names the program's line
    of the fault (``harness.crash``): kbfiltr-1's 1,278 runs all crashed, and the run said
    only "0 tests"; where every run crashed at one line, that line is all there is to
    say: "every test crashes at prog.c:12 (SIGSEGV, 1278 runs)". A crash whose line is
    not known names the goal its runs reached last (most often), where to look; a run
    that ended before any goal ended before ``first`` (``cfa.calls.first_decision``): on
    the code every run takes from main's entry to that line, where to look then. Files
    are named as ``names`` names them (``report.files.short_names``), else by their base
    name. None if a test ended normally (or none ran)."""
    runs = sum(endings.values())
    if not runs or endings.get("normally") or not goals:
        return None

    def name(path: str) -> str:
        return (names or {}).get(os.path.normpath(path)) or os.path.basename(path)

    crashes: Counter[tuple[str, str]] = Counter()  # (signal, file:line) -> runs
    kinds: Counter[str] = Counter()
    last: dict[str, Counter[str]] = {}
    for how, n in endings.items():
        killed, at, where = how.partition(" " + AT)
        if at and killed.startswith("killed by "):
            file, _, line = where.rpartition(":")
            crashes[killed.removeprefix("killed by "), f"{name(file)}:{line}"] += n
            continue
        kind, _, goal = how.partition(" after ")
        kinds[kind] += n
        if goal:
            last.setdefault(kind, Counter())[goal] += n
    if len(crashes) == 1 and not kinds:
        (sig, where), n = crashes.most_common(1)[0]
        return f"every test crashes at {where} ({sig}, {n} run{'' if n == 1 else 's'})"
    parts = [(n, f"{n} crashed at {where} ({sig})") for (sig, where), n in crashes.items()]
    for kind, n in kinds.items():
        if kind not in last:
            before = f" (on the way from main to {name(first[0])}:{first[1]})" \
                if first is not None and kind.endswith(NO_GOAL) else ""
            parts.append((n, f"{n} {kind}{before}"))
            continue
        goal, m = last[kind].most_common(1)[0]
        g = goals.get(goal)
        where = "" if g is None else \
            f" ({name(g.file)}:{g.line}{', ' + g.condition if g.condition else ''})"
        parts.append((n, f"{n} {kind} after goal {goal}{where}" + (f" ({m} of them)" if m < n else "")))
    parts.sort(key=lambda p: -p[0])  # stable: crashes first among equals
    return f"every test run failed: {', '.join(text for _, text in parts)}"


def why_open(goal: Goal, board: GoalBoard) -> dict[str, Any]:
    """Why an open goal is open: ``reached``, what the tests did (no test reached its
    condition, or reached it with the other outcome only: any run that evaluates a
    condition covers one of its outcomes; a test that reached it once, not when run
    again), and ``gave_up``, each analysis that worked on it and why it left it open
    (``GoalBoard.give_up``: outside its fragment, a proof refused where the program does
    what the CFA does not model, its solver's "unknown" at its limit, its time ran out,
    it explored all it can)."""
    if goal.kind == "branch" and goal.id[-1:] in ("T", "F"):
        other = board.covered.get(goal.id[:-1] + ("F" if goal.id.endswith("T") else "T"))
        reached = (f"the condition is reached ({other}), only with the other outcome" if other
                   else "no test reached the condition")
    else:
        reached = "no test reached this call"
    if goal.id in board.unconfirmed:
        reached += (f"; {board.unconfirmed[goal.id]} reached it once, and not when run again "
                    "(the program's runs vary)")
    notes = board.gave_up.get(goal.id, {})
    return {"reached": reached, "gave_up": {a: why for a, (why, _) in sorted(notes.items())}}


def write_json_atomically(path: str, doc: Any) -> None:
    """``doc`` to ``path`` through a temporary file."""
    fd, tmp = tempfile.mkstemp(prefix=".report-", suffix=".json", dir=os.path.dirname(path))
    try:
        os.fchmod(fd, 0o644)  # as the suite and report.html: mkstemp's 0600 hid it from others
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f, indent=1)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


@dataclass
class Report:
    """Listener of a GoalBoard that owns ``DIR/report.json``."""

    path: str
    program_path: str
    data_model: str
    strategy: str
    search: str | None = None  # the concolic search strategy, if any
    configuration: Any = None  # a cooperation's configuration (``describe()``), if any
    inputs: dict[str, Any] | None = None  # the environment model's inputs (``Environment``), if any
    harness: dict[str, Any] | None = None  # the harness cooptest wrote (``Harness.describe``), if any
    # the sources read that no option made inputs (``cfa.concrete_inputs``): one value each run
    left_concrete: list[dict[str, str]] = field(default_factory=list)
    min_interval: float = 1.0
    started: float = field(default_factory=time.monotonic)
    timeline: list[tuple[float, int, int]] = field(default_factory=list)  # (s, covered, infeasible)
    # (iterations, covered) at each concolic iteration that covered more: coverage per
    # iteration count, as the concolic papers' tables give it (CREST's ``run_crest P N``)
    by_iteration: list[tuple[int, int]] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)  # applied options, beside ``configuration``
    extra: dict[str, Any] = field(default_factory=dict)  # summary entries added at the end
    analyses: list[Run] = field(default_factory=list)  # set when the analysis returns, or ``stopped_by``
    lanes: LaneRecords = field(default_factory=LaneRecords)  # what the lanes ran and run, as told
    publication: Publication | None = None  # the suite's and the report's, where a run has a suite
    _written: float = 0.0
    _cost: float = 0.0  # seconds the last write took

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def __call__(self, board: GoalBoard, event: BoardEvent) -> None:
        """The listener: record the timeline, rewrite the file (and publish the suite with
        it) if it is due; at a ``Tick`` (time passed, nothing changed), only if tests wait
        to be published."""
        self.lanes(board, event)
        waiting = board.run.suite is not None and board.run.suite.unpublished
        if isinstance(event, Tick) and not waiting:
            return
        if not isinstance(event, Tick):
            self.timeline.append((round(self.elapsed(), 3), len(board.covered), len(board.infeasible)))
        if isinstance(event, Iteration) and (not self.by_iteration or self.by_iteration[-1][1] < len(board.covered)):
            self.by_iteration.append((event.iterations, len(board.covered)))
        since = time.monotonic() - self._written
        if since * WRITE_SHARE >= self._cost and (isinstance(event, Covered) or waiting or
                                                  since >= self.min_interval):
            self.write(board)

    def stopped_by(self, why: str) -> None:
        """``analyses`` of a run a signal (``why``) stopped before its analysis returned:
        the lanes' runs that had ended and those it stopped, or else the analysis the
        user chose, as far as it got."""
        if self.analyses:
            return
        ran = self.lanes.runs() + [s.ended(why) for s in self.lanes.running.values()]
        self.analyses = ran or [Run(self.strategy, why, round(self.elapsed(), 2))]

    def document(self, board: GoalBoard) -> dict[str, Any]:
        contradictions = [asdict(c) for c in board.contradictions]
        refuted = {c["goal"]: {k: c[k] for k in ("prover", "proof", "test")} for c in contradictions}
        goals = []
        for goal in board.goals.values():
            status = ("covered" if goal.id in board.covered
                      else "infeasible" if goal.id in board.infeasible else "unknown")
            goals.append({"id": goal.id, "kind": goal.kind, "file": goal.file, "line": goal.line,
                          "function": goal.function,
                          **({"condition": goal.condition} if goal.condition else {}), "status": status,
                          "test": board.covered.get(goal.id), "proof": board.infeasible.get(goal.id),
                          "origin": board.origin.get(goal.id),
                          **({"contradicted": refuted[goal.id]} if goal.id in refuted else {}),
                          **{key: why[goal.id] for key, why in (("refused", board.refused),
                                                                ("unconfirmed", board.unconfirmed))
                             if status == "unknown" and goal.id in why},
                          **({"why_open": why_open(goal, board)} if status == "unknown" else {})})
        n, covered, infeasible = len(goals), len(board.covered), len(board.infeasible)
        stats = {k: v for k, v in board.stats.items() if not k.startswith(ENDED)}
        endings = {k[len(ENDED):]: v for k, v in board.stats.items() if k.startswith(ENDED)}
        names = short_names([*board.program.files, *(g.file for g in board.goals.values() if g.file)])
        failed = every_run_failed(endings, board.goals, first_decision(board.program), names) \
            if endings and not endings.get("normally") else None
        configuration = self.applied()
        summary = {
            "goals": n, "covered": covered, "infeasible": infeasible,
            "unknown": n - covered - infeasible, "unconfirmed": len(board.unconfirmed),
            "cov_b": coverage_percent(covered, n),
            "cov_f": coverage_percent(covered, n - infeasible),
            "tests": len(board.tests), "time_s": round(self.elapsed(), 2),
            "executions": board.executions, "iterations": 0, "divergences": 0,
            "runs_may_vary": board.variation, "contradictions": len(contradictions),
            **dict(sorted(stats.items())),
            **({"every_run_failed": failed} if failed else {}),
            **self.extra,
        }
        return {"program": self.program_path, "files": board.program.files,
                "data_model": self.data_model,
                "strategy": self.strategy, **({"search": self.search} if self.search else {}),
                **({"configuration": configuration} if configuration else {}),
                **({"inputs": self.inputs} if self.inputs else {}),
                **({"left_concrete": self.left_concrete} if self.left_concrete else {}),
                **({"harness": self.harness, "functions": per_function(goals, self.harness["functions"])}
                   if self.harness else {}),
                "goals": goals, "summary": summary, "contradictions": contradictions,
                # the proofs that no run overflows where gcc folds, which the proofs of
                # the goals behind them rest on (``cfa.proof_blockers.overflow_folded``)
                **({"no_overflow": [{"site": site, "line": board.program.proof_blockers.overflow_sites[site].line,
                                     "proof": proof} for site, proof in sorted(board.no_overflow.items())]}
                   if board.no_overflow else {}),
                "tests": [{"name": r.test.name, "origin": r.origin,
                           **({"crash": r.crash.document(names)} if r.crash is not None else {})}
                          for r in board.records],
                **({"run_endings": dict(sorted(endings.items(), key=lambda e: -e[1]))}
                   if set(endings) - {"normally"} else {}),
                "analyses": [{k: v for k, v in asdict(r).items() if v is not None} for r in self.analyses],
                "timeline": [list(t) for t in self.timeline],
                **({"coverage_by_iteration": [list(t) for t in self.by_iteration]}
                   if self.by_iteration else {})}

    def applied(self) -> dict[str, Any]:
        """What report.json's ``configuration`` records: the cooperation's and the options."""
        return {**(self.configuration.describe() if self.configuration else {}), **self.options}

    def write_unparsed(self, why: str) -> dict[str, Any]:
        """The report of a run stopped before its program was analysed: no goals known,
        the options it was to apply recorded."""
        configuration = self.applied()
        doc = {"program": self.program_path, "data_model": self.data_model,
               "strategy": self.strategy, **({"search": self.search} if self.search else {}),
               **({"configuration": configuration} if configuration else {}),
               "goals": [], "summary": {"goals": 0, "covered": 0, "infeasible": 0, "unknown": 0,
                                        "cov_b": 0.0, "cov_f": 0.0, "tests": 0,
                                        "time_s": round(self.elapsed(), 2), "executions": 0,
                                        "stopped": why, "analysed": False},
               "timeline": []}
        write_json_atomically(self.path, doc)
        return doc

    def write(self, board: GoalBoard) -> dict[str, Any]:
        """Write the report, published with the suite (``board.run.suite``) holding
        exactly the tests it lists (``report.publication``)."""
        started = time.monotonic()
        doc = self.document(board)
        suite = board.run.suite
        if suite is None or self.publication is None:
            write_json_atomically(self.path, doc)
        else:
            self.publication.publish(doc, suite, [t.name for t in board.tests])
        self._written = time.monotonic()
        self._cost = self._written - started
        return doc
