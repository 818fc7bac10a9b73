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
    assert Reuse.named("cond-vp+r").producers == {"value", "predicate"}
    assert Reuse.named("cond-vp+r").conditioned_own == "precision"
    assert Reuse.named("cond-v").producers == {"value"} and Reuse.named("cond-p").producers == {"predicate"}
    assert Reuse.named("reuse-arg").own == "arg" and not Reuse.named("reuse-arg").producers
    with pytest.raises(UserError):
        Reuse.named("reuse-everything")


def test_time_limits_scale_the_papers_pairs_and_parse_sequences() -> None:
    assert scaled(paper_pair("20/80"), 90.0) == (("value", 2.0), ("predicate", 8.0))
    # the paper's pairs scale to the budget of the job, the one place the budget is given
    paired = make_analysis("coveritest", Settings(extra={"time_pair": "20/80"})).configuration
    assert paired.limits(90.0) == (("value", 2.0), ("predicate", 8.0))
    assert paired.limits(450.0) == (("value", 10.0), ("predicate", 40.0))
    given = make_analysis("coveritest", Settings(extra={"sequence": "value:3,predicate:1"})).configuration
    assert given.limits(90.0) == given.limits(450.0) == (("value", 3.0), ("predicate", 1.0))
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
    runs = outcome.state.reported_runs(outcome.stopped, 1.0)
    assert [r.analysis for r in runs] == ["coveritest: chc", "coveritest: value", "coveritest: predicate"]
    assert runs[0].why_not == "line 5: a call through a pointer" and runs[0].stopped == "exhausted"
    assert runs[1].why_not is None and runs[2].why_not is None
    assert all(r.stopped == "exhausted" for r in runs[1:])  # the rounds went on after Spacer's


# No analysis decides this program within a few tenths of a second, nor explores it
# completely: the loop runs 1000 times, each time over a fresh input.
LONG = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int s = 0;
  for (int i = 0; i < 1000; i++) {
    int x = __VERIFIER_nondet_int();
    if (x == 123456 + i) s++;
    if (x * 7 == 654321) s += 2;
  }
  if (s == 3000) return 1;
  return 0;
}
"""


class Recorded:
    """An analysis of the sequence run as it is, keeping the job each run got and the
    state it returned (how CoVeriTest's reuse shows: what it hands to which run)."""

    def __init__(self, analysis) -> None:
        self.analysis, self.name = analysis, analysis.name
        self.jobs: list[Job] = []
        self.states: list = []

    def run(self, board, job: Job):
        self.jobs.append(job)
        outcome = self.analysis.run(board, job)
        self.states.append(outcome.state)
        return outcome


def interleaved(program_of, reuse: str) -> tuple[Recorded, Recorded]:
    """The value and the predicate analysis of a 0.2/0.2-s interleaving under ``reuse``,
    after at least two rounds."""
    board = program_of(LONG)
    coveritest = make_analysis("coveritest", Settings(extra={
        "sequence": "value:0.2,predicate:0.2", "reuse": reuse}))
    coveritest.analyses = [Recorded(a) for a in coveritest.analyses]
    coveritest.run(board, Job(board.open(), Budget.seconds(3)))
    value, predicate = coveritest.analyses
    assert len(value.jobs) >= 2 and len(predicate.jobs) >= 2, "fewer than two rounds"
    return value, predicate


@pytest.mark.parametrize("reuse, producer", [("cond-v", "value"), ("cond-p", "predicate")])
def test_cond_x_has_the_other_analysis_read_xs_condition(program_of, reuse, producer) -> None:
    """FASE 2019, Sect. 3: under cond-v the value analysis is the conditional model
    checker whose condition the predicate analysis reads; under cond-p the reverse
    (they were swapped). Neither continues an ARG or takes a precision."""
    runs = dict(zip(("value", "predicate"), interleaved(program_of, reuse)))
    reader = runs["predicate" if producer == "value" else "value"]
    conditions = [j.condition for j in reader.jobs if j.condition is not None]
    assert len(conditions) >= len(reader.jobs) - 1  # all but a first run with none before it
    assert {c.name for c in conditions} == {f"condition({producer})"}
    assert all(j.condition is None for j in runs[producer].jobs)
    assert all(j.state is None and j.precision is None for r in runs.values() for j in r.jobs)


@pytest.mark.parametrize("reuse, producer", [("cond-v+r", "value"), ("cond-p+r", "predicate")])
def test_cond_x_r_continues_the_unconditioned_analysis_arg(program_of, reuse, producer) -> None:
    """FASE 2019, Sect. 3: with +r the analysis that reads no condition continues its
    ARG, the one that reads a condition restarts with its precision (both restarted
    with their precisions before)."""
    runs = dict(zip(("value", "predicate"), interleaved(program_of, reuse)))
    continuing = runs[producer]
    restarting = runs["predicate" if producer == "value" else "value"]
    for k in range(1, len(continuing.jobs)):
        job = continuing.jobs[k]
        assert job.state is continuing.states[k - 1]  # the ARG its last run returned
        assert job.precision is None and job.condition is None
    assert all(j.state is None for j in restarting.jobs)
    assert all(j.precision is not None and j.condition is not None for j in restarting.jobs[1:])
