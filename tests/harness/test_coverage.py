"""Branch coverage counted like TestCov on programs with a known answer."""
from __future__ import annotations

import json
import subprocess

import pytest

from cooptest.frontend.preprocess import preprocess
from cooptest.harness.coverage import measure_coverage
from cooptest.harness.testsuite import SuiteWriter, TestCase
from cooptest.task import load_task


def measure(program, inputs, tmp_path):
    task = load_task(str(program))
    tests = [TestCase(i) for i in inputs]
    return measure_coverage(task, preprocess(task, str(tmp_path)), tests, str(tmp_path))


def test_three_of_four_goals(tmp_path, data):
    r = measure(data / "harness_branches.c", [["5"]], tmp_path)
    assert (r.goals, r.covered, r.tests) == (4, 3, 1)
    assert r.percent == 75.0
    missed = set(r.goal_lines) - r.covered_goals
    assert [r.goal_lines[g] for g in missed] == [6]  # the absent else of the if on line 6
    assert measure(data / "harness_branches.c", [["5"], ["0"]], tmp_path).covered == 4


@pytest.mark.parametrize("inputs, covered", [
    ([["7"]], 8),
    ([["99"]], 1),        # abort() ends the run, but TestCov dumps the counters first
    ([["7"], ["99"]], 9),
    ([[]], 0),            # no input at all: exit 1 before any branch
])
def test_testcov_labelling_rules(tmp_path, data, inputs, covered):
    """harness_labels.c has 16 goals: ?: 2, if/else-if chain 3 (no goal for the outer
    else), do-while 1 (after only), switch 3, for 2, two ifs 2+2, the endless loop's
    body 1 — its exit and the if after it are unreachable, so gcc emits no code there
    and TestCov does not count them."""
    r = measure(data / "harness_labels.c", inputs, tmp_path)
    assert (r.goals, r.covered) == (16, covered)


@pytest.mark.slow
def test_run_over_time_limit_adds_nothing(tmp_path, data):
    assert measure(data / "harness_labels.c", [["42"]], tmp_path).covered == 0


def test_crashing_run_adds_nothing(tmp_path):
    src = tmp_path / "crash.c"
    src.write_text("extern int __VERIFIER_nondet_int(void);\nint main(void) {\n"
                   "  int x = __VERIFIER_nondet_int();\n  if (x) { *(volatile int *)0 = 1; }\n"
                   "  return 0;\n}\n")
    assert measure(src, [["1"]], tmp_path).covered == 0
    assert measure(src, [["0"]], tmp_path).covered == 1


@pytest.mark.slow
def test_agrees_with_testcov(tmp_path, data, testcov_measure):
    program = data / "harness_labels.c"
    task = load_task(str(program))
    tests = [TestCase(["7"]), TestCase(["99"]), TestCase(["-9"])]
    writer = SuiteWriter(str(tmp_path / "s.zip"), task)
    for t in tests:
        writer.add(t)
    ref = json.loads(subprocess.run([str(testcov_measure), str(program), str(tmp_path / "s.zip")],
                                    capture_output=True, text=True,
                                    stdin=subprocess.DEVNULL).stdout)
    ours = measure_coverage(task, preprocess(task, str(tmp_path)), tests, str(tmp_path))
    assert (ours.goals, round(ours.percent, 2)) == (ref["goals"], ref["coverage"])


def _metered_board(program, tmp_path):
    """A goal board of ``program`` whose kept tests go to a live meter: (board, meter)."""
    from cooptest.core.board import GoalBoard
    from cooptest.frontend import load_program
    from cooptest.harness.executor import Executor
    from cooptest.core.live_coverage import LiveMeter

    task = load_task(str(program))
    frontend = load_program(task, str(tmp_path))
    board = GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "build")))
    meter = LiveMeter(task, frontend.preprocessed, str(tmp_path / "live"))
    board.run.listeners.append(meter.listen)
    return board, meter


def test_the_live_count_of_any_subset_of_the_kept_tests_is_the_joint_measurement(tmp_path, data):
    """The live meter runs each kept test alone; the count of a (reduced) suite is the
    union of its tests' goals, which must be what running the suite together counts."""
    from itertools import combinations

    from cooptest.core.budget import Budget

    board, meter = _metered_board(data / "harness_labels.c", tmp_path)
    try:
        for inputs in (["7"], ["99"], ["3"], [], ["0"], ["1"]):
            board.submit(inputs, "test")
        assert len(board.tests) >= 3
        for k in (1, 2, len(board.tests)):
            for subset in combinations(board.tests, k):
                expected = measure(data / "harness_labels.c", [t.inputs for t in subset], tmp_path)
                assert meter.count(list(subset), Budget.seconds(30.0)) == round(expected.percent, 2)
        # what a stopped run reports without asking: every test kept, counted already
        everything = measure(data / "harness_labels.c", [t.inputs for t in board.tests], tmp_path)
        assert meter.count_so_far(board.tests) == round(everything.percent, 2)
        assert meter.count_so_far(board.tests[1:]) is None  # not the tests it counted
        # the reduction's rescue: dropped tests that add TestCov goals, in order
        names = [t.name for t in board.tests]
        assert meter.rescue(names, [], Budget.seconds(30.0)) == []
        saved = meter.rescue([], names, Budget.seconds(30.0))
        assert saved and saved[0] == names[0]
        by_name = {t.name: t for t in board.tests}
        assert meter.count([by_name[n] for n in saved], Budget.seconds(30.0)) == \
            meter.count(board.tests, Budget.seconds(30.0))
    finally:
        meter.close()


