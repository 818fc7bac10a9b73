"""A goal is covered only if a second run of its test reaches it too (``core.board``).

The program under test reads one byte from a FIFO that the test feeds '0', '1', '0', ...
to one reader after the other, so that two runs of the same input take opposite
branches, every time: the flaky coverage of a program reading indeterminate memory, made
deterministic (a test cannot write outside its directory, but it may read)."""
from __future__ import annotations

import itertools
import os
import threading
from pathlib import Path

import pytest

from cooptest.core.board import FLAKY_CONFIRMATIONS

FLIP = """#include <stdio.h>
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 0) {
    FILE *f = fopen("FIFO", "r");
    if (fgetc(f) == '1') { /* flipped */
      return 1;
    }
    return 2;
  }
  return 0;
}
"""


def _feed(fifo: Path, stop: threading.Event) -> None:
    """Each reader of ``fifo`` in turn gets '0', '1', '0', ...: the token is written
    until the reader closes its end (the write fails), so no reader sees two."""
    for token in itertools.cycle(b"01"):
        fd = os.open(fifo, os.O_WRONLY)
        if stop.is_set():
            os.close(fd)
            return
        try:
            while True:
                os.write(fd, bytes([token]) * 512)
        except BrokenPipeError:
            pass
        finally:
            os.close(fd)


def _goal(board, line: int, outcome: bool) -> str:
    return next(g.id for g in board.goals.values()
                if g.line == line and g.id.endswith("T" if outcome else "F"))


@pytest.fixture
def flip(program_of, tmp_path: Path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    stop = threading.Event()
    feeder = threading.Thread(target=_feed, args=(fifo, stop), daemon=True)
    feeder.start()
    board = program_of(FLIP.replace('"FIFO"', f'"{fifo}"'))
    line = FLIP.splitlines().index("    if (fgetc(f) == '1') { /* flipped */") + 1
    yield board, _goal(board, line, True), _goal(board, line, False)
    stop.set()
    os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))  # lets the feeder see the stop
    feeder.join(timeout=5)


def test_a_goal_its_confirmation_misses_stays_open_and_its_test_is_kept(flip) -> None:
    board, ones, zeros = flip
    ex = board.submit(["1"], "test")  # reads '0'; its confirmation reads '1'
    assert zeros in ex.covered and zeros in ex.unconfirmed
    assert zeros not in board.covered and board.unconfirmed == {zeros: "test0"}
    assert ones not in board.unconfirmed  # reached by the confirmation only: not claimed at all
    stable = _goal(board, 5, True)
    assert board.covered[stable] == "test0" and ex.new == {stable}
    assert [t.name for t in board.tests] == ["test0"]
    assert board.stats["confirmations"] == 1


def test_a_goal_seen_unconfirmed_needs_every_one_of_several_runs(flip) -> None:
    board, ones, zeros = flip
    board.submit(["1"], "test")
    before = board.stats["confirmations"]
    board.submit(["2"], "test")  # reads '0' again: confirmed by every run, or not at all
    assert board.stats["confirmations"] - before == FLAKY_CONFIRMATIONS
    assert zeros not in board.covered and ones not in board.covered
    assert [t.name for t in board.tests] == ["test0", "test1"]


def test_reduction_keeps_a_test_for_an_unconfirmed_goal_and_the_report_names_it(flip, tmp_path) -> None:
    from cooptest.report.report import Report
    board, ones, zeros = flip
    board.submit(["1"], "test")
    board.submit(["0"], "test")
    board.submit(["5"], "test")  # adds nothing confirmed: dropped by the cover
    kept = board.reduce()
    assert [r.test.inputs for r in kept] == [["1"], ["0"]]
    doc = Report(str(tmp_path / "report.json"), "prog.c", "LP64", "test").document(board)
    entry = next(g for g in doc["goals"] if g["id"] == zeros)
    assert entry["status"] == "unknown" and entry["unconfirmed"] == "test0"
    assert doc["summary"]["unconfirmed"] == 1


def test_a_proof_of_a_goal_a_test_reached_unconfirmed_trips_the_wire(flip) -> None:
    board, ones, zeros = flip
    board.submit(["1"], "test")
    with pytest.raises(AssertionError, match="which a test reached"):
        board.prove_infeasible(zeros, "a wrong proof")
