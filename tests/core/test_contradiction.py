"""A contradiction is data, not a crash (``core.board``): a native run that reaches a
goal a prover claimed infeasible withdraws the claim (the goal is covered by the test),
and the board, report.json, the summary line and report.html name the prover, its proof
and the test, whichever of the two came first, also when they came from worker
processes (``core.parallel``); the run goes on and exits 0.

The board-level tests claim a goal of a small program infeasible themselves. The two
end to end need a construct a real prover gets wrong, and none is known: the last one,
``optind`` (the C library starts it at 1, chc took it for 0), now blocks every proof
(``cfa.proof_blockers.library_global``). They are skipped until one is found; put it in
``WRONG`` and ``WRONG_REACHES``.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from cooptest.core.analysis import AnalysisState, Job, Outcome
from cooptest.core.board import GoalBoard
from cooptest.core.budget import Budget
from cooptest.core.parallel import Lane, run_lanes
from cooptest.core.reduction import reduce_suite
from cooptest.report.html import render
from cooptest.report.progress import summary_line
from cooptest.report.report import Report

pytestmark = pytest.mark.contradictions  # on purpose, all of them (see tests/conftest.py)

PROMOTED = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if ((x & 15) < 5) {
    return 1;
  }
  return 0;
}
"""
REACHES = ["3"]  # and 9 does not
# A program some prover gets wrong, and a test reaching the goal it claims dead: none known.
WRONG: str | None = None
WRONG_REACHES: list[str] = []
NO_WRONG_PROVER = "no prover is known to get a construct wrong (optind blocks proofs now)"
PROOF = "a prover: a proof that does not hold"


@pytest.fixture
def promoted(program_of) -> tuple[GoalBoard, str]:
    """The board of ``PROMOTED`` and the goal ``x == 3`` reaches and ``x == 9`` not."""
    board = program_of(PROMOTED)
    (goal,) = board.executor.run(REACHES).covered - board.executor.run(["9"]).covered
    return board, goal


def test_a_test_reaching_a_goal_claimed_infeasible_withdraws_the_claim(promoted) -> None:
    board, goal = promoted
    assert board.prove_infeasible(goal, PROOF)
    ex = board.submit(REACHES, "random")  # was: AssertionError, exit 3
    assert goal in ex.new and board.covered[goal] == "test0" and goal not in board.infeasible
    (c,) = board.contradictions
    assert (c.goal, c.prover, c.proof, c.test, c.first) == (goal, "a prover", PROOF, "test0", "proof")
    assert board.origin[goal] == "random"


def test_a_proof_of_a_goal_a_test_covers_is_refused_and_recorded(promoted) -> None:
    board, goal = promoted
    board.submit(REACHES, "random")
    assert not board.prove_infeasible(goal, PROOF, "chc (round 2)")
    assert not board.prove_infeasible(goal, PROOF, "chc (round 3)")  # the same claim again: once
    assert board.covered[goal] == "test0" and goal not in board.infeasible
    (c,) = board.contradictions
    assert (c.prover, c.test, c.first) == ("chc (round 2)", "test0", "test")


@pytest.mark.skipif(WRONG is None, reason=NO_WRONG_PROVER)
def test_a_real_prover_s_wrong_claim_is_withdrawn(program_of) -> None:
    """chc on its own board, then the test: no hook in the prover, its own proof."""
    from cooptest.analyses.chc import CHCAnalysis
    assert WRONG is not None
    board = program_of(WRONG)
    (goal,) = board.executor.run(WRONG_REACHES).covered - board.executor.run([]).covered
    CHCAnalysis().run(board, Job(board.open(), Budget.seconds(20)))
    assert goal in board.infeasible, "chc models the construct now: pick another"
    board.submit(WRONG_REACHES, "random")
    (c,) = board.contradictions
    assert c.prover == "chc" and c.proof.startswith("chc:") and c.first == "proof"
    assert board.covered[goal] == c.test and goal not in board.infeasible


