"""report.json during a run: it follows the suite, and rewriting it takes a bounded share
of the run however large the program (a 13k-goal report takes 0.15 s to write; after
every new test that was a third of the parent's time on pals_lcr)."""
from __future__ import annotations

import json
import os
import time

from cooptest.core.board_events import Covered, Tick
from cooptest.report.report import WRITE_SHARE, Report

BRANCHES = 600
PROGRAM = ("extern int __VERIFIER_nondet_int(void);\nint main(void) {\n"
           "  int x = __VERIFIER_nondet_int(), s = 0;\n"
           + "".join(f"  if (x == {k}) s++;\n" for k in range(BRANCHES))
           + "  return s;\n}\n")


def test_rewrites_take_a_bounded_share_and_the_end_writes_everything(program_of, tmp_path):
    board = program_of(PROGRAM)
    path = tmp_path / "report.json"
    report = Report(str(path), "prog.c", "LP64", "random")
    report.write(board)
    assert report._cost > 0.002  # large enough that writing after every event would show
    costs, stamp, started = [report._cost], os.stat(path).st_mtime_ns, time.monotonic()
    # two seconds, or long enough for two writes at the share the slowest write allows
    # (a write slowed by the machine's load delays the next one accordingly)
    while time.monotonic() - started < min(15.0, max(2.0, 2.5 * max(costs) / WRITE_SHARE)):
        report(board, Covered(frozenset(), "random", "t"))  # a new test every 5 ms
        time.sleep(0.005)
        if os.stat(path).st_mtime_ns != stamp:  # a write, of the cost it measured
            costs, stamp = costs + [report._cost], os.stat(path).st_mtime_ns
    elapsed = time.monotonic() - started
    assert len(costs) >= 3, costs  # the report does follow
    # each write waits until the previous one is at most WRITE_SHARE of the time since
    assert sum(costs[:-1]) <= WRITE_SHARE * elapsed * 1.5, costs
    board.submit(["7"], "test")
    doc = report.write(board)  # the end of a run
    assert json.loads(path.read_text())["summary"]["tests"] == doc["summary"]["tests"] == 1


def test_the_suite_is_published_with_the_report_and_holds_what_it_lists(program_of, tmp_path):
    """The suite's file is written with the report, holding exactly the tests it lists:
    a SIGKILL found report.json a few tests behind the zip, and a SIGTERM between the
    suite taking a test and the board recording it left the zip one test ahead."""
    from cooptest.harness.testsuite import SuiteWriter, TestCase, read_suite
    from cooptest.report.publication import Publication
    from cooptest.task import load_task
    board = program_of(PROGRAM)
    board.run.suite = SuiteWriter(str(tmp_path / "test-suite.zip"), load_task(board.program.path), eager=False)
    report = Report(str(tmp_path / "report.json"), "prog.c", "LP64", "random",
                    publication=Publication(str(tmp_path)))
    report.write(board)
    board.submit(["3"], "test")
    board.submit(["4"], "test")
    assert read_suite(str(tmp_path / "test-suite.zip")) == [], "not before the report"
    report.write(board)
    assert [t.name for t in read_suite(str(tmp_path / "test-suite.zip"))] == ["test000001", "test000002"]
    board.run.suite.add(TestCase(["5"]))  # taken by the suite, never recorded on the board
    doc = report.write(board)
    assert [t.name for t in read_suite(str(tmp_path / "test-suite.zip"))] == ["test000001", "test000002"]
    assert doc["summary"]["tests"] == 2
    board.submit(["6"], "test")  # a test waiting, then time passes with nothing decided
    report.min_interval, report._cost = 0.0, 0.0
    report(board, Tick())
    assert len(read_suite(str(tmp_path / "test-suite.zip"))) == 3
    assert json.loads((tmp_path / "report.json").read_text())["summary"]["tests"] == 3
    report.publication.finalize()  # the end of a run: plain files, no folder left
    assert len(read_suite(str(tmp_path / "test-suite.zip"))) == 3
    assert json.loads((tmp_path / "report.json").read_text())["summary"]["tests"] == 3
    assert [p.name for p in tmp_path.iterdir() if p.is_symlink() or p.name.startswith(".")] == []
