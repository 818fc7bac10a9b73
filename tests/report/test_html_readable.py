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
             "  int x = __VERIFIER_nondet_int(), s = 0;"]
    for k in range(needles):
        lines += ["  s += x;"] * between + [f"  if (x == {123456789 + k}) s++;"]
    return "\n".join(lines + ["  return s > 0;", "}", ""])


@pytest.fixture(scope="module")
def long_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from clitools import cooptest
    folder = tmp_path_factory.mktemp("long")
    (folder / "long.c").write_text(long_program())
    proc = cooptest("generate", folder / "long.c", "--budget", "4", "--out", folder / "out",
                    "--strategy", "random", "--seed", "1", "--quiet")
    assert proc.returncode == 0, proc.stderr
    return folder / "out"


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
    """``key == 987654321: true``, not ``B4T``; an open goal says whether a test reached
    its condition (random testing reaches it, with the other outcome) or its call."""
    doc = json.loads((random_out / "report.json").read_text())
    seen = probe(random_out / "report.html", tmp_path, MARKS_AND_REASONS)
    by_text = {m["text"]: (goal, m) for goal, m in seen["marks"].items()}
    assert {"n > 100: true", "n > 100: false", "n < 0: true", "n < 0: false",
            "key == 987654321: true", "key == 987654321: false", "reach_error()"} <= by_text.keys()
    needle, mark = by_text["key == 987654321: true"]
    assert mark["row"] == "L16" and doc["goals"][[g["id"] for g in doc["goals"]].index(needle)]["status"] == "unknown"
    other = next(g for g in doc["goals"] if g["condition"] == "key == 987654321" and g["id"] != needle)
    reason = f"the condition is reached ({other['test']}), only with the other outcome"
    assert reason in seen["rows"][needle] and reason in mark["title"]
    error, _ = by_text["reach_error()"]
    assert "no test reached this call" in seen["rows"][error]
    assert all(g["condition"] for g in doc["goals"] if g["kind"] == "branch")  # in report.json too


def test_an_open_goal_names_the_proof_blocker(tmp_path: Path) -> None:
    """A proof the program's callback from the C library makes untrustworthy: the open
    goal's row says so (report.json's ``refused``)."""
    from clitools import cooptest
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
    seen = probe(tmp_path / "out" / "report.html", tmp_path, MARKS_AND_REASONS)
    assert seen["marks"][blocked["id"]]["text"] == "x != y: true"
    assert f"no proof is trusted here: {blocked['refused']}" in seen["rows"][blocked["id"]]
