"""``cooptest bench``: run ``cooptest generate`` on many tasks and tabulate the results,
optionally with the referee's coverage (TestCov through ``testcov-measure``).

Each task runs as its own ``cooptest generate`` process (a crash or a hang of one task
cannot take the benchmark down, and the process is exactly what a user runs), at most
``--jobs`` at a time, or as Ray tasks on a Ray cluster (``--ray ADDRESS``). A task gets
the cores it reserves, ``--cores``, and no more: ``generate --jobs`` (a portfolio runs a
lane per core it is given, and took every core of the machine in each of two tasks at
once), pinned to cores of its own on this machine (its CPU affinity, which its tests
inherit, as BenchExec assigns cores), ``num_cpus`` and ``memory`` on a Ray cluster; the
table records the cores and the CPU time of each task, so that CPU time over wall time
shows it kept to them. The table (``results.csv``, ``results.json``) is rewritten after
every task, so a long benchmark left running in the background can be read at any time,
and a benchmark run again into the same folder resumes: tasks already in the table are
not run again (a table of another configuration is refused rather than mixed in).
"""
from __future__ import annotations

import argparse
import csv
import glob
import importlib
import json
import os
import queue
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from cooptest.arguments import budget_seconds, folder, memory_mb, positive_count
from cooptest.core.cluster import joined
from cooptest.core.lifetime import die_with_parent
from cooptest.core.memory import DEFAULT_LIMIT_MB
from cooptest.core.parallel import usable_cores
from cooptest.core.registry import STRATEGIES, applies
from cooptest.errors import UserError

GRACE = 30.0  # seconds past the budget before a generate run gets SIGTERM
TESTCOV_LIMIT = 1800.0
RESULTS_JSON, RESULTS_CSV = "results.json", "results.csv"
# what makes rows comparable
CONFIG_KEYS = ("strategy", "search", "budget", "seed", "testcov", "cores", "benchexec")
# What a generate process on a Ray worker needs of the driver's environment to be the
# same cooptest with the same caches and referee.


def testcov_measure() -> Path:
    """The referee: $COOPTEST_TESTCOV_MEASURE, else ../shared/tools/testcov-measure
    next to the repository."""
    env = os.environ.get("COOPTEST_TESTCOV_MEASURE")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3].parent / "shared" / "tools" / "testcov-measure"


@dataclass
class Row:
    task: str
    exit_code: int | None = None
    goals: int | None = None
    covered: int | None = None
    infeasible: int | None = None
    cov_b: float | None = None
    cov_f: float | None = None
    tests: int | None = None
    time_s: float | None = None
    cores: int | None = None  # reserved for the task (--cores)
    cpu_s: float | None = None  # of generate and every process it waited for (or BenchExec's)
    memory_mb: int | None = None  # peak of all its processes, as BenchExec measures it
    testcov_style: float | None = None  # cooptest's own TestCov-style count
    testcov: float | None = None
    testcov_goals: int | None = None
    testcov_s: float | None = None
    error: str = ""

    @property
    def decided(self) -> bool:
        """Every goal covered or proven infeasible."""
        return self.goals is not None and self.covered is not None and self.infeasible is not None \
            and self.covered + self.infeasible == self.goals


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("tasks", nargs="+", metavar="TASK", help="task .yml/.c files or folders of them")
    p.add_argument("--budget", type=budget_seconds, required=True, metavar="SECONDS")
    p.add_argument("--jobs", type=positive_count, metavar="N",
                   help="tasks at once (default: as many as the cores cooptest may use hold "
                        "tasks of --cores cores); not with --ray, where the cluster decides")
    p.add_argument("--cores", type=positive_count, default=1, metavar="N",
                   help="cores each task reserves and gets (default %(default)s): its generate "
                        "runs pinned to N cores of its own (a portfolio with --jobs N), and "
                        "with --ray reserves N CPUs")
    p.add_argument("--out", type=folder, required=True, metavar="DIR")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--testcov", action="store_true", help="measure each suite with TestCov")
    p.add_argument("--shuffle", action="store_true",
                   help="run the tasks in a random order (seeded by --seed): the results "
                        "of a partial run are then a sample of all categories")
    p.add_argument("--ray", metavar="ADDRESS",
                   help="run the tasks on the Ray cluster at ADDRESS (host:port of its head, "
                        "or auto); task files and --out must be on a file system every node sees")
    p.add_argument("--benchexec", action="store_true",
                   help="run each task under BenchExec's run executor (pip install benchexec), "
                        "as Test-Comp measures: its cores, --memory for all its processes, "
                        "and its CPU time and peak memory in the table")
    p.add_argument("--memory", type=memory_mb, default=DEFAULT_LIMIT_MB, metavar="MB",
                   help="memory of each generate run (its --memory), and with --ray what each "
                        "task reserves on the cluster (default %(default)s)")


