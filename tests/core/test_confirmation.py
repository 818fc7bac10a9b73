"""A goal is covered only if a second run of its test reaches it too (``core.board``).

The program under test reads one byte from a FIFO that the test feeds '0', '1', '0', ...
to one reader after the other, so that two runs of the same input take opposite
branches, every time: the flaky coverage of a program reading indeterminate memory, made
deterministic (a test cannot write outside its directory, but it may read)."""
from __future__ import annotations

import ctypes
import itertools
import os
import select
import threading
from pathlib import Path

import pytest

from cooptest.core.board import FLAKY_CONFIRMATIONS
from cooptest.core.reduction import reduce_suite

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


IN_CLOSE_NOWRITE = 0x10  # inotify(7): a file opened read-only was closed


def _libc_call(name: str, *args) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    result = getattr(libc, name)(*args)
    if result < 0:
        raise OSError(ctypes.get_errno(), f"{name} failed")
    return result


def _feed(fifo: Path, stop: threading.Event) -> None:
    """Each reader of ``fifo`` in turn gets one byte, '0', '1', '0', ...

    The byte is written and the write end closed at once, so the reader sees it and then
    the end of the file; the next token is not offered until that reader has closed
    (inotify says so). Until then a new reader's open blocks, as no writer is there:
    no reader can see its predecessor's token, however quickly the runs follow."""
    watch = _libc_call("inotify_init1", os.O_CLOEXEC)
    try:
        _libc_call("inotify_add_watch", watch, str(fifo).encode(), IN_CLOSE_NOWRITE)
        for token in itertools.cycle(b"01"):
            fd = os.open(fifo, os.O_WRONLY)  # blocks until a reader opens
            try:
                if stop.is_set():
                    return
                os.write(fd, bytes([token]))
            finally:
                os.close(fd)
            while not stop.is_set() and not select.select([watch], [], [], 0.1)[0]:
                pass
            if stop.is_set():
                return
            os.read(watch, 4096)  # the reader's close
    finally:
        os.close(watch)


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
    kept = reduce_suite(board)
    assert [r.test.inputs for r in kept] == [["1"], ["0"]]
    doc = Report(str(tmp_path / "report.json"), "prog.c", "LP64", "test").document(board)
    entry = next(g for g in doc["goals"] if g["id"] == zeros)
    assert entry["status"] == "unknown" and entry["unconfirmed"] == "test0"
    assert doc["summary"]["unconfirmed"] == 1


@pytest.mark.contradictions
def test_a_proof_of_a_goal_a_test_reached_unconfirmed_is_refused_and_recorded(flip) -> None:
    board, ones, zeros = flip
    board.submit(["1"], "test")
    assert not board.prove_infeasible(zeros, "a wrong proof")
    assert zeros not in board.infeasible and board.unconfirmed == {zeros: "test0"}
    assert [(c.goal, c.test, c.first) for c in board.contradictions] == [(zeros, "test0", "test")]
