"""AFL++ as an analysis (``analyses.afl``): its byte harness maps a test to bytes and
back, it finds a magic value random testing misses within a bounded number of the
fuzzer's executions, each test it contributes replays natively as the board says, and
a killed run leaves a suite TestCov can read."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from cooptest.analyses.afl import AFLFuzzing, fuzzer_missing
from cooptest.analyses.random_testing import RandomTesting
from cooptest.core.analysis import Job
from cooptest.core.board import GoalBoard
from cooptest.core.budget import Budget
from cooptest.core.parallel import Lane, run_lanes
from cooptest.frontend import load_program
from cooptest.harness.byte_harness import ByteBuilds, afl_compiler, build, decode, encode
from cooptest.harness.executor import Executor
from cooptest.harness.nondet import needed_functions
from cooptest.harness.testsuite import read_suite
from cooptest.sources import load_program_task

from processes import working_in

pytestmark = pytest.mark.skipif(fuzzer_missing() is not None, reason="afl++ is not installed")

# The magic value's branch: random testing draws it with probability ~2^-35 a value
# (the condition compares with a variable, so its dictionary does not hold the value;
# CmpLog sees the operands at run time).
MAGIC = """extern int __VERIFIER_nondet_int(void);
extern char __VERIFIER_nondet_char(void);
extern void abort(void);
void reach_error(void) { abort(); }
int main(void) {
  int x = __VERIFIER_nondet_int();
  char c = __VERIFIER_nondet_char();
  int magic = 0x12345678;
  if (x == magic) {
    if (c > 5) reach_error();
    return 1;
  }
  return 0;
}
"""

TYPES = """extern char __VERIFIER_nondet_char(void);
extern unsigned short __VERIFIER_nondet_ushort(void);
extern int __VERIFIER_nondet_int(void);
extern long __VERIFIER_nondet_long(void);
extern unsigned long long __VERIFIER_nondet_ulonglong(void);
extern _Bool __VERIFIER_nondet_bool(void);
extern double __VERIFIER_nondet_double(void);
extern float __VERIFIER_nondet_float(void);
int main(void) {
  char c = __VERIFIER_nondet_char();
  unsigned short s = __VERIFIER_nondet_ushort();
  int i = __VERIFIER_nondet_int();
  long l = __VERIFIER_nondet_long();
  unsigned long long u = __VERIFIER_nondet_ulonglong();
  _Bool b = __VERIFIER_nondet_bool();
  double d = __VERIFIER_nondet_double();
  float f = __VERIFIER_nondet_float();
  if (c < 0 && s > 60000 && i == -7 && l < -5 && u > 1ull << 63 && b && d == 2.5 && f < 0)
    return 3;
  return 0;
}
"""


def board_of(tmp_path: Path, source: str, flags: tuple[str, ...] = ()) -> GoalBoard:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "prog.c"
    path.write_text(source)
    frontend = load_program(load_program_task([str(path)], None, flags), str(tmp_path / "work"))
    return GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "work")))


def builds_of(board: GoalBoard, folder: Path) -> ByteBuilds:
    """The fuzzed and the translator builds of the board's program, as the lane makes them."""
    compiler = afl_compiler()
    assert compiler is not None
    sources = board.executor.preprocessed
    text = "".join(Path(p).read_text() for p in sources)
    return build(sources, board.executor.dialects, needed_functions(text),
                 board.executor.binary.data_model, str(folder), compiler)


def test_a_test_becomes_bytes_and_the_bytes_the_same_test(tmp_path: Path) -> None:
    """Each call takes sizeof(T) bytes; the literals decoded are those TestCov reads to
    the same values: the native run of the decoded test takes the same path."""
    board = board_of(tmp_path, TYPES)
    builds = builds_of(board, tmp_path / "afl")
    test = ["-3", "65535", "-7", "-9", "18446744073709551615", "1", "2.5", "-0.5"]
    data = encode(builds.translator, test, 3.0)
    assert data is not None and len(data) == 1 + 2 + 4 + 8 + 8 + 1 + 8 + 4
    assert decode(builds.translator, data, 3.0) == ["-3", "65535", "-7", "-9", "18446744073709551615",
                                                    "1", "2.5", "-0.5"]
    assert board.executor.run(test).exit_code == 3
    assert decode(builds.translator, data[:5], 3.0) == ["-3", "65535"]  # the bytes ran out


# gnu89's inline: an external definition; C99's (gcc's default since gnu11): none, so a
# build that ignores the program's -std= does not link.
GNU89 = """extern int __VERIFIER_nondet_int(void);
inline int twice(int x) { return x + x; }
int main(void) { return twice(__VERIFIER_nondet_int()) == 8; }
"""


def test_both_builds_are_in_the_programs_dialect(tmp_path: Path) -> None:
    board = board_of(tmp_path, GNU89, ("-std=gnu89",))
    builds = builds_of(board, tmp_path / "afl")
    data = encode(builds.translator, ["4"], 3.0)
    assert data is not None and decode(builds.translator, data, 3.0) == ["4"]
    assert subprocess.run([builds.fuzzed], input=data, capture_output=True).returncode == 1


