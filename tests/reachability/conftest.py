"""Programs under test for the reachability analyses: C text → GoalBoard."""
from __future__ import annotations

from pathlib import Path

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
