"""``cooptest export`` of a program of several files stands alone: every translation
unit and project header is copied in its layout, each unit is built with its own flags,
``make check`` and ``make coverage`` pass in a copy of the folder made elsewhere, gcovr
counts every project file, and a build that fails says why in the compiler's words."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from clitools import HEADERONLY

from clitools import cooptest
from cooptest.harness.testsuite import SuiteWriter, TestCase, read_suite
from cooptest.report.export import first_error
from cooptest.sources import load_program_task

HEADER = HEADERONLY / "lib" / "ring.h"


def fresh_copy(export: Path, tmp_path: Path) -> Path:
    """The export's files in a new folder elsewhere, without what its own make left."""
    copy = tmp_path / "elsewhere" / "unit-tests"
    shutil.copytree(export, copy, ignore=lambda folder, names: [
        n for n in names if folder == str(export) and n in ("build", "cov", "coverage")])
    return copy


def make(folder: Path, target: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "--no-print-directory", "-C", folder, target,
                           f"GCOVR={sys.executable} -m gcovr"], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=300)


def gcovr_files(folder: Path) -> dict[str, dict]:
    summary = json.loads((folder / "coverage" / "summary.json").read_text())
    return {f["filename"]: f for f in summary["files"]}


@pytest.fixture(scope="module")
def library_export(headeronly_out: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export-headeronly") / "unit-tests"
    proc = cooptest("export", HEADERONLY / "harness.c", headeronly_out / "test-suite.zip",
                    "-I", HEADERONLY / "lib", "--out", out, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    tests = read_suite(str(headeronly_out / "test-suite.zip"))
    assert f"make check: {len(tests)} passed, 0 failed" in proc.stdout
    return out


@pytest.mark.slow  # the run on the library takes its 10-s budget
def test_a_header_only_library_exports_standing_alone(library_export: Path, headeronly_out: Path,
                                                      tmp_path: Path) -> None:
    """gcovr's branch coverage of ring.h in a fresh copy of the export agrees with what
    ``cooptest coverage`` says of the header.

    The two count different things in general: gcov counts the arcs out of each
    conditional jump gcc emitted (``a && b`` is two jumps, four arcs), TestCov-style goals
    are the labels of each branch's arms (``a && b`` is one if, two arms; a ``for`` is its
    body and the point after it). For a header whose conditions are single comparisons in
    ``if`` and ``for`` statements, as ring.h's are, each condition is one jump with two
    arcs, taken exactly when its then-arm (body) or else-arm (the point after) is reached:
    the same pairs, so the same percentage. What is compared is gcovr's
    ``branch_percent`` of lib/ring.h against cooptest coverage's figure for that file,
    from the same suite."""
    makefile = (library_export / "Makefile").read_text()
    assert str(HEADERONLY) not in makefile and "-Ilib " in makefile
    assert (library_export / "lib" / "ring.h").read_text() == HEADER.read_text()
    copy = fresh_copy(library_export, tmp_path)
    check = make(copy, "check")
    tests = read_suite(str(headeronly_out / "test-suite.zip"))
    assert check.returncode == 0 and f"{len(tests)} passed, 0 failed" in check.stdout, check.stderr
    coverage = make(copy, "coverage")
    assert coverage.returncode == 0, coverage.stderr
    files = gcovr_files(copy)
    assert set(files) == {"harness.c", "lib/ring.h"}  # the project's files, not the tests'
    gcovr = files["lib/ring.h"]
    assert gcovr["branch_total"] == 10 and gcovr["line_covered"] > 0
    ours = json.loads(cooptest("coverage", HEADERONLY / "harness.c", headeronly_out / "test-suite.zip",
                               "-I", HEADERONLY / "lib", "--json").stdout)
    header = next(f for f in ours["files"] if f["file"] == str(HEADER))
    assert abs(gcovr["branch_percent"] - header["coverage"]) <= 1, (gcovr, header)


@pytest.mark.slow
def test_a_failing_build_says_why_in_the_compilers_words(library_export: Path, tmp_path: Path) -> None:
    copy = fresh_copy(library_export, tmp_path)
    ring = copy / "lib" / "ring.h"
    ring.write_text(ring.read_text().replace("r->count = 0;", "r->count = 0"))
    proc = make(copy, "check")
    assert proc.returncode != 0 and "Error 1" in proc.stderr  # make names only its rule
    why = first_error(proc)
    assert why.startswith("lib/ring.h:") and "error:" in why, why


PROJECT = {
    "main.c": '#include "config.h"\n#include "util.h"\nextern int __VERIFIER_nondet_int(void);\n'
              "int main(void) {\n  int x = __VERIFIER_nondet_int();\n"
              "  return scale(bounded(x)) + VERSION;\n}\n",
    "lib/util.c": '#include "util.h"\n#ifndef SCALE\n#error SCALE is defined for this file only\n#endif\n'
                  "int scale(int x) {\n  if (x > 10)\n    return SCALE * 10;\n  return SCALE * x;\n}\n",
    "include/util.h": "int scale(int x);\nstatic inline int bounded(int x) {\n  if (x < 0)\n"
                      "    return 0;\n  return x;\n}\n",
    "build/config.h": "#define VERSION 1\n",  # a generated header, as CMake writes it
}


def test_units_keep_their_own_flags_and_layout(tmp_path: Path) -> None:
    """Two units with flags of their own (``-DSCALE=3`` for one only) from a compilation
    database, headers in include/ and build/: ``build`` is a name of the export's own,
    so the project goes under src/ in its layout."""
    project = tmp_path / "project"
    for name, text in PROJECT.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    (project / "compile_commands.json").write_text(json.dumps([
        {"directory": str(project), "file": "main.c", "command": "cc -Iinclude -Ibuild -c main.c"},
        {"directory": str(project), "file": "lib/util.c",
         "arguments": ["cc", "-I", "include", "-DSCALE=3", "-c", "lib/util.c"]}]))
    database = project / "compile_commands.json"
    suite = tmp_path / "suite.zip"
    writer = SuiteWriter(str(suite), load_program_task([], compile_commands=str(database)))
    for x in ("-4", "5", "40"):  # statuses 1, 16 and 31: each flag of util.c counts
        writer.add(TestCase([x]))
    out = tmp_path / "export"
    proc = cooptest("export", "--compile-commands", database, suite, "--out", out, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "make check: 3 passed, 0 failed" in proc.stdout
    assert (out / "tests" / "expected").read_text().split() == [
        "test000001", "1", "test000002", "16", "test000003", "31"]
    assert sorted(str(p.relative_to(out)) for p in (out / "src").rglob("*") if p.is_file()) == \
        sorted(f"src/{name}" for name in PROJECT)
    makefile = (out / "Makefile").read_text()
    assert str(project) not in makefile and makefile.count("-DSCALE=3") == 1
    copy = fresh_copy(out, tmp_path)
    assert make(copy, "check").returncode == 0
    coverage = make(copy, "coverage")
    assert coverage.returncode == 0, coverage.stderr
    files = gcovr_files(copy)
    assert set(files) == {"src/main.c", "src/lib/util.c", "src/include/util.h"}  # config.h has no code
    assert files["src/include/util.h"]["branch_covered"] == files["src/include/util.h"]["branch_total"] == 2
