"""The models of strcmp, strncmp, memcmp and strlen (``analyses.strings``): concolic search
finds the keywords a program compares its input with, and the terms mean what C says."""
from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import z3

from cooptest.analyses import strings
from cooptest.analyses.concolic import ConcolicAnalysis
from cooptest.analyses.concolic.inputs import literal, parse_literal, to_z3
from cooptest.core.analysis import Job
from cooptest.cfa.ctype import ArrayType, DataModel, IntType
from cooptest.core.board import GoalBoard
from cooptest.core.budget import Budget
from cooptest.frontend import load_program
from cooptest.harness.executor import Executor
from cooptest.task import load_task

KEYWORDS = """#include <string.h>
#include <stdlib.h>
extern char __VERIFIER_nondet_char(void);
void reach_error(void) { abort(); }
int main(void) {
  char key[12];
  for (int i = 0; i < 11; i++) key[i] = __VERIFIER_nondet_char();
  key[11] = 0;
  if (strcmp(key, "open sesame") == 0) reach_error();
  size_t n = strlen(key);
  if (n == 5) {
    if (strncmp(key, "ab", 2) == 0 && memcmp(key + 2, "xyz", 3) == 0) return 2;
    return 1;
  }
  if (n > 9 && strcmp(key, "ZZZZZZZZZ") > 0 && key[9] == 'q') return 3;
  return 0;
}
"""


@pytest.mark.parametrize("data_model", [DataModel.ILP32, DataModel.LP64])
def test_concolic_search_finds_the_keywords(tmp_path: Path, data_model: DataModel) -> None:
    """Every branch, the error call too, within seconds, on both targets (glibc's
    strcmp returns -1/1 on i386, the bytes' difference on x86-64). Without the models
    the keyword comparisons stay unknown after a minute."""
    path = tmp_path / "keywords.c"
    path.write_text(KEYWORDS)
    frontend = load_program(load_task(str(path), data_model), str(tmp_path / "work"))
    put = GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "build")))
    ConcolicAnalysis(search="cgs").run(put, Job(frozenset(put.goals), Budget.seconds(20.0)))
    assert set(put.covered) == set(put.goals), sorted(set(put.goals) - set(put.covered))


def _bytes(text: bytes) -> list[z3.ExprRef]:
    return [z3.BitVecVal(c, 8) for c in text]


def _sign(a: bytes, b: bytes) -> int:
    """C's answer (7.24.4.2): the first differing bytes as unsigned char."""
    for x, y in zip(a, b):
        if x != y:
            return -1 if x < y else 1
        if x == 0:
            return 0
    return 0


SAMPLE = [b"\x00", b"a\x00", b"b\x00", b"ab\x00", b"\x80\x00", b"\xff\x00", b"a\x80\x00", b"m\x00"]


@pytest.mark.parametrize("a, b", itertools.product(SAMPLE, SAMPLE))
def test_strcmp_has_the_sign_c_gives_and_any_magnitude(a: bytes, b: bytes) -> None:
    u = z3.BitVec("u", 32)
    r = strings.compare(_bytes(a), _bytes(b), None, True, u)
    sign = _sign(a, b)
    assert z3.simplify(z3.substitute(r, (u, z3.BitVecVal(0, 32)))).as_signed_long() == sign
    solver = z3.Solver()
    if sign == 0:
        solver.add(r != 0)
        assert solver.check() == z3.unsat
        return
    wrong = r <= 0 if sign > 0 else r >= 0
    assert z3.Solver().check(wrong) == z3.unsat  # never the other sign
    for value in (1, 5, 2**31 - 1) if sign > 0 else (-1, -7, -2**31):
        assert z3.Solver().check(r == value) == z3.sat  # glibc's magnitudes differ by target


def test_memcmp_reads_past_a_zero_and_strncmp_stops_at_the_count() -> None:
    u = z3.BitVec("u", 32)
    _, terminated = strings.COMPARISONS["memcmp"]
    past_zero = strings.compare(_bytes(b"\x00\x01"), _bytes(b"\x00\x02"), 2, terminated, u)
    assert z3.Solver().check(past_zero >= 0) == z3.unsat
    _, terminated = strings.COMPARISONS["strncmp"]
    counted = strings.compare(_bytes(b"ab"), _bytes(b"ac"), 1, terminated, u)
    assert z3.Solver().check(counted != 0) == z3.unsat


