"""BiTe (cooperation/bite.py): goals reachable only in ways a backward analysis must
not miss (aliasing, a loop's iteration count, a callee's result, a global another
function sets, a call through a pointer) are never claimed infeasible; truly dead goals
are proven infeasible, by the backward analysis, and the board checks every
proof against every native run."""
from __future__ import annotations

import pytest

from cooptest.analyses.backward import BackwardReachability
from cooptest.analyses.concolic import ConcolicAnalysis
from cooptest.core.analysis import Job
from cooptest.core.board import GoalBoard
from cooptest.core.budget import Budget
from cooptest.core.registry import Settings, make_analysis
from cooptest.cooperation.bite import GCFG, ORIGIN, BiTe, BiTeState, RState

HEADER = "extern int __VERIFIER_nondet_int(void);\nextern void abort(void);\n"


def run(board: GoalBoard, seconds: float = 6.0, **options: object) -> BiTeState:
    outcome = BiTe(**options).run(board, Job(board.open(), Budget.seconds(seconds)))  # type: ignore[arg-type]
    assert isinstance(outcome.state, BiTeState)
    return outcome.state


def goals_on(board: GoalBoard, source: str, marker: str = "GOAL") -> set[str]:
    lines = [k + 1 for k, text in enumerate((HEADER + source).splitlines()) if marker in text]
    assert lines, marker
    return {g for g, goal in board.goals.items() if goal.line in lines and g.endswith("T")}


REACHABLE = {
    "aliasing": """
int main(void) {
  int a = 0, b = 0;
  int *p = __VERIFIER_nondet_int() ? &a : &b;
  *p = __VERIFIER_nondet_int();
  if (a == 7) { return 1; } /* GOAL */
  return 0;
}""",
    "loop-count": """
int main(void) {
  int n = __VERIFIER_nondet_int(), c = 0;
  for (int i = 0; i < n && i < 10; i++) c++;
  if (c == 5) { return 1; } /* GOAL */
  return 0;
}""",
    "callee-result": """
int inc(int x) { return x + 1; }
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 100) return 0;
  if (inc(x) == 3) { return 1; } /* GOAL */
  return 0;
}""",
    # widening at loop heads (a formula that comes back to a loop head is weakened) must
    # not lose what makes these reachable: a wrap-around, a maximum of loop counts
    "wrap-around": """
int main(void) {
  unsigned char c = 0;
  int n = __VERIFIER_nondet_int();
  for (int k = 0; k < n && k < 4; k++) c += 64;
  if (c == 0 && n > 3) { return 1; } /* GOAL */
  return 0;
}""",
    "maximum-of-loop-counts": """
int h(void) {
  int c = 0;
  for (int j = 0; j < 3; j++) if (__VERIFIER_nondet_int() == c) c++;
  return c;
}
int main(void) {
  int r = 0;
  for (int i = 2; i > 0; i--) { int t = h(); if (t > r) r = t; }
  if (r == 3) { return 1; } /* GOAL */
  return 0;
}""",
    "global-set-elsewhere": """
int flag;
void set(void) { flag = 1; }
int main(void) {
  if (__VERIFIER_nondet_int() == 42) set();
  if (flag) { return 1; } /* GOAL */
  return 0;
}""",
    "function-pointer": """
int hit(int x) {
  if (x == 3) { return 1; } /* GOAL */
  return 0;
}
int main(void) {
  int (*f)(int) = hit;
  return f(__VERIFIER_nondet_int());
}""",
    # a call through a pointer may call any function whose address is taken
    "set-through-a-pointer-table": """
int flag;
void none(void) {}
void set(void) { flag = 1; }
void (*table[2])(void) = { none, set };
int main(void) {
  int k = __VERIFIER_nondet_int();
  if (k < 0 || k > 1) return 0;
  table[k]();
  if (flag) { return 1; } /* GOAL */
  return 0;
}""",
    "argument-through-a-pointer": """
int twice(int x) { return 2 * x; }
int check(int x) {
  if (x == 7) { return 1; } /* GOAL */
  return 0;
}
int main(void) {
  int (*f)(int) = __VERIFIER_nondet_int() ? twice : check;
  return f(__VERIFIER_nondet_int());
}""",
    # the callee is entered only through a pointer passed as an argument, or held in a
    # struct: its locations are connected to the start (Algorithm 3 drops none of them)
    "callback-argument": """
int hit(int x) {
  if (x == 3) { return 1; } /* GOAL */
  return 0;
}
int apply(int (*f)(int), int v) { return f(v); }
int main(void) { return apply(hit, __VERIFIER_nondet_int()); }""",
    "callee-of-a-pointer-in-a-struct": """
int deep(int x) {
  if (x == 9) { return 1; } /* GOAL */
  return 0;
}
int mid(int x) { return deep(x + 1); }
struct ops { int (*run)(int); } table = { mid };
int main(void) { return table.run(__VERIFIER_nondet_int()); }""",
    "store-through-parameter": """
void put(int *q, int v) { *q = v; }
int main(void) {
  int a = 0;
  put(&a, __VERIFIER_nondet_int());
  if (a > 5 && a < 9) { return 1; } /* GOAL */
  return 0;
}""",
}


