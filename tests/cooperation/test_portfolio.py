"""Analyses on several cores share one board: every result reaches the parent, every
worker sees the others' results, cancelling stops them all."""
from __future__ import annotations

import queue
import tempfile
import threading
import time

import pytest

from cooptest.core.analysis import Job
from cooptest.core.board_view import Labelled
from cooptest.core.budget import Budget
from cooptest.core.parallel import Lane, WorkerBoard, run_lanes
from cooptest.core.registry import Settings, make_analysis

DEAD = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  if (x > 5) {
    if (x < 3) return 1; /* dead */
    if (y == 123456) return 2;
    return 3;
  }
  return 0;
}
"""


def test_lanes_share_the_board_and_decide_every_goal(program_of) -> None:
    board = program_of(DEAD)
    lanes = [Lane([(make_analysis("random", Settings()), None)], "random"),
             Lane([(make_analysis("predicate", Settings()), None)], "predicate")]
    run_lanes(board, lanes, board.open(), Budget.seconds(60))
    assert not board.open() and len(board.infeasible) == 1
    assert {o.split(" ")[0] for o in board.origin.values()} <= {"random", "predicate"}
    assert [board.origin[g] for g in board.infeasible] == ["predicate"]
    for test in board.tests:  # the parent's record of a worker's test is a real native run
        assert board.executor.run(test.inputs).covered >= {
            g for g, name in board.covered.items() if name == test.name}


def test_a_rounds_label_reaches_the_parent_with_a_lanes_tests_and_proofs(program_of) -> None:
    """CoVeriTest in a lane hands each round's analysis a labelled worker board: the
    parent's board names the round in the origin of what the worker found."""
    board = program_of(DEAD)
    coveritest = make_analysis("coveritest", Settings(extra={"sequence": "value:0.5,predicate:8"}))
    run_lanes(board, [Lane([(coveritest, None)], "proving")], board.open(), Budget.seconds(30))
    assert not board.open() and board.infeasible
    assert all(o.split(" ")[0] in ("value", "predicate") and o.endswith(")") and "(round " in o
               for o in board.origin.values())
    with pytest.raises(TypeError):  # lanes fork from the process's board, not a lane's
        run_lanes(Labelled(board, "round 1"), [], board.open(), Budget.seconds(1))


def test_a_worker_asks_which_goals_are_open_with_the_other_lanes_results_in(program_of) -> None:
    board = program_of(DEAD)
    from cooptest.core.lane_events import News

    inbox: queue.Queue[News] = queue.Queue()
    worker = WorkerBoard(board, 0, queue.Queue(), inbox)
    try:
        *covered, last = sorted(worker.open())
        inbox.put(News("covered", tuple(covered), "test0"))
        assert worker.has_open() and worker.has_open(covered + [last]) and not worker.has_open(covered)
        assert worker.is_open(last) and not worker.is_open(covered[0]) and not worker.is_open("NO-GOAL")
        inbox.put(News("infeasible", (last,), "proof"))
        assert not worker.is_open(last) and not worker.has_open() and not worker.open()
    finally:
        worker.executor.close()


def test_cancelling_the_budget_stops_every_worker(program_of, tmp_path, monkeypatch) -> None:
    """... and leaves none of their temporary files: terminated, a worker removes none
    of its tests' working folders itself (it left two in /tmp per run before)."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    board = program_of(DEAD.replace("if (x < 3) return 1; /* dead */", ""))
    budget = Budget.seconds(60)
    lanes = [Lane([(make_analysis("random", Settings()), None)], "random")] * 2
    board.goals["NEVER"] = board.goals[next(iter(board.goals))]  # a goal no run covers
    threading.Timer(1.0, budget.cancel).start()
    started = time.monotonic()
    run_lanes(board, lanes, board.open(), budget)
    assert time.monotonic() - started < 10
    assert board.executions > 10  # the workers' native runs are counted by the parent
    import multiprocessing
    assert not multiprocessing.active_children()
    board.executor.close()
    assert list(scratch.iterdir()) == []


def test_the_portfolio_decides_what_neither_testing_nor_proving_alone_decides(program_of) -> None:
    board = program_of(DEAD)
    outcome = make_analysis("auto", Settings(extra={"jobs": 2})).run(
        board, Job(board.open(), Budget.seconds(60)))
    assert outcome.stopped == "done" and len(board.infeasible) == 1


def test_the_runs_of_every_lane_are_listed_with_how_they_stopped(program_of) -> None:
    """What report.json's "analyses" shows: each lane's analyses in order; one that
    stayed out of the program says why; one the deadline stopped, ``budget``."""
    board = program_of("""extern int __VERIFIER_nondet_int(void);
