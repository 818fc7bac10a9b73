"""``generate --all-functions --per-function``: a library of many functions, one
``generate`` job per function, ``--jobs`` at a time, then one run on the harness of
them all seeded with every job's tests.

A job's harness calls its one function exactly as the harness of them all does after
its first input (which picks the function): the same arguments from the same inputs,
the same stubs and variables. So a job's test, with the function's index put before
its inputs, is a test of the whole harness, and the merged suite is replayed there
(``--seed-suite``): the report, the suite and the export are the whole library's, each
goal covered by a test that ran on that harness. The jobs' proofs are not carried
over: a goal a job proved out of reach from its own function may be reached from
another's; the seeded run's provers decide on the whole harness. Each job reserves one
core and its share of ``--memory``, here (``--jobs`` at a time) or as a Ray task on a
cluster (``--ray ADDRESS``); its own report stays in ``OUT/functions/NAME``.
"""
from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from cooptest.errors import UserError
from cooptest.harness.testsuite import SuiteWriter, TestCase, read_suite
from cooptest.scratch import scratch
from cooptest.task import Task

SHARE = 0.75  # of the budget left after loading, for the jobs; the seeded run has the rest
LEAST = 15.0  # seconds a job needs at least: its own loading counts in its budget
KEPT = ("test-suite.zip", "report.json", "report.html", "harness.c")  # a job's outputs kept in OUT


def program_arguments(args: argparse.Namespace) -> list[str]:
    """The options that name the program and its harness, as the user gave them."""
    out = list(args.target)
    if args.compile_commands:
        out += ["--compile-commands", args.compile_commands]
    for d in args.includes:
        out += ["-I", d]
    for d in args.defines:
        out += ["-D", d]
    if args.cflags:
        out += ["--cflags", args.cflags]
    if args.data_model is not None:
        out += ["--data-model", args.data_model.value]
    out += ["--max-depth", str(args.max_depth), "--max-array", str(args.max_array)]
    return out + (["--keep-globals"] if args.keep_globals else [])


def per_function(args: argparse.Namespace, task: Task, started: float, jobs: int) -> tuple[str, dict]:
    """Run the jobs, ``jobs`` at a time here or as many at a time as the cluster at
    ``--ray`` has CPUs; the merged suite's path, and what report.json records of them."""
    assert task.harness is not None
    functions = task.harness.functions
    folder = os.path.join(args.out, "functions")
    if args.ray:
        from cooptest.core.cluster import joined
        with joined(args.ray) as ray:
            jobs = max(1, int(ray.cluster_resources().get("CPU", 1)))
            plan = Plan(args, functions, started, jobs)
            remote = ray.remote(run_job_returning).options(num_cpus=1, memory=plan.memory << 20)
            refs = {name: remote.remote(*job) for name in functions
                    if (job := plan.command(name)) is not None}
            results = {name: ray.get(refs[name]) if name in refs else (-1, {}) for name in functions}
    else:
        plan = Plan(args, functions, started, jobs)

        def local(name: str) -> tuple[int, dict[str, bytes]]:
            job = plan.command(name)  # run into OUT, which a killed run leaves as it is
            return (run_job(*job, os.path.join(folder, name)), {}) if job is not None else (-1, {})

        with ThreadPoolExecutor(jobs) as pool:
            results = dict(zip(functions, pool.map(local, functions)))
    for name, (_, files) in results.items():
        os.makedirs(os.path.join(folder, name), exist_ok=True)
        for file, data in files.items():
            with open(os.path.join(folder, name, file), "wb") as f:
                f.write(data)
    merged = SuiteWriter(os.path.join(folder, "merged-suite.zip"), task, eager=False)
    for i, name in enumerate(functions):
        suite = os.path.join(folder, name, "test-suite.zip")
        if os.path.exists(suite):
            for test in read_suite(suite):
                merged.add(TestCase(([str(i)] if len(functions) > 1 else []) + test.inputs))
    merged.publish()
    failed = {n: code for n, (code, _) in results.items() if code not in (0, 1)}
    return merged.path, {"jobs": jobs, "seconds_each": round(plan.each, 1), "functions": len(functions),
                         "tests": len(merged), "failed": failed,
                         **({"ray": args.ray} if args.ray else {})}


class Plan:
    """The jobs' budget and memory: the budget left after loading, ``SHARE`` of it for
    the jobs in waves of ``jobs``; refused when a job would get less than ``LEAST``."""

    def __init__(self, args: argparse.Namespace, functions: tuple[str, ...], started: float,
                 jobs: int) -> None:
        waves = math.ceil(len(functions) / jobs)
        left = args.budget - (time.monotonic() - started)
        self.each = SHARE * left / waves
        if self.each < LEAST:
            raise UserError(f"--per-function: {len(functions)} functions on {jobs} jobs in {left:.0f} s "
                            f"leave {self.each:.1f} s each, under {LEAST:.0f}; give --budget "
                            f"{math.ceil(args.budget - left + LEAST * waves / SHARE)} or more")
        self.memory = max(args.memory // jobs, 256)
        self.common = [sys.executable, "-m", "cooptest.cli", "generate", *program_arguments(args),
                       "--strategy", args.strategy, "--jobs", "1", "--memory", str(self.memory),
                       "--quiet"]
        self.deadline = time.monotonic() + SHARE * left + 30  # a job past its budget is stopped

    def command(self, name: str) -> tuple[list[str], float] | None:
        """The job of function ``name`` and its budget, None if too little time is left."""
        budget = min(self.each, self.deadline - 30 - time.monotonic())
        if budget < LEAST:
            return None
        return [*self.common, "--function", name, "--budget", f"{budget:.1f}"], budget


def run_job(cmd: list[str], budget: float, out: str) -> int:
    """One job, ``cmd`` (a ``generate`` without ``--out``), run into ``out``: its exit
    code (-2: stopped past its budget)."""
    try:
        return subprocess.run([*cmd, "--out", out], stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=budget + 30).returncode
    except subprocess.TimeoutExpired:
        return -2


def run_job_returning(cmd: list[str], budget: float) -> tuple[int, dict[str, bytes]]:
    """A job on a machine of a Ray cluster: run into a folder of its own there, its exit
    code and the files it wrote returned, so that it comes back whole."""
    with scratch(prefix="cooptest-job-") as out:
        code = run_job(cmd, budget, out)
        files = {}
        for name in KEPT:
            if os.path.exists(os.path.join(out, name)):
                with open(os.path.join(out, name), "rb") as f:
                    files[name] = f.read()
    return code, files
