"""What a run says of itself where a user would otherwise guess: every test crashing
(in the summary line, report.json and report.html), how a test ended, a bug it found
(in the summary line and as a failing exported test), and what each count means."""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from clitools import EXAMPLES, cooptest
from probe import probe

NULL_WRITE = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int *p = 0, x = __VERIFIER_nondet_int();
%s
  *p = x;
  if (x == 3) return 1;
  return 0;
}
"""


def run(tmp_path: Path, name: str, source: str) -> tuple[str, dict]:
    program = tmp_path / name
    program.write_text(source)
    proc = cooptest("generate", program, "--budget", "10", "--out", tmp_path / name.removesuffix(".c"),
                    "--strategy", "random", "--seed", "1", "--quiet")
    assert proc.returncode == 0, proc.stderr
    return proc.stderr, json.loads((tmp_path / name.removesuffix(".c") / "report.json").read_text())


def test_a_run_whose_every_test_crashes_says_so_with_where(tmp_path: Path) -> None:
    """kbfiltr-1 said "0/265 goals covered ... 0 tests" after 1,278 runs, each of which
    crashed: the summary line, report.json and report.html now say at which line of the
    program every run crashes, whether it crashes before any goal or after some."""
    line, doc = run(tmp_path, "early.c", NULL_WRITE % "")
    runs = doc["run_endings"][f"killed by SIGSEGV at {tmp_path / 'early.c'}:5"]
    said = f"every test crashes at early.c:5 (SIGSEGV, {runs} runs)"
    assert doc["summary"]["every_run_failed"] == said and runs > 10
    assert line.strip().endswith(f"; {said}") and doc["summary"]["tests"] == 0
    assert f"E{said[1:]}: cooptest could not run" in (tmp_path / "early" / "report.html").read_text()
    # a crash after a goal: the same, at the line of the crash (not the goal's)
    _, doc = run(tmp_path, "late.c", NULL_WRITE % "  if (x > 0) x = 1; else x = 2;")
    said = doc["summary"]["every_run_failed"]
    assert said.startswith("every test crashes at late.c:5 (SIGSEGV, ") and doc["summary"]["covered"] == 2
    # the tests kept (they reached goals first) say where they crash, in report.json,
    # in replay's words and on the page
    assert {t["name"]: t["crash"] for t in doc["tests"]} == {
        t["name"]: {"signal": "SIGSEGV", "at": "late.c:5"} for t in doc["tests"]} and doc["tests"]
    suite = tmp_path / "late" / "test-suite.zip"
    replayed = cooptest("replay", tmp_path / "late.c", suite).stdout
    assert replayed.count("ended: killed by SIGSEGV at late.c:5;") == len(doc["tests"]), replayed
    runs = json.loads(cooptest("replay", tmp_path / "late.c", suite, "--json").stdout)
    assert [r["crash"] for r in runs] == [{"signal": "SIGSEGV", "at": "late.c:5"}] * len(runs)
    page = (tmp_path / "late" / "report.html").read_text()
    assert page.count('crashes at <a href="#L5">late.c:5</a> (SIGSEGV)') == len(doc["tests"])


def test_tests_that_crash_among_others_are_named_by_the_summary_line(tmp_path: Path) -> None:
    line, doc = run(tmp_path, "some.c", NULL_WRITE % "  if (x != 7) return 0;")
    [crashing] = [t for t in doc["tests"] if "crash" in t]
    assert crashing["crash"] == {"signal": "SIGSEGV", "at": "some.c:5"}
    assert f"; 1 test crashes: {crashing['name']} at some.c:5 (SIGSEGV); suite " in line


def test_a_run_with_tests_ending_normally_says_nothing_of_it(tmp_path: Path) -> None:
    # a crash random testing does not reach: its dictionary has the quotient, not x
    line, doc = run(tmp_path, "fine.c", NULL_WRITE % "  if (x / 7 != 17636684) return 0;")
    assert "every_run_failed" not in doc["summary"] and "failed" not in line
    # every run ended normally, but one a stall of the machine timed out (1 of 4,001 once)
    assert set(doc.get("run_endings", {})) <= {"normally", "timed out"}


EXIT_1 = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 5) return 1;
  return 0;
}
"""


def suite_of(tmp_path: Path, program: Path, tests: list[list[str]]) -> Path:
    from cooptest.harness.testsuite import SuiteWriter, TestCase
    from cooptest.task import load_task
    writer = SuiteWriter(str(tmp_path / "suite.zip"), load_task(str(program)))
    for inputs in tests:
        writer.add(TestCase(inputs))
    return tmp_path / "suite.zip"


