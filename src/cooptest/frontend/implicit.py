"""The type gcc gives a function called without a declaration.

C90's implicit declaration is ``int f()``. But where ``f`` is one of gcc's library
builtins (``sqrt``, ``malloc``, ``strlen``, ``printf``, ``index``...), gcc declares it
with the builtin's prototype instead ("incompatible implicit declaration of built-in
function"): ``sqrt(n)`` converts ``n`` to ``double`` and returns a ``double``. Read as
``int f()``, the model would have ``sqrt(6)`` integral and prove ``2.4 < sqrt(n) < 2.5``
infeasible. Which names are builtins, and their types, depend on gcc's version and
target, so gcc is asked: a probe calls the name and assigns it to an ``int``, and the
warning names the type (once per name, data model and standard). The builtins gcc lets no
program take the address of (``__builtin_expect``, ``__builtin_bswap32``) are typed here.
"""
from __future__ import annotations

import functools
import os
import re
import subprocess

from pycparser import c_ast

from cooptest.cfa.ctype import DataModel, FunctionType, Types
from cooptest.errors import ToolMissing
from cooptest.frontend.declarations import TypeResolver
from cooptest.frontend.parser import CParser
from cooptest.frontend.scope import Scope
from cooptest.task import DEFAULT_STANDARD

_BITS = {"": "int", "l": "long", "ll": "long long"}
DIRECT_ONLY: dict[str, str] = {  # gcc's builtins that must be called directly: their types
    "__builtin_expect": "long (*)(long, long)",
    "__builtin_expect_with_probability": "long (*)(long, long, double)",
    "__builtin_bswap16": "unsigned short (*)(unsigned short)",
    "__builtin_bswap32": "unsigned int (*)(unsigned int)",
    "__builtin_bswap64": "unsigned long long (*)(unsigned long long)",
    "__builtin_unreachable": "void (*)(void)",
    **{f"__builtin_{f}{s}": f"int (*)(unsigned {t})" for s, t in _BITS.items()
       for f in ("clz", "ctz", "popcount", "parity")},
    **{f"__builtin_{f}{s}": f"int (*)({t})" for s, t in _BITS.items() for f in ("clrsb", "ffs")},
}
_INITIALISATION = re.compile(r"initialization of 'int' from '(?P<type>[^']*)'")


def builtin_type(name: str, types: Types, standard: str = DEFAULT_STANDARD) -> FunctionType | None:
    """The type gcc gives ``name`` called without a declaration where it is a builtin
    (which names are depends on the ``standard``: C90's library has no ``lround``),
    None where it is C's ``int name()``. ValueError (its text gcc's type) where the
    front end cannot read that type."""
    text = DIRECT_ONLY.get(name) or _probe(name, types.model, standard)
    if text is None:
        return None
    try:
        ast = CParser().parse(f"void __cooptest_t(void) {{ ({text}) 0; }}", "<builtin>")
    except Exception:
        raise ValueError(text) from None
    cast = ast.ext[0].body.block_items[0]
    assert isinstance(cast, c_ast.Cast)
    pointer = TypeResolver(types, Scope(), lambda n: None).resolve(cast.to_type)
    target = getattr(pointer, "target", None)
    if not isinstance(target, FunctionType):
        raise ValueError(text)
    return target


@functools.cache
def _probe(name: str, model: DataModel, standard: str) -> str | None:
    """gcc's type of the implicitly declared ``name`` as gcc writes it (``double
    (*)(double)``), None for ``int (*)()``, a builtin that must be called directly and
    is not in ``DIRECT_ONLY``, or a name gcc will not read so."""
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return None
    probe = f"void __cooptest_probe(void) {{ {name}(); int __cooptest_q = ({name}); }}\n"
    try:
        proc = subprocess.run(["gcc", standard, "-fsyntax-only", model.gcc_flag, "-x", "c", "-"],
                              input=probe, capture_output=True, text=True, timeout=60,
                              env={**os.environ, "LC_ALL": "C"})
    except FileNotFoundError:
        raise ToolMissing("gcc not found; install it with: apt-get install -y gcc") from None
    m = _INITIALISATION.search(proc.stderr)
    if m is None:
        return None
    text = _without_attributes(m["type"]).strip()
    return None if text == "int (*)()" else text


def _without_attributes(text: str) -> str:
    """``__attribute__((noreturn)) void (*)(int)`` -> ``void (*)(int)``."""
    while (start := text.find("__attribute__")) >= 0:
        depth, end = 0, start
        for end in range(text.index("(", start), len(text)):
            depth += (text[end] == "(") - (text[end] == ")")
            if depth == 0:
                break
        text = text[:start] + text[end + 1:]
    return text
