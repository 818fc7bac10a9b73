"""``cooptest generate``: the report agrees with the suite, the suite with native replays
and with the referee, and a signal leaves both valid."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from clitools import SHARED, cooptest, cooptest_process
from cooptest.frontend import load_program
from cooptest.harness.executor import Executor
from cooptest.harness.testsuite import read_suite
from cooptest.task import load_task

SUMMARY_KEYS = {"goals", "covered", "infeasible", "unknown", "cov_b", "cov_f", "tests", "time_s",
                "executions", "iterations", "divergences"}


def wait_for_report(out: Path, limit: float = 60) -> None:
    """Until the first report is written: the program is built, the analysis starts."""
    deadline = time.monotonic() + limit
    while not (out / "report.json").exists() and time.monotonic() < deadline:
        time.sleep(0.1)


def check_report(out: Path) -> dict:
    """The report is internally consistent and agrees with the suite on disk."""
    doc = json.loads((out / "report.json").read_text())
    s = doc["summary"]
    assert SUMMARY_KEYS <= set(s)
    statuses = [g["status"] for g in doc["goals"]]
    assert s["goals"] == len(doc["goals"])
    assert s["covered"] == statuses.count("covered")
    assert s["infeasible"] == statuses.count("infeasible")
    assert s["unknown"] == statuses.count("unknown")
    assert s["cov_b"] == pytest.approx(100 * s["covered"] / s["goals"], abs=0.01)
    feasible = s["goals"] - s["infeasible"]
    assert s["cov_f"] == pytest.approx(100 * s["covered"] / feasible if feasible else 100, abs=0.01)
    names = {n.removesuffix(".xml") for n in zipfile.ZipFile(out / "test-suite.zip").namelist()}
    for g in doc["goals"]:
        assert g["kind"] in ("branch", "error-call")
        assert (g["test"] is not None) == (g["status"] == "covered")
        assert (g["proof"] is not None) == (g["status"] == "infeasible")
        if g["test"]:
            assert g["test"] in names
    assert len(read_suite(str(out / "test-suite.zip"))) >= s["tests"]
    times = [t for t, _, _ in doc["timeline"]]
    assert times == sorted(times)
    return doc


def test_report_of_a_random_run(random_run: Path, triangle: Path) -> None:
    doc = check_report(random_run)
    assert doc["strategy"] == "random"
    assert doc["data_model"] == "LP64"
    assert doc["program"] == str(triangle)
    s = doc["summary"]
    assert s["infeasible"] == 0  # random testing never claims infeasibility
    assert s["cov_b"] == s["cov_f"]
    assert s["covered"] >= 20  # the shallow decisions of the triangle fall to random inputs
    assert s["iterations"] + s.get("prefix_runs", 0) == s["executions"] > 0  # prefixes of kept tests


def test_suite_replays_to_the_reported_goals(random_run: Path, triangle: Path, tmp_path: Path) -> None:
    """Each covered goal is covered by a native replay of the test the report names."""
    doc = json.loads((random_run / "report.json").read_text())
    task = load_task(str(triangle))
    executor = Executor(load_program(task, str(tmp_path)), str(tmp_path / "build"))
    covered_by = {t.name: executor.run(t.inputs).covered
                  for t in read_suite(str(random_run / "test-suite.zip"))}
    for g in doc["goals"]:
        if g["status"] == "covered":
            assert g["id"] in covered_by[g["test"]]
    assert set().union(*covered_by.values()) == {g["id"] for g in doc["goals"] if g["status"] == "covered"}


def test_coverage_command_agrees_with_report(random_run: Path, triangle: Path) -> None:
    proc = cooptest("coverage", triangle, random_run / "test-suite.zip", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert set(doc) == {"coverage", "goals", "covered", "tests"}
    report = json.loads((random_run / "report.json").read_text())
    assert doc["tests"] == report["summary"]["tests"]
    if "coverage_testcov_style" in report["summary"]:
        assert doc["coverage"] == report["summary"]["coverage_testcov_style"]


def wide_program(tmp_path: Path) -> Path:
    """Many goals, hard for random inputs: a run is still busy when the signal comes."""
    prog = tmp_path / "wide.c"
    prog.write_text("extern int __VERIFIER_nondet_int(void);\nint main(void) {\n  int s = 0;\n"
                    + "".join(f"  if (__VERIFIER_nondet_int() == {1000 + 37 * i}) s++;\n"
                              for i in range(40))
                    + "  return s;\n}\n")
    return prog


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_leaves_valid_outputs(signum: int, tmp_path: Path) -> None:
    prog = wide_program(tmp_path)
    out = tmp_path / "out"
    proc = cooptest_process("generate", prog, "--budget", "120", "--out", out, "--strategy",
                            "random", "--quiet")
    wait_for_report(out)
    time.sleep(2)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signum, err
    assert "Traceback" not in err
    doc = check_report(out)
    assert doc["summary"]["covered"] > 0
    assert doc["summary"]["time_s"] < 60
    assert doc["summary"]["stopped"] == signal.Signals(signum).name  # what ended it, and the
    assert doc["summary"]["memory_peak_mb"] > 0  # memory it took, as after a normal end
    [ran] = doc["analyses"]  # and how far the analysis got
    assert (ran["analysis"], ran["stopped"]) == ("random", signal.Signals(signum).name)
    assert 2 <= ran["seconds"] < 60


def test_a_signal_lists_the_lanes_analyses_as_far_as_they_got(tmp_path: Path) -> None:
    """The portfolio's lanes report each analysis when it ends; a signal before the
    portfolio returns leaves those in the report, and the ones it stopped, with it."""
    prog = tmp_path / "long.c"  # a goal a million iterations deep: no lane decides it
    prog.write_text("""extern int __VERIFIER_nondet_int(void);
