"""``report.html``: report.json made readable — the program's source with every goal
marked on its line, a table per function, the summary and coverage over time.

A program of several files (translation units, and the project headers they include)
gets one source view per file that has goals, each goal on its own file's line, and a
list of the files with their totals: a header-only library has every goal in a header,
which a view of the harness alone would not show. Lines are then anchored as
``name:line`` (``lib/ring.h:19``); a program of one file keeps its page as it was
(``L19``).

The page is one self-contained file (inline CSS, SVG and a few lines of script, nothing
fetched), so that it can be mailed, archived next to the suite or opened from a CI
artifact. It is rendered from the files every run leaves (``report.json``, the suite
zip and the program named in the report) and nothing else, so ``cooptest report OUT``
works on the output folder of any run, also one that was killed. The source is
highlighted by Pygments, the page laid out by Jinja2 templates in ``templates/``.
"""
from __future__ import annotations

import json
import os
from html import escape
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import jinja2
from pygments import highlight
from pygments.filter import Filter
from pygments.formatters import HtmlFormatter
from pygments.lexers import CLexer
from pygments.token import Token

from cooptest.errors import UserError
from cooptest.harness.testsuite import TestCase, read_suite
from cooptest.report.definitions import COV_B, COV_F, GOAL, TESTCOV, TESTCOV_SHORT
from cooptest.report.files import FileTotals, file_totals
from cooptest.report.publication import REPORT, SUITE

HTML = "report.html"
# ``contradicted`` has its own section (a defect of cooptest), not a column of the goals'
BASE_FIELDS = ("id", "kind", "line", "function", "status", "test", "proof", "origin", "file", "contradicted",
               "condition", "refused", "unconfirmed", "label", "why_open", "gave_up", "reached", "mark_note",
               "own_notes")
MAX_INPUTS_SHOWN = 100  # per test: the rest is summarised (a test may read thousands)
CHUNK_LINES = 100  # source lines laid out together (off-screen chunks are skipped)
PLOT_W, PLOT_H = 640, 220  # the coverage-over-time drawing, in SVG user units
# Highlighting and laying out the page take up to 2.5 µs per byte of source (Pygments'
# C lexer most of it) and 80 µs per goal (its mark, row and notes), idle: grep 2.2's
# 362 kB and 3,920 goals 0.7-1.1 s, pals_lcr.8's 231 kB and 13,556 goals 1.4-1.7 s,
# diskperf's 169 kB and 303 goals 0.3-0.4 s (benchmarks/page_time.py). Twice that is
# what a run keeps for its page (``page_seconds``), and a run with less time left
# writes it unhighlighted.
PAGE_SECONDS_PER_BYTE = 5e-6
PAGE_SECONDS_PER_GOAL = 1.6e-4


def page_seconds(source_bytes: int, goals: int) -> float:
    """The time to keep for writing the highlighted page of a source of this size
    with this many goals."""
    return 0.05 + PAGE_SECONDS_PER_BYTE * source_bytes + PAGE_SECONDS_PER_GOAL * goals

# The templates of every file cooptest writes for people (this page, ``cooptest export``'s
# C files and Makefile); HTML escaping for HTML templates only.
TEMPLATES = jinja2.Environment(loader=jinja2.PackageLoader("cooptest.report", "templates"),
                               autoescape=jinja2.select_autoescape(["html.j2"], default=False),
                               undefined=jinja2.StrictUndefined, trim_blocks=True,
                               lstrip_blocks=True, keep_trailing_newline=True)


@dataclass
class FunctionRow:
    name: str
    line: int  # its first goal's line: where the table links to
    counts: Counter = field(default_factory=Counter)
    file: str = ""  # of its goals (static functions of two files may share a name)

    @property
    def goals(self) -> int:
        return sum(self.counts.values())

    @property
    def cov_b(self) -> float:
        return 100.0 * self.counts["covered"] / self.goals if self.goals else 100.0

    @property
    def cov_f(self) -> float:
        """Covered of the goals not proven infeasible; 100 when every goal is proven
        infeasible (a function no run can enter is decided, not uncovered)."""
        feasible = self.goals - self.counts["infeasible"]
        return 100.0 * self.counts["covered"] / feasible if feasible else 100.0

    def share(self, status: str) -> float:
        """Percent of the function's goals of this status (its part of the bar)."""
        return 100.0 * self.counts[status] / self.goals if self.goals else 0.0


