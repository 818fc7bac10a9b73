"""A verification task: a C program, its data model and its coverage property.

Accepts a bare ``.c``/``.i`` file (LP64, coverage-branches) or an sv-benchmarks task
``.yml``. Where the task names a preprocessed ``.i`` that is absent, the ``.c`` it was
made from is used, as ``../shared/tools/task-info`` does.

A program may be several translation units (``Source``), each preprocessed and
compiled with its own flags and linked as the linker links them (``frontend.link``);
``Task.program`` is then the one that defines ``main`` when known, else the first.
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass

import yaml

from cooptest.cfa.ctype import DataModel
from cooptest.errors import UserError

BRANCHES = "coverage-branches"
ERROR_CALL = "coverage-error-call"
DEFAULT_STANDARD = "-std=gnu11"  # TestCov compiles every task so


@dataclass(frozen=True)
class Source:
    """One translation unit: a C file and the flags it is preprocessed and compiled
    with (``-I``, ``-D``, ``-U``, ``-include``, ``-std=`` …, paths absolute)."""

    path: str  # absolute
    flags: tuple[str, ...] = ()

    @property
    def standard(self) -> str:
        """The ``-std=`` gcc reads this unit in: the last its flags name (``-ansi`` is
        C90), else TestCov's. The dialect decides what gcc makes of the same text (the
        type of ``2147483648``, ``inline`` without ``extern``, ``//`` in C90), so every
        build and every question put to gcc about the unit uses it."""
        named = [f for f in self.flags if f.startswith("-std=") or f == "-ansi"]
        return "-std=c90" if named[-1:] == ["-ansi"] else named[-1] if named else DEFAULT_STANDARD

    @property
    def dialect(self) -> tuple[str, ...]:
        """The unit's standard and the flags it names that change what its text means
        to gcc (``SEMANTIC_FLAGS``, the last of each kind): every build compiles the
        unit with them, as the user's build does."""
        last = {SEMANTIC_FLAGS[f]: f for f in self.flags if f in SEMANTIC_FLAGS}
        return (self.standard, *sorted(last.values()))

    @property
    def unsigned_char(self) -> bool:
        """Whether plain ``char`` is unsigned in this unit (gcc's x86 default: signed)."""
        return bool({"-funsigned-char", "-fno-signed-char"} & set(self.dialect))


SEMANTIC_FLAGS = {"-funsigned-char": "char", "-fno-signed-char": "char", "-fsigned-char": "char",
                  "-fno-unsigned-char": "char", "-fwrapv": "wrapv", "-fno-strict-aliasing": "aliasing",
                  "-fcommon": "common", "-fno-common": "common", "-fno-builtin": "builtin",
                  "-ffreestanding": "freestanding", "-fsigned-bitfields": "bitfields"}
"""Flags that change what gcc makes of a unit, which cooptest models, by kind: plain
``char``'s signedness (the CFA's ``char``); ``-fwrapv``, signed overflow wrapping as
the CFA computes it; the others leave an -O0 build's semantics as the CFA has them
(aliasing, tentative definitions, which calls gcc expands itself, signed bit-fields,
gcc's default)."""


@dataclass(frozen=True)
class Environment:
    """Input sources besides ``__VERIFIER_nondet_*`` calls, under KLEE's option names:
    fixed arguments (``--args``), ``--sym-args MIN MAX N``, ``--sym-stdin N`` and
    ``--sym-file NAME:N``. Given any, the program runs in cooptest's environment model
    (``cooptest.environment``), which reads every such input byte as a nondet value."""

    args: tuple[str, ...] = ()
    sym_args: tuple[int, int, int] | None = None  # min, max, bytes each
    sym_stdin: int | None = None  # bytes
    sym_files: tuple[tuple[str, int], ...] = ()  # (name, bytes)

    def describe(self) -> dict[str, object]:
        """For report.json: what the program's inputs were."""
        return {"args": list(self.args),
                "sym_args": list(self.sym_args) if self.sym_args else None,
                "sym_stdin": self.sym_stdin,
                "sym_files": {name: n for name, n in self.sym_files}}


@dataclass(frozen=True)
class Harness:
    """A test harness cooptest wrote for functions of a library (``cooptest.driver``):
    a translation unit whose ``main`` builds each argument of a function from inputs
    and calls it, with stubs for the functions the library declares and defines
    nowhere. The library's own ``main``, if any, is renamed."""

    functions: tuple[str, ...]
    unit: Source  # the harness's translation unit, where cooptest keeps its cache
    text: str  # the harness as one C file, for the user to read and keep (OUT/harness.c)
    stubs: tuple[str, ...] = ()
    max_depth: int = 2
    max_array: int = 8
    globals: tuple[str, ...] = ()  # the library's variables made inputs before a call
    skipped: tuple[tuple[str, str], ...] = ()  # --all-functions: (function, why not)

    def describe(self) -> dict[str, object]:
        """For report.json: what was tested, and what stands in for what is missing."""
        return {"functions": list(self.functions), "stubs": list(self.stubs),
                "globals": list(self.globals), "skipped": dict(self.skipped),
                "max_depth": self.max_depth, "max_array": self.max_array, "file": "harness.c"}


