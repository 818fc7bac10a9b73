"""gcc folds a comparison of signed arithmetic as if it could not overflow, at -O0 too
(fold-const: ``X + C1 < C2`` becomes ``X < C2 - C1``), while the CFA computes the
wrapped sum x86 code would. The two differ exactly where the sum overflows, and there
a proof made on the CFA claims the branch gcc's build takes infeasible."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from cooptest.analyses.chc import CHCAnalysis
from cooptest.analyses.reachability import PredicateAnalysis, ValueAnalysis
from cooptest.core.analysis import Job
from cooptest.core.board import GoalBoard
from cooptest.core.budget import Budget
from cooptest.frontend import load_program
from cooptest.harness.executor import Executor
from cooptest.task import load_task

FOLDED = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x == 2147483647) {
    if (x + 1 < 0) {
      return 1;
    }
    return 2;
  }
  return 0;
}
"""
NONDET = "#include <stdio.h>\nint __VERIFIER_nondet_int(void) { int x = 0; scanf(\"%d\", &x); return x; }\n"
METHODS = {"value": ValueAnalysis, "predicate": PredicateAnalysis, "chc": CHCAnalysis}


def test_gccs_build_takes_the_branch_the_wrapped_sum_rules_out(tmp_path: Path) -> None:
    (tmp_path / "prog.c").write_text(FOLDED)
    (tmp_path / "nondet.c").write_text(NONDET)
    subprocess.run(["gcc", "-w", tmp_path / "prog.c", tmp_path / "nondet.c", "-o", tmp_path / "native"],
                   check=True)
    run = subprocess.run([tmp_path / "native"], input="2147483647\n", text=True)
    assert run.returncode == 2, "gcc's fold: x + 1 < 0 is x < -1"


@pytest.mark.parametrize("method", [
    "value", "predicate",
    pytest.param("chc", marks=pytest.mark.xfail(strict=True, raises=AssertionError,
                                                   reason="the CFA wraps where gcc folds")),
])
def test_no_method_claims_the_folded_branch_infeasible(tmp_path: Path, method: str) -> None:
    path = tmp_path / "prog.c"
    path.write_text(FOLDED)
    frontend = load_program(load_task(str(path)), str(tmp_path / "work"))
    board = GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "work")))
    line = next(i for i, text in enumerate(FOLDED.splitlines(), 1) if "x + 1 < 0" in text)
    (after,) = (g for g, goal in board.goals.items() if goal.line == line and g.endswith("F"))
    METHODS[method]().run(board, Job(board.open(), Budget.seconds(30)))
    assert after not in board.infeasible, board.infeasible[after]
