"""Suite zips: round trip, crash safety, what TestCov skips, and TestCov's acceptance."""
from __future__ import annotations

import json
import subprocess
import sys
import time
import zipfile

import pytest

from cooptest.errors import UserError
from cooptest.harness.testsuite import (METADATA_FIELDS, SuiteWriter, TestCase, read_suite,
                                        xml_of_test)
from cooptest.task import ERROR_CALL, load_task


def test_round_trip_keeps_inputs_order_and_error_flag(tmp_path, data):
    task = load_task(str(data / "harness_branches.c"))
    writer = SuiteWriter(str(tmp_path / "suite.zip"), task)
    tests = [TestCase(["5", "-3", "0x1f", "'a'", "1.5f"]), TestCase(["'<'"], covers_error=True),
             TestCase([])]
    names = [writer.add(t) for t in tests]
    assert names == ["test000001", "test000002", "test000003"]
    back = read_suite(str(tmp_path / "suite.zip"))
    assert [t.inputs for t in back] == [t.inputs for t in tests]
    assert [t.covers_error for t in back] == [False, True, False]
    assert [t.name for t in back] == ["test000001", "test000002", "test000003"]


def test_every_intermediate_zip_is_a_complete_suite(tmp_path, data):
    task = load_task(str(data / "harness_branches.c"))
    path = tmp_path / "out" / "suite.zip"
    writer = SuiteWriter(str(path), task)
    assert read_suite(str(path)) == []
    for i in range(5):
        writer.add(TestCase([str(i)]))
        assert [t.inputs for t in read_suite(str(path))] == [[str(j)] for j in range(i + 1)]
    assert sorted(p.name for p in path.parent.iterdir()) == ["suite.zip"]  # no temp files left


def test_metadata_has_the_eight_elements(tmp_path, data):
    yml = tmp_path / "task.yml"
    yml.write_text(f"format_version: '2.0'\ninput_files: '{data / 'harness_branches.c'}'\n"
                   "properties:\n  - property_file: ../properties/coverage-error-call.prp\n"
                   "options:\n  language: C\n  data_model: ILP32\n")
    task = load_task(str(yml))
    SuiteWriter(str(tmp_path / "s.zip"), task, producer="me 1")
    with zipfile.ZipFile(tmp_path / "s.zip") as z:
        meta = z.read("metadata.xml").decode()
    lines = meta.splitlines()
    assert lines[0].startswith("<?xml ") and lines[1].startswith("<!DOCTYPE test-metadata ")
    for f in METADATA_FIELDS:
        assert f"<{f}>" in meta
    assert task.goal_property == ERROR_CALL
    assert "@CALL(reach_error)" in meta and "<architecture>32bit<" in meta
    assert "<producer>me 1</producer>" in meta


def test_reader_skips_what_testcov_skips(tmp_path, data):
    task = load_task(str(data / "harness_branches.c"))
    path = tmp_path / "s.zip"
    SuiteWriter(str(path), task).add(TestCase(["1"], name="b"))
    good = xml_of_test(TestCase(["7"]))
    with zipfile.ZipFile(path, "a") as z:
        z.writestr("dir/a.xml", good)
        z.writestr("nodoctype.xml", good.replace("<!DOCTYPE testcase ", "<!-- x "))
        z.writestr("broken.xml", good.replace("</testcase>", ""))
        z.writestr("notes.txt", good)
    assert [(t.name, t.inputs) for t in read_suite(str(path))] == [("b", ["1"]), ("a", ["7"])]


def test_unrepresentable_inputs_are_rejected(tmp_path, data):
    writer = SuiteWriter(str(tmp_path / "s.zip"), load_task(str(data / "harness_branches.c")))
    for bad in ("", "1\n2", " 1"):
        with pytest.raises(ValueError):
            writer.add(TestCase([bad]))
    assert read_suite(str(tmp_path / "s.zip")) == []


def test_bad_zip_is_a_user_error(tmp_path):
    path = tmp_path / "s.zip"
    path.write_text("not a zip")
    with pytest.raises(UserError) as e:
        read_suite(str(path))
    assert e.value.file == str(path)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("t.xml", xml_of_test(TestCase(["1"])))
    with pytest.raises(UserError, match="metadata"):
        read_suite(str(path))


@pytest.mark.slow
def test_testcov_accepts_the_suite(tmp_path, data, testcov_measure):
    task = load_task(str(data / "harness_branches.c"))
    writer = SuiteWriter(str(tmp_path / "s.zip"), task)
    writer.add(TestCase(["5"]))
    writer.add(TestCase(["0x0"]))
    out = subprocess.run([str(testcov_measure), task.program, str(tmp_path / "s.zip")],
                         capture_output=True, text=True, stdin=subprocess.DEVNULL)
    result = json.loads(out.stdout)
    assert (result["goals"], result["coverage"], result["tests_run"]) == (4, 100.0, 2)


def test_killed_writer_leaves_a_valid_suite(tmp_path, data):
    """SIGKILL a process adding tests at arbitrary moments: the zip always reads."""
    path = tmp_path / "s.zip"
    script = ("import sys\nfrom cooptest.task import load_task\n"
              "from cooptest.harness.testsuite import SuiteWriter, TestCase\n"
              "w = SuiteWriter(sys.argv[1], load_task(sys.argv[2]))\nprint(flush=True)\n"
              "for i in range(100000):\n    w.add(TestCase([str(i)] * 50))\n")
    for delay in (0.05, 0.2, 0.35):
        proc = subprocess.Popen([sys.executable, "-c", script, str(path),
                                 str(data / "harness_branches.c")], stdout=subprocess.PIPE)
        proc.stdout.readline()  # the suite exists from here on
        time.sleep(delay)
        proc.kill()
        proc.wait()
        proc.stdout.close()
        tests = read_suite(str(path))
        assert all(t.inputs == [str(i)] * 50 for i, t in enumerate(tests))
        with zipfile.ZipFile(path) as z:
            assert z.testzip() is None


def test_thousands_of_tests_stay_cheap(tmp_path, data):
    writer = SuiteWriter(str(tmp_path / "s.zip"), load_task(str(data / "harness_branches.c")))
    start = time.monotonic()
    for i in range(2000):
        writer.add(TestCase([str(i)] * 10))
    assert time.monotonic() - start < 30
    assert len(read_suite(str(tmp_path / "s.zip"))) == 2000 == len(writer)
