"""report.html: what the page shows agrees with report.json and the suite, the page
needs nothing from the network, and it renders in a real browser without errors."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markupsafe import escape

from clitools import cooptest
from report_programs import PAGE_C

from cooptest.harness.testsuite import read_suite
from cooptest.report.html import render, write_html_report

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--enable-logging=stderr", "--v=0"]


STATUS = {"c": "covered", "i": "infeasible", "u": "unknown"}  # the classes of goal marks


class Page(HTMLParser):
    """What a reader of the page sees: goal marks per source line, element ids, links."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.marks: dict[str, tuple[str, int]] = {}  # goal id -> (status, line)
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.srcs: list[str] = []
        self.rows: list[int] = []
        self._line = 0
        self._text: dict[int, list[str]] = {}
        self._mark: tuple[str, int] | None = None
        self._goal: str | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if a.get("href"):
            self.hrefs.append(a["href"])
        if a.get("src"):
            self.srcs.append(a["src"])
        if tag == "div" and re.fullmatch(r"L\d+", a.get("id") or ""):
            self._line = int(a["id"][1:])
            self.rows.append(self._line)
        classes = (a.get("class") or "").split()
        if tag in ("a", "span") and "g" in classes and self._line:
            self._mark = (next(STATUS[c] for c in classes if c in STATUS), self._line)
            self._goal = a.get("data-goal")  # the mark's text is its condition and outcome

    def handle_data(self, data: str) -> None:
        if self._mark is not None:
            self.marks[self._goal or data] = self._mark
            self._mark = None
        elif self._line:
            self._text.setdefault(self._line, []).append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "section":
            self._line = 0

    def line_text(self, n: int) -> str:
        return "".join(self._text.get(n, []))


def page_of(out: Path) -> tuple[Page, dict]:
    return Page((out / "report.html").read_text()), json.loads((out / "report.json").read_text())


@pytest.mark.parametrize("run", ["random_out", "predicate_out"])
def test_every_goal_is_marked_on_its_line_with_its_status(run: str, request: pytest.FixtureRequest) -> None:
    page, doc = page_of(request.getfixturevalue(run))
    assert page.marks == {g["id"]: (g["status"], g["line"]) for g in doc["goals"]}
    assert page.rows == list(range(1, PAGE_C.count("\n") + 1))  # one row per source line
    assert "over two lines" in page.line_text(5)  # a comment spanning lines stays on its lines
    assert "<with markup>" in page.line_text(4)  # source text is escaped, not markup


def test_a_run_short_of_time_writes_the_page_unhighlighted(predicate_out: Path) -> None:
    """No time left for Pygments: the same lines, marks and escaping, plain text, and a
    note saying how to get the highlighted page."""
    doc = json.loads((predicate_out / "report.json").read_text())
    tests = read_suite(str(predicate_out / "test-suite.zip"))
    plain, full = render(doc, tests, seconds=1e-9), render(doc, tests)
    page = Page(plain)
    assert page.marks == {g["id"]: (g["status"], g["line"]) for g in doc["goals"]}
    assert page.rows == list(range(1, PAGE_C.count("\n") + 1))
    assert "<with markup>" in page.line_text(4)
    assert "Shown without syntax highlighting" in plain and "no time left" not in full
    assert 'class="k"' in full and 'class="k"' not in plain  # Pygments' keyword spans
    late = render(doc, tests, seconds=0.0)  # past the budget: no source, the rest stays
    assert Page(late).rows == [] and "The source is not shown" in late
    assert f'data-key="covered">{doc["summary"]["covered"]}<' in late


def test_links_lead_to_tests_with_their_inputs_and_to_proofs(random_out: Path,
                                                            predicate_out: Path) -> None:
    for out in (random_out, predicate_out):
        page, doc = page_of(out)
        tests = read_suite(str(out / "test-suite.zip"))
        assert {f"t-{t.name}" for t in tests} <= page.ids
        for href in page.hrefs:
            assert href.startswith("#") and href[1:] in page.ids, href  # no dangling link
        html = (out / "report.html").read_text()
        for t in tests:
            shown = re.search(rf'<details id="t-{t.name}".*?</details>', html, re.S).group(0)
            assert re.findall(r"<code>(.*?)</code>", shown) == t.inputs
        for g in doc["goals"]:
            if g["status"] == "infeasible":  # listed with its proof
                assert f"g-{g['id']}" in page.ids and g["proof"]
                row = re.search(rf'<tr id="g-{g["id"]}".*?</tr>', html, re.S).group(0)
                assert f"<td>{escape(g['proof'])}</td>" in row  # as Jinja writes it


def test_page_is_self_contained(random_out: Path) -> None:
    page, _ = page_of(random_out)
    html = (random_out / "report.html").read_text()
    assert page.srcs == []  # no script, image or frame loaded from anywhere
    assert not re.search(r"https?://|@import|url\(", html)


def test_summary_and_functions(predicate_out: Path) -> None:
    html = (predicate_out / "report.html").read_text()
    doc = json.loads((predicate_out / "report.json").read_text())
    for key in ("goals", "covered", "infeasible", "unknown", "tests"):
        assert f'data-key="{key}">{doc["summary"][key]}<' in html
    assert 'data-function="clamp"' in html and 'data-function="main"' in html
    assert f"<td>{doc['strategy']}</td>" in html


