"""Branch coverage counted as TestCov 3.7 counts ``coverage-branches``.

TestCov braces every control-flow body (clang-tidy), lets its label-adder put a label
at the start of each branch, turns each label line ``Goal_N:`` into ``goto Goal_N;``
plus the label, compiles with ``--coverage`` and counts goal lines with a non-zero
gcov count. Its goals, as read off its instrumentation output, are:

* both arms of every ``if``; a missing else gets an empty one, but the else of an
  ``else if`` chain is no goal of its own (only the inner ``if``'s arms are);
* the body of every ``while``/``for`` and the point after it;
* only the point after a ``do … while`` (its body gets no label);
* every ``case``/``default`` (a switch without default gets no implicit goal);
* both arms of every ``?:`` inside a function, as statement expressions — so each
  ``assert`` (one conditional expression in the shipped assert.h) is two goals.

The denominator is not the number of labels: a goal line counts only if gcc emitted
code for it, and gcc drops unreachable blocks even at -O0 (after an endless loop, an
``abort()``, the dead arm of ``0 ? … : …``). Hence the same construct is built here
(``goto L; L:;`` on a line of its own) and gcov decides, rather than counting labels.

A run contributes only if it writes its gcov data: a normal exit (also "no more
inputs", exit 1), ``abort()``/``__assert_fail`` (TestCov dumps the counters before
them) — not a crash by another signal nor a run over the time limit.
"""
from __future__ import annotations

import json
import math
import os
import re
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from pycparser import c_ast, c_parser

from cooptest.errors import UserError
from cooptest.frontend import ast_cache
from cooptest.frontend.attributes import AttributeGenerator, system_headers
from cooptest.frontend.preprocess import attributes_of
from cooptest.harness.build import compile_sources, containment_source, in_standards
from cooptest.harness.nondet import harness_source, needed_functions
from cooptest.harness.runner import Executable
from cooptest.harness.testsuite import TestCase
from cooptest.task import DEFAULT_STANDARD, Task

TIMEOUT = 3.0  # TestCov's default time limit per test
LABEL = "__cooptest_goal_"
DUMP = "__gcov_dump"
# TestCov's compiler flags (minus -m32/-m64, added per data model; a unit's own -std= replaces
# TestCov's); -w only silences.
GCOV_FLAGS = (DEFAULT_STANDARD, "-Wno-attributes", "-D__alias__(x)=", "--coverage", "-DGCOV", "-w")
_GOTO_LINE = re.compile(rf"^\s*goto {LABEL}(\d+);\s*$")


@dataclass
class CoverageResult:
    goals: int
    covered: int
    tests: int
    covered_goals: set[int]
    goal_lines: dict[int, int] = field(default_factory=dict)  # goal id -> line in the program
    goal_files: dict[int, str] = field(default_factory=dict)  # goal id -> its source file

    @property
    def percent(self) -> float:
        """Covered goals in percent; 100 without goals, as TestCov reports it."""
        return 100.0 * self.covered / self.goals if self.goals else 100.0


def measure_coverage(task: Task, preprocessed: str | Sequence[str], tests: list[TestCase],
                     work_dir: str) -> CoverageResult:
    """Run ``tests`` on the labelled program and count goals as TestCov does."""
    result = CoverageMeter(task, preprocessed, work_dir).measure(tests)
    assert result is not None  # no deadline
    return result