def test_what_lies_beyond_the_bytes_read_is_unknown() -> None:
    """Two equal prefixes of ``MAX_SCAN`` bytes and no terminator: the strings may still
    differ, and the string may be longer."""
    u = z3.BitVec("u", 32)
    prefix = _bytes(b"a" * strings.MAX_SCAN)
    assert z3.Solver().check(strings.compare(prefix, prefix, None, True, u) != 0) == z3.sat
    assert z3.Solver().check(strings.length(prefix, u) == strings.MAX_SCAN + 5) == z3.sat


def test_strlen_is_the_first_terminator() -> None:
    c = z3.BitVec("c", 8)
    n = strings.length([c, z3.BitVecVal(0, 8)], z3.BitVec("u", 32))
    assert z3.Solver().check(z3.And(c != 0, n != 1)) == z3.unsat
    assert z3.Solver().check(z3.And(c == 0, n != 0)) == z3.unsat


STRING_INPUT = """#include <string.h>
extern const char *__VERIFIER_nondet_string(void);
int main(void) {
  const char *s = __VERIFIER_nondet_string();
  if (s[0] == 'k' && s[1] == 'e' && s[2] == 'y' && s[3] == 0) return 1;
  if (strcmp(s, "say \\"hi\\" now") == 0) return 2;
  const char *t = __VERIFIER_nondet_string();
  if (strlen(t) == 7 && t[6] == '!') return 3;
  return 0;
}
"""


def test_string_inputs_are_strings_the_search_chooses_byte_by_byte(make_program) -> None:
    """``__VERIFIER_nondet_string()`` is a line of input bytes (spaces and quotes
    included), each a symbol: the keywords are found and the native runs, reading the
    lines as TestCov's harness does, agree with symbolic execution. Before, the string was one
    opaque number: 1 test, a divergence per run."""
    put = make_program(STRING_INPUT)
    ConcolicAnalysis(search="cgs", max_iterations=400).run(
        put, Job(frozenset(put.goals), Budget.seconds(120.0)))
    assert set(put.covered) == set(put.goals), sorted(set(put.goals) - set(put.covered))
    assert put.stats.get("divergences", 0) == 0
    assert any('"say "hi" now"' in t.inputs for t in put.tests)  # the harness unescapes nothing


@pytest.mark.parametrize("text", ['"a"', '"say "hi""', '" x y "', '"' + "z" * 32 + '"'])
def test_a_string_input_reads_back_as_it_is_written(text: str) -> None:
    t = ArrayType(IntType("char", 8, True, 1), 32)
    value = parse_literal(text, t)
    assert value is not None and literal(to_z3(value, t), t) == text


COPIES = r"""
#include <string.h>
extern char __VERIFIER_nondet_char(void);
int main(void) {
  char src[4], dst[8] = "QQQQQQQ", tail[8] = "ab";
  for (int i = 0; i < 3; i++) src[i] = __VERIFIER_nondet_char();
  src[3] = 0;
  strcpy(dst, src);
  strcat(tail, "xy");
  if (tail[3] != 'y' || tail[4] != 0) return 9;
  if (dst[2] == 'Q') return 1;         /* src[0] or src[1] was 0: the copy ended before */
  if (dst[1] == 'k' && dst[2] == 'z') return 2;
  return 0;
}
"""


def test_strcpy_and_strcat_copy_the_bytes_as_c_does(make_program) -> None:
    """The replay copies a C string byte by byte, a symbolic byte that is 0 ending the copy
    (``SymbolicState._string_copy``): every goal but the impossible ``return 9`` is covered
    and no branch diverges. Before, both calls havocked their destination: the branches on
    its bytes read unknowns."""
    put = make_program(COPIES)
    ConcolicAnalysis(search="dfs", max_iterations=20).run(put, Job(frozenset(put.goals), Budget.seconds(120)))
    lines = COPIES.splitlines()
    impossible = next(i for i, t in enumerate(lines, 1) if "return 9" in t)
    open_goals = {g for g in put.goals if g not in put.covered}
    assert {put.goals[g].line for g in open_goals} <= {impossible}, sorted(open_goals)
    assert put.stats.get("divergences", 0) == 0


