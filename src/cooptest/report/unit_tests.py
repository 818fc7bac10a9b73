"""``cooptest export --framework plain|cmocka``: a library's suite as the unit tests a
developer would commit (issue 43).

Each kept test becomes one test function, named after the function it calls and the
first goal it covers: it builds the arguments its inputs built (``driver.concrete``),
hands what is left of its inputs to the stubs, calls the function and asserts what the
call did when cooptest ran it — the result, every scalar or pointer of the objects it
was given that the call changed, and the library's variables it changed: a regression
oracle, which fails when a change of the library changes what the call does. What the
call did is observed, not predicted: a recorder, the same tests printing each value
before and after the call, runs once per test in cooptest's sandbox. A call that does
not return (a crash, an abort, reach_error's end, a run over the time limit) is a bug
found: its test runs the call in a child process and fails with the reason while the
call still ends so.

The export stands alone as ``export`` does: the library's files copied (``plan``),
cooptest's support beside them (``cooptest/``: the stubs, the reader of their values,
the child-process runner), and a Makefile whose ``make check`` runs the tests (compiled
with ``-Wall -Werror``; the library with its own flags) and whose ``make coverage``
reports gcovr's line and branch coverage of the library's files.
"""
from __future__ import annotations

import dataclasses
import math
import os
import re
import shlex
import shutil
import signal
from dataclasses import dataclass

from cooptest.cfa.ctype import CType, FloatType, IntType, PointerType, VoidType
from cooptest.driver import argument_values, global_values
from cooptest.driver.concrete import ConcreteWriter, OutOfInputs, leaves, literal, value_of
from cooptest.driver.library import Library, context, read_library
from cooptest.driver.values import NONDET_TYPES, ValueWriter, unqualified
from cooptest.errors import UserError
from cooptest.frontend.literals import c_string
from cooptest.frontend.preprocess import search_flags
from cooptest.harness.build import BASE_FLAGS, compile_sources, containment_source, in_standards
from cooptest.harness.coverage import TIMEOUT
from cooptest.harness.nondet import harness_source
from cooptest.harness.replay import Replayed, replay
from cooptest.harness.runner import LOCALE, Executable, RunResult
from cooptest.report.export import (FILE_OPTIONS, OWN, PATH_OPTIONS, _write, first_error, make,
                                    make_coverage, plan)
from cooptest.report.html import TEMPLATES
from cooptest.scratch import scratch
from cooptest.task import Task

FRAMEWORKS = ("plain", "cmocka")
MARK = "@@cooptest"  # the recorder's lines, among whatever the library prints
MOST_OBSERVED = 200  # values a test compares at most


@dataclass
class Check:
    """One assertion: ``actual`` equals ``expected`` (``kind`` eq), is NaN, NULL or not."""

    kind: str  # eq | nan | null | nonnull
    actual: str
    expected: str = ""


@dataclass
class UnitTest:
    name: str
    function: str
    covers: list[str]  # the goals it covers, as "file:line condition: outcome"
    setup: list[str]  # statements: the library's variables, then the arguments
    queue: list[str] | None  # the values the stubs return, as C strings (None: no stubs)
    call: str
    observed: list[tuple[str, CType]]  # what the call may change
    results: list[tuple[str, CType]]  # what it returns
    checks: list[Check] = dataclasses.field(default_factory=list)
    failure: str | None = None  # how the call ended when it did not return


def unit_tests(task: Task, suite: str, work: str) -> tuple[Library, ConcreteWriter, list[UnitTest], list[str]]:
    """The tests of ``suite`` as unit tests (their checks still empty), and the tests
    left out with the reason."""
    h = task.harness
    assert h is not None
    lib = read_library(dataclasses.replace(task, harness=None), h.functions, work)
    writer = ConcreteWriter(lib, h.max_depth, h.max_array)
    tests: list[UnitTest] = []
    skipped: list[str] = []
    seen: set[str] = set()
    names: set[str] = set()
    stubbed = bool(lib.stubbed())
    for r in replay(task, suite):
        try:
            test = _unit_test(lib, writer, h.functions, set(h.globals), r, stubbed)
        except OutOfInputs as e:
            skipped.append(f"{r.test.name}: {e}")
            continue
        new = [g for g in r.goals if g.id not in seen]
        seen |= {g.id for g in r.goals}
        test.name = _unique(f"test_{test.function}_{_slug(new[0]) if new else 'again'}", names)
        if r.execution.error_reached:
            test.failure = "reaches reach_error"
        tests.append(test)
    return lib, writer, tests, skipped