@dataclass
class SourceLine:
    number: int
    html: str  # highlighted, balanced markup
    goals: list[dict[str, Any]]
    id: str = ""  # the line's anchor

    @property
    def status(self) -> str:
        """The line's colour: open if any goal is open, else infeasible if any is, else covered."""
        found = {g["status"] for g in self.goals}
        return next((s for s in ("unknown", "infeasible", "covered") if s in found), "")


def write_html_report(out_dir: str, seconds: float | None = None,
                      tests: list[TestCase] | None = None) -> str:
    """Render ``out_dir/report.html`` from the run's outputs there; returns its path.
    With ``seconds`` (what a run has left of its budget), the source is highlighted only
    if that fits: ``cooptest report OUT`` renders the highlighted page later. ``tests``:
    the suite's tests when the caller has them (a run does: reading back a suite of
    padded tests, 250k inputs each, took 13 s past a 20-s budget), else read from it."""
    report_path = os.path.join(out_dir, REPORT)
    try:
        with open(report_path) as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise UserError(f"no {REPORT} (not the output folder of a cooptest run?)", out_dir) from None
    except ValueError as e:
        raise UserError(f"not a valid report: {e}", report_path) from None
    suite_path = os.path.join(out_dir, SUITE)
    if tests is None:
        tests = read_suite(suite_path) if os.path.exists(suite_path) else []
    path = os.path.join(out_dir, HTML)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(render(doc, tests, seconds))
    os.replace(tmp, path)  # a reader never sees half a page
    return path


@dataclass
class SourceView:
    """One file's source on the page, with its goal totals."""

    totals: FileTotals
    lines: list[SourceLine]


def render(doc: dict[str, Any], tests: list[TestCase], seconds: float | None = None) -> str:
    """The page for the report document ``doc`` and the suite's ``tests``; the sources
    are highlighted unless ``seconds`` are too few for them."""
    program = os.path.normpath(doc["program"])
    # a goal of an older report names no file: it is in the program
    goals = [{**g, "file": os.path.normpath(g.get("file") or program), "label": mark_label(g)}
             for g in doc["goals"]]
    totals = file_totals(((g["file"], g["status"]) for g in goals), doc.get("files") or [program])
    several = [t.path for t in totals] not in ([program], [])
    if not totals:
        totals = [FileTotals(program, os.path.basename(program))]
    sources = {t.path: _read_source(t.path, program) for t in totals}
    source = "".join(sources.values())
    prefix = {t.path: f"{t.name}:" if several else "L" for t in totals}

    def line_id(path: str, line: int) -> str:
        return f"{prefix.get(path, 'L')}{line}"

    summary = doc["summary"]
    goal_of = {g["id"]: g for g in goals}
    common = common_notes([g for g in goals if g["status"] == "unknown"])
    for g in goals:
        if g["status"] == "unknown":
            g["gave_up"] = gave_up(g)
            g["own_notes"] = gave_up(g, common)
            g["reached"] = "; ".join(p for p in (
                g["why_open"].get("reached") if isinstance(g.get("why_open"), dict) else None,
                f"no proof is trusted here: {g['refused']}" if g.get("refused") else None) if p)
            g["why_open"] = why_open(g, goal_of)
            # a mark's tooltip: the table's row (its link) has each analysis's reason; all of
            # them on each of pals_lcr's 7,790 open goals' marks took 1.5 MB of the page
            g["mark_note"] = "; ".join([g["reached"], "gave up: " + ", ".join(
                who for who, _ in g["gave_up"])]) if g["gave_up"] else g["why_open"]
    highlighted = seconds is None or seconds > page_seconds(len(source), len(goals))
    late = seconds is not None and seconds <= 0  # past the budget: the summary and tables only
    views = [SourceView(t, [] if late else source_lines(
        sources[t.path], [g for g in goals if g["file"] == t.path], highlighted, prefix[t.path]))
        for t in totals]
    return TEMPLATES.get_template("report.html.j2").render(
        title=os.path.basename(program), program=doc["program"], doc=doc, summary=summary,
        settings=_settings(doc), summary_rows=summary_rows(summary), definitions=DEFINITIONS,
        views=views, several=several, line_id=line_id,
        names={t.path: t.name for t in totals},
        lines=[line for v in views for line in v.lines], highlighted=highlighted,
        functions=function_rows(goals, [t.path for t in totals]),
        tests=_tests(tests, goals, doc.get("tests") or [], prefix if several else None),
        contradictions=[{**c, "line": gc["line"], "anchor": line_id(gc["file"], gc["line"])} if (gc := goal_of.get(c["goal"]))
                        else {**c, "line": None} for c in doc.get("contradictions", [])],
        noted={g["id"]: g for g in goals if g["status"] != "covered" or _notes(g)},
        extra_keys=sorted({k for g in goals for k in _notes(g)}),
        every_open=gave_up({"why_open": {"gave_up": dict(common)}}) if common else [],
        plot=timeline_plot(doc["timeline"], summary), style=highlight_style(),
        max_inputs=MAX_INPUTS_SHOWN, chunk_lines=CHUNK_LINES)