def expand(tasks: list[str]) -> list[str]:
    """Files as given; folders become the task files under them (.yml, else .c); each
    task once (two runs of one task would write into one output folder)."""
    out: list[str] = []
    for t in tasks:
        if os.path.isdir(t):
            found = sorted(glob.glob(os.path.join(t, "**", "*.yml"), recursive=True))
            out += found or sorted(glob.glob(os.path.join(t, "**", "*.c"), recursive=True))
        elif os.path.exists(t):
            out.append(t)
        else:
            raise UserError("no such file", t)
    return list(dict.fromkeys(out))


def run_name(task: str) -> str:
    """A folder name for a task's outputs: ``category__task``."""
    p = Path(task).resolve()
    return f"{p.parent.name}__{p.stem}"


def run_task(task: str, args: argparse.Namespace, cpus: tuple[int, ...] | None = None) -> Row:
    """The row of ``task``: its ``generate`` run on ``args.cores`` cores (pinned to
    ``cpus``, where given) and what its report says."""
    row = Row(task, cores=args.cores)
    out = os.path.join(args.out, run_name(task))
    cmd = [sys.executable, "-m", "cooptest.cli", "generate", task, "--budget", str(args.budget),
           "--out", out, "--strategy", args.strategy,
           *(("--search", args.search) if applies("--search", args.strategy) else ()),
           *(("--jobs", str(args.cores)) if applies("--jobs", args.strategy) else ()),
           "--seed", str(args.seed), "--memory", str(args.memory), "--quiet"]
    start = time.monotonic()
    if args.benchexec:
        err, row.exit_code, row.cpu_s, row.memory_mb = _under_runexec(cmd, cpus, args)
    else:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                stdin=subprocess.DEVNULL, preexec_fn=lambda: _start_child(cpus))
        err, row.exit_code, row.cpu_s = _wait(proc, args.budget + GRACE)
    lines = [l for l in err.splitlines() if l.startswith("cooptest:")]
    row.error = lines[-1] if lines else ""
    try:
        with open(os.path.join(out, "report.json")) as f:
            summary = json.load(f)["summary"]
        if summary.get("analysed") is not False:  # stopped while loading: no figures, not 0 of 0
            for key in ("goals", "covered", "infeasible", "cov_b", "cov_f", "tests"):
                setattr(row, key, summary[key])
            row.testcov_style = summary.get("coverage_testcov_style")
    except (OSError, ValueError, KeyError):
        pass
    row.time_s = round(time.monotonic() - start, 2)
    suite = os.path.join(out, "test-suite.zip")
    if args.testcov and os.path.exists(suite):
        t0 = time.monotonic()
        try:
            ref = subprocess.run([str(testcov_measure()), task, suite], capture_output=True,
                                 text=True, timeout=TESTCOV_LIMIT, stdin=subprocess.DEVNULL)
            doc = json.loads(ref.stdout.strip().splitlines()[-1])
            row.testcov, row.testcov_goals = doc.get("coverage"), doc.get("goals")
        except (subprocess.TimeoutExpired, IndexError, ValueError):
            row.error = row.error or "testcov-measure failed"
        row.testcov_s = round(time.monotonic() - t0, 2)
    return row


