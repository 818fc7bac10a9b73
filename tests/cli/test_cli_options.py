"""Every option of ``generate`` does something or is refused (issue 40): an option that
does not apply to the chosen strategy ends the run before it begins, in one line with
exit 2; an option that applies is recorded in report.json's ``configuration``; and a
task whose property is coverage-error-call ends once the error is covered."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from clitools import cooptest

SMALL = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 0) return 1;
  return 0;
}
"""

# reach_error() is one byte away; the other branches need int equalities that random
# testing never hits, so a run that went on searching them would last its whole budget.
ERROR_CALL = """extern int __VERIFIER_nondet_int(void);
extern unsigned char __VERIFIER_nondet_uchar(void);
extern void abort(void);
void reach_error(void) { abort(); }
int main(void) {
  unsigned char c = __VERIFIER_nondet_uchar();
  if (c == 7) reach_error();
  int s = 0;
  for (int i = 0; i < 8; i++) {
    int x = __VERIFIER_nondet_int();
    if (x == 1000003 + i) s += 1;
    if (x * 3 == 999999 - i) s += 2;
    if (x > 123456789 && x < 123456800) s += 3;
  }
  if (s == 17) return 1;
  return 0;
}
"""


@pytest.fixture
def small(tmp_path: Path) -> Path:
    prog = tmp_path / "small.c"
    prog.write_text(SMALL)
    return prog


@pytest.mark.parametrize("strategy, options, says", [
    # the issue's own line: the first option that does nothing for concolic testing
    ("concolic", ["--reuse", "cond-v", "--partitions", "9", "--frontier-order", "found",
                  "--no-monitor", "--parallel"], "applies to"),
    ("concolic", ["--reuse", "cond-v"], "--reuse applies to coveritest and auto"),
    ("concolic", ["--partitions", "9"], "--partitions applies to mgp"),
    ("concolic", ["--frontier-order", "found"], "--frontier-order applies to bite and auto"),
    ("concolic", ["--no-monitor"], "--no-monitor applies to crabs"),
    ("concolic", ["--parallel"], "--parallel applies to coveritest"),
    ("auto", ["--parallel"], "--parallel applies to coveritest"),
    ("auto", ["--testing-share", "0.5"], "--testing-share applies to crabs"),
    ("random", ["--search", "dfs"], "--search applies to concolic, crabs, bite and auto"),
    ("coveritest", ["--search", "dfs"], "--search applies to"),  # value and predicate search no tree
    ("value", ["--time-pair", "20/80"], "--time-pair applies to coveritest and auto"),
    ("value", ["--sequence", "value:1"], "--sequence applies to coveritest and auto"),
    ("predicate", ["--jobs", "2"], "--jobs applies to auto"),
    ("crabs", ["--max-iterations", "5"], "--max-iterations applies to strategies with concolic search"),
    ("crabs", ["--dfs-depth", "5", "--search", "crest-dfs"], "--dfs-depth applies to --strategy concolic --search"),
    ("concolic", ["--dfs-depth", "5"], "--dfs-depth applies to --strategy concolic --search crest-dfs"),
    ("concolic", ["--dfs-depth", "5", "--search", "dfs"], "--dfs-depth applies to --strategy concolic --search"),
    ("predicate", ["--fresh-inputs", "zero"], "--fresh-inputs applies to strategies with concolic search"),
    ("value", ["--addresses", "concrete"], "--addresses applies to strategies with concolic search"),
    ("chc", ["--library", "concrete"], "--library applies to strategies with concolic search"),
    ("value", ["--unconstrained", "fresh"], "--unconstrained applies to strategies with concolic search"),
    ("coveritest", ["--sequence", "value:1", "--time-pair", "20/80"],
     "give either --sequence or --time-pair, not both"),
    ("auto", ["--sequence", "auto:3"], "a CoVeriTest sequence cannot contain auto"),
    ("concolic", ["--partitioning", "random"], "--partitioning applies to mgp"),
    ("mgp", ["--partition-size", "3"], "--partition-size applies to --partitioning size"),
    ("mgp", ["--partitioning", "size", "--partitions", "3"], "takes --partition-size, not --partitions"),
])
def test_an_option_that_does_nothing_for_the_strategy_is_one_line_exit_2(
        tmp_path: Path, small: Path, strategy: str, options: list[str], says: str) -> None:
    out = tmp_path / "out"
    proc = cooptest("generate", small, "--budget", "5", "--out", out, "--strategy", strategy,
                    *options, "--quiet")
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert lines[0].startswith("cooptest: ") and says in lines[0], proc.stderr
    assert not out.exists()  # refused before anything ran


