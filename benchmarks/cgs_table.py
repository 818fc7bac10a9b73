#!/usr/bin/env python3
"""The CGS paper's Table 2 (Seo & Kim): branches covered on replace and grep 2.2 at
1,000 / 2,000 / 3,000 / 4,000 iterations for the cgs, cfg, crest-cfg and crest-dfs
searches (the paper's DFS is CREST's ``-dfs``, its CFG CREST's ``-cfg``, which
crest-cfg follows line for line and cfg does not), beside the paper's CREST figures
(``shared/benchmarks/realworld/README.md``).

One run per subject, search and seed, at ``--max-iterations`` (4,000): the report's
``coverage_by_iteration`` gives the goals covered at each smaller count, so one run
stands for the paper's four columns (runs at 1,000 and 2,000 as well would cost three
times as much and measure the same search). The budget is generous (900 s) so that
iterations, not time, end a run; a run the budget ends anyway shows the counts it
reached and ``budget`` in its row. Branches covered are goals covered: cooptest's CFA
counts two per condition after splitting ``&&``/``||``, as CREST does after CIL.

Beside coverage, each row gives iterations/s (over the concolic analysis's own
seconds, parsing and building excluded), divergences per 1,000 iterations, and the
load average over the run: the machine has 2 cores that other work shares, and a
rate measured under load is not an idle one.

    python benchmarks/cgs_table.py [--subjects replace grep] [--searches cgs cfg crest-dfs]
        [--runs 1 | --seeds S ...] [--max-iterations 4000] [--budget 900] [--jobs 1] [--memory MB] [--out DIR]
        [--initial-input FILE] [--library concrete] [--addresses concrete] [--unconstrained fresh]
        [--dfs-depth D]

``--initial-input FILE`` is run_crest's INITIAL_INPUT: one value per line, the first
run's inputs in the order the program reads them (CREST reads it for the first
execution only). ``generate --seed-suite`` takes such a file as one test, which the
execution tree takes as its first path, before the random and zero starts.
``inputs/grep-backref.input`` starts grep with a back-reference in its pattern,
``\\(a\\)\\1aaa``, and a line it matches: GNU regex's matcher runs only for such a
pattern, and a search from random patterns has not built one (see RESULTS.md).

``--dfs-depth D`` gives crest-dfs CREST's depth bound (``run_crest PROGRAM N -dfs D``);
a table of runs with one bound belongs in an ``--out`` of its own.

``--jobs 2`` runs two at a time, one per core of the machine: figures per iteration
count do not depend on it, rates do (the load column says so).

Results are kept in ``DIR/results.json`` (one entry per run, written after each), so
that an interrupted table resumes where it stopped; ``--table`` prints it without
running anything.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from crest_subjects import CREST, GREP, GREP_FILES, GREP_FLAGS

COUNTS = (1000, 2000, 3000, 4000)

# Table 2 of the paper: mean branches covered over 100 CREST runs, at COUNTS iterations
PAPER: dict[tuple[str, str], tuple[float, ...]] = {
    ("grep", "cgs"): (1523.0, 1643.3, 1690.4, 1721.6),
    ("grep", "cfg"): (1404.5, 1455.7, 1479.8, 1495.8),
    ("grep", "crest-dfs"): (948.1, 989.9, 1087.2, 1099.9),
    ("replace", "cgs"): (180.0, 180.8, 181.0, 181.0),
    ("replace", "cfg"): (175.1, 176.3, 176.6, 177.0),
    ("replace", "crest-dfs"): (84.3, 157.0, 169.6, 170.6),
}
for _subject in ("grep", "replace"):  # the paper's CFG is CREST's: crest-cfg line for line, cfg ours
    PAPER[_subject, "crest-cfg"] = PAPER[_subject, "cfg"]


def command(subject: str, out: Path) -> tuple[list[str], Path | None]:
    """The ``cooptest generate`` arguments naming ``subject`` and the folder to run in.
    grep is run as CREST's harness expects, ``grep PATTERN FILE``: the pattern's 10
    bytes are overwritten by ``CREST_char``, and ``fuzzread`` gives 40 input bytes in
    place of the file's, which must still exist."""
    if subject == "replace":
        return [str(CREST / "replace" / "replace.c")], None
    if subject == "grep":
        text = out.parent / "grep-input.txt"
        text.write_text("an input file grep opens; fuzzread supplies its bytes\n")
        return [*GREP_FILES, *GREP_FLAGS, "--args", f"aaaaaaaaaa {text}"], GREP
    raise SystemExit(f"unknown subject {subject!r} (known: replace, grep)")


