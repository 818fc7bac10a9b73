"""gcc folds signed arithmetic as if it could not overflow, at -O0 too (fold-const:
``X + C1 < C2`` becomes ``X < C2 - C1``, ``x * 10 / 5`` becomes ``x * 2``), while the CFA
computes the wrapped value x86 code would. The two differ exactly where the arithmetic
overflows, and there a proof made on the CFA claims infeasible a branch gcc's build takes
(the ``fold-*`` programs of the soundness matrix: chc claimed all four). The front end
asks gcc where it folds so (its GIMPLE with and without -fwrapv) and blocks the proofs
of the goals behind such a statement, unless its operands' types rule overflow out."""
from __future__ import annotations

from pathlib import Path

import pytest

from cooptest.analyses.chc import CHCAnalysis
from cooptest.analyses.concolic import ConcolicAnalysis
from cooptest.cooperation.bite import GCFG, ORIGIN, BiTe, BiTeState
from cooptest.core.analysis import Job
from cooptest.core.board import GoalBoard
from cooptest.core.budget import Budget
from cooptest.frontend import load_program
from cooptest.frontend.folding import overflow_folds
from cooptest.harness.executor import Executor
from cooptest.sources import load_program_task

from programs import PROGRAMS
from test_proofs import exit_of_gccs_build, program_under_test

FOLDS = sorted(name for name in PROGRAMS if name.startswith("fold-"))


@pytest.mark.parametrize("name", FOLDS)
def test_gccs_build_takes_the_branch_the_wrapped_value_rules_out(tmp_path: Path, name: str) -> None:
    assert exit_of_gccs_build(tmp_path, name) == 1


@pytest.mark.parametrize("name", FOLDS)
def test_the_goals_behind_a_fold_are_refused_with_the_reason(tmp_path: Path, name: str) -> None:
    put = program_under_test(tmp_path, name)
    natively = set().union(*(put.executor.run(s).covered for s in PROGRAMS[name][1]))
    uncovered = set(put.goals) - natively
    assert uncovered, "the seeds leave a goal open"
    for goal in uncovered:
        assert not put.prove_infeasible(goal, "a proof")
        assert "as if it could not overflow" in put.refused[goal]


NARROW = """extern int __VERIFIER_nondet_int(void);
unsigned char idx;
signed char s;
int main(void) {
  idx = __VERIFIER_nondet_int();
  s = __VERIFIER_nondet_int();
  idx = idx + 1;
  s = s + 1;
  if (s + 1 > 200) return 3;
  return idx;
}
"""


def loaded(tmp_path: Path, source: str, flags: tuple[str, ...] = ()) -> GoalBoard:
    path = tmp_path / "prog.c"
    path.write_text(source)
    frontend = load_program(load_program_task([str(path)], None, flags), str(tmp_path / "work"))
    return GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "work")))


def test_a_fold_no_operand_can_overflow_keeps_its_proofs(tmp_path: Path) -> None:
    """gcc computes ``idx + 1`` and ``s + 1`` of chars otherwise under -fwrapv (in the
    char, not in int), but ints made from chars cannot overflow: nothing is blocked,
    and the Horn-clause prover proves ``s + 1 > 200`` false."""
    board = loaded(tmp_path, NARROW)
    task = load_program_task([str(tmp_path / "prog.c")], None, ())
    lines = {line for _, line in overflow_folds(task.units[0], task.data_model, str(tmp_path / "pp"))}
    assert {7, 8, 9} <= lines  # gcc's -fwrapv build differs there
    assert board.program.proof_blockers.behind == {}
    CHCAnalysis().run(board, Job(board.open(), Budget.seconds(20)))
    (taken,) = (g for g, goal in board.goals.items() if goal.line == 9 and g.endswith("T"))
    assert taken in board.infeasible


def test_under_fwrapv_gcc_computes_what_the_cfa_does(tmp_path: Path) -> None:
    """The user's -fwrapv makes wrapping gcc's semantics: no fold, nothing blocked."""
    board = loaded(tmp_path, PROGRAMS["fold-add-compare"][0], ("-fwrapv",))
    assert board.program.proof_blockers.behind == {}


GUARDED = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x < 0 || x > 1000)
    return 0;
  if (x + 1 < 0)
    return 1;
  return 2;
}
"""


def test_a_proof_that_nothing_overflows_at_the_fold_lifts_the_block(tmp_path: Path) -> None:
    """gcc folds ``x + 1 < 0`` here too, but the guard keeps x + 1 within int: chc
    proves no run overflows there, and then its proof of the branch is trusted."""
    board = loaded(tmp_path, GUARDED)
    (taken,) = (g for g, goal in board.goals.items() if goal.line == 6 and g.endswith("T"))
    assert taken in board.program.proof_blockers.behind
    CHCAnalysis().run(board, Job(board.open(), Budget.seconds(20)))
    assert board.program.proof_blockers.behind[taken][1] <= board.no_overflow.keys()
    assert taken in board.infeasible and taken not in board.refused


@pytest.mark.parametrize("name", FOLDS)
def test_no_proof_rules_out_an_overflow_a_run_makes(tmp_path: Path, name: str) -> None:
    put = program_under_test(tmp_path, name)
    CHCAnalysis().run(put, Job(put.open(), Budget.seconds(20)))
    assert put.no_overflow == {}


def test_the_report_shows_the_proofs_a_trusted_proof_rests_on(tmp_path: Path) -> None:
    import json
    from clitools import cooptest
    (tmp_path / "g.c").write_text(GUARDED)
    proc = cooptest("generate", tmp_path / "g.c", "--strategy", "chc", "--budget", "20",
                    "--out", tmp_path / "out", "--quiet")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((tmp_path / "out" / "report.json").read_text())
    assert {g["id"]: g["status"] for g in doc["goals"]}["B3T"] == "infeasible"
    assert {s["line"] for s in doc["no_overflow"]} == {6}
    assert all(s["proof"].startswith("chc: ") for s in doc["no_overflow"])


def test_where_gcc_says_nothing_no_proof_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A unit whose GIMPLE gcc does not dump in time: where it folds is unknown, so no
    computation is known to be gcc's, and every goal is refused."""
    from cooptest.frontend import folding
    monkeypatch.setattr(folding, "GCC_SECONDS", 0.001)
    board = loaded(tmp_path, GUARDED)
    assert "did not say where it folds" in (board.program.proof_blockers.everywhere or "")
    assert not board.prove_infeasible(next(iter(board.goals)), "a proof")