@pytest.mark.parametrize("order", ["balanced", "found"])
@pytest.mark.parametrize("name", sorted(REACHABLE))
def test_a_reachable_goal_is_never_claimed_infeasible(make_program, name: str, order: str) -> None:
    source = REACHABLE[name]
    board = make_program(HEADER + source)
    goals = goals_on(board, source)
    run(board, order=order)
    assert not goals & board.infeasible.keys(), board.infeasible
    assert goals <= board.covered.keys()  # and BiTe's tests reach it natively


SPIN = "  int w = __VERIFIER_nondet_int();\n  while (w > 0) w--;  /* concolic never exhausts this */\n"
DEAD = {
    "contradiction": """
int main(void) {
""" + SPIN + """  int x = __VERIFIER_nondet_int();
  if (x > 5 && x < 3) { return 1; } /* GOAL */
  return 0;
}""",
    "dead-after-call": """
int clamp(int a) { if (a > 10) return 10; return a; }
int main(void) {
""" + SPIN + """  int y = clamp(__VERIFIER_nondet_int());
  if (y > 10) { return 1; } /* GOAL */
  return 0;
}""",
    "dead-in-callee": """
int size;
int get(int i) {
  if (i < 0 || i >= size) { abort(); } /* GOAL */
  return i;
}
int main(void) {
""" + SPIN + """  size = __VERIFIER_nondet_int();
  int s = 0;
  for (int i = 0; i < size; i++) s += get(i);
  return s;
}""",
    "bounded-by-loops": """
int h(void) {
  int c = 0;
  for (int j = 0; j < 30; j++) if (__VERIFIER_nondet_int() == c) c++;
  return c;
}
int main(void) {
""" + SPIN + """  int r = 0;
  for (int i = 5; i > 0; i--) { int t = h(); if (t > r) r = t; }
  if (r < 0) { return 1; } /* GOAL */
  return 0;
}""",
    "dead-behind-a-pointer": """
int clamp(int a) { if (a > 10) return 10; return a; }
int use(int y) {
  if (y > 10) { return 1; } /* GOAL */
  return 0;
}
int main(void) {
""" + SPIN + """  int (*f)(int) = use;
  return f(clamp(__VERIFIER_nondet_int()));
}""",
    "never-called": """
int unused(int x) {
  if (x > 0) { return 1; } /* GOAL */
  return 0;
}
int main(void) {
""" + SPIN + """  return w;
}""",
}


@pytest.mark.parametrize("order", ["balanced", "found"])
@pytest.mark.parametrize("name", sorted(DEAD))
def test_a_dead_goal_is_proven_infeasible_by_backward_reachability(make_program, name: str, order: str) -> None:
    source = DEAD[name]
    board = make_program(HEADER + source)
    goals = goals_on(board, source)
    run(board, order=order)
    dead = goals - board.covered.keys()
    assert dead and dead <= board.infeasible.keys(), (board.covered, board.infeasible)
    assert all(board.infeasible[g].startswith("bite: backward reachability") for g in dead)


def test_an_incomplete_exploration_proves_nothing(make_program) -> None:
    """With too few R-states allowed the backward exploration of the dead goal is incomplete:
    no proof (and in particular not a wrong one)."""
    source = DEAD["dead-in-callee"]
    board = make_program(HEADER + source)
    goals = goals_on(board, source)
    state = run(board, 3.0, max_r_states=2)
    assert not goals & board.infeasible.keys()
    assert any(b.incomplete for b in state.backward.values())


def test_a_function_pointer_made_from_an_integer_proves_nothing(make_program) -> None:
    """The pointer may then hold any function: the callers of a function whose address
    is taken are unknown, the exploration is incomplete, the dead goal stays unknown."""
    source = DEAD["dead-behind-a-pointer"].replace(
        "int (*f)(int) = use;", "long a = (long) &use;\n  int (*f)(int) = (int (*)(int)) a;")
    board = make_program(HEADER + source)
    goals = goals_on(board, source)
    state = run(board)  # the spin's slow runs may take a 3-s budget before the exploration stops
    assert not goals & board.infeasible.keys()
    assert any("made from an integer" in (b.incomplete or "") for b in state.backward.values())


