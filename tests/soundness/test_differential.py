"""A slice of the differential test against gcc (``benchmarks/differential.py``): Csmith
programs read no input, so one native run decides every goal, and no prover's claim
may contradict it, nor may cooptest's build compute another value than gcc's."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import differential  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    shutil.which(differential.CSMITH) is None or not os.path.isdir(differential.CSMITH_INCLUDE),
    reason="no csmith/libcsmith-dev (scripts/setup.sh installs them)")]


@pytest.mark.parametrize("seed", [1, 2, 3])  # ILP32, LP64, ILP32
def test_no_claim_contradicts_gccs_run_of_a_random_program(seed: int) -> None:
    r = differential.check(seed, 1.0, differential.METHODS, None)
    assert not r.refused, r.refused
    assert r.observations and r.goals
    assert not r.contradictions, r.contradictions
    assert not r.mismatches, r.mismatches
    assert r.claims["concolic"] > 0, "one run decides every goal: the rest is infeasible"
