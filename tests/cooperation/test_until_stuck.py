"""Random testing's warm-up in the portfolio lasts as long as it still finds goals
(``core.parallel.UntilStuck``): a program it has run dry hands the core on after the
warm-up's least share; one where it keeps covering goals keeps it past that share."""
from __future__ import annotations

import shutil
import time

import pytest

from cooptest.core.analysis import Job
from cooptest.core.budget import Budget
from cooptest.core.parallel import Lane, StuckBudget, UntilStuck, run_lanes
from cooptest.core.registry import Settings, make_analysis

DRY = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int a = __VERIFIER_nondet_int();
  if (a > 0) a = 1;
  if (a > 5 && a < 3) return 2; /* dead: random testing covers neither, and proves nothing */
  return 0;
}
"""

# Each run takes a tenth of a second, and the 40 cases of a hashed input come one by one
# (a coupon collector): after 6 s, about 60 runs, random testing still finds new ones. Its
# first runs (the zero vector's case, then a few) may pause longer than a third of a turn
# of a second: the least share is 1.8 s.
STEADY = """#include <unistd.h>
extern int __VERIFIER_nondet_int(void);
int main(void) {
  unsigned h = (unsigned)__VERIFIER_nondet_int() * 2654435761u;
  usleep(100000);
  switch ((h >> 16) % 40) {
""" + "".join(f"  case {k}: h = {k}; break;\n" for k in range(40)) + """  }
  return 0;
}
"""


def test_a_warm_up_that_finds_nothing_more_hands_its_core_to_the_next_analysis(program_of) -> None:
    board = program_of(DRY)
    lane = Lane([(UntilStuck(make_analysis("random", Settings()), 0.1), None),
                 (make_analysis("random", Settings(seed=1)), None)], "testing")
    runs = run_lanes(board, [lane], board.open(), Budget.seconds(8))
    assert [(r.analysis, r.stopped) for r in runs] == [("random", "stuck"), ("random", "budget")]
    assert 0.7 <= runs[0].seconds < 4  # its share (a tenth of what the lane had left), stuck soon after


def test_a_stuck_warm_up_says_so_of_the_goals_it_left_open(program_of) -> None:
    board = program_of(DRY)
    outcome = UntilStuck(make_analysis("random", Settings()), 0.1).run(
        board, Job(board.open(), Budget.seconds(10)))
    assert outcome.stopped == "stuck" and len(board.open()) == 3  # a > 5, both outcomes of a < 3
    assert all(board.gave_up[g]["random"] == ("it stopped finding goals and handed its core on", True)
               for g in board.open())


def test_a_warm_up_still_finding_goals_goes_on_past_its_share(program_of) -> None:
    board = program_of(STEADY)
    started = time.monotonic()
    outcome = UntilStuck(make_analysis("random", Settings()), 0.3).run(
        board, Job(board.open(), Budget.seconds(6)))
    assert outcome.stopped == "budget" and time.monotonic() - started >= 5.9
    assert 10 <= len(board.covered) < len(board.goals)  # still finding when its time ran out
    assert len(outcome.state.corpus) >= 10  # type: ignore[attr-defined]


def test_the_portfolio_hands_on_the_core_of_a_stuck_warm_up_or_search() -> None:
    """Random testing's warm-up, or AFL++'s, until stuck; on a large program concolic
    search from the start, until stuck, then the fuzzer."""
    from cooptest.cooperation.portfolio import LARGE, RANDOM_SHARE, SEARCH_LEAST, lanes_for

    (warm_up, share), *_ = lanes_for(2, Settings(), 100, 60.0)[0].analyses
    assert isinstance(warm_up, UntilStuck) and warm_up.least == RANDOM_SHARE and share is None
    (search, share), (then, _) = lanes_for(2, Settings(), LARGE + 1, 60.0)[0].analyses
    assert isinstance(search, UntilStuck) and search.name == "concolic" and search.least == SEARCH_LEAST
    assert then.name == "random" and share is None
    if shutil.which("afl-fuzz") is None:
        pytest.skip("afl++ is not installed: --fuzzer afl is refused")
    (warm_up, share), *_ = lanes_for(2, Settings(extra={"fuzzer": "afl"}), 100, 60.0)[0].analyses
    assert isinstance(warm_up, UntilStuck) and warm_up.name == "afl" and share is None


def test_a_turns_finds_move_its_deadline_and_nothing_else_does(program_of) -> None:
    """The deadline ``StuckBudget`` gives a turn: ``least`` after its start until a test covers
    a goal first, then half as long again as the turn had run when it did; a test
    that covers nothing new leaves it where it was."""
    board = program_of(DRY)
    stuck = StuckBudget(Budget.seconds(60), board, 0.5)
    assert stuck.deadline == pytest.approx(stuck.began + 0.5)
    time.sleep(0.6)
    assert stuck.expired()
    assert board.submit(["3"], "test").new  # a > 0, a <= 5, a >= 3 ...
    found = time.monotonic() - stuck.began
    assert not stuck.expired()
    assert stuck.deadline == pytest.approx(stuck.began + 1.5 * found, abs=0.05)
    time.sleep(0.2)
    before = stuck.deadline
    assert not board.submit(["3"], "test").new
    assert stuck.deadline == before
