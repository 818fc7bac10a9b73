"""report.html of a program of several files: a header-only library's goals are on the
header's own lines, in a source view of the header, and the file list gives each file's
totals — in the page as written and as a browser renders it."""
from __future__ import annotations

import json
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
from clitools import HEADERONLY
from test_html import STATUS, browse

HEADER = HEADERONLY / "lib" / "ring.h"
HARNESS = HEADERONLY / "harness.c"
pytestmark = pytest.mark.slow  # the run on the library takes its 10-s budget
NAMES = {str(HARNESS): "harness.c", str(HEADER): "lib/ring.h"}  # relative to their common folder


class FilesPage(HTMLParser):
    """The source rows (by anchor), the goal marks on them and the file list's cells."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.rows: list[str] = []
        self.marks: dict[str, tuple[str, str]] = {}  # goal id -> (status, row anchor)
        self.files: dict[str, list[str]] = {}  # file list: name -> its cells' text
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self._row = ""
        self._mark: str | None = None
        self._goal: str | None = None
        self._file: str | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.ids.add(a.get("id") or "")
        if a.get("href"):
            self.hrefs.append(a["href"] or "")
        classes = (a.get("class") or "").split()
        if tag == "div" and "l" in classes:
            self._row = a["id"] or ""
            self.rows.append(self._row)
        elif tag in ("a", "span") and "g" in classes and self._row:
            self._mark = next(STATUS[c] for c in classes if c in STATUS)
            self._goal = a.get("data-goal")  # the mark's text is its condition and outcome
        elif tag == "tr" and a.get("data-file"):
            self._file = a["data-file"]
            self.files[self._file] = []
        elif tag == "td" and self._file:
            self.files[self._file].append("")

    def handle_data(self, data: str) -> None:
        if self._mark is not None:
            self.marks[self._goal or data] = (self._mark, self._row)
            self._mark = None
        elif self._file and self.files[self._file]:
            self.files[self._file][-1] += data.strip()

    def handle_endtag(self, tag: str) -> None:
        if tag == "tr":
            self._file = None
        elif tag == "section":
            self._row = ""


def expected(doc: dict) -> tuple[dict[str, tuple[str, str]], dict[str, list[str]]]:
    """The marks and the file list the page should show for report.json ``doc``."""
    marks = {g["id"]: (g["status"], f"{NAMES[g['file']]}:{g['line']}") for g in doc["goals"]}
    files = {}
    for path, name in NAMES.items():
        n = Counter(g["status"] for g in doc["goals"] if g["file"] == path)
        decidable = n.total() - n["infeasible"]
        cov_f = 100.0 * n["covered"] / decidable if decidable else 100.0
        files[name] = [name, str(n.total()), str(n["covered"]), str(n["infeasible"]), str(n["unknown"]),
                       f"{cov_f:.2f}"]
    return marks, files


def test_the_header_goals_are_on_the_header_lines(headeronly_out: Path) -> None:
    doc = json.loads((headeronly_out / "report.json").read_text())
    assert doc["files"] == [str(HARNESS)]  # the one translation unit
    in_header = [g for g in doc["goals"] if g["file"] == str(HEADER)]
    assert len(in_header) == 10  # five conditions of ring.h, two outcomes each
    lines = HEADER.read_text().count("\n")
    assert all(1 <= g["line"] <= lines for g in in_header)
    assert {g["file"] for g in doc["goals"]} == {str(HARNESS), str(HEADER)}
    # ring_push's check for a corrupt buffer (count > RING_CAP) holds for no input
    assert [g["line"] for g in in_header if g["status"] != "covered"] == [19]


def test_the_page_has_a_source_view_per_file_and_their_totals(headeronly_out: Path) -> None:
    page = FilesPage((headeronly_out / "report.html").read_text())
    doc = json.loads((headeronly_out / "report.json").read_text())
    marks, files = expected(doc)
    assert page.marks == marks
    assert page.files == files
    assert page.rows == [f"{NAMES[str(p)]}:{n}" for p in (HARNESS, HEADER)
                         for n in range(1, p.read_text().count("\n") + 1)]
    for href in page.hrefs:
        assert href.startswith("#") and href[1:] in page.ids, href  # no dangling link
    assert {"file-harness.c", "file-lib/ring.h"} <= page.ids


def test_the_page_of_several_files_in_headless_chromium(headeronly_out: Path, tmp_path: Path) -> None:
    """What the browser built: the header's goals marked on its lines, the file list's
    totals, and the page's own count of the marks in every file."""
    doc = json.loads((headeronly_out / "report.json").read_text())
    dom = browse(headeronly_out / "report.html", tmp_path, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert [ln for ln in dom.stderr.splitlines() if ":CONSOLE" in ln] == []
    page = FilesPage(dom.stdout)
    marks, files = expected(doc)
    assert page.marks == marks
    assert page.files == files
    header_marks = {g: row for g, (_, row) in page.marks.items() if row.startswith("lib/ring.h:")}
    assert len(header_marks) == 10
    counts = re.search(r'<span id="dom-counts"([^>]*)>', dom.stdout)
    assert counts, "the page's script did not run"
    shown = {k: int(v) for k, v in re.findall(r'data-(\w+)="(\d+)"', counts.group(1))}
    assert shown == {s: sum(g["status"] == s for g in doc["goals"]) for s in STATUS.values()}


def test_a_refuted_claim_links_to_its_goal_in_its_file(headeronly_out: Path) -> None:
    from cooptest.harness.testsuite import read_suite
    from cooptest.report.html import render
    doc = json.loads((headeronly_out / "report.json").read_text())
    goal = next(g for g in doc["goals"] if g["file"] == str(HEADER) and g["status"] == "covered")
    doc["contradictions"] = [{"goal": goal["id"], "prover": "value", "proof": "p", "test": goal["test"],
                              "first": "proof", "at": 1.0}]
    page = FilesPage(render(doc, read_suite(str(headeronly_out / "test-suite.zip"))))
    assert f"#lib/ring.h:{goal['line']}" in page.hrefs and f"lib/ring.h:{goal['line']}" in page.ids
