"""The live panel of ``generate``: goals covered / infeasible / open, tests, time left,
which analysis runs on which core — read off a real goal board."""
from __future__ import annotations

import re
from typing import Callable

from rich.console import Console

from cooptest.core.board_events import LaneBegan
from cooptest.core.analysis import Started
from cooptest.core.board import GoalBoard
from cooptest.core.parallel import LaneRecords
from cooptest.report.progress import ProgressPanel, goal_bar

PROGRAM = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 10) {
    if (x < 5) { return 3; }
    return 1;
  }
  return 0;
}
"""


def shown(panel: ProgressPanel) -> str:
    console = Console(record=True, width=140, color_system=None)
    console.print(panel)
    return console.export_text()


def test_panel_shows_goals_tests_time_and_cores(program_of: Callable[[str], GoalBoard]) -> None:
    board = program_of(PROGRAM)
    lanes = LaneRecords()
    panel = ProgressPanel(board, "prog.c", "auto", budget=60, lanes=lanes)
    board.run.listeners += [panel, lanes]
    text = shown(panel)
    assert "0 covered · 0 infeasible · 4 open of 4" in text
    assert "core 0: auto" in text  # a single analysis: the strategy on one core

    board.submit(["50"], "random")
    dead = next(g.id for g in board.goals.values() if g.line == 5 and g.id.endswith("T"))
    board.prove_infeasible(dead, "value: x > 10 && x < 5 is unsatisfiable", "value")
    board.notify(LaneBegan(0, Started("concolic", "testing", panel.started + 1)))
    board.notify(LaneBegan(1, Started("coveritest", "proving", panel.started + 2)))
    text = shown(panel)
    assert "2 covered · 1 infeasible · 1 open of 4 (50.0%)" in text
    assert re.search(r"tests\s+1\s+executions 1\b", text)
    assert "core 0: concolic (since 1.0s)" in text and "core 1: coveritest (since 2.0s)" in text
    assert "s of 60s" in text and "s left" in text


def test_goal_bar_splits_covered_infeasible_open() -> None:
    bar = goal_bar(5, 2, 10, width=10)
    assert bar.plain == "█████" + "██" + "░░░"
    assert [(span.start, span.end, str(span.style)) for span in bar.spans] == [
        (0, 5, "green"), (5, 7, "blue"), (7, 10, "dim")]