IN_MEMORY = """extern int __VERIFIER_nondet_int(void);
int g[1];
int main(void) {
  g[0] = __VERIFIER_nondet_int();
  if (g[0] + 1 < 0)
    return 2;
  return 1;
}
"""


def test_an_operand_read_from_memory_is_any_value_to_the_overflow_proof(tmp_path: Path) -> None:
    """chc reads ``g[0]`` as an unknown: the query about the fold must hold for every
    value of it, and with INT_MAX the sum overflows, so nothing is proven."""
    board = loaded(tmp_path, IN_MEMORY)
    assert board.program.proof_blockers.overflow_sites
    CHCAnalysis().run(board, Job(board.open(), Budget.seconds(20)))
    assert board.no_overflow == {}


LOCAL = """extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) { abort(); }
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  if (x + 1 < 0)
    x = 0;
  if (y > 5)
    if (y < 3)
      reach_error();
  return x;
}
"""


def test_a_backward_proof_that_reads_no_site_holds_behind_it(tmp_path: Path) -> None:
    """``y > 5 && y < 3`` is false for any state, however gcc computed ``x + 1 < 0``
    before it: BiTe's weakest preconditions cross the two conditions only, so its
    proof of the inner branch stands though a fold lies on every path to it."""
    board = loaded(tmp_path, LOCAL)
    (inner,) = (g for g, goal in board.goals.items() if goal.line == 10 and g.endswith("T"))
    assert inner in board.program.proof_blockers.behind
    BiTe().run(board, Job(board.open(), Budget.seconds(20)))
    assert board.infeasible.get(inner, "").startswith("bite: backward reachability")
    assert board.no_overflow == {}  # not lifted for every proof: read past
    assert not board.prove_infeasible(inner.replace("T", "F"), "a proof that may read the site")


@pytest.mark.parametrize("name", FOLDS)
def test_a_backward_proof_that_reads_the_site_is_refused(tmp_path: Path, name: str) -> None:
    """On the ``fold-*`` programs a branch gcc's build takes is infeasible in the CFA,
    and the walk back from it crosses the folded statement: its proof is refused.
    (BiTe's own concolic runs cover that branch first, so the walk runs alone here.)
    The walks of the two ``fold-mul`` programs reach the program's start: no claim."""
    put = program_under_test(tmp_path, name)
    taken = set().union(*(put.executor.run(s).covered for s in PROGRAMS[name][1]))
    gcfg = GCFG(BiTe(), put, Job(put.open(), Budget.seconds(20)), BiTeState(ORIGIN))
    for goal in taken:
        gcfg.seed_r_state(goal)
    while gcfg.reachability_step():
        pass
    gcfg.prove()
    assert not taken & put.infeasible.keys()
    walked = {g for g, b in gcfg.state.backward.items() if b.complete()}
    assert all(put.refused[g].startswith("gcc folds") for g in walked)
    assert walked or name.startswith("fold-mul")  # their walks reach the start: no claim


def test_an_exhausted_execution_tree_rules_out_the_overflow_at_the_fold(tmp_path: Path) -> None:
    """Concolic search exhausts GUARDED's tree, and on no path does the condition allow
    ``x + 1`` to overflow: that proves no run overflows there, so its exhaustion proves
    the folded branch infeasible for gcc's build too."""
    board = loaded(tmp_path, GUARDED)
    (taken,) = (g for g, goal in board.goals.items() if goal.line == 6 and g.endswith("T"))
    ConcolicAnalysis().run(board, Job(board.open(), Budget.seconds(20)))
    assert board.program.proof_blockers.behind[taken][1] <= board.no_overflow.keys()
    assert all(proof.startswith("concolic: no path") for proof in board.no_overflow.values())
    assert board.infeasible.get(taken, "").startswith("concolic: execution tree exhausted")


@pytest.mark.parametrize("name", FOLDS)
def test_no_exhausted_tree_rules_out_an_overflow_a_run_makes(tmp_path: Path, name: str) -> None:
    put = program_under_test(tmp_path, name)
    ConcolicAnalysis().run(put, Job(put.open(), Budget.seconds(5)))
    assert put.no_overflow == {}