def test_exit_code_1_is_the_programs_unless_the_run_read_past_its_inputs(tmp_path: Path) -> None:
    """``return 1`` after reading its one input is the program's exit code 1; a run
    given no input at all ran out of them (the harness's exit code 1)."""
    program = tmp_path / "exit1.c"
    program.write_text(EXIT_1)
    suite = suite_of(tmp_path, program, [["10"], []])
    runs = json.loads(cooptest("replay", program, suite, "--json").stdout)
    assert [(r["exit_code"], r["ended"]) for r in runs] == [
        (1, "exit code 1"), (1, "exit code 1 (the harness's code for running out of inputs)")]
    text = cooptest("replay", program, suite, "test000001").stdout
    assert "ended: exit code 1; error reached: no" in text
    export = tmp_path / "export"
    proc = cooptest("export", program, suite, "--out", export, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    first, second = ((export / "tests" / f"test00000{n}.c").read_text() for n in (1, 2))
    assert "instrumented build: exit code 1;" in first and "running out of inputs" not in first
    assert "exit code 1 (the harness's code for running out of inputs)" in second


def test_a_found_bug_is_named_by_the_summary_and_fails_make_check(tmp_path: Path) -> None:
    """triangle.c's deep reach_error: the summary line names the test reaching it and the
    outputs; exported, that test fails ``make check`` (expected: no error), with its
    inputs, and ``cooptest export`` says it is the program's bug, not the export's."""
    out = tmp_path / "out"
    gen = cooptest("generate", EXAMPLES / "triangle.c", "--budget", "6", "--out", out, "--quiet")
    assert gen.returncode == 0, gen.stderr
    doc = json.loads((out / "report.json").read_text())
    [error] = [g for g in doc["goals"] if g["kind"] == "error-call"]
    assert error["status"] == "covered"
    assert gen.stderr.strip().endswith(
        f"; the error is reachable: {error['test']} reaches reach_error() at line {error['line']}"
        f"; suite {out / 'test-suite.zip'}, report {out / 'report.html'}")
    export = tmp_path / "export"
    proc = cooptest("export", EXAMPLES / "triangle.c", out / "test-suite.zip", "--out", export,
                    timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(rf"make check: \d+ passed, 1 failed\n  FAIL {error['test']}: reaches the error "
                     rf"\(exit status 134\), expected not to; its inputs: tests/{error['test']}.c\n"
                     r"  1 of them reaches the error: a bug of the program", proc.stdout), proc.stdout
    assert "make coverage: lines: " in proc.stdout
    assert f"{error['test']} 134 error\n" in (export / "tests" / "expected").read_text()
    assert "Expected: does not reach the error." in (export / "tests" / f"{error['test']}.c").read_text()
    check = subprocess.run(["make", "-C", export, "check"], capture_output=True, text=True)
    assert check.returncode != 0 and f"FAIL {error['test']}: reaches the error" in check.stdout
    # fixed, the program passes: the test no longer ends in the error
    program = export / "triangle.c"
    program.write_text(program.read_text().replace("reach_error();             /*", "return 9;  /*"))
    check = subprocess.run(["make", "-C", export, "check"], capture_output=True, text=True)
    assert check.returncode == 0 and ", 0 failed" in check.stdout, check.stdout


# The summary cards as the browser shows them: figure, label, definition.
CARDS = """Array.from(document.querySelectorAll('#summary .card')).map(function (c) {
  return c.innerText.split('\\n'); })"""


def test_each_goal_count_and_coverage_figure_says_what_it_counts(tmp_path: Path) -> None:
    """One program, three goal counts (report, ``coverage``, ``cfa``) and three coverage
    figures: each is shown with its definition, and ``cfa``'s two add up to the report's."""
    out = tmp_path / "out"
    gen = cooptest("generate", EXAMPLES / "guarded.c", "--budget", "8", "--out", out, "--quiet")
    assert gen.returncode == 0, gen.stderr
    s = json.loads((out / "report.json").read_text())["summary"]
    assert (f"{s['covered']}/{s['goals']} goals covered, {s['infeasible']} infeasible, {s['unknown']} open "
            "(a goal: one outcome of a condition, && and || operands apart, or one reach_error() call); "
            f"cov_b {s['cov_b']:.1f}% = covered/goals, cov_f {s['cov_f']:.1f}% = covered/(goals-infeasible), "
            f"TestCov-style {s['coverage_testcov_style']:.1f}% of TestCov's goals;") in gen.stderr
    cfa = cooptest("cfa", EXAMPLES / "guarded.c").stdout
    assert f": {s['goals']} goals, as report.json counts them (a goal: one outcome" in cfa
    coverage = cooptest("coverage", EXAMPLES / "guarded.c", out / "test-suite.zip").stdout
    assert coverage.startswith(f"{s['coverage_testcov_style']:.2f}% TestCov-style coverage (")
    assert "TestCov's own goals: both arms of each if, each loop's body and exit, each case, " \
        "not report.json's goals)" in coverage
    cards = {card[1]: card for card in probe(out / "report.html", tmp_path, CARDS)}
    assert cards["goals"][2] == "condition outcomes and reach_error() calls"
    assert cards["cov_b %"][2] == "covered/goals" and cards["cov_f %"][2] == "covered/(goals-infeasible)"
    assert cards["TestCov-style %"][2] == "of TestCov's goals"


CALLS_FIRST = """extern int __VERIFIER_nondet_int(void);
int g;
void init(void) { g = 1; }
int check(int v) {
  if (v > g) return 1;
  return 0;
}
int main(void) {
  int x = __VERIFIER_nondet_int();
  init();
  void (*f)(void) = init;
  int r = check(x);
  f();
  return r;
}
"""


def test_the_first_goal_every_run_meets_is_found_through_calls(tmp_path: Path) -> None:
    """Where a run that reached no goal ended: on the path every run shares from main,
    calls entered as they run (init's body has no condition, check's has the first)."""
    import tempfile
    from cooptest.cfa.calls import first_decision
    from cooptest.frontend import load_program
    from cooptest.task import load_task
    program = tmp_path / "calls.c"
    program.write_text(CALLS_FIRST)
    cfa = load_program(load_task(str(program)), tempfile.mkdtemp(dir=tmp_path)).program
    assert first_decision(cfa) == (str(program), 5)
    program.write_text(CALLS_FIRST.replace("  init();\n", "  (*(void (**)(void))&g)();\n"))
    cfa = load_program(load_task(str(program)), tempfile.mkdtemp(dir=tmp_path)).program
    assert first_decision(cfa) is None  # a call through a pointer: its body is the run's