def highlight_style() -> str:
    """Pygments' CSS, scoped to the highlighted code: its token classes are one or two
    letters (``.c`` a comment, ``.g`` generic text), which scoped to the whole source
    view also styled the goal marks beside the code (covered marks, ``g c``, came out
    teal italic on green). Its background is the view's own (``report.css``): on the
    code it would hide the colour of a line's goals."""
    return HtmlFormatter(nobackground=True).get_style_defs(".src code")


def _read_source(path: str, program: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        what = "the program" if path == program else "a file with goals"
        raise UserError(f"{what} of this report is not readable", path) from None


def mark_label(goal: dict[str, Any]) -> str:
    """What a goal's mark says: the condition and the outcome (``x > 5: true``), as
    gcovr and lcov mark a branch on its line; ``reach_error()`` for an error call. A
    goal of an older report, which names no condition, by its id."""
    if goal["kind"] == "error-call":
        return "reach_error()"
    if goal.get("condition"):
        return f"{goal['condition']}: {'true' if goal['id'].endswith('T') else 'false'}"
    return goal["id"]


def why_open(goal: dict[str, Any], goal_of: dict[str, dict[str, Any]]) -> str:
    """Why an open goal is open, in one sentence: what the tests did, why no proof about
    it is trusted (a proof blocker), and each analysis that gave up on it and why
    (report.json's ``why_open``, see :func:`gave_up`). A report of an older run, without
    ``why_open``: whether any test reached its condition (then the other outcome is
    covered), a test that reached it once, and the proof blocker."""
    given = goal.get("why_open")
    if isinstance(given, dict):
        parts = [given.get("reached") or ""]
        if goal.get("refused"):
            parts.append(f"no proof is trusted here: {goal['refused']}")
        notes = gave_up(goal)
        parts += [f"{who}: {why}" for who, why in notes] or ["no analysis worked on it"]
        return "; ".join(p for p in parts if p)
    if goal["kind"] == "branch" and goal["id"][-1:] in ("T", "F"):
        other = goal_of.get(goal["id"][:-1] + ("F" if goal["id"].endswith("T") else "T"), {})
        reached = (f"the condition is reached ({other['test']}), only with the other outcome"
                   if other.get("status") == "covered" else "no test reached the condition")
    else:
        reached = "no test reached this call"
    parts = [reached]
    if goal.get("unconfirmed"):
        parts.append(f"{goal['unconfirmed']} reached it once, and not when run again "
                     "(the program's runs vary)")
    parts.append(f"no proof is trusted here: {goal['refused']}" if goal.get("refused")
                 else "no analysis proved it infeasible")
    return "; ".join(parts)


def gave_up(goal: dict[str, Any], leave: frozenset[tuple[str, str]] = frozenset()) -> list[tuple[str, str]]:
    """Each analysis that gave up on an open goal and why (report.json's ``why_open``),
    but those of ``leave``, analyses that say the same together (``random, value: its
    time ran out``); a refusal by the proof blocker, said once beside them (``no proof
    is trusted here``), is only named."""
    given = goal.get("why_open")
    if not isinstance(given, dict):
        return []
    refused = f"its proof was refused: {goal.get('refused')}"
    grouped: dict[str, list[str]] = {}
    for analysis, why in (given.get("gave_up") or {}).items():
        if (analysis, why) not in leave:
            grouped.setdefault("its proof was refused" if why == refused else why, []).append(analysis)
    return [(", ".join(names), why) for why, names in grouped.items()]


def common_notes(open_goals: list[dict[str, Any]]) -> frozenset[tuple[str, str]]:
    """The reasons (analysis, why) every open goal has, where there are several: the
    table says them once, above its rows (kbfiltr's 43 rows each said that fields'
    fragment excludes the program; pals_lcr's 7,790 took 1.8 MB of the page)."""
    notes = [frozenset((g.get("why_open") or {}).get("gave_up", {}).items())
             for g in open_goals if isinstance(g.get("why_open"), dict)]
    if len(notes) < 2 or len(notes) < len(open_goals):
        return frozenset()
    return frozenset.intersection(*notes)


def _notes(goal: dict[str, Any]) -> list[str]:
    """The fields of a goal beyond the ones every report has (later analyses add some,
    e.g. why a proof was refused): shown as they are, whatever they are."""
    return [k for k, v in goal.items() if k not in BASE_FIELDS and v is not None]


def source_lines(source: str, goals: list[dict[str, Any]], highlighted: bool = True,
                 prefix: str = "L") -> list[SourceLine]:
    """Every source line, highlighted (or only escaped), with the goals on it; line n is
    anchored as ``prefix`` + n.

    Pygments' HTML formatter closes and reopens its spans at every line end (it has to,
    for its own line numbers), so its output splits into lines of balanced markup."""
    if highlighted:
        lexer = CLexer(stripnl=False, ensurenl=True)
        lexer.add_filter(_PlainWhitespace())
        html = highlight(source, lexer, HtmlFormatter(nowrap=True))
    else:
        html = escape(source if source.endswith("\n") or not source else source + "\n", quote=False)
    by_line: dict[int, list[dict[str, Any]]] = {}
    for g in goals:
        by_line.setdefault(g["line"], []).append(g)
    rows = html.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    return [SourceLine(n, text, by_line.get(n, []), f"{prefix}{n}") for n, text in enumerate(rows, 1)]


class _PlainWhitespace(Filter):
    """Whitespace as plain text: Pygments wraps each run of blanks in a span of its own,
    a quarter of the page of a large program, styled like no span at all."""

    def filter(self, lexer: Any, stream: Any) -> Any:
        for ttype, value in stream:
            yield (Token.Text if ttype in Token.Text.Whitespace else ttype), value


def function_rows(goals: list[dict[str, Any]], files: Sequence[str] = ()) -> list[FunctionRow]:
    """A row per function, in the order of ``files`` (of the goals' files where not
    given), then of lines."""
    rows: dict[tuple[str, str], FunctionRow] = {}
    rank = {f: i for i, f in enumerate(files)}
    for g in goals:
        name = g.get("function") or "?"  # reports of older runs do not name it
        file = g.get("file") or ""
        rank.setdefault(file, len(rank))
        row = rows.setdefault((file, name), FunctionRow(name, g["line"], file=file))
        row.line = min(row.line, g["line"])
        row.counts[g["status"]] += 1
    return sorted(rows.values(), key=lambda r: (rank[r.file], r.line))


def _tests(tests: list[TestCase], goals: list[dict[str, Any]], listed: list[dict[str, Any]],
           prefix: dict[str, str] | None) -> list[dict[str, Any]]:
    """The suite's tests as the page shows them: inputs, goals credited, and for a test
    whose run crashed (report.json's ``tests``), where, linked to the line (its anchor:
    ``name:line`` on the page of several files, where ``prefix`` names them; else ``Ln``)."""
    credited: dict[str, list[str]] = {}
    for g in goals:
        if g["test"]:
            credited.setdefault(g["test"], []).append(g["id"])
    crashes = {t["name"]: t["crash"] for t in listed if t.get("crash")}
    out = []
    for t in tests:
        crash = crashes.get(t.name)
        if crash is not None and crash.get("at"):
            name, _, line = crash["at"].rpartition(":")
            crash = {**crash, "anchor": crash["at"] if prefix is not None and f"{name}:" in prefix.values()
                     else f"L{line}"}
        out.append({"name": t.name, "inputs": t.inputs, "covers_error": t.covers_error,
                    "goals": credited.get(t.name, []), "crash": crash})
    return out


# The summary entries a user reads, in this order, with what they mean; the page shows
# the rest of the summary (counters of the analyses' inner workings: meter_mutants,
# resumed_symbolic_executions, ...) folded away.
SUMMARY_ROWS = {
    "stopped": "the analysis stopped",
    "executions": "native runs of tests",
    "timeouts": "runs over the time limit",
    "unconfirmed": "open goals a test reached once only",
    "contradictions": "proofs refuted by a test (cooptest defects)",
    "memory_peak_mb": "memory peak, MB",
    "sandbox": "what confined the tests",
}
# What the cards' figures mean, beside them (``report.definitions``).
DEFINITIONS = {"goals": "condition outcomes and reach_error() calls", "cov_b": COV_B, "cov_f": COV_F,
               "coverage_testcov_style": TESTCOV_SHORT, "goal": GOAL, "testcov": TESTCOV}
CARDS = ("goals", "covered", "infeasible", "unknown", "cov_b", "cov_f", "coverage_testcov_style",
         "tests", "time_s")  # the summary's figures shown as cards


def summary_rows(summary: dict[str, Any]) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
    """The summary beyond the cards: the entries a user reads (labelled), and the other
    counters, for the folded table. An empty entry (``runs_may_vary`` None, a zero
    count of rare events) says nothing and is left out of the first list."""
    shown = [(label, summary[key]) for key, label in SUMMARY_ROWS.items()
             if summary.get(key) not in (None, 0, "")]
    rest = [(key, "none" if value is None else value) for key, value in summary.items()
            if key not in SUMMARY_ROWS and key not in CARDS and key != "every_run_failed"]
    return shown, rest


def _settings(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """The run's configuration as key/value rows (a cooperation's ``configuration`` may
    nest: its values are shown as JSON)."""
    rows = [("strategy", doc.get("strategy")), ("search", doc.get("search")),
            ("data model", doc.get("data_model"))]
    for key, value in (doc.get("configuration") or {}).items():
        rows.append((key, value if isinstance(value, str) else json.dumps(value)))
    return [(k, str(v)) for k, v in rows if v is not None]


def timeline_plot(timeline: list[list[float]], summary: dict[str, Any]) -> dict[str, Any]:
    """Coverage over time as SVG polyline points: covered and infeasible goals (percent of
    all goals) against seconds, as steps (a count holds until its next change)."""
    n = summary["goals"] or 1
    end = max([summary.get("time_s") or 0.0] + [t[0] for t in timeline]) or 1.0

    def steps(index: int, final: int) -> str:
        points: list[tuple[float, float]] = [(0.0, 0)]
        last: float = 0
        for t in timeline:
            points += [(t[0], last), (t[0], t[index])]
            last = t[index]
        points += [(end, last), (end, final)]
        return " ".join(f"{PLOT_W * x / end:.1f},{PLOT_H * (1 - y / n):.1f}" for x, y in points)

    return {"w": PLOT_W, "h": PLOT_H, "end": end,
            "covered": steps(1, summary["covered"]), "infeasible": steps(2, summary["infeasible"])}