def _start_child(cpus: tuple[int, ...] | None) -> None:
    """In the generate child: get SIGTERM when the process that started it dies (a
    killed bench or Ray worker), so that no orphan keeps writing into a folder that a
    resumed benchmark runs the task in again; SIGTERM makes generate write its outputs
    and stop. Then keep to ``cpus``: the child and all it starts run on those cores."""
    die_with_parent(signal.SIGTERM)
    if cpus is not None:
        os.sched_setaffinity(0, cpus)


def _wait(proc: subprocess.Popen, limit: float) -> tuple[str, int, float]:
    """``proc``'s stderr, exit code and CPU seconds (user and system, of it and every
    descendant it waited for: ``wait4``'s resource usage, which ``Popen.wait`` drops).
    After ``limit`` seconds it gets SIGTERM (generate writes its outputs and exits),
    ``GRACE`` later SIGKILL."""
    err: list[str] = []
    stderr = proc.stderr
    assert stderr is not None  # started with stderr=PIPE
    reader = threading.Thread(target=lambda: err.append(stderr.read()), daemon=True)
    reader.start()
    reaped, lock = False, threading.Lock()

    def send(sig: int) -> None:
        with lock:  # a zombie may get a signal; a reaped pid, which may be reused, not
            if not reaped:
                os.kill(proc.pid, sig)

    timers = [threading.Timer(limit, send, (signal.SIGTERM,)),
              threading.Timer(limit + GRACE, send, (signal.SIGKILL,))]
    for timer in timers:
        timer.daemon = True
        timer.start()
    os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)  # ended, not reaped yet
    with lock:
        reaped = True
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)  # Popen must not wait for it again
    for timer in timers:
        timer.cancel()
    reader.join()
    stderr.close()
    return "".join(err), proc.returncode, round(usage.ru_utime + usage.ru_stime, 2)


def _under_runexec(cmd: list[str], cpus: tuple[int, ...] | None,
                   args: argparse.Namespace) -> tuple[str, int, float, int]:
    """``cmd`` run by BenchExec's run executor, the tool Test-Comp measures with: on
    ``cpus`` (its cpuset), ``--memory`` MB for all its processes together, killed
    ``GRACE`` past the budget of wall time and of CPU time per core. Its output, exit
    code (a signal as minus its number), CPU seconds and peak memory in MB, all as
    BenchExec's cgroups measured them."""
    runexecutor = importlib.import_module("benchexec.runexecutor")  # optional: not typed
    with tempfile.NamedTemporaryFile("r", prefix="runexec-", suffix=".log") as log:
        result = runexecutor.RunExecutor(use_namespaces=False).execute_run(
            cmd, log.name, walltimelimit=int(args.budget + 2 * GRACE),
            hardtimelimit=int((args.budget + 2 * GRACE) * args.cores),
            cores=list(cpus) if cpus is not None else None, memlimit=args.memory << 20,
            write_header=False)
        output = log.read()
    ended = result["exitcode"]
    code = ended.value if ended.signal is None else -ended.signal
    return output, code, round(result["cputime"], 2), round(result.get("memory", 0) / (1 << 20))


def _benchexec_usable() -> None:
    """A UserError unless BenchExec is installed and can make its cgroups here."""
    try:
        benchexec = importlib.import_module("benchexec")  # optional, and not typed
        runexecutor = importlib.import_module("benchexec.runexecutor")
    except ModuleNotFoundError:
        raise UserError("--benchexec needs BenchExec: pip install benchexec") from None
    try:
        runexecutor.RunExecutor(use_namespaces=False)
    except (benchexec.BenchExecException, OSError, SystemExit) as e:
        raise UserError(f"--benchexec: BenchExec cannot measure here: {e}") from None


