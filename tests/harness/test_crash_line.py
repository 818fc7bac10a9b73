"""A test run that dies of a fault names the program's own line of it: the faulting
statement (a null dereference, a division by zero), the call of abort() or of the
library function that faulted, in whichever file of the program, 64- or 32-bit; and
the run still ends with the signal it died of."""
from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from cooptest.cfa.ctype import DataModel
from cooptest.frontend import load_program
from cooptest.harness.executor import Execution, Executor, failure
from cooptest.task import BRANCHES, Source, Task

CRASHES = """#include <stdlib.h>
#include <string.h>
extern int __VERIFIER_nondet_int(void);
int divide(int a, int b) {
  int q = 1;
  q = a / b;
  return q;
}
int main(void) {
  int *p = 0, x = __VERIFIER_nondet_int();
  if (x == 1) {
    x = x + 1;
    *p = x;
  }
  if (x == 3) {
    abort();
  }
  if (x == 4)
    return divide(10, x - 4);
  if (x == 5) {
    char *s = 0;
    return (int)strlen(s);
  }
  return 0;
}
"""
# input -> (signal, line of the faulting statement)
EXPECTED = {"1": (signal.SIGSEGV, 13), "3": (signal.SIGABRT, 16), "4": (signal.SIGFPE, 6),
            "5": (signal.SIGSEGV, 22)}

LIB = """int table[4];

int lookup(const int *t, int i) {
  int v = 0;
  v = t[i] + 1;
  return v;
}
"""
MAIN = """extern int __VERIFIER_nondet_int(void);
int lookup(const int *t, int i);
int main(void) {
  int x = __VERIFIER_nondet_int();
  return lookup(x > 5 ? (const int *)0 : (const int *)16, x);
}
"""


def executor(tmp_path: Path, files: dict[str, str], data_model: DataModel = DataModel.LP64) -> Executor:
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    task = Task(paths[0], data_model, (BRANCHES,), sources=tuple(Source(p) for p in paths))
    return Executor(load_program(task, str(tmp_path / "work")), str(tmp_path / "work" / "build"))


def where(ex: Execution) -> tuple[int | None, str | None, int | None]:
    assert ex.crash is not None
    return ex.signal, ex.crash.file and Path(ex.crash.file).name, ex.crash.line


def multilib() -> bool:
    proc = subprocess.run(["gcc", "-m32", "-x", "c", "-o", "/dev/null", "-"],
                          input="int main(void){return 0;}\n", capture_output=True, text=True)
    return proc.returncode == 0


@pytest.mark.parametrize("data_model", [DataModel.LP64, DataModel.ILP32])
def test_each_crash_names_the_line_of_its_faulting_statement(tmp_path: Path, data_model: DataModel) -> None:
    if data_model is DataModel.ILP32 and not multilib():
        pytest.skip("gcc-multilib is not installed")
    run = executor(tmp_path, {"prog.c": CRASHES}, data_model)
    for value, (sig, line) in EXPECTED.items():
        ex = run.run([value])
        assert ex.exit_code is None and ex.crashed, value  # it still dies of the signal
        assert where(ex) == (sig, "prog.c", line), value
        assert failure(ex) == f"killed by {sig.name} at {tmp_path / 'prog.c'}:{line}"
    fine = run.run(["0"])
    assert fine.exit_code == 0 and fine.crash is None and failure(fine) is None


@pytest.mark.parametrize("data_model", [DataModel.LP64, DataModel.ILP32])
def test_a_crash_in_a_second_file_names_that_file(tmp_path: Path, data_model: DataModel) -> None:
    if data_model is DataModel.ILP32 and not multilib():
        pytest.skip("gcc-multilib is not installed")
    run = executor(tmp_path, {"main.c": MAIN, "lib.c": LIB}, data_model)
    for value in ("0", "9"):  # a wild pointer, a null one
        assert where(run.run([value])) == (signal.SIGSEGV, "lib.c", 5)


def test_a_stack_overflow_names_the_recursing_function(tmp_path: Path) -> None:
    """The handler runs on a stack of its own: the overflow is located too."""
    run = executor(tmp_path, {"deep.c": """extern int __VERIFIER_nondet_int(void);
int depth(int n) {
  volatile char pad[256];
  pad[0] = (char)n;
  return depth(n + 1) + pad[0];
}
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 0) return depth(x);
  return 0;
}
"""})
    sig, file, line = where(run.run(["1"]))
    assert (sig, file) == (signal.SIGSEGV, "deep.c") and line is not None and 2 <= line <= 5


def test_a_signal_sent_from_outside_is_no_fault_of_a_line(tmp_path: Path) -> None:
    """A SIGSEGV the program sends itself with kill() ends the run as before; the
    handler names where kill() was called (the C library's code, then the program's)."""
    run = executor(tmp_path, {"kill.c": """#include <signal.h>
#include <unistd.h>
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x == 2)
    kill(getpid(), SIGSEGV);
  return 0;
}
"""})
    ex = run.run(["2"])
    assert ex.signal == signal.SIGSEGV and where(ex) == (signal.SIGSEGV, "kill.c", 7)