int id(int x) { return x; }
int main(void) {
  int (*f)(int) = id, a[2];
  a[1] = f(__VERIFIER_nondet_int());
  if (a[1] > 5 && a[1] < 3) return 1; /* dead, and no analysis of these lanes proves it */
  return 0;
}
""")
    lanes = [Lane([(make_analysis("chc", Settings()), None), (make_analysis("random", Settings()), None)],
                  "proving"),
             Lane([(make_analysis("random", Settings(seed=1)), None)], "testing")]
    from cooptest.core.board_events import LaneRan
    from cooptest.core.parallel import LaneRecords

    told = LaneRecords()  # what the board's listeners heard, as the report hears it
    seen: set[tuple[int, str, str]] = set()  # what they heard ran on each core, as runs ended
    board.run.listeners += [lambda b, event: seen.update(
        (k, s.lane, s.analysis) for k, s in told.running.items()) if isinstance(event, LaneRan) else None, told]
    runs = run_lanes(board, lanes, board.open(), Budget.seconds(2))
    assert seen and seen <= {(0, "proving", "chc"), (0, "proving", "random"), (1, "testing", "random")}
    assert told.running == {} and told.runs() == runs
    assert [(r.lane, r.analysis, r.stopped) for r in runs] == [
        ("proving", "chc", "exhausted"), ("proving", "random", "budget"), ("testing", "random", "budget")]
    assert runs[0].why_not == "line 5: a call through a pointer" and runs[1].why_not is None
    assert all(0 <= r.seconds <= 3 for r in runs) and runs[2].seconds >= 1.5


def test_the_lanes_by_the_size_of_the_program() -> None:
    """Measured (benchmarks/RESULTS.md): on pals_lcr's 13k goals a second lane (CoVeriTest,
    directed concolic search) proves nothing in a minute and takes CPU from concolic
    search: there concolic search has a core from the start, the quick proofs the other,
    which random testing then shares with the board and the TestCov-style count. Below,
    CoVeriTest has half the proving lane and BiTe the rest (its proofs on the NT drivers).
    Either way the call graph and the field invariants open the proving lane: they take
    milliseconds to a second; below, Spacer's Horn clauses have the first turn of every
    CoVeriTest round."""
    from cooptest.cooperation.portfolio import LARGE, lanes_for

    def names(goals: int, jobs: int = 2) -> dict[str, list[str]]:
        return {lane.name: [analysis.name for analysis, _ in lane.analyses]
                for lane in lanes_for(jobs, Settings(), goals, 900.0)}

    assert names(LARGE) == {
        "testing": ["random", "concolic", "random"],
        "proving": ["callgraph", "fields", "coveritest", "bite", "concolic", "random"]}
    proving = lanes_for(2, Settings(), LARGE, 60.0)[1].analyses[2][0]
    assert [(a, round(t, 3)) for a, t in proving.configuration.pairs] == [
        ("chc", 2.0), ("value", 1.333), ("predicate", 5.333)]
    assert names(LARGE + 1) == {"testing": ["concolic", "random"], "proving": ["callgraph", "fields", "random"]}
    # Cores beyond two run random testing, whatever the program's size.
    assert names(LARGE + 1, jobs=3)["random-0"] == names(LARGE, jobs=3)["random-0"] == ["random"]


def test_the_coveritest_lane_takes_the_users_reuse_time_pair_and_sequence() -> None:
    """``--reuse``, ``--time-pair`` and ``--sequence`` reach auto's CoVeriTest lane (they
    were accepted and ignored): on one core and on two, Spacer's turn first unless the
    user's sequence says otherwise."""
    from cooptest.cooperation.portfolio import lanes_for

    def lane(jobs: int, **extra: object):
        lanes = lanes_for(jobs, Settings(extra=extra), 10, 90.0)
        return next(a for ln in lanes for a, _ in ln.analyses if a.name == "coveritest").configuration

    for jobs in (1, 2):
        config = lane(jobs, reuse="cond-p", time_pair="10/10")
        assert config.reuse.name == "cond-p"
        assert [(a, round(t, 3)) for a, t in config.pairs][1:] == [("value", 1.0), ("predicate", 1.0)]
        assert lane(jobs, sequence="predicate:3,value:1").pairs == (("predicate", 3.0), ("value", 1.0))


def test_workers_report_in_batches(program_of) -> None:
    """A message per covered goal or per count flooded the parent on pals_lcr (13k goals,
    tests covering thousands): a worker sends one message per test it keeps and its
    native runs and counts every REPORT_EVERY seconds."""
    from cooptest.core.parallel import REPORT_EVERY
    source = ("extern int __VERIFIER_nondet_int(void);\nint main(void) {\n"
              "  int x = __VERIFIER_nondet_int(), s = 0;\n"
              + "".join(f"  if (x > {k}) s++;\n" for k in range(0, 400, 4))
              + "  if (x == 123456789) s = 0;  /* random testing runs its whole budget */\n"
              + "  return s;\n}\n")
    board = program_of(source)
    messages: dict[str, int] = {}
    lanes = [Lane([(make_analysis("random", Settings(seed=k)), None)], f"random-{k}") for k in (1, 2)]
    seconds = 3.0
    run_lanes(board, lanes, board.open(), Budget.seconds(seconds),
              on_event=lambda event: messages.__setitem__(kind := type(event).__name__, messages.get(kind, 0) + 1))
    assert board.executions > 100 and len(board.covered) > 150
    batches = len(lanes) * (seconds / REPORT_EVERY + 2)
    assert messages.get("Executions", 0) <= batches and messages.get("Counts", 0) <= batches
    assert messages["TestFound"] >= len(board.tests)  # a test both workers found counts once
    assert sum(messages.values()) <= messages["TestFound"] + 2 * batches + 4 * len(lanes)


