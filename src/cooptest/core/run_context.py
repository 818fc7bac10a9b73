"""What the driver of one run owns around the goal board (``core.board``): the suite the
kept tests are written to, the statistics the analyses count, and the listeners that
hear of every change (report, meter, progress display, lane records).

The board decides goals; none of this decides anything, and a lane's board (in a
worker process) has a context of its own, whose counts it sends to the parent's. The
driver makes the context, registers its listeners and hands it to the board.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from cooptest.core.board_events import Listener
from cooptest.harness.testsuite import SuiteWriter


@dataclass
class RunContext:
    """One run's suite, statistics and listeners."""

    suite: SuiteWriter | None = None
    stats: dict[str, int] = field(default_factory=dict)
    listeners: list[Listener] = field(default_factory=list)

    def count(self, stat: str, n: int = 1) -> None:
        self.stats[stat] = self.stats.get(stat, 0) + n

    def set_stat(self, stat: str, value: int) -> None:
        """``stat`` is ``value`` from now on: a figure an analysis measures (BiTe's
        iteration that reached its final coverage), where ``count`` adds up events."""
        self.stats[stat] = value
