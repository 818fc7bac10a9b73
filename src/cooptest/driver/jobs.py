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
core and its share of ``--memory``; its own report stays in ``OUT/functions/NAME``.
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
from cooptest.task import Task

SHARE = 0.75  # of the budget left after loading, for the jobs; the seeded run has the rest
LEAST = 15.0  # seconds a job needs at least: its own loading counts in its budget


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
    """Run the jobs; the merged suite's path, and what report.json records of them."""
    assert task.harness is not None
    functions = task.harness.functions
    waves = math.ceil(len(functions) / jobs)
    left = args.budget - (time.monotonic() - started)
    each = SHARE * left / waves
    if each < LEAST:
        raise UserError(f"--per-function: {len(functions)} functions on {jobs} jobs in {left:.0f} s leave "
                        f"{each:.1f} s each, under {LEAST:.0f}; give --budget "
                        f"{math.ceil(args.budget - left + LEAST * waves / SHARE)} or more")
    folder = os.path.join(args.out, "functions")
    common = [*program_arguments(args), "--strategy", args.strategy, "--jobs", "1",
              "--memory", str(max(args.memory // jobs, 256)), "--quiet"]
    deadline = time.monotonic() + SHARE * left + 30  # a job that overruns its budget is stopped

    def job(name: str) -> int:
        budget = min(each, deadline - 30 - time.monotonic())
        if budget < LEAST:
            return -1
        cmd = [sys.executable, "-m", "cooptest.cli", "generate", *common, "--function", name,
               "--budget", f"{budget:.1f}", "--out", os.path.join(folder, name)]
        try:
            return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=budget + 30).returncode
        except subprocess.TimeoutExpired:
            return -2

    with ThreadPoolExecutor(jobs) as pool:
        codes = dict(zip(functions, pool.map(job, functions)))
    merged = SuiteWriter(os.path.join(folder, "merged-suite.zip"), task, eager=False)
    for i, name in enumerate(functions):
        suite = os.path.join(folder, name, "test-suite.zip")
        if os.path.exists(suite):
            for test in read_suite(suite):
                merged.add(TestCase(([str(i)] if len(functions) > 1 else []) + test.inputs))
    merged.publish()
    failed = {n: c for n, c in codes.items() if c not in (0, 1)}
    return merged.path, {"jobs": jobs, "seconds_each": round(each, 1), "functions": len(functions),
                         "tests": len(merged), "failed": failed}
