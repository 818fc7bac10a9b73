"""A replay resumed from a snapshot (the state after the negated node's parent) builds
the path a replay from the entry of ``main`` builds."""
from __future__ import annotations

import pytest

import cooptest.analyses.concolic.engine as engine
from cooptest.analyses.concolic import ConcolicAnalysis
from cooptest.analyses.concolic.replay import replay
from cooptest.core.analysis import Job
from cooptest.core.budget import Budget

from concolic_programs import MEMORY, NESTED
from test_concolic_slicing import LOOPING

# rand() is unknown to the model (read as 0): the prefix of every path diverges
DIVERGING = r"""
extern int __VERIFIER_nondet_int(void);
extern int rand(void);
int main(void) {
  int r = rand();
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  if (r > 5) {
    if (x == 42) {
      if (y == 7) return 1;
    }
  }
  return 0;
}
"""

# a pointer loaded from an input-chosen cell (concretised), then a loop of decisions
POINTERS = r"""
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int a[8] = {0};
  int b = 0, c = 0;
  int *cells[2] = {&b, &c};
  int n = __VERIFIER_nondet_int();
  int *p = cells[n & 1];
  *p = 3;
  for (int i = 0; i < 8; i++) {
    if (__VERIFIER_nondet_int() == i + 40) a[i] += 1;
  }
  if (a[2] + b == 4) return 1;
  if (a[5] + a[6] == 2) return 2;
  return 3;
}
"""


def summary(path):
    return ([(d.branch, d.outcome, d.before, d.after, d.position) for d in path.decisions], path.trace,
            [c.sexpr() for c in path.constraints], [r.symbol.sexpr() for r in path.symbols],
            path.divergences, path.concretized, path.imprecise, path.starved, path.cut)


@pytest.mark.parametrize("source", [NESTED, MEMORY, DIVERGING, POINTERS, LOOPING.replace("LOOPS", "20")],
                         ids=["nested", "memory", "diverging", "pointers", "looping"])
def test_resumed_replays_equal_full_replays(make_program, monkeypatch, source: str) -> None:
    compared = []

    def checked(program, execution, symbols, memo, visited, **options):
        path = replay(program, execution, symbols, memo, visited, **options)
        if options.get("start") is not None:
            full = replay(program, execution, symbols, memo, set(), budget=options.get("budget"))
            assert summary(path) == summary(full)
            compared.append(path)
        return path
    monkeypatch.setattr(engine, "replay", checked)
    board = make_program(source)
    ConcolicAnalysis().run(board, Job(frozenset(board.goals), Budget.seconds(10.0)))
    assert compared and board.stats["resumed_replays"] == len(compared)
    if source is POINTERS:
        assert any(p.concretized for p in compared)


def test_a_run_giving_a_concretised_term_another_value_does_not_resume(make_program) -> None:
    from cooptest.analyses.concolic.replay import TermMemo, resume
    from cooptest.analyses.concolic.solver import Symbols
    board = make_program(POINTERS)
    symbols, memo = Symbols(), TermMemo()
    inputs = ["0"] + ["1"] * 8
    path = replay(board.program, board.submit(inputs, "test"), symbols, memo, set(), keep=lambda d: True)
    assert path.concretized and path.snapshots
    snapshot = path.snapshots[0]
    assert resume(snapshot, board.submit(["2"] + ["1"] * 8, "test")) is not None  # cells[0] again
    assert resume(snapshot, board.submit(["1"] + ["1"] * 8, "test")) is None  # cells[1]
