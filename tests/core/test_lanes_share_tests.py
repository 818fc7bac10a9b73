"""A lane sees the tests the other lanes found (``WorkerBoard.tests``): AFL++ after
concolic search seeds from what the other lane's AFL++ found, not only from what its own
lane did."""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from cooptest.core.analysis import AnalysisState, Job, Outcome
from cooptest.core.board_view import Board
from cooptest.core.budget import Budget
from cooptest.core.parallel import Lane, run_lanes

BRANCHES = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x == 3) return 1;
  return 0;
}
"""


@dataclass
class Submit:
    """Runs one test, which covers ``x == 3`` first."""

    name: str = "finder"

    def run(self, board: Board, job: Job) -> Outcome:
        board.submit(["3"], self.name)
        return Outcome(AnalysisState(self.name), "exhausted")


@dataclass
class Look:
    """Waits for a test it did not find, and writes the inputs of the tests it sees."""

    seen: Path
    name: str = "looker"

    def run(self, board: Board, job: Job) -> Outcome:
        while not job.budget.expired() and not any(t.inputs == ["3"] for t in board.tests):
            time.sleep(0.05)
        self.seen.write_text(json.dumps([[t.name, t.inputs] for t in board.tests]))
        return Outcome(AnalysisState(self.name), "exhausted")


def test_a_lane_sees_the_tests_another_lane_found(program_of, tmp_path: Path) -> None:
    board = program_of(BRANCHES)
    seen = tmp_path / "seen.json"
    lanes = [Lane([(Submit(), None)], "a"), Lane([(Look(seen), None)], "b")]
    runs = run_lanes(board, lanes, board.open(), Budget.seconds(20))
    assert [r.stopped for r in runs] == ["exhausted", "exhausted"], runs
    (record,) = [r for r in board.records if r.origin == "finder"]
    assert json.loads(seen.read_text()) == [[record.test.name, ["3"]]]
