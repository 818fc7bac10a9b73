"""report.html as a reader meets it in a browser (headless Chromium): goal marks whose
text can be read, views that show what they filter, marks that say which condition and
outcome they are and why an open goal is open."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from probe import contrast, probe

# Every goal mark in the source, with the colours the browser computed for it.
MARK_COLOURS = """Array.from(document.querySelectorAll('.src .marks .g')).map(function (m) {
  var s = getComputedStyle(m);
  return {classes: m.className, color: s.color, background: s.backgroundColor, style: s.fontStyle};
})"""


def test_every_goal_mark_is_readable(random_out: Path, predicate_out: Path, tmp_path: Path) -> None:
    """Text and background of each kind of mark differ by at least WCAG AA's 4.5:1
    (Pygments' comment class ``.c`` once styled the covered marks: teal on green, 1.1:1)."""
    seen: dict[str, float] = {}
    styles = set()
    for out in (random_out, predicate_out):
        for mark in probe(out / "report.html", tmp_path, MARK_COLOURS):
            assert mark["background"] not in ("rgba(0, 0, 0, 0)", "transparent"), mark
            ratio = contrast(mark["color"], mark["background"])
            seen[mark["classes"]] = min(ratio, seen.get(mark["classes"], ratio))
            styles.add(mark["style"])
    assert {c.split()[1] for c in seen} == {"c", "i", "u"}  # covered, infeasible, open: all seen
    low = {c: round(r, 2) for c, r in seen.items() if r < 4.5}
    assert low == {}, f"marks below 4.5:1: {low}"
    assert styles == {"normal"}  # no style of the highlighted code leaks into a mark


def long_program(needles: int = 8, between: int = 200) -> str:
    """A program of about ``needles * between`` lines whose only open goals are
    ``needles`` conditions random testing misses, spread over it."""
    lines = ["extern int __VERIFIER_nondet_int(void);", "int main(void) {",
             "  int x = __VERIFIER_nondet_int(), s = 0, n = 123456789;"]
    for k in range(needles):
        lines += ["  s += x;"] * between + [f"  if (x == n + {k}) s++;"]  # no constant to draw
    return "\n".join(lines + ["  return s > 0;", "}", ""])


@pytest.fixture(scope="module")
def long_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from clitools import cooptest, full_page
    folder = tmp_path_factory.mktemp("long")
    (folder / "long.c").write_text(long_program())
    proc = cooptest("generate", folder / "long.c", "--budget", "10", "--out", folder / "out",
                    "--strategy", "random", "--seed", "1", "--quiet")
    assert proc.returncode == 0, proc.stderr
    return full_page(folder / "out")


# The source view after choosing "lines with open goals": its height and its rows'.
FILTERED = """(function () {
  click('input[name=show][value=unknown]');
  var rows = Array.from(document.querySelectorAll('.src .l')).filter(function (r) {
    return getComputedStyle(r).display !== 'none'; });
  return {view: document.querySelector('.src').getBoundingClientRect().height,
          rows: rows.map(function (r) { return r.getBoundingClientRect().height; })};
})()"""


def test_the_view_of_open_goals_is_as_high_as_its_rows(long_out: Path, tmp_path: Path) -> None:
    """Filtered, the view is its rows, not the space its chunks of 100 lines reserve
    while off screen (1,700 px each: kbfiltr showed 36 rows in a 62,900-px block)."""
    shown = probe(long_out / "report.html", tmp_path, FILTERED)
    assert len(shown["rows"]) == 8  # the needles' lines
    row = max(shown["rows"])  # a row laid out (one off screen may not be, and measures 0)
    assert 10 < row < 40
    assert abs(shown["view"] - len(shown["rows"]) * row) <= 2 * row, shown


# Each goal mark's text and tooltip, and the text each row of the goals table shows.
MARKS_AND_REASONS = """{
  marks: Object.fromEntries(Array.from(document.querySelectorAll('.src .g')).map(function (m) {
    return [m.dataset.goal, {text: m.textContent, title: m.title, row: m.closest('.l').id}]; })),
  rows: Object.fromEntries(Array.from(document.querySelectorAll('#goals tbody tr')).map(function (r) {
    return [r.id.slice(2), r.innerText]; }))
}"""


def test_a_mark_names_its_condition_and_outcome_and_why_it_is_open(random_out: Path,
                                                                     tmp_path: Path) -> None:
    """``key == needle: true``, not ``B4T``; an open goal says whether a test reached
    its condition (random testing reaches it, with the other outcome) or its call."""
    doc = json.loads((random_out / "report.json").read_text())
    seen = probe(random_out / "report.html", tmp_path, MARKS_AND_REASONS)
    by_text = {m["text"]: (goal, m) for goal, m in seen["marks"].items()}
    assert {"n > 100: true", "n > 100: false", "n < 0: true", "n < 0: false",
            "key == needle: true", "key == needle: false", "reach_error()"} <= by_text.keys()
    needle, mark = by_text["key == needle: true"]
    assert mark["row"] == "L16" and {g["id"]: g for g in doc["goals"]}[needle]["status"] == "unknown"
    other = next(g for g in doc["goals"] if g["condition"] == "key == needle" and g["id"] != needle)
    reason = f"the condition is reached ({other['test']}), only with the other outcome"
    assert reason in seen["rows"][needle] and reason in mark["title"]
    error, _ = by_text["reach_error()"]
    assert "no test reached this call" in seen["rows"][error]
    assert all(g["condition"] for g in doc["goals"] if g["kind"] == "branch")  # in report.json too


def test_a_proof_shows_its_evidence_on_the_mark_and_in_the_table(predicate_out: Path,
                                                                   tmp_path: Path) -> None:
    """A proof is the evidence it rests on, not a sentence: the complete ARG's size and
    the predicates it was computed with, where the reader hovers the mark and in the
    table of goals."""
    doc = json.loads((predicate_out / "report.json").read_text())
    seen = probe(predicate_out / "report.html", tmp_path, MARKS_AND_REASONS)
    proven = [g for g in doc["goals"] if g["status"] == "infeasible"]
    assert proven
    for g in proven:
        assert g["proof"].startswith("predicate: complete ARG of ") and "(clamp::n > 100)" in g["proof"]
        assert f"infeasible: {g['proof']}" in seen["marks"][g["id"]]["title"]
        assert g["proof"] in seen["rows"][g["id"]]


def test_an_open_goal_names_the_proof_blocker(tmp_path: Path) -> None:
    """A proof the program's callback from the C library makes untrustworthy: the open
    goal's row says so (report.json's ``refused``)."""
    from clitools import cooptest, full_page
    program = tmp_path / "bye.c"
    program.write_text("extern int __VERIFIER_nondet_int(void);\nextern int atexit(void (*)(void));\n"
                       "void bye(void) {}\nint main(void) {\n  atexit(bye);\n"
                       "  int x = __VERIFIER_nondet_int(), y = x;\n  if (x != y) return 1;\n  return 0;\n}\n")
    proc = cooptest("generate", program, "--strategy", "predicate", "--budget", "5",
                    "--out", tmp_path / "out", "--quiet")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((tmp_path / "out" / "report.json").read_text())
    [blocked] = [g for g in doc["goals"] if g["status"] == "unknown"]
    assert "atexit()" in blocked["refused"]
    seen = probe(full_page(tmp_path / "out") / "report.html", tmp_path, MARKS_AND_REASONS)
    assert seen["marks"][blocked["id"]]["text"] == "x != y: true"
    assert f"no proof is trusted here: {blocked['refused']}" in seen["rows"][blocked["id"]]


DEAD_C = """extern int __VERIFIER_nondet_int(void);
int dead(int y) {
  if (y > 3) return 1;
  return 0;
}
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 10 && x < 5) return dead(x);
  if (x == 7) return 1;
  return 0;
}
"""

# The summary's rows, the functions table's rows (their cells and bar parts) after a
# click on one heading, and where the plot's key stands.
TABLES = """(function (heading) {
  var kv = Array.from(document.querySelectorAll('#summary > table.kv th')).map(function (th) {
    return th.textContent; });
  var folded = Array.from(document.querySelectorAll('#internals th')).map(function (th) {
    return th.textContent; });
  function rows() {
    return Array.from(document.querySelectorAll('#functions tbody tr')).map(function (r) {
      return {name: r.dataset.function, cells: Array.from(r.cells).map(function (c) {
        return c.textContent.trim(); }),
        bar: Array.from(r.querySelectorAll('.bar span')).map(function (s) {
          return [s.className, s.getBoundingClientRect().width]; }),
        barWidth: r.querySelector('.bar').getBoundingClientRect().width}; });
  }
  var before = rows();
  var th = Array.from(document.querySelectorAll('#functions thead th')).find(function (h) {
    return h.textContent === heading; });
  th.click();
  var ascending = rows().map(function (r) { return r.name; });
  th.click();
  var descending = rows().map(function (r) { return r.name; });
  var axis = document.querySelector('svg.plot line.axis').getBBox();
  var keys = Array.from(document.querySelectorAll('svg.plot text.key')).map(function (k) {
    var b = k.getBBox(); return [b.x, b.y, b.width, b.height]; });
  return {kv: kv, folded: folded, rows: before, ascending: ascending, descending: descending,
          axisEnd: axis.x + axis.width, keys: keys};
})('cov_b %')"""


@pytest.fixture(scope="module")
def dead_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A function no run can enter: predicate analysis proves its goals infeasible."""
    from clitools import cooptest, full_page
    folder = tmp_path_factory.mktemp("dead")
    (folder / "dead.c").write_text(DEAD_C)
    proc = cooptest("generate", folder / "dead.c", "--budget", "10", "--out", folder / "out",
                    "--strategy", "predicate", "--quiet")
    assert proc.returncode == 0, proc.stderr
    return full_page(folder / "out")


def test_summary_functions_and_plot_read_as_a_user_needs(dead_out: Path, tmp_path: Path) -> None:
    doc = json.loads((dead_out / "report.json").read_text())
    dead = [g for g in doc["goals"] if g["function"] == "dead"]
    assert dead and all(g["status"] == "infeasible" for g in dead)
    seen = probe(dead_out / "report.html", tmp_path, TABLES)
    # the summary: what a user reads first, the analyses' counters folded away
    assert "native runs of tests" in seen["kv"] and "the analysis stopped" in seen["kv"]
    assert not {"meter_mutants", "runs_may_vary", "iterations", "divergences"} & set(seen["kv"])
    assert "meter_mutants" in seen["folded"]
    # a function whose goals are all proven infeasible is decided, not 0% covered
    rows = {r["name"]: r for r in seen["rows"]}
    assert rows["dead"]["cells"][-2:] == ["0.0", "all infeasible"]  # cov_b, cov_f
    bar = dict(rows["dead"]["bar"])
    assert bar["covered"] == 0 and abs(bar["infeasible"] - rows["dead"]["barWidth"]) < 1
    assert rows["main"]["cells"][-1] == "100.0"  # every goal not proven infeasible covered
    # sorted by cov_b, one way then the other
    assert seen["ascending"] == ["dead", "main"] and seen["descending"] == ["main", "dead"]
    # the plot's key stands right of the plot, off every curve
    assert all(x >= seen["axisEnd"] for x, _, _, _ in seen["keys"]), seen


def test_the_bench_plot_keeps_its_legend_off_the_curves(random_out: Path, predicate_out: Path) -> None:
    from cooptest.report.plots import timeline_figure
    fig = timeline_figure([str(random_out / "report.json"), str(predicate_out / "report.json")])
    fig.canvas.draw()
    ax = fig.axes[0]
    legend, axes = ax.get_legend().get_window_extent(), ax.get_window_extent()
    assert legend.x0 >= axes.x1  # beside the axes, where no curve runs