class _Runs:
    """Runs ``runs`` inputs that cover nothing new, then one that decides every goal."""

    name = "runs"

    def __init__(self, runs: int) -> None:
        self.runs = runs

    def run(self, board, job):
        from cooptest.core.analysis import AnalysisState, finish
        for _ in range(self.runs):
            board.submit(["0"], self.name)
            board.count("iterations")
        board.submit(["1"], self.name)
        return finish(board, job, AnalysisState(self.name))


def test_native_runs_a_worker_made_just_before_every_goal_was_decided_are_counted(
        program_of, monkeypatch) -> None:
    """The parent stops reading events once every goal is decided; a worker's runs since
    its last batch (up to REPORT_EVERY seconds of them) were lost from the report. The
    parent's wait for them is widened here: a slow machine must not fail the test, and
    the wait ends as soon as the worker exits."""
    from cooptest.core import parallel
    monkeypatch.setattr(parallel, "LAST_BATCH", 10.0)
    board = program_of("extern int __VERIFIER_nondet_int(void);\n"
                       "int main(void) { if (__VERIFIER_nondet_int()) return 1; return 0; }\n")
    run_lanes(board, [Lane([(_Runs(20), None)], "runs")], board.open(), Budget.seconds(60))
    assert not board.open()
    assert board.executions == 21 and board.stats["iterations"] == 20


class _Niceness:
    """Counts the niceness of the process it runs in, then decides every goal."""

    name = "niceness"

    def run(self, board, job):
        import os
        from cooptest.core.analysis import AnalysisState, finish
        board.count("niceness", os.nice(0))
        board.submit(["1"], self.name)
        return finish(board, job, AnalysisState(self.name))


def test_a_niced_analysis_runs_at_the_lowest_priority_in_its_worker_alone(program_of) -> None:
    """The large program's proving core runs random testing niced, so that it runs
    mostly on the CPU concolic search and the board leave idle. The lane's worker is
    lowered, the parent (the board) is not, and the lane's run keeps the analysis's name."""
    import os
    from cooptest.core.parallel import LOWEST_PRIORITY, Niced
    board = program_of("extern int __VERIFIER_nondet_int(void);\n"
                       "int main(void) { if (__VERIFIER_nondet_int()) return 1; return 0; }\n")
    before = os.nice(0)
    runs = run_lanes(board, [Lane([(Niced(_Niceness()), None)], "proving")], board.open(),
                     Budget.seconds(60))
    assert board.stats["niceness"] == LOWEST_PRIORITY
    assert os.nice(0) == before
    assert [(r.lane, r.analysis) for r in runs] == [("proving", "niceness")]


class _PreparingNiceness(_Niceness):
    """As ``_Niceness``, with work to prepare (``core.analysis.Prepares``), whose
    niceness it records."""

    def prepare(self, board):
        import os
        board.set_stat("prepared at", os.nice(0))


def test_a_niced_analysis_prepares_at_the_lanes_priority(program_of) -> None:
    """AFL++'s builds are prepared before the lane's priority is lowered: at the
    lowest, beside concolic search, they took nearly twice their time."""
    import os
    from cooptest.core.parallel import LOWEST_PRIORITY, Niced
    board = program_of("extern int __VERIFIER_nondet_int(void);\n"
                       "int main(void) { if (__VERIFIER_nondet_int()) return 1; return 0; }\n")
    before = os.nice(0)
    run_lanes(board, [Lane([(Niced(_PreparingNiceness()), None)], "proving")], board.open(), Budget.seconds(60))
    assert before < LOWEST_PRIORITY
    assert board.stats["prepared at"] == before and board.stats["niceness"] == LOWEST_PRIORITY


def test_the_figures_an_analysis_sets_in_a_worker_reach_the_parent(program_of, monkeypatch) -> None:
    """BiTe sets it_b and it_f (the iterations that reached its final counts): set on a
    worker's board alone, they never reached report.json when BiTe ran in a lane. The
    parent's wait for the last batch is widened as above."""
    from cooptest.core import parallel
    monkeypatch.setattr(parallel, "LAST_BATCH", 10.0)
    board = program_of(DEAD)
    run_lanes(board, [Lane([(make_analysis("bite", Settings()), None)], "bite")], board.open(),
              Budget.seconds(60))
    assert not board.open() and len(board.infeasible) == 1
    assert board.stats["bite_iterations"] >= board.stats["it_f"] >= board.stats["it_b"] >= 1