@dataclass(frozen=True)
class Task:
    program: str  # absolute path of the C file (of main's, for several files)
    data_model: DataModel
    properties: tuple[str, ...]  # e.g. ("coverage-branches",)
    task_file: str | None = None
    sources: tuple[Source, ...] = ()  # every translation unit; () means (program,)
    environment: Environment | None = None  # inputs besides nondet calls, if any
    harness: Harness | None = None  # the harness of a library's functions, if any

    @property
    def units(self) -> tuple[Source, ...]:
        """The translation units of the program, in the order given, then the
        environment model's or the harness's (when the task has one)."""
        given = self.sources or (Source(self.program),)
        if self.harness is not None:
            from cooptest.driver.library import LIBRARY_FLAGS
            return (*(Source(u.path, u.flags + LIBRARY_FLAGS) for u in given), self.harness.unit)
        if self.environment is None:
            return given
        from cooptest.environment import model_flags, model_unit
        flags = model_flags()
        model = model_unit(self.environment, self.program, self.data_model)
        char = tuple(f for u in given for f in u.flags if SEMANTIC_FLAGS.get(f) == "char")  # one plain char
        return (*(Source(u.path, u.flags + flags) for u in given), Source(model.path, model.flags + char))

    @property
    def files(self) -> tuple[str, ...]:
        """The user's files (the environment model's and the harness's are cooptest's)."""
        return tuple(u.path for u in self.sources or (Source(self.program),))

    @property
    def name(self) -> str:
        """The program's name on one line: control characters of a file name (a newline
        split the summary line in two) are shown escaped."""
        name = os.path.basename(self.task_file or self.program)
        return name if name.isprintable() else name.encode("unicode_escape").decode()

    @property
    def goal_property(self) -> str:
        """The coverage property a suite is made for: error-call if that is the only one."""
        if BRANCHES not in self.properties and ERROR_CALL in self.properties:
            return ERROR_CALL
        return BRANCHES

    def __post_init__(self) -> None:
        """The CFA has one plain ``char``: units that disagree on its sign are refused
        where the task is made, not where it is first asked."""
        if len({u.unsigned_char for u in self.sources}) > 1:
            raise UserError("-funsigned-char for some translation units only: cooptest has one plain char",
                            self.program)

    @property
    def unsigned_char(self) -> bool:
        """Whether plain ``char`` is unsigned in the program (the environment model's
        unit and a harness take the program's)."""
        return any(u.unsigned_char for u in self.sources)


def load_task(path: str, data_model: DataModel | None = None) -> Task:
    """Read ``path`` (a C file or a task .yml); ``data_model`` overrides the task's."""
    _regular_file(path)
    if path.endswith((".yml", ".yaml")):
        return _load_yml(path, data_model)
    with open(path, "rb") as f:
        head = f.read(4096)
    if b"\0" in head:
        raise UserError("not a C source file (binary content)", path)
    return Task(os.path.abspath(path), data_model or DataModel.LP64, (BRANCHES,))


def _regular_file(path: str, what: str = "file") -> None:
    """A readable regular file, or a UserError: never block on a FIFO or a device."""
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        raise UserError(f"no such {what}" if isinstance(e, FileNotFoundError)
                        else f"cannot read: {e.strerror}", path) from None
    if stat.S_ISDIR(mode):
        raise UserError("is a directory, expected a C file or a task .yml", path)
    if not stat.S_ISREG(mode):
        raise UserError("not a regular file", path)


def _load_yml(path: str, data_model: DataModel | None) -> Task:
    try:
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
    except UnicodeDecodeError:
        raise UserError("not a valid task file: not UTF-8 text", path) from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise UserError(f"not a valid task file: {getattr(e, 'problem', e)}", path,
                        mark.line + 1 if mark else None) from None
    if not isinstance(doc, dict) or "input_files" not in doc:
        raise UserError("not an sv-benchmarks task: no input_files", path)
    files = doc["input_files"]
    options = doc.get("options") or {}
    if isinstance(options, dict) and str(options.get("language", "C")).upper() != "C":
        raise UserError(f"a task in language {options['language']}: cooptest tests C programs", path)
    names = files if isinstance(files, list) else [files]
    if not names or not all(isinstance(n, str) and n for n in names):
        raise UserError("not an sv-benchmarks task: input_files names no file", path)
    programs = [_input_file(path, name) for name in names]
    properties = doc.get("properties") or []
    if not isinstance(properties, list):
        raise UserError("not an sv-benchmarks task: properties is not a list", path)
    props = tuple(os.path.basename(str(p.get("property_file", ""))).removesuffix(".prp")
                  for p in properties if isinstance(p, dict))
    options = doc.get("options") or {}
    if not isinstance(options, dict):
        raise UserError("not an sv-benchmarks task: options is not a mapping", path)
    model = options.get("data_model", "ILP32")
    try:
        dm = data_model or DataModel(model)
    except (ValueError, TypeError):
        raise UserError(f"unknown data model {model!r}", path) from None
    sources = tuple(Source(p) for p in programs) if len(programs) > 1 else ()
    return Task(programs[0], dm, props or (BRANCHES,), os.path.abspath(path), sources)


def _input_file(task_file: str, name: str) -> str:
    """The absolute path of one of the task's input files, which must be C."""
    program = os.path.join(os.path.dirname(os.path.abspath(task_file)), name)
    if not os.path.exists(program) and program.endswith(".i") and os.path.exists(program[:-2] + ".c"):
        program = program[:-2] + ".c"
    if not os.path.exists(program):
        raise UserError(f"input file {name} of the task does not exist", task_file)
    if not program.endswith((".c", ".i")):
        raise UserError(f"input file {name} of the task is not a C file (.c or .i)", task_file)
    _regular_file(program, "input file")
    return program
