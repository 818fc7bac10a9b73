"""Bad input ends with one line and exit 2; budgets are kept, parsing included; a
signalled run leaves a report; nothing is left in $TMPDIR."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clitools import EXAMPLES, cooptest
from cooptest.harness.cgroups import orphans
from cooptest.harness.testsuite import read_suite

GUARDED = EXAMPLES / "guarded.c"
TASKS = {
    "empty": "input_files: []\n", "null": "input_files: [null]\n",
    "directory": "input_files: d.c\n", "txt": "input_files: t.txt\n",
    "itself": "input_files: itself.yml\n", "properties": "input_files: g.c\nproperties: 5\n",
    "options": 'input_files: g.c\noptions: "x"\n',
}


def one_line_exit_2(r: subprocess.CompletedProcess) -> None:
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("cooptest: ")


@pytest.mark.parametrize("name", sorted(TASKS))
def test_broken_task_files(tmp_path, name):
    (tmp_path / "g.c").write_text(GUARDED.read_text())
    (tmp_path / "d.c").mkdir()
    (tmp_path / "t.txt").write_text("hi\n")
    (tmp_path / f"{name}.yml").write_text(TASKS[name])
    one_line_exit_2(cooptest("cfa", tmp_path / f"{name}.yml"))


def test_non_utf8_task_and_fifo(tmp_path):
    (tmp_path / "u.yml").write_bytes(b"input_files: g.c\n\xff\xfe: x\n")
    one_line_exit_2(cooptest("cfa", tmp_path / "u.yml"))
    os.mkfifo(tmp_path / "x.c")
    one_line_exit_2(cooptest("cfa", tmp_path / "x.c", timeout=20))
    one_line_exit_2(cooptest("generate", tmp_path / "x.c", "--budget", 2, "--out",
                             tmp_path / "o", timeout=20))


@pytest.mark.parametrize("args", [
    ["--budget", "nan"], ["--budget", "inf"], ["--budget", "1e308"], ["--out", ""],
    ["--partitions", "0"], ["--out", "{file}"], ["--out", "{file}/x"],
])
def test_bad_options(tmp_path, args):
    (tmp_path / "file").write_text("")
    base = {"--budget": "2", "--out": str(tmp_path / "o")}
    base.update(dict(zip(args[::2], (a.format(file=tmp_path / "file") for a in args[1::2]))))
    one_line_exit_2(cooptest("generate", GUARDED, *[x for kv in base.items() for x in kv],
                             *args[2:]))


def test_dot_into_a_missing_folder(tmp_path):
    one_line_exit_2(cooptest("cfa", GUARDED, "--dot", tmp_path / "none" / "x.dot"))


def test_enumerators_and_headers_are_accepted(tmp_path):
    prog = tmp_path / "h.c"
    prog.write_text("#include <unistd.h>\n#include <ctype.h>\n#include <pthread.h>\n"
                    "#include <sys/resource.h>\nenum {A = 1, B = A + 2};\n"
                    "int main(void) { if (isdigit(B)) return 1; return 0; }\n")
    r = cooptest("cfa", prog, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["branch_goals"] == 2


def big_program(path: Path, branches: int = 20000) -> None:
    body = "".join(f"  if (x == {i}) s += {i};\n" for i in range(branches))
    path.write_text("extern int __VERIFIER_nondet_int(void);\nint main(void) {\n"
                    f"  int x = __VERIFIER_nondet_int(), s = 0;\n{body}  return s;\n}}\n")


@pytest.mark.slow
def test_the_budget_includes_parsing(tmp_path):
    big_program(tmp_path / "big.c")
    started = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "cooptest.cli", "generate", tmp_path / "big.c",
                        "--budget", "2", "--out", tmp_path / "o", "--quiet"],
                       capture_output=True, text=True, env={**os.environ, "COOPTEST_CACHE": "off"})
    assert time.monotonic() - started <= 3.2, "budget + 1 s (and process start-up)"
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "o" / "report.json").read_text())["summary"]["goals"] >= 0


def test_a_test_that_hangs_does_not_stretch_the_budget(tmp_path):
    prog = tmp_path / "hang.c"
    prog.write_text("extern int __VERIFIER_nondet_int(void);\n#include <unistd.h>\n"
                    "int main(void) { if (__VERIFIER_nondet_int() > 5) sleep(100);"
                    " else while (1) {} return 0; }\n")
    started = time.monotonic()
    r = cooptest("generate", prog, "--budget", 4, "--out", tmp_path / "o", "--quiet")
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - started <= 5.2


def test_sigterm_while_parsing_leaves_a_report_and_no_temp_files(tmp_path):
    big_program(tmp_path / "big.c")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    out = tmp_path / "o"
    out.mkdir()
    (out / "report.json").write_text("{}")
    proc = subprocess.Popen([sys.executable, "-m", "cooptest.cli", "generate",
                             tmp_path / "big.c", "--budget", "60", "--out", out, "--quiet"],
                            env={**os.environ, "COOPTEST_CACHE": "off", "TMPDIR": str(tmp)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGTERM, err
    doc = json.loads((out / "report.json").read_text())
    assert "SIGTERM" in doc["summary"].get("stopped", "SIGTERM")
    assert list(tmp.iterdir()) == []


def test_a_signal_inside_z3_waits_for_a_safe_point() -> None:
    """Raised while z3's Python layer builds a context, the signal left a half-built
    ``Context`` whose ``__del__`` printed a traceback at exit (the 1-s run below, 7
    times in 80 with both cores busy): there it is deferred, the budget cancelled."""
    import z3

    from cooptest.core.budget import Budget
    from cooptest.generate import Signalled, SafePoints

    frames = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_name == "__init__" and not frames:
            frames.append(frame)
    sys.setprofile(profile)
    try:
        z3.Context()
    finally:
        sys.setprofile(None)
    safe = SafePoints(Budget.seconds(60), Budget.seconds(60))
    safe.handle(signal.SIGALRM, frames[0])
    assert safe.pending == signal.SIGALRM and safe.budget.expired()
    with pytest.raises(Signalled):
        safe.raise_pending()
    with pytest.raises(Signalled):  # in our own code: at once
        SafePoints(Budget.seconds(60), Budget.seconds(60)).handle(signal.SIGALRM, sys._getframe())


@pytest.mark.parametrize("budget", ["1", "4"])
def test_a_run_leaves_no_temporary_files(tmp_path, budget):
    """Tests' working folders, the workers' and the coverage builder's (a compiler killed
    at the deadline included): all under the run's own folder, removed with it."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    r = subprocess.run([sys.executable, "-m", "cooptest.cli", "generate", GUARDED, "--budget",
                        budget, "--out", tmp_path / "o", "--quiet", "--strategy", "auto"],
                       capture_output=True, text=True, env={**os.environ, "TMPDIR": str(tmp)})
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert list(tmp.iterdir()) == []
    assert orphans() == [], "the cgroups of the run's processes (for root) are gone"


