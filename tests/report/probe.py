"""Asking headless Chromium what a reader of report.html sees: a script added to a copy
of the page measures the built page (computed colours, heights after a click) and
leaves its answer as JSON in the DOM, which ``--dump-dom`` returns. ``--dump-dom``
has no other way out of the page, and a copy keeps the run's own page untouched."""
from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from test_html import browse

PROBE = "cooptest-probe"


def probe(page: Path, tmp_path: Path, script: str, width: int = 1280) -> Any:
    """The value of the JavaScript expression ``script`` evaluated in ``page`` once the
    page's own script has run, as Python data (``script`` may use ``click(selector)``)."""
    copy = tmp_path / f"probed-{page.parent.name}.html"
    runner = (f"<script>(function () {{ function click(s) {{ document.querySelector(s).click(); }}"
              f" var out = document.createElement('pre'); out.id = '{PROBE}';"
              f" out.textContent = JSON.stringify(({script})); document.body.appendChild(out); }})();"
              "</script></body>")
    copy.write_text(page.read_text().replace("</body>", runner, 1))
    dom = browse(copy, tmp_path, f"--window-size={width},900", "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    found = re.search(rf'<pre id="{PROBE}">(.*?)</pre>', dom.stdout, re.S)
    assert found, "the probe did not run: " + "\n".join(
        ln for ln in dom.stderr.splitlines() if ":CONSOLE" in ln)
    return json.loads(html.unescape(found.group(1)))


def luminance(rgb: str) -> float:
    """WCAG 2 relative luminance of a computed colour (``rgb(r, g, b)``)."""
    channels = [int(c) / 255 for c in re.findall(r"\d+", rgb)[:3]]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(fg: str, bg: str) -> float:
    """WCAG 2 contrast ratio of two computed colours (1 to 21)."""
    a, b = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)