def test_a_count_that_is_a_term_bounds_the_comparison_byte_by_byte() -> None:
    """``strncmp("abc", "abd", n)`` is 0 exactly for n <= 2, whatever n is."""
    u, n = z3.BitVec("u", 32), z3.BitVec("n", 64)
    r = strings.compare(_bytes(b"abc\x00"), _bytes(b"abd\x00"), n, True, u)
    for count in range(6):
        equal = z3.Solver().check(n == count, r != 0) == z3.unsat
        assert equal == (count <= 2), count
    assert z3.Solver().check(z3.UGE(n, 3), r >= 0) == z3.unsat


LONG = r"""
#include <string.h>
#include <stdlib.h>
extern char __VERIFIER_nondet_char(void);
void reach_error(void) { abort(); }
int main(void) {
  char s[200];
  for (int i = 0; i < 199; i++) s[i] = __VERIFIER_nondet_char();
  s[199] = 0;
  size_t n = strlen(s);
  if (n == 90 && strncmp(s, s + 1, n - 1) == 0) reach_error();
  return 0;
}
"""


def test_a_string_of_known_bytes_is_read_to_its_end(make_program) -> None:
    """``BEYOND_RUN`` bounds only scans of objects written at symbolic indices: here
    every byte is an input at a known place, the scan reads all 200, and the search
    makes ``strlen`` 90 from a first run where it is 0 and ``strncmp`` with the count
    ``n - 1`` (a term) makes the bytes equal."""
    assert strings.BEYOND_RUN < 90
    put = make_program(LONG)
    ConcolicAnalysis(search="dfs", max_iterations=60).run(put, Job(frozenset(put.goals), Budget.seconds(120)))
    assert set(put.covered) == set(put.goals), sorted(set(put.goals) - set(put.covered))


SYMBOLIC_INDEX = r"""
#include <string.h>
extern char __VERIFIER_nondet_char(void);
extern int __VERIFIER_nondet_int(void);
char s[600];
int main(void) {
  int k = __VERIFIER_nondet_int();
  if (k < 0 || k > 7) return 0;
  s[k] = 'x';                          /* a symbolic index: s is a z3 array from here */
  for (int i = 0; i < 50; i++) s[100 + i] = __VERIFIER_nondet_char();
  size_t n = strlen(s + 100);
  if (n == 20) return 1;
  if (strlen(s) == 1) return 2;
  return 3;
}
"""


def test_a_bounded_scan_still_lets_the_search_choose_the_length(make_program) -> None:
    """In an object written at a symbolic index the scan stops ``BEYOND_RUN`` bytes past
    the run's terminator: a length within them is chosen in one step, and no branch
    diverges. (A length beyond them needs runs whose strings grow: DFS, which tries each
    negation once, does not make ``strlen`` 45 from a run where it is 0 in such an
    object, which the full scan did.)"""
    put = make_program(SYMBOLIC_INDEX)
    ConcolicAnalysis(search="dfs", max_iterations=60).run(put, Job(frozenset(put.goals), Budget.seconds(120)))
    assert set(put.covered) == set(put.goals), sorted(set(put.goals) - set(put.covered))
    assert put.stats.get("divergences", 0) == 0


def _find(text: bytes, c: int, count: int | None, last: bool) -> int | None:
    """C's answer (7.24.5.1, .2, .5): the offset of the first (last) byte ``c``, the
    terminator searched too without a count; None for NULL."""
    if count is None:
        text = text[:text.index(0) + 1]
    else:
        text = text[:count]
    k = text.rfind(c) if last else text.find(c)
    return None if k < 0 else k


FOUND_IN = [b"\x00", b"a\x00", b"ba\x00", b"a\x00a\x00", b"\xffa\xff\x00", b"aaa\x00", b"\x00a\x00"]


@pytest.mark.parametrize("name", sorted(strings.SEARCHES))
@pytest.mark.parametrize("text", FOUND_IN)
@pytest.mark.parametrize("c", [0, ord("a"), 0xFF])
def test_strchr_strrchr_and_memchr_find_what_c_says(name: str, text: bytes, c: int) -> None:
    counted, last = strings.SEARCHES[name]
    absent, unknown = z3.BitVecVal(-1000, 64), z3.BitVec("u", 64)
    for count in range(len(text) + 1) if counted else [None]:
        offset = z3.simplify(strings.find(_bytes(text), z3.BitVecVal(c, 8), count, last, absent, unknown))
        expected = _find(text, c, count, last)
        assert offset.as_signed_long() == (-1000 if expected is None else expected), (count, offset)


