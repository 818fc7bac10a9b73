"""Input sources no option made inputs (argv, stdin, a file, the environment, the clock,
the C library's random numbers): no proof method claims a goal behind them
infeasible, the run names each source once with its value, and the option that makes
one an input takes it off the list.

Every goal of these programs is reachable for some value of the source; for the
sources a test can set (argv, stdin, a file, the environment), a native run of gcc's
build shows it."""
from __future__ import annotations

import dataclasses
import json
import os
import subprocess
from pathlib import Path

import pytest

from cooptest.cfa.concrete_inputs import left_concrete
from cooptest.core.analysis import Job
from cooptest.core.board import GoalBoard
from cooptest.core.budget import Budget
from cooptest.frontend import load_program
from cooptest.harness.executor import Executor
from cooptest.task import Environment, load_task

from clitools import cooptest
from test_proofs import METHODS

# name: (source, the line of the first read, program, native runs: (argv, stdin, files, env) -> exit)
SOURCES: dict[str, tuple[str, int, str, list[tuple[list[str], bytes, dict[str, bytes], dict[str, str], int]]]] = {
    "argv": ("argv", 1, """int main(int argc, char **argv) {
  if (argc > 2) return 1;
  if (argc == 2 && argv[1][0] == 'x') return 2;
  return 0;
}
""", [([], b"", {}, {}, 0), (["x"], b"", {}, {}, 2), (["a", "b"], b"", {}, {}, 1)]),
    "stdin-getchar": ("stdin", 3, """#include <stdio.h>
int main(void) {
  int c = getchar();
  if (c == 'x') return 1;
  if (c == EOF) return 2;
  return 0;
}
""", [([], b"", {}, {}, 2), ([], b"x", {}, {}, 1), ([], b"y", {}, {}, 0)]),
    "stdin-fgets": ("stdin", 5, """#include <stdio.h>
#include <string.h>
int main(void) {
  char buf[16];
  if (!fgets(buf, sizeof buf, stdin)) return 3;
  if (strncmp(buf, "hello", 5) == 0) return 1;
  return 0;
}
""", [([], b"", {}, {}, 3), ([], b"hello\n", {}, {}, 1), ([], b"bye\n", {}, {}, 0)]),
    "stdin-scanf": ("stdin", 4, """#include <stdio.h>
int main(void) {
  int n;
  if (scanf("%d", &n) != 1) return 3;
  if (n == 4242) return 1;
  return 0;
}
""", [([], b"", {}, {}, 3), ([], b"4242", {}, {}, 1), ([], b"7", {}, {}, 0)]),
    "file": ("file 'input.dat'", 3, """#include <stdio.h>
int main(void) {
  FILE *f = fopen("input.dat", "r");
  if (!f) return 3;
  if (fgetc(f) == 'x') return 1;
  return 0;
}
""", [([], b"", {}, {}, 3), ([], b"", {"input.dat": b"x"}, {}, 1),
      ([], b"", {"input.dat": b"y"}, {}, 0)]),
    "environment": ("environment", 4, """#include <stdlib.h>
#include <string.h>
int main(void) {
  char *h = getenv("COOPTEST_PROBE");
  if (h == 0) return 3;
  if (strcmp(h, "yes") == 0) return 1;
  return 0;
}
""", [([], b"", {}, {}, 3), ([], b"", {}, {"COOPTEST_PROBE": "yes"}, 1),
      ([], b"", {}, {"COOPTEST_PROBE": "no"}, 0)]),
    "clock": ("clock", 3, """#include <time.h>
int main(void) {
  time_t t = time(0);
  if (t % 2 == 0) return 1;
  return 0;
}
""", []),
    "random": ("random numbers", 4, """#include <stdlib.h>
#include <time.h>
int main(void) {
  srand(time(0)); int r = rand();
  if (r % 7 == 3) return 1;
  return 0;
}
""", []),
}


def _write(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name.replace('-', '_')}.c"
    path.write_text(SOURCES[name][2])
    return path


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_each_source_read_is_named_once_at_its_first_read(tmp_path, name):
    source, line, _, _ = SOURCES[name]
    path = _write(tmp_path, name)
    program = load_program(load_task(str(path)), str(tmp_path / "work")).program
    named = left_concrete(program, None)
    expected = ["clock", "random numbers"] if name == "random" else [source]
    assert [c.source for c in named] == expected
    assert all(c.where == f"{path}:{line}" for c in named)


@pytest.mark.parametrize("name,env", [
    ("argv", Environment(sym_args=(0, 2, 2))), ("argv", Environment(args=("a",))),
    ("stdin-getchar", Environment(sym_stdin=4)), ("stdin-scanf", Environment(sym_stdin=6)),
    ("file", Environment(sym_files=(("input.dat", 2),)))])
def test_the_option_that_makes_a_source_an_input_takes_it_off_the_list(tmp_path, name, env):
    task = dataclasses.replace(load_task(str(_write(tmp_path, name))), environment=env)
    program = load_program(task, str(tmp_path / "work")).program
    assert left_concrete(program, env) == []


def test_a_source_main_reads_beside_the_model_is_named(tmp_path):
    """Under the environment model main is renamed; its own reads still count."""
    env = Environment(sym_stdin=4)
    task = dataclasses.replace(load_task(str(_write(tmp_path, "environment"))), environment=env)
    program = load_program(task, str(tmp_path / "work")).program
    assert [c.source for c in left_concrete(program, env)] == ["environment"]


@pytest.mark.parametrize("name", [n for n in sorted(SOURCES) if SOURCES[n][3]])
def test_every_outcome_is_reachable_natively(tmp_path, name):
    """The programs' premise, on gcc's build: each exit (so each goal) happens for some
    value of the source."""
    binary = tmp_path / "prog"
    subprocess.run(["gcc", "-o", str(binary), str(_write(tmp_path, name))], check=True)
    for argv, stdin, files, env, code in SOURCES[name][3]:
        run = tmp_path / f"run{code}"
        run.mkdir()
        for file, data in files.items():
            (run / file).write_bytes(data)
        environment = {k: v for k, v in os.environ.items() if k != "COOPTEST_PROBE"} | env
        done = subprocess.run([str(binary), *argv], input=stdin, cwd=run, env=environment)
        assert done.returncode == code, (argv, stdin, files, env)


@pytest.mark.parametrize("method", sorted(METHODS))
@pytest.mark.parametrize("name", sorted(SOURCES))
def test_no_method_proves_a_goal_behind_a_concrete_source(tmp_path, name, method):
    path = _write(tmp_path, name)
    frontend = load_program(load_task(str(path)), str(tmp_path / "work"))
    board = GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "work")))
    METHODS[method]().run(board, Job(board.open(), Budget.seconds(10)))
    assert not board.infeasible, board.infeasible


def test_the_run_names_the_source_on_stderr_and_in_report_json(tmp_path):
    """The note comes once the program is loaded: a 3-s budget ended the loading on a
    loaded machine (gcc's probes), and the report said so instead."""
    out = tmp_path / "out"
    proc = cooptest("generate", str(_write(tmp_path, "stdin-fgets")), "--strategy", "random",
                    "--budget", "8", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((out / "report.json").read_text())
    assert doc["summary"].get("analysed") is not False, doc["summary"]
    notes = [line for line in proc.stderr.splitlines() if "left concrete" in line]
    assert len(notes) == 1 and "stdin_fgets.c:5: stdin" in notes[0] and "--sym-stdin" in notes[0]
    assert [c["source"] for c in doc["left_concrete"]] == ["stdin"]
    assert doc["left_concrete"][0]["option"] == "--sym-stdin N"
