"""``cooptest replay`` says what each test does, as the native run that counted it;
``cooptest export`` writes C unit tests whose ``make check`` passes and fails when a
test no longer ends as it did, and gcovr's HTML of the program's coverage."""
from __future__ import annotations

import json
from array import array
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from clitools import EXAMPLES, cooptest

from cooptest.harness.executor import Execution
from cooptest.harness.replay import INPUTS_SHOWN, Replayed, describe
from cooptest.harness.testsuite import TestCase, read_suite
from cooptest.report.export import c_string


def test_replay_prints_inputs_ending_error_and_goals(random_out: Path, page_c: Path) -> None:
    suite = random_out / "test-suite.zip"
    proc = cooptest("replay", page_c, suite, "--json")
    assert proc.returncode == 0, proc.stderr
    runs = json.loads(proc.stdout)
    tests = read_suite(str(suite))
    assert [r["test"] for r in runs] == [t.name for t in tests]
    assert [r["inputs"] for r in runs] == [t.inputs for t in tests]
    report = json.loads((random_out / "report.json").read_text())
    covered = {g["id"] for g in report["goals"] if g["status"] == "covered"}
    assert set().union(*(r["covers"] for r in runs)) == covered  # what the report counted
    for g in report["goals"]:
        if g["test"]:  # the test credited with a goal covers it when replayed
            assert g["id"] in next(r["covers"] for r in runs if r["test"] == g["test"])
    for r in runs:
        assert r["status"] == r["exit_code"] and r["error_reached"] is False

    one = cooptest("replay", page_c, suite, tests[0].name)
    assert one.returncode == 0, one.stderr
    assert one.stdout.startswith(f"{tests[0].name}: {len(tests[0].inputs)} inputs: "
                                 + ", ".join(tests[0].inputs[:INPUTS_SHOWN]))
    assert "ended: exit code" in one.stdout and "error reached: no" in one.stdout


def test_replay_shows_the_first_inputs_of_a_long_test() -> None:
    """A padded test may hold 500,000 inputs: one line of them is no use to a reader."""
    inputs = [str(k) for k in range(INPUTS_SHOWN + 8)]
    run = Execution(inputs, array("i"), set(), 0, False, False, False, False)
    first = describe(Replayed(TestCase(inputs, name="test000001"), run, [])).splitlines()[0]
    assert first == (f"test000001: {INPUTS_SHOWN + 8} inputs: " + ", ".join(inputs[:INPUTS_SHOWN])
                     + ", ... and 8 more (--json lists all)")


def test_replay_of_an_error_test(tmp_path: Path) -> None:
    out = tmp_path / "out"
    gen = cooptest("generate", EXAMPLES / "triangle.c", "--budget", "6", "--out", out, "--quiet")
    assert gen.returncode == 0, gen.stderr
    runs = json.loads(cooptest("replay", EXAMPLES / "triangle.c", out / "test-suite.zip",
                               "--json").stdout)
    error = [r for r in runs if r["error_reached"]]
    assert error, "the suite should reach the deep error call"
    assert error[0]["signal"] == 6 and error[0]["status"] == 134 and "E1" in error[0]["covers"]
    text = cooptest("replay", EXAMPLES / "triangle.c", out / "test-suite.zip", error[0]["test"])
    assert "killed by SIGABRT" in text.stdout and "error reached: yes" in text.stdout


def test_replay_rejects_unknown_tests_and_missing_suites(random_out: Path, page_c: Path) -> None:
    bad = cooptest("replay", page_c, random_out / "test-suite.zip", "test999999")
    assert bad.returncode == 2 and "no test test999999 in the suite" in bad.stderr
    missing = cooptest("replay", page_c, random_out / "nothing.zip")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1


def test_c_string_escapes_what_c_would_read_otherwise() -> None:
    assert c_string("-5") == '"-5"'
    assert c_string('a"b\\c') == '"a\\"b\\\\c"'
    assert c_string("'\t'??=") == '"\'\\011\'\\077\\077="'
    assert c_string("é") == '"\\303\\251"'


@pytest.fixture(scope="module")
def exported(random_out: Path, page_c: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export") / "unit-tests"
    proc = cooptest("export", page_c, random_out / "test-suite.zip", "--out", out, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    tests = read_suite(str(random_out / "test-suite.zip"))
    assert f"make check: {len(tests)} passed, 0 failed" in proc.stdout
    assert "make coverage: lines: " in proc.stdout
    return out


def test_export_writes_one_c_file_per_test_and_a_makefile(exported: Path, random_out: Path,
                                                          page_c: Path) -> None:
    tests = read_suite(str(random_out / "test-suite.zip"))
    assert sorted(p.stem for p in (exported / "tests").glob("*.c")) == sorted(t.name for t in tests)
    for t in tests:
        text = (exported / "tests" / f"{t.name}.c").read_text()
        assert all(c_string(v) in text for v in t.inputs)
    assert (exported / "page.c").read_text() == page_c.read_text()
    assert (exported / "coverage" / "index.html").stat().st_size > 0
    summary = json.loads((exported / "coverage" / "summary.json").read_text())
    assert 0 < summary["line_percent"] <= 100


def test_make_check_fails_when_a_test_ends_otherwise(exported: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(exported, copy)
    program = copy / "page.c"
    program.write_text(program.read_text().replace("return x == 7;", "return 9;"))
    proc = subprocess.run(["make", "-C", copy, "check"], capture_output=True, text=True)
    assert proc.returncode != 0
    assert re.search(r"^FAIL test\d+: exit status 9, expected [01]$", proc.stdout, re.M), proc.stdout
    assert ", 0 failed" not in proc.stdout
