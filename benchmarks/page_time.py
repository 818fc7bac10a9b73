"""The time report.html takes to render against what a run keeps for it (``page_seconds``).

    python benchmarks/page_time.py OUT [OUT ...] [--repeat 3]

Each OUT is the output folder of a ``generate`` run; its page is written as the run's end
writes it (highlighted, the report read from disk, in a process that has not rendered a
page before: Pygments compiles its lexer on first use), ``--repeat`` times, each in a
fresh process, and the median is printed beside
``page_seconds`` of the run's program files and goals, the reserve a run keeps for its
page: a median above it means runs of such programs end past their budget, or with the
page unhighlighted. Run from the repository root with PYTHONPATH=src, idle.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from cooptest.report.html import page_seconds, write_html_report
from cooptest.report.publication import REPORT


def written_in(out: Path) -> float:
    """Seconds to write OUT's page in a fresh process, imports excluded."""
    proc = subprocess.run([sys.executable, __file__, "--once", str(out)], capture_output=True, text=True,
                          check=True)
    return float(proc.stdout)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("outs", nargs="+", type=Path)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--once", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.once:
        began = time.monotonic()
        write_html_report(str(args.outs[0]))
        print(time.monotonic() - began)
        return 0
    print("| run | source bytes | goals | written in (median) | kept for it (`page_seconds`) |")
    print("|---|---|---|---|---|")
    for out in args.outs:
        doc = json.loads((out / REPORT).read_text())
        files = doc.get("files") or [doc["program"]]
        size = sum(os.path.getsize(f) for f in files)
        times = [written_in(out) for _ in range(args.repeat)]
        print(f"| {out.name} | {size:,} | {len(doc['goals']):,} | {statistics.median(times):.2f} s | "
              f"{page_seconds(size, len(doc['goals'])):.2f} s |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
