"""Bad input of any kind: exactly one line ``cooptest: …`` on stderr, exit code 2, never
a traceback."""
from __future__ import annotations

from pathlib import Path

import pytest

from clitools import cooptest


def assert_one_line(proc, *fragments: str) -> None:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("cooptest: ")
    assert "Traceback" not in proc.stderr
    for f in fragments:
        assert f in lines[0]


def test_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "nothere.c"
    assert_one_line(cooptest("generate", missing, "--budget", "1", "--out", tmp_path / "o"),
                    f"cooptest: {missing}: no such file")


def test_not_c_source(tmp_path: Path) -> None:
    prog = tmp_path / "prose.c"
    prog.write_text("This is a letter, not a program.\n")
    assert_one_line(cooptest("cfa", prog), f"{prog}:1:", "not C")


def test_not_a_c_file_by_name(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("int main(void) { return 0; }\n")
    assert_one_line(cooptest("cfa", notes), f"{notes}:", "not a C file")


def test_binary_file(tmp_path: Path) -> None:
    prog = tmp_path / "blob.c"
    prog.write_bytes(b"\x7fELF\x00\x01\x02")
    assert_one_line(cooptest("cfa", prog), "binary")


def test_unsupported_construct(tmp_path: Path) -> None:
    prog = tmp_path / "switch.c"
    prog.write_text("int main(void) {\n  double d = 1.5;\n  switch (d) { case 1: return 0; }\n"
                    "  return 1;\n}\n")
    assert_one_line(cooptest("cfa", prog), f"{prog}:3:", "unsupported construct")


@pytest.mark.parametrize("args", [
    ["generate", "X.c", "--budget", "1", "--out", "o", "--bogus"],
    ["generate", "X.c", "--budget", "nan", "--out", "o"],
    ["generate", "X.c", "--budget", "-3", "--out", "o"],
    ["generate", "X.c", "--budget", "1", "--out", "o", "--strategy", "magic"],
    ["frobnicate"],
    [],
])
def test_bad_options(args: list[str]) -> None:
    assert_one_line(cooptest(*args), "see cooptest")


@pytest.mark.parametrize("strategy", ["random", "value", "crabs"])
def test_max_iterations_of_a_strategy_without_its_own_concolic_search(tmp_path: Path, triangle: Path,
                                                                   strategy: str) -> None:
    """An option that would change nothing is refused, not ignored (crabs starts a fresh
    execution tree each round: N iterations per round is not CREST's N)."""
    assert_one_line(cooptest("generate", triangle, "--budget", "2", "--out", tmp_path, "--strategy",
                             strategy, "--max-iterations", "10"),
                    "--max-iterations applies to strategies with concolic search")


def test_bad_suite(tmp_path: Path, triangle: Path) -> None:
    junk = tmp_path / "suite.zip"
    junk.write_text("not a zip")
    assert_one_line(cooptest("coverage", triangle, junk), str(junk))


@pytest.mark.parametrize("callee, why", [
    ("helper", "helper() is called but defined nowhere"),
    ("reach_error", "reach_error() is declared but not defined"),
])
def test_function_without_definition(tmp_path: Path, callee: str, why: str) -> None:
    """The linker names cooptest's instrumented copy and no line: the message names the
    user's file and the first call. The link fails while loading, which counts against
    the budget: 2 s were spent by then on a loaded machine (1 run in 3 said "stopped
    by the end of the budget before the program was analysed")."""
    prog = tmp_path / "extern.c"
    prog.write_text(f"extern int __VERIFIER_nondet_int(void);\nint {callee}(void);\n"
                    f"int main(void) {{\n  if (__VERIFIER_nondet_int())\n    {callee}();\n"
                    "  return 0;\n}\n")
    assert_one_line(cooptest("generate", prog, "--budget", "20", "--out", tmp_path / "o"),
                    f"{prog}:5: {why}")
