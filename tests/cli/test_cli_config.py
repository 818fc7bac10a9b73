"""A project's configuration file (``cooptest.toml`` or ``[tool.cooptest]`` in
pyproject.toml): its values are the options' defaults, recorded where applied, and a key
or value no option takes is refused in one line naming the file and line (issue 44)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from clitools import EXAMPLES, cooptest

PROGRAM = EXAMPLES / "triangle.c"


def test_cooptest_toml_gives_generate_its_options_and_report_json_records_them(tmp_path: Path) -> None:
    (tmp_path / "cooptest.toml").write_text('[generate]\nstrategy = "random"\nbudget = 3\n'
                                            "seed = 7\nquiet = true\nno-reduce = true\n")
    r = cooptest("generate", PROGRAM, "--out", "out", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "out" / "report.json").read_text())
    assert doc["strategy"] == "random"
    assert doc["configuration"]["config_file"] == {
        "path": str(tmp_path / "cooptest.toml"),
        "values": {"strategy": "random", "budget": 3, "seed": 7, "quiet": True, "no-reduce": True}}


def test_the_command_line_wins_and_what_it_replaced_is_not_recorded(tmp_path: Path) -> None:
    (tmp_path / "cooptest.toml").write_text('[generate]\nstrategy = "concolic"\nbudget = 3\n')
    r = cooptest("generate", PROGRAM, "--strategy", "random", "--out", "out", "--quiet", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "out" / "report.json").read_text())
    assert doc["strategy"] == "random"
    assert doc["configuration"]["config_file"]["values"] == {"budget": 3}


def test_pyproject_of_a_folder_above_and_keys_for_every_command(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "lib"\n\n[tool.cooptest]\n'
                                             'cflags = "-DLIMIT=3"\n[tool.cooptest.cfa]\njson = true\n')
    (tmp_path / "src").mkdir()
    program = tmp_path / "p.c"
    program.write_text("int main(void) {\n#if LIMIT == 3\n  int x = 0;\n  if (x) return 1;\n#endif\n"
                       "  return 0;\n}\n")
    r = cooptest("cfa", program, cwd=tmp_path / "src")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["branch_goals"] == 2  # the file's -DLIMIT=3 made the branch


@pytest.mark.parametrize("text,says", [
    ("[generate]\nbudget = 3\nbudgett = 5\n", ":3: [generate] budgett: generate has no option --budgett"),
    ("[generate]\nbudget = -1\n", ":2: [generate] budget: must be a number of seconds above 0"),
    ("[generate]\nquiet = \"yes\"\n", ":2: [generate] quiet: takes true or false"),
    ('[generate]\nstrategy = "fastest"\n', ":2: [generate] strategy: 'fastest' is none of concolic"),
    ("verbose = true\n", ":1: verbose: no command has this option"),
    ("[generat]\nbudget = 3\n", ":1: generat: no command generat"),
    ("[generate\n", ":1: "),  # TOML itself, as tomllib says
])
def test_a_key_or_value_no_option_takes_is_one_line(tmp_path: Path, text: str, says: str) -> None:
    (tmp_path / "cooptest.toml").write_text(text)
    r = cooptest("generate", PROGRAM, "--out", "out", cwd=tmp_path)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert lines[0].startswith(f"cooptest: {tmp_path / 'cooptest.toml'}{says}"), lines[0]
    assert not (tmp_path / "out").exists()


def test_bench_records_the_files_values_in_results_json(tmp_path: Path) -> None:
    (tmp_path / "cooptest.toml").write_text('[bench]\nstrategy = "random"\nbudget = 2\nout = "b"\n')
    r = cooptest("bench", PROGRAM, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    config = json.loads((tmp_path / "b" / "results.json").read_text())["config"]
    assert config["strategy"] == "random" and config["budget"] == 2.0
    assert config["config_file"]["values"] == {"strategy": "random", "budget": 2, "out": "b"}


def test_a_run_stopped_while_loading_records_the_options_it_was_to_apply(tmp_path: Path) -> None:
    (tmp_path / "cooptest.toml").write_text("[generate]\nbudget = 0.01\nseed = 3\n")
    r = cooptest("generate", PROGRAM, "--out", "out", "--quiet", "--strategy", "random", cwd=tmp_path)
    assert r.returncode == 0 and "no goals counted" in r.stderr, r.stderr
    doc = json.loads((tmp_path / "out" / "report.json").read_text())
    assert doc["configuration"]["config_file"]["values"] == {"budget": 0.01, "seed": 3}
