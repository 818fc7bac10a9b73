"""The C standard the user names (``-std=`` in ``--cflags``, a compilation database or
the configuration) is the one gcc reads the program in, and so is cooptest's: the same
text is another program under C90 (``-2147483648`` is an ``unsigned long`` under -m32,
``//*`` opens no comment) and under gnu89 (an ``inline`` definition is an external one).
Each program below reaches a goal in gcc's build under one standard that the other
standard makes unreachable: a claim of infeasibility valid for the wrong standard is
wrong for the user's build."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cooptest.cfa.ctype import DataModel, Types
from cooptest.frontend import load_program
from cooptest.frontend.literals import C90, int_literal
from cooptest.harness.coverage import CoverageMeter
from cooptest.harness.executor import Executor
from cooptest.sources import load_program_task
from cooptest.task import DEFAULT_STANDARD, Source

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from clitools import cooptest  # noqa: E402

HEAD = "extern int __VERIFIER_nondet_int(void);\n"
NEGATIVE = HEAD + """int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x < -2147483648) {  /* C90, -m32: x < 2147483648ul, true for x >= 0 */
    return 1;
  }
  return 0;
}
"""
COMMENT = HEAD + """#include <string.h>
#include <stdlib.h>
int main(void) {
  int x = 4 //* C90 has no line comment: this divides */ 2
    ;
  int y = __VERIFIER_nondet_int();
  if (x == 2) {
    if (y == 7) {
      return (int) strlen("a");
    }
    return 1;
  }
  return 0;
}
"""
INLINE = HEAD + """inline int next(int x) { return x + 1; }  /* gnu89: the external definition */
int main(void) {
  if (next(__VERIFIER_nondet_int()) == 3) {
    return 1;
  }
  return 0;
}
"""
# (program, data model, the standard whose build reaches B1T, the one whose does not)
CASES = {"negative": (NEGATIVE, DataModel.ILP32, "gnu89", "gnu11"),
         "comment": (COMMENT, DataModel.LP64, "c89", "c99")}
LITERALS = ("2147483648", "4294967295", "4294967296", "2147483648l", "4294967296l",
            "9223372036854775807", "9223372036854775808", "18446744073709551615",
            "0x80000000", "0xffffffffffffffff", "4294967295u", "2147483647", "9223372036854775808ll",
            "18446744073709551615l", "0xffffffffffffffffll", "99999999999999999999u")


def gccs_run(tmp_path: Path, source: str, flags: list[str], value: int) -> int:
    """The exit status of gcc's build of ``source`` with ``flags``, the nondet int
    ``value``: the user's program as the user compiles it."""
    program, stub = tmp_path / "gcc.c", tmp_path / "stub.c"
    program.write_text(source)
    stub.write_text(f"int __VERIFIER_nondet_int(void) {{ return {value}; }}\n")
    exe = tmp_path / "gcc"
    subprocess.run(["gcc", "-w", *flags, "-c", program, "-o", tmp_path / "gcc.o"], check=True)
    subprocess.run(["gcc", "-w", flags[-1], tmp_path / "gcc.o", stub, "-o", exe], check=True)
    return subprocess.run([exe]).returncode


def generate(tmp_path: Path, source: str, flags: str, strategy: str) -> dict[str, str]:
    """Goal -> status of ``generate``, after checking that the suite's native replay
    covers exactly the goals the report says are covered."""
    program, out = tmp_path / "p.c", tmp_path / f"out-{strategy}"
    program.write_text(source)
    r = cooptest("generate", program, f"--cflags={flags}", "--strategy", strategy, "--budget", 10,
                 "--out", out, "--quiet")
    assert r.returncode == 0, r.stderr
    goals = {g["id"]: g["status"] for g in json.loads((out / "report.json").read_text())["goals"]}
    replayed = cooptest("replay", program, out / "test-suite.zip", f"--cflags={flags}", "--json")
    assert replayed.returncode == 0, replayed.stderr
    covered = set().union(*(set(t["covers"]) for t in json.loads(replayed.stdout)))
    assert covered == {g for g, status in goals.items() if status == "covered"}
    return goals


def test_a_units_standard_is_the_last_it_names() -> None:
    assert Source("/p.c").standard == DEFAULT_STANDARD
    assert Source("/p.c", ("-std=c99", "-O2", "-std=gnu89")).standard == "-std=gnu89"
    assert Source("/p.c", ("-std=c11", "-ansi")).standard == "-std=c90"
    assert Source("/p.c", ("-ansi", "-std=c2x")).standard == "-std=c2x"


