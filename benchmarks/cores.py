"""Does each task of ``cooptest bench`` keep to the cores it reserves? (issue 44)

    python benchmarks/cores.py OUT [--budget 20] [--tasks 10]

Runs the portfolio (``--strategy auto``, the strategy that takes every core it is
given) on every 19th task of the sorted dev set, three ways, and prints for each task
its wall time, its CPU time and their ratio, which may not exceed the cores reserved:

- ``unpinned``: two ``generate`` runs at once without ``--jobs``, as ``bench --jobs 2``
  ran them before tasks reserved cores (each portfolio takes every core);
- ``bench``: ``cooptest bench --jobs 2 --cores 1``, each task pinned to a core of its own;
- ``ray``: ``cooptest bench --ray`` on a local head of 2 CPUs, ``--cores 1`` (num_cpus).

CPU time is ``wait4``'s: the process and every descendant it waited for. Say whether
the machine was idle: under load the ratios fall below what the runs would take.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEV = REPO.parent / "shared" / "benchmarks" / "testcomp"


def tasks(n: int) -> list[str]:
    return sorted(glob.glob(str(DEV / "*" / "*.yml")))[::19][:n]


def cooptest(*args: object) -> list[str]:
    return [sys.executable, "-m", "cooptest.cli", *map(str, args)]


def unpinned(chosen: list[str], budget: float, out: Path) -> list[dict]:
    """Two generate runs at once, each on every core (no --jobs): wall and CPU time."""
    def one(task: str) -> dict:
        start = time.monotonic()
        proc = subprocess.Popen(cooptest("generate", task, "--budget", budget, "--quiet",
                                         "--out", out / Path(task).stem),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(proc.pid, 0)
        proc.returncode = 0
        return {"task": task, "cores": 2, "time_s": round(time.monotonic() - start, 2),
                "cpu_s": round(usage.ru_utime + usage.ru_stime, 2)}
    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(one, chosen))


def bench(chosen: list[str], budget: float, out: Path, *extra: str) -> list[dict]:
    proc = subprocess.run(cooptest("bench", *chosen, "--budget", budget, "--cores", "1",
                                   "--out", out, *extra), capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    return json.loads((out / "results.json").read_text())["rows"]


def show(name: str, rows: list[dict]) -> None:
    print(f"\n{name}: task, cores reserved, wall s, CPU s, CPU/wall")
    ratios = []
    for r in rows:
        ratio = r["cpu_s"] / r["time_s"] if r["time_s"] else 0.0
        ratios.append(ratio)
        print(f"  {Path(r['task']).stem[:44]:<44} {r['cores']} {r['time_s']:7.2f} "
              f"{r['cpu_s']:7.2f} {ratio:5.2f}")
    print(f"  max CPU/wall {max(ratios):.2f}, mean {sum(ratios) / len(ratios):.2f}; "
          f"above the cores reserved: {sum(q > r['cores'] for q, r in zip(ratios, rows))}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--budget", default="20")
    ap.add_argument("--tasks", type=int, default=10)
    ap.add_argument("--only", choices=("unpinned", "bench", "ray"), action="append")
    args = ap.parse_args()
    chosen = tasks(args.tasks)
    shutil.rmtree(args.out, ignore_errors=True)
    args.out.mkdir(parents=True)
    only = args.only or ["unpinned", "bench", "ray"]
    print(f"load average at the start: {os.getloadavg()[0]:.1f}", flush=True)
    if "unpinned" in only:
        show("unpinned (two generate --strategy auto at once)",
             unpinned(chosen, args.budget, args.out / "unpinned"))
    if "bench" in only:
        show("bench --jobs 2 --cores 1", bench(chosen, args.budget, args.out / "bench", "--jobs", "2"))
    if "ray" in only:
        sys.path.insert(0, str(REPO / "tests" / "report"))
        from ray_head import local_ray_head
        with local_ray_head(num_cpus=2) as address:
            show("bench --ray (2 CPUs) --cores 1",
                 bench(chosen, args.budget, args.out / "ray", "--ray", address))
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
