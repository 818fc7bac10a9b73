"""``cooptest``: the command line.

    cooptest generate PROG.c|TASK.yml --budget S --out DIR [--strategy ...]
    cooptest cfa PROG.c|TASK.yml [--json] [--dot FILE]
    cooptest coverage PROG.c|TASK.yml SUITE.zip [--json]
    cooptest bench TASKS... --strategy S --budget B [--jobs J] --out DIR [--testcov]

Bad input of any kind ends with one line ``cooptest: file:line: message`` and exit code
2; an internal error with one line and exit code 3 (the traceback only with
``--debug``). A run stopped by SIGTERM/SIGINT exits with 143/130 after writing its
outputs.
"""
from __future__ import annotations

import argparse
import atexit
import json
import os
import sys
import tempfile
import time
import traceback
from typing import NoReturn, Sequence

from cooptest.cfa.ctype import DataModel
from cooptest.errors import UserError
from cooptest.task import Task, load_task

STARTED = time.monotonic()  # a budget counts from here: imports are part of the run
EXIT_USER, EXIT_INTERNAL = 2, 3
STRATEGIES = ("random", "concolic", "value", "predicate", "mgp")
SEARCHES = ("dfs", "bfs", "random-branch", "uniform-random", "cfg", "generational", "carfast", "cgs")
DEFAULT_STRATEGY, DEFAULT_SEARCH = "concolic", "cgs"
SOURCE_SUFFIXES = (".c", ".i", ".yml", ".yaml")


class Parser(argparse.ArgumentParser):
    """argparse that reports bad options as a UserError (one line, exit 2) instead of
    printing the usage and exiting on its own."""

    def error(self, message: str) -> NoReturn:
        raise UserError(f"{message} (see cooptest {self.prog.split()[-1]} --help)"
                        if " " in self.prog else f"{message} (see cooptest --help)")


def _data_model(text: str) -> DataModel:
    try:
        return DataModel(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"unknown data model {text!r} (ILP32 or LP64)") from None


MAX_BUDGET = 7 * 24 * 3600.0  # a week: beyond, a budget is a typo, not a plan


def budget_seconds(text: str) -> float:
    """A budget in seconds: finite, positive and at most MAX_BUDGET."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value <= MAX_BUDGET:  # also false for nan
        raise argparse.ArgumentTypeError(
            f"must be a number of seconds above 0 and at most {MAX_BUDGET:.0f}: {text!r}")
    return value


def positive_count(text: str) -> int:
    """A positive whole number (partitions, jobs)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def folder(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("must name a folder")
    return text


def load_target(path: str, data_model: DataModel | None = None) -> Task:
    """``load_task``, refusing files that are neither C nor a task by their name (gcc
    would take them for linker input and preprocess nothing)."""
    if os.path.isfile(path) and not path.endswith(SOURCE_SUFFIXES):
        raise UserError("not a C file or task (expected .c, .i or .yml)", path)
    return load_task(path, data_model)


def build_parser() -> Parser:
    ap = Parser(prog="cooptest", description="Test-Comp test suites for C programs by "
                "cooperating testing and verification.")
    ap.add_argument("--debug", action="store_true", help="print tracebacks of internal errors")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=Parser)

    g = sub.add_parser("generate", help="generate a test suite")
    g.add_argument("target", metavar="PROG.c|TASK.yml")
    g.add_argument("--budget", type=budget_seconds, required=True, metavar="SECONDS")
    g.add_argument("--out", type=folder, required=True, metavar="DIR")
    g.add_argument("--strategy", choices=STRATEGIES, default=DEFAULT_STRATEGY)
    g.add_argument("--search", choices=SEARCHES, default=DEFAULT_SEARCH,
                   help="search strategy of concolic testing")
    g.add_argument("--partitions", type=positive_count, default=4, help="partitions of mgp")
    g.add_argument("--seed", type=int, default=0, help="random seed")
    g.add_argument("--seed-suite", metavar="SUITE.zip", help="tests to start from")
    g.add_argument("--data-model", type=_data_model, metavar="ILP32|LP64")
    g.add_argument("--quiet", action="store_true", help="no live progress display")

    c = sub.add_parser("cfa", help="build the control-flow automaton and count it")
    c.add_argument("target", metavar="PROG.c|TASK.yml")
    c.add_argument("--json", action="store_true")
    c.add_argument("--dot", metavar="FILE", help="write the CFA as graphviz dot")
    c.add_argument("--data-model", type=_data_model, metavar="ILP32|LP64")

    v = sub.add_parser("coverage", help="branch coverage of a suite, counted as TestCov does")
    v.add_argument("target", metavar="PROG.c|TASK.yml")
    v.add_argument("suite", metavar="SUITE.zip")
    v.add_argument("--json", action="store_true")
    v.add_argument("--data-model", type=_data_model, metavar="ILP32|LP64")

    from cooptest.report.bench import add_arguments
    add_arguments(sub.add_parser("bench", help="generate and measure suites for many tasks"))
    return ap


