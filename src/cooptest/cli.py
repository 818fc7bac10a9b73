"""``cooptest``: the command line.

    cooptest generate PROG.c|TASK.yml [--budget S] [--out DIR] [--strategy ...]
    cooptest cfa PROG.c|TASK.yml [--json] [--dot FILE]
    cooptest coverage PROG.c|TASK.yml SUITE.zip [--json]
    cooptest bench TASKS... --strategy S --budget B [--jobs J] --out DIR [--testcov] [--ray ADDRESS]
    cooptest bench-compare BENCH_DIR BENCH_DIR... --out DIR
    cooptest report OUT [--open]
    cooptest replay PROG.c|TASK.yml SUITE.zip [TEST] [--json]
    cooptest export PROG.c|TASK.yml SUITE.zip --out DIR

Bad input of any kind ends with one line ``cooptest: file:line: message`` and exit code
2; an internal error with one line and exit code 3 (the traceback only with
``--debug``). A run stopped by SIGTERM/SIGINT exits with 143/130 after writing its
outputs.
"""
from __future__ import annotations

import argparse
import atexit
import dataclasses
import json
import os
import sys
import time
import traceback
from typing import Iterable, Mapping, NoReturn, Sequence

from cooptest.arguments import (budget_seconds, byte_count, data_model, depth, folder, jobs, memory_mb,
                                positive_count, share, sym_file)
from cooptest.core.registry import (ADDRESSES, DEFAULT_SEARCH, DEFAULT_STRATEGY, FRESH_INPUTS, LIBRARY, SEARCHES,
                                    STRATEGIES, UNCONSTRAINED)
from cooptest import __version__
from cooptest.clock import STARTED
from cooptest.errors import UserError
from cooptest.scratch import scratch
from cooptest.task import Environment, Task

DEFAULT_BUDGET, DEFAULT_OUT = 60.0, "cooptest-out"
EXIT_USER, EXIT_INTERNAL = 2, 3


class Parser(argparse.ArgumentParser):
    """argparse that reports bad options as a UserError (one line, exit 2) instead of
    printing the usage and exiting on its own."""

    commands: Mapping[str, argparse.ArgumentParser]  # the top parser's, by name

    def error(self, message: str) -> NoReturn:
        raise UserError(f"{message} (see cooptest {self.prog.split()[-1]} --help)"
                        if " " in self.prog else f"{message} (see cooptest --help)")


PROGRAM = "PROG.c...|DIR|TASK.yml"


