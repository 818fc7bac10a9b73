"""A goal is covered only if a second run of its test reaches it too (``core.board``).

The program under test flips a file at an absolute path on every run, so that two runs
of the same input take opposite branches, every time: the flaky coverage of a program
reading indeterminate memory, made deterministic."""
from __future__ import annotations

from pathlib import Path

import pytest

from cooptest.core.board import FLAKY_CONFIRMATIONS

FLIP = """#include <stdio.h>
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 0) {
    FILE *f = fopen("FLAG", "r");
    if (f != 0) { /* flipped */
      fclose(f);
      remove("FLAG");
      return 1;
    }
    f = fopen("FLAG", "w");
    fclose(f);
    return 2;
  }
  return 0;
}
"""


def _goal(board, line: int, outcome: bool) -> str:
    return next(g.id for g in board.goals.values()
                if g.line == line and g.id.endswith("T" if outcome else "F"))


@pytest.fixture
def flip(program_of, tmp_path: Path):
    flag = tmp_path / "flag"
    board = program_of(FLIP.replace('"FLAG"', f'"{flag}"'))
    line = FLIP.splitlines().index("    if (f != 0) { /* flipped */") + 1
    return board, flag, _goal(board, line, True), _goal(board, line, False)


def test_a_goal_its_confirmation_misses_stays_open_and_its_test_is_kept(flip) -> None:
    board, flag, opened, created = flip
    ex = board.submit(["1"], "test")  # creates the flag; the confirmation finds and removes it
    assert created in ex.covered and created in ex.unconfirmed and not flag.exists()
    assert created not in board.covered and board.unconfirmed == {created: "test0"}
    assert opened not in board.unconfirmed  # reached by the confirmation only: not claimed at all
    stable = _goal(board, 5, True)
    assert board.covered[stable] == "test0" and ex.new == {stable}
    assert [t.name for t in board.tests] == ["test0"]
    assert board.stats["confirmations"] == 1


def test_a_goal_seen_unconfirmed_needs_every_one_of_several_runs(flip) -> None:
    board, flag, opened, created = flip
    board.submit(["1"], "test")
    before = board.stats["confirmations"]
    board.submit(["2"], "test")  # reaches `created` again: confirmed by every run, or not at all
    assert board.stats["confirmations"] - before == FLAKY_CONFIRMATIONS
    assert created not in board.covered and opened not in board.covered
    assert [t.name for t in board.tests] == ["test0", "test1"]


def test_reduction_keeps_a_test_for_an_unconfirmed_goal_and_the_report_names_it(flip, tmp_path) -> None:
    from cooptest.report.report import Report
    board, flag, opened, created = flip
    board.submit(["1"], "test")
    board.submit(["0"], "test")
    board.submit(["5"], "test")  # adds nothing confirmed: dropped by the cover
    kept = board.reduce()
    assert [r.test.inputs for r in kept] == [["1"], ["0"]]
    doc = Report(str(tmp_path / "report.json"), "prog.c", "LP64", "test").document(board)
    entry = next(g for g in doc["goals"] if g["id"] == created)
    assert entry["status"] == "unknown" and entry["unconfirmed"] == "test0"
    assert doc["summary"]["unconfirmed"] == 1


def test_a_proof_of_a_goal_a_test_reached_unconfirmed_trips_the_wire(flip) -> None:
    board, flag, opened, created = flip
    board.submit(["1"], "test")
    with pytest.raises(AssertionError, match="which a test reached"):
        board.prove_infeasible(created, "a wrong proof")
