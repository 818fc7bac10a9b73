"""``cooptest generate lib.c --function NAME``: cooptest writes the harness of a library's
functions (issue 43), with stubs for what the library declares and defines nowhere,
and reports each function's goals; the harness's own code has none."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from clitools import REPO, cooptest
from test_cli_errors import assert_one_line

from cooptest.driver import attach_harness
from cooptest.task import load_task

LIBRARY = REPO / "tests" / "data" / "library"
RING = LIBRARY / "ring.c"
TESTED = ("ring_push", "ring_pop", "ring_push_all", "ring_visit", "ring_is_full", "ring_label",
          "chain_length", "ring_refill", "ring_account", "ring_traced_push")


@pytest.fixture(scope="module")
def ring_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("ring")
    args = [a for name in TESTED for a in ("--function", name)]
    # the run ends once every goal is decided (25 s on an idle machine): the budget is
    # for a loaded one
    proc = cooptest("generate", RING, *args, "--budget", "60", "--out", out, "--quiet")
    assert proc.returncode == 0, proc.stderr
    return out, json.loads((out / "report.json").read_text())


def goal(doc: dict, line: int, outcome: str) -> dict:
    """The goal of the branch on ``line`` (its first condition) taking ``outcome`` (T/F)."""
    found = [g for g in doc["goals"] if g["line"] == line and g["id"].endswith(outcome)]
    return min(found, key=lambda g: int(g["id"][1:-1]))


@pytest.mark.slow
def test_every_goal_of_the_functions_is_covered(ring_run: tuple[Path, dict]) -> None:
    _, doc = ring_run
    assert set(doc["functions"]) == set(TESTED)
    for name, counts in doc["functions"].items():
        assert counts["goals"] > 0, name
        assert counts["covered"] == counts["goals"], (name, counts)
        assert counts["cov_f"] == 100.0
    assert doc["configuration"]["function"] == list(TESTED)


@pytest.mark.slow
def test_the_harness_has_no_goals(ring_run: tuple[Path, dict]) -> None:
    _, doc = ring_run
    assert {g["file"] for g in doc["goals"]} == {str(RING)}
    untested = {g["function"] for g in doc["goals"]} - set(TESTED) - {"ring_push"}
    for g in doc["goals"]:
        if g["function"] in untested:  # no call reaches them
            assert g["status"] == "infeasible", g


@pytest.mark.slow
def test_null_checks_and_stub_results_drive_branches(ring_run: tuple[Path, dict]) -> None:
    _, doc = ring_run
    source = RING.read_text().splitlines()
    line = {text: n for n, text in enumerate(source, 1)}
    for text in ("  if (r == NULL)", "  if (v < 0)", "  if (v == 0x1234)"):
        n = line[text]  # the first such line: ring_push's NULL check; ring_refill's v
        for outcome in "TF":
            assert goal(doc, n, outcome)["status"] == "covered", (text, outcome)
    assert doc["harness"]["stubs"] == ["device_read"]


@pytest.mark.slow
def test_the_harness_is_in_out_and_compiles(ring_run: tuple[Path, dict], tmp_path: Path) -> None:
    out, doc = ring_run
    harness = out / "harness.c"
    assert doc["harness"]["file"] == "harness.c"
    text = harness.read_text()
    assert "int device_read(int a0)" in text and "int main(void)" in text
    nondet = tmp_path / "nondet.c"
    nondet.write_text("#define N(t, n) t __VERIFIER_nondet_##n(void) { return 0; }\n"
                      "N(_Bool, bool) N(char, char) N(unsigned char, uchar) N(int, int)\n"
                      "N(unsigned int, uint)\n")
    exe = tmp_path / "ring"
    subprocess.run(["gcc", "-Wall", "-Werror", "-I", str(LIBRARY), str(harness), str(RING),
                    str(nondet), "-o", str(exe)], check=True, capture_output=True)
    assert subprocess.run([str(exe)]).returncode == 0


@pytest.mark.slow
def test_the_export_counts_the_library_only(ring_run: tuple[Path, dict], tmp_path: Path) -> None:
    """``export`` with the same options rebuilds the harness: every test passes, and
    gcovr counts the library's lines and branches, never the harness's."""
    out, doc = ring_run
    export = tmp_path / "unit-tests"
    args = [a for name in TESTED for a in ("--function", name)]
    proc = cooptest("export", RING, out / "test-suite.zip", *args, "--out", export, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"make check: {doc['summary']['tests']} passed, 0 failed" in proc.stdout
    assert "branches: 100.0%" in proc.stdout  # ring.c's, by gcov
    assert {p.name for p in export.iterdir()} >= {"ring.c", "ring.h", "device.h", "cooptest"}
    assert any((export / "cooptest" / "include").iterdir())  # the harness's code, apart


def test_harness_rules(tmp_path: Path) -> None:
    """NULL or an object, enums over their constants, arrays with their length,
    strings, callbacks, a bounded chain."""
    task = attach_harness(load_task(str(RING)), ("ring_push_all", "ring_visit", "ring_label",
                                                  "chain_length"), max_depth=1, max_array=4)
    text = task.harness.text
    assert "r = 0;" in text  # NULL, chosen by an input
    assert "RING_REJECT : " in text and "RING_OVERWRITE : __VERIFIER_nondet_int()" in text
    assert "n = length" in text and "% 5u" in text  # values' length is n, at most 4
    assert "char *object" in text and "calloc(5, sizeof *object" in text  # the label: a string
    assert "static int callback" in text and "visit = k" in text
    assert "/* deeper than --max-depth */" in text
    assert "context = (void *)object" in text  # a void *: a buffer of bytes (README), no refusal
    assert subprocess.run(["gcc", "-fsyntax-only", "-I", str(LIBRARY), "-x", "c", "-"],
                          input=text, text=True, capture_output=True).returncode == 0


def test_globals_are_inputs_unless_kept() -> None:
    """The variables a function (or what it calls) refers to are inputs before the call;
    a static one, which no other file sees, and with --keep-globals every one, keep their
    initial values."""
    task = attach_harness(load_task(str(RING)), ("ring_traced_push",))
    assert task.harness.globals == ("ring_trace", "ring_traced")
    assert "  ring_trace = __VERIFIER_nondet_int();" in task.harness.text
    assert "ring_calls =" not in task.harness.text
    kept = attach_harness(load_task(str(RING)), ("ring_traced_push",), keep_globals=True)
    assert kept.harness.globals == () and "ring_trace =" not in kept.harness.text


TYPEDEFS = """typedef struct node { int v; struct node *next; } node_t, *node_p;
typedef struct { int q; } *anon_p;
int sum(node_p list, anon_p a, int grid[4]) {
  int s = 0;
  while (list != 0) {
    s += list->v;
    list = list->next;
  }
  if (a != 0 && a->q == 3)
    s++;
  if (grid != 0 && grid[3] == 2)
    s++;
  return s;
}
"""


@pytest.mark.slow
def test_typedefs_and_array_parameters(tmp_path: Path) -> None:
    """One definition shared by two typedefs is written once (in the harness and in
    the instrumented build); a struct only a pointer typedef names is made all the
    same; an array parameter points to as many elements as it declares."""
    lib = tmp_path / "list.c"
    lib.write_text(TYPEDEFS)
    text = attach_harness(load_task(str(lib)), ("sum",)).harness.text
    assert "calloc(4, sizeof *object" in text
    proc = cooptest("generate", lib, "--function", "sum", "--budget", "30", "--out", tmp_path / "o",
                    "--quiet")
    assert proc.returncode == 0, proc.stderr
    counts = json.loads((tmp_path / "o" / "report.json").read_text())["functions"]["sum"]
    assert counts["covered"] == counts["goals"] == 10


def test_array_lengths() -> None:
    """A length is the integer parameter named as one beside a pointer: after it, else
    before; one length for one array."""
    from cooptest.cfa.ctype import DataModel, FunctionType, Types
    from cooptest.driver import array_lengths
    t = Types(DataModel.LP64)
    p, n = t.pointer(t.int), t.ulong
    assert array_lengths(["values", "n"], [p, n]) == {0: "n"}
    assert array_lengths(["count", "values"], [n, p]) == {1: "count"}
    assert array_lengths(["dst", "src", "len"], [p, p, n]) == {1: "len"}
    assert array_lengths(["r", "value"], [p, t.int]) == {}
    assert array_lengths(["f", "n"], [t.pointer(FunctionType(t.int, ())), n]) == {}


def test_all_functions_leave_out_what_no_harness_calls(tmp_path: Path) -> None:
    """--all-functions: every function another file can call, but main, static ones
    and those no harness can call, which the report lists with the reason."""
    lib = tmp_path / "tool.c"
    lib.write_text("#include <stdio.h>\nint f(FILE *in) { return fgetc(in); }\n"
                   "int g(int n, ...) { return n; }\nstatic int h(int x) { return x; }\n"
                   "int k(int x) { if (x > 3) return h(x); return 0; }\n"
                   "int main(void) { return k(1); }\n")
    harness = attach_harness(load_task(str(lib)), ()).harness
    assert harness.functions == ("k",)
    skipped = harness.describe()["skipped"]
    assert set(skipped) == {"f", "g"} and "FILE *" in skipped["f"] and "variadic" in skipped["g"]
    only_variadic = tmp_path / "v.c"
    only_variadic.write_text("int g(int n, ...) { return n; }\n")
    assert_one_line(cooptest("cfa", only_variadic, "--all-functions"),
                    "--all-functions: no function a harness can call")
    assert_one_line(cooptest("cfa", lib, "--all-functions", "--function", "k"),
                    "either --function NAME or --all-functions")


def test_the_library_main_is_renamed(tmp_path: Path) -> None:
    lib = tmp_path / "tool.c"
    lib.write_text("int twice(int x) {\n  if (x > 100)\n    return 0;\n  return 2 * x;\n}\n"
                   "int main(void) { return twice(3); }\n")
    proc = cooptest("cfa", lib, "--function", "twice", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["branch_goals"] == 2  # twice's; not the harness's


@pytest.mark.parametrize("source, function, message", [
    ("int f(int x) { return x; }\n", "g", "--function g: no such function in lib.c"),
    ("int f(int x);\nint h(void) { return f(1); }\n", "f", "--function f: declared but defined in none"),
    ("static int f(int x) { return x; }\nint h(void) { return f(1); }\n", "f", "--function f: static"),
    ("int f(int n, ...) { return n; }\n", "f", "--function f: variadic"),
    ("#include <stdio.h>\nint f(FILE *in) { return fgetc(in); }\n", "f", "parameter in of f is a FILE *"),
])
def test_bad_functions_are_one_line(tmp_path: Path, source: str, function: str, message: str) -> None:
    lib = tmp_path / "lib.c"
    lib.write_text(source)
    assert_one_line(cooptest("cfa", lib, "--function", function), message)


def test_function_takes_no_environment(tmp_path: Path) -> None:
    assert_one_line(cooptest("cfa", RING, "--function", "ring_push", "--sym-stdin", "4"),
                    "--function makes the program's main")


def test_a_header_holding_code_is_declared_not_included(tmp_path: Path) -> None:
    """jsmn.h holds jsmn_parse's code, ringbuffer.h C99 inline functions: the harness
    that included them would define them a second time."""
    (tmp_path / "tok.h").write_text("#include <stddef.h>\ntypedef struct { size_t pos; } tok_t;\n"
                                    "int tok_next(tok_t *t, size_t n) {\n  if (t->pos < n)\n"
                                    "    return (int)t->pos++;\n  return -1;\n}\n"
                                    "inline int tok_done(tok_t *t) { return t->pos == 0; }\n")
    (tmp_path / "tok.c").write_text('#include "tok.h"\nextern inline int tok_done(tok_t *t);\n')
    proc = cooptest("cfa", tmp_path / "tok.c", "--function", "tok_next", "--function", "tok_done", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["branch_goals"] == 2  # tok_next's
