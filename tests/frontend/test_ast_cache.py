"""The AST cache: a hit gives the AST parsing gives, fresh each time; a broken entry or a
disabled cache falls back to parsing."""
from __future__ import annotations

from pathlib import Path

import pytest
from pycparser import c_generator

from cooptest.frontend import ast_cache

PROGRAM = """# 1 "prog.c"
extern int __VERIFIER_nondet_int(void);
int main(void) { int x = __VERIFIER_nondet_int(); if (x > 3 && x < 9) return 1; return 0; }
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COOPTEST_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def text_of(ast) -> str:
    return c_generator.CGenerator().visit(ast)


def test_a_hit_is_the_parsed_ast_and_fresh_each_time(cache: Path) -> None:
    first = ast_cache.parse(PROGRAM, "a.i")
    assert len(list(cache.glob("ast-*.pickle"))) == 1
    first.ext.clear()  # callers rewrite ASTs in place: the cached one must not change
    second = ast_cache.parse(PROGRAM, "b.i")
    third = ast_cache.parse(PROGRAM, "c.i")
    assert second is not third
    assert text_of(second) == text_of(third) == text_of(ast_cache.CParser().parse(PROGRAM, "a.i"))
    assert second.ext[-1].coord.file == "prog.c" and second.ext[-1].coord.line == 2


def test_a_broken_entry_is_parsed_again_and_replaced(cache: Path) -> None:
    ast_cache.parse(PROGRAM, "a.i")
    (entry,) = cache.glob("ast-*.pickle")
    entry.write_bytes(b"not a pickle")
    assert "x < 9" in text_of(ast_cache.parse(PROGRAM, "a.i"))
    assert entry.read_bytes() != b"not a pickle"


def test_off_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COOPTEST_CACHE", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert "x > 3" in text_of(ast_cache.parse(PROGRAM, "a.i"))
    assert not list(tmp_path.rglob("ast-*"))


def test_the_oldest_entries_go_beyond_the_limit(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ast_cache, "MAX_ENTRIES", 2)
    for k in range(4):
        ast_cache.parse(PROGRAM + f"int g{k};\n", "a.i")
    assert len(list(cache.glob("ast-*.pickle"))) == 2
