"""Two revisions of cooptest, paired: the same tasks, alternately, on the same machine.

    python benchmarks/revisions.py OLD NEW --task T.yml [--task ...] [--budget 60]
        [--strategy auto] [--repeat 1] [--work DIR] [--results FILE]

Each revision is checked out in a git worktree (``DIR/rev-<sha>``) and run from its own
sources (``PYTHONPATH``) through the CLI; for each task and repetition the two runs
follow each other, the first of the pair alternating, so that a drift of the machine's
load falls on both. Every suite is measured with TestCov. The table shows per task and
revision: native runs, confirmations, goals covered / unconfirmed / infeasible, cov_f,
TestCov coverage and wall time (means over the repetitions). Results are cached in
``--results`` (an interrupted comparison resumes).
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

from concolic_table import TESTCOMP, Results, testcov

REPO = Path(__file__).resolve().parents[1]
COLUMNS = ("executions", "confirmations", "covered", "unconfirmed", "infeasible", "cov_f",
           "testcov", "wall_s")


def worktree(rev: str, work: Path) -> tuple[str, Path]:
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", rev],
                         capture_output=True, text=True, check=True).stdout.strip()
    path = work / f"rev-{sha}"
    if not path.exists():
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-f", str(path), sha],
                       capture_output=True, check=True)
    return sha, path


def run(tree: Path, task: Path, options: list[str], budget: float, out: Path) -> dict:
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
    summary["testcov"] = testcov(task, suite) if suite.exists() else 0.0
    return summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--task", action="append", required=True, help="Test-Comp task (relative path)")
    ap.add_argument("--budget", type=float, default=60)
    ap.add_argument("--strategy", default="auto")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--work", type=Path, default=Path("/tmp/cooptest-revisions"))
    ap.add_argument("--results", type=Path, default=None)
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    revs = [worktree(args.old, args.work), worktree(args.new, args.work)]
    results = Results(args.results or args.work / "results.json")
    for t, name in enumerate(args.task):
        for k in range(args.repeat):
            pair = revs if (t + k) % 2 == 0 else revs[::-1]
            for sha, tree in pair:
                config = f"{sha}/{args.strategy}/{k}"
                if results.get(name, config, args.budget) is None:
                    out = args.work / sha / f"{Path(name).stem}-{k}"
                    results.put(name, config, args.budget,
                                run(tree, TESTCOMP / name, ["--strategy", args.strategy], args.budget, out))
    print(f"| task | revision | {' | '.join(COLUMNS)} |")
    print("|---|---|" + "---|" * len(COLUMNS))
    for name in args.task:
        for sha, _ in revs:
            rows = [results.get(name, f"{sha}/{args.strategy}/{k}", args.budget) for k in range(args.repeat)]
            cells = [statistics.mean(float(r.get(c) or 0) for r in rows) for c in COLUMNS]
            print(f"| {Path(name).stem[:32]} | {sha} | " + " | ".join(f"{v:g}" for v in cells) + " |")


if __name__ == "__main__":
    main()
