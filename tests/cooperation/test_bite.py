"""BiTe (cooperation/bite.py): goals reachable only in ways a backward analysis must
not miss (aliasing, a loop's iteration count, a callee's result, a global another
function sets, a call through a pointer) are never claimed infeasible; truly dead goals
are proven infeasible, by the backward analysis, and the board checks every
proof against every native run."""
from __future__ import annotations

import pytest

from cooptest.core.analysis import Job
from cooptest.core.board import GoalBoard
from cooptest.core.budget import Budget
from cooptest.core.registry import Settings, make_analysis
from cooptest.cooperation.bite import BiTe, BiTeState

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
    "store-through-parameter": """
void put(int *q, int v) { *q = v; }
int main(void) {
  int a = 0;
  put(&a, __VERIFIER_nondet_int());
  if (a > 5 && a < 9) { return 1; } /* GOAL */
  return 0;
}""",
}


@pytest.mark.parametrize("name", sorted(REACHABLE))
def test_a_reachable_goal_is_never_claimed_infeasible(make_program, name: str) -> None:
    source = REACHABLE[name]
    board = make_program(HEADER + source)
    goals = goals_on(board, source)
    run(board)
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


@pytest.mark.parametrize("name", sorted(DEAD))
def test_a_dead_goal_is_proven_infeasible_by_backward_reachability(make_program, name: str) -> None:
    source = DEAD[name]
    board = make_program(HEADER + source)
    goals = goals_on(board, source)
    run(board)
    dead = goals - board.covered.keys()
    assert dead and dead <= board.infeasible.keys(), (board.covered, board.infeasible)
    assert all(board.infeasible[g].startswith("bite: backward reachability") for g in dead)


def test_a_cut_exploration_proves_nothing(make_program) -> None:
    """With too few R-states allowed the backward exploration of the dead goal is cut:
    no proof (and in particular not a wrong one)."""
    source = DEAD["dead-in-callee"]
    board = make_program(HEADER + source)
    goals = goals_on(board, source)
    state = run(board, 3.0, max_r_states=2)
    assert not goals & board.infeasible.keys()
    assert any(b.cut for b in state.backward.values())


def test_a_function_pointer_made_from_an_integer_proves_nothing(make_program) -> None:
    """The pointer may then hold any function: the callers of a function whose address
    is taken are unknown, the exploration is cut, the dead goal stays unknown."""
    source = DEAD["dead-behind-a-pointer"].replace(
        "int (*f)(int) = use;", "long a = (long) &use;\n  int (*f)(int) = (int (*)(int)) a;")
    board = make_program(HEADER + source)
    goals = goals_on(board, source)
    state = run(board)  # the spin's slow runs may take a 3-s budget before the cut
    assert not goals & board.infeasible.keys()
    assert any("made from an integer" in (b.cut or "") for b in state.backward.values())


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


def test_the_registry_makes_bite_with_either_frontier_order() -> None:
    assert make_analysis("bite").name == "bite"
    assert make_analysis("bite", Settings(extra={"bite_order": "found"})).order == "found"  # type: ignore[attr-defined]


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