def test_the_report_the_summary_line_and_the_page_show_it_as_a_defect(promoted, tmp_path) -> None:
    board, goal = promoted
    board.prove_infeasible(goal, PROOF)
    board.submit(REACHES, "random")
    board.submit(["9"], "random")
    reduce_suite(board)  # the test named is one the suite keeps
    (tmp_path / "prog.c").write_text(PROMOTED)
    doc = Report(str(tmp_path / "report.json"), str(tmp_path / "prog.c"), "LP64", "auto").document(board)
    entry = next(g for g in doc["goals"] if g["id"] == goal)
    assert entry["status"] == "covered"
    assert entry["contradicted"] == {"prover": "a prover", "proof": PROOF, "test": entry["test"]}
    assert [c["goal"] for c in doc["contradictions"]] == [goal]
    assert doc["contradictions"][0]["test"] in {t.name for t in board.tests}
    assert doc["summary"]["contradictions"] == 1 and doc["summary"]["infeasible"] == 0
    assert "1 infeasibility claim refuted by a test" in summary_line("prog", doc["summary"])
    page = render(doc, board.tests)
    assert 'id="contradictions"' in page and PROOF in page and "Defects of cooptest" in page


@dataclass
class Claim:
    """Claims ``goal`` infeasible once ``ready`` holds of the worker's board: a prover
    that is wrong on purpose, through the board's own API, in a worker process."""

    goal: str
    ready: str  # "now" or "covered" (after another lane's test reached the goal)
    name: str = "claim"

    def run(self, board: GoalBoard, job: Job) -> Outcome:
        while self.ready == "covered" and board.is_open(self.goal) and not job.budget.expired():
            time.sleep(0.01)
        board.prove_infeasible(self.goal, PROOF)
        return Outcome(AnalysisState(self.name), "exhausted")


@dataclass
class Reach:
    """Runs ``inputs`` once ``ready`` holds: "now", or "claimed" (the claim has come)."""

    inputs: list[str]
    goal: str
    ready: str
    name: str = "reach"

    def run(self, board: GoalBoard, job: Job) -> Outcome:
        while self.ready == "claimed" and board.is_open(self.goal) and not job.budget.expired():
            time.sleep(0.01)
        board.submit(self.inputs, self.name)
        return Outcome(AnalysisState(self.name), "exhausted")


@pytest.mark.parametrize("first", ["proof", "test"])
def test_worker_processes_send_the_contradiction_to_the_parent(promoted, first) -> None:
    board, goal = promoted
    lanes = [Lane([(Claim(goal, "now" if first == "proof" else "covered"), None)], "proving"),
             Lane([(Reach(REACHES, goal, "claimed" if first == "proof" else "now"), None)], "testing")]
    runs = run_lanes(board, lanes, board.open(), Budget.seconds(20))
    assert [r.stopped for r in runs] == ["exhausted", "exhausted"], runs  # no lane failed
    assert goal in board.covered and goal not in board.infeasible
    (c,) = board.contradictions
    assert (c.goal, c.prover, c.proof, c.first) == (goal, "a prover", PROOF, first)
    assert c.test == board.covered[goal]


@pytest.mark.skipif(WRONG is None, reason=NO_WRONG_PROVER)
def test_a_run_whose_prover_is_wrong_exits_0_and_reports_it(tmp_path: Path) -> None:
    """End to end, ``--strategy auto``: chc's wrong claim in the proving lane, random
    testing's test in the other (was: exit 3, "internal error: AssertionError")."""
    assert WRONG is not None
    prog, out = tmp_path / "promoted.c", tmp_path / "out"
    prog.write_text(WRONG)
    r = subprocess.run([sys.executable, "-m", "cooptest.cli", "generate", str(prog), "--budget", "20",
                        "--out", str(out), "--jobs", "2", "--quiet"],  # it ends once all is decided
                       capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    doc = json.loads((out / "report.json").read_text())
    assert doc["contradictions"], "no prover claimed the branch dead: pick another construct"
    (c,) = doc["contradictions"]
    assert c["first"] == "proof"
    assert c["prover"].startswith("chc") and c["proof"].startswith("chc:")
    entry = next(g for g in doc["goals"] if g["id"] == c["goal"])
    assert entry["status"] == "covered" and entry["contradicted"]["test"] == c["test"] == entry["test"]
    with zipfile.ZipFile(out / "test-suite.zip") as z:
        assert f"{c['test']}.xml" in z.namelist()
    assert "refuted by a test" in r.stderr
    assert "Defects of cooptest" in (out / "report.html").read_text()
