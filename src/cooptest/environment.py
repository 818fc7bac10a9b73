"""The environment model: a program's command line, stdin and named files made of
inputs, under KLEE's option names, as a translation unit of C linked with it.

KLEE runs a program under its POSIX runtime, whose ``main`` makes the arguments and
files symbolic and then calls the program's. cooptest does the same in C
(``harness/environment/cooptest_env.h``): the program's ``main`` is renamed
(``-Dmain=__cooptest_main``), the model's ``main`` reads every input byte with
``__VERIFIER_nondet_uchar()``/``_char()`` and calls it, and each of the program's files
is compiled with ``-include cooptest_io.h``, which makes the C library's input
functions and ctype classifiers the model's. So the CFA, the native build and every
analysis see the same code; a test is still a sequence of nondet values (the
Test-Comp format), reproduced by any command given the same options. The model is
included from a system folder: its branches are no goals.
"""
from __future__ import annotations

import hashlib
import os
import tempfile

from cooptest.cfa.ctype import DataModel
from cooptest.frontend.ast_cache import cache_dir
from cooptest.frontend.preprocess import harness_headers as model_dir
from cooptest.task import Environment, Source

MAX_BYTES = 1 << 16  # per argument, stdin or file: beyond, a test would not be a test


def model_flags() -> tuple[str, ...]:
    """The flags of each of the program's own files."""
    return ("-Dmain=__cooptest_main", "-include", os.path.join(model_dir(), "cooptest_io.h"))


def c_string(text: str) -> str:
    out = []
    for byte in text.encode("utf-8", errors="surrogateescape"):
        out.append(chr(byte) if 0x20 <= byte < 0x7F and chr(byte) not in '\\"?' else f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def model_source(env: Environment, program: str) -> str:
    """The C text of the environment unit for ``env``."""
    argv0 = [os.path.splitext(os.path.basename(program))[0], *env.args]
    low, high, length = env.sym_args or (0, 0, 0)
    files = env.sym_files
    lines = [
        "/* cooptest's environment model of this program (generated): see cooptest_env.h */",
        # the strings of argv are the program's to write (C11 5.1.2.2.1): arrays, not literals
        *(f"static char __cooptest_arg{i}[] = {c_string(a)};" for i, a in enumerate(argv0)),
        f"#define COOPTEST_ARGC0 {len(argv0)}",
        f"#define COOPTEST_ARGV0 {{ {', '.join(f'__cooptest_arg{i}' for i in range(len(argv0)))} }}",
        f"#define COOPTEST_SYM_ARGS_MIN {low}",
        f"#define COOPTEST_SYM_ARGS_MAX {high}",
        f"#define COOPTEST_SYM_ARGS_LEN {length}",
        f"#define COOPTEST_STDIN_LEN {env.sym_stdin if env.sym_stdin is not None else -1}",
        f"#define COOPTEST_FILES {len(files)}",
        f"#define COOPTEST_FILE_NAMES {{ {', '.join(c_string(n) for n, _ in files)} }}",
        f"#define COOPTEST_FILE_LENS {{ {', '.join(str(n) for _, n in files)} }}",
        f"#define COOPTEST_FILE_MAX {max([n for _, n in files], default=1) or 1}",
        "#define COOPTEST_WRAP_MAIN 1",
        "#define COOPTEST_IO 1",
        "#include <cooptest_env.h>",
        "",
    ]
    return "\n".join(lines)


def model_unit(env: Environment, program: str, data_model: DataModel) -> Source:
    """The environment unit, written once per content where cooptest keeps its cache."""
    text = model_source(env, program)
    folder = os.path.join(cache_dir() or os.path.join(tempfile.gettempdir(), f"cooptest-{os.getuid()}"),
                          "environment")
    path = os.path.join(folder, f"env-{hashlib.sha256(text.encode()).hexdigest()[:16]}.c")
    if not os.path.exists(path):
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    return Source(path, ("-isystem", model_dir()))


def parse_sym_file(text: str) -> tuple[str, int]:
    """``NAME:N`` of ``--sym-file``."""
    name, sep, n = text.rpartition(":")
    if not sep or not name or not n.isdigit() or not 0 < int(n) <= MAX_BYTES:
        raise ValueError(f"expected NAME:N with N from 1 to {MAX_BYTES}: {text!r}")
    return name, int(n)