@pytest.mark.parametrize("strategy, options, recorded", [
    ("concolic", ["--search", "dfs", "--max-iterations", "5"], {"search": "dfs", "max_iterations": 5}),
    ("crabs", ["--fresh-inputs", "zero"], {"fresh_inputs": "zero"}),
    ("concolic", ["--addresses", "concrete"], {"addresses": "concrete"}),
    ("auto", ["--library", "concrete"], {"library": "concrete"}),
    ("concolic", ["--unconstrained", "fresh"], {"unconstrained": "fresh"}),
    ("crabs", ["--testing-share", "0.5", "--no-monitor"], {"testing_share": 0.5, "no_monitor": True}),
    ("coveritest", ["--time-pair", "50/50", "--reuse", "cond-v"], {"time_pair": "50/50", "reuse": "cond-v"}),
    # auto takes its CoVeriTest lane's options, its concolic lanes' search, BiTe's order
    ("auto", ["--reuse", "cond-p", "--time-pair", "10/10", "--search", "bfs",
              "--frontier-order", "found", "--jobs", "2"],
     {"reuse": "cond-p", "time_pair": "10/10", "search": "bfs", "frontier_order": "found", "jobs": 2}),
    # an option of an analysis the sequence names applies to the cooperation running it
    ("coveritest", ["--sequence", "concolic:1,value:1", "--search", "dfs"],
     {"sequence": ["concolic:1", "value:1"], "search": "dfs"}),
])
def test_an_applied_option_is_in_the_reports_configuration(
        tmp_path: Path, small: Path, strategy: str, options: list[str], recorded: dict) -> None:
    proc = cooptest("generate", small, "--budget", "20", "--out", tmp_path, "--strategy", strategy,
                    *options, "--quiet")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((tmp_path / "report.json").read_text())
    assert {k: doc["configuration"].get(k) for k in recorded} == recorded


@pytest.mark.parametrize("options, recorded, runs", [
    (["--partitioning", "random", "--partitions", "2"], {"partitioning": "random", "partitions": 2}, 2),
    (["--partitioning", "size", "--partition-size", "1"], {"partitioning": "size", "partition_size": 1}, 2),
    ([], {"partitioning": "proximity", "partitions": 4}, 2),  # 2 goals: 2 parts of the 4
])
def test_the_partitioning_of_mgp_is_chosen_and_reported(tmp_path: Path, small: Path, options: list[str],
                                                        recorded: dict, runs: int) -> None:
    proc = cooptest("generate", small, "--budget", "20", "--out", tmp_path, "--strategy", "mgp",
                    *options, "--quiet")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((tmp_path / "report.json").read_text())
    assert {k: doc["configuration"].get(k) for k in recorded} == recorded
    assert [r["analysis"] for r in doc["analyses"]] == [
        f"mgp: partition {k} of {runs} (1 goal)" for k in range(1, runs + 1)]


@pytest.mark.parametrize("strategy", ["random", "auto"])
def test_an_error_call_task_ends_once_the_error_is_covered(tmp_path: Path, strategy: str) -> None:
    """Test-Comp's Cover-Error asks for one test that reaches reach_error(): the run ends
    with it (before: the 20 s of its budget, searching branch goals no one asked for)."""
    (tmp_path / "prog.c").write_text(ERROR_CALL)
    task = tmp_path / "task.yml"
    task.write_text("format_version: '2.0'\ninput_files: 'prog.c'\nproperties:\n"
                    "  - property_file: ../properties/coverage-error-call.prp\n"
                    "options:\n  language: C\n  data_model: ILP32\n")
    out = tmp_path / "out"
    proc = cooptest("generate", task, "--budget", "20", "--out", out, "--strategy", strategy, "--quiet")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((out / "report.json").read_text())
    errors = [g for g in doc["goals"] if g["kind"] == "error-call"]
    assert [g["status"] for g in errors] == ["covered"]
    assert doc["summary"]["stopped"] == "done" and doc["summary"]["time_s"] < 10, doc["summary"]
    assert doc["summary"]["unknown"] > 0  # the branch goals were not what it worked for


def test_crabs_searches_as_the_paper_unless_told(tmp_path: Path, small: Path) -> None:
    """Crabs' concolic testing is CREST's CFG-directed search in the paper (before:
    cooptest's default, cgs); --search still names another."""
    for options, search in (([], "crest-cfg"), (["--search", "dfs"], "dfs")):
        out = tmp_path / search
        proc = cooptest("generate", small, "--budget", "10", "--out", out, "--strategy", "crabs",
                        *options, "--quiet")
        assert proc.returncode == 0, proc.stderr
        assert json.loads((out / "report.json").read_text())["search"] == search
    out = tmp_path / "bench"  # bench runs each strategy's own search too, and records it
    proc = cooptest("bench", small, "--strategy", "crabs", "--budget", "5", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((out / "results.json").read_text())["config"]["search"] == "crest-cfg"
