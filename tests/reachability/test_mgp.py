"""Tiger-MGP as its paper runs it (issue 40): the three partitionings, each partition T/n
of the time, redundant tests removed by marginal gain."""
from __future__ import annotations

from dataclasses import replace

import pytest

from cooptest.analyses.reachability import MultiGoalAnalysis, PredicateAnalysis
from cooptest.analyses.reachability.mgp import partition
from cooptest.core.analysis import Job
from cooptest.core.board import TestRecord
from cooptest.core.budget import Budget
from cooptest.core.reduction import reduce_suite
from cooptest.harness.testsuite import TestCase

# The first goals (the test of x) fall in a blink; the loop's exit and what follows it
# need 1000 unrollings, which no partition's share reaches.
EASY_THEN_HARD = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 0) x = 1;
  int s = 0;
  for (int i = 0; i < 1000; i++) {
    int y = __VERIFIER_nondet_int();
    if (y * 7 == 654321 + i) s++;
  }
  if (s == 3000) return 1;
  return 0;
}
"""

THREE = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int r = 0;
  if (__VERIFIER_nondet_int()) r += 1;
  if (__VERIFIER_nondet_int()) r += 2;
  if (__VERIFIER_nondet_int()) r += 4;
  return r;
}
"""


def test_the_three_partitionings(program_of) -> None:
    board = program_of(EASY_THEN_HARD)
    goals = board.open()
    in_order = sorted(goals, key=lambda g: (board.goals[g].line, g))
    proximity = partition(board, goals, "proximity", 4, None, 0)
    assert [g for p in proximity for g in p] == in_order and len(proximity) == 4  # neighbours
    random = partition(board, goals, "random", 4, None, 7)
    assert len(random) == 4 and sorted(g for p in random for g in p) == sorted(goals)
    assert random == partition(board, goals, "random", 4, None, 7)  # seeded
    assert random != proximity and max(map(len, random)) - min(map(len, random)) <= 1
    size = partition(board, goals, "size", 4, 3, 0)
    assert [len(p) for p in size] == [3, 3, 2] and [g for p in size for g in p] == in_order


def test_each_partition_has_t_over_n_of_the_time(program_of) -> None:
    """The paper gives each of n partitions T/n. What was left / partitions left gave a
    partition the time the earlier ones left unused: here every partition ends at once
    (its run has no time), and the second one had T/3, the last one all that was left.
    Bound by work: the outer budget is cancelled once the first pass has run."""
    board = program_of(EASY_THEN_HARD)
    total = 40.0
    outer = Budget.seconds(total)
    shares: list[float] = []

    class Timed(PredicateAnalysis):  # notes the partition's budget, runs it without time
        def run(self, board, job):
            shares.append(job.budget.remaining())
            outcome = super().run(board, replace(job, budget=job.budget.child(0)))
            if len(shares) == 4:
                outer.cancel()
            return outcome

    mgp = MultiGoalAnalysis(partitions=4)
    mgp.base = Timed
    outcome = mgp.run(board, Job(board.open(), outer))
    assert len(shares) == 4, shares
    assert all(total / 4 - 2 <= s <= total / 4 + 0.05 for s in shares), shares
    # the report's runs show the shares, one per partition
    runs = outcome.state.reported_runs(outcome.stopped, total)
    assert [r.analysis.split(" (")[0] for r in runs] == [f"mgp: partition {k} of 4" for k in range(1, 5)]


@pytest.mark.parametrize("partitioning, options", [
    ("random", {"partitions": 4, "seed": 3}), ("size", {"size": 2}), ("proximity", {"partitions": 2})])
def test_each_partitioning_runs_its_partitions(program_of, partitioning, options) -> None:
    board = program_of(THREE)
    mgp = MultiGoalAnalysis(partitioning=partitioning, **options)
    expected = partition(board, board.open(), partitioning, options.get("partitions", 4),
                         options.get("size"), options.get("seed", 0))
    outcome = mgp.run(board, Job(board.open(), Budget.seconds(60)))
    assert outcome.state.partitions == expected and not board.open()
    assert mgp.configuration.describe()["partitioning"] == partitioning


def test_redundant_tests_are_removed_by_marginal_gain(program_of) -> None:
    """Tests A {1,2,3,4}, B {1,2,5}, C {3,4,6}, D {5,6}: sorted once by size, A, B and C
    were kept (B and C each add one goal, D then none); by marginal gain A and D cover
    all six."""
    board = program_of(THREE)
    g = sorted(board.goals)
    assert len(g) == 6
    covers = {"A": {0, 1, 2, 3}, "B": {0, 1, 4}, "C": {2, 3, 5}, "D": {4, 5}}
    for name, ids in covers.items():
        goals = frozenset(g[i] for i in ids)
        board.records.append(TestRecord(TestCase([name], name=name), "test", goals, goals))
        for goal in goals:
            board.covered.setdefault(goal, name)
    kept = reduce_suite(board)
    assert [r.test.name for r in kept] == ["A", "D"]
    assert set(board.covered.values()) == {"A", "D"}