def run(subject: str, search: str, seed: int, args: argparse.Namespace) -> dict[str, Any]:
    """One ``generate`` run; its figures from report.json."""
    out = Path(args.out).resolve() / f"{subject}-{search}-{seed}"
    out.parent.mkdir(parents=True, exist_ok=True)
    program, cwd = command(subject, out)
    if args.initial_input:
        program += ["--seed-suite", str(Path(args.initial_input).resolve())]
    cmd = [sys.executable, "-m", "cooptest.cli", "generate", *program, "--strategy", "concolic",
           "--search", search, "--max-iterations", str(args.max_iterations), "--budget",
           str(args.budget), "--seed", str(seed), "--out", str(out), "--quiet",
           *(["--memory", str(args.memory)] if args.memory else []),
           *(["--addresses", args.addresses] if args.addresses else []),
           *(["--library", args.library] if args.library else []),
           *(["--unconstrained", args.unconstrained] if args.unconstrained else []),
           *(["--dfs-depth", str(args.dfs_depth)] if args.dfs_depth and search == "crest-dfs" else [])]
    load = os.getloadavg()[0]
    started = time.monotonic()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                          timeout=args.budget + 120)
    wall = time.monotonic() - started
    if proc.returncode != 0 and not (out / "report.json").exists():
        return {"subject": subject, "search": search, "seed": seed, "error": proc.stderr.strip()[-400:]}
    return {"subject": subject, "search": search, "seed": seed, **figures(out),
            "wall": round(wall, 1), "load_before": round(load, 2),
            "load_after": round(os.getloadavg()[0], 2),
            # a failure after the analysis (report.html, say) leaves report.json whole
            **({"exit": proc.returncode, "stderr": proc.stderr.strip()[-300:]} if proc.returncode else {})}


def figures(out: Path) -> dict[str, Any]:
    """What the table needs of one run's report.json."""
    doc = json.loads((out / "report.json").read_text())
    s = doc["summary"]
    seconds = sum(a["seconds"] for a in doc.get("analyses", []) if a["analysis"] == "concolic")
    return {"goals": s["goals"], "covered": s["covered"], "iterations": s["iterations"],
            "stopped": s.get("stopped"), "divergences": s.get("divergences", 0),
            "diverged_runs": s.get("diverged_runs", 0), "concretizations": s.get("concretizations", 0),
            "seconds": round(seconds, 2), "memory_mb": s.get("memory_peak_mb"), "at": at_counts(doc.get("coverage_by_iteration", []), s)}


def at_counts(steps: list[list[int]], summary: dict[str, Any]) -> dict[str, int | None]:
    """Goals covered after each of ``COUNTS`` iterations, from the report's
    ``[iterations, covered]`` steps; None for a count the run did not reach, unless it
    ended by itself (every goal decided, the tree exhausted), which no more iterations
    would change."""
    final = summary.get("stopped") in ("done", "exhausted")
    result: dict[str, int | None] = {}
    for n in COUNTS:
        if summary["iterations"] < n and not final:
            result[str(n)] = None
            continue
        result[str(n)] = max((c for i, c in steps if i <= n), default=0)
    result["last"] = max((c for _, c in steps), default=0)  # at the run's last iteration
    return result


def mean(values: list[float]) -> float | None:
    return statistics.mean(values) if values else None


