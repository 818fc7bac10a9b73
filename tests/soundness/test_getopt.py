"""getopt_long under the environment model (``harness/environment/cooptest_getopt.h``):
no proof method claims infeasible a goal that gcc's build, with glibc's getopt_long,
reaches for some command line.

``parsing`` reaches its goals only through what glibc's parse does beyond the common
case (an abbreviated long option storing through its flag, ``optopt`` 0 after an
unrecognized long option, argv permuted so that the non-option comes last); each
command line is run on gcc's build and on cooptest's, which must exit alike. ``mixed``
calls glibc's getopt, which shares its parse state with glibc's getopt_long but not
with the model's: gcc's build reaches ``return 7`` on ``-ab``, cooptest's build never
does, so a prover trusting the model there would prove a reachable goal infeasible.
``own`` defines getopt_long itself, as gnulib's programs do: its definition, not the
model's, is the one called (it returns ``'k'`` for ``-q``, which no getopt_long of a C
library does)."""
from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest

from cooptest.core.analysis import Job
from cooptest.core.board import GoalBoard
from cooptest.core.budget import Budget
from cooptest.frontend import load_program
from cooptest.harness.executor import Executor
from cooptest.task import Environment, load_task

from test_proofs import METHODS

SYM_ARGS = (0, 2, 3)  # --sym-args: up to two arguments of three bytes
PROGRAMS: dict[str, tuple[str, dict[tuple[str, ...], int]]] = {
    "parsing": ("""#include <getopt.h>
static int flag;
static struct option longopts[] = {
  {"alpha", no_argument, &flag, 7},
  {"beta", required_argument, 0, 'b'},
  {0, 0, 0, 0}};
int main(int argc, char **argv) {
  int c, index = -1, b = 0;
  while ((c = getopt_long(argc, argv, "ab:", longopts, &index)) != -1) {
    if (c == 'b')
      b = optarg[0];
    else if (c == '?') {
      if (optopt == 0)
        return 2;
      return 3;
    }
  }
  if (flag == 7) {
    if (index == 0)
      return 4;
  }
  if (optind < argc && argv[optind][0] == 'x') {
    if (optind == 2)
      return 5;
    return 6;
  }
  if (b == 'q')
    return 7;
  return 0;
}
""", {("--a",): 4, ("x", "-a"): 5, ("--z",): 2, ("-z",): 3, ("-bq",): 7, ("x",): 6, (): 0}),
    "mixed": ("""#include <getopt.h>
#include <unistd.h>
static struct option longopts[] = {{"all", no_argument, 0, 'a'}, {0, 0, 0, 0}};
int main(int argc, char **argv) {
  int x = getopt(argc, argv, "ab");
  int y = getopt_long(argc, argv, "ab", longopts, 0);
  if (x == 'a') {
    if (y == 'b')
      return 7;
    return 1;
  }
  return 0;
}
""", {("-ab",): 7, ("-a",): 1, (): 0}),
    "own": ("""#include <string.h>
struct option;
int optind = 1;
int getopt_long(int argc, char *const argv[], const char *s, const struct option *o, int *i) {
  if (optind >= argc)
    return -1;
  if (strcmp(argv[optind++], "-q") == 0)
    return 'k';
  return '?';
}
int main(int argc, char **argv) {
  int c = getopt_long(argc, argv, "q", 0, 0);
  if (c == 'k')
    return 4;
  if (c == '?')
    return 3;
  return 0;
}
""", {("-q",): 4, ("-z",): 3, (): 0}),
}


def _source(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.c"
    path.write_text(PROGRAMS[name][0])
    return path


def _board(tmp_path: Path, name: str) -> GoalBoard:
    task = dataclasses.replace(load_task(str(_source(tmp_path, name))),
                               environment=Environment(sym_args=SYM_ARGS))
    frontend = load_program(task, str(tmp_path / "work"))
    return GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "work")))


def _inputs(argv: tuple[str, ...]) -> list[str]:
    """The environment model's inputs for the command line ``argv``: one "one more
    argument" choice per argument (and a last "no more" below the maximum), then each
    argument's bytes, NUL-padded."""
    _, most, length = SYM_ARGS
    choices = ["1"] * len(argv) + (["0"] if len(argv) < most else [])
    return choices + [str(b) for a in argv for b in a.encode().ljust(length, b"\0")]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_gccs_build_reaches_every_exit(tmp_path, name):
    """The programs' premise: on gcc's build with glibc, each command line exits as
    listed, so every goal is reachable."""
    binary = tmp_path / name
    subprocess.run(["gcc", "-o", str(binary), str(_source(tmp_path, name))], check=True)
    for argv, code in PROGRAMS[name][1].items():
        assert subprocess.run([str(binary), *argv], capture_output=True).returncode == code, argv


@pytest.mark.parametrize("name", ["parsing", "own"])
def test_the_models_runs_exit_as_gccs_build_does(tmp_path, name):
    """cooptest's build of ``parsing`` (the model's getopt_long) on the same command
    lines: the same exits, so its runs cover what glibc's parse reaches; of ``own``
    (its own getopt_long, which the model's, weak, gives way to), the program's."""
    board = _board(tmp_path, name)
    for argv, code in PROGRAMS[name][1].items():
        assert board.executor.run(_inputs(argv)).exit_code == code, argv


@pytest.mark.parametrize("method", sorted(METHODS))
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_no_method_proves_a_goal_glibcs_getopt_reaches(tmp_path, name, method):
    board = _board(tmp_path, name)
    METHODS[method]().run(board, Job(board.open(), Budget.seconds(10)))
    assert not board.infeasible, board.infeasible
