"""The core: budgets form a tree, the registry names what exists, the board is the one
channel (contradictions, reduction)."""
from __future__ import annotations

import shutil
import time

import pytest

from cooptest.core.budget import Budget
from cooptest.core.registry import SEARCHES, STRATEGIES, Settings, make_analysis
from cooptest.errors import UserError


def test_a_child_budget_never_outlives_its_parent_and_cancelling_reaches_it() -> None:
    root = Budget.seconds(10)
    child = root.child(100)
    grandchild = child.child()
    assert child.deadline == pytest.approx(root.deadline)
    short = root.child(0.01)
    time.sleep(0.02)
    assert short.expired() and not root.expired()
    root.cancel()
    assert grandchild.expired() and grandchild.cancelled and grandchild.stop_reason() == "cancelled"
    assert short.stop_reason() == "cancelled"


def test_solver_limits_come_from_the_budget() -> None:
    assert Budget.seconds(0.5).solver_timeout_ms(5.0) <= 500
    assert Budget.seconds(60).solver_timeout_ms(5.0) == 5000
    assert Budget.seconds(-1).solver_timeout_ms(5.0) == 1  # never 0: z3 reads 0 as no limit


def test_the_registry_names_every_searcher_and_makes_every_strategy() -> None:
    from cooptest.analyses.concolic import SEARCHERS
    assert set(SEARCHES) == set(SEARCHERS)
    for name in STRATEGIES:
        if name == "afl" and shutil.which("afl-fuzz") is None:
            continue  # refused where afl++ is missing (tests/harness/test_afl.py)
        assert make_analysis(name, Settings()).name.split("/")[0] == name
    with pytest.raises(UserError):
        make_analysis("nope")
    with pytest.raises(UserError):
        make_analysis("concolic", Settings(search="nope"))


def test_a_labelled_board_names_the_results_that_come_through_it(program_of) -> None:
    """A cooperation hands each round's analysis the board labelled with the round; the
    innermost label names a result, and the board itself carries no round."""
    from cooptest.core.board_view import Labelled

    board = program_of("extern int __VERIFIER_nondet_int(void);\n"
                       "int main(void) { if (__VERIFIER_nondet_int() > 5) return 1; return 0; }\n")
    first = Labelled(board, "round 1")
    Labelled(first, "round 2").submit(["6"], "predicate")
    first.submit(["6"], "concolic")  # covers nothing new: kept only with keep
    first.keep(["6"], "concolic")
    board.submit(["0"], "random")
    assert sorted(set(board.origin.values())) == ["predicate (round 2)", "random"]
    assert [r.origin for r in board.records] == ["predicate (round 2)", "concolic (round 1)", "random"]
