"""realloc keeps what the program wrote: the symbolic state copies the old object's
bytes into the new one, so a branch on them is the input's, not an unknown's."""
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


def test_a_branch_on_resized_memory_is_solved_without_divergence(make_program) -> None:
    """Before the copy symbolic execution read q[0] as unknown: dfs diverged and had not
    covered ``q[0] == 42`` in six runs."""
    put = make_program(RESIZED)
    line = next(i for i, t in enumerate(RESIZED.splitlines(), 1) if "q[0] == 42" in t)
    (hit,) = (g for g, goal in put.goals.items() if goal.line == line and g.endswith("T"))
    ConcolicAnalysis(search="dfs", max_iterations=6).run(put, Job(frozenset(put.goals), Budget.seconds(120)))
    assert hit in put.covered
    assert put.stats.get("divergences", 0) == 0
