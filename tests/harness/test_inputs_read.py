"""A kept test holds the inputs its run read, and no more, where a run of those alone
ends the same way; the nondet harness counts them in the trace region."""
from __future__ import annotations

from pathlib import Path

from cooptest.core.board import GoalBoard
from cooptest.frontend import load_program
from cooptest.harness.executor import Executor, starved
from cooptest.harness.replay import ran_out
from cooptest.task import load_task

THREE = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int a = __VERIFIER_nondet_int(), b = __VERIFIER_nondet_int();
  if (a > b) { if (__VERIFIER_nondet_int() == 7) return 2; return 1; }
  return 0;
}
"""

OWN_STDIN = """#include <stdio.h>
extern int __VERIFIER_nondet_int(void);
int main(void) {
  if (__VERIFIER_nondet_int() > 0) { if (getchar() == '5') return 1; return 2; }
  return 0;
}
"""


def board_of(tmp_path: Path, source: str) -> GoalBoard:
    path = tmp_path / "prog.c"
    path.write_text(source)
    frontend = load_program(load_task(str(path)), str(tmp_path / "work"))
    return GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "build")))


def test_a_run_counts_the_inputs_it_read(tmp_path: Path) -> None:
    executor = board_of(tmp_path, THREE).executor
    assert executor.run(["1", "2"] + ["0"] * 50).inputs_read == 2  # a <= b: two reads
    assert executor.run(["2", "1", "7", "9"]).inputs_read == 3
    assert executor.run(["2"]).inputs_read == 2  # starved at the second read, which counts


NO_MATCH = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  if (__VERIFIER_nondet_int() == 7) return 0;
  return 1;  /* as grep does when no line matches */
}
"""


def test_a_run_starved_only_when_it_read_past_its_inputs(tmp_path: Path) -> None:
    """Exit code 1 is the harness's when the inputs run out, and also the program's own:
    only the count of reads tells them apart, without a second run."""
    executor = board_of(tmp_path, NO_MATCH).executor
    own, out = executor.run(["3"]), executor.run([])
    assert own.exit_code == out.exit_code == 1
    assert not starved(own) and not ran_out(own)
    assert starved(out) and ran_out(out)


def test_a_kept_test_holds_the_inputs_read(tmp_path: Path) -> None:
    board = board_of(tmp_path, THREE)
    ex = board.submit(["2", "1", "7"] + ["0"] * 4000, "random")
    assert ex.new and board.records[-1].test.inputs == ["2", "1", "7"]
    assert board.stats["trimmed_tests"] == 1
    again = board.executor.run(board.records[-1].test.inputs)  # the test as written
    assert again.covered == ex.covered and again.exit_code == 2


def test_a_program_reading_stdin_itself_keeps_every_input(tmp_path: Path) -> None:
    """The harness read one input; the program read the next line's first byte through
    stdio: a test of one input would end otherwise, so the test keeps both."""
    board = board_of(tmp_path, OWN_STDIN)
    ex = board.submit(["1", "5"], "random")
    assert ex.inputs_read == 1 and ex.exit_code == 1
    assert board.records[-1].test.inputs == ["1", "5"]
    assert "trimmed_tests" not in board.stats
