"""Every run of the program is in the "C" locale, whatever the caller's (``runner.LOCALE``):
the replays, AFL++'s executions and an exported suite's ``make check``. The caller
here has LANG=C.UTF-8, under which ``setlocale(LC_ALL, "")`` makes ``MB_CUR_MAX`` 6."""
from __future__ import annotations

import json
import locale
from pathlib import Path

import pytest

from clitools import cooptest

from cooptest.analyses.afl import fuzzer_missing

PROGRAM = """#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
extern char __VERIFIER_nondet_char(void);
int main(void) {
  setlocale(LC_ALL, "");
  char c = __VERIFIER_nondet_char();
  if (MB_CUR_MAX > 1)
    return 3;
  if (c == 'x')
    puts("x");  /* a call: clang's -O2 makes no branch of a bare return */
  return 0;
}
"""
LOCALE_LINE, MAGIC_LINE = 8, 10


def _has_c_utf8() -> bool:
    saved = locale.setlocale(locale.LC_CTYPE)
    try:
        locale.setlocale(locale.LC_CTYPE, "C.UTF-8")
        return True
    except locale.Error:
        return False
    finally:
        locale.setlocale(locale.LC_CTYPE, saved)


pytestmark = pytest.mark.skipif(not _has_c_utf8(), reason="no C.UTF-8 locale here")


@pytest.fixture
def program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_CTYPE", raising=False)
    path = tmp_path / "locale.c"
    path.write_text(PROGRAM)
    return path


def _covered(out: Path, line: int) -> dict[str, bool]:
    """Each goal of the condition on ``line``: whether the run covered it."""
    goals = json.loads((out / "report.json").read_text())["goals"]
    return {g["id"]: g["status"] == "covered" for g in goals if g["line"] == line}


def test_replays_and_the_exported_suite_run_in_the_c_locale(program: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run = cooptest("generate", program, "--strategy", "random", "--budget", "4", "--out", out, "--quiet")
    assert run.returncode == 0, run.stderr
    assert sorted(_covered(out, LOCALE_LINE).values()) == [False, True]  # only MB_CUR_MAX == 1
    assert all(_covered(out, MAGIC_LINE).values())
    exported = cooptest("export", program, out / "test-suite.zip", "--out", tmp_path / "export", timeout=300)
    assert exported.returncode == 0, exported.stderr
    assert ", 0 failed" in exported.stdout  # each test ends as it did in the run


@pytest.mark.skipif(fuzzer_missing() is not None, reason="AFL++ is not installed")
def test_afl_fuzzes_in_the_locale_of_the_replays(program: Path, tmp_path: Path) -> None:
    """Under the caller's C.UTF-8 AFL++ would never reach the comparison with 'x'."""
    out = tmp_path / "out"
    run = cooptest("generate", program, "--strategy", "afl", "--budget", "10", "--out", out, "--quiet")
    assert run.returncode == 0, run.stderr
    assert all(_covered(out, MAGIC_LINE).values())