def add_program_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments that say what the program is, the same for every command that
    takes one: its files (or a folder, a task, a compilation database) and their flags."""
    p.add_argument("target", nargs="*", metavar=PROGRAM,
                   help="the program: C files (several are linked), a folder of them, or a task .yml")
    p.add_argument("--compile-commands", metavar="FILE",
                   help="take the files and their flags from a compile_commands.json")
    p.add_argument("-I", dest="includes", action="append", default=[], metavar="DIR",
                   help="add DIR to the include path of every file")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                   help="define a macro in every file")
    p.add_argument("--cflags", metavar="FLAGS",
                   help='compiler flags for every file, e.g. "-std=gnu89 -Iinclude -DNDEBUG"')
    p.add_argument("--data-model", type=data_model, metavar="ILP32|LP64")
    e = p.add_argument_group("inputs besides __VERIFIER_nondet_* (KLEE's options; any of them "
                             "runs the program in cooptest's model of its environment)")
    e.add_argument("--args", metavar='"ARG ..."', help="fixed command-line arguments")
    e.add_argument("--sym-args", nargs=3, type=byte_count, metavar=("MIN", "MAX", "N"),
                   help="between MIN and MAX more arguments of up to N input bytes each")
    e.add_argument("--sym-stdin", type=byte_count, metavar="N", help="N input bytes on stdin")
    e.add_argument("--sym-file", action="append", default=[], type=sym_file, metavar="NAME:N",
                   help="a file of N input bytes the program opens by NAME")
    h = p.add_argument_group("a library's functions (cooptest writes the harness: OUT/harness.c)")
    h.add_argument("--function", dest="functions", action="append", default=[], metavar="NAME",
                   help="test the function NAME, its arguments made of inputs (repeatable)")
    h.add_argument("--all-functions", action="store_true",
                   help="test every function another file can call (one harness, an input "
                        "chooses the function)")
    h.add_argument("--max-depth", type=depth, default=2, metavar="N",
                   help="pointers followed at most N times from an argument, then NULL (default 2)")
    h.add_argument("--max-array", type=positive_count, default=8, metavar="N",
                   help="arrays and strings of at most N elements (default 8)")
    h.add_argument("--keep-globals", action="store_true",
                   help="the library's variables keep their initial values (default: inputs)")


def add_strategy_arguments(p: argparse.ArgumentParser, search: str | None) -> None:
    """``--strategy`` and ``--search``, the same for ``generate`` and ``bench``; each
    strategy's one-line summary (``registry.STRATEGIES``) is listed below the options,
    where a name alone would not say what runs. ``search`` is the default ``--search``
    holds (``generate`` keeps None to know whether it was given)."""
    import textwrap
    p.formatter_class = argparse.RawDescriptionHelpFormatter  # the list keeps its lines
    p.epilog = "strategies (--strategy):\n" + "\n".join(
        textwrap.fill(spec.summary, 79, initial_indent=f"  {name:<12}", subsequent_indent=" " * 14)
        for name, spec in STRATEGIES.items())
    p.add_argument("--strategy", choices=list(STRATEGIES), default=DEFAULT_STRATEGY, metavar="NAME",
                   help="what runs: one analysis or a cooperation of several (default "
                        "%(default)s; each one is listed below)")
    p.add_argument("--search", choices=SEARCHES, default=search, metavar="SEARCH",
                   help=f"search strategy of concolic testing: {', '.join(SEARCHES)} "
                        f"(default {DEFAULT_SEARCH}; crabs: {STRATEGIES['crabs'].search})")


def load_target(args: argparse.Namespace) -> Task:
    """The task of a command's program arguments (``add_program_arguments``)."""
    import dataclasses
    import shlex
    from cooptest.sources import common_flags, load_program_task
    flags = common_flags(args.includes, args.defines, args.cflags)
    task = load_program_task(args.target, args.data_model, flags, args.compile_commands)
    environment = not (args.args is None and args.sym_args is None and args.sym_stdin is None
                       and not args.sym_file)
    if args.functions or args.all_functions:
        from cooptest.driver import attach_harness
        if environment:
            raise UserError("--function makes the program's main: it takes no --args, --sym-args, "
                            "--sym-stdin or --sym-file")
        if args.functions and args.all_functions:
            raise UserError("give either --function NAME or --all-functions, not both")
        return attach_harness(task, tuple(args.functions), args.max_depth, args.max_array,
                              args.keep_globals)
    if not environment:
        return task
    try:
        fixed = tuple(shlex.split(args.args or ""))
    except ValueError as e:
        raise UserError(f"--args: {e}") from None
    low, high, _ = args.sym_args or (0, 0, 0)
    if low > high:
        raise UserError(f"--sym-args: MIN {low} is above MAX {high}")
    env = Environment(fixed, tuple(args.sym_args) if args.sym_args else None, args.sym_stdin,
                      tuple(args.sym_file))
    return dataclasses.replace(task, environment=env)


def existing(path: str) -> str:
    if not os.path.exists(path):
        raise UserError("no such file", path)
    return path


