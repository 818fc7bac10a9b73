"""Flags of the user's build that change what the C text means (``-funsigned-char``,
``-fwrapv``) are gcc's for every build cooptest makes and the CFA's where it models
them; those it does not model (``-fshort-enums``, ``-fpack-struct``) are refused, not
dropped: a goal gcc's build reaches must never be proved infeasible under a flag
cooptest ignored."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cooptest.cfa.ctype import DataModel, Types
from cooptest.frontend import load_program
from cooptest.frontend.literals import char_literal
from cooptest.harness.coverage import CoverageMeter
from cooptest.harness.executor import Executor
from cooptest.sources import load_program_task
from cooptest.task import Source

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from clitools import cooptest  # noqa: E402

CHAR = """extern char __VERIFIER_nondet_char(void);
int main(void) {
  char c = __VERIFIER_nondet_char();
  if (c < 0) return 1;    /* B1T: signed char only */
  if (c > 127) return 2;  /* B2T: unsigned char only */
  return 0;
}
"""


def gccs_run(tmp_path: Path, flags: list[str], value: int) -> int:
    """The exit status of gcc's build of CHAR with ``flags``, the nondet char ``value``."""
    program, stub, exe = tmp_path / "gcc.c", tmp_path / "stub.c", tmp_path / "gcc"
    program.write_text(CHAR)
    stub.write_text(f"char __VERIFIER_nondet_char(void) {{ return (char){value}; }}\n")
    subprocess.run(["gcc", "-w", *flags, program, stub, "-o", exe], check=True)
    return subprocess.run([exe]).returncode


def generate(tmp_path: Path, flags: str) -> dict[str, str]:
    """Goal -> status of ``generate --strategy auto``, after checking that the suite's
    native replay covers exactly the goals the report says are covered."""
    program, out = tmp_path / "p.c", tmp_path / f"out{flags}"
    program.write_text(CHAR)
    r = cooptest("generate", program, f"--cflags={flags}", "--strategy", "auto", "--budget", 20,
                 "--out", out, "--quiet")
    assert r.returncode == 0, r.stderr
    report = json.loads((out / "report.json").read_text())
    goals = {g["id"]: g["status"] for g in report["goals"]}
    replayed = cooptest("replay", program, out / "test-suite.zip", f"--cflags={flags}", "--json")
    assert replayed.returncode == 0, replayed.stderr
    covered = set().union(*(set(t["covers"]) for t in json.loads(replayed.stdout)))
    assert covered == {g for g, status in goals.items() if status == "covered"}
    return goals


def test_unsigned_char_is_the_programs(tmp_path: Path) -> None:
    """gcc's -funsigned-char build takes ``c > 127`` (c = 200): it is covered, never
    infeasible, and ``c < 0`` is not covered."""
    assert gccs_run(tmp_path, ["-funsigned-char"], 200) == 2
    goals = generate(tmp_path, "-funsigned-char")
    assert goals["B2T"] == "covered"
    assert goals["B1T"] != "covered"


@pytest.mark.parametrize("flags", ["", "-fsigned-char", "-funsigned-char -fno-unsigned-char"])
def test_signed_char_is_handled_as_before(tmp_path: Path, flags: str) -> None:
    """Under gcc's default (and the flags that restore it) ``c < 0`` is taken and
    ``c > 127`` is not."""
    assert gccs_run(tmp_path, flags.split(), 200) == 1
    goals = generate(tmp_path, flags)
    assert goals["B1T"] == "covered"
    assert goals["B2T"] != "covered"


def test_both_builds_take_the_flag(tmp_path: Path) -> None:
    """The instrumented build and the coverage build compile the unit with
    -funsigned-char: the input 200 takes ``c > 127`` in both."""
    program = tmp_path / "p.c"
    program.write_text(CHAR)
    task = load_program_task([str(program)], None, ("-funsigned-char",))
    frontend = load_program(task, str(tmp_path / "work"))
    assert "B2T" in Executor(frontend, str(tmp_path / "build")).run(["200"]).covered
    meter = CoverageMeter(task, frontend.preprocessed, str(tmp_path / "coverage"))
    line = next(n for n, text in enumerate(CHAR.splitlines(), 1) if "c > 127" in text)
    assert line in {meter.goal_lines[g] for g in meter.covered_by(["200"])}


