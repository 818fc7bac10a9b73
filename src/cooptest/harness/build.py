"""Compiles a preprocessed program with the nondet harness (and the trace runtime).

Builds are cached by content hash in ``out_dir``: generation recompiles the same
program many times across phases and runs, and gcc is the slowest step of a short
run. The harness is a separate translation unit defining only the ``__VERIFIER_*``
functions the program uses without defining them (see ``nondet``), so programs with
their own definitions or odd prototypes still link.
"""
from __future__ import annotations

import functools
import hashlib
import os
import re
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from importlib import resources

from cooptest.cfa.ctype import DataModel
from cooptest.cfa.ir import ERROR_FUNCTIONS
from cooptest.errors import ToolMissing, UserError
from cooptest.harness.nondet import harness_source, needed_functions
from cooptest.harness.runner import Executable
from cooptest.task import DEFAULT_STANDARD

GCC = "gcc"
BASE_FLAGS = (DEFAULT_STANDARD, "-O0", "-w")
# A unit's text as the front end rewrote it spells ``inline`` and ``typeof`` where the
# program's headers spelt ``__inline`` and ``__typeof__``, which an ISO standard (C90)
# knows only under their reserved names.
RESERVED_SPELLINGS = ("-Dinline=__inline__", "-Dtypeof=__typeof__")
TRACE_FLAGS = ("-g",)  # a traced build's line table names a crash's line (harness.crash)
MULTILIB_HINT = "apt-get install -y gcc-multilib"
_GCC_ERROR = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? (?:fatal )?error: (?P<msg>.*)$",
                        re.M)
_UNDEFINED = re.compile(r"undefined reference to [`'](?P<name>[^'`]+)'")


class Undefined(UserError):
    """The link found no definition of ``function``, in the program or the C library.

    The linker names no line, and the file it names is one of cooptest's own: whoever
    built the program from its CFA says where it is called (``at``)."""

    def __init__(self, function: str, file: str | None, line: int | None = None) -> None:
        self.function = function
        if function in ERROR_FUNCTIONS:
            why = (f"{function}() is declared but not defined; define it, as Test-Comp tasks "
                   f"do: void {function}(void) {{ abort(); }}")
        else:
            why = f"{function}() is called but defined nowhere (not in the program, not in the C library)"
        super().__init__(why, file, line)

    def at(self, file: str, line: int | None) -> Undefined:
        return Undefined(self.function, file, line)


def compile_program(source_paths: str | Sequence[str], data_model: DataModel, out_dir: str,
                    trace: bool, dialects: Sequence[tuple[str, ...]] = ()) -> Executable:
    """The executable of ``source_paths`` (``gcc -E`` outputs: the translation units of
    one program, each in its C standard and with the flags that change its meaning,
    ``dialects`` (``Source.dialect``): TestCov's standard for those not given), built
    once per content."""
    paths = [source_paths] if isinstance(source_paths, str) else list(source_paths)
    texts = []
    for path in paths:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            texts.append(f.read())
    harness = harness_source(needed_functions("\n".join(texts)))
    runtime = _runtime("trace_runtime.c") if trace else ""
    flags = (*BASE_FLAGS, *TRACE_FLAGS) if trace else BASE_FLAGS
    key = hashlib.sha256("\0".join(
        [*texts, harness, runtime, _runtime("contain.c"), data_model.gcc_flag,
         *flags, *(" ".join(d) for d in dialects)]).encode(
            errors="surrogateescape")).hexdigest()[:20]
    out_dir = os.path.abspath(out_dir)  # runs happen in a private working directory
    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.splitext(os.path.basename(paths[0]))[0]
    exe = os.path.join(out_dir, f"{stem}-{key}{'-trace' if trace else ''}")
    if not os.path.exists(exe):
        sources = [*in_standards(paths, dialects, data_model, flags, f"{stem}-{key}"),
                   write_once(out_dir, "harness", harness), containment_source(out_dir)]
        if trace:
            sources.append(write_once(out_dir, "trace_runtime", runtime))
        compile_sources(sources, data_model, exe, flags)
    return Executable(exe, data_model, trace)