class CoverageMeter:
    """The labelled program, built once: the expensive part of a measurement (parsing
    and compiling); measuring a suite then costs its native runs and one gcov.

    A program of several translation units is labelled unit by unit (goal numbers run
    on across them) and linked; gcov counts each unit's lines."""

    def __init__(self, task: Task, preprocessed: str | Sequence[str], work_dir: str) -> None:
        """Write and compile the labelled program into a new folder under ``work_dir``."""
        os.makedirs(work_dir, exist_ok=True)
        # absolute: gcov and the runs start in folders of their own (generate's work
        # folder is in OUT, relative where --out is, as the default cooptest-out)
        self.build = os.path.abspath(tempfile.mkdtemp(prefix="coverage-", dir=work_dir))
        paths = [preprocessed] if isinstance(preprocessed, str) else list(preprocessed)
        labeller = _Labeller()
        self.programs: list[str] = []
        self.goto_lines: dict[int, tuple[int, int]] = {}  # goal -> (unit, its line in the source)
        sources: list[str] = []
        for i, path in enumerate(paths):
            source = labelled_source(path, labeller)
            sources.append(source)
            self.programs.append(os.path.join(self.build, f"labelled-{i}.c" if i else "labelled.c"))
            with open(self.programs[-1], "w") as f:
                f.write(source)
            self.goto_lines.update({int(m[1]): (i, n) for n, line in enumerate(source.splitlines(), 1)
                                    if (m := _GOTO_LINE.match(line))})
        self.goal_lines, self.goal_files = labeller.lines, labeller.files
        harness = os.path.join(self.build, "harness.c")
        with open(harness, "w") as f:
            f.write(harness_source(needed_functions("\n".join(sources))))
        programs = in_standards(self.programs, [u.dialect for u in task.units], task.data_model,
                                GCOV_FLAGS, "unit")
        compile_sources([*programs, harness, containment_source(self.build)], task.data_model,
                        os.path.join(self.build, "prog"), GCOV_FLAGS)
        self.binary = Executable(os.path.join(self.build, "prog"), task.data_model, trace=False,
                                 writable=self.build)  # the runs write their counts here

    def measure(self, tests: list[TestCase], deadline: float = math.inf) -> CoverageResult | None:
        """The coverage of ``tests``; None if a run had to be stopped short of TestCov's time
        limit to end by ``deadline`` (``time.monotonic``): the count would not be TestCov's."""
        self._forget_counts()
        for test in tests:
            limit = min(TIMEOUT, deadline - time.monotonic())
            if limit <= 0 or self.binary.run(test.inputs, timeout=limit).timed_out and limit < TIMEOUT:
                return None  # each run adds its counts to the .gcda
        goals, covered = self._count()
        return self.result(goals, covered, len(tests))

    def result(self, goals: set[int], covered: set[int], tests: int) -> CoverageResult:
        return CoverageResult(len(goals), len(covered), tests, covered,
                              {g: self.goal_lines[g] for g in goals if g in self.goal_lines},
                              {g: self.goal_files[g] for g in goals if g in self.goal_files})

    def goals(self) -> set[int]:
        """TestCov's goals of the program: the labels gcc emitted code for."""
        self._forget_counts()
        return self._count()[0]

    def covered_by(self, inputs: list[str]) -> set[int]:
        """The goals one test covers, run alone (a run over TestCov's time limit, or
        killed by a signal other than abort, writes no counts and covers nothing)."""
        self._forget_counts()
        self.binary.run(inputs, timeout=TIMEOUT)
        return self._count()[1]

    def _forget_counts(self) -> None:
        for stale in os.listdir(self.build):  # counters of an earlier measurement
            if stale.endswith(".gcda"):
                os.unlink(os.path.join(self.build, stale))

    def _count(self) -> tuple[set[int], set[int]]:
        """The goals with code, and those the runs since the counts were last
        forgotten hit."""
        counts = _gcov_line_counts(self.build, self.programs)
        goals = {g for g, (unit, line) in self.goto_lines.items() if line in counts[unit]}
        return goals, {g for g in goals if counts[self.goto_lines[g][0]][self.goto_lines[g][1]] > 0}


def labelled_program(preprocessed_path: str) -> tuple[str, dict[int, int]]:
    """C text with TestCov's goal labels, and each goal's line in the original program."""
    labeller = _Labeller()
    return labelled_source(preprocessed_path, labeller), labeller.lines


def labelled_source(preprocessed_path: str, labeller: _Labeller) -> str:
    """The C text of one translation unit with ``labeller``'s goal labels."""
    with open(preprocessed_path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    try:
        ast = ast_cache.parse(text, preprocessed_path)
    except c_parser.ParseError as e:
        raise UserError(f"cannot parse for coverage measurement: {e}", preprocessed_path) from None
    system = system_headers(text)  # the C library's code, and cooptest's models: no goals
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef) and not (ext.coord and ext.coord.file in system):
            ext.body = labeller.block(ext.body)
    return f"extern void {DUMP}(void);\n" + AttributeGenerator(attributes_of(preprocessed_path)).visit(ast)


def _call_name(node: c_ast.Node) -> str | None:
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
        return node.name.name
    return None


def _dump() -> c_ast.FuncCall:
    return c_ast.FuncCall(c_ast.ID(DUMP), None)