def test_a_units_dialect_is_its_standard_and_semantic_flags() -> None:
    assert Source("/p.c").dialect == ("-std=gnu11",)
    source = Source("/p.c", ("-funsigned-char", "-O2", "-fwrapv", "-fsigned-char", "-std=c99"))
    assert source.dialect == ("-std=c99", "-fsigned-char", "-fwrapv")
    assert not source.unsigned_char
    assert Source("/p.c", ("-fno-signed-char",)).unsigned_char


@pytest.mark.parametrize("flag", ["-fshort-enums", "-fpack-struct", "-fshort-wchar", "-funsigned-bitfields"])
def test_an_unmodelled_flag_is_refused(tmp_path: Path, flag: str) -> None:
    program = tmp_path / "p.c"
    program.write_text(CHAR)
    r = cooptest("generate", program, f"--cflags={flag}", "--budget", 5, "--out", tmp_path / "out", "--quiet")
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and flag in r.stderr, r.stderr


def test_a_character_constant_has_the_value_of_a_plain_char(tmp_path: Path) -> None:
    """``'\\xff'`` is an int holding a char's value: -1 signed, 255 under -funsigned-char."""
    probe = tmp_path / "c.c"
    probe.write_text("#include <stdio.h>\nint main(void) { printf(\"%d\\n\", '\\xff'); return 0; }\n")
    for unsigned in (False, True):
        subprocess.run(["gcc", *(["-funsigned-char"] if unsigned else []), probe, "-o", tmp_path / "c"], check=True)
        gcc = int(subprocess.run([tmp_path / "c"], capture_output=True, text=True, check=True).stdout)
        assert char_literal(Types(DataModel.LP64, unsigned), r"'\xff'").value == gcc


def test_the_environment_model_shares_the_programs_char(tmp_path: Path) -> None:
    """With ``--sym-args`` the program runs in cooptest's environment model, a unit of
    its own: it takes the program's -funsigned-char (the CFA has one plain char), and
    a byte of 200 from argv takes ``c > 127``."""
    program, out = tmp_path / "p.c", tmp_path / "out"
    program.write_text("int main(int argc, char **argv) {\n  if (argc > 1) {\n    char c = argv[1][0];\n"
                       "    if (c > 127) return 2;\n  }\n  return 0;\n}\n")
    r = cooptest("generate", program, "--cflags=-funsigned-char", "--sym-args", 1, 1, 2, "--strategy", "auto",
                 "--budget", 20, "--out", out, "--quiet")
    assert r.returncode == 0, r.stderr
    goals = {g["id"]: g["status"] for g in json.loads((out / "report.json").read_text())["goals"]}
    assert goals["B2T"] == "covered", goals  # B1: argc > 1, B2: c > 127


def test_units_that_disagree_on_char_are_refused_at_load(tmp_path: Path) -> None:
    """A compilation database whose units differ in plain char's sign: one line, exit 2,
    from the command that reads it (the CFA has one ``char``)."""
    for name in ("a.c", "b.c"):
        (tmp_path / name).write_text(CHAR if name == "a.c" else "int helper(void) { return 1; }\n")
    (tmp_path / "compile_commands.json").write_text(json.dumps([
        {"directory": str(tmp_path), "file": "a.c", "command": "gcc -funsigned-char -c a.c"},
        {"directory": str(tmp_path), "file": "b.c", "command": "gcc -c b.c"}]))
    r = cooptest("cfa", "--compile-commands", tmp_path / "compile_commands.json")
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "-funsigned-char for some translation units" in r.stderr
