"""Programs under test for the reachability analyses: C text → GoalBoard."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from cooptest.core.board import GoalBoard
from cooptest.frontend import load_program
from cooptest.harness.executor import Executor
from cooptest.task import load_task

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