def lanes(args: argparse.Namespace) -> list[tuple[int, ...]]:
    """The cores of the tasks that run at once on this machine: ``--jobs`` disjoint
    sets of ``--cores`` of the cores cooptest may use; a UserError if they do not fit,
    since tasks sharing a core measure each other."""
    cores = usable_cores()
    jobs = args.jobs or max(1, len(cores) // args.cores)
    if jobs * args.cores > len(cores):
        raise UserError(f"{jobs} tasks at once of {args.cores} cores each need {jobs * args.cores} "
                        f"cores; cooptest may use {len(cores)} here (see --jobs, --cores)")
    return [tuple(cores[k * args.cores:(k + 1) * args.cores]) for k in range(jobs)]


def configuration(args: argparse.Namespace) -> dict[str, object]:
    """What makes rows comparable, with the configuration file's values where one
    applied (``cooptest.config``)."""
    config_file = getattr(args, "config_file", None)
    return {**{k: getattr(args, k) for k in CONFIG_KEYS},
            **({"config_file": config_file} if config_file else {})}


def write_table(rows: list[Row], out: str, config: dict[str, object]) -> None:
    names = [f.name for f in fields(Row)]
    with open(os.path.join(out, RESULTS_CSV + ".tmp"), "w", newline="") as f:
        w = csv.DictWriter(f, names)
        w.writeheader()
        for r in rows:
            w.writerow(asdict(r))
    os.replace(os.path.join(out, RESULTS_CSV + ".tmp"), os.path.join(out, RESULTS_CSV))
    with open(os.path.join(out, RESULTS_JSON + ".tmp"), "w") as f:
        json.dump({"config": config, "rows": [asdict(r) for r in rows],
                   "summary": summarize(rows)}, f, indent=1)
    os.replace(os.path.join(out, RESULTS_JSON + ".tmp"), os.path.join(out, RESULTS_JSON))


def finished_rows(out: str, config: dict[str, object], tasks: list[str]) -> list[Row]:
    """The rows of ``tasks`` an earlier run of the same configuration left in ``out``."""
    try:
        with open(os.path.join(out, RESULTS_JSON)) as f:
            doc = json.load(f)
    except FileNotFoundError:
        return []
    except ValueError:
        raise UserError(f"{RESULTS_JSON} is not readable; remove it or choose another --out",
                        out) from None
    if doc.get("config") != config:
        raise UserError(f"{RESULTS_JSON} holds results of another configuration "
                        f"({doc.get('config')}); choose another --out", out)
    known = {f.name for f in fields(Row)}
    wanted = set(tasks)
    return [Row(**{k: v for k, v in r.items() if k in known}) for r in doc["rows"]
            if r["task"] in wanted]


def _mean(values: list[float | None]) -> float | None:
    vs = [v for v in values if v is not None]
    return round(statistics.fmean(vs), 2) if vs else None


def summarize(rows: list[Row]) -> dict[str, object]:
    return {"tasks": len(rows),
            "with_report": sum(r.goals is not None for r in rows),
            "mean_testcov": _mean([r.testcov for r in rows]),
            "testcov_measured": sum(r.testcov is not None for r in rows),
            "mean_cov_b": _mean([r.cov_b for r in rows]),
            "mean_cov_f": _mean([r.cov_f for r in rows]),
            "decided": sum(r.decided for r in rows),
            "tests": sum(r.tests or 0 for r in rows),
            "time_s": round(sum(r.time_s or 0 for r in rows), 1),
            "errors": sum(bool(r.error) for r in rows)}


def summary_line(s: dict[str, Any], testcov: bool) -> str:
    """The bench's last line: means only of what was measured (no "mean TestCov coverage
    None (over 0)" of a bench without --testcov, no mean of tasks without figures)."""
    means = [f"mean cov_b {s['mean_cov_b']}", f"mean cov_f {s['mean_cov_f']}"] \
        if s["with_report"] else []
    if testcov:
        means.insert(0, f"mean TestCov coverage {s['mean_testcov']} of {s['testcov_measured']} measured"
                     if s["testcov_measured"] else "TestCov measured none")
    return (f"{s['tasks']} tasks, {s['with_report']} with figures: " + ", ".join(
        [*means, f"decided {s['decided']}", f"tests {s['tests']}", f"time {s['time_s']}s",
         f"errors {s['errors']}"]))


def _map_local(tasks: list[str], args: argparse.Namespace, done) -> None:
    """Each task on a lane of cores (``lanes``) that no other task runs on meanwhile."""
    free: queue.Queue[tuple[int, ...]] = queue.Queue()
    for cpus in lanes(args):
        free.put(cpus)

    def on_a_lane(task: str) -> Row:
        cpus = free.get()
        try:
            return run_task(task, args, cpus)
        finally:
            free.put(cpus)

    with ThreadPoolExecutor(free.qsize()) as pool:
        futures = [pool.submit(on_a_lane, t) for t in tasks]
        for fut in as_completed(futures):
            done(fut.result())


def _map_ray(tasks: list[str], args: argparse.Namespace, done) -> None:
    """Each task a Ray task of ``--cores`` CPUs and ``--memory`` MB on the cluster at ``--ray``;
    rows arrive as tasks finish. Paths are made absolute: a worker's working directory
    is not ours."""
    with joined(args.ray) as ray:
        from ray.exceptions import RayError
        remote = ray.remote(run_task).options(num_cpus=args.cores, memory=args.memory << 20)
        remote_args = argparse.Namespace(**{**vars(args), "out": os.path.abspath(args.out)})
        pending = {remote.remote(os.path.abspath(t), remote_args): t for t in tasks}
        while pending:
            ready, _ = ray.wait(list(pending))
            for ref in ready:
                task = pending.pop(ref)
                try:
                    row = ray.get(ref)
                    row.task = task
                except RayError as e:
                    row = Row(task, error=f"ray: {type(e).__name__}")
                done(row)


def run_bench(args: argparse.Namespace) -> int:
    args.search = args.search or STRATEGIES[args.strategy].search  # crabs' is cfg: as generate
    if args.ray and args.jobs is not None:
        raise UserError("--jobs applies without --ray: on a cluster, Ray runs as many tasks as "
                        "their --cores fit")
    if args.ray and args.benchexec:
        raise UserError("--benchexec measures the tasks on this machine, not on a Ray cluster")
    if not args.ray:
        lanes(args)  # refused now, not once the folder is made
    if args.benchexec:
        _benchexec_usable()
    tasks = expand(args.tasks)
    if args.shuffle:
        random.Random(args.seed).shuffle(tasks)
    os.makedirs(args.out, exist_ok=True)
    if args.testcov and not testcov_measure().exists():
        raise UserError(f"no testcov-measure at {testcov_measure()} (set COOPTEST_TESTCOV_MEASURE)")
    config = configuration(args)
    rows = finished_rows(args.out, config, tasks)
    finished = {r.task for r in rows}
    if rows:
        print(f"resuming: {len(rows)} of {len(tasks)} tasks already in {args.out}",
              file=sys.stderr, flush=True)

    def done(row: Row) -> None:
        rows.append(row)
        write_table(sorted(rows, key=lambda r: r.task), args.out, config)
        cov = f"testcov {row.testcov}" if row.testcov is not None else f"cov_b {row.cov_b}"
        print(f"[{len(rows)}/{len(tasks)}] {run_name(row.task)}: {cov}, cov_f {row.cov_f}, "
              f"{row.tests} tests, {row.time_s}s {row.error}".rstrip(), file=sys.stderr, flush=True)

    todo = [t for t in tasks if t not in finished]
    (_map_ray if args.ray else _map_local)(todo, args, done)
    write_table(sorted(rows, key=lambda r: r.task), args.out, config)
    s = summarize(rows)
    print(summary_line(s, args.testcov))
    from cooptest.report.compare import choose_metric, coverage_by_task, write_category_table
    from cooptest.report.plots import plot_timelines
    plot_timelines([os.path.join(args.out, run_name(r.task), "report.json") for r in rows],
                   os.path.join(args.out, "coverage-over-time.png"))
    table = [asdict(r) for r in rows]
    metric = choose_metric({"run": table})
    write_category_table({"coverage": coverage_by_task(table, metric)}, args.out, metric)
    if rows and all(r.error for r in rows):
        print(f"cooptest: every one of the {len(rows)} tasks failed (see {args.out})", file=sys.stderr)
        return 1  # a bench of nothing but failures is not a measurement
    return 0
