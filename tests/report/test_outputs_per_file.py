"""``cooptest coverage`` and ``cooptest replay`` of a program of several files give the
goals per file (a header-only library's goals are the header's); a program of one file
keeps its one figure."""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from clitools import HEADERONLY

from clitools import cooptest

HEADER = HEADERONLY / "lib" / "ring.h"
PROGRAM = (HEADERONLY / "harness.c", "-I", HEADERONLY / "lib")


@pytest.mark.slow  # the run on the library takes its 10-s budget
def test_coverage_per_file(headeronly_out: Path) -> None:
    suite = headeronly_out / "test-suite.zip"
    doc = json.loads(cooptest("coverage", PROGRAM[0], suite, *PROGRAM[1:], "--json").stdout)
    files = {f["file"]: f for f in doc["files"]}
    assert list(files) == [str(HEADERONLY / "harness.c"), str(HEADER)]  # the unit, then its header
    assert sum(f["goals"] for f in files.values()) == doc["goals"]
    assert sum(f["covered"] for f in files.values()) == doc["covered"]
    # TestCov's goals of ring.h: the two arms of its five conditions; the corrupt-buffer check open
    assert (files[str(HEADER)]["goals"], files[str(HEADER)]["covered"]) == (10, 9)
    assert files[str(HEADER)]["coverage"] == 90.0
    text = cooptest("coverage", PROGRAM[0], suite, *PROGRAM[1:]).stdout.splitlines()
    assert text[0].startswith(f"{doc['coverage']:.2f}% TestCov-style coverage ({doc['covered']}/{doc['goals']} "
                              f"goals, {doc['tests']} tests; TestCov's own goals: ")
    assert text[1:] == [f"  harness.c: {files[str(HEADERONLY / 'harness.c')]['coverage']:.2f}% "
                        f"({files[str(HEADERONLY / 'harness.c')]['covered']}/"
                        f"{files[str(HEADERONLY / 'harness.c')]['goals']} goals)",
                        "  lib/ring.h: 90.00% (9/10 goals)"]


@pytest.mark.slow
def test_replay_places_goals_in_their_files(headeronly_out: Path) -> None:
    report = json.loads((headeronly_out / "report.json").read_text())
    place = {g["id"]: f"{'lib/ring.h' if g['file'] == str(HEADER) else 'harness.c'}:{g['line']}"
             for g in report["goals"]}
    proc = cooptest("replay", PROGRAM[0], headeronly_out / "test-suite.zip", *PROGRAM[1:])
    assert proc.returncode == 0, proc.stderr
    covers = [line for line in proc.stdout.splitlines() if line.startswith("  covers ")]
    assert covers
    for line in covers:
        for where, ids in re.findall(r"(\S+:\d+): ([^;]+)", line):
            assert all(place[g] == where for g in ids.split()), line
    covered = Counter(place[g["id"]].split(":")[0] for g in report["goals"] if g["status"] == "covered")
    total = Counter(place[g["id"]].split(":")[0] for g in report["goals"])
    tail = proc.stdout.splitlines()[-3:]
    assert tail == ["goals covered, per file:", f"  harness.c: {covered['harness.c']}/{total['harness.c']}",
                    f"  lib/ring.h: {covered['lib/ring.h']}/{total['lib/ring.h']}"]


def test_a_program_of_one_file_has_one_figure(random_out: Path, page_c: Path) -> None:
    suite = random_out / "test-suite.zip"
    doc = json.loads(cooptest("coverage", page_c, suite, "--json").stdout)
    assert set(doc) == {"coverage", "goals", "covered", "tests"}
    assert cooptest("coverage", page_c, suite).stdout.count("\n") == 1
    replayed = cooptest("replay", page_c, suite).stdout
    assert "per file" not in replayed and "page.c:" not in replayed
    assert re.search(r"^  covers \d+ goals: line \d+: ", replayed, re.M)
