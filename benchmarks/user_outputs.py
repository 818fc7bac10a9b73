"""Figures of issue 14 (what a user sees and runs), one subcommand each:

    python benchmarks/user_outputs.py html OUT     report.html of examples/*.c and of a ~5k-line
                                                   dev task: size, time to open in headless Chromium
    python benchmarks/user_outputs.py export OUT   export of three dev tasks: make check, gcovr's
                                                   coverage vs `cooptest coverage`
    python benchmarks/user_outputs.py ray OUT      bench --ray (local 2-CPU head) vs the local pool
                                                   on 20 dev tasks, then a killed and resumed run

Run from the repository root with PYTHONPATH=src; one job at a time (2-core machine).
Screenshots are written under OUT and their paths printed (not committed).
"""
from __future__ import annotations

import glob
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEV = REPO.parent / "shared" / "benchmarks" / "testcomp"
LARGE_TASK = DEV / "combinations" / "pals_lcr.3.ufo.UNBOUNDED.pals+Problem12_label04.yml"
EXPORT_TASKS = [DEV / "array-examples" / "standard_copy8_ground-2.yml",
                DEV / "loops" / "insertion_sort-1.yml",
                DEV / "bitvector" / "s3_srvr_3a_alt.BV.c.cil.yml"]
CHROMIUM = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--enable-logging=stderr", "--v=0"]
# Appended to a copy of the page: the time from navigation start until every element is
# built (the script runs after them) and laid out (reading a size forces the layout).
PARSED_PROBE = ("<script>document.body.getBoundingClientRect();"
                "document.body.dataset.parsedMs = performance.now().toFixed(0);</script>")