def _unit_test(lib: Library, writer: ConcreteWriter, functions: tuple[str, ...], inputs_globals: set[str],
               r: Replayed, stubbed: bool) -> UnitTest:
    inputs = list(r.test.inputs)
    if len(functions) > 1:
        if not inputs:
            raise OutOfInputs("no input chooses the function")
        function = functions[int(value_of(inputs.pop(0), "uint")) % len(functions)]
    else:
        function = functions[0]
    writer.start(inputs)
    arguments, params = argument_values(writer, lib, function)
    variables = [v for v in lib.globals_read(function) if v in inputs_globals]
    setup = global_values(writer, lib, variables) + arguments
    _, fdef = lib.definitions[function]
    ret = lib.program.functions[function].type.ret
    call = f"{function}({', '.join(params)})"
    results: list[tuple[str, CType]] = []
    if not isinstance(ret, VoidType):
        setup.append(f"  {writer.declare(unqualified(fdef.decl.type.type, lib.aliases), 'result')};")
        call = f"result = {call}"
        results = leaves("result", ret, writer.max_array)
    observed = [leaf for made in writer.objects if not made.constant
                for i in range(made.n)
                for leaf in leaves(f"*{made.name}" if made.n == 1 else f"{made.name}[{i}]",
                                   made.target, writer.max_array)]
    hidden = set(params)
    for v in lib.globals_read(function):
        if v not in hidden:
            t = next(g.type for g in lib.program.globals if g.is_global and g.source_name == v)
            observed += leaves(v, t, writer.max_array)
    queue = [c_string(v) for v in writer.inputs] if stubbed or writer.callbacks else None
    covers = [f"{os.path.basename(g.file)}:{g.line} " + (f"{_readable(g.condition)}: {'true' if g.id.endswith('T') else 'false'}"
                                                         if g.kind == "branch" else "reach_error()")
              for g in r.goals]
    return UnitTest("", function, covers, setup, queue, call, observed[:MOST_OBSERVED], results)


def _slug(goal) -> str:
    """A goal as part of a C name: ``r == 0`` taken false is ``not_r_eq_0``."""
    if goal.kind != "branch":
        return "reach_error"
    words = {"==": " eq ", "!=": " ne ", "<=": " le ", ">=": " ge ", "<": " lt ", ">": " gt ",
             "&&": " and ", "||": " or ", "!": " not ", "->": " ", ".": " ", "&": " and ", "-": " minus "}
    text = re.sub("|".join(map(re.escape, sorted(words, key=len, reverse=True))),
                  lambda m: words[m.group(0)], _readable(goal.condition))
    slug = "_".join(re.findall(r"[A-Za-z0-9]+", text))[:40].strip("_") or "branch"
    return slug if goal.id.endswith("T") else f"not_{slug}"


def _readable(condition: str) -> str:
    """A condition as the source likely spells it: NULL, not its expansion."""
    return condition.replace("((void *) 0)", "NULL").replace("((void *)0)", "NULL")


def _unique(name: str, taken: set[str]) -> str:
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}_{n}", n + 1
    taken.add(candidate)
    return candidate


# ---------------------------------------------------------------------- observing

def _show(expr: str, t: CType) -> str:
    """The recorder's statement printing ``expr``."""
    if isinstance(t, PointerType):
        return f'printf("{MARK} %d\\n", ({expr}) != 0);'
    if isinstance(t, FloatType):
        return f'printf("{MARK} %a\\n", (double)({expr}));'
    if isinstance(t, IntType) and not t.signed:
        return f'printf("{MARK} %llu\\n", (unsigned long long)({expr}));'
    return f'printf("{MARK} %lld\\n", (long long)({expr}));'


def _recorder(scope: list[str], support: list[str], tests: list[UnitTest]) -> str:
    lines = [*scope, "#include <stdio.h>", *support]
    for k, t in enumerate(tests):
        lines += [f"static void cooptest_record_{k}(void) {{", *t.setup]
        lines += [f"  {_show(e, ty)}" for e, ty in t.observed]
        if t.queue is not None:
            lines.append(f"  cooptest_use_inputs((const char *const[]){{{', '.join([*t.queue, '0'])}}});")
        lines += [f'  printf("{MARK} call\\n");', f"  {t.call};", f'  printf("{MARK} returned\\n");']
        lines += [f"  {_show(e, ty)}" for e, ty in t.observed + t.results]
        lines.append("}")
    lines += ["int main(void) {", "  unsigned k;", "  setvbuf(stdout, 0, _IONBF, 0);",
              '  if (scanf("%u", &k) != 1)', "    return 2;", "  switch (k) {",
              *(f"  case {k}: cooptest_record_{k}(); break;" for k in range(len(tests))),
              "  }", "  return 0;", "}", ""]
    return "\n".join(lines)


