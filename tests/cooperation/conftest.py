"""The cooperation tests use the fixtures of the concolic tests (a GoalBoard built from
C text, the shared seed examples): loaded from their conftest, not copied."""
from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "concolic_fixtures", Path(__file__).resolve().parents[1] / "concolic" / "conftest.py")
assert _spec is not None and _spec.loader is not None
_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fixtures)

make_program = _fixtures.make_program
seed_examples = _fixtures.seed_examples