def test_a_pointer_made_from_an_integer_but_only_read_back_as_one_is_harmless(make_program) -> None:
    """CIL's drivers do ``compFptr = compRegistered; pended = compFptr;``: the pointer
    is never called, the pointer call of the program still has known callees."""
    source = DEAD["dead-behind-a-pointer"].replace(
        "int (*f)(int) = use;", "int (*f)(int) = use;\n  int (*saved)(int) = (int (*)(int)) w;\n"
        "  w = (int) saved;")
    board = make_program(HEADER + source)
    goals = goals_on(board, source)
    run(board)
    dead = goals - board.covered.keys()
    assert dead and dead <= board.infeasible.keys()


def test_slices_resume_the_gcfg(make_program) -> None:
    """The state carries the GCFG: several short jobs reach the verdict of one."""
    source = DEAD["dead-after-call"]
    board = make_program(HEADER + source)
    goals = goals_on(board, source)
    bite, state = BiTe(), None
    for _ in range(40):
        outcome = bite.run(board, Job(board.open(), Budget.seconds(0.2), state=state))
        state = outcome.state
        if outcome.stopped in ("done", "exhausted"):
            break
    assert goals - board.covered.keys() <= board.infeasible.keys()
    assert board.stats["it_f"] >= board.stats["it_b"] >= 1


def test_the_registry_makes_bite_with_every_frontier_order() -> None:
    assert make_analysis("bite").order == "balanced"  # type: ignore[attr-defined]
    for order in ("found", "nearest", "balanced"):
        assert make_analysis("bite", Settings(extra={"bite_order": order})).order == order  # type: ignore[attr-defined]


# Algorithms 2 and 3, step by step: a GCFG whose S-states are those of a few native runs,
# so that the frontier, not concolic search, decides the goals

TWO_GOALS = """
int main(void) {
""" + SPIN + """  int x = __VERIFIER_nondet_int();
  if (x > 5) {
    if (x < 3) { return 1; } /* DEAD */
  }
  int y = __VERIFIER_nondet_int();
  if (y == 1000) { return 2; } /* GOAL */
  return 0;
}"""

# a run with x == 3 meets the R-state (x == 3 && x > 0) before ``x > 0``: it is dropped
# with its descendants, and with them the last R-state of the goal left to extend; the
# goal is still reachable (r == 42)
MET_NOT_COVERED = """
int main(void) {
""" + SPIN + """  int x = __VERIFIER_nondet_int();
  if (x > 0) {
    int r = __VERIFIER_nondet_int();
    if (r == 42 && x == 3) { return 1; } /* GOAL */
  }
  return 0;
}"""


def few_runs_gcfg(board: GoalBoard, order: str) -> GCFG:
    """A GCFG after Algorithm 2's first step, limited to three native runs (the S-states
    of two paths: the first run checks the program); later DSE slices are unlimited."""
    bite = BiTe(order=order)
    unlimited, bite.dse = bite.dse, ConcolicAnalysis(max_iterations=3)
    gcfg = GCFG(bite, board, Job(board.open(), Budget.seconds(120)), BiTeState(ORIGIN))
    gcfg.state.iterations = 1
    gcfg.frontier_step()
    bite.dse, gcfg.state.dse_exhausted = unlimited, False
    return gcfg


def descendants(r: RState, live: list[RState]) -> list[RState]:
    out = [r]
    for x in live:
        if x.parent is not None and any(x.parent is y for y in out):
            out.append(x)
    return out


def test_an_unsatisfiable_frontier_edge_leads_the_reachability_step(make_program) -> None:
    """Algorithm 2: where S /\\ R is unsatisfiable, the reachability step extends that R
    (and no R-state of another goal, as a round robin over goals would)."""
    board = make_program(HEADER + TWO_GOALS)
    gcfg = few_runs_gcfg(board, "found")
    state, followed = gcfg.state, 0
    for _ in range(200):
        state.iterations += 1
        if not board.has_open() or not gcfg.frontier_step():
            break
        if not state.frontier:
            continue
        _, _, s, r = state.frontier[0]
        b = state.backward.get(r.goal)
        unsat = b is not None and r in b.pending and board.is_open(r.goal) and gcfg.meet(s, r)[0] == "unsat"
        others = {g: list(o.pending) for g, o in state.backward.items() if g != r.goal}
        state.iterations += 1
        gcfg.frontier_step()
        if unsat:
            assert b is not None and r not in b.pending
            assert r.removed or any(x.parent is r for x in b.live)
            assert others == {g: list(o.pending) for g, o in state.backward.items() if g != r.goal}
            followed += 1
        gcfg.coarsen()
        gcfg.prove()
    assert followed
    dead = goals_on(board, TWO_GOALS, "DEAD")
    assert dead <= board.infeasible.keys()
    assert goals_on(board, TWO_GOALS) <= board.covered.keys()