@pytest.mark.slow
def test_afl_finds_the_magic_value_random_testing_misses_and_its_tests_replay(tmp_path: Path) -> None:
    """The error call sits behind ``x == magic`` (0x12345678): AFL++'s CmpLog copies the value into
    the input within its first executions; random testing, with many more runs of its
    own, draws it with probability ~2^-35 a run."""
    afl_board = board_of(tmp_path / "afl", MAGIC)
    random_board = board_of(tmp_path / "random", MAGIC)
    outcome = AFLFuzzing(executions=3000).run(afl_board, Job(frozenset(afl_board.goals), Budget.seconds(300)))
    assert outcome.state.why_not is None
    assert 0 < afl_board.stats["fuzzer executions"] <= 3500  # -E is approximate
    RandomTesting().run(random_board, Job(frozenset(random_board.goals), Budget.seconds(10)))
    assert random_board.stats["iterations"] >= 300
    assert any(g.startswith("E") for g in afl_board.covered)
    assert not any(g.startswith("E") for g in random_board.covered)
    for record in afl_board.records:  # each test the board kept: its native run as the board says
        again = afl_board.executor.run(record.test.inputs)
        assert record.covers <= again.covered and record.first <= again.covered
        assert record.origin == "afl"


def test_without_cmplog_the_same_executions_miss_the_magic_value(tmp_path: Path) -> None:
    """The proving lane's instance beside concolic search (``cmplog=False``) has no
    CmpLog stage: its havoc draws the magic value as rarely as random testing."""
    board = board_of(tmp_path, MAGIC)
    outcome = AFLFuzzing(executions=3000, cmplog=False).run(board, Job(frozenset(board.goals), Budget.seconds(300)))
    assert outcome.state.why_not is None
    assert board.stats["fuzzer executions"] > 0 and board.covered
    assert not any(g.startswith("E") for g in board.covered)


@pytest.mark.slow
def test_a_killed_afl_run_leaves_a_suite_and_no_fuzzer(tmp_path: Path) -> None:
    program = tmp_path / "magic.c"
    program.write_text(MAGIC)
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "cooptest.cli", "generate", str(program), "--strategy",
                             "afl", "--budget", "120", "--out", str(out), "--quiet"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    suite = out / "test-suite.zip"
    waited = time.monotonic()
    while proc.poll() is None and time.monotonic() - waited < 120:
        try:
            with zipfile.ZipFile(suite) as z:
                if len([n for n in z.namelist() if n != "metadata.xml"]) >= 2:
                    break
        except (OSError, zipfile.BadZipFile):
            pass
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    time.sleep(0.5)  # afl-fuzz and its fork server die with it (their parent-death signal)
    assert not working_in(out)
    tests = read_suite(str(suite))
    assert len(tests) >= 2
    board = board_of(tmp_path / "replay", MAGIC)
    for test in tests:  # every test of the suite runs natively and covers a goal
        assert board.executor.run(test.inputs).covered


@pytest.mark.slow
def test_a_run_given_seeds_fuzzes_with_afl_by_default_and_says_why(tmp_path: Path) -> None:
    """The portfolio's fuzzer is AFL++ for a run given ``--seed-suite`` (report.json says
    so, and AFL++ had its turn); without seeds, cooptest's random testing; ``--fuzzer``
    decides where given."""
    program = tmp_path / "magic.c"
    program.write_text(MAGIC)
    (tmp_path / "seed.input").write_text("7\n0\n")
    ran = {}
    for name, args in (("seeded", ["--seed-suite", str(tmp_path / "seed.input")]), ("unseeded", []),
                       ("chosen", ["--seed-suite", str(tmp_path / "seed.input"), "--fuzzer", "random"])):
        out = tmp_path / name
        r = subprocess.run([sys.executable, "-m", "cooptest.cli", "generate", str(program), "--budget", "5",
                            "--jobs", "2", "--out", str(out), "--quiet", *args],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        doc = json.loads((out / "report.json").read_text())
        ran[name] = (doc["configuration"]["fuzzer"], doc["configuration"].get("fuzzer_default"),
                     "afl" in {a["analysis"] for a in doc["analyses"]})
    assert ran == {"seeded": ("afl", "a seed suite, and AFL++ installed", True),
                   "unseeded": ("random", None, False), "chosen": ("random", None, False)}


UNREACHABLE = """extern unsigned __VERIFIER_nondet_uint(void);
int main(void) {
  unsigned u = __VERIFIER_nondet_uint();
  if (u * u == 3u) return 1;
  return u > 1000u;
}
"""


@pytest.mark.slow
def test_a_fuzzing_lane_that_lasts_the_budget_reports_its_executions(tmp_path: Path) -> None:
    """``u * u == 3`` has no solution modulo 2^32, so the lanes run until the deadline;
    afl-fuzz says how often it ran only as it ends, and that count, and the entries the
    lane replayed, reach the parent's board before it stops the workers."""
    board = board_of(tmp_path, UNREACHABLE)
    lanes = [Lane([(AFLFuzzing(), None)], "fuzzing"), Lane([(RandomTesting(), None)], "random")]
    runs = run_lanes(board, lanes, frozenset(board.goals), Budget.seconds(8))
    assert board.stats["fuzzer executions"] > 1000
    assert board.stats["fuzzer entries replayed"] >= 1
    assert board.stats["iterations"] > 100
    assert {(r.analysis, r.stopped) for r in runs} == {("afl", "budget"), ("random", "budget")}


@pytest.mark.slow
def test_the_builds_prepared_are_those_the_run_fuzzes(tmp_path: Path) -> None:
    """``prepare`` makes both builds ahead of the run (``Niced`` calls it before lowering
    the lane's priority); the run then fuzzes the same build, not a second one."""
    board = board_of(tmp_path, MAGIC)
    AFLFuzzing().prepare(board)
    built = list(tmp_path.rglob("afl-build/fuzzed-*"))
    assert len(built) == 1
    made = built[0].stat().st_mtime_ns
    outcome = AFLFuzzing(executions=500).run(board, Job(frozenset(board.goals), Budget.seconds(120)))
    assert outcome.state.builds is not None and Path(outcome.state.builds.fuzzed) == built[0]
    assert built[0].stat().st_mtime_ns == made
    assert board.stats["fuzzer executions"] > 0
