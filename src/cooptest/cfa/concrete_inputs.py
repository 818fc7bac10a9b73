"""The input sources a program reads that no option made inputs: each run had one value
of them, which a user must know to read the figures (issue: "no proof from an
unmodelled input").

A test is a sequence of ``__VERIFIER_nondet_*`` values, plus the command line, stdin
and files that ``--args``/``--sym-args``/``--sym-stdin``/``--sym-file`` made inputs
(``cooptest.environment``). Whatever else a program reads, every run of the search
and of the replay had the same value of: argv (``argc == 1``), stdin (the test's input
lines, as TestCov feeds them), a file by a name no ``--sym-file`` gave (the run's
private, empty folder), the environment, the clock, the C library's random numbers.
Goals behind such a read may be open for no fault of the search. Proofs are not at
stake here: the provers take an unknown library result for any value
(``analyses.symbolic``), concolic exhaustion is inexact at such a call, and argv is
a proof blocker of its own (``proof_blockers.argv_left_concrete``).

``left_concrete`` names each source once, at its first read in a function a run may
enter, for the panel and report.json."""
from __future__ import annotations

from dataclasses import dataclass

from cooptest.cfa import libc_model
from cooptest.cfa.calls import callee_name, callees, expressions
from cooptest.cfa.ir import CallEdge, Const, Expr, Program, StringLit, Var, variables_of
from cooptest.cfa.proof_blockers import MODEL_PREFIX, USER_MAIN, argv_left_concrete, modelled
from cooptest.harness.runner import LOCALE
from cooptest.task import Environment

ENVIRONMENT_VARIABLES = frozenset({"environ", "__environ"})


@dataclass(frozen=True)
class ConcreteInput:
    """A source the program reads whose value was the same in every run."""

    source: str  # argv | stdin | file NAME | environment | clock | random numbers
    where: str  # file:line of the first read
    value: str  # what every run had
    option: str  # what would make it an input, or "" if no option does

    def describe(self) -> dict[str, str]:
        return {"source": self.source, "where": self.where, "value": self.value,
                **({"option": self.option} if self.option else {})}

    def sentence(self) -> str:
        return (f"{self.where}: {self.source} left concrete ({self.value})"
                + (f"; {self.option} makes it an input" if self.option else ""))


def left_concrete(program: Program, env: Environment | None) -> list[ConcreteInput]:
    """The sources ``program`` reads that ``env`` did not make inputs, in the order of
    their first reads."""
    env = env or Environment()
    found: dict[str, ConcreteInput] = {}
    main = program.functions.get(USER_MAIN) or program.functions.get(program.entry)
    if env.sym_args is None and not env.args and argv_left_concrete(program) is not None \
            and main is not None:
        found["argv"] = ConcreteInput("argv", f"{main.file or program.path}:{main.line}",
                                      "argc = 1: the program's name alone",
                                      "--args or --sym-args")
    symbolic_files = {name for name, _ in env.sym_files}
    for name in sorted(callees(program, {program.entry})):
        cfa = program.functions[name]
        if modelled(name) or cfa.file in program.system_files:
            continue  # the model's own reads are of the inputs it was given; the system's are the C library's
        for edge in cfa.edges():
            where = f"{cfa.file or program.path}:{edge.line}"
            if isinstance(edge, CallEdge):
                for item in _call(program, edge, env, symbolic_files, where):
                    found.setdefault(item.source, item)
            if not ENVIRONMENT_VARIABLES.isdisjoint(
                    v.name for e in expressions(edge) for v in variables_of(e) if v.is_global):
                found.setdefault("environment", _environment(where))
    return list(found.values())


def _call(program: Program, edge: CallEdge, env: Environment, symbolic_files: set[str],
          where: str) -> list[ConcreteInput]:
    called = callee_name(edge)
    if called is None:
        return []
    model = modelled(called)
    name = called[len(MODEL_PREFIX):] if model else called
    if not model and called in program.functions:
        return []  # the program's own function of that name
    stdin = ConcreteInput("stdin", where, "the test's input lines, as TestCov feeds them; "
                          "empty for a test without inputs", "--sym-stdin N")
    source = libc_model.function(name).reads
    if source is None:
        return []
    if source.kind == "stdin" or (source.kind == "descriptor" and _is_const(edge.args[:1], 0)):
        return [] if env.sym_stdin is not None else [stdin]
    if source.kind == "stream" and edge.args and _names_stdin(edge.args[-1]):
        return [] if env.sym_stdin is not None else [stdin]
    if source.kind == "file" and source.name is not None and len(edge.args) > source.name:
        arg = edge.args[source.name]
        path = _string(arg)
        if path is not None and path in symbolic_files:
            return []
        shown = repr(path) if path is not None else "a name computed at run time"
        return [ConcreteInput(f"file {shown}", where,
                              "as the test's run finds it: relative names in an empty folder",
                              "--sym-file NAME:N")]
    if source.kind == "environment":
        return [_environment(where)]
    if source.kind == "clock":
        return [ConcreteInput("clock", where, "the time of each run", "")]
    if source.kind == "random":
        return [ConcreteInput("random numbers", where,
                              "the C library's, seeded as the program seeds them", "")]
    return []


def _environment(where: str) -> ConcreteInput:
    pinned = ", ".join(f"{name}={value}" for name, value in LOCALE.items())
    return ConcreteInput("environment", where, f"the variables cooptest itself runs with, {pinned}", "")


def _is_const(args: tuple[Expr, ...], value: int) -> bool:
    return bool(args) and isinstance(args[0], Const) and args[0].value == value


def _names_stdin(arg: Expr) -> bool:
    return any(isinstance(e, Var) and e.var.name in ("stdin", "_IO_stdin") for e in arg.walk())


def _string(arg: Expr) -> str | None:
    """The file name a literal gives (under the decay and casts around it), else None."""
    parts = list(arg.walk())
    literals = [e for e in parts if isinstance(e, StringLit)]
    if len(literals) != 1 or any(isinstance(e, Var) for e in parts):
        return None
    return literals[0].value.rstrip(b"\0").decode("utf-8", "replace")
