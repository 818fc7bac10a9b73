#!/usr/bin/env python3
"""AFL++ against cooptest's own random testing, alone and as the portfolio's fuzzer:
TestCov branch coverage (``shared/tools/testcov-measure``) of four configurations on a
sample of the dev tasks and on CREST's ``replace``, in one run, each task's four
configurations one after the other so that they share the machine's load.

- ``afl``: ``--strategy afl`` (AFL++ on one core, its queue replayed natively);
- ``random``: ``--strategy random`` (cooptest's random testing, one core);
- ``auto``: the default portfolio on every core;
- ``auto-afl``: the portfolio with ``--fuzzer afl``;
- ``auto-random``: the portfolio with ``--fuzzer random`` (its default without
  ``--seed-suite``; with one, AFL++ is);
- ``auto-old``: the portfolio of another tree of cooptest (``--old TREE/src``, its
  sources on ``PYTHONPATH``), for a change measured in the same run as what it changes.

``replace`` is CREST's source with ``#include <crest.h>`` replaced by the two lines
that map ``CREST_char`` to ``__VERIFIER_nondet_char`` (the previous session's mapping),
so that TestCov, which knows no crest.h, measures the same program cooptest ran.
``grep`` is grep 2.2 with CREST's harness, run as ``grep aaaaaaaaaa FILE`` (as
``cgs_table.py`` runs it); TestCov cannot build a program of several files with flags and
a command line, so its suites are measured by ``cooptest coverage`` (gcc's branches,
counted as TestCov counts them), in the ``testcov`` column all the same.

Each row gives the executions per second of the run's fuzzer: AFL++'s own
(``fuzzer executions`` over the run's seconds) for afl, the board's native runs for
random; and the load average before and after, since the machine is shared.

    python benchmarks/afl_lane.py [--subjects replace grep] [--tasks 10] [--task T.yml ...] [--budget 30]
        [--real-budget 60] [--configs afl random auto auto-afl auto-random auto-old] [--old SRC] [--runs R]
        [--seed-suite FILE] [--out DIR]

``--seed-suite FILE`` starts every configuration from the same tests (``generate
--seed-suite``: a suite, or CREST's input file such as ``inputs/grep-backref.input``):
AFL++'s queue starts from them, as the portfolio's board does.

Results go to ``DIR/results.json`` after each run (an interrupted table resumes);
``--table`` prints the table of what is there.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crest_subjects import GREP, GREP_FILES, GREP_FLAGS

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
REFEREE = True  # measure each suite (``--no-referee``: not)
TESTCOMP = SHARED / "benchmarks" / "testcomp"
REPLACE = SHARED / "benchmarks" / "realworld" / "crest" / "replace" / "replace.c"
MEASURE = SHARED / "tools" / "testcov-measure"
CONFIGS = {"afl": ["--strategy", "afl"], "random": ["--strategy", "random"], "auto": [],
           "auto-afl": ["--fuzzer", "afl"], "auto-random": ["--fuzzer", "random"], "auto-old": []}
OLD_SOURCES: str | None = None  # ``--old``: where auto-old's cooptest is
SEED_SUITE: list[str] = []  # ``--seed-suite``: generate's option, for every configuration
CREST_MAPPING = ("char __VERIFIER_nondet_char(void);\n"
                 "#define CREST_char(x) ((x) = __VERIFIER_nondet_char())\n")


@dataclass(frozen=True)
class Subject:
    """A program of the table: its row name, ``generate``'s program arguments, the
    folder to run in, and whether TestCov or ``cooptest coverage`` measures it."""

    name: str
    program: tuple[str, ...]
    budget: float
    cwd: Path | None = None
    testcov: bool = True


def dev_tasks(n: int, budget: float) -> list[Subject]:
    """``n`` coverage-branches tasks of the dev set, a seeded sample over its categories."""
    tasks = sorted(p for p in TESTCOMP.glob("*/*.yml") if "coverage-branches" in p.read_text())
    return [Subject(str(t.relative_to(SHARED)), (str(t),), budget)
            for t in sorted(random.Random(45).sample(tasks, min(n, len(tasks))))]


def real_subject(name: str, out: Path, budget: float) -> Subject:
    folder = out / name  # "replace" or "grep"
    folder.mkdir(parents=True, exist_ok=True)
    if name == "grep":
        text = folder / "grep-input.txt"
        text.write_text("an input file grep opens; fuzzread supplies its bytes\n")
        return Subject("grep", (*GREP_FILES, *GREP_FLAGS, "--args", f"aaaaaaaaaa {text}"), budget,
                       GREP, testcov=False)
    mapped = folder / "replace.c"
    mapped.write_text(REPLACE.read_text().replace("#include <crest.h>\n", CREST_MAPPING))
    return Subject("replace.c", (str(mapped),), budget)


def run(subject: Subject, config: str, out: Path, seed: int) -> dict[str, Any]:
    stem = Path(subject.name).stem
    folder = out / f"{stem}-{config}" if seed == 0 else out / f"{stem}-{config}-{seed}"
    cmd = [sys.executable, "-m", "cooptest.cli", "generate", *subject.program, *CONFIGS[config], *SEED_SUITE,
           "--budget", str(subject.budget), "--seed", str(seed), "--out", str(folder), "--quiet"]
    env = {**os.environ, "PYTHONPATH": OLD_SOURCES} if config == "auto-old" and OLD_SOURCES else None
    load = os.getloadavg()[0]
    started = time.monotonic()
    proc = subprocess.run(cmd, cwd=subject.cwd, capture_output=True, text=True, timeout=subject.budget + 300,
                          env=env)
    wall = time.monotonic() - started
    row: dict[str, Any] = {"task": subject.name, "config": config, "seed": seed, "budget": subject.budget,
                           "wall": round(wall, 1), "load_before": round(load, 2)}
    if not (folder / "report.json").exists():
        return {**row, "error": proc.stderr.strip()[-300:]}
    row.update(figures(folder))
    if not REFEREE:
        return row
    suite = str(folder / "test-suite.zip")
    measure = [str(MEASURE), subject.program[0], suite] if subject.testcov else \
        [sys.executable, "-m", "cooptest.cli", "coverage", *subject.program, suite, "--json"]
    measured = subprocess.run(measure, cwd=subject.cwd, capture_output=True, text=True, timeout=1800)
    try:
        row["testcov"] = json.loads(measured.stdout.strip().splitlines()[-1])["coverage"]
    except (ValueError, IndexError, KeyError):
        row["testcov_error"] = (measured.stderr or measured.stdout).strip()[-300:]
    row["load_after"] = round(os.getloadavg()[0], 2)
    return row


def figures(folder: Path) -> dict[str, Any]:
    """What a row needs of one run's report.json. The fuzzer's rate is AFL++'s
    executions (``fuzzer executions``) or, where cooptest's random testing fuzzed, its
    native runs (``iterations``: in auto they count concolic iterations too), per
    second of the run; ``testcov_style`` is the live meter's count (None where the run
    ended before the meter had counted every test)."""
    doc = json.loads((folder / "report.json").read_text())
    s = doc["summary"]
    fuzzed, iterations = s.get("fuzzer executions", 0), s.get("iterations", 0)
    seconds = max(s["time_s"], 0.1)
    return {"goals": s["goals"], "covered": s["covered"], "tests": s["tests"], "seconds": s["time_s"],
            "fuzzer_executions": fuzzed, "iterations": iterations,
            "executions_per_s": round((fuzzed or iterations) / seconds, 1),
            "testcov_style": s.get("coverage_testcov_style"),
            "configuration": doc.get("configuration"),
            "why_not": [a.get("why_not") for a in doc.get("analyses", []) if a.get("why_not")]}


def table(rows: list[dict[str, Any]], configs: list[str]) -> str:
    """A task's cell: the mean TestCov over its runs (each run's in brackets when there
    are several) and the mean executions per second."""
    by: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault((r["task"], r["config"]), []).append(r)
    tasks = list(dict.fromkeys(r["task"] for r in rows))
    metric = "testcov" if REFEREE else "covered"
    lines = ["| task | " + " | ".join(f"{c} {'TestCov' if REFEREE else 'goals covered'} (exec/s)"
                                      for c in configs) + " |",
             "|---|" + "---|" * len(configs)]

    def mean_testcov(t: str, c: str) -> float | None:
        values = [r[metric] for r in by.get((t, c), []) if metric in r]
        return statistics.mean(values) if values else None

    for t in tasks:
        cells = []
        for c in configs:
            rs, m = by.get((t, c), []), mean_testcov(t, c)
            runs = f" [{', '.join(str(r.get(metric, 'n/a')) for r in rs)}]" if len(rs) > 1 else ""
            rate = statistics.mean(r.get("executions_per_s", 0) for r in rs) if rs else 0
            cells.append("-" if m is None else f"{m:.2f}{runs} ({rate:.0f})")
        lines.append(f"| {t} | " + " | ".join(cells) + " |")
    dev = [t for t in tasks if t.endswith(".yml")]
    means = []
    for c in configs:
        values = [v for t in dev if (v := mean_testcov(t, c)) is not None]
        means.append(f"{statistics.mean(values):.2f} (n={len(values)})" if values else "-")
    lines.append("| mean over dev tasks | " + " | ".join(means) + " |")
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", type=int, default=10)
    p.add_argument("--task", action="append", default=[], type=Path,
                   help="a task .yml to run besides the sample (repeatable; e.g. the largest dev tasks)")
    p.add_argument("--budget", type=float, default=30)
    p.add_argument("--real-budget", type=float, default=60, help="seconds on replace and grep")
    p.add_argument("--subjects", nargs="*", default=["replace"], choices=["replace", "grep"])
    p.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    p.add_argument("--out", default="bench-afl-lane")
    p.add_argument("--runs", type=int, default=1, help="runs per task and configuration (seeds 0..R-1)")
    p.add_argument("--table", action="store_true")
    p.add_argument("--old", help="auto-old's cooptest sources (a worktree's src/)")
    p.add_argument("--seed-suite", type=Path, help="the tests (or CREST input file) every run starts from")
    p.add_argument("--no-referee", action="store_true",
                   help="no TestCov or gcov measurement: the goals each run's replays covered only "
                        "(TestCov takes hours on the suites of the largest tasks under load)")
    args = p.parse_args()
    if "auto-old" in args.configs and not args.old and not args.table:
        p.error("auto-old needs --old TREE/src")
    global OLD_SOURCES, SEED_SUITE, REFEREE
    REFEREE = not args.no_referee
    OLD_SOURCES = args.old and str(Path(args.old).resolve())
    SEED_SUITE = ["--seed-suite", str(args.seed_suite.resolve())] if args.seed_suite else []
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    results = out / "results.json"
    rows: list[dict[str, Any]] = json.loads(results.read_text()) if results.exists() else []
    for row in rows:  # rows of an earlier version of this script: today's figures
        row.setdefault("seed", 0)
        folder = out / f"{Path(row['task']).stem}-{row['config']}"
        if "iterations" not in row and (folder / "report.json").exists():
            row.update(figures(folder))
    if not args.table:
        work = [real_subject(s, out, args.real_budget) for s in args.subjects]
        work += dev_tasks(args.tasks, args.budget)
        work += [Subject(str(t.resolve().relative_to(SHARED)), (str(t.resolve()),), args.budget) for t in args.task]
        done = {(r["task"], r["config"], r["seed"]) for r in rows}
        for subject in work:
            for seed in range(args.runs):
                for config in args.configs:
                    if (subject.name, config, seed) in done:
                        continue
                    rows.append(run(subject, config, out, seed))
                    results.write_text(json.dumps(rows, indent=1))
                    print(json.dumps(rows[-1]), flush=True)
    print(table(rows, args.configs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
