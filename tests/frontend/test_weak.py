"""Weak functions as the linker resolves them: a strong definition in another unit
overrides a weak one, and a weak one alone is the definition. The CFA has the function
gcc's build calls, so a proof about the call's result holds for that build."""
from __future__ import annotations

import subprocess
from pathlib import Path

from cooptest.analyses.reachability import ValueAnalysis
from cooptest.core.analysis import Job
from cooptest.core.board import GoalBoard
from cooptest.core.budget import Budget
from cooptest.frontend import load_program
from cooptest.harness.executor import Executor
from cooptest.sources import load_program_task

MAIN = """extern int __VERIFIER_nondet_int(void);
int mode(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (mode() == 7) {
    if (x) return 1;
    return 2;
  }
  return 0;
}
"""
STRONG = "int mode(void) { return 7; }\n"
WEAK = "__attribute__((weak)) int mode(void) { return 0; }\n"


def written(tmp_path: Path, units: dict[str, str]) -> list[str]:
    for name, text in units.items():
        (tmp_path / name).write_text(text)
    return [str(tmp_path / name) for name in units]


def board_of(tmp_path: Path, units: dict[str, str]) -> GoalBoard:
    frontend = load_program(load_program_task(written(tmp_path, units), None, ()), str(tmp_path / "work"))
    return GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "work")))


def gccs_exit(tmp_path: Path, units: dict[str, str], x: str) -> int:
    nondet = tmp_path / "nondet.c"
    nondet.write_text("#include <stdio.h>\nint __VERIFIER_nondet_int(void) { int v = 0; "
                      "scanf(\"%d\", &v); return v; }\n")
    subprocess.run(["gcc", "-w", *written(tmp_path, units), str(nondet), "-o",
                    str(tmp_path / "native")], check=True)
    return subprocess.run([str(tmp_path / "native")], input=x + "\n", text=True).returncode


def proved_and_covered(board: GoalBoard) -> tuple[set[str], set[str]]:
    covered = set().union(*(board.executor.run([x]).covered for x in ("0", "1")))
    ValueAnalysis().run(board, Job(board.open(), Budget.seconds(20)))
    return set(board.infeasible), covered


def test_a_strong_definition_overrides_a_weak_one_in_either_order(tmp_path: Path) -> None:
    for order in (("main.c", "weak.c", "strong.c"), ("main.c", "strong.c", "weak.c")):
        folder = tmp_path / order[1]
        folder.mkdir()
        units = {name: {"main.c": MAIN, "weak.c": WEAK, "strong.c": STRONG}[name] for name in order}
        assert gccs_exit(folder, units, "1") == 1
        board = board_of(folder, units)
        proved, covered = proved_and_covered(board)
        assert len(covered) == 3 and len(proved) == 1  # mode() == 7: its false outcome only
        assert not proved & covered


def test_a_weak_definition_alone_is_the_definition(tmp_path: Path) -> None:
    units = {"main.c": MAIN, "weak.c": WEAK}
    assert gccs_exit(tmp_path, units, "1") == 0
    proved, covered = proved_and_covered(board_of(tmp_path, units))
    assert len(covered) == 1 and len(proved) == 3 and not proved & covered
