"""Front end: C source → preprocessed text → pycparser AST → CFA (``cooptest.cfa.ir``).

``load_program`` is the one entry point every command uses; it also keeps the AST so
that the native build can be instrumented at exactly the CFA's branch points."""
from __future__ import annotations

import os
from dataclasses import dataclass

from pycparser import c_ast, c_parser

from cooptest.cfa.ctype import Types
from cooptest.cfa.ir import Program
from cooptest.cfa.unmodelled import proof_blockers
from cooptest.errors import UserError
from cooptest.frontend import ast_cache
from cooptest.frontend.builder import CFABuilder, Instrumentation
from cooptest.frontend.attributes import Attributes
from cooptest.frontend.preprocess import attributes_of, preprocess
from cooptest.task import Task


@dataclass
class Frontend:
    """A parsed program: its CFA and what is needed to build its instrumented twin."""

    task: Task
    program: Program
    ast: c_ast.FileAST
    instrumentation: Instrumentation
    preprocessed: str  # path of the .i file pycparser read
    attributes: Attributes  # what the native build must keep of what pycparser cannot read
    instrumented: str | None = None  # C text of the instrumented twin, once made


def parse(task: Task, work_dir: str) -> tuple[c_ast.FileAST, str]:
    path = preprocess(task, os.path.join(work_dir, "pp"))
    with open(path, errors="replace") as f:
        text = f.read()
    try:
        return ast_cache.parse(text, path), path
    except c_parser.ParseError as e:
        # pycparser: "file:line:col: before: token"
        msg = str(e)
        parts = msg.split(":", 3)
        if len(parts) == 4 and parts[1].isdigit():
            raise UserError(f"not C or unsupported syntax ({parts[3].strip()})", parts[0],
                            int(parts[1])) from None
        raise UserError(f"not C or unsupported syntax ({msg})", task.program) from None
    except RecursionError:
        raise UserError("expression nesting too deep for the parser", task.program) from None


def load_program(task: Task, work_dir: str) -> Frontend:
    """Parse ``task`` and build its CFA; raises UserError on bad or unsupported input."""
    ast, path = parse(task, work_dir)
    attributes = attributes_of(path)
    builder = CFABuilder(Types(task.data_model), task.program, attributes)
    try:
        program = builder.build(ast)
    except RecursionError:
        raise UserError("expression nesting too deep", task.program) from None
    with open(task.program, "rb") as f:
        program.source_lines = f.read().count(b"\n")
    program.path = task.program
    program.proof_blockers = proof_blockers(program, attributes.destructors())
    return Frontend(task, program, ast, builder.instrumentation, path, attributes)
