"""CoVeriTest: interleaving with reuse decides what no single short run decides, and
every verdict names the analysis and round that produced it."""
from __future__ import annotations

import pytest

from cooptest.cooperation.coveritest import REUSE_TYPES, Reuse, paper_pair, parse_sequence, scaled
from cooptest.core.analysis import Job
from cooptest.core.budget import Budget
from cooptest.core.registry import Settings, make_analysis
from cooptest.errors import UserError

# The loop runs 30 times whatever the input; the branch inside it on the input is easy
# for value analysis, the dead branch after it needs predicates over the input.
PROGRAM = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int s = 0;
  for (int i = 0; i < 30; i++) { if (x == 7) s++; }
  if (x > 5) {
    if (x < 3) return 1; /* dead */
    return 2;
  }
  return 0;
}
"""


def test_reuse_types_are_the_papers_nine() -> None:
    assert len(REUSE_TYPES) == 9
    assert Reuse.named("cond-vp+r").conditioned == {"value", "predicate"}
    assert Reuse.named("cond-vp+r").own == "precision"
    assert Reuse.named("reuse-arg").own == "arg" and not Reuse.named("reuse-arg").conditioned
    with pytest.raises(UserError):
        Reuse.named("reuse-everything")


def test_time_limits_scale_the_papers_pairs_and_parse_sequences() -> None:
    assert scaled(paper_pair("20/80"), 90.0) == (("value", 2.0), ("predicate", 8.0))
    assert parse_sequence("concolic:1.5,predicate:3") == (("concolic", 1.5), ("predicate", 3.0))
    for bad in ("value", "value:0", "value:x", ":3", "value:inf"):
        with pytest.raises(UserError):
            parse_sequence(bad)


@pytest.mark.parametrize("reuse", ["reuse-arg", "cond-vp", "reuse-prec"])
def test_interleaving_decides_every_goal_and_names_analysis_and_round(program_of, reuse) -> None:
    board = program_of(PROGRAM)
    # Predicate analysis under value's condition needs 1.4 s idle on this program, 3 s
    # with both cores busy (it explores the product with the unrolled loop): a shorter
    # limit makes the test measure the machine's load, not the interleaving.
    coveritest = make_analysis("coveritest", Settings(extra={
        "sequence": "value:0.5,predicate:8", "reuse": reuse}))
    outcome = coveritest.run(board, Job(board.open(), Budget.seconds(60)))
    assert not board.open(), reuse
    assert len(board.infeasible) == 1 and outcome.state.round >= 1
    for goal, origin in board.origin.items():
        assert origin.split(" ")[0] in ("value", "predicate") and "(round " in origin
    for test in board.tests:  # every proof survives every native replay
        assert not board.executor.run(test.inputs).covered & set(board.infeasible)


def test_the_report_lists_each_analysis_of_the_sequence_and_why_it_stayed_out(program_of) -> None:
    """In the portfolio Spacer runs inside CoVeriTest's rounds: where it stays out of a
    program (a call through a pointer), report.json says so, not just that CoVeriTest ran."""
    board = program_of(PROGRAM.replace("int s = 0;", "int s = 0; int (*f)(int) = id; x = f(x);")
                       .replace("int main", "int id(int x) { return x; }\nint main"))
    coveritest = make_analysis("coveritest", Settings(extra={
        "sequence": "chc:1,value:0.5,predicate:8", "reuse": "reuse-arg"}))
    outcome = coveritest.run(board, Job(board.open(), Budget.seconds(60)))
    runs = outcome.state.runs(outcome.stopped, 1.0)
    assert [r.analysis for r in runs] == ["coveritest: chc", "coveritest: value", "coveritest: predicate"]
    assert runs[0].why_not == "line 5: a call through a pointer" and runs[0].stopped == "exhausted"
    assert runs[1].why_not is None and runs[2].why_not is None
    assert all(r.stopped == "exhausted" for r in runs[1:])  # the rounds went on after Spacer's
