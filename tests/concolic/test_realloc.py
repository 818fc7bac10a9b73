"""realloc keeps what the program wrote, and where the object stays (as glibc keeps it
when it can) so do the program's pointers into it: a branch on the bytes is the input's,
not an unknown's, and a comparison of the old pointer with the new one is glibc's."""
from __future__ import annotations

from cooptest.analyses.concolic import ConcolicAnalysis
from cooptest.core.analysis import Job
from cooptest.core.budget import Budget

RESIZED = r"""
#include <stdlib.h>
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int *p = malloc(2 * sizeof(int));
  if (!p) return 0;
  p[0] = __VERIFIER_nondet_int();
  p[1] = 7;
  int *q = realloc(p, 4 * sizeof(int));
  if (!q) { free(p); return 0; }
  if (q[1] != 7) return 3;
  if (q[0] == 42) return 1;
  return 2;
}
"""


def assert_covered_without_divergence(make_program, source: str, condition: str, iterations: int) -> None:
    """dfs, ``iterations`` runs: the true side of the branch on the line holding
    ``condition`` is covered, and no run diverged from its symbolic replay."""
    put = make_program(source)
    line = next(i for i, t in enumerate(source.splitlines(), 1) if condition in t)
    (hit,) = (g for g, goal in put.goals.items() if goal.line == line and g.endswith("T"))
    ConcolicAnalysis(search="dfs", max_iterations=iterations).run(put, Job(frozenset(put.goals), Budget.seconds(120)))
    assert hit in put.covered
    assert put.stats.get("divergences", 0) == 0


def test_a_branch_on_resized_memory_is_solved_without_divergence(make_program) -> None:
    """Before the copy symbolic execution read q[0] as unknown: dfs diverged and had not
    covered ``q[0] == 42`` in six runs."""
    assert_covered_without_divergence(make_program, RESIZED, "q[0] == 42", iterations=6)


MOVED_POINTERS = r"""
#include <stdlib.h>
extern char __VERIFIER_nondet_char(void);
int main(void) {
  char *buf = malloc(64);
  if (!buf) return 0;
  char *end = buf;
  for (int i = 0; i < 4; i++) *end++ = __VERIFIER_nondet_char();
  char *old = buf;
  buf = realloc(buf, 32);  /* glibc shrinks a chunk where it is */
  if (!buf) return 0;
  if (old != buf) end = (end - old) + buf;  /* regex.c's EXTEND_BUFFER */
  if (end - buf != 4) return 3;
  if (buf[2] == 'x') return 1;
  return 2;
}
"""


def test_pointers_into_an_object_realloc_keeps_in_place_stay_valid(make_program) -> None:
    """grep's regex compiler moves its pointers only if realloc moved the buffer. The model
    moved every object, so where glibc kept it in place the model's pointers were left in
    the freed one: ``end - buf`` diverged and the byte read back was unknown."""
    assert_covered_without_divergence(make_program, MOVED_POINTERS, "buf[2] == 'x'", iterations=8)


GROWN_BY_AN_INPUT = r"""
#include <stdlib.h>
#include <string.h>
extern char __VERIFIER_nondet_char(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  char *p = malloc(8), *other = malloc(8);     /* other: p cannot grow in place */
  if (!p || !other) return 0;
  int k = __VERIFIER_nondet_int();
  if (k < 0 || k > 3) return 0;
  strcpy(p, "abcd");
  p[k] = __VERIFIER_nondet_char();              /* a symbolic index: p is an array */
  char *q = realloc(p, strlen(p) + 8);          /* a size that is a term */
  if (!q) return 0;
  if (q[3] != 'd' && k != 3) return 3;
  if (q[k] == 'z') return 1;
  return 2;
}
"""


def test_realloc_by_a_term_keeps_an_array_objects_bytes(make_program) -> None:
    """grep's ``icatalloc`` reallocs a must-string written at symbolic indices by
    ``strlen``s: the copy dropped the bytes of an array object and of any object whose
    new size is a term, every read of them a fresh byte and a divergence."""
    assert_covered_without_divergence(make_program, GROWN_BY_AN_INPUT, "q[k] == 'z'", iterations=10)