def _ending(run: RunResult) -> str:
    """How a call that did not return ended, as isolate.c says it."""
    if run.timed_out:
        return f"runs over {int(TIMEOUT)} s"
    if run.signal is not None:
        return f"is killed by {signal.Signals(run.signal).name}"
    return f"exits with status {run.exit_code}"


def observe(exe: Executable, k: int, test: UnitTest) -> None:
    """Run test ``k`` on the recorder; its checks are what the call changed and returned."""
    run = exe.run([str(k)], timeout=TIMEOUT)
    values = [ln[len(MARK) + 1:] for ln in run.stdout.splitlines() if ln.startswith(MARK + " ")]
    n = len(test.observed)
    if "returned" not in values:
        test.failure = (f"{test.failure}, then " if test.failure else "") + _ending(run)
        return
    at = values.index("returned")
    before, after = values[:n], values[at + 1:]
    if len(after) != n + len(test.results):
        test.failure = _ending(run)
        return
    for i, ((expr, t), value) in enumerate(zip(test.observed + test.results, after)):
        if i < n and before[i] == value:
            continue  # not written by the call
        test.checks.append(_check(expr, t, value))


def _check(expr: str, t: CType, printed: str) -> Check:
    if isinstance(t, PointerType):
        return Check("nonnull" if printed == "1" else "null", expr)
    if isinstance(t, FloatType):
        value = float.fromhex(printed)
        return Check("nan", expr) if math.isnan(value) else Check("eq", expr, literal(value, t))
    assert isinstance(t, IntType)
    return Check("eq", expr, literal(int(printed), t))


# ---------------------------------------------------------------------- the export

def export_unit_tests(task: Task, suite: str, out: str, framework: str) -> tuple[list[UnitTest], list[str]]:
    """Write the unit tests of ``suite`` into ``out``; returns them, and the tests left
    out with the reason."""
    if os.path.exists(out) and os.listdir(out):
        if not os.path.exists(os.path.join(out, "Makefile")):
            raise UserError("exists and is not an export of cooptest (no Makefile); "
                            "choose an empty or new folder", out)
        for old in ("tests", "cooptest"):
            shutil.rmtree(os.path.join(out, old), ignore_errors=True)
    h = task.harness
    assert h is not None
    copies, units = plan(task)
    harness_unit = units[-1]  # the harness's: its flags give the library's headers to the tests
    generated = os.path.dirname(h.unit.path)  # the harness's unit and code: main is the tests'
    copies = {p: placed for p, placed in copies.items() if not _inside(p, generated)}
    for path, placed in copies.items():
        os.makedirs(os.path.dirname(os.path.join(out, placed)), exist_ok=True)
        shutil.copyfile(path, os.path.join(out, placed))
    os.makedirs(os.path.join(out, "tests"), exist_ok=True)
    os.makedirs(os.path.join(out, OWN), exist_ok=True)
    with scratch(prefix="cooptest-unit-") as work:
        lib, writer, tests, skipped = unit_tests(task, suite, work)
        scope = list(dict.fromkeys(line for u in lib.units for line in context(u, lib.aliases)))
        stubs_writer = ValueWriter(lib, h.max_depth, h.max_array)
        stubs = [stubs_writer.stub(n, lib.resolve(lib.declarations[n]), lib.program.declared_functions[n])
                 for n in lib.stubbed()]
        nondets = sorted(writer.nondets | stubs_writer.nondets)
        declarations = [f"{NONDET_TYPES[n]} __VERIFIER_nondet_{n}(void);" for n in nondets]
        support = ["#include <stdlib.h>", "#include <string.h>", *declarations,
                   "void cooptest_use_inputs(const char *const *inputs);", ""]
        stubs_text = "\n".join(["/* stubs of the functions the library declares and defines in none "
                                "of its files: each returns the next value its test gave "
                                "(cooptest_use_inputs) */", *scope, *declarations, "", *stubs, ""])
        reader = harness_source({f"__VERIFIER_nondet_{n}" for n in nondets}, inputs="queue")
        _write(work, "stubs.c", stubs_text)
        _write(work, "inputs.c", reader)
        _write(work, "recorder.c", _recorder(scope, support + writer.callbacks, tests))
        exe = _build_recorder(task, work)
        try:
            for k, test in enumerate(tests):
                observe(exe, k, test)
        finally:
            exe.close()
    used = [c for c in writer.callbacks
            if any(re.search(rf"\b{re.escape(_defined(c))}\b", line) for t in tests for line in t.setup)]
    program = os.path.basename(task.program)
    context_ = {"program": program, "suite": os.path.basename(suite), "framework": framework,
                "functions": ", ".join(h.functions)}
    _write(out, os.path.join("tests", "unit_tests.c"), TEMPLATES.get_template("export/unit_tests.c.j2").render(
        tests=tests, scope=scope, support=support + used, **context_))
    _write(out, os.path.join(OWN, "stubs.c"), stubs_text)
    _write(out, os.path.join(OWN, "inputs.c"), reader)
    _write(out, os.path.join(OWN, "isolate.c"), TEMPLATES.get_template("export/isolate.c.j2").render(
        timeout=int(TIMEOUT)))
    _write(out, "CMakeLists.txt", _cmake(units[:-1], harness_unit.flags, tests, context_))
    _write(out, "Makefile", TEMPLATES.get_template("export/unit_Makefile.j2").render(
        arch_flag=task.data_model.gcc_flag, units=units[:-1], test_flags=harness_unit.flags, locale=LOCALE,
        filters=[shlex.quote(re.escape(p) + "$").replace("$", "$$") for p in copies.values()], **context_))
    return tests, skipped


