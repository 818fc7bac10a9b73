"""What a generation run shows while it works: a live panel on a terminal, one summary
line otherwise (``--quiet``, or stderr redirected to a file or a pipe)."""
from __future__ import annotations

import os
import sys
import time
from typing import Any

from rich.console import Console
from rich.live import Live
from rich.table import Table
from rich.text import Text

from cooptest.core.board import GoalBoard
from cooptest.core.board_events import BoardEvent, Covered, Infeasible
from cooptest.core.parallel import LaneRecords
from cooptest.report.definitions import COV_B, COV_F, GOAL, TESTCOV_SHORT


SPARK = "▁▂▃▄▅▆▇█"


def sparkline(points: list[tuple[float, int]], until: float, total: int, width: int = 32) -> str:
    """Goals covered over time as a row of block characters, one per time slice."""
    if not total or until <= 0:
        return ""
    out, i, covered = [], 0, 0
    for k in range(1, width + 1):
        while i < len(points) and points[i][0] <= until * k / width:
            covered = points[i][1]
            i += 1
        out.append(SPARK[min(len(SPARK) - 1, covered * len(SPARK) // (total + 1))])
    return "".join(out)


def error_found(doc: dict[str, Any], out: str) -> str:
    """What the summary line says of a reachable error: the test that reaches it, and
    where the suite and the report are (empty if no test reaches an error call). A
    found bug is the run's most important result; it was said nowhere but report.json.
    Tests of the suite whose runs crash are named too, with the line of the crash
    (where every run crashed, the summary's ``every_run_failed`` says so instead); not
    those that end in abort() (SIGABRT): in a Test-Comp program, mostly an assumption
    that does not hold (``assume_abort_if_not``). report.json and report.html list them."""
    reached = [g for g in doc["goals"] if g["kind"] == "error-call" and g["status"] == "covered"]
    crashed = [t for t in doc.get("tests") or [] if t.get("crash") and t["crash"]["signal"] != "SIGABRT"]
    parts = []
    if crashed and not doc["summary"].get("every_run_failed"):
        first = crashed[0]
        where = f" at {first['crash']['at']}" if first["crash"].get("at") else ""
        more = f" (and {len(crashed) - 1} more)" if len(crashed) > 1 else ""
        parts.append(f"{len(crashed)} test{'s crash' if len(crashed) > 1 else ' crashes'}: "
                     f"{first['name']}{where} ({first['crash']['signal']}){more}")
    if reached:
        first = reached[0]
        more = f" (and {len(reached) - 1} more calls)" if len(reached) > 1 else ""
        parts.append(f"the error is reachable: {first['test']} reaches reach_error() at line "
                     f"{first['line']}{more}")
    if not parts:
        return ""
    return "; ".join(parts) + \
        f"; suite {os.path.join(out, 'test-suite.zip')}, report {os.path.join(out, 'report.html')}"


def summary_line(name: str, summary: dict[str, Any], found: str = "") -> str:
    """One line; ``found``, what :func:`error_found` says, follows the figures; claims
    of infeasibility a test refuted are named last, as a defect of cooptest the user
    should know of (and report), not a property of the program."""
    refuted = summary.get("contradictions", 0)
    testcov = summary.get("coverage_testcov_style")
    if summary.get("analysed") is False:  # "0/0 goals" would read as a program without any
        return f"{name}: {summary['stopped']}: no goals counted, 0 tests, {summary['time_s']:.1f}s"
    return (f"{name}: {summary['covered']}/{summary['goals']} goals covered, "
            f"{summary['infeasible']} infeasible, {summary['unknown']} open ({GOAL}); "
            f"cov_b {summary['cov_b']:.1f}% = {COV_B}, cov_f {summary['cov_f']:.1f}% = {COV_F}"
            + (f", TestCov-style {testcov:.1f}% {TESTCOV_SHORT}" if testcov is not None else
               f", no TestCov-style count: {summary['coverage_testcov_style_missing']}"
               if summary.get("coverage_testcov_style_missing") else "")
            + f"; {summary['tests']} tests, {summary['time_s']:.1f}s"
            + (f"; {summary['every_run_failed']}" if summary.get("every_run_failed") else "")
            + (f"; {found}" if found else "")
            + (f"; cooptest defect: {refuted} infeasibility claim{'s' if refuted > 1 else ''} "
               "refuted by a test (see contradictions in report.json)" if refuted else ""))


class ProgressPanel:
    """A rich renderable read by Live's refresh thread: a snapshot of the counters.

    It listens to the board: goal changes feed the sparkline; ``lanes`` (the report's
    records of the lanes) tells which analysis runs on which core."""

    def __init__(self, board: GoalBoard, name: str, strategy: str, budget: float,
                 lanes: LaneRecords | None = None) -> None:
        self.board = board
        self.lanes = lanes or LaneRecords()
        self.title = f"cooptest · {name} · {strategy}"
        self.strategy = strategy
        self.budget = budget
        self.started = time.monotonic()
        self.last_change = 0.0
        self.points: list[tuple[float, int]] = []  # (seconds, goals covered)

    def __call__(self, board: GoalBoard, event: BoardEvent) -> None:
        if not isinstance(event, Covered | Infeasible):
            return
        now = time.monotonic() - self.started
        self.last_change = now
        self.points.append((now, len(board.covered)))

    def __rich__(self) -> Table:
        board = self.board
        stats = dict(board.stats)  # copy: the analysis thread may add counters meanwhile
        n = len(board.goals)
        covered, infeasible = len(board.covered), len(board.infeasible)
        elapsed = time.monotonic() - self.started
        table = Table(title=self.title, show_header=False, box=None, title_justify="left")
        table.add_column(style="bold")
        table.add_column()
        pct = 100.0 * covered / n if n else 100.0
        table.add_row("goals", Text.assemble(
            goal_bar(covered, infeasible, n), "  ", (f"{covered} covered", "green"), " · ",
            (f"{infeasible} infeasible", "blue"), " · ",
            (f"{n - covered - infeasible} open", "red"), f" of {n} ({pct:.1f}%)"))
        table.add_row("over time", sparkline(list(self.points), elapsed, n))
        if refuted := len(board.contradictions):
            table.add_row("defects", Text(f"{refuted} infeasibility claim{'s' if refuted > 1 else ''} "
                                          "refuted by a test (cooptest's mistake, goal covered)",
                                          style="bold red"))
        table.add_row("tests", f"{len(board.tests)}   executions {board.executions}   "
                               f"iterations {stats.get('iterations', 0)}   "
                               f"divergences {stats.get('divergences', 0)}")
        left = max(0.0, self.budget - elapsed)
        table.add_row("time", Text.assemble(
            goal_bar(min(elapsed, self.budget), 0, self.budget), "  ",
            f"{elapsed:.1f}s of {self.budget:g}s, ", (f"{left:.1f}s left", "bold"),
            f" (last new goal at {self.last_change:.1f}s)"))
        cores = {k: (s.analysis, s.since - self.started) for k, s in dict(self.lanes.running).items()} \
            or {0: (self.strategy, 0.0)}
        for k, (analysis, since) in sorted(cores.items()):
            table.add_row("cores" if k == min(cores) else "",
                          f"core {k}: {analysis} (since {since:.1f}s)")
        return table


def goal_bar(covered: float, infeasible: float, total: float, width: int = 20) -> Text:
    """A bar of ``width`` cells: covered in green, infeasible in blue, the rest open."""
    if total <= 0:
        return Text("█" * width, style="green")
    c = round(width * covered / total)
    i = min(width - c, round(width * infeasible / total))
    return Text.assemble(("█" * c, "green"), ("█" * i, "blue"), ("░" * (width - c - i), "dim"))


class Progress:
    """Context manager: the live panel when stderr is a terminal and not ``quiet``."""

    def __init__(self, board: GoalBoard, name: str, strategy: str, budget: float,
                 quiet: bool, lanes: LaneRecords | None = None) -> None:
        self.live: Live | None = None
        if not quiet and sys.stderr.isatty():
            panel = ProgressPanel(board, name, strategy, budget, lanes)
            board.run.listeners.append(panel)
            self.live = Live(panel, console=Console(stderr=True), refresh_per_second=4,
                             transient=True)

    def __enter__(self) -> Progress:
        if self.live is not None:
            self.live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Take the panel off the terminal (and show the cursor again); idempotent."""
        if self.live is not None:
            self.live.stop()