class _Labeller:
    """Rewrites function bodies in place: TestCov's goal labels and gcov dumps."""

    def __init__(self) -> None:
        self.lines: dict[int, int] = {}
        self.files: dict[int, str] = {}

    def goal(self, at: c_ast.Node) -> list[c_ast.Node]:
        n = len(self.lines)
        self.lines[n] = at.coord.line if at.coord else 0
        self.files[n] = at.coord.file if at.coord else ""
        name = f"{LABEL}{n}"
        return [c_ast.Goto(name), c_ast.Label(name, c_ast.EmptyStatement())]

    def block(self, body: c_ast.Compound) -> c_ast.Compound:
        body.block_items = self.stmts(body.block_items or [])
        return body

    def stmts(self, items: list[c_ast.Node]) -> list[c_ast.Node]:
        return [out for s in items for out in self.stmt(s)]

    def branch(self, body: c_ast.Node) -> c_ast.Compound:
        """A branch body, braced (as clang-tidy does) and starting with a goal."""
        items = self.stmts(body.block_items or []) if isinstance(body, c_ast.Compound) else self.stmt(body)
        return c_ast.Compound(self.goal(body) + items, body.coord)

    def braced(self, body: c_ast.Node) -> c_ast.Node:
        items = self.stmt(body)
        return items[0] if len(items) == 1 else c_ast.Compound(items, body.coord)

    def stmt(self, s: c_ast.Node) -> list[c_ast.Node]:
        """The statements replacing ``s``."""
        match s:
            case c_ast.Compound():
                return [self.block(s)]
            case c_ast.If():
                s.cond = self.expr(s.cond)
                s.iftrue = self.branch(s.iftrue)
                if s.iffalse is None:
                    s.iffalse = c_ast.Compound(self.goal(s), s.coord)
                elif isinstance(s.iffalse, c_ast.If):
                    s.iffalse = self.braced(s.iffalse)  # else-if: no goal of its own
                else:
                    s.iffalse = self.branch(s.iffalse)
                return [s]
            case c_ast.While() | c_ast.For():
                if isinstance(s, c_ast.For):
                    s.init, s.next = self.expr(s.init), self.expr(s.next)
                s.cond = self.expr(s.cond)
                s.stmt = self.branch(s.stmt)
                return [s, *self.goal(s)]
            case c_ast.DoWhile():
                s.cond = self.expr(s.cond)
                s.stmt = self.braced(s.stmt)
                return [s, *self.goal(s)]
            case c_ast.Switch():
                s.cond = self.expr(s.cond)
                s.stmt = self.braced(s.stmt)
                return [s]
            case c_ast.Case() | c_ast.Default():
                s.stmts = self.goal(s) + self.stmts(s.stmts or [])
                return [s]
            case c_ast.Label():
                inner = self.stmt(s.stmt)
                s.stmt = inner[0]
                return [s, *inner[1:]]
            case c_ast.FuncCall() if _call_name(s) == "abort" and not s.args:
                return [_dump(), s]  # TestCov's add_gcov_flushes
            case _:
                return [self.expr(s)]

    def expr(self, node: c_ast.Node | None) -> c_ast.Node | None:
        """``node`` with its ``?:`` arms labelled and ``__gcov_dump()`` before each
        ``__assert_fail``; statement expressions are labelled like blocks."""
        if node is None:
            return None
        if isinstance(node, c_ast.Compound):
            return self.block(node)
        if isinstance(node, c_ast.Decl) and "static" in node.storage:
            return node  # a constant initializer; labels would not compile
        for name in node.__slots__:
            if name in ("coord", "__weakref__") or (isinstance(node, c_ast.Case) and name == "expr"):
                continue
            value = getattr(node, name)
            if isinstance(value, c_ast.Node):
                setattr(node, name, self.expr(value))
            elif isinstance(value, list):
                setattr(node, name, [self.expr(v) if isinstance(v, c_ast.Node) else v for v in value])
        if isinstance(node, c_ast.TernaryOp):
            node.iftrue = c_ast.Compound(self.goal(node.iftrue) + [node.iftrue], node.iftrue.coord)
            node.iffalse = c_ast.Compound(self.goal(node.iffalse) + [node.iffalse], node.iffalse.coord)
        if _call_name(node) == "__assert_fail":
            return c_ast.ExprList([_dump(), node], node.coord)
        return node


def _gcov_line_counts(build: str, programs: list[str]) -> list[dict[int, int]]:
    """Line → execution count of each of ``programs`` (lines with code only), from one
    run of gcov's JSON over all their notes: the live meter measures every kept test,
    and a process start per unit was most of a measurement of a program of many."""
    notes, built = [], os.listdir(build)
    for program in programs:
        # gcc names the notes after the (temporary) output and the source: *-labelled.gcno
        stem = os.path.splitext(os.path.basename(program))[0]
        mine = [os.path.join(build, n) for n in built if n.endswith(f"-{stem}.gcno")]
        if not mine:
            raise UserError("gcc produced no coverage notes", program)
        notes.append(mine[0])
    proc = subprocess.run(["gcov", "--json-format", "--stdout", *notes], cwd=build, capture_output=True, text=True)
    unit = {os.path.basename(p): i for i, p in enumerate(programs)}
    counts: list[dict[int, int]] = [{} for _ in programs]
    for chunk in proc.stdout.splitlines():
        if not chunk.strip():
            continue
        for f in json.loads(chunk).get("files", []):
            i = unit.get(os.path.basename(f["file"]))
            if i is None:  # a header the unit includes
                continue
            for line in f["lines"]:
                n = line["line_number"]
                counts[i][n] = max(counts[i].get(n, 0), line["count"])
    return counts