def build_parser() -> Parser:
    ap = Parser(prog="cooptest", description="Test-Comp test suites for C programs by "
                "cooperating testing and verification.")
    ap.add_argument("--debug", action="store_true",
                    help="print tracebacks of internal errors (also after the command)")
    ap.add_argument("--version", action="version", version=f"cooptest {__version__}")
    import shtab
    shtab.add_argument_to(ap, "--print-completion", help="print the completion script of a "
                          "shell, e.g. eval \"$(cooptest --print-completion bash)\"")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=Parser)

    from cooptest.cooperation.coveritest import REUSE_TYPES, TIME_PAIRS
    from cooptest.core.memory import DEFAULT_LIMIT_MB
    g = sub.add_parser("generate", help="generate a test suite")
    add_program_arguments(g)
    g.add_argument("--budget", type=budget_seconds, default=DEFAULT_BUDGET, metavar="SECONDS",
                   help="wall time of the whole run, parsing and reporting included "
                        "(default %(default)g; the run ends earlier once every goal is decided)")
    g.add_argument("--out", type=folder, default=DEFAULT_OUT, metavar="DIR",
                   help="where the suite and the reports go (default ./%(default)s)")
    add_strategy_arguments(g, None)
    g.add_argument("--partitions", type=positive_count, help="partitions of mgp (default 4)")
    g.add_argument("--partitioning", choices=("random", "size", "proximity"),
                   help="mgp: how the goals are partitioned: shuffled (the paper's best, with "
                        "4 partitions), parts of --partition-size goals, or neighbours in the "
                        "program (default)")
    g.add_argument("--partition-size", type=positive_count, metavar="K",
                   help="mgp with --partitioning size: goals per partition (default 1)")
    g.add_argument("--sequence", metavar="A:S,B:S",
                   help="coveritest: analyses and their time limits in seconds, e.g. value:20,predicate:80")
    g.add_argument("--time-pair", choices=list(TIME_PAIRS),
                   help="coveritest: the paper's value/predicate limits of a 900-s run, scaled to "
                        "the budget (default 20/80)")
    g.add_argument("--reuse", choices=REUSE_TYPES,
                   help="coveritest: what each run reuses (default reuse-arg)")
    g.add_argument("--testing-share", type=share, metavar="0..1",
                   help="crabs: the share of each round given to concolic testing (default 0.8)")
    g.add_argument("--no-monitor", action="store_true",
                   help="crabs: alternate without steering concolic search by monitors")
    g.add_argument("--frontier-order", choices=("balanced", "nearest", "found"),
                   help="bite: the paper's Algorithm 2 with the frontier edges in the order "
                        "found (found) or the R-state fewest backward steps from its goal first "
                        "(nearest), or cooptest's own: nearest first, steps taking turns by "
                        "time (balanced, the default)")
    g.add_argument("--jobs", type=jobs, metavar="N",
                   help="auto: cores to use, a lane of analyses on each (default: every core "
                        "cooptest may use, its CPU affinity)")
    g.add_argument("--fuzzer", choices=("random", "afl"),
                   help="auto: what fuzzes in the lanes' random-testing turns: cooptest's random "
                        "testing (random) or AFL++ (afl, needs afl++); the default is afl with "
                        "--seed-suite where AFL++ is installed, else random")
    g.add_argument("--parallel", action="store_true",
                   help="coveritest: run the analyses at once on the machine's cores")
    g.add_argument("--max-iterations", type=positive_count, metavar="N",
                   help="end concolic search after N native runs, as CREST's run_crest PROGRAM N "
                        "(concolic; auto: each concolic lane)")
    g.add_argument("--dfs-depth", type=positive_count, metavar="D",
                   help="--search crest-dfs: CREST's depth bound (run_crest PROGRAM N -dfs D): the "
                        "first path's search recurses into D of its negations, the i-th path's into D - i "
                        "(default CREST's 1,000,000)")
    g.add_argument("--fresh-inputs", choices=FRESH_INPUTS,
                   help="concolic search: the value of an input neither the solver nor an earlier "
                        "run chose (the first run's, and those a longer path reads): random (as CREST), "
                        "zero, or both (the default: random, and a second start from zeros)")
    g.add_argument("--unconstrained", choices=UNCONSTRAINED,
                   help="concolic search: after a negation, an input of the path that no constraint up "
                        "to the negated decision reads keeps the parent run's value (keep, the default, "
                        "as CREST's SolveAtBranch) or is a fresh input (fresh, as the CGS author's "
                        "CREST, SolveAtBranchNew)")
    g.add_argument("--addresses", choices=ADDRESSES,
                   help="concolic search: an address that depends on inputs is a term, so that reads "
                        "and writes through it are array terms (symbolic, the default), or is the run's "
                        "address, without a constraint (concrete, as CREST does)")
    g.add_argument("--library", choices=LIBRARY,
                   help="concolic search: a C library call it models (strcmp, strlen, strchr, copies) "
                        "computes terms over its arguments and the bytes it reads (symbolic, the "
                        "default), or on their values in the run, without a constraint (concrete, as "
                        "CREST, whose C library is not instrumented)")
    g.add_argument("--seed", type=int, default=0, help="random seed")
    g.add_argument("--seed-suite", metavar="SUITE.zip|INPUT",
                   help="tests to start from: a Test-Comp suite, or a CREST input file (one run's "
                        "values, one a line, as run_crest's INITIAL_INPUT)")
    g.add_argument("--per-function", action="store_true",
                   help="a library's functions (--function, --all-functions): one job per function, "
                        "--jobs at a time, then the harness of them all seeded with their tests")
    g.add_argument("--ray", metavar="ADDRESS",
                   help="--per-function: run the jobs as Ray tasks on the cluster at ADDRESS "
                        "(one CPU each; its machines see the program's files at the same paths)")
    g.add_argument("--memory", type=memory_mb, default=DEFAULT_LIMIT_MB, metavar="MB",
                   help="memory of cooptest's own processes together (default %(default)s MB; "
                        "each test has its own limit)")
    g.add_argument("--no-reduce", dest="reduce", action="store_false",
                   help="keep every test found (default: a minimal set covering every covered goal)")
    g.add_argument("--quiet", action="store_true", help="no live progress display")

    c = sub.add_parser("cfa", help="build the control-flow automaton and count it")
    add_program_arguments(c)
    c.add_argument("--json", action="store_true")
    c.add_argument("--dot", metavar="FILE", help="write the CFA as graphviz dot")

    v = sub.add_parser("coverage", help="branch coverage of a suite, counted as TestCov does")
    add_program_arguments(v)
    v.add_argument("suite", nargs="?", metavar="SUITE.zip")
    v.add_argument("--json", action="store_true")

    from cooptest.report.bench import add_arguments
    b = sub.add_parser("bench", help="generate and measure suites for many tasks")
    add_strategy_arguments(b, None)  # the strategy's own search unless given (run_bench)
    add_arguments(b)

    r = sub.add_parser("report", help="write OUT/report.html from a run's output folder")
    r.add_argument("out", metavar="OUT")
    r.add_argument("--open", action="store_true", help="open the page in a web browser")

    for name, what in (("replay", "run a suite's tests natively and say what each does"),
                       ("export", "write a suite as C unit tests with a Makefile")):
        x = sub.add_parser(name, help=what)
        add_program_arguments(x)
        x.add_argument("suite", nargs="?", metavar="SUITE.zip")
        if name == "replay":
            x.add_argument("test", nargs="?", metavar="TEST", help="only this test (its file name)")
            x.add_argument("--json", action="store_true")
        else:
            x.add_argument("--out", required=True, metavar="DIR")
            x.add_argument("--framework", choices=("plain", "cmocka"),
                           help="a library's tests (--function) as unit tests calling each function: "
                                "plain C with TAP output, or cmocka")

    bc = sub.add_parser("bench-compare", help="plots and tables of two or more bench runs")
    bc.add_argument("runs", nargs="+", metavar="BENCH_DIR")
    bc.add_argument("--out", required=True, metavar="DIR")
    ap.commands = sub.choices
    _complete_paths(ap.commands.values())
    return ap