def _cmake(units: list, test_flags: str, tests: list[UnitTest], context_: dict[str, str]) -> str:
    """CMakeLists.txt: the Makefile's build, each unit test a CTest test (plain)."""
    def listed(flags: str) -> list[str]:
        """The Makefile's shell words as CMake list items, their folders from the
        source folder (CMake compiles in its build folder)."""
        words = shlex.split(flags.replace("$$", "$"))
        out = []
        for i, w in enumerate(words):
            if w.startswith("-I") and len(w) > 2 and not os.path.isabs(w[2:]):
                w = "-I${CMAKE_CURRENT_SOURCE_DIR}/" + w[2:]
            elif i and words[i - 1] in PATH_OPTIONS + FILE_OPTIONS and not os.path.isabs(w):
                w = "${CMAKE_CURRENT_SOURCE_DIR}/" + w
            out.append(w.replace(";", "\\;").replace('"', '\\"'))
        return out
    return TEMPLATES.get_template("export/unit_CMakeLists.txt.j2").render(
        units=[{"source": u.source, "cmake_flags": listed(u.flags)} for u in units],
        test_flags=listed(test_flags), tests=tests, locale=LOCALE, **context_)


def _inside(path: str, folder: str) -> bool:
    return os.path.realpath(path).startswith(os.path.realpath(folder) + os.sep)


def _defined(definition: str) -> str:
    """The name a function definition defines."""
    m = re.match(r"[^(]*?(\w+)\s*\(", definition)
    assert m is not None, definition
    return m.group(1)


def _build_recorder(task: Task, work: str) -> Executable:
    objects = []
    for i, unit in enumerate(task.units[:-1]):  # the library's, without the harness
        objects.append(os.path.join(work, f"unit{i}.o"))
        flags = [f for f in search_flags(unit, task.data_model) if f != task.data_model.gcc_flag]
        compile_sources([unit.path], task.data_model, objects[-1],
                        [*BASE_FLAGS, *flags, *unit.flags, "-c", "-x", "c"])
    h = task.harness
    assert h is not None
    exe = os.path.join(work, "recorder")
    flags = [*BASE_FLAGS, *(f for f in h.unit.flags if not f.startswith("-std=") and f != "-ansi")]
    seeing_the_library = in_standards([os.path.join(work, "recorder.c"), os.path.join(work, "stubs.c")],
                                      [h.unit.dialect] * 2, task.data_model, flags, "harness")
    compile_sources([*objects, *seeing_the_library, os.path.join(work, "inputs.c"), containment_source(work)],
                    task.data_model, exe, flags)  # cooptest's runtime in its own standard
    return Executable(exe, task.data_model, trace=False)


def run_unit_export(task: Task, suite: str, out: str, framework: str) -> int:
    """Export, then ``make check`` and ``make coverage`` once, as the user would."""
    tests, skipped = export_unit_tests(task, suite, out, framework)
    failing = sum(t.failure is not None for t in tests)
    print(f"{len(tests)} {framework} unit tests written to {out} (make check, make coverage)"
          + (f"; {failing} of them fail: bugs found, each with its reason" if failing else ""))
    for line in skipped:
        print(f"  left out: {line}")
    check = make(out, "check")
    expected = {t.name for t in tests if t.failure is not None}
    failed = set(re.findall(r"^not ok \d+ - (\w+)|^\[  FAILED  \] (test_\w+)$", check.stdout, re.M))
    failed = {a or b for a, b in failed}
    if failed != expected or (check.returncode != 0) != bool(expected):
        print(f"make check: exit {check.returncode}: " + (f"unexpected failures: {', '.join(sorted(failed - expected))}"
                                                          if failed - expected else first_error(check)))
        return 1
    print("make check: " + (f"{len(tests)} passed" if not expected else
                            f"{len(tests) - len(expected)} passed, {len(expected)} failing as exported (bugs found)"))
    make_coverage(out)
    return 0
