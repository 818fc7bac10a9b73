"""report.html as a reader meets it in a browser (headless Chromium): goal marks whose
text can be read, views that show what they filter, marks that say which condition and
outcome they are and why an open goal is open."""
from __future__ import annotations

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
