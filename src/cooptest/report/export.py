"""``cooptest export``: a Test-Comp suite as plain C unit tests a user can keep in their
own repository — one C file per test holding its inputs, the nondet harness reading
them instead of stdin, a Makefile whose ``make check`` runs them all and whose
``make coverage`` draws gcovr's line-coverage HTML of the program.

Each test is first run as TestCov runs it (the program as written, built with the stdin
harness): the status it ends with is written into ``tests/expected``, so ``make check``
fails when a change of the program changes how a test ends — and when the exported test
does not do what its XML does. The harness is TestCov's, reading the same literals with
the same ``sscanf`` formats, only from the test's array instead of stdin. (The status
is not taken from the instrumented build that decides coverage: for a program that reads
uninitialised memory the two builds may end differently.) The instrumented replay
(``harness.replay``) tells whether the test reaches the error and what it covers.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

from cooptest.errors import UserError
from cooptest.frontend.preprocess import preprocess
from cooptest.harness.coverage import TIMEOUT
from cooptest.harness.nondet import harness_source, needed_functions
from cooptest.harness.build import compile_program
from cooptest.harness.replay import Replayed, ended, exit_status, replay
from cooptest.report.html import TEMPLATES
from cooptest.task import Task

HARNESS = "cooptest_harness.c"


def c_string(value: str) -> str:
    """``value`` as a C string literal: printable ASCII as is, every other byte in octal
    (three digits, so that no following digit can extend the escape)."""
    out = []
    for byte in value.encode("utf-8", errors="surrogateescape"):
        ch = chr(byte)
        if ch in '\\"':
            out.append("\\" + ch)
        elif 0x20 <= byte < 0x7F and ch != "?":  # "?" could start a trigraph
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def export(task: Task, suite: str, out: str) -> int:
    """Write the unit tests of ``suite`` into ``out`` (see the module docstring); returns
    how many."""
    if os.path.exists(out) and os.listdir(out):
        if not os.path.exists(os.path.join(out, "Makefile")):
            raise UserError("exists and is not an export of cooptest (no Makefile); "
                            "choose an empty or new folder", out)
        shutil.rmtree(os.path.join(out, "tests"), ignore_errors=True)
    os.makedirs(os.path.join(out, "tests"), exist_ok=True)
    program = os.path.basename(task.program)
    shutil.copyfile(task.program, os.path.join(out, program))
    with tempfile.TemporaryDirectory(prefix="cooptest-export-") as work:
        with open(preprocess(task, work), errors="replace") as f:
            declared = needed_functions(f.read())
    _write(out, HARNESS, harness_source(declared, inputs="array"))
    context = {"program": program, "suite": os.path.basename(suite)}
    expected = []
    replayed = list(replay(task, suite))
    with tempfile.TemporaryDirectory(prefix="cooptest-export-") as work:
        plain = compile_program(task.program, task.data_model, work, trace=False)
        for r in replayed:
            status = exit_status(plain.run(r.test.inputs, timeout=TIMEOUT))
            _write(out, os.path.join("tests", f"{r.test.name}.c"), _test_file(r, status, context))
            expected.append(f"{r.test.name} {status}\n")
    _write(out, os.path.join("tests", "expected"), "".join(expected))
    _write(out, "Makefile", TEMPLATES.get_template("export/Makefile.j2").render(
        arch_flag=task.data_model.gcc_flag, timeout=int(TIMEOUT), **context))
    return len(replayed)


def _test_file(r: Replayed, status: int, context: dict[str, str]) -> str:
    return TEMPLATES.get_template("export/test.c.j2").render(
        name=r.test.name, inputs=[c_string(v) for v in r.test.inputs], status=status,
        ended=ended(r.execution), error_reached=r.execution.error_reached, goals=len(r.goals),
        **context)


def _write(out: str, name: str, text: str) -> None:
    with open(os.path.join(out, name), "w") as f:
        f.write(text)


def make(out: str, target: str) -> subprocess.CompletedProcess:
    """``make -C out target`` with this Python's gcovr."""
    try:
        return subprocess.run(["make", "--no-print-directory", "-C", out, target,
                               f"GCOVR={sys.executable} -m gcovr"],
                              capture_output=True, text=True, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise UserError("make is not installed; run: apt-get install -y make") from None


def run_export(task: Task, suite: str, out: str) -> int:
    """Export, then run ``make check`` and ``make coverage`` once as the user would."""
    tests = export(task, suite, out)
    print(f"{tests} tests written to {out} (make check, make coverage)")
    check = make(out, "check")
    lines = check.stdout.splitlines()
    tally = [ln for ln in lines if ln.endswith(" failed")]
    print("make check: " + (tally[-1] if tally else f"exit {check.returncode}: "
                            + " ".join(check.stderr.strip().splitlines()[-1:])))
    for line in lines:
        if line.startswith("FAIL "):
            print("  " + line)
    if check.returncode != 0:
        return 1
    coverage = make(out, "coverage")
    if coverage.returncode != 0:
        tail = (coverage.stderr or coverage.stdout).strip().splitlines()[-1:]
        raise UserError(f"make coverage failed: {' '.join(tail)}", out)
    summary = [ln for ln in coverage.stdout.splitlines() if ln.startswith(("lines:", "branches:"))]
    print("make coverage: " + "; ".join(summary) + f" ({os.path.join(out, 'coverage', 'index.html')})")
    return 0