PATHS = {"DIR": "DIRECTORY", "OUT": "DIRECTORY", "BENCH_DIR": "DIRECTORY", PROGRAM: "FILE",
         "FILE": "FILE", "SUITE.zip": "FILE", "TASK": "FILE"}
"""What the shell completes for an argument, by its metavar: folders or files (shtab's
``DIRECTORY`` and ``FILE``)."""


def _complete_paths(commands: Iterable[argparse.ArgumentParser]) -> None:
    """Let the shell complete the arguments that name files and folders as such."""
    import shtab
    for command in commands:
        for action in command._actions:  # argparse offers no public list of a parser's options
            kind = PATHS.get(action.metavar) if isinstance(action.metavar, str) else None
            if kind is not None:
                action.complete = getattr(shtab, kind)  # type: ignore[attr-defined]


def cmd_cfa(args: argparse.Namespace) -> int:
    from cooptest.cfa.dot import to_dot
    from cooptest.frontend import load_program
    from cooptest.report.definitions import GOAL
    task = load_target(args)
    with scratch(prefix="cooptest-cfa-") as work:
        program = load_program(task, work).program
    counts = {"functions": len(program.functions),
              "locations": sum(len(f.locations) for f in program.functions.values()),
              "edges": sum(1 for _ in program.edges()),
              "branch_goals": sum(g.kind == "branch" for g in program.goals()),
              "error_goals": sum(g.kind == "error-call" for g in program.goals())}
    if args.dot:
        with open(args.dot, "w") as f:
            f.write(to_dot(program))
    if args.json:
        print(json.dumps(counts))
    else:
        print(", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items())
              + f": {counts['branch_goals'] + counts['error_goals']} goals, as report.json counts them ({GOAL})")
    return 0