int main(void) { unsigned n = 0;
  while (__VERIFIER_nondet_int()) n++;
  if (n == 1000000u) return 1;
  return 0; }
""")  # (the portfolio decides every goal of wide.c within seconds)
    out = tmp_path / "out"
    proc = cooptest_process("generate", prog, "--budget", "120", "--out", out, "--jobs", "2", "--quiet")
    wait_for_report(out)
    time.sleep(4)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    runs = check_report(out)["analyses"]
    assert {r["lane"] for r in runs} == {"testing", "proving"}
    assert ("callgraph", "exhausted") in {(r["analysis"], r["stopped"]) for r in runs}  # milliseconds
    stopped = [r for r in runs if r["stopped"] == "SIGTERM"]
    assert sorted(r["lane"] for r in stopped) == ["proving", "testing"]  # one running on each core
    assert all(0 < r["seconds"] < 60 for r in stopped)


@pytest.mark.slow
def test_referee_accepts_the_suite_of_an_interrupted_run(tmp_path: Path, triangle: Path,
                                                         testcov_measure: Path) -> None:
    out = tmp_path / "out"
    proc = cooptest_process("generate", triangle, "--budget", "60", "--out", out, "--strategy",
                            "random", "--quiet")
    wait_for_report(out)
    time.sleep(3)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=30)
    assert proc.returncode == 143
    ref = subprocess.run([str(testcov_measure), str(triangle), str(out / "test-suite.zip")],
                         capture_output=True, text=True, timeout=600)
    assert ref.returncode == 0, ref.stderr
    result = json.loads(ref.stdout.splitlines()[-1])
    assert result["result"] == "DONE"
    summary = check_report(out)["summary"]
    assert result["tests_in_suite"] == summary["tests"]
    assert result["coverage"] > 50
    assert summary["coverage_testcov_style"] == result["coverage"]  # counted as tests came


@pytest.mark.slow
def test_referee_agrees_with_coverage_command(random_run: Path, triangle: Path,
                                              testcov_measure: Path) -> None:
    suite = str(random_run / "test-suite.zip")
    ref = subprocess.run([str(testcov_measure), str(triangle), suite],
                         capture_output=True, text=True, timeout=600)
    assert ref.returncode == 0, ref.stderr
    result = json.loads(ref.stdout.splitlines()[-1])
    ours = json.loads(cooptest("coverage", triangle, suite, "--json").stdout)
    report = json.loads((random_run / "report.json").read_text())
    assert result["tests_run"] == report["summary"]["tests"] == ours["tests"]
    assert result["goals"] == ours["goals"]
    assert result["coverage"] == pytest.approx(ours["coverage"], abs=1.0)


def test_defaults_portfolio_budget_and_output_folder(tmp_path: Path, triangle: Path) -> None:
    """``cooptest generate prog.c`` alone: the portfolio, 60 s at most (it ends as soon as
    every goal is decided), outputs in ./cooptest-out."""
    started = time.monotonic()
    proc = cooptest("generate", triangle, "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started < 30
    doc = check_report(tmp_path / "cooptest-out")
    assert doc["strategy"] == "auto"
    assert doc["summary"]["covered"] == doc["summary"]["goals"]  # every triangle goal is feasible
    assert doc["summary"]["stopped"] == "done"  # ends early: every goal decided



def test_a_budget_counts_from_the_exec_not_the_fork(tmp_path: Path, triangle: Path) -> None:
    """A shell runs the last command of ``( a; b )`` in the process it forked before
    ``a``: /proc dates that process from the fork, and ``b`` (here after a 3-s ``a``)
    found its 3-s budget spent before it began (0 goals, 0.1 s)."""
    out = tmp_path / "out"
    command = (f"sleep 3; exec {sys.executable} -m cooptest.cli generate {triangle} "
               f"--budget 3 --strategy random --out {out} --quiet")
    proc = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    summary = check_report(out)["summary"]
    assert summary["covered"] > 0 and summary["time_s"] > 1, proc.stderr
@pytest.mark.parametrize("strategy", ["random", "auto"])
def test_memory_limit_stops_the_analysis_with_valid_outputs(tmp_path: Path, triangle: Path,
                                                            strategy: str) -> None:
    """Over --memory, helpers are killed and the parent's analysis is stopped: the run ends
    long before its budget, says why, reports its peak and keeps a valid suite."""
    started = time.monotonic()
    proc = cooptest("generate", triangle, "--budget", "30", "--out", tmp_path, "--quiet",
                    "--strategy", strategy, "--memory", "16")
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started < 15
    summary = check_report(tmp_path)["summary"]
    assert summary["stopped"] == "memory" and summary["memory_peak_mb"] > 1
    assert len(read_suite(str(tmp_path / "test-suite.zip"))) == summary["tests"]
    # whether a worker is killed first or the parent stops before it has forked its
    # workers depends on timing: each response is tested in tests/core/test_memory.py
    roomy = cooptest("generate", triangle, "--budget", "10", "--out", tmp_path / "roomy", "--quiet",
                     "--strategy", strategy)
    assert roomy.returncode == 0, roomy.stderr
    assert check_report(tmp_path / "roomy")["summary"]["stopped"] != "memory"


DEAD_INSIDE = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 5) {
    if (x < 3) return 1;
    return 2;
  }
  return 0;
}
"""