def test_an_r_state_a_test_satisfies_is_dropped_with_its_descendants(make_program) -> None:
    """Algorithm 3: S /\\ R satisfiable in an exact S-state drops R and what its
    backward exploration found, and the goal can no longer be proven."""
    board = make_program(HEADER + TWO_GOALS)
    gcfg = few_runs_gcfg(board, "found")
    state, met = gcfg.state, 0
    for _ in range(200):
        if not board.has_open():
            break
        state.iterations += 1
        if not state.frontier:
            if not gcfg.frontier_step():
                break
            continue
        _, _, s, r = state.frontier[0]
        b = state.backward.get(r.goal)
        exact = b is not None and not r.removed and board.is_open(r.goal) and gcfg.meet(s, r)[0] == "exact"
        below = descendants(r, b.live) if b is not None else []
        gcfg.frontier_step()
        if exact:
            assert b is not None and b.met and not b.complete()
            assert all(x.removed and x not in b.pending for x in below)
            met += 1
        gcfg.coarsen()
        gcfg.prove()
    assert met and board.stats["bite_met"] >= met


@pytest.mark.parametrize("order", ["found", "balanced"])
def test_a_goal_whose_r_state_a_test_met_is_never_proven(make_program, order: str) -> None:
    """End to end: the met R-state is dropped, the goal stays reachable and is covered
    (the step-by-step test above checks that the mark keeps its exploration from
    counting as complete)."""
    board = make_program(HEADER + MET_NOT_COVERED)
    goals = goals_on(board, MET_NOT_COVERED)
    gcfg = few_runs_gcfg(board, order)
    gcfg.loop()
    assert not goals & board.infeasible.keys(), board.infeasible
    assert goals <= board.covered.keys()


def test_r_states_no_path_from_the_start_reaches_are_dropped(make_program) -> None:
    """Algorithm 3: the goals of a function nothing calls are proven at once, their
    R-states disconnected, without a backward step."""
    source = DEAD["never-called"]
    board = make_program(HEADER + source)
    goals = goals_on(board, source)
    run(board)
    assert goals <= board.infeasible.keys()
    assert all("(0 R-states" in board.infeasible[g] for g in goals), board.infeasible
    assert board.stats["bite_disconnected"] >= len(goals)


@pytest.mark.parametrize("name", ["callback-argument", "callee-of-a-pointer-in-a-struct",
                                  "function-pointer", "set-through-a-pointer-table"])
def test_every_location_of_a_function_a_pointer_may_call_is_connected(make_program, name: str) -> None:
    board = make_program(HEADER + REACHABLE[name])
    backward = BackwardReachability(board.program)
    assert all(backward.connected(loc) for f in board.program.functions.values() for loc in f.reachable())


def test_check_valves_alarm_covered_and_error_branch_proven(make_program, seed_examples) -> None:
    source = (seed_examples / "check_valves.c").read_text()
    board = make_program(source)
    run(board, 20.0)
    assert len(board.covered) + len(board.infeasible) == len(board.goals)
    alarm = next(k + 1 for k, t in enumerate(source.splitlines()) if "ALARM" in t and "return" in t)
    assert any(board.goals[g].line == alarm for g in board.covered)
    guard = next(k + 1 for k, t in enumerate(source.splitlines()) if "i >= size" in t)
    assert {g for g in board.infeasible if board.goals[g].line == guard}


def test_unreach_i_below_zero_proven_by_widening(make_program, seed_examples) -> None:
    """The issue's figure: ``i < 0`` in ``call`` is dead because ``r`` is a maximum of
    loop counts; only a widened backward exploration completes."""
    source = (seed_examples / "unreach.c").read_text()
    board = make_program(source)
    run(board, 20.0)
    guard = next(k + 1 for k, t in enumerate(source.splitlines()) if "i < 0" in t)
    dead = {g for g in board.goals if board.goals[g].line == guard and g.endswith("T")}
    assert dead and dead <= board.infeasible.keys()
    assert all(board.infeasible[g].startswith("bite: backward reachability") for g in dead)