def cmd_coverage(args: argparse.Namespace) -> int:
    from cooptest.frontend.preprocess import preprocess
    from cooptest.harness.coverage import measure_coverage
    from cooptest.harness.testsuite import read_suite
    from cooptest.report.definitions import TESTCOV
    from cooptest.report.files import several_files
    task = load_target(args)
    tests = read_suite(existing(args.suite))
    with scratch(prefix="cooptest-coverage-") as work:
        result = measure_coverage(task, preprocess(task, work), tests, work)
    doc: dict[str, object] = {"coverage": round(result.percent, 2), "goals": result.goals,
           "covered": result.covered, "tests": result.tests}
    files = several_files(((result.goal_files.get(g) or task.program,
                            "covered" if g in result.covered_goals else "unknown")
                           for g in result.goal_lines), task)
    if files:  # a program of one file: its figure is the program's
        doc["files"] = [{"file": t.path, "coverage": t.cov_f, "goals": t.goals,
                         "covered": t.counts["covered"]} for t in files]
    if args.json:
        print(json.dumps(doc))
    else:
        print(f"{doc['coverage']:.2f}% TestCov-style coverage ({doc['covered']}/{doc['goals']} goals, "
              f"{doc['tests']} tests; {TESTCOV}, not report.json's goals)")
        for t in files:
            print(f"  {t.name}: {t.cov_f:.2f}% ({t.counts['covered']}/{t.goals} goals)")
    return 0


APPLIED = {"--search": "search", "--partitions": "partitions", "--partitioning": "partitioning",
           "--partition-size": "partition_size", "--sequence": "sequence",
           "--time-pair": "time_pair", "--reuse": "reuse", "--parallel": "parallel",
           "--testing-share": "testing_share", "--no-monitor": "no_monitor",
           "--frontier-order": "frontier_order", "--jobs": "jobs", "--fuzzer": "fuzzer",
           "--max-iterations": "max_iterations", "--dfs-depth": "dfs_depth", "--fresh-inputs": "fresh_inputs",
           "--unconstrained": "unconstrained", "--addresses": "addresses", "--library": "library"}
"""The options of a strategy (``registry.OPTIONS``) by their attribute of the parsed
command line, which is also their name in report.json's ``configuration``."""


def cmd_generate(args: argparse.Namespace) -> int:
    from cooptest.generate import Options, generate, load_within_budget
    from cooptest.core.registry import Settings, check_options
    given = {flag: getattr(args, key) for flag, key in APPLIED.items()
             if getattr(args, key) is not None and getattr(args, key) is not False}
    check_options(args.strategy, given)  # each one applies, or the run does not begin
    if args.ray and not args.per_function:
        raise UserError("--ray applies to --per-function (the jobs of a library's functions)")
    if args.ray and args.jobs is not None:
        raise UserError("--jobs applies without --ray: on a cluster, Ray runs as many jobs as it has CPUs")
    applied = {APPLIED[flag]: value for flag, value in given.items()}
    if args.config_file:
        applied["config_file"] = args.config_file
    extra: dict[str, object] = {k: applied[k] for k in ("sequence", "time_pair", "reuse", "parallel", "jobs", "fuzzer",
                                                         "no_monitor", "testing_share", "max_iterations", "dfs_depth", "fresh_inputs",
                                                         "unconstrained", "addresses", "library",
                                                         "partitioning", "partition_size")
                                if k in applied}
    if "frontier_order" in applied:
        extra["bite_order"] = applied["frontier_order"]
    if args.seed_suite:
        extra["seeded"] = True  # auto's fuzzer by default (``portfolio.chosen_fuzzer``)
    settings = Settings(args.search or STRATEGIES[args.strategy].search,
                        args.partitions or Settings().partitions, args.seed, extra)
    opts = Options(" ".join(args.target) or args.compile_commands, args.budget, args.out, args.strategy, settings, args.seed_suite,
                   args.data_model, args.quiet, args.memory, args.reduce,
                   started=STARTED, applied=applied)
    task, code = load_within_budget(lambda: load_target(args), opts)  # loading counts too
    if task is not None and args.per_function:
        if task.harness is None or args.seed_suite:
            raise UserError("--per-function runs one job per function of --function or --all-functions, "
                            "and seeds the last run with their tests (no --seed-suite)")
        from cooptest.core.parallel import usable_cores
        from cooptest.driver.jobs import per_function
        merged, record = per_function(args, task, STARTED, args.jobs or len(usable_cores()))
        opts = dataclasses.replace(opts, seed_suite=merged, applied={**opts.applied, "per_function": record})
    if task is not None:
        _, code = generate(task, opts)
    return code


