"""A symbolic execution resumed from a snapshot (the state after the negated node's parent,
or after an ancestor of it) builds the path that one from the entry of ``main`` builds."""
from __future__ import annotations

import pytest

import cooptest.analyses.concolic.engine as engine
from cooptest.analyses.concolic import ConcolicAnalysis
from cooptest.analyses.concolic.symbolic_execution import execute_symbolically
from cooptest.core.analysis import Job
from cooptest.core.budget import Budget

from concolic_programs import MEMORY, NESTED
from test_concolic_slicing import LOOPING
from test_engine import RECURSION

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

# a recursion writing a caller's object (through a pointer), its own address-taken
# local and a global: copies of the state share frames and objects until written
RECURSIVE = r"""
extern int __VERIFIER_nondet_int(void);
int g;
int down(int x, int *acc) {
  int local = x;
  int *p = &local;
  if (x <= 0) return *acc;
  *acc += 1;
  g += x;
  *p = *p - 1;
  int r = down(local, acc);
  if (r > 3 && g == 15) return r + 100;
  return r;
}
int main(void) {
  int acc = 0;
  int n = __VERIFIER_nondet_int();
  if (n > 6) n = 6;
  int r = down(n, &acc);
  if (r == 105) return 1;
  if (acc == 2 && __VERIFIER_nondet_int() == g) return 2;
  return 0;
}
"""


# an input read and decided on in every iteration: paths of a dozen decisions
READING = r"""
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int count = 0;
  for (int i = 0; i < 12; i++) {
    if (__VERIFIER_nondet_int() > i) count++;
  }
  if (count == 7) return 1;
  return 0;
}
"""


def summary(path):
    return ([(d.branch, d.outcome, d.before, d.after, d.position) for d in path.decisions], path.trace,
            [c.sexpr() for c in path.constraints], [r.symbol.sexpr() for r in path.symbols],
            path.divergences, path.concretized, path.imprecise, path.starved, path.truncated)


@pytest.mark.parametrize("source", [NESTED, MEMORY, DIVERGING, POINTERS, LOOPING.replace("LOOPS", "20"),
                                    RECURSIVE],
                         ids=["nested", "memory", "diverging", "pointers", "looping", "recursive"])
def test_resumed_symbolic_executions_equal_those_from_the_start(make_program, monkeypatch, source: str) -> None:
    compared = []

    def checked(program, execution, symbols, memo, visited, **options):
        path = execute_symbolically(program, execution, symbols, memo, visited, **options)
        if options.get("start") is not None:
            full = execute_symbolically(program, execution, symbols, memo, set(), budget=options.get("budget"))
            assert summary(path) == summary(full)
            compared.append(path)
        return path
    monkeypatch.setattr(engine, "execute_symbolically", checked)
    board = make_program(source)
    ConcolicAnalysis().run(board, Job(frozenset(board.goals), Budget.seconds(10.0)))
    assert compared and board.stats["resumed_symbolic_executions"] == len(compared)
    if source is POINTERS:
        assert any(p.concretized for p in compared)


def test_symbolic_execution_resumes_from_an_ancestor_when_the_parent_state_is_gone(make_program, monkeypatch) -> None:
    """Only the states after decisions at even depths kept: a negated node whose parent
    is at an odd depth resumes from the nearest ancestor with a state, and builds the
    path of a symbolic execution from the start."""
    compared, resumed_at = [], []

    def checked(program, execution, symbols, memo, visited, **options):
        path = execute_symbolically(program, execution, symbols, memo, visited, **options)
        if options.get("start") is not None:
            assert summary(path) == summary(execute_symbolically(program, execution, symbols, memo, set()))
            compared.append(path)
        return path

    def even_depths_only(arg, path, nodes):
        keep_snapshots(arg, path, nodes)
        for node in [n for n in arg.snapshots if n.depth % 2]:
            del arg.snapshots[node]

    def nearest(arg, node):
        found = nearest_snapshot(arg, node)
        resumed_at.append((node, found))
        return found
    keep_snapshots, nearest_snapshot = engine._keep_snapshots, engine._nearest_snapshot
    monkeypatch.setattr(engine, "execute_symbolically", checked)
    monkeypatch.setattr(engine, "_keep_snapshots", even_depths_only)
    monkeypatch.setattr(engine, "_nearest_snapshot", nearest)
    board = make_program(READING)
    # depth-first: the parent's parent is still kept (breadth-first search has negated
    # a child of it, and dropped its state, before it negates a node two levels down)
    ConcolicAnalysis(search="dfs").run(board, Job(frozenset(board.goals), Budget.seconds(10.0)))
    from_ancestors = [(node, found) for node, found in resumed_at
                      if node is not None and found is not None and found is not node]
    def ancestors(node):
        while node.parent is not None:
            node = node.parent
            yield node
    assert from_ancestors and all(found in ancestors(node) and found.depth % 2 == 0
                                  for node, found in from_ancestors)
    assert len(compared) == board.stats["resumed_symbolic_executions"] >= len(from_ancestors)


def test_a_run_giving_a_concretised_term_another_value_does_not_resume(make_program) -> None:
    from cooptest.analyses.concolic.solver import Symbols
    from cooptest.analyses.concolic.symbolic_execution import TermMemo, resume
    board = make_program(POINTERS)
    symbols, memo = Symbols(), TermMemo()
    inputs = ["0"] + ["1"] * 8
    path = execute_symbolically(board.program, board.submit(inputs, "test"), symbols, memo, set(),
                                keep=lambda d: True)
    assert path.concretized and path.snapshots
    snapshot = path.snapshots[0]
    assert resume(snapshot, board.submit(["2"] + ["1"] * 8, "test")) is not None  # cells[0] again
    assert resume(snapshot, board.submit(["1"] + ["1"] * 8, "test")) is None  # cells[1]


def test_a_counter_decremented_along_a_deep_recursion_stays_one_term_deep(make_program) -> None:
    """``f(x - 1)`` 3,000 calls deep: each condition is ``x - k == 0``, not ``x - 1 - 1 ...``
    (3,000 operations deep, which made evaluating the path's conditions quadratic: one
    symbolic execution of 15 s, past the budget, on Test-Comp's id_b2_o3)."""
    from cooptest.analyses.concolic.solver import Symbols
    from cooptest.analyses.concolic.symbolic_execution import TermMemo
    board = make_program(RECURSION)
    path = execute_symbolically(board.program, board.submit(["3000"], "test"), Symbols(), TermMemo(), set(),
                                max_steps=100_000, keep=lambda d: True)
    assert not path.truncated and len(path.decisions) == 3001

    def depth(term) -> int:
        return 1 + max((depth(c) for c in term.children()), default=0)
    assert max(depth(d.cond) for d in path.decisions) <= 8  # without folding: 3,000
    first = path.snapshots[0]  # a kept state sees the path only up to its decision
    assert len(first.state.thaw().path_condition) == path.decisions[first.index].after < len(path.constraints)