def cooptest(*args: object, timeout: float = 3600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cooptest.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def browse(page: Path, profile: Path, *args: str) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.monotonic()
    proc = subprocess.run([*CHROMIUM, f"--user-data-dir={profile}", *args, page.as_uri()],
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    return time.monotonic() - t0, proc


def html(out: Path) -> None:
    """Size of each page, its parse time in the browser, and the wall time of a headless
    screenshot of it minus that of an empty page (browser start-up)."""
    out.mkdir(parents=True, exist_ok=True)
    profile = out / "profile"
    blank = out / "blank.html"
    blank.write_text("<!DOCTYPE html><html><body></body></html>")
    base = statistics.median(browse(blank, profile, f"--screenshot={out / 'blank.png'}")[0]
                             for _ in range(3))
    targets = sorted(REPO.glob("examples/*.c")) + [LARGE_TASK]
    print(f"| program | lines | goals | report.html | built and laid out in | screenshot wall − blank ({base:.2f} s) |")
    print("|---|---|---|---|---|---|")
    for target in targets:
        run = out / target.stem
        budget = 20 if target == LARGE_TASK else 5
        gen = cooptest("generate", target, "--budget", budget, "--out", run, "--quiet")
        if gen.returncode != 0:
            print(f"| {target.name} | generate failed: {gen.stderr.strip()[-200:]} |")
            continue
        # the full page, as `cooptest report` renders it (a run short of time at its end
        # writes it unhighlighted)
        cooptest("report", run)
        doc = json.loads((run / "report.json").read_text())
        page = run / "report.html"
        probe = run / "probe.html"
        probe.write_text(page.read_text().replace("</body>", PARSED_PROBE + "</body>"))
        _, dom = browse(probe, profile, "--dump-dom")
        parsed = re.search(r'data-parsed-ms="(\d+)"', dom.stdout)
        console = [ln for ln in dom.stderr.splitlines() if ":CONSOLE" in ln]
        shot = out / f"{target.stem}.png"
        walls = [browse(page, profile, "--window-size=1280,1600", f"--screenshot={shot}")[0]
                 for _ in range(3)]
        lines = len(Path(doc["program"]).read_text(errors="replace").splitlines())
        print(f"| {target.name} | {lines} | {doc['summary']['goals']} | "
              f"{page.stat().st_size / 1e6:.2f} MB | {parsed.group(1) if parsed else '?'} ms | "
              f"{statistics.median(walls) - base:.2f} s |"
              + (f" console: {console}" if console else ""))
        print(f"screenshot: {shot}", file=sys.stderr)


def export(out: Path) -> None:
    """Per task: make check, gcovr's line/branch coverage of the original program, and
    TestCov's goals counted from gcovr's line counts of the labelled program built with
    the exported tests, against `cooptest coverage` of the suite."""
    from cooptest.harness.coverage import LABEL, labelled_program
    from cooptest.frontend.preprocess import preprocess
    from cooptest.task import load_task
    out.mkdir(parents=True, exist_ok=True)
    print("| task | tests | make check | gcovr lines | gcovr branches | "
          "TestCov goals via gcovr | cooptest coverage | difference |")
    print("|---|---|---|---|---|---|---|---|")
    for task_file in EXPORT_TASKS:
        run, unit = out / task_file.stem, out / f"{task_file.stem}-export"
        gen = cooptest("generate", task_file, "--budget", 10, "--out", run, "--quiet")
        assert gen.returncode == 0, gen.stderr
        suite = run / "test-suite.zip"
        exp = cooptest("export", task_file, suite, "--out", unit)
        assert exp.returncode == 0, exp.stdout + exp.stderr
        check = re.search(r"make check: (.*)", exp.stdout)
        summary = json.loads((unit / "coverage" / "summary.json").read_text())
        ref = json.loads(cooptest("coverage", task_file, suite, "--json").stdout)
        task = load_task(str(task_file))
        with tempfile.TemporaryDirectory() as work:
            source, _ = labelled_program(preprocess(task, work))
            via_gcovr = _goals_via_gcovr(unit, source, task.data_model.gcc_flag, LABEL)
        print(f"| {task_file.name} | {ref['tests']} | {check.group(1) if check else exp.stdout[-200:]} | "
              f"{summary['line_percent']:.1f}% | {summary['branch_percent']:.1f}% | "
              f"{via_gcovr:.2f}% | {ref['coverage']:.2f}% | {abs(via_gcovr - ref['coverage']):.2f} pt |")


def _goals_via_gcovr(unit: Path, labelled: str, arch: str, label: str) -> float:
    """Build the labelled program with the export's harness and test files, run every
    test, and count the goal lines gcovr reports as executed."""
    build = unit.parent / f"{unit.name}-labelled"  # outside the export: its gcovr reads cov/ only
    shutil.rmtree(build, ignore_errors=True)
    build.mkdir()
    (build / "labelled.c").write_text(labelled)
    flags = ["-std=gnu11", "-O0", "-w", arch, "--coverage", "-DGCOV", "-Wno-attributes",
             "-D__alias__(x)="]
    for src in (build / "labelled.c", unit / "cooptest_harness.c"):
        subprocess.run(["gcc", *flags, "-c", src, "-o", src.stem + ".o"], cwd=build, check=True)
    for test in sorted((unit / "tests").glob("*.c")):
        exe = build / test.stem
        subprocess.run(["gcc", *flags, "-o", exe, test, build / "labelled.o",
                        build / "cooptest_harness.o", "-lm"], check=True)
        subprocess.run(["timeout", "3", exe], cwd=build, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    doc = json.loads(subprocess.run([sys.executable, "-m", "gcovr", "--root", str(build),
                                     "--include-internal-functions", "--json", "-",
                                     "--filter", str(build / "labelled.c"), str(build)],
                                    capture_output=True, text=True, check=True).stdout)
    counts = {ln["line_number"]: ln["count"] for f in doc["files"] for ln in f["lines"]}
    goto = re.compile(rf"^\s*goto {label}\d+;\s*$")
    goal_lines = [n for n, line in enumerate(labelled.splitlines(), 1) if goto.match(line)]
    present = [n for n in goal_lines if n in counts]
    return 100.0 * sum(counts[n] > 0 for n in present) / len(present) if present else 100.0


def ray(out: Path) -> None:
    """20 dev tasks (every 9th of the sorted dev set), random testing for 5 s each: the
    local pool (2 jobs) and a local Ray head with 2 CPUs; then a Ray run killed after a
    few rows and run again."""
    sys.path.insert(0, str(REPO / "tests" / "report"))
    from ray_head import local_ray_head
    tasks = sorted(glob.glob(str(DEV / "*" / "*.yml")))[::9][:20]
    common = ["--strategy", "random", "--budget", "5", "--seed", "1"]
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    t0 = time.monotonic()
    local = cooptest("bench", *tasks, *common, "--jobs", "2", "--out", out / "local")
    t_local = time.monotonic() - t0
    assert local.returncode == 0, local.stderr
    with local_ray_head(num_cpus=2) as address:
        t0 = time.monotonic()
        remote = cooptest("bench", *tasks, *common, "--ray", address, "--out", out / "ray")
        t_ray = time.monotonic() - t0
        assert remote.returncode == 0, remote.stderr
        killed = subprocess.Popen([sys.executable, "-m", "cooptest.cli", "bench", *tasks, *common,
                                   "--ray", address, "--out", str(out / "ray-killed")],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  stdin=subprocess.DEVNULL)
        results = out / "ray-killed" / "results.json"
        while not results.exists() or len(json.loads(results.read_text())["rows"]) < 6:
            time.sleep(0.5)
        killed.send_signal(signal.SIGKILL)
        killed.wait()
        before = len(json.loads(results.read_text())["rows"])
        t0 = time.monotonic()
        resumed = cooptest("bench", *tasks, *common, "--ray", address, "--out", out / "ray-killed")
        t_resume = time.monotonic() - t0
    a, b, c = (_rows(out / d) for d in ("local", "ray", "ray-killed"))
    diffs = [abs(a[t]["cov_b"] - b[t]["cov_b"]) for t in a if a[t]["cov_b"] is not None
             and b[t]["cov_b"] is not None]
    print(f"local pool: {t_local:.0f} s, Ray: {t_ray:.0f} s; tasks {len(a)} / {len(b)}; "
          f"same goals on {sum(a[t]['goals'] == b[t]['goals'] for t in a)}; "
          f"mean cov_b {statistics.fmean(r['cov_b'] or 0 for r in a.values()):.2f} vs "
          f"{statistics.fmean(r['cov_b'] or 0 for r in b.values()):.2f}; |Δ cov_b| mean "
          f"{statistics.fmean(diffs):.2f}, max {max(diffs):.2f}; exit codes equal on "
          f"{sum(a[t]['exit_code'] == b[t]['exit_code'] for t in a)}")
    resumed_line = next((ln for ln in resumed.stderr.splitlines() if ln.startswith("resuming")), "")
    print(f"killed after {before} rows; re-run: '{resumed_line}', {t_resume:.0f} s, "
          f"{len(c)} rows at the end, ran again: "
          f"{sum(1 for ln in resumed.stderr.splitlines() if ln.startswith('['))}")


def _rows(out: Path) -> dict[str, dict]:
    return {r["task"]: r for r in json.loads((out / "results.json").read_text())["rows"]}


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("html", "export", "ray"):
        sys.exit(__doc__)
    os.environ.setdefault("COOPTEST_CACHE", tempfile.mkdtemp(prefix="cooptest-cache-"))
    {"html": html, "export": export, "ray": ray}[sys.argv[1]](Path(sys.argv[2]).resolve())
