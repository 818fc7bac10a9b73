"""Horn clauses solved by Spacer (analyses/chc.py): what it proves, where it stays out,
and that a deadline never ends a goal's queries. Soundness on adversarial programs is in
tests/soundness/test_proofs.py."""
from __future__ import annotations

import math
import re

import pytest
import z3

from cooptest.analyses.chc import CHCAnalysis, CHCState, Clauses, FIRST_LIMIT_MS
from cooptest.core.analysis import Job
from cooptest.core.budget import Budget, DeadlineReached

HEAD = """extern void abort(void);
void reach_error(void) { abort(); }
extern unsigned int __VERIFIER_nondet_uint(void);
extern int __VERIFIER_nondet_int(void);
void __VERIFIER_assert(int cond) { if (!(cond)) { ERROR: reach_error(); } }
"""

# sv-benchmarks' recursive-simple/sum_non_eq: the summary sum(n, m) == n + m (mod 2^32)
RECURSION = HEAD + """unsigned sum(unsigned n, unsigned m) { if (n == 0) { return m; } return sum(n - 1, m + 1); }
int main(void) { unsigned a = __VERIFIER_nondet_uint(), b = __VERIFIER_nondet_uint();
  if (sum(a, b) != a + b) { reach_error(); } return 0; }
"""

# loop-invgen's jain_1: the goal sits in __VERIFIER_assert, which needs its calling context
PARITY = HEAD + """int main() { int y = 1;
  while (1) { y = y + 2 * __VERIFIER_nondet_int(); __VERIFIER_assert(y != 0); } return 0; }
"""


def run(board, seconds: float = 20, state: CHCState | None = None):
    return CHCAnalysis().run(board, Job(board.open(), Budget.seconds(seconds), state=state))


def test_a_recursive_summary_proves_the_error_unreachable(program_of):
    board = program_of(RECURSION)
    outcome = run(board)
    error = next(g for g in board.goals.values() if g.kind == "error-call" and g.function == "main")
    assert error.id in board.infeasible and board.infeasible[error.id].startswith("chc:")
    assert outcome.state.why_not is None
    assert "main" in {board.goals[g].function for g, a in outcome.state.answered.items() if a == "sat"}


def test_a_goal_inside_a_callee_is_proved_with_its_calling_contexts(program_of):
    board = program_of(PARITY)
    run(board)
    inside = {g.id: g.kind for g in board.goals.values() if g.function == "__VERIFIER_assert"}
    proved = {g: board.infeasible[g] for g in inside if g in board.infeasible}
    assert sorted(inside[g] for g in proved) == ["branch", "error-call"]  # the side to the error
    assert all("with calling contexts" in proof for proof in proved.values())


def test_memory_is_unknown_and_the_registers_still_prove(program_of):
    """An array element, a heap cell and a variable whose address is taken: their reads
    are unknown, so the goals that depend on them stay open; the loop's counter and a
    pointer checked before (as forester's dll asserts ``end`` non-null twice) live in
    registers, whatever the stores through pointers do."""
    board = program_of(HEAD + """struct N { struct N *next; int v; };
int main() { int a[4], i = 0, x = 0, *p = &x; struct N *n = malloc(sizeof(struct N));
  if (n == 0) { abort(); }
  while (i < 4) { a[i] = __VERIFIER_nondet_int(); i++; }
  *p = a[2]; n->next = n; n->v = x;
  if (a[1] == 3) { return 1; }
  if (x == 5) { return 2; }
  if (n->v == 6) { return 3; }
  if (i != 4) { reach_error(); }
  if (n == 0) { reach_error(); }
  return 0; }
""")
    outcome = run(board)
    assert outcome.state.why_not is None and outcome.stopped == "exhausted"
    proved = {board.goals[g].line for g in board.infeasible}
    assert {14, 15} <= proved  # i != 4; n checked before
    assert not proved & {11, 12, 13}  # what memory holds


def test_a_call_through_a_pointer_is_left_alone_with_the_reason(program_of):
    board = program_of(HEAD + """int f(int x) { return x + 1; }
int main() { int (*fp)(int) = f; int y = fp(__VERIFIER_nondet_int());
  if (y == 3) { reach_error(); } return 0; }
""")
    outcome = run(board)
    assert not board.infeasible and outcome.stopped == "exhausted"
    assert outcome.state.why_not == "line 7: a call through a pointer"


# Two goals that need nonlinear invariants (sums of squares and of cubes): Spacer
# decides neither within a second.
HARD = HEAD + """int main() { unsigned i = 0, a = 0, b = 0;
  while (__VERIFIER_nondet_int()) { i++; a += i * i; b += i * i * i; }
  if (6 * a != i * (i + 1) * (2 * i + 1)) { return 1; }
  if (4 * b != i * i * (i + 1) * (i + 1)) { return 2; }
  return 0; }
"""