@pytest.mark.parametrize("strategy", ["concolic", "auto"])
def test_proofs_reach_the_report(tmp_path: Path, strategy: str) -> None:
    """The exhausted exact execution tree of concolic testing proves x < 3 dead; the
    proof is in report.json, and the zip holds the reduced suite."""
    prog = tmp_path / "dead.c"
    prog.write_text(DEAD_INSIDE)
    out = tmp_path / "out"
    proc = cooptest("generate", prog, "--budget", "10", "--out", out, "--strategy", strategy,
                    "--quiet")
    assert proc.returncode == 0, proc.stderr
    doc = check_report(out)
    (dead,) = [g for g in doc["goals"] if g["status"] != "covered"]
    assert dead["status"] == "infeasible" and dead["line"] == 5 and dead["origin"]
    assert doc["summary"]["cov_f"] == 100.0
    assert len(read_suite(str(out / "test-suite.zip"))) == doc["summary"]["tests"] <= 3


FUNCTION_POINTER_TERNARY = """extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}
int add1(int x) { return x + 1; }
int sub1(int x) { return x - 1; }
int main(void) {
  int c = __VERIFIER_nondet_int(), x = __VERIFIER_nondet_int();
  int (*f)(int) = c ? add1 : sub1;
  if (f(x) == 10 && c) reach_error();
  return 0;
}
"""