# An analysis that ends its budget inside native code that ignores signals, as z3 can
# (the SMT core's propagation of assumptions ignored a 1-s limit for 20 s): PBKDF2 holds
# the main thread in OpenSSL, without the GIL, for seconds past the deadline.
HELD = r"""
import hashlib, sys, time
from cooptest.core import registry
from cooptest.core.analysis import AnalysisState, finish
ROUNDS = int(sys.argv[1])

class Held:
    name = "held"
    def run(self, board, job):
        board.submit(["7"], self.name)
        while job.budget.remaining() > 0.05:
            time.sleep(0.01)
        hashlib.pbkdf2_hmac("sha256", b"k", b"s", ROUNDS)
        return finish(board, job, AnalysisState(self.name))

registry.STRATEGIES["held"] = registry.StrategySpec("held", "test", lambda s: Held(), proves=False)
from cooptest import cli
sys.argv = ["cooptest", *sys.argv[2:]]
cli.run()
"""


def pbkdf2_rounds(seconds: float) -> int:
    """Rounds of PBKDF2-SHA256 that take about ``seconds`` here."""
    import hashlib
    started = time.monotonic()
    hashlib.pbkdf2_hmac("sha256", b"k", b"s", 20_000)
    return int(20_000 * seconds / max(time.monotonic() - started, 1e-4))


def test_native_code_holding_the_main_thread_past_the_deadline_does_not_stretch_the_budget(tmp_path):
    """The alarm cannot unwind a thread inside native code; the watchdog ends the run
    with its suite and report all the same, within the budget's second."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    out = tmp_path / "o"
    started = time.monotonic()
    r = subprocess.run([sys.executable, "-c", HELD, str(pbkdf2_rounds(8.0)), "generate", GUARDED,
                        "--strategy", "held", "--budget", "3", "--out", out, "--quiet"],
                       capture_output=True, text=True, env={**os.environ, "TMPDIR": str(tmp)},
                       timeout=60)
    wall = time.monotonic() - started
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert wall <= 3 + 1.0 + 1.5, "budget + 1 s (and the start-up of Python and z3)"
    summary = json.loads((out / "report.json").read_text())["summary"]
    assert summary["held_past_deadline"] and summary["stopped"] == "budget"
    assert summary["tests"] == 1 and summary["covered"] >= 1
    assert len(read_suite(str(out / "test-suite.zip"))) == 1
    assert (out / "report.html").exists()
    assert list(tmp.iterdir()) == []
