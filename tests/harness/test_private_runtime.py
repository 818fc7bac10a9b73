"""cooptest's runtimes call no function the program may define: a program's own
``getenv``, ``memcpy`` or ``write`` is not run before main by the containment or the
trace runtime (its goals would be credited to a run that never called it)."""
from __future__ import annotations

import subprocess

from cooptest.frontend import load_program
from cooptest.harness.executor import Executor
from cooptest.task import load_task

OWN = """#include <stddef.h>
#include <sys/types.h>
extern int __VERIFIER_nondet_int(void);
int calls;
char *getenv(const char *name) { if (name[0] == 'C') { calls++; } return 0; }
void *memcpy(void *d, const void *s, size_t n) { if (n > 0) { calls++; } return d; }
ssize_t write(int fd, const void *b, size_t n) { if (fd == 2) { calls++; } return (ssize_t)n; }
int atoi(const char *s) { if (s[0]) { calls++; } return 0; }
int main(void) { int x = __VERIFIER_nondet_int(); if (x == 3) { return 1; } return 0; }
"""


def test_the_runtimes_call_none_of_the_programs_functions(tmp_path):
    path = tmp_path / "own.c"
    path.write_text(OWN)
    frontend = load_program(load_task(str(path)), str(tmp_path / "work"))
    run = Executor(frontend, str(tmp_path / "work")).run(["3"])
    ran = {g.function for g in frontend.program.goals() if g.id in run.covered}
    assert ran == {"main"}, ran


def test_the_runtimes_link_no_library_function_by_name(tmp_path):
    """Besides the kernel's door (syscall), environ, pthread_atfork and mmap, nothing (and
    the linker's bounds of the executable, by which the trace runtime places a fault)."""
    from cooptest.harness.build import _runtime
    for name in ("contain.c", "trace_runtime.c"):
        source, obj = tmp_path / name, tmp_path / f"{name}.o"
        source.write_text(_runtime(name))
        proc = subprocess.run(["gcc", "-m64", "-std=gnu11", "-O0", "-w", "-c", str(source),
                               "-o", str(obj)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        undefined = subprocess.run(["nm", "-u", str(obj)], capture_output=True, text=True).stdout
        names = {line.split()[-1] for line in undefined.splitlines() if line.strip()}
        assert names - {"_GLOBAL_OFFSET_TABLE_"} <= {
            "syscall", "environ", "pthread_atfork", "mmap",
            "__cooptest_inputs_read", "__cooptest_inputs_early",
            "__executable_start", "__etext"}, (name, names)