KNR_DEFINITION = """extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}
int f(a, c) int a; char c; { return a + c; }
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (f(x, 300) == 50) reach_error();  /* c receives (char)300 == 44: x == 6 */
  return 0;
}
"""


@pytest.mark.parametrize("strategy", ["predicate", "concolic"])
@pytest.mark.parametrize("source", [FUNCTION_POINTER_TERNARY, KNR_DEFINITION],
                         ids=["function-pointer-ternary", "knr-definition"])
def test_function_designator_values_and_knr_definitions(source: str, strategy: str,
                                                        tmp_path: Path) -> None:
    """Both once crashed the front end or the analyses; every goal is feasible, and the
    concolic search reaches each, also the error call through the function pointer."""
    prog = tmp_path / "p.c"
    prog.write_text(source)
    proc = cooptest("generate", prog, "--budget", "5", "--out", tmp_path / "out", "--strategy",
                    strategy, "--quiet")
    assert proc.returncode == 0, proc.stderr
    s = check_report(tmp_path / "out")["summary"]
    assert s["infeasible"] == 0
    if strategy == "concolic":
        assert s["covered"] == s["goals"]


def test_seed_suite_is_replayed_first(random_run: Path, triangle: Path, tmp_path: Path) -> None:
    """A run seeded with a suite starts where that suite ended: all its goals covered
    by the seed tests, kept in the same order."""
    before = json.loads((random_run / "report.json").read_text())
    proc = cooptest("generate", triangle, "--budget", "3", "--out", tmp_path, "--strategy",
                    "random", "--seed-suite", random_run / "test-suite.zip", "--quiet")
    assert proc.returncode == 0, proc.stderr
    after = check_report(tmp_path)
    seeded = read_suite(str(random_run / "test-suite.zip"))
    kept = read_suite(str(tmp_path / "test-suite.zip"))
    assert [t.inputs for t in kept[:len(seeded)]] == [t.inputs for t in seeded]
    assert after["summary"]["covered"] >= before["summary"]["covered"]


MAGIC = r"""
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  if (x == 123456789 && y == -42) return 1;
  return 0;
}
"""


def test_a_crest_input_file_is_the_first_run(tmp_path: Path) -> None:
    """``--seed-suite`` takes CREST's input file (run_crest's INITIAL_INPUT, one value a
    line) as one test: its run comes first and covers what random testing does not find
    in a second; a line that is not a value is refused with its file and line."""
    prog = tmp_path / "magic.c"
    prog.write_text(MAGIC)
    initial = tmp_path / "input"
    initial.write_text("123456789\n-42\n")
    proc = cooptest("generate", prog, "--budget", "2", "--out", tmp_path / "out", "--strategy",
                    "random", "--seed-suite", initial, "--quiet")
    assert proc.returncode == 0, proc.stderr
    doc = check_report(tmp_path / "out")
    assert read_suite(str(tmp_path / "out" / "test-suite.zip"))[0].inputs == ["123456789", "-42"]
    assert {g["id"] for g in doc["goals"] if g["status"] == "covered"} >= {"B1T", "B2T"}
    initial.write_text("1\n2\n'c'\n")
    proc = cooptest("generate", prog, "--budget", "2", "--out", tmp_path / "bad", "--seed-suite", initial)
    assert proc.returncode == 2 and f"{initial}:3: not a CREST input value" in proc.stderr


def test_max_iterations_ends_concolic_search_after_that_many_runs(tmp_path: Path, triangle: Path) -> None:
    """``--max-iterations N`` as CREST's ``run_crest PROGRAM N``: the report counts N
    iterations, says the run ended for them, records the option, and gives the goals
    covered per iteration count, which the papers' tables are made of."""
    proc = cooptest("generate", triangle, "--budget", "30", "--out", tmp_path, "--strategy",
                    "concolic", "--max-iterations", "5", "--quiet")
    assert proc.returncode == 0, proc.stderr
    doc = check_report(tmp_path)
    s = doc["summary"]
    assert s["iterations"] == 5 and s["stopped"] == "iterations" and s["time_s"] < 25
    assert doc["configuration"]["max_iterations"] == 5
    steps = doc["coverage_by_iteration"]
    assert steps == sorted(steps) and steps[-1][0] <= 5 and steps[-1][1] <= s["covered"]