def test_a_compilation_databases_standard_is_the_units(tmp_path: Path) -> None:
    program = tmp_path / "p.c"
    program.write_text(NEGATIVE)
    (tmp_path / "compile_commands.json").write_text(json.dumps([
        {"directory": str(tmp_path), "file": "p.c", "command": "cc -O2 -std=gnu89 -Wall -c p.c -o p.o"}]))
    task = load_program_task([], None, (), str(tmp_path / "compile_commands.json"))
    assert [u.standard for u in task.units] == ["-std=gnu89"]


@pytest.mark.parametrize("model", [DataModel.ILP32, DataModel.LP64], ids=lambda m: m.value)
@pytest.mark.parametrize("standard", ["-std=gnu89", "-std=c99", "-std=gnu11"])
def test_integer_constants_have_gccs_types(tmp_path: Path, model: DataModel, standard: str) -> None:
    """Each constant's size, signedness and sign as gcc's build of it says, C90
    (decimal constants past ``long`` are unsigned) and C99 (past ``long long``: -m64's
    ``__int128``, -m32's ``long long`` wrapped) alike."""
    probes = "".join(f'  printf("%zu %d %d\\n", sizeof({c}), ({c}) * 0 - 1 < 0, ({c}) > 0);\n'
                     for c in LITERALS)
    (tmp_path / "c.c").write_text(f"#include <stdio.h>\nint main(void) {{\n{probes}  return 0;\n}}\n")
    subprocess.run(["gcc", "-w", standard, model.gcc_flag, tmp_path / "c.c", "-o", tmp_path / "c"], check=True)
    gcc = subprocess.run([tmp_path / "c"], capture_output=True, text=True, check=True).stdout.splitlines()
    types = Types(model)
    for text, line in zip(LITERALS, gcc):
        c = int_literal(types, text, standard in C90)
        assert c is not None and isinstance(c.value, int)
        assert f"{types.sizeof(c.type)} {int(c.type.signed)} {int(c.value > 0)}" == line, (text, c)


@pytest.mark.parametrize("case", sorted(CASES))
def test_verdicts_follow_the_users_standard(tmp_path: Path, case: str) -> None:
    """gcc's build under the user's standard reaches B1T (x = 5, y = 7): no strategy
    claims it infeasible, and the suite covers it when replayed; under the other
    standard gcc's build does not reach it, and a prover says so."""
    source, model, reaching, other = CASES[case]
    assert gccs_run(tmp_path, source, [f"-std={reaching}", model.gcc_flag], 7) == 1
    assert gccs_run(tmp_path, source, [f"-std={other}", model.gcc_flag], 7) == 0
    for strategy in ("auto", "chc", "predicate", "value"):
        goals = generate(tmp_path, source, f"-std={reaching} {model.gcc_flag}", strategy)
        assert goals["B1T"] != "infeasible", (strategy, goals)
        if strategy == "auto":
            assert goals["B1T"] == "covered", goals
    assert generate(tmp_path, source, f"-std={other} {model.gcc_flag}", "auto")["B1T"] == "infeasible"


def test_a_gnu89_inline_definition_is_the_program_s(tmp_path: Path) -> None:
    """Under gnu89 ``inline int next(…) {…}`` defines ``next`` for the linker, and the
    instrumented build is compiled so; under C99 it is an inline definition only, the
    function is defined nowhere and the program does not link, as gcc's does not."""
    assert gccs_run(tmp_path, INLINE, ["-std=gnu89", "-m64"], 2) == 1
    goals = generate(tmp_path, INLINE, "-std=gnu89", "auto")
    assert goals == {"B1T": "covered", "B1F": "covered"}
    program = tmp_path / "p.c"
    refused = cooptest("generate", program, "--cflags=-std=gnu11", "--budget", 10,
                       "--out", tmp_path / "c99", "--quiet")
    assert refused.returncode == 2 and "next() is called but defined nowhere" in refused.stderr


def test_both_builds_are_compiled_in_the_units_standard(tmp_path: Path) -> None:
    """A strict C90 unit that includes the C library's headers (whose ``__inline`` the
    front end spells ``inline``) builds, and its native runs take C90's branches, in
    the instrumented build and in the coverage build (gcov's notes found under the
    object's name)."""
    program = tmp_path / "p.c"
    program.write_text(COMMENT)
    task = load_program_task([str(program)], None, ("-std=c89",))
    frontend = load_program(task, str(tmp_path / "work"))
    executor = Executor(frontend, str(tmp_path / "build"))
    assert list((tmp_path / "build").glob("*-c89-instrumented.o"))
    assert {"B1T", "B2T"} <= executor.run(["7"]).covered
    meter = CoverageMeter(task, frontend.preprocessed, str(tmp_path / "coverage"))
    line = next(n for n, text in enumerate(COMMENT.splitlines(), 1) if "x == 2" in text)
    assert {meter.goal_lines[g] for g in meter.covered_by(["7"])} == {line, line + 1}
