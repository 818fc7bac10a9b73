"""gcc is the authority on initialisers: every byte of every object a brace-enclosed
list initialises (anonymous struct and union members, designators into them and into
nested members, brace elision across members, arrays of structs without inner braces),
static and automatic, as gcc's build has it against cooptest's CFA, read back through
``unsigned char`` by the symbolic execution of a native run (a divergence is a byte the CFA
gives another value)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from cooptest.analyses.concolic.solver import Symbols
from cooptest.analyses.concolic.symbolic_execution import TermMemo, execute_symbolically
from cooptest.cfa.ctype import DataModel
from cooptest.frontend import load_program
from cooptest.harness.executor import Executor
from cooptest.task import load_task

TYPES = """struct S { int tag; union { int i; float f; }; };
struct T { int a; struct { short p, q; }; int b; };
struct U { char c; union { struct { char x, y; }; int w; }; char d; };
struct V { int k[2]; union { long l; char z; }; int m; };
struct N { struct { int p, q, r; } a; int b; };
struct P { short x, y; };
"""
OBJECTS = [  # (declarator, @ for the name's first letter; initialiser)
    ("struct S @1", "{ 1, { 2 } }"), ("struct S @2", "{ .i = 3 }"),
    ("struct S @3", "{ .tag = 4, .f = 1.5f }"), ("struct S @4", "{ 5, 6 }"),
    ("struct T @5", "{ 1, 2, 3, 4 }"), ("struct T @6", "{ .q = 9, 10 }"),
    ("struct T @7", "{ 5, { 6, 7 }, 8 }"), ("struct T @8", "{ .p = 1, 2, 3 }"),
    ("struct U @9", "{ 'a', 'b', 'c', 'd' }"), ("struct U @10", "{ .y = 5, 6 }"),
    ("struct U @11", "{ 1, { { 2, 3 } }, 4 }"), ("struct U @12", "{ .w = 0x01020304, 9 }"),
    ("struct V @13", "{ 1, 2, 3, 4 }"), ("struct V @14", "{ { 1 }, .z = 7, 8 }"),
    ("struct N @15", "{ .a.q = 5, 6, 7 }"), ("struct N @16", "{ 1, 2, 3, 4 }"),
    ("struct P @17[]", "{ 1, 2, 3, 4, 5 }"), ("int @18[2][3]", "{ [1][0] = 7, 8, [0][2] = 9 }"),
    ("struct P @19[3]", "{ [1].y = 4, 5, 6 }"), ("struct { int a[2]; int b; } @20", "{ 1, 2, 3 }"),
    ("char @21[2][4]", "{ \"ab\", \"cd\" }"), ("struct { char s[4]; int n; } @22", "{ \"xyz\", 5 }"),
]


def source(checks: list[list[int]] | None) -> str:
    """The objects, static (``g``) and automatic (``l``), and a main that prints their
    bytes (``checks`` None) or compares each with gcc's."""
    lines = [TYPES, "#include <stdio.h>"]
    body = []
    for n, (declarator, init) in enumerate(OBJECTS):
        lines.append(f"{declarator.replace('@', 'g')} = {init};")
        body.append(f"  {declarator.replace('@', 'l')} = {init};")
    body.append("  const unsigned char *b;")
    for n, (declarator, _) in enumerate(OBJECTS):
        for scope in "gl":
            name = declarator.replace('@', scope).split()[-1].split("[")[0]
            body.append(f"  b = (const unsigned char *)&{name};")
            if checks is None:
                body.append(f'  for (unsigned k = 0; k < sizeof {name}; k++) printf("%u ", b[k]); printf("\\n");')
            else:
                expected = checks[2 * n + "gl".index(scope)]
                body += [f"  if (b[{k}] != {v}) {{ wrong++; }}" for k, v in enumerate(expected)]
    return "\n".join(lines + ["int wrong;", "int main(void) {", *body, "  return 0;", "}", ""])


@pytest.mark.parametrize("model", [DataModel.LP64, DataModel.ILP32], ids=lambda m: m.value)
def test_every_initialised_byte_is_gccs(tmp_path: Path, model: DataModel) -> None:
    probe = tmp_path / "probe.c"
    probe.write_text(source(None))
    subprocess.run(["gcc", "-w", model.gcc_flag, str(probe), "-o", str(tmp_path / "probe")], check=True)
    out = subprocess.run([str(tmp_path / "probe")], capture_output=True, text=True, check=True).stdout
    checks = [[int(b) for b in line.split()] for line in out.splitlines()]
    assert len(checks) == 2 * len(OBJECTS)
    program = tmp_path / "initialisers.c"
    program.write_text(source(checks))
    fe = load_program(load_task(str(program), model), str(tmp_path / "work"))
    execution = Executor(fe, str(tmp_path / "build")).run([])
    wrong = sorted(g for g in execution.covered if g.endswith("T"))
    assert not wrong, "gcc's build of the original disagrees with itself"
    path = execute_symbolically(fe.program, execution, Symbols(), TermMemo(), set())
    assert path.divergences == 0, "a byte cooptest initialises otherwise than gcc"
    assert path.trace == list(execution.decisions())