def test_missing_strategy_module_is_one_line(monkeypatch: pytest.MonkeyPatch, triangle: Path,
                                             tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """An installation without an analysis package says so and exits with 2."""
    from cooptest.cli import main
    monkeypatch.setitem(sys.modules, "cooptest.analyses.reachability", None)
    code = main(["generate", str(triangle), "--budget", "1", "--out", str(tmp_path),
                 "--strategy", "predicate"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.splitlines() == ["cooptest: strategy 'predicate' is not available in this "
                                "installation (cooptest.analyses.reachability is missing)"]


@pytest.mark.parametrize("order", ["balanced", "nearest", "found"])
def test_bite_decides_every_goal_of_guarded_in_every_frontier_order(tmp_path: Path, order: str) -> None:
    guarded = Path(__file__).resolve().parents[2] / "examples" / "guarded.c"
    proc = cooptest("generate", guarded, "--strategy", "bite", "--frontier-order", order,
                    "--budget", "20", "--out", tmp_path, "--quiet")
    assert proc.returncode == 0, proc.stderr
    summary = check_report(tmp_path)["summary"]
    assert summary["unknown"] == 0 and summary["infeasible"] == 2  # the error call's branch


LONG_READER = """extern int __VERIFIER_nondet_int(void);
int a[150000], b[150000];
int main(void) {
  for (int i = 0; i < 150000; i++) { a[i] = __VERIFIER_nondet_int(); b[i] = __VERIFIER_nondet_int(); }
  if (a[149999] > b[149999]) return 1;
  return 0;
}
"""


def test_random_tests_grow_to_the_300000_reads_of_an_array_program(tmp_path: Path) -> None:
    """Like array-programs' copysome1-2 (2 x 200,000 reads), the decision after the
    loops needs more than 2^18 inputs: tests grow up to 2^19 (``MAX_INPUTS``), and the
    suite keeps a test of the 300,000 inputs read."""
    prog = tmp_path / "long.c"
    prog.write_text(LONG_READER)
    out = tmp_path / "out"
    proc = cooptest("generate", prog, "--budget", "30", "--out", out, "--strategy", "random", "--quiet")
    assert proc.returncode == 0, proc.stderr
    doc = check_report(out)
    last = [g for g in doc["goals"] if g["line"] == 5]
    assert len(last) == 2 and all(g["status"] == "covered" for g in last)
    assert max(len(t.inputs) for t in read_suite(str(out / "test-suite.zip"))) >= 300_000


def test_a_lane_that_ends_early_does_not_hold_up_the_exit(tmp_path: Path) -> None:
    """On pals_lcr (13,406 goals) the proving lane ends within a second while concolic
    search covers goals for the whole minute: the board's messages to the ended lane
    filled its pipe, and the run, its report written, hung at exit."""
    task = SHARED / "benchmarks" / "testcomp" / "combinations" / \
        "pals_lcr.3.1.ufo.UNBOUNDED.pals+Problem12_label02.yml"
    if not task.exists():
        pytest.skip("no shared/benchmarks/testcomp")
    started = time.monotonic()
    proc = cooptest("generate", task, "--budget", "60", "--out", tmp_path / "out", "--quiet",
                    timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started <= 62


def test_tests_for_testcovs_build_where_the_program_reads_indeterminate_memory(tmp_path: Path) -> None:
    """array_min_and_copy_shift_sum_add reads a stack array nothing writes: the board's
    build and TestCov's hold other garbage there, and the random tests the board credits
    with the later loops fail an ``assume`` on it under TestCov's (75%). The meter's small
    mutants find tests for TestCov's build too (91.67%, concolic search alone's figure)."""
    task = SHARED / "benchmarks" / "testcomp" / "array-cav19" / "array_min_and_copy_shift_sum_add.yml"
    if not task.exists():
        pytest.skip("no shared/benchmarks/testcomp")
    out = tmp_path / "out"
    proc = cooptest("generate", task, "--budget", "15", "--out", out, "--quiet")
    assert proc.returncode == 0, proc.stderr
    doc = check_report(out)
    assert doc["summary"]["coverage_testcov_style"] >= 91.67
