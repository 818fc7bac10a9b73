"""``cooptest export --framework plain|cmocka``: a library's suite as unit tests that
call each function with the objects its test built and check what the call did
(issue 43, item 3). The suites are written here, input by input, so that each test's
path is known."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from clitools import cooptest
from test_cli_errors import assert_one_line

from cooptest.driver.concrete import literal, value_of
from cooptest.harness.testsuite import SuiteWriter, TestCase
from cooptest.cfa.ctype import DataModel, Types
from cooptest.task import load_task

LIBRARY = """#include <assert.h>
struct acc { int total; unsigned hits; };
int counter;
int add(struct acc *a, int v) {
  if (a == 0)
    return -1;
  if (v < 0)
    return -2;
  a->total += v;
  a->hits++;
  counter++;
  return a->total;
}
int deref(int *p, int k) {
  if (k > 10)
    return *p + 1;
  return 0;
}
int check(int x) {
  assert(x != 7);
  return x * 2;
}
"""
# the first input chooses the function (add, deref, check), then each argument's
# inputs, then add's variable counter
SUITE = [["0", "0", "5", "1", "3", "10"],  # add: a = {5, 1}, v = 3, counter = 10
         ["0", "1", "4", "0"],  # add: a = NULL
         ["0", "0", "0", "0", "-3", "0"],  # add: v < 0
         ["1", "1", "20"],  # deref(NULL, 20): a crash
         ["1", "0", "0", "3"],  # deref(&0, 3)
         ["2", "-2"]]  # check(-2)


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("acc")
    lib = folder / "acc.c"
    lib.write_text(LIBRARY)
    writer = SuiteWriter(str(folder / "suite.zip"), load_task(str(lib)))
    for inputs in SUITE:
        writer.add(TestCase(inputs))
    return lib, folder / "suite.zip"


def export(library: tuple[Path, Path], out: Path, *options: str) -> subprocess.CompletedProcess:
    lib, suite = library
    return cooptest("export", lib, "--all-functions", suite, "--out", out, *options)


def branches(proc: subprocess.CompletedProcess) -> str:
    return re.search(r"branches: [\d.]+% \(\d+ out of \d+\)", proc.stdout).group(0)


@pytest.mark.slow
def test_plain_tests_check_what_each_call_did(library: tuple[Path, Path], tmp_path: Path) -> None:
    proc = export(library, tmp_path / "plain", "--framework", "plain")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "6 plain unit tests" in proc.stdout and "5 passed, 1 failing as exported" in proc.stdout
    text = (tmp_path / "plain" / "tests" / "unit_tests.c").read_text()
    add = text[text.index("static void test_add_not_a_eq_0"):]
    add = add[:add.index("\n}\n")]
    assert re.search(r"->total = 5;", add) and "v = 3;" in add and "counter = 10;" in add
    for check in (r"->total == 8\)", r"->hits == 2u\)", r"counter == 11\)", r"result == 8\)"):
        assert re.search(r"CHECK\(\w*" + check, add), (check, add)
    run = subprocess.run(["./build/unit_tests"], cwd=tmp_path / "plain", capture_output=True, text=True)
    assert re.search(r"^not ok \d+ - test_deref_k_gt_10 # is killed by SIGSEGV$", run.stdout, re.M), run.stdout
    assert run.stdout.count("\nok ") == 5
    if shutil.which("cmake"):  # the same build for CTest, a CTest test per unit test
        folder = tmp_path / "plain"
        subprocess.run(["cmake", "-S", ".", "-B", "cmake-build"], cwd=folder, capture_output=True, check=True)
        subprocess.run(["cmake", "--build", "cmake-build"], cwd=folder, capture_output=True, check=True)
        ctest = subprocess.run(["ctest", "--test-dir", "cmake-build"], cwd=folder, capture_output=True, text=True)
        assert "1 tests failed out of 6" in ctest.stdout and "test_deref_k_gt_10" in ctest.stdout
    # the tests reproduce the coverage of the suite exported as it ran (inputs and harness)
    assert branches(proc) == branches(export(library, tmp_path / "inputs"))
    # a regression oracle: a change of what add computes fails its test
    lib = tmp_path / "plain" / "acc.c"
    lib.write_text(lib.read_text().replace("a->total += v;", "a->total += v + 1;"))
    changed = subprocess.run(["make", "check"], cwd=tmp_path / "plain", capture_output=True, text=True)
    assert re.search(r"^not ok \d+ - test_add_not_a_eq_0 # checks failed$", changed.stdout, re.M)
    assert "fails: object" in changed.stdout


@pytest.mark.slow
@pytest.mark.skipif(not Path("/usr/include/cmocka.h").exists(), reason="libcmocka-dev is not installed")
def test_cmocka_tests(library: tuple[Path, Path], tmp_path: Path) -> None:
    proc = export(library, tmp_path / "cmocka", "--framework", "cmocka")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = (tmp_path / "cmocka" / "tests" / "unit_tests.c").read_text()
    assert "assert_int_equal(result, -4);" in text and "cmocka_unit_test(test_check_x_ne_7)" in text
    assert "5 passed, 1 failing as exported" in proc.stdout
    run = subprocess.run(["./build/unit_tests"], cwd=tmp_path / "cmocka", capture_output=True, text=True)
    assert "deref: the call is killed by SIGSEGV" in run.stdout + run.stderr


@pytest.mark.slow
def test_a_c90_library_is_exported_in_c90(library: tuple[Path, Path], tmp_path: Path) -> None:
    """The library, the stubs and the recorder that see its headers are compiled in the
    user's -std=c89; cooptest's runtime (C11) in its own."""
    proc = export(library, tmp_path / "c89", "--framework", "plain", "--cflags=-std=c89")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "6 plain unit tests" in proc.stdout and "5 passed, 1 failing as exported" in proc.stdout
    assert "-std=c89" in (tmp_path / "c89" / "Makefile").read_text()


def test_framework_needs_a_function(library: tuple[Path, Path], tmp_path: Path) -> None:
    lib, suite = library
    assert_one_line(cooptest("export", lib, suite, "--out", tmp_path / "x", "--framework", "plain"),
                    "--framework writes unit tests calling a library's functions")


def test_inputs_are_read_as_testcov_reads_them() -> None:
    assert value_of("0x10", "int") == 16
    assert value_of("-1", "uint") == 4294967295
    assert value_of("'a'", "char") == 97 and value_of("200", "char") == -56
    assert value_of("2", "bool") == 1 and value_of("4294967296", "bool") == 0
    assert value_of("0.1", "float") != 0.1 and value_of("0.1", "double") == 0.1
    types = Types(DataModel.LP64)
    assert literal(-2147483648, types.int) == "(-2147483647 - 1)"
    assert literal(97, types.char) == "'a'" and literal(5, types.uint) == "5u"
    assert literal(-1, types.long) == "-1LL" and literal(0.5, types.double) == "0x1.0000000000000p-1"