def test_the_analyses_are_listed_with_why_they_could_do_nothing(tmp_path: Path) -> None:
    """An analysis that stays out of a program says why, in report.json and on the page:
    the user can tell a goal no prover could look at from one they could not decide."""
    program = tmp_path / "pointer.c"
    program.write_text("extern int __VERIFIER_nondet_int(void);\n"
                       "extern void abort(void); void reach_error(void) { abort(); }\n"
                       "int id(int x) { return x; }\n"
                       "int main(void) {\n  int (*f)(int) = id, a[2];\n  a[1] = f(__VERIFIER_nondet_int());\n"
                       "  if (a[1] > 5 && a[1] < 3) reach_error();\n  return 0;\n}\n")
    proc = cooptest("generate", program, "--budget", "5", "--out", tmp_path / "out",
                    "--strategy", "chc", "--quiet")
    assert proc.returncode == 0, proc.stderr
    page, doc = page_of(tmp_path / "out")
    why = "line 6: a call through a pointer"
    assert [(r["analysis"], r["stopped"], r["why_not"]) for r in doc["analyses"]] == [("chc", "exhausted", why)]
    assert "unknown" in {g["status"] for g in doc["goals"]} and not doc["summary"]["infeasible"]
    assert "<td>chc</td><td>exhausted</td>" in (tmp_path / "out" / "report.html").read_text()
    assert f"<td>{why}</td>" in (tmp_path / "out" / "report.html").read_text()


def test_report_command_renders_any_output_folder(random_out: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(random_out, copy)
    (copy / "report.html").unlink()
    proc = cooptest("report", copy)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(copy / "report.html")
    # the run wrote its page from the tests it holds, the command from the zip: the same
    assert (copy / "report.html").read_text() == (random_out / "report.html").read_text()
    (copy / "test-suite.zip").unlink()  # given the tests, the suite is not read back
    tests = read_suite(str(random_out / "test-suite.zip"))
    assert write_html_report(str(copy), tests=tests) == str(copy / "report.html")
    assert (copy / "report.html").read_text() == (random_out / "report.html").read_text()
    missing = cooptest("report", tmp_path / "nothing-here")
    assert missing.returncode == 2
    assert missing.stderr.count("\n") == 1 and "no report.json" in missing.stderr


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("no chromium (scripts/setup.sh installs it as root)")
    return found


def browse(page: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}",
                           *args, page.as_uri()], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("run", ["random_out", "predicate_out"])
def test_page_in_headless_chromium(run: str, request: pytest.FixtureRequest, tmp_path: Path,
                                   capsys: pytest.CaptureFixture) -> None:
    out = request.getfixturevalue(run)
    doc = json.loads((out / "report.json").read_text())
    dom = browse(out / "report.html", tmp_path, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    console = [ln for ln in dom.stderr.splitlines() if ":CONSOLE" in ln]
    assert console == []  # the page logs nothing: no error, no uncaught exception
    # the page's script counted the goal marks the browser built
    counts = re.search(r'<span id="dom-counts"([^>]*)>([^<]*)<', dom.stdout)
    assert counts, "the page's script did not run"
    shown = dict(re.findall(r'data-(\w+)="(\d+)"', counts.group(1)))
    assert {k: int(v) for k, v in shown.items()} == {
        s: sum(g["status"] == s for g in doc["goals"]) for s in ("covered", "infeasible", "unknown")}
    assert sum(map(int, shown.values())) == doc["summary"]["goals"]

    shot = tmp_path / f"report-{run}.png"
    result = browse(out / "report.html", tmp_path, "--window-size=1280,1600", f"--screenshot={shot}")
    assert result.returncode == 0 and shot.stat().st_size > 10_000
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with capsys.disabled():
        print(f"\nscreenshot of report.html ({run}): {shot}", flush=True)
    assert os.path.getsize(out / "report.html") < 5 << 20


def test_fields_of_later_reports_are_shown_when_present(random_out: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(random_out, copy)
    doc = json.loads((copy / "report.json").read_text())
    open_goal = next(g for g in doc["goals"] if g["status"] == "unknown")
    open_goal["refused"] = "value: the ARG was not complete"
    doc["configuration"] = {"sequence": ["value:20", "predicate:80"], "reuse": "reuse-arg"}
    (copy / "report.json").write_text(json.dumps(doc))
    assert cooptest("report", copy).returncode == 0
    page = Page((copy / "report.html").read_text())
    html = (copy / "report.html").read_text()
    assert f"g-{open_goal['id']}" in page.ids and f'href="#g-{open_goal["id"]}"' in html
    # why it is open: what the tests did and the blocker, then each analysis's reason
    assert "no proof is trusted here: value: the ARG was not complete</span>" in html
    assert '<ul class="gave-up"><li><b>random</b>: its time ran out</li></ul>' in html
    assert '<tr><th>sequence</th><td>[&#34;value:20&#34;, &#34;predicate:80&#34;]</td></tr>' in html
    assert "<tr><th>reuse</th><td>reuse-arg</td></tr>" in html