def in_standards(paths: Sequence[str], dialects: Sequence[tuple[str, ...]], data_model: DataModel,
                 flags: Sequence[str], prefix: str, compiler: str = GCC,
                 env: Mapping[str, str] | None = None) -> list[str]:
    """``paths`` to compile with ``flags`` and cooptest's runtime, those whose dialect
    (``dialects``, in order: a standard, then flags such as -funsigned-char) is not
    the one of ``flags`` replaced by their object, compiled on its own in that dialect
    (one gcc command reads every file in one dialect, and the runtime is plain C11).
    The object is named ``prefix`` and the file's stem (gcov names its notes after
    it), beside the file; ``compiler`` and ``env`` as ``compile_sources`` takes them."""
    out = list(paths)
    for i, (path, dialect) in enumerate(zip(paths, dialects)):
        if set(dialect) <= set(flags):
            continue
        stem = os.path.splitext(os.path.basename(path))[0]
        name = "-".join(f[len("-std="):] if f.startswith("-std=") else f[2:] for f in dialect)
        out[i] = os.path.join(os.path.dirname(path), f"{prefix}-{name}-{stem}.o")
        own = [*(f for f in flags if not f.startswith("-std=")), *dialect, *RESERVED_SPELLINGS]
        compile_sources([path], data_model, out[i], [*own, "-c"], compiler, env)
    return out


def compile_sources(sources: Sequence[str], data_model: DataModel, output: str,
                    flags: Sequence[str], compiler: str = GCC,
                    env: Mapping[str, str] | None = None) -> None:
    """``gcc`` ``sources`` into ``output`` (atomically: parallel builds may race); or
    another ``compiler`` that takes gcc's options (AFL++'s, configured by ``env``).

    Raises ``UserError`` naming the first gcc error (``file:line: message``), ``Undefined``
    for a function the link does not find, and
    ``ToolMissing`` when ``-m32`` cannot work because gcc-multilib is absent.
    """
    fd, tmp = tempfile.mkstemp(prefix=".build-", suffix=f"-{os.path.basename(output)}",  # gcov's notes
                               dir=os.path.dirname(os.path.abspath(output)))  # are named after it
    os.close(fd)
    cmd = [compiler, *flags, data_model.gcc_flag, "-o", tmp, *sources, *(() if "-c" in flags else ("-lm",))]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                              env={**(env or os.environ), "LC_ALL": "C"})  # plain quotes in messages
        if proc.returncode != 0:
            if data_model is DataModel.ILP32 and not _multilib_works():
                raise ToolMissing(f"gcc cannot build 32-bit programs; run: {MULTILIB_HINT}")
            raise _gcc_error(proc.stderr, sources[0])
        os.replace(tmp, output)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _runtime(name: str) -> str:
    """The text of one of cooptest's runtimes, with ``private_libc.h`` pasted in (the
    runtimes are compiled from copies in the build folder, beside no header)."""
    files = resources.files("cooptest.harness")
    return files.joinpath(name).read_text().replace(
        '#include "private_libc.h"\n', files.joinpath("private_libc.h").read_text())


def containment_source(out_dir: str) -> str:
    """Path of ``contain.c`` in ``out_dir``: linked into every build of a program under
    test, so that no test outlives cooptest."""
    return write_once(out_dir, "contain", _runtime("contain.c"))


def write_once(folder: str, stem: str, text: str, suffix: str = ".c") -> str:
    """``text`` in ``folder`` under a name holding its hash, written once (atomically:
    builds and runs in parallel share it); returns the path."""
    path = os.path.join(folder, f"{stem}-{hashlib.sha256(text.encode()).hexdigest()[:16]}{suffix}")
    if not os.path.exists(path):
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".src-", suffix=suffix, dir=folder)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    return path


def _gcc_error(stderr: str, default_file: str) -> UserError:
    m = _GCC_ERROR.search(stderr)
    if m:
        return UserError(m["msg"], m["file"], int(m["line"]))
    undefined = _UNDEFINED.search(stderr)
    if undefined:
        return Undefined(undefined["name"], default_file)
    lines = stderr.strip().splitlines() or ["gcc failed"]
    first = next((ln for ln in lines if "error" in ln), lines[0])
    return UserError(first.strip(), default_file)


@functools.cache
def _multilib_works() -> bool:
    proc = subprocess.run([GCC, "-m32", "-x", "c", "-o", os.devnull, "-"],
                          input="#include <stdio.h>\nint main(void){return 0;}\n",
                          capture_output=True, text=True)
    return proc.returncode == 0