def test_jobs_shorter_than_a_query_take_the_goals_in_turn(program_of):
    """CoVeriTest's rounds give Spacer short jobs: a goal whose query each job interrupts is
    asked after the others of its limit, which then have their turn too."""
    board = program_of(HARD)
    state = None
    for _ in range(6):
        state = run(board, seconds=0.8, state=state).state
    hard = {board.goals[g].line: g for g in state.interruptions}
    assert sorted(hard) == [8, 9]  # both, not the first again and again
    assert not board.infeasible and set(state.limits) <= set(state.interruptions)


def test_a_function_without_variables_has_clauses_without_quantifier(program_of):
    """A rule over no variables at all (``f``'s summary): z3 refuses a quantifier
    without variables."""
    board = program_of(HEAD + """void f(void) { }
int main() { unsigned x = __VERIFIER_nondet_uint(); f();
  if (x + 1 == 0 && x != 4294967295u) { reach_error(); } return 0; }
""")
    run(board)
    assert [board.goals[g].kind for g in board.infeasible].count("error-call") == 1


def test_a_library_call_given_memory_changes_no_register(program_of):
    """What a library function is given (a memory read, a pointer) does not matter to
    the clauses: it has no address of a register to write through."""
    board = program_of(HEAD + """extern int printf(const char *, ...);
extern void *malloc(unsigned long);
int main() { unsigned x = __VERIFIER_nondet_uint(); char *s = malloc(4);
  if (s != 0) { printf("%c %p", *s, s); }
  if (x + 1 == 0 && x != 4294967295u) { reach_error(); } return 0; }
""")
    outcome = run(board)
    assert outcome.state.why_not is None
    assert [board.goals[g].kind for g in board.infeasible].count("error-call") == 1


def test_a_deadline_decides_nothing_and_the_next_job_goes_on(program_of):
    """Interrupted while the clauses are built or while a query runs: no limit doubled, nothing
    marked reachable; the next job proves the goal."""
    board = program_of(RECURSION)
    first = run(board, seconds=0.0005)
    assert first.unfinished and not board.infeasible
    assert not first.state.limits and not first.state.answered
    run(board, state=first.state)
    assert any(board.goals[g].kind == "error-call" for g in board.infeasible)
    assert all(limit >= FIRST_LIMIT_MS for limit in first.state.limits.values())


class Countdown(Budget):
    """A budget that lasts ``checks`` looks at it: a deadline at a chosen edge."""

    def __init__(self, checks: int) -> None:
        super().__init__(math.inf)
        self.checks = checks

    def expired(self) -> bool:
        self.checks -= 1
        return self.checks < 0


def test_a_build_the_deadline_interrupted_goes_on_where_it_stopped(program_of):
    """The edges encoded before the interruption are not encoded again (a rule added twice would
    do no harm but the time), and the finished clauses are those of an uninterrupted build:
    Spacer proves the error unreachable."""
    board = program_of(RECURSION)
    clauses = Clauses(board.program, contexts=False)
    with pytest.raises(DeadlineReached):
        clauses.build(Countdown(3))
    assert clauses.built == 3 < len(clauses.pending)
    clauses.build(Budget.seconds(20))
    assert clauses.built == len(clauses.pending)
    error = next(g for g in board.goals.values() if g.kind == "error-call" and g.function == "main")
    assert clauses.query(error.edge, 10_000) == z3.unsat


def test_a_job_goes_on_with_the_clauses_of_the_job_before(program_of):
    board = program_of(RECURSION)
    first = CHCAnalysis().run(board, Job(board.open(), Countdown(5), state=None))
    assert first.unfinished and 0 < first.state.encodings[False].built
    kept = first.state.encodings[False]
    run(board, state=first.state)
    assert first.state.encodings[False] is kept
    assert any(board.goals[g].kind == "error-call" for g in board.infeasible)


def test_a_refused_proof_is_not_asked_for_again(program_of):
    """A program whose reach_error returns blocks every proof (cfa/proof_blockers.py): the
    goal Spacer proves is refused by the board, and its query is not repeated until the
    budget ends."""
    board = program_of(RECURSION.replace("void reach_error(void) { abort(); }", "void reach_error(void) { }"))
    outcome = run(board, seconds=20)
    assert not board.infeasible and board.refused
    assert outcome.stopped == "exhausted" and "unsat" in outcome.state.answered.values()


DOUBLED = HEAD + """int main(void) { int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 1000) return 0;
  int i = 0, s = 0;
  while (i < n) { s += 2; i++; }
  if (s != 2 * i) reach_error();
  return 0;
}
"""


def test_a_proof_shows_spacers_invariant_at_the_goal(program_of):
    """A proof is its evidence, not a sentence to take on trust: the invariant Spacer
    found before the branch, over the program's own variable names. The error call's own
    location is unreachable, so Spacer's invariant there is a contradiction (``False``, or
    ``s == 2*i`` with its negation) that says nothing; the proof shows the one before."""
    board = program_of(DOUBLED)
    run(board)
    error = next(g for g in board.goals.values() if g.kind == "error-call" and g.function == "main")
    proof = board.infeasible[error.id]
    shown = re.search(r"the invariant at line (\d+): (.*)", proof)
    assert shown and int(shown[1]) <= error.line, proof
    assert re.search(r"\bs == 2\*i\b|\b2\*i == s\b", shown[2]) and "Not(" not in shown[2], proof

