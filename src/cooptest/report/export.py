"""``cooptest export``: a Test-Comp suite as plain C unit tests a user can keep in their
own repository — one C file per test holding its inputs, the nondet harness reading
them instead of stdin, a Makefile whose ``make check`` runs them all and whose
``make coverage`` draws gcovr's line-coverage HTML of the program.

Each test is first run as TestCov runs it (the program as written, built with the stdin
harness): the status it ends with is written into ``tests/expected``, so ``make check``
fails when a change of the program changes how a test ends — and when the exported test
does not do what its XML does. A test that reaches the error is the opposite: a bug
found, expected *not* to end as it does (marked ``error`` in ``tests/expected``), so
``make check`` fails on it, naming its inputs, until the program is fixed; a passing
``make check`` never hides a reachable error. The harness is TestCov's, reading the same literals with
the same ``sscanf`` formats, only from the test's array instead of stdin. (The status
is not taken from the instrumented build that decides coverage: for a program that reads
uninitialised memory the two builds may end differently.) The instrumented replay
(``harness.replay``) tells whether the test reaches the error and what it covers.

The export stands alone: it holds every file the build reads but the C library's and
the compiler's headers — each translation unit and each project header it includes
(``gcc -M``, with the unit's flags), laid out as they are relative to the folder they
share, and cooptest's own headers (``assert.h``, ``crest.h``, the environment model)
under ``cooptest/`` — and the Makefile compiles each unit with its own flags, their
folders rewritten to the copies. So ``make check`` works in a copy of the folder on
another machine with gcc; gcovr counts every project file, headers included.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from importlib import resources

from cooptest.errors import UserError
from cooptest.frontend.literals import c_string
from cooptest.frontend.preprocess import dependencies, preprocess, search_flags, system_folders
from cooptest.harness.coverage import TIMEOUT
from cooptest.harness.nondet import harness_source, needed_functions
from cooptest.harness.build import BASE_FLAGS, compile_sources, containment_source
from cooptest.harness.replay import Replayed, ended, exit_status, replay
from cooptest.harness.runner import LOCALE, Executable
from cooptest.report.files import common_folder
from cooptest.report.html import TEMPLATES
from cooptest.scratch import scratch
from cooptest.task import Task

HARNESS = "cooptest_harness.c"
OWN = "cooptest"  # the folder of cooptest's own files in an export
# the export's own names: a project file named so goes under src/ with all the others
RESERVED = {"Makefile", "tests", "build", "cov", "coverage", HARNESS, OWN}
PATH_OPTIONS = ("-I", "-iquote", "-isystem", "-idirafter")  # options naming a folder searched
FILE_OPTIONS = ("-include", "-imacros")  # options naming a file read
ERROR_FAILURE = "reaches the error"  # make check's words for a test that finds a bug
_MAKE_UNSAFE = re.compile(r"[\s$#:%*?\[\]\\;'\"|&<>(){}`=]")  # what a Makefile's file name cannot hold


@dataclass
class Unit:
    """How the Makefile builds one translation unit (paths relative to the export)."""

    source: str
    object: str  # under $(BUILD)
    depends: list[str]  # the files it reads, itself first
    flags: str  # for the shell, escaped for make


@dataclass
class Layout:
    """Where the files of a program's build go in its export: a project file at its path
    relative to the folder the project's files share (``base``/ before it where one of
    them would take a name of the export's own), cooptest's files under ``cooptest/``;
    the C library's and the compiler's headers are not copied (None)."""

    root: str
    base: str
    system: tuple[str, ...]
    own: tuple[str, ...]  # cooptest's files: the harness package, the environment or harness unit

    def generated(self, path: str) -> str | None:
        """The folder of a unit cooptest wrote (the environment model, a library's
        harness) that ``path`` is in: the unit and what it includes from beside it
        (a harness's code, under ``include/``)."""
        return next((d for d in map(os.path.dirname, self.own[1:]) if _under(path, (d,))), None)

    def place(self, path: str) -> str | None:
        if _under(path, self.system):
            return None
        if _under(path, self.own[:1]):
            return os.path.join(OWN, os.path.relpath(path, self.own[0]))
        folder = self.generated(path)
        if folder is not None:
            return os.path.join(OWN, os.path.relpath(path, folder))
        return os.path.join(self.base, os.path.relpath(path, self.root))

    def folder(self, path: str, placed: list[str]) -> str | None:
        """A folder searched for headers, in the export's terms: None where it holds no
        copied file (nothing is read from it), itself where it is outside the project."""
        if _under(path, self.own[:1]):
            inside = os.path.join(OWN, os.path.relpath(path, self.own[0]))
        elif (folder := self.generated(path)) is not None:  # the environment's, a harness's
            inside = os.path.normpath(os.path.join(OWN, os.path.relpath(path, folder)))
        elif _under(path, (self.root,)):
            inside = os.path.normpath(os.path.join(self.base, os.path.relpath(path, self.root)))
        else:
            return path  # the system's: the same on every machine
        return inside if any(inside == "." or p.startswith(inside + os.sep) for p in placed) else None


def plan(task: Task) -> tuple[dict[str, str], list[Unit]]:
    """The files an export copies (absolute path -> path in the export) and how the
    Makefile builds each unit: from ``gcc -M`` of each unit with its flags."""
    model = task.data_model
    read = {u: dependencies(u, model) for u in task.units}
    system = system_folders(model)
    own = (str(resources.files("cooptest.harness")),
           *(os.path.normpath(u.path) for u in task.units if u.path not in task.files))
    layout = Layout("", "", system, own)
    project = [p for files in read.values() for p in files
               if not _under(p, system) and not _under(p, own[:1]) and layout.generated(p) is None]
    root = common_folder(project)
    base = "src" if any(os.path.relpath(p, root).split(os.sep)[0] in RESERVED for p in project) else ""
    layout = Layout(root, base, system, own)
    copies = {p: placed for files in read.values() for p in files if (placed := layout.place(p))}
    for placed in copies.values():
        if _MAKE_UNSAFE.search(placed):
            raise UserError("a Makefile cannot name this file (blank or special character in "
                            "its path); rename it to export", placed)
    units = []
    for unit in task.units:
        flags = _flags([f for f in search_flags(unit, model) if f != model.gcc_flag] + list(unit.flags),
                       layout, copies)
        source = copies[os.path.normpath(unit.path)]
        units.append(Unit(source, f"program/{source}.o",
                          [copies[p] for p in read[unit] if p in copies],
                          " ".join(shlex.quote(f).replace("$", "$$") for f in flags)))
    return copies, units


def _under(path: str, folders: tuple[str, ...]) -> bool:
    real = os.path.realpath(path)
    return any(real == f or real.startswith(f.rstrip(os.sep) + os.sep)
               for f in map(os.path.realpath, folders))


def _flags(flags: list[str], layout: Layout, copies: dict[str, str]) -> list[str]:
    """``flags`` with the folders and files they name in the export's terms (a folder
    nothing is read from is left out)."""
    out: list[str] = []
    placed = list(copies.values())
    i = 0
    while i < len(flags):
        flag = flags[i]
        option = next((o for o in PATH_OPTIONS + FILE_OPTIONS if flag == o or
                       (o == "-I" and flag.startswith(o))), None)
        if option is None:
            out.append(flag)
        else:
            value = flag[len(option):] or (flags[i + 1] if i + 1 < len(flags) else "")
            i += 0 if flag != option else 1
            path = os.path.normpath(value)
            mapped = (copies.get(path, path) if option in FILE_OPTIONS
                      else layout.folder(path, placed))
            if mapped is not None:
                out += [f"{option}{mapped}"] if option == "-I" else [option, mapped]
        i += 1
    return out


def plain_build(task: Task, work: str, needed: set[str]) -> Executable:
    """The program as the Makefile builds it (each unit from its file, with its flags,
    which may matter to the code: ``-funsigned-char``, ``-std=gnu89``), linked with
    TestCov's stdin harness (defining the ``needed`` functions): how a test ends on it
    is what ``make check`` expects."""
    objects = []
    for i, unit in enumerate(task.units):
        objects.append(os.path.join(work, f"unit{i}.o"))
        flags = [f for f in search_flags(unit, task.data_model) if f != task.data_model.gcc_flag]
        compile_sources([unit.path], task.data_model, objects[-1],
                        [*BASE_FLAGS, *flags, *unit.flags, "-c", "-x", "c"])
    harness = os.path.join(work, "harness.c")
    with open(harness, "w") as f:
        f.write(harness_source(needed))
    exe = os.path.join(work, "plain")
    compile_sources([*objects, harness, containment_source(work)], task.data_model, exe, BASE_FLAGS)
    return Executable(exe, task.data_model, trace=False)


def _needed(task: Task, work: str) -> set[str]:
    """The ``__VERIFIER_*`` functions the program uses and defines nowhere."""
    texts = []
    for path in preprocess(task, os.path.join(work, "pp")):
        with open(path, errors="replace") as f:
            texts.append(f.read())
    return needed_functions("\n".join(texts))


def export(task: Task, suite: str, out: str) -> int:
    """Write the unit tests of ``suite`` into ``out`` (see the module docstring); returns
    how many."""
    if os.path.exists(out) and os.listdir(out):
        if not os.path.exists(os.path.join(out, "Makefile")):
            raise UserError("exists and is not an export of cooptest (no Makefile); "
                            "choose an empty or new folder", out)
        shutil.rmtree(os.path.join(out, "tests"), ignore_errors=True)
    copies, units = plan(task)
    os.makedirs(os.path.join(out, "tests"), exist_ok=True)
    for path, placed in copies.items():
        os.makedirs(os.path.dirname(os.path.join(out, placed)), exist_ok=True)
        shutil.copyfile(path, os.path.join(out, placed))
    program = copies.get(os.path.normpath(task.program), os.path.basename(task.program))
    context = {"program": program, "suite": os.path.basename(suite)}
    expected = []
    replayed = list(replay(task, suite))
    with scratch(prefix="cooptest-export-") as work:
        needed = _needed(task, work)
        _write(out, HARNESS, harness_source(needed, inputs="array"))
        plain = plain_build(task, work, needed)
        for r in replayed:
            status = exit_status(plain.run(r.test.inputs, timeout=TIMEOUT))
            _write(out, os.path.join("tests", f"{r.test.name}.c"), _test_file(r, status, context))
            # a test reaching the error is a bug found: expected not to end as it does
            expected.append(f"{r.test.name} {status}{' error' if r.execution.error_reached else ''}\n")
    _write(out, os.path.join("tests", "expected"), "".join(expected))
    project = [p for p in copies.values() if not p.startswith(OWN + os.sep)]
    _write(out, "Makefile", TEMPLATES.get_template("export/Makefile.j2").render(
        arch_flag=task.data_model.gcc_flag, timeout=int(TIMEOUT), units=units, locale=LOCALE,
        filters=[shlex.quote(re.escape(p) + "$").replace("$", "$$") for p in project], **context))
    return len(replayed)


def _test_file(r: Replayed, status: int, context: dict[str, str]) -> str:
    return TEMPLATES.get_template("export/test.c.j2").render(
        name=r.test.name, inputs=[c_string(v) for v in r.test.inputs], status=status,
        ended=ended(r.execution, r.out_of_inputs, r.names), error_reached=r.execution.error_reached,
        goals=len(r.goals),
        **context)


def _write(out: str, name: str, text: str) -> None:
    with open(os.path.join(out, name), "w") as f:
        f.write(text)


def make(out: str, target: str) -> subprocess.CompletedProcess:
    """``make -C out target`` with this Python's gcovr."""
    try:
        return subprocess.run(["make", "--no-print-directory", "-C", out, target,
                               f"GCOVR={sys.executable} -m gcovr"],
                              capture_output=True, text=True, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise UserError("make is not installed; run: apt-get install -y make") from None


def make_coverage(out: str) -> None:
    """``make coverage`` in an exported tree, and gcovr's line and branch figures."""
    coverage = make(out, "coverage")
    if coverage.returncode != 0:
        raise UserError(f"make coverage failed: {first_error(coverage)}", out)
    summary = [ln for ln in coverage.stdout.splitlines() if ln.startswith(("lines:", "branches:"))]
    print("make coverage: " + "; ".join(summary) + f" ({os.path.join(out, 'coverage', 'index.html')})")


def first_error(proc: subprocess.CompletedProcess) -> str:
    """What made a make fail: the first error of the compiler or linker it ran
    (``lib/ring.h:5:3: error: …``), not make's ``*** [Makefile:29: …] Error 1`` after it,
    which names a rule and hides the cause; make's own last line where no tool said more."""
    lines = [ln.strip() for ln in proc.stderr.splitlines() if ln.strip()]
    tool = [ln for ln in lines if not re.match(r"make(\[\d+\])?: ", ln)]
    cause = next((ln for ln in tool if re.search(r"\berror:|undefined reference", ln)), None)
    return cause or (lines or proc.stdout.strip().splitlines() or ["no output"])[-1]


def run_export(task: Task, suite: str, out: str) -> int:
    """Export, then run ``make check`` and ``make coverage`` once as the user would."""
    tests = export(task, suite, out)
    print(f"{tests} tests written to {out} (make check, make coverage)")
    check = make(out, "check")
    lines = check.stdout.splitlines()
    tally = [ln for ln in lines if ln.endswith(" failed")]
    print("make check: " + (tally[-1] if tally else f"exit {check.returncode}: {first_error(check)}"))
    failed = [ln for ln in lines if ln.startswith("FAIL ")]
    for line in failed:
        print("  " + line)
    if check.returncode != 0 and (not tally or any(ERROR_FAILURE not in ln for ln in failed)):
        return 1  # a test the export got wrong, not only the program's bugs it found
    if failed:
        print(f"  {len(failed)} of them {'reaches' if len(failed) == 1 else 'reach'} the error: a bug "
              "of the program, found with the inputs named (make check fails until it is fixed)")
    make_coverage(out)
    return 0