def cmd_bench(args: argparse.Namespace) -> int:
    from cooptest.report.bench import run_bench
    return run_bench(args)


def cmd_report(args: argparse.Namespace) -> int:
    import webbrowser
    from cooptest.report.html import write_html_report
    path = write_html_report(args.out)
    print(path)
    if args.open:
        webbrowser.open(f"file://{os.path.abspath(path)}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from cooptest.harness.replay import run_replay
    task = load_target(args)
    return run_replay(task, existing(args.suite), args.test, args.json)


def cmd_export(args: argparse.Namespace) -> int:
    from cooptest.report.export import run_export
    task = load_target(args)
    if args.framework is None:
        return run_export(task, existing(args.suite), args.out)
    if task.harness is None:
        raise UserError("--framework writes unit tests calling a library's functions: "
                        "give --function NAME or --all-functions")
    from cooptest.report.unit_tests import run_unit_export
    return run_unit_export(task, existing(args.suite), args.out, args.framework)


def cmd_bench_compare(args: argparse.Namespace) -> int:
    from cooptest.report.compare import run_compare
    return run_compare(args.runs, args.out)


COMMANDS = {"generate": cmd_generate, "cfa": cmd_cfa, "coverage": cmd_coverage, "bench": cmd_bench,
            "report": cmd_report, "replay": cmd_replay, "export": cmd_export,
            "bench-compare": cmd_bench_compare}


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    """The command line over the defaults of the project's configuration file
    (``config``); ``args.config_file`` is the file and the values of it the command
    applies (None without any)."""
    from cooptest import config
    parser = build_parser()
    found = config.find(os.getcwd())
    if found is not None:
        config.apply(found, parser.commands)
    args = _parse(parser, argv)
    args.config_file = None
    if found is not None and (values := found.applied(args.command, args)):
        args.config_file = {"path": found.path, "values": values}
    return args


def _parse(parser: Parser, argv: list[str]) -> argparse.Namespace:
    """The command line, where a program's files may stand before, between and after
    options (``cooptest replay a.c -I inc b.c SUITE.zip``): argparse assigns
    positionals chunk by chunk, so they are gathered and assigned here."""
    args, rest = parser.parse_known_args(argv)
    if not hasattr(args, "target"):
        return parser.parse_args(argv)  # the commands without a program: argparse's own errors
    unknown = [r for r in rest if r.startswith("-") and r != "-"]
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    operands = [*args.target, *(a for a in (getattr(args, "suite", None),) if a is not None),
                *(a for a in (getattr(args, "test", None),) if a is not None), *rest]
    if not hasattr(args, "suite"):
        args.target = operands
        return args
    tail = 2 if args.command == "replay" and len(operands) >= 2 and not operands[-1].endswith(".zip") \
        and operands[-2].endswith(".zip") else 1
    if len(operands) < tail + (args.compile_commands is None):
        parser.error("the following arguments are required: PROG.c... SUITE.zip")
    args.target, args.suite = operands[:-tail], operands[-tail]
    if args.command == "replay":
        args.test = operands[-1] if tail == 2 else None
    return args


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]  # wherever it stands, as the error message says
    try:
        args = parse_arguments(argv)
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
        frame = traceback.extract_tb(e.__traceback__)[-1] if e.__traceback__ else None
        at = f" at {os.path.basename(frame.filename)}:{frame.lineno}" if frame else ""
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


def run() -> NoReturn:
    """The ``cooptest`` command: ``main``, then exit without the teardown."""
    exit_now(main())


if __name__ == "__main__":
    run()
