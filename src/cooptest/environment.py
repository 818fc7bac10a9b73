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

import os

from cooptest.cfa.ctype import DataModel
from cooptest.cfa.proof_blockers import USER_MAIN
from cooptest.frontend.ast_cache import generated_folder
from cooptest.frontend.literals import c_string
from cooptest.frontend.preprocess import harness_headers as model_dir
from cooptest.harness.build import write_once
from cooptest.task import Environment, Source

MAX_BYTES = 1 << 16  # per argument, stdin or file: beyond, a test would not be a test


def model_flags() -> tuple[str, ...]:
    """The flags of each of the program's own files."""
    return (f"-Dmain={USER_MAIN}", "-include", os.path.join(model_dir(), "cooptest_io.h"))


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
    path = write_once(generated_folder("environment"), "env", model_source(env, program))
    return Source(path, ("-isystem", model_dir()))


def parse_sym_file(text: str) -> tuple[str, int]:
    """``NAME:N`` of ``--sym-file``."""
    name, sep, n = text.rpartition(":")
    if not sep or not name or not n.isdigit() or not 0 < int(n) <= MAX_BYTES:
        raise ValueError(f"expected NAME:N with N from 1 to {MAX_BYTES}: {text!r}")
    return name, int(n)
