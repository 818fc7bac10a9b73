"""A contradiction is data, not a crash (``core.board``): a native run that reaches a
goal a prover claimed infeasible withdraws the claim (the goal is covered by the test),
and the board, report.json, the summary line and report.html name the prover, its proof
and the test, whichever of the two came first, also when they came from worker
processes (``core.parallel``); the run goes on and exits 0.

The program is one a real prover gets wrong: the C library starts ``optind`` at 1, so
``optind * 1000 - (x & 15) > 995`` holds for ``x == 3``, while chc (which takes a global
no code of the program initialises for 0) proves the branch dead. Once a prover models the
library's globals, replace it here by another construct some prover gets wrong; the
board-level tests below do not depend on it.
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
from cooptest.report.html import render
from cooptest.report.progress import summary_line
from cooptest.report.report import Report

pytestmark = pytest.mark.contradictions  # on purpose, all of them (see tests/conftest.py)

PROMOTED = """extern int __VERIFIER_nondet_int(void);
#include <unistd.h>
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (optind * 1000 - (x & 15) > 995) {
    return 1;
  }
  return 0;
}
"""
REACHES = ["3"]  # 1 * 1000 - 3 > 995, as glibc starts optind at 1
# The same behind a needle random testing does not find at once, so that in a run chc's
# claim comes first: a goal covered already is no prover's question.
GUARDED = PROMOTED.replace("  if (optind", "  int y = __VERIFIER_nondet_int();\n  if (y == 4242 && optind")
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


def test_a_real_prover_s_wrong_claim_is_withdrawn(promoted) -> None:
    """chc on its own board, then the test: no hook in the prover, its own proof."""
    from cooptest.analyses.chc import CHCAnalysis
    board, goal = promoted
    CHCAnalysis().run(board, Job(board.open(), Budget.seconds(20)))
    assert goal in board.infeasible, "chc models optind now: pick another construct"
    board.submit(REACHES, "random")
    (c,) = board.contradictions
    assert c.prover == "chc" and c.proof.startswith("chc:") and c.first == "proof"
    assert board.covered[goal] == c.test and goal not in board.infeasible


def test_the_report_the_summary_line_and_the_page_show_it_as_a_defect(promoted, tmp_path) -> None:
    board, goal = promoted
    board.prove_infeasible(goal, PROOF)
    board.submit(REACHES, "random")
    board.submit(["9"], "random")
    board.reduce()  # the test named is one the suite keeps
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


def test_a_run_whose_prover_is_wrong_exits_0_and_reports_it(tmp_path: Path) -> None:
    """End to end, ``--strategy auto``: chc's wrong claim in the proving lane, random
    testing's test in the other (was: exit 3, "internal error: AssertionError")."""
    prog, out = tmp_path / "promoted.c", tmp_path / "out"
    prog.write_text(GUARDED)
    r = subprocess.run([sys.executable, "-m", "cooptest.cli", "generate", str(prog), "--budget", "20",
                        "--out", str(out), "--jobs", "2", "--quiet"],  # it ends once all is decided
                       capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    doc = json.loads((out / "report.json").read_text())
    assert doc["contradictions"], "no prover claimed the optind branch dead: pick another construct"
    (c,) = doc["contradictions"]
    assert c["first"] == "proof"
    assert c["prover"].startswith("chc") and c["proof"].startswith("chc:")
    entry = next(g for g in doc["goals"] if g["id"] == c["goal"])
    assert entry["status"] == "covered" and entry["contradicted"]["test"] == c["test"] == entry["test"]
    with zipfile.ZipFile(out / "test-suite.zip") as z:
        assert f"{c['test']}.xml" in z.namelist()
    assert "refuted by a test" in r.stderr
    assert "Defects of cooptest" in (out / "report.html").read_text()
