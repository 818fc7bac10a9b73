"""Revisions of cooptest, paired: the same tasks, alternately, on the same machine.

    python benchmarks/revisions.py OLD NEW [MORE ...] --task T.yml [--task ...]
        [--budget 60] [--strategy auto] [--repeat 1] [--referee testcov|report]
        [--work DIR] [--results FILE]

Each revision is checked out in a git worktree (``DIR/rev-<sha>``) and run from its own
sources (``PYTHONPATH``) through the CLI; for each task and repetition the runs of the
revisions follow each other, the first of them rotating, so that a drift of the
machine's load falls on all. Every suite is measured with TestCov, or with
``--referee report`` by the report's own TestCov-style count (``testcov`` then holds
that count: on pals_lcr's 13k goals TestCov takes seven minutes a suite, and there the
two agreed on every suite measured by both; elsewhere they may differ, as on atol's
tests that TestCov's harness runs differently). The table shows per task and revision: native
runs, confirmations, goals covered / unconfirmed / infeasible, cov_f, coverage, wall
time, tests and their inputs (means over the repetitions), and the coverage of each
repetition. Results are cached in ``--results`` (an interrupted comparison resumes).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from concolic_table import TESTCOMP, Results, testcov

REPO = Path(__file__).resolve().parents[1]
COLUMNS = ("executions", "confirmations", "covered", "unconfirmed", "infeasible", "cov_f",
           "testcov", "wall_s", "tests", "inputs")


def worktree(rev: str, work: Path) -> tuple[str, Path]:
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", rev],
                         capture_output=True, text=True, check=True).stdout.strip()
    path = work / f"rev-{sha}"
    if not path.exists():
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-f", str(path), sha],
                       capture_output=True, check=True)
    return sha, path


def run(tree: Path, task: Path, options: list[str], budget: float, out: Path, referee: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    cmd = [sys.executable, "-m", "cooptest.cli", "generate", str(task), "--budget", str(budget),
           "--out", str(out), "--quiet", *options]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=budget * 3 + 120)
    summary: dict = {"wall_s": round(time.monotonic() - t0, 1), "rc": proc.returncode}
    report = out / "report.json"
    if report.exists():
        summary.update(json.loads(report.read_text()).get("summary", {}))
    suite = out / "test-suite.zip"
    summary["inputs"] = inputs_in(suite) if suite.exists() else 0
    if referee == "report":
        summary["testcov"] = summary.get("coverage_testcov_style", 0.0)
    else:
        summary["testcov"] = testcov(task, suite) if suite.exists() else 0.0
    return summary


def inputs_in(suite: Path) -> int:
    """The ``<input>`` elements of all tests of a suite (what TestCov parses and feeds)."""
    with zipfile.ZipFile(suite) as z:
        return sum(z.read(n).count(b"<input") for n in z.namelist() if n.endswith(".xml"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("revisions", nargs="+", help="two or more git revisions")
    ap.add_argument("--task", action="append", required=True, help="Test-Comp task (relative path)")
    ap.add_argument("--budget", type=float, default=60)
    ap.add_argument("--strategy", default="auto")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--work", type=Path, default=Path("/tmp/cooptest-revisions"))
    ap.add_argument("--results", type=Path, default=None)
    ap.add_argument("--referee", choices=("testcov", "report"), default="testcov")
    args = ap.parse_args()
    if len(args.revisions) < 2:
        ap.error("give at least two revisions")
    args.work.mkdir(parents=True, exist_ok=True)
    revs = [worktree(rev, args.work) for rev in args.revisions]
    suffix = "/report" if args.referee == "report" else ""  # the runs' key in the results
    results = Results(args.results or args.work / "results.json")
    for t, name in enumerate(args.task):
        for k in range(args.repeat):
            first = (t + k) % len(revs)
            for sha, tree in revs[first:] + revs[:first]:
                config = f"{sha}/{args.strategy}/{k}{suffix}"
                if results.get(name, config, args.budget) is None:
                    out = args.work / sha / f"{Path(name).stem}-{k}{suffix.replace('/', '-')}"
                    results.put(name, config, args.budget,
                                run(tree, TESTCOMP / name, ["--strategy", args.strategy], args.budget, out,
                                    args.referee))
    print(f"| task | revision | {' | '.join(COLUMNS)} | {args.referee} of each run |")
    print("|---|---|" + "---|" * (len(COLUMNS) + 1))
    for name in args.task:
        for sha, _ in revs:
            rows = [results.get(name, f"{sha}/{args.strategy}/{k}{suffix}", args.budget)
                    for k in range(args.repeat)]
            cells = [statistics.mean(float(r.get(c) or 0) for r in rows) for c in COLUMNS]
            each = ", ".join(f"{float(r.get('testcov') or 0):g}" for r in rows)
            print(f"| {Path(name).stem[:32]} | {sha} | " + " | ".join(f"{v:g}" for v in cells) + f" | {each} |")
    summarise(results, args, [sha for sha, _ in revs], suffix)


def summarise(results: Results, args: argparse.Namespace, shas: list[str], suffix: str) -> None:
    """Over the tasks every revision has run: each revision's mean coverage and claims,
    and the tasks on which it is more than one point below the first revision (the
    regression check of a change: the mean within half a point, no task a point lower)."""
    def mean_of(name: str, sha: str, column: str) -> float | None:
        rows = [results.get(name, f"{sha}/{args.strategy}/{k}{suffix}", args.budget) for k in range(args.repeat)]
        if any(r is None for r in rows):
            return None
        return statistics.mean(float(r.get(column) or 0) for r in rows)

    coverage = {sha: {n: mean_of(n, sha, "testcov") for n in args.task} for sha in shas}
    done = [n for n in args.task if all(coverage[sha][n] is not None for sha in shas)]
    print(f"\n{len(done)} of {len(args.task)} tasks run by every revision")
    if not done:
        return
    base = shas[0]
    for sha in shas:
        cov = {n: coverage[sha][n] or 0.0 for n in done}
        below = {n: cov[n] - (coverage[base][n] or 0.0) for n in done}
        claims = sum(mean_of(n, sha, "infeasible") or 0.0 for n in done)
        lower = [(Path(n).stem, round(d, 2)) for n, d in below.items() if d < -1]
        print(f"{sha}: mean {args.referee} {statistics.mean(cov.values()):.2f}, claims {claims:g}, "
              f"more than 1 point below {base} on {len(lower)}: {lower}")


if __name__ == "__main__":
    main()