def test_a_search_is_a_term_the_solver_can_choose_and_unknown_past_the_bytes_read() -> None:
    x, u = z3.BitVec("x", 8), z3.BitVec("u", 64)
    absent = z3.BitVecVal(-1, 64)
    first = strings.find([x, z3.BitVecVal(ord("a"), 8), z3.BitVecVal(0, 8)], z3.BitVecVal(ord("a"), 8),
                         None, False, absent, u)
    assert z3.Solver().check(first == 0, x != ord("a")) == z3.unsat
    assert z3.Solver().check(first == 1, x == ord("a")) == z3.unsat
    assert z3.Solver().check(first == absent, x != 0) == z3.unsat  # the 'a' at 1 is found past a byte not 0
    n = z3.BitVec("n", 64)
    counted = strings.find([x, z3.BitVecVal(ord("a"), 8)], z3.BitVecVal(ord("a"), 8), n, False, absent, u)
    assert z3.Solver().check(n == 1, x != ord("a"), counted != absent) == z3.unsat
    assert z3.Solver().check(n == 2, x != ord("a"), counted != 1) == z3.unsat
    last = strings.find([z3.BitVecVal(ord("a"), 8)] * 3, z3.BitVecVal(ord("a"), 8), None, True, absent, u)
    assert z3.Solver().check(last == 7) == z3.sat  # no terminator read: the last 'a' may lie beyond


WALK = r"""
#include <string.h>
#include <stdlib.h>
extern char __VERIFIER_nondet_char(void);
void reach_error(void) { abort(); }
int main(void) {
  char s[9];
  for (int i = 0; i < 8; i++) s[i] = __VERIFIER_nondet_char();
  s[8] = 0;
  int count = 0;
  for (char *p = strchr(s, 'x'); p != NULL; p = strchr(p + 1, 'x'))   /* as grep's comsubs */
    count++;
  if (count == 3) {
    char *last = strrchr(s, 'x');
    if (last[1] == 'z' && memchr(s, 'y', 8) == s + 7) reach_error();
  }
  return 0;
}
"""


def test_concolic_search_walks_a_string_with_strchr(make_program) -> None:
    """The pointers ``strchr`` returns are ``s`` plus an offset over the input bytes: the
    search makes three 'x's, a 'z' after the last and a 'y' at 7 that ``memchr`` finds
    past the terminator, and no branch diverges (with the result an unknown pointer,
    every test of ``p`` did). ``p + 1`` is placed by the run (concretised)."""
    put = make_program(WALK)
    ConcolicAnalysis(search="dfs", max_iterations=200).run(put, Job(frozenset(put.goals), Budget.seconds(120)))
    assert set(put.covered) == set(put.goals), sorted(set(put.goals) - set(put.covered))
    assert put.stats.get("divergences", 0) == 0


COPIED_FROM_AN_ARRAY = r"""
#include <string.h>
#include <stdlib.h>
extern char __VERIFIER_nondet_char(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  char src[16] = "QQQQQQQQQQQQQQQ", dst[16];
  int k = __VERIFIER_nondet_int();
  if (k < 0 || k > 3) return 0;
  src[k] = 'x';                          /* a symbolic index: src is an array */
  for (int i = 4; i < 8; i++) src[i] = __VERIFIER_nondet_char();
  src[8] = 0;
  strcpy(dst, src);                      /* its terminator may be any of src[4..8] */
  if (strlen(dst) == 6 && dst[5] == 'y') return 1;
  return 2;
}
"""


def test_strcpy_from_an_array_object_copies_what_the_run_ends_at(make_program) -> None:
    """A source written at symbolic indices is read to ``BEYOND_RUN`` past the run's
    terminator, which is an input here: the copy is byte by byte as far as read and
    unknown past it, where it havocked the destination (every read of it a divergence,
    as in grep's ``icpyalloc`` of its must-strings)."""
    put = make_program(COPIED_FROM_AN_ARRAY)
    ConcolicAnalysis(search="dfs", max_iterations=40).run(put, Job(frozenset(put.goals), Budget.seconds(120)))
    assert set(put.covered) == set(put.goals), sorted(set(put.goals) - set(put.covered))
    assert put.stats.get("divergences", 0) == 0
