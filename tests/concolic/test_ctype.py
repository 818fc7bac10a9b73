"""glibc's ctype tables in the symbolic engine (``harness.ctype_tables``): ``isalnum``
and its kin read ``*__ctype_b_loc()`` at the input byte, ``tolower``/``toupper`` map
through their tables, so concolic search flips branches on character classes without
any option, and its symbolic executions agree with the native runs. And the page size is the
machine's."""
from __future__ import annotations

from pathlib import Path

import pytest
import z3

from cooptest.analyses.concolic import ConcolicAnalysis
from cooptest.analyses.symbolic import _table_entry
from cooptest.cfa.ctype import DataModel
from cooptest.core.analysis import Job
from cooptest.core.board import GoalBoard
from cooptest.core.budget import Budget
from cooptest.frontend import load_program
from cooptest.harness import ctype_tables
from cooptest.harness.executor import Executor
from cooptest.task import load_task

CLASSES = """#include <ctype.h>
extern char __VERIFIER_nondet_char(void);
int main(void) {
  char a = __VERIFIER_nondet_char(), b = __VERIFIER_nondet_char();
  if (isalnum(a) && isdigit(b)) {
    if (isupper(a)) return 1;
    if (isspace(b - 40)) return 2;
    return 3;
  }
  if (ispunct(a)) return 4;
  if (tolower(b) == 'q' && toupper(a) == 'Z') return 5;
  return 0;
}
"""


@pytest.mark.parametrize("data_model", [DataModel.ILP32, DataModel.LP64])
def test_character_classes_of_input_bytes_are_flipped(tmp_path: Path, data_model: DataModel) -> None:
    """Every goal within a few dozen iterations and no divergence; before, each class
    was an unknown result (3 of 12 goals open after 100 iterations, 42 divergences)."""
    path = tmp_path / "classes.c"
    path.write_text(CLASSES)
    frontend = load_program(load_task(str(path), data_model), str(tmp_path / "work"))
    put = GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "build")))
    ConcolicAnalysis(search="dfs", max_iterations=60).run(
        put, Job(frozenset(put.goals), Budget.seconds(120.0)))
    assert set(put.covered) == set(put.goals), sorted(set(put.goals) - set(put.covered))
    assert put.stats.get("divergences", 0) == 0


@pytest.mark.parametrize("data_model", [DataModel.ILP32, DataModel.LP64])
def test_the_runs_of_each_table_are_its_entries(data_model: DataModel) -> None:
    known = ctype_tables.tables(data_model)
    assert known is not None
    for name, table in known.items():
        for i, entry in enumerate(table.entries):
            offset = z3.BitVecVal(i * table.size, 64)
            assert z3.simplify(_table_entry(table, offset, 64)).as_long() == entry, (name, i)
    b = known["__ctype_b_loc"]
    assert b.entries[ord("a") - ctype_tables.FIRST] != b.entries[ord("!") - ctype_tables.FIRST]
    assert known["__ctype_toupper_loc"].entries[ord("q") - ctype_tables.FIRST] == ord("Q")


PAGES = """extern int __VERIFIER_nondet_int(void);
extern int getpagesize(void);
int main(void) {
  int n = __VERIFIER_nondet_int(), page = getpagesize();
  if (page > 100 && n > page) return 1;
  return 0;
}
"""


def test_the_page_size_is_the_machine_s(make_program) -> None:
    """``getpagesize()`` is the machine's constant, not an unknown read as 0: symbolic
    execution agrees with the native run and ``n > page`` is solved for the real page."""
    put = make_program(PAGES)
    ConcolicAnalysis(search="dfs", max_iterations=20).run(
        put, Job(frozenset(put.goals), Budget.seconds(120.0)))
    assert put.stats.get("divergences", 0) == 0
    assert {"B1T", "B2T", "B2F"} <= set(put.covered), put.covered
