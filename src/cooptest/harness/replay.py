"""``cooptest replay``: run the tests of a suite natively and say what each one does —
its inputs, how it ended, whether it reached the error, the goals it covers.

This is the same native run on the instrumented build that decides coverage during
generation (:class:`Executor`), so what replay prints is what the report counted; it
lets a user look at one test without TestCov, as ``klee-replay`` does for KLEE's tests.
For a program of several files, goals are placed as ``file:line`` and the goals the
tests cover are totalled per file at the end.
"""
from __future__ import annotations

import json
import os
import signal
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Iterator

from cooptest.cfa.ir import Goal
from cooptest.errors import UserError
from cooptest.frontend import load_program
from cooptest.harness.executor import Execution, Executor, starved
from cooptest.harness.runner import RunResult
from cooptest.harness.testsuite import TestCase, read_suite
from cooptest.report.files import several_files, short_names
from cooptest.scratch import scratch
from cooptest.task import Task

TIMEOUT_STATUS = 124  # what timeout(1) and a shell report for a run over its time limit
INPUTS_SHOWN = 32  # per test in the text output: a test may hold 500,000


@dataclass
class Replayed:
    test: TestCase
    execution: Execution
    goals: list[Goal]  # covered, in program order
    program_goals: Sequence[Goal] = ()  # every goal of the program (one list for all tests)
    out_of_inputs: bool = False  # the run ended reading past its inputs (``ran_out``)
    names: dict[str, str] | None = None  # the program's files as outputs name them (``report.files``)

    def document(self) -> dict[str, Any]:
        ex = self.execution
        return {"test": self.test.name, "inputs": self.test.inputs, "status": exit_status(ex),
                "ended": ended(ex, self.out_of_inputs, self.names), "exit_code": ex.exit_code,
                "signal": ex.signal,
                **({"crash": ex.crash.document(self.names)} if ex.crash is not None else {}),
                "timed_out": ex.timed_out, "error_reached": ex.error_reached,
                "covers": [g.id for g in self.goals]}


def exit_status(ex: Execution | RunResult) -> int:
    """The run's status as a shell sees it: the exit code, 128 + the signal, or 124 for a
    run stopped at its time limit."""
    if ex.timed_out:
        return TIMEOUT_STATUS
    if ex.exit_code is not None:
        return ex.exit_code
    return 128 + (ex.signal or 0)


def ended(ex: Execution, out_of_inputs: bool = False, names: dict[str, str] | None = None) -> str:
    """How the run ended, in words; ``out_of_inputs``: the run's exit code 1 is the
    harness's, for a read past the test's inputs (``ran_out``), not the program's. A run
    killed by a fault names the program's line of it (``harness.crash``), its file as
    ``names`` names it."""
    if ex.timed_out:
        return "timed out"
    if ex.exit_code is None:
        name = signal.Signals(ex.signal).name if ex.signal else "a signal"
        at = ex.crash.at(names) if ex.crash is not None else None
        why = " (an assumption failed, an assertion failed or abort() was called)" \
            if ex.signal == signal.SIGABRT else ""
        return f"killed by {name}{' at ' + at if at else ''}{why}"
    if out_of_inputs:
        return "exit code 1 (the harness's code for running out of inputs)"
    return f"exit code {ex.exit_code}"


def ran_out(ex: Execution) -> bool:
    """Whether the run ``ex`` ended because it read past its inputs: exit code 1 may
    be the harness's or the program's own ``return 1``, which the count of reads tells
    apart (the harness counts the read that found no input)."""
    return starved(ex) and ex.inputs_read is not None


def select(tests: list[TestCase], name: str | None, suite: str) -> list[TestCase]:
    if name is None:
        return tests
    wanted = name.removesuffix(".xml")
    chosen = [t for t in tests if t.name == wanted]
    if not chosen:
        raise UserError(f"no test {wanted} in the suite (it holds {len(tests)} tests)", suite)
    return chosen


def replay(task: Task, suite: str, name: str | None = None) -> Iterator[Replayed]:
    """Run the suite's tests (or the one named) natively, one after the other."""
    tests = select(read_suite(suite), name, suite)
    with scratch(prefix="cooptest-replay-") as work:
        frontend = load_program(task, work)
        executor = Executor(frontend, f"{work}/build")
        goals = frontend.program.goals()
        names = short_names([*frontend.program.files, *(g.file for g in goals if g.file)])
        for test in tests:
            ex = executor.run(test.inputs)
            yield Replayed(test, ex, [g for g in goals if g.id in ex.covered], goals,
                           ran_out(ex), names)


def describe(r: Replayed, names: dict[str, str] | None = None) -> str:
    """The lines ``cooptest replay`` prints for one test; with ``names`` (the files of a
    program of several, in order, see ``report.files``) goals are placed as file:line."""
    ex = r.execution
    order = {path: i for i, path in enumerate(names or ())}
    by_line: dict[tuple[int, int, str], list[str]] = {}
    for g in r.goals:
        file = os.path.normpath(g.file) if names and g.file else ""
        by_line.setdefault((order.get(file, len(order)), g.line, file), []).append(g.id)
    inputs = ", ".join(r.test.inputs[:INPUTS_SHOWN]) if r.test.inputs else "(none)"
    if len(r.test.inputs) > INPUTS_SHOWN:
        inputs += f", ... and {len(r.test.inputs) - INPUTS_SHOWN} more (--json lists all)"
    lines = [f"{r.test.name}: {len(r.test.inputs)} inputs: {inputs}",
             f"  ended: {ended(ex, r.out_of_inputs, r.names)}; error reached: {'yes' if ex.error_reached else 'no'}",
             f"  covers {len(r.goals)} goals: "
             + "; ".join((f"{names.get(file, file)}:{n}: " if names else f"line {n}: ") + " ".join(ids)
                         for (_, n, file), ids in sorted(by_line.items()))]
    return "\n".join(lines)


def run_replay(task: Task, suite: str, name: str | None, as_json: bool) -> int:
    results = replay(task, suite, name)
    if as_json:
        print(json.dumps([r.document() for r in results]))
    else:
        goals: Sequence[Goal] = ()
        names: dict[str, str] = {}  # none for a program of one file
        covered: set[str] = set()
        for r in results:
            if not goals:
                goals = r.program_goals
                names = {t.path: t.name for t in several_files(_statuses(goals, covered, task), task)}
            print(describe(r, names), flush=True)
            covered |= {g.id for g in r.goals}
        if names:
            print("goals covered, per file:")
            for t in several_files(_statuses(goals, covered, task), task):
                print(f"  {t.name}: {t.counts['covered']}/{t.goals}")
    return 0


def _statuses(goals: Sequence[Goal], covered: set[str], task: Task) -> Iterator[tuple[str, str]]:
    return ((g.file or task.program, "covered" if g.id in covered else "unknown") for g in goals)
