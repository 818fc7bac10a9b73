"""The model of the C library (``cfa.libc_model``) as the provers read it: a write through
an argument must reach the goal's condition in the symbolic state and in weakest
preconditions, or a goal behind it looks unreachable. ``sprintf_s`` (C11 Annex K, which
glibc lacks, so no native run can show it) writes its first argument: the first model
had it writing nothing."""
from __future__ import annotations

from pathlib import Path

import z3

from cooptest.analyses.symbolic import SymbolicState
from cooptest.analyses.wp import TRUE, BackwardTransfer
from cooptest.cfa import libc_model
from cooptest.cfa.ir import AssumeEdge, CallEdge, Program
from cooptest.frontend import load_program
from cooptest.task import load_task

HEAD = """typedef unsigned long size_t;
int sprintf_s(char *buffer, size_t size, const char *format, ...);
int printf(const char *format, ...);
void *malloc(size_t size);
void free(void *p);
"""


def program_of(tmp_path: Path, body: str) -> Program:
    path = tmp_path / "p.c"
    path.write_text(HEAD + "int main(void) { " + body + " }\n")
    return load_program(load_task(str(path)), str(tmp_path / "work")).program


def condition_satisfiable(program: Program) -> bool:
    """Whether the positive branch of main's first condition is satisfiable after the
    straight-line code before it."""
    state, loc = SymbolicState(program), program.main.entry
    while not isinstance(loc.leaving[0], AssumeEdge):
        loc = state.step(loc.leaving[0])
        assert loc is not None
    positive = next(e for e in loc.leaving if isinstance(e, AssumeEdge) and e.positive)
    state.step(positive)
    solver = z3.Solver()
    solver.add(*state.path_condition)
    return solver.check() == z3.sat


def calls(program: Program) -> list[CallEdge]:
    return [e for e in program.main.edges() if isinstance(e, CallEdge)]


def test_sprintf_s_writes_its_buffer(tmp_path: Path) -> None:
    program = program_of(tmp_path, 'char buf[8] = {0}; sprintf_s(buf, 8, "%s", "a");'
                                   " if (buf[0] == 'a') return 1; return 0;")
    assert condition_satisfiable(program)
    call = calls(program)[0]
    assert libc_model.may_write(call, "sprintf_s")
    backward = BackwardTransfer(program)
    goal = next(e for e in program.main.edges() if isinstance(e, AssumeEdge) and e.positive)
    post = TRUE.conjoin(goal.cond)
    assert post is not None
    assert backward.pre(post, call) == [TRUE], "the write forgets what the goal reads"


def test_a_count_stored_by_printf_reaches_the_goal(tmp_path: Path) -> None:
    program = program_of(tmp_path, 'int n = 0; printf("ab%n", &n); if (n == 2) return 1; return 0;')
    assert condition_satisfiable(program)


def test_printf_with_a_literal_format_writes_nothing(tmp_path: Path) -> None:
    program = program_of(tmp_path, 'int n = 0; printf("%d %%n", n); if (n == 2) return 1; return 0;')
    assert libc_model.writes(calls(program)[0], "printf") == ()
    assert not condition_satisfiable(program)


def test_freed_memory_reads_unknown(tmp_path: Path) -> None:
    program = program_of(tmp_path, "int *p = malloc(8); p[0] = 5; free(p);"
                                   " if (p[0] != 5) return 1; return 0;")
    assert condition_satisfiable(program)


def test_a_format_that_may_store_makes_the_writes_unknown(tmp_path: Path) -> None:
    """Only a literal format without a ``%n`` conversion (any flags, length or position)
    writes nothing; a suffix of a literal is read as the format it is."""
    program = program_of(tmp_path, 'int n = 0; char c; const char *f = "%n";'
                                   ' printf("%-5.2ld %%n %s", 1L, "x"); printf("%hhn", &c);'
                                   ' printf("%1$n", &n); printf(&"a%%nb"[2], &n); printf(f, &n); return n;')
    assert [libc_model.writes(e, "printf") for e in calls(program)] == [(), None, None, None, None]


def test_a_buffer_lent_to_a_stream_blocks_proofs_and_none_lent_does_not(tmp_path: Path) -> None:
    """glibc writes a buffer given to ``setvbuf`` in later ``printf`` calls, which the
    model has writing nothing; turning buffering off lends nothing."""
    source = ("#include <stdio.h>\nchar buf[64];\nint main(void) { setvbuf(stdout, %s, _IOFBF, 64);"
              " buf[0] = 0; printf(\"x\"); return buf[0] == 'x'; }\n")
    verdicts = []
    for buffer in ("buf", "0"):
        path = tmp_path / f"lent_{buffer}.c"
        path.write_text(source % buffer)
        program = load_program(load_task(str(path)), str(tmp_path / f"work_{buffer}")).program
        verdicts.append(libc_model.lent_buffer(program))
    assert verdicts[0] is not None and "setvbuf" in verdicts[0] and verdicts[1] is None


def test_the_locale_calls_keep_the_programs_memory_and_fstat_writes_its_buffer(tmp_path: Path) -> None:
    """setlocale, bindtextdomain and textdomain change the C library's state only: read
    as calls that may write anything, the three grep makes before its option parsing
    made every later address of its symbolic executions unknown. fstat fills the struct
    it is given."""
    path = tmp_path / "locale.c"
    path.write_text("#include <locale.h>\n#include <libintl.h>\n#include <sys/stat.h>\n"
                    "int main(void) { char buf[2] = {0}; struct stat st; buf[0] = 7;"
                    ' setlocale(LC_ALL, ""); bindtextdomain("p", "/d"); textdomain("p");'
                    " fstat(0, &st); if (buf[0] != 7) return 1; return 0; }\n")
    program = load_program(load_task(str(path)), str(tmp_path / "work")).program
    assert not condition_satisfiable(program)
    assert [libc_model.may_write(e, e.callee) for e in calls(program)
            if isinstance(e.callee, str)] == [False, False, False, True]
