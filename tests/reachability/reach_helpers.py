"""Finding goals of a test program by source line."""
from __future__ import annotations

from cooptest.core.board import GoalBoard


def goal_at(program: GoalBoard, line: int, outcome: bool) -> str:
    """The branch goal of the (first) decision on ``line`` with the given outcome."""
    suffix = "T" if outcome else "F"
    return min((g for g in program.goals.values() if g.line == line and g.id.endswith(suffix)),
               key=lambda g: int(g.id[1:-1])).id


def line_of(source: str, marker: str) -> int:
    return next(i for i, text in enumerate(source.splitlines(), 1) if marker in text)
