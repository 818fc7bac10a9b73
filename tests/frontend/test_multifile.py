"""Programs of several translation units: linked as the linker links them, goals on
their own file and line, flags per file, and one-line errors for what cannot link."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cooptest.frontend import load_program
from cooptest.sources import load_program_task, read_compile_commands

DATA = Path(__file__).resolve().parents[1] / "data" / "multifile"


def run_cli(*args: str, cwd: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cooptest.cli", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=300)


def write(folder: Path, files: dict[str, str]) -> list[str]:
    paths = []
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        paths.append(str(path))
    return paths


def test_units_link_and_goals_name_their_file(tmp_path):
    task = load_program_task([str(DATA / "main.c"), str(DATA / "shape.c")],
                             flags=("-I", str(DATA / "include")))
    program = load_program(task, str(tmp_path)).program
    assert program.files == [str(DATA / "main.c"), str(DATA / "shape.c")]
    # each file's static helper and its own copy of the header's static inline clamp
    assert {"helper@main.c", "helper@shape.c", "clamp@main.c", "clamp@shape.c",
            "area", "move", "main"} <= set(program.functions)
    files = {(g.function, os.path.basename(g.file)) for g in program.goals()}
    assert ("clamp@shape.c", "shape.h") in files and ("area", "shape.c") in files
    # main.c never calls its copy of the static inline clamp: gcc emits no code for it
    assert "clamp@main.c" in program.unemitted and ("clamp@main.c", "shape.h") not in files
    header_lines = (DATA / "include" / "shape.h").read_text().count("\n")
    assert all(g.line <= header_lines for g in program.goals() if g.file.endswith("shape.h"))
    assert [v.name for v in program.globals if v.source_name == "counter"] == ["counter"]


def test_compile_commands_gives_each_file_its_flags(tmp_path):
    units = read_compile_commands(str(DATA / "compile_commands.json"))
    assert [os.path.basename(u.path) for u in units] == ["main.c", "shape.c"]
    assert units[0].flags == ("-I", str(DATA / "include"))  # -O2, -Wall, -c, -o dropped
    assert units[1].flags == ("-I", str(DATA / "include"), "-DUNUSED=1")
    task = load_program_task([], compile_commands=str(DATA / "compile_commands.json"))
    assert len(load_program(task, str(tmp_path)).program.goals()) == 15


def test_statics_of_two_files_stay_apart_and_externs_are_one(tmp_path):
    """A proof that merged the two ``n`` or split the one ``g`` would be wrong: every
    goal here is covered by a native run, so none may be proven infeasible."""
    paths = write(tmp_path, {
        "a.c": "static int n = 1; int g; void bump(void) { n++; g++; }\n"
               "int a_n(void) { return n; }\n",
        "b.c": "static int n = 10; extern int g; int b_n(void) { return n + g; }\n",
        "main.c": "extern int __VERIFIER_nondet_int(void); void bump(void); int a_n(void);"
                  " int b_n(void);\nint main(void) { if (__VERIFIER_nondet_int()) bump();\n"
                  "  if (a_n() == 2) { if (b_n() == 11) return 1; return 2; }\n"
                  "  if (b_n() == 10) return 3; return 4; }\n"})
    out = tmp_path / "out"
    r = run_cli("generate", *paths, "--budget", "20", "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    doc = json.loads((out / "report.json").read_text())
    goals = sorted((g for g in doc["goals"] if g["file"].endswith("/main.c")),
                   key=lambda g: int(g["id"][1:-1]))
    # B1 bump?, B2 a_n() == 2, B3 b_n() == 11, B4 b_n() == 10: after a bump b_n() is
    # 10 + 1, without one 10 + 0, so B3F and B4F alone cannot happen
    dead = {goals[5]["id"], goals[7]["id"]}
    assert [g["line"] for g in goals] == [2, 2, 3, 3, 3, 3, 4, 4]
    assert all(g["status"] == "covered" for g in goals if g["id"] not in dead), goals
    assert all(g["status"] != "covered" for g in goals if g["id"] in dead), goals
    assert doc["summary"]["contradictions"] == 0


def test_a_struct_passed_between_files_is_one_type(tmp_path):
    paths = write(tmp_path, {
        "p.h": "typedef struct { int x, y; } point; struct box { point lo, hi; struct box *next; };\n"
               "point shift(point p, int d); struct box grow(struct box b);\n",
        "p.c": '#include "p.h"\npoint shift(point p, int d) { p.x += d; return p; }\n'
               "struct box grow(struct box b) { b.hi = shift(b.hi, 1); return b; }\n",
        "main.c": '#include "p.h"\nint main(void) { struct box b = {{0, 0}, {1, 1}, 0};\n'
                  "  b = grow(b); point q = shift(b.lo, 2); return q.x == 2 && b.hi.x == 2; }\n"})
    task = load_program_task(paths[1:])
    program = load_program(task, str(tmp_path / "w")).program
    assert set(program.functions) >= {"main", "shift", "grow"}


def test_system_headers_have_no_goals(tmp_path):
    write(tmp_path, {"sys/lib.h": "static inline int sgn(int v) { if (v < 0) return -1; return v > 0; }\n",
                     "main.c": "#include <lib.h>\n#include <ctype.h>\n#include <errno.h>\n"
                               "extern int __VERIFIER_nondet_int(void);\n"
                               "int main(void) { if (isdigit(__VERIFIER_nondet_int()) && errno == 0)"
                               " return 2; return sgn(__VERIFIER_nondet_int()) ? 1 : 0; }\n"})
    as_system = load_program_task([str(tmp_path / "main.c")],
                                  flags=("-isystem", str(tmp_path / "sys")))
    as_project = load_program_task([str(tmp_path / "main.c")], flags=("-I", str(tmp_path / "sys")))
    system_goals = load_program(as_system, str(tmp_path / "w1")).program.goals()
    project_goals = load_program(as_project, str(tmp_path / "w2")).program.goals()
    assert {os.path.basename(g.file) for g in project_goals} == {"lib.h", "main.c"}
    # isdigit and errno are macros of system headers expanded in main.c: main.c's goals
    assert {os.path.basename(g.file) for g in system_goals} == {"main.c"}
    assert len(system_goals) == len(project_goals) - 2 == 6


@pytest.mark.parametrize("case", ["missing-header", "missing-in-database", "two-mains",
                                  "struct-differs", "not-c"])
def test_what_cannot_be_linked_is_one_line(tmp_path, case):
    out = tmp_path / "out"
    if case == "missing-header":
        args = write(tmp_path, {"m.c": '#include "mylib.h"\nint main(void) { return 0; }\n'})
        expect = "m.c:1: preprocessing failed: mylib.h: No such file or directory"
    elif case == "missing-in-database":
        db = tmp_path / "compile_commands.json"
        db.write_text(json.dumps([{"directory": str(tmp_path), "file": "gone.c",
                                   "command": "cc -c gone.c"}]))
        args = ["--compile-commands", str(db)]
        expect = "entry 1 names gone.c, which does not exist"
    elif case == "two-mains":
        args = write(tmp_path, {"a.c": "int main(void) { return 0; }\n",
                                "b.c": "int x;\nint main(void) { return 1; }\n"})
        expect = "b.c:2: main() is defined twice: here and in"
    elif case == "struct-differs":
        args = write(tmp_path, {"a.c": "struct s { int a; }; struct s *mk(void);\n"
                                       "int main(void) { return mk() != 0; }\n",
                                "b.c": "struct s; struct s *mk(void);\nstruct s { long b, c; };\n"
                                       "struct s *mk(void) { return 0; }\n"})
        expect = "defined differently here and in"
    else:
        args = write(tmp_path, {"ok.c": "int main(void) { return 0; }\n",
                                "prose.c": "This is not a C program.\n"})
        expect = "prose.c:1: not C or unsupported syntax"
    r = run_cli("generate", *args, "--budget", "5", "--out", str(out), "--quiet")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and expect in lines[0], lines
    assert "Traceback" not in r.stderr
    assert not out.exists() or not [p.name for p in out.iterdir()]  # nothing half-written


def test_a_task_of_several_input_files(tmp_path):
    write(tmp_path, {"lib.c": "int twice(int x) { if (x > 10) return 2 * x; return x; }\n",
                     "main.c": "extern int __VERIFIER_nondet_int(void); int twice(int);\n"
                               "int main(void) { return twice(__VERIFIER_nondet_int()) == 30; }\n"})
    task = tmp_path / "task.yml"
    task.write_text("format_version: '2.0'\ninput_files: ['main.c', 'lib.c']\nproperties: []\n"
                    "options:\n  language: C\n  data_model: LP64\n")
    program = load_program(load_program_task([str(task)]), str(tmp_path / "w")).program
    assert [os.path.basename(f) for f in program.files] == ["main.c", "lib.c"]
    assert {os.path.basename(g.file) for g in program.goals()} == {"lib.c"}
