"""A disk cache of pycparser ASTs, keyed by the preprocessed text.

pycparser needs about 1.5 s for a 5,000-line program, and one user command parses the same
text more than once (``generate`` builds the CFA, then measures its suite's coverage in a
child process that labels a fresh AST; ``cfa`` and ``coverage`` are run again and again on
one task). Unpickling the AST takes a fifth of parsing it.

The cache lives in ``$COOPTEST_CACHE`` (``off`` disables it), else
``$XDG_CACHE_HOME/cooptest`` or ``~/.cache/cooptest``. Entries are written atomically,
unreadable ones are ignored, and the oldest are removed beyond ``MAX_ENTRIES``. Every
call returns a fresh AST that the caller may rewrite in place.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile

import pycparser
from pycparser import c_ast

from cooptest.frontend.parser import CParser

FORMAT = 4  # bump when what is stored changes (2: string literals joined as C joins them;
#   3: statement expressions are StatementExpression nodes; 4: _Static_assert dropped)
MAX_ENTRIES = 256
# pycparser descends a frame or more per nesting level (an else-if chain of generated code
# nests thousands deep); Python 3.11 keeps such frames off the C stack
PARSE_DEPTH = 20_000


def cache_dir() -> str | None:
    """Where entries go, or None when caching is off."""
    configured = os.environ.get("COOPTEST_CACHE")
    if configured == "off":
        return None
    if configured:
        return configured
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "cooptest")


def generated_folder(kind: str) -> str:
    """Where the C cooptest generates for a program (the environment model's unit, a
    library's harness) is kept: beside the cache, or in the temporary folder when the
    cache is off."""
    return os.path.join(cache_dir() or os.path.join(tempfile.gettempdir(), f"cooptest-{os.getuid()}"),
                        kind)


def parse(text: str, filename: str) -> c_ast.FileAST:
    """``parser.CParser().parse(text, filename)``, from the cache when it can be.

    ``filename`` names the text only until its first line marker (the preprocessor's
    markers name the original files), so it is not part of the key."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), PARSE_DEPTH))
    folder = cache_dir()
    if folder is None:
        return CParser().parse(text, filename)
    key = hashlib.sha256(f"{FORMAT}:{pycparser.__version__}:".encode() + text.encode()).hexdigest()
    path = os.path.join(folder, f"ast-{key[:32]}.pickle")
    try:
        with open(path, "rb") as f:
            return pickle.load(f)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, IndexError):
        pass  # absent, or written by another pycparser: parse and replace it
    ast = CParser().parse(text, filename)
    _store(folder, path, ast)
    return ast


def _store(folder: str, path: str, ast: c_ast.FileAST) -> None:
    try:
        data = pickle.dumps(ast, protocol=pickle.HIGHEST_PROTOCOL)
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix="ast-", suffix=".tmp")  # pruned if left over
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        _prune(folder)
    except (OSError, RecursionError, pickle.PicklingError):
        pass  # a cache that cannot be written only costs time


def _prune(folder: str) -> None:
    entries = [e for e in os.scandir(folder) if e.name.startswith("ast-")]
    if len(entries) > MAX_ENTRIES:
        entries.sort(key=lambda e: e.stat().st_mtime)
        for e in entries[: len(entries) - MAX_ENTRIES]:
            try:
                os.unlink(e.path)
            except OSError:
                pass
