"""Options a user gets wrong are refused in one line before anything runs, and the
command line behaves as its help says (issue 44)."""
from __future__ import annotations

import os
import subprocess

import pytest

from clitools import EXAMPLES, cooptest

PROGRAM = EXAMPLES / "triangle.c"


def test_version():
    r = cooptest("--version")
    assert r.returncode == 0 and r.stdout.startswith("cooptest ")


@pytest.mark.parametrize("option,value,says", [
    ("--out", "/", "system or home folder"),
    ("--out", os.path.expanduser("~"), "system or home folder"),
    ("--jobs", "100000", "cores"),
    ("--memory", "1", "at least 16"),
])
def test_options_beyond_reason_are_refused(tmp_path, option, value, says):
    r = cooptest("generate", PROGRAM, "--budget", "5", option, value, cwd=tmp_path)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and says in lines[0], r.stderr


def test_debug_after_the_command_is_taken(tmp_path):
    r = cooptest("cfa", PROGRAM, "--debug")
    assert r.returncode == 0, r.stderr


def test_a_task_in_another_language_is_refused(tmp_path):
    (tmp_path / "Main.java").write_text("class Main {}\n")
    task = tmp_path / "task.yml"
    task.write_text("format_version: '2.0'\ninput_files: 'Main.java'\n"
                    "properties: []\noptions:\n  language: Java\n")
    r = cooptest("cfa", task)
    assert r.returncode == 2 and "language Java" in r.stderr, r.stderr


def test_outputs_are_readable_by_others(tmp_path):
    r = cooptest("generate", PROGRAM, "--budget", "5", "--out", tmp_path / "out", "--quiet")
    assert r.returncode == 0, r.stderr
    for name in ("report.json", "test-suite.zip", "report.html"):
        assert (tmp_path / "out" / name).stat().st_mode & 0o777 == 0o644, name


def test_a_file_name_with_a_newline_keeps_the_summary_on_one_line(tmp_path):
    program = tmp_path / "a\nb.c"
    program.write_text("int main(void) { return 0; }\n")
    r = cooptest("generate", program, "--budget", "3", "--out", tmp_path / "out", "--quiet")
    assert r.returncode == 0 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stderr.startswith("a\\nb.c: ")


@pytest.mark.parametrize("source,says", [
    ("int main(void) {\n  goto nowhere;\n  return 0;\n}\n", "p.c:2: label 'nowhere' used but not defined"),
    ("extern int g;\nint main(void) { return g; }\n", "p.c:1: g is declared but defined in no file"),
])
def test_errors_name_the_users_file_not_cooptests_copy(tmp_path, source, says):
    program = tmp_path / "p.c"
    program.write_text(source)
    r = cooptest("generate", program, "--budget", "20", "--out", tmp_path / "out", "--quiet")
    assert r.returncode == 2 and says in r.stderr and "instrumented" not in r.stderr, r.stderr


def test_a_budget_spent_while_loading_is_said_not_counted_as_no_goals(tmp_path):
    """pals_lcr.8 under --budget 5 said "0/0 goals covered": a budget no load can meet
    (10 ms from the process's start) shows what the summary line says instead."""
    r = cooptest("generate", PROGRAM, "--budget", "0.01", "--out", tmp_path / "out", "--quiet")
    assert r.returncode == 0, r.stderr
    assert "before the program was analysed: no goals counted" in r.stderr or \
        "before the task was loaded: no goals counted" in r.stderr, r.stderr
    assert "0/0 goals" not in r.stderr


@pytest.mark.parametrize("command", ["generate", "bench"])
def test_help_says_what_each_strategy_is_and_the_defaults(command):
    from cooptest.core.registry import DEFAULT_SEARCH, DEFAULT_STRATEGY, STRATEGIES
    r = cooptest(command, "--help")
    text = " ".join(r.stdout.split())
    assert r.returncode == 0, r.stderr
    assert f"(default {DEFAULT_STRATEGY};" in text and f"(default {DEFAULT_SEARCH}" in text, text
    for name, spec in STRATEGIES.items():
        assert f"{name} {spec.summary}" in text, name


def test_bench_refuses_a_memory_no_run_fits_in(tmp_path):
    r = cooptest("bench", PROGRAM, "--budget", "2", "--out", tmp_path / "b", "--memory", "1")
    assert r.returncode == 2 and "at least 16" in r.stderr and not (tmp_path / "b").exists(), r.stderr


COMPLETE = """source "$1"
complete_line() {
  COMP_LINE="$1"; read -ra COMP_WORDS <<< "$1"; [[ "$1" == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_POINT=${#COMP_LINE}; COMPREPLY=()
  _shtab_cooptest; echo "${COMPREPLY[*]}"
}
complete_line "cooptest gen"; complete_line "cooptest generate --stra"
complete_line "cooptest generate --strategy cov"; complete_line "cooptest generate tri"
complete_line "cooptest bench --out ou"
"""


def test_bash_completes_commands_options_strategies_and_files(tmp_path):
    """The script ``--print-completion bash`` prints, sourced in bash and asked as the
    shell asks it (``COMP_WORDS``), completes what a user types."""
    script = tmp_path / "cooptest.bash"
    r = cooptest("--print-completion", "bash")
    assert r.returncode == 0, r.stderr
    script.write_text(r.stdout)
    (tmp_path / "triangle.c").write_text("int main(void) { return 0; }\n")
    (tmp_path / "out1").mkdir()
    done = subprocess.run(["bash", "-c", COMPLETE, "bash", str(script)], capture_output=True,
                          text=True, cwd=tmp_path, timeout=60)
    assert done.stdout.splitlines() == ["generate", "--strategy", "coveritest", "triangle.c", "out1"], \
        done.stdout + done.stderr