def cmd_cfa(args: argparse.Namespace) -> int:
    from cooptest.cfa.dot import to_dot
    from cooptest.frontend import load_program
    task = load_target(args.target, args.data_model)
    with tempfile.TemporaryDirectory(prefix="cooptest-cfa-") as work:
        program = load_program(task, work).program
    counts = {"functions": len(program.functions),
              "locations": sum(len(f.locations) for f in program.functions.values()),
              "edges": sum(1 for _ in program.edges()),
              "branch_goals": 2 * len(program.branch_points),
              "error_goals": len(program.error_calls)}
    if args.dot:
        with open(args.dot, "w") as f:
            f.write(to_dot(program))
    if args.json:
        print(json.dumps(counts))
    else:
        print(", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items()))
    return 0


def cmd_coverage(args: argparse.Namespace) -> int:
    from cooptest.frontend.preprocess import preprocess
    from cooptest.harness.coverage import measure_coverage
    from cooptest.harness.testsuite import read_suite
    task = load_target(args.target, args.data_model)
    if not os.path.exists(args.suite):
        raise UserError("no such file", args.suite)
    tests = read_suite(args.suite)
    with tempfile.TemporaryDirectory(prefix="cooptest-coverage-") as work:
        result = measure_coverage(task, preprocess(task, work), tests, work)
    doc = {"coverage": round(result.percent, 2), "goals": result.goals,
           "covered": result.covered, "tests": result.tests}
    if args.json:
        print(json.dumps(doc))
    else:
        print(f"{doc['coverage']:.2f}% ({doc['covered']}/{doc['goals']} goals, {doc['tests']} tests)")
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    from cooptest.generate import Options, generate
    opts = Options(args.target, args.budget, args.out, args.strategy, args.search,
                   args.partitions, args.seed, args.seed_suite, args.data_model, args.quiet,
                   started=STARTED)
    _, code = generate(load_target(args.target, args.data_model), opts)
    return code


def cmd_bench(args: argparse.Namespace) -> int:
    from cooptest.report.bench import run_bench
    return run_bench(args)


COMMANDS = {"generate": cmd_generate, "cfa": cmd_cfa, "coverage": cmd_coverage, "bench": cmd_bench}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    try:
        args = build_parser().parse_args(argv)
        return COMMANDS[args.command](args)
    except UserError as e:
        print(f"cooptest: {e}", file=sys.stderr)
        return EXIT_USER
    except KeyboardInterrupt:
        print("cooptest: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as e:  # the user's files and folders: missing, not writable, full disk
        where = f"{e.filename}: " if e.filename else ""
        print(f"cooptest: {where}{e.strerror or e}", file=sys.stderr)
        return EXIT_USER
    except Exception as e:  # noqa: BLE001 - the last line of defence: one line, no traceback
        if debug:
            traceback.print_exc()
        where = traceback.extract_tb(e.__traceback__)[-1] if e.__traceback__ else None
        at = f" at {os.path.basename(where.filename)}:{where.lineno}" if where else ""
        print(f"cooptest: internal error: {type(e).__name__}: {e}{at}"
              f"{'' if debug else ' (rerun with --debug for the traceback)'}", file=sys.stderr)
        return EXIT_INTERNAL


def exit_now(code: int) -> NoReturn:
    """Exit without the interpreter's teardown, which frees a large program's AST object
    by object (up to a second, past the budget); exit handlers still run."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


if __name__ == "__main__":
    exit_now(main())