def test_a_missing_count_says_how_far_the_meter_got(tmp_path, data):
    """A run that ends without the count says why in report.json: the tests the meter
    had counted of those kept, or that its process ended."""
    import os
    import signal

    from cooptest.core.budget import Budget
    from cooptest.report.progress import summary_line

    board, meter = _metered_board(data / "harness_labels.c", tmp_path)
    try:
        for inputs in (["7"], ["99"]):
            board.submit(inputs, "test")
        assert meter.count(board.tests, Budget.seconds(30.0)) is not None
        said = meter.why_not_counted()
        assert said.startswith("the meter had counted 2 of the 2 tests kept by the end and was still busy")
        summary = {"covered": 3, "goals": 9, "infeasible": 0, "unknown": 6, "cov_b": 33.3, "cov_f": 33.3,
                   "tests": 2, "time_s": 1.0, "coverage_testcov_style_missing": said}
        assert f", no TestCov-style count: {said};" in summary_line("p.c", summary)
        board.submit(["3"], "test")
        os.kill(meter.child.pid, signal.SIGKILL)
        meter.child.join()
        assert meter.why_not_counted().startswith("the meter's process ended")
    finally:
        meter.close()


def test_the_live_meter_killed_leaves_no_temporary_files(tmp_path, data, monkeypatch):
    """The meter's child is killed at the end of a run; its tests' working folders are in
    its own folder, not in the system's temporary folder (it left one there per run)."""
    import tempfile

    from cooptest.core.budget import Budget

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    board, meter = _metered_board(data / "harness_labels.c", tmp_path)
    try:
        board.submit(["7"], "test")
        assert meter.count(board.tests, Budget.seconds(30.0))  # the child ran the test
    finally:
        meter.close()
        board.executor.close()
    assert list(scratch.iterdir()) == []


SMALL_ONLY = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n > 0) {
    if (n < 3)
      return 1;
  }
  return 0;
}
"""


def test_mutants_make_one_input_small() -> None:
    from cooptest.harness.label_fuzz import mutants

    assert list(mutants(["552", "-7"])) == [["0", "-7"], ["1", "-7"], ["276", "-7"],
                                            ["552", "0"], ["552", "1"], ["552", "-4"]]
    assert list(mutants(["1", "0.5"])) == [["0", "0.5"], ["1", "0"]]


def test_mutants_take_their_share_and_no_saved_up_burst(monkeypatch) -> None:
    """After a minute of measuring tests the mutants may not run for seconds on end
    (new tests would wait): at most ``BURST`` back to back, ``SHARE`` in the long run."""
    from types import SimpleNamespace

    from cooptest.harness import label_fuzz

    clock = [0.0]
    monkeypatch.setattr(label_fuzz, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    fuzzer = label_fuzz.LabelFuzzer()
    for k in range(100):
        fuzzer.add([str(1000 + k), "7"])

    def covered_by(inputs: list[str]) -> set[int]:  # a run of TestCov's build: 50 ms
        clock[0] += 0.05
        return set()

    clock[0] += 60.0
    burst = 0
    while fuzzer.wait() == 0.0:
        fuzzer.step(covered_by, set())
        burst += 1
    assert 0 < burst <= label_fuzz.BURST / (0.05 * (1 - label_fuzz.SHARE)) + 1
    start, runs = clock[0], 0
    while clock[0] - start < 100.0 and (wait := fuzzer.wait()) is not None:
        clock[0] += wait
        fuzzer.step(covered_by, set())
        runs += 1
    assert abs(runs * 0.05 - label_fuzz.SHARE * 100.0) <= label_fuzz.BURST


def test_the_meter_finds_small_mutants_covering_goals_no_test_covers(tmp_path) -> None:
    """The meter, idle, runs mutants of the kept tests on TestCov's build and reports
    those covering new goals there, once; the board keeps them, and the count grows
    without running them there again (the end of a run waits for it)."""
    import time

    from cooptest.core.budget import Budget

    program = tmp_path / "small.c"
    program.write_text(SMALL_ONLY)
    board, meter = _metered_board(program, tmp_path)
    try:
        board.submit(["552"], "test")
        assert meter.count(board.tests, Budget.seconds(30.0)) == 50.0  # 2 of 4 goals
        found: list[list[str]] = []
        deadline = time.monotonic() + 20
        while len(found) < 2 and time.monotonic() < deadline:
            found += meter.found(Budget.seconds(5.0))[0]
            time.sleep(0.2)
        assert found == [["0"], ["1"]]  # then every goal is hit: no mutant runs after them
        programs = list((tmp_path / "live").glob("coverage-*/prog"))
        assert programs
        for built in programs:  # a mutant measured again now fails the count: the meter knows its goals
            built.unlink()
        for inputs in found:
            ex = board.keep(inputs, "label-fuzz")
            assert ex.new  # here the board's build agrees: new goals for it too
        assert meter.count(board.tests, Budget.seconds(30.0)) == 100.0
        mutants, runs = meter.found(Budget.seconds(5.0))
        assert mutants == [] and runs == 2  # each reported once; none once every goal is hit
    finally:
        meter.close()


def test_a_relative_work_folder_counts_the_same(tmp_path, data, monkeypatch):
    """generate's work folder is in OUT, relative when --out is (the default,
    ``cooptest-out``): gcov, run in the build folder, was given the notes' path joined
    with that relative folder, found nothing, and the count had no goals (kbfiltr-1 with
    0 tests: "TestCov-style 100.0%")."""
    monkeypatch.chdir(tmp_path)
    task = load_task(str(data / "harness_branches.c"))
    r = measure_coverage(task, preprocess(task, "work"), [TestCase(["5"])], "work")
    assert (r.goals, r.covered) == (4, 3)