def table(results: list[dict[str, Any]]) -> str:
    """Rows per subject and search: mean branches covered at each count with the
    paper's figure in brackets, and the run's rates. Where some runs ended before a
    count, the mean of those that reached it, and a lower bound of the mean of all:
    coverage never falls as iterations go on, so a run that ended early counts what it
    covered at its end."""
    head = ["subject", "search", "runs", *(f"{n:,} (paper)" for n in COUNTS), "iterations",
            "covered then", "it/s", "div/1k it", "MB peak", "load", "stopped"]
    rows = [head]
    for subject in ("replace", "grep"):
        for search in ("cgs", "cfg", "crest-cfg", "crest-dfs"):
            rs = [r for r in results if r["subject"] == subject and r["search"] == search
                  and "error" not in r]
            if not rs:
                continue
            cells = [subject, search, str(len(rs))]
            for k, n in enumerate(COUNTS):
                at_n = [r["at"][str(n)] for r in rs]
                got = [c for c in at_n if c is not None]
                # a run that ended before n covers at n at least what it covered at its end
                floor = mean([r["at"]["last"] if c is None else c for c, r in zip(at_n, rs)])
                ours = f"{mean(got):.1f}" if len(got) == len(rs) else \
                    (f"{mean(got):.1f} ({len(got)} runs), all >= {floor:.1f}" if got else f">= {floor:.1f}")
                cells.append(f"{ours} ({PAPER[subject, search][k]})")
            it = sum(r["iterations"] for r in rs)
            secs = sum(r["seconds"] for r in rs)
            then = mean([r["at"]["last"] for r in rs])
            cells += [f"{it / len(rs):.0f}", f"{then:.1f}", f"{it / secs:.1f}" if secs else "-",
                      f"{1000 * sum(r['divergences'] for r in rs) / it:.0f}" if it else "-",
                      str(max((r.get("memory_mb") or 0 for r in rs), default=0)),
                      f"{mean([(r['load_before'] + r['load_after']) / 2 for r in rs if r.get('load_before') is not None]):.1f}",
                      ",".join(sorted({str(r["stopped"]) for r in rs}))]
            rows.append(cells)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
    goals = sorted({(r["subject"], r["goals"]) for r in results if "goals" in r})
    errors = [f"{r['subject']} {r['search']} seed {r['seed']}: {r['error']}" for r in results if "error" in r]
    return "\n".join([*lines, "", "goals: " + ", ".join(f"{s} {g}" for s, g in goals), *errors])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--subjects", nargs="+", default=["replace", "grep"])
    ap.add_argument("--searches", nargs="+", default=["cgs", "cfg", "crest-dfs"])
    ap.add_argument("--runs", type=int, default=1, help="runs per subject and search (seeds 0..R-1)")
    ap.add_argument("--seeds", type=int, nargs="+", metavar="S",
                    help="these seeds instead of 0..R-1 (a table shared out over runs at a time)")
    ap.add_argument("--max-iterations", type=int, default=COUNTS[-1])
    ap.add_argument("--budget", type=float, default=900.0, help="seconds per run (generous)")
    ap.add_argument("--out", default="cgs-table", help="output folders and results.json")
    ap.add_argument("--table", action="store_true", help="print the kept results only")
    ap.add_argument("--jobs", type=int, default=1, help="runs at a time")
    ap.add_argument("--memory", type=int, help="each run's --memory (MB; default generate's)")
    ap.add_argument("--addresses", choices=("symbolic", "concrete"),
                    help="each run's --addresses (default generate's: symbolic)")
    ap.add_argument("--library", choices=("symbolic", "concrete"),
                    help="each run's --library (default generate's: symbolic)")
    ap.add_argument("--unconstrained", choices=("keep", "fresh"),
                    help="each run's --unconstrained (default generate's: keep)")
    ap.add_argument("--dfs-depth", type=int, metavar="D",
                    help="crest-dfs runs' --dfs-depth (CREST's -dfs D; default generate's: 1,000,000)")
    ap.add_argument("--initial-input", metavar="FILE",
                    help="run_crest's INITIAL_INPUT: the first run's values, one a line")
    args = ap.parse_args()
    path = Path(args.out) / "results.json"
    results: list[dict[str, Any]] = json.loads(path.read_text()) if path.exists() else []
    if not args.table:
        done = {(r["subject"], r["search"], r["seed"]) for r in results if "error" not in r}
        todo = [(subject, search, seed) for subject in args.subjects for search in args.searches
                for seed in (args.seeds or range(args.runs)) if (subject, search, seed) not in done]
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:  # each run is a process of its own
            runs = {pool.submit(run, *key, args): key for key in todo}
            for finished in as_completed(runs):
                key, r = runs[finished], finished.result()
                results = [x for x in results if (x["subject"], x["search"], x["seed"]) != key] + [r]
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(results, indent=1))
                print(json.dumps(r), file=sys.stderr, flush=True)
    print(table(results))


if __name__ == "__main__":
    main()
