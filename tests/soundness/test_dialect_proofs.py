"""Old C and GNU C, end to end: ``generate`` with the portfolio reports no goal
infeasible that a native run of a hand-written input reaches, and the goals it reports
covered are those its suite covers when replayed natively."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cooptest.frontend import load_program
from cooptest.harness.executor import Executor
from cooptest.task import load_task

from clitools import cooptest
from programs import PROGRAMS

DIALECT_PROGRAMS = ("knr-promotions", "implicit-int", "implicit-builtin", "vla-sizeof", "alignof-gnu",
                    "case-range", "elvis-once", "typeof-width")


@pytest.mark.parametrize("name", DIALECT_PROGRAMS)
def test_generate_proves_nothing_a_native_run_reaches(tmp_path: Path, name: str) -> None:
    source, seeds = PROGRAMS[name]
    prog = tmp_path / f"{name}.c"
    prog.write_text(source)
    out = tmp_path / "out"
    r = cooptest("generate", prog, "--strategy", "auto", "--budget", 10, "--out", out, "--quiet")
    assert r.returncode == 0, r.stderr
    goals = json.loads((out / "report.json").read_text())["goals"]
    frontend = load_program(load_task(str(prog)), str(tmp_path / "work"))
    executor = Executor(frontend, str(tmp_path / "work"))
    natively = set().union(*(executor.run(s).covered for s in seeds))
    infeasible = {g["id"] for g in goals if g["status"] == "infeasible"}
    assert not infeasible & natively, (infeasible, natively)
    replayed = json.loads(cooptest("replay", prog, out / "test-suite.zip", "--json").stdout)
    covered = {g["id"] for g in goals if g["status"] == "covered"}
    assert covered == set().union(*(set(t["covers"]) for t in replayed))
    assert natively <= covered, "ten seconds cover what a handful of inputs does"
