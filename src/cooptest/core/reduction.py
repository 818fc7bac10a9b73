"""The suite's reduction at the end of a run: a minimal set of the board's tests that
covers every goal they covered (greedy set cover, as Tiger-MGP reduces its suite), and
the tests it would drop that the TestCov-style count needs; the suite is rewritten with
it and every covered goal credited to a kept test."""
from __future__ import annotations

import heapq
from typing import Callable

from cooptest.core.board import GoalBoard, TestRecord
from cooptest.core.board_events import Reduced


def reduce_suite(board: GoalBoard, rescue: Callable[[list[str], list[str]], list[str]] | None = None
                 ) -> list[TestRecord]:
    """Keep a minimal set of tests covering every covered goal and rewrite the
    suite with it; each goal is then credited to a kept test. ``rescue`` is given
    the names of the tests kept and of those the cover drops, and names the dropped
    ones to keep all the same (the live meter's: those that add goals of TestCov's
    labelled build, which can take other paths than the native replay where a
    program reads indeterminate memory).

    An open goal a test reached unconfirmed keeps a test that reaches it, after the
    cover: TestCov's run may reach it.

    Greedy set cover by marginal gain (``_greedy_cover``); the generation order
    breaks ties, so the result is deterministic."""
    kept = _greedy_cover(board.records, set(board.covered), lambda r: r.covers)
    kept += _greedy_cover(board.records, set(board.unconfirmed).difference(
        *(r.unconfirmed for r in kept)), lambda r: r.unconfirmed)
    chosen = {id(r) for r in kept}
    dropped = [r for r in board.records if id(r) not in chosen]
    if dropped and rescue is not None:
        saved = set(rescue([r.test.name for r in kept], [r.test.name for r in dropped]))
        kept += [r for r in dropped if r.test.name in saved]
    kept.sort(key=board.records.index)
    if len(kept) < len(board.records):
        if board.run.suite is not None:
            board.run.suite.keep_only([r.test.name for r in kept])
        credit: dict[str, TestRecord] = {}
        for r in kept:
            for g in r.covers:
                credit.setdefault(g, r)
        for g in board.covered:
            board.covered[g] = credit[g].test.name
        for g in board.unconfirmed:
            board.unconfirmed[g] = next(r.test.name for r in kept if g in r.unconfirmed)
        for c in board.contradictions:  # named by a test the suite still holds
            c.test = board.covered.get(c.goal) or board.unconfirmed.get(c.goal) or c.test
        board.records = kept
        board.notify(Reduced(len(kept)))
    return kept




def _greedy_cover(records: list[TestRecord], left: set[str],
                  reaches: Callable[[TestRecord], frozenset[str]]) -> list[TestRecord]:
    """Records whose ``reaches`` cover ``left``, chosen by marginal gain as Tiger-MGP
    removes redundant tests (Ruland et al., STTT 2021): each step keeps the record that
    covers the most goals still uncovered, the generation order breaking ties. (Sorted
    once by all the goals each covers, a large test whose goals others had covered
    already was kept before a smaller one that covered more of what was left.)

    Lazy: a record's gain only falls as goals are covered, so a heap of gains computed
    earlier bounds them from above, and the top is taken once its gain, computed again,
    still tops the heap (the greedy choice, without a pass over every record per step)."""
    heap = [(-len(reaches(r) & left), k) for k, r in enumerate(records)]
    heapq.heapify(heap)
    kept = []
    while heap and left:
        stale, k = heapq.heappop(heap)
        gain = len(reaches(records[k]) & left)
        if not gain:
            continue
        if -gain != stale:  # covered in part since: back, with the gain it has now
            heapq.heappush(heap, (-gain, k))
            continue
        kept.append(records[k])
        left -= reaches(records[k])
    return kept
