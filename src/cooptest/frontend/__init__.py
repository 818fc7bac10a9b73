"""Front end: C source → preprocessed text → pycparser AST → CFA (``cooptest.cfa.ir``).

``load_program`` is the one entry point every command uses; it also keeps the AST so
that the native build can be instrumented at exactly the CFA's branch points."""
from __future__ import annotations

import gc
import os
from dataclasses import dataclass

from pycparser import c_ast, c_parser

from cooptest.cfa.calls import callees
from cooptest.cfa.ctype import Types
from cooptest.cfa.ir import Program
from cooptest.cfa.proof_blockers import interposed, proof_blockers
from cooptest.frontend.folding import overflow_folds
from cooptest.errors import UserError
from cooptest.frontend import ast_cache
from cooptest.frontend.builder import CFABuilder, Instrumentation
from cooptest.frontend.attributes import Attributes, system_headers
from cooptest.frontend.preprocess import attributes_of, preprocess
from cooptest.task import Source, Task


@dataclass
class Unit:
    """One translation unit as parsed: the AST the CFA was built from (and that the
    native build instruments in place), and what pycparser could not read of it."""

    source: Source
    preprocessed: str  # path of the .i file pycparser read
    ast: c_ast.FileAST
    attributes: Attributes  # what the native build must keep of what pycparser cannot read


@dataclass
class Frontend:
    """A parsed program: its CFA and what is needed to build its instrumented twin."""

    task: Task
    program: Program
    units: list[Unit]
    instrumentation: Instrumentation
    instrumented: list[str] | None = None  # C text of each unit's instrumented twin, once made

    @property
    def preprocessed(self) -> list[str]:
        return [u.preprocessed for u in self.units]


def parse(path: str, source: str) -> c_ast.FileAST:
    """The pycparser AST of the preprocessed file ``path`` (of the C file ``source``);
    UserError naming the file and line of a syntax error."""
    with open(path, errors="replace") as f:
        text = f.read()
    try:
        return ast_cache.parse(text, path)
    except c_parser.ParseError as e:
        # pycparser: "file:line:col: before: token"
        msg = str(e)
        parts = msg.split(":", 3)
        if len(parts) == 4 and parts[1].isdigit():
            raise UserError(f"not C or unsupported syntax ({parts[3].strip()})", parts[0],
                            int(parts[1])) from None
        raise UserError(f"not C or unsupported syntax ({msg})", source) from None
    except RecursionError:
        raise UserError("expression nesting too deep for the parser", source) from None


def load_program(task: Task, work_dir: str) -> Frontend:
    """Parse every translation unit of ``task`` and build the CFA of the linked
    program; raises UserError on bad or unsupported input.

    The cyclic garbage collector is off meanwhile: loading makes millions of objects
    that all stay alive (the ASTs, the CFA), and each full collection walked them all,
    two thirds of a cached load of grep 2.2 (2.6 s, 0.9 s without)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _load_program(task, work_dir)
    finally:
        if enabled:
            gc.enable()


def _load_program(task: Task, work_dir: str) -> Frontend:
    units = [Unit(unit, path, parse(path, unit.path), attributes_of(path))
             for unit, path in zip(task.units, preprocess(task, os.path.join(work_dir, "pp")))]
    system: set[str] = set()
    for u in units:
        with open(u.preprocessed, errors="replace") as f:
            system |= system_headers(f.read())
    attributes = Attributes.union([u.attributes for u in units])
    builder = CFABuilder(Types(task.data_model, task.unsigned_char), task.program, attributes,
                         {u.source.path: u.source.standard for u in units})
    try:
        program = builder.build([(u.source.path, u.ast) for u in units],
                                weak={u.source.path: u.attributes.weak for u in units})
    except RecursionError:
        raise UserError("expression nesting too deep", task.program) from None
    program.source_lines = 0
    for path in task.files:
        with open(path, "rb") as f:
            program.source_lines += f.read().count(b"\n")
    program.path = program.files[0] if program.files else task.program
    env = task.environment
    program.proof_blockers = proof_blockers(program, attributes.destructors(),
                                            argv_given=env is not None and (bool(env.args) or env.sym_args is not None),
                                            erased_asm=attributes.asm, narrowed=attributes.narrowed,
                                            widened_constants=builder.widened_constants,
                                            folds={u.source.path: overflow_folds(u.source, task.data_model,
                                                                                 os.path.join(work_dir, "pp"))
                                                   for u in units})
    program.system_files = frozenset(system)
    program.unemitted = frozenset(builder.static_inline - callees(program, set(program.functions) - builder.static_inline))
    program.proof_blockers.functions.update(interposed(program, builder.internal))
    return Frontend(task, program, units, builder.instrumentation)
