"""Invariant templates in the predicate analysis: the proofs they make possible, and
Houdini's rule that drops a candidate an abstraction does not confirm."""
from __future__ import annotations

from cooptest.analyses.reachability import PredicateAnalysis
from cooptest.analyses.reachability.predicate import PredicatePrecision, loop_counters
from cooptest.analyses.reachability.templates import templates
from cooptest.core.analysis import Job
from cooptest.core.budget import Budget

from reach_helpers import goal_at, line_of

PARITY = """extern int __VERIFIER_nondet_int(void);
void check(int c) { if (!c) { return; } }  /* !c: dead as well */
int main(void) {
  int y = 1;
  int n = __VERIFIER_nondet_int();
  while (n > 0) {
    y = y + 2 * __VERIFIER_nondet_int();
    check(y);
    n--;
  }
  if (y == 0) { return 1; }  /* infeasible: y stays odd */
  return 0;
}
"""

ORDER = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int i = 0, k = 0;
  while (i < 1000) {
    int j = __VERIFIER_nondet_int();
    if (j < 1 || j > 100) return 0;
    i = i + j;
    k++;
  }
  if (k > 1000) { return 1; }  /* infeasible: k <= i, and i < 1000 before the last step */
  return 0;
}
"""


def _analysed(program, seeds, seconds: float = 60):
    """The predicate analysis' run on ``program`` after the ``seeds`` (the body's goals,
    as testing covers them first in the default)."""
    for inputs in seeds:
        program.submit(inputs, "seed")
    return PredicateAnalysis().run(program, Job(program.open(), Budget.seconds(seconds)))


def _texts(program, line: int) -> set[str]:
    return {key for loop, preds in templates(program.program) if loop.head.line == line
            for key in preds}


def test_a_parity_invariant_proves_what_refinement_along_paths_cannot(program_of):
    program = program_of(PARITY)
    assert "((main::y & 1) == 0)" in _texts(program, line_of(PARITY, "while"))
    dead = goal_at(program, line_of(PARITY, "infeasible"), True)
    result = _analysed(program, ())
    assert program.infeasible.get(dead, "").startswith("predicate: complete ARG of ")
    assert result.state.complete
    assert set(program.covered) | set(program.infeasible) == set(program.goals)

    without = program_of(PARITY)  # the same analysis without templates gives the goal up
    PredicateAnalysis().run(without, Job(without.open(), Budget.seconds(20),
                                         precision=PredicatePrecision()))
    assert dead not in without.infeasible


def test_an_order_between_counters_proves_a_bound(program_of):
    program = program_of(ORDER)
    head = line_of(ORDER, "while")
    assert "(main::k <= main::i)" in _texts(program, head)
    dead = goal_at(program, line_of(ORDER, "infeasible"), True)
    result = _analysed(program, (["0"], ["101"], ["100"] * 10))
    assert program.infeasible.get(dead, "").startswith("predicate: complete ARG of ")
    trial = next(c for loc, c in result.state.precision.candidates.items() if loc.line == head)
    assert trial == {"(main::k <= main::i)": True, "(0 <= main::k)": True}, "Houdini keeps only invariants"


BALANCE = """extern unsigned int __VERIFIER_nondet_uint(void);
int main(void) {
  unsigned int n = __VERIFIER_nondet_uint();
  unsigned int x = n, y = 0, z;
  while (x > 0) { x--; y++; }
  z = y;
  while (z > 0) { x++; z--; }
  while (y > 0) { y--; z++; }
  if (z != n) { return 1; }  /* infeasible */
  return 0;
}
"""


def test_balanced_counters_carry_a_value_through_three_loops(program_of):
    """in-de31's shape: ``x + y == n``, ``x + z == n``, ``y + z == n`` at the three
    heads. ``y`` is no loop counter to keep exactly, though it is tested against 0 at a
    loop head and only ever stepped by one: the first loop steps it as often as ``x``
    says, so exact values would unroll that loop forever."""
    program = program_of(BALANCE)
    assert "((main::x + main::y) == main::n)" in _texts(program, line_of(BALANCE, "while (x > 0)"))
    dead = goal_at(program, line_of(BALANCE, "infeasible"), True)
    result = _analysed(program, (["1"],))
    assert program.infeasible.get(dead, "").startswith("predicate: complete ARG of ")
    assert not {v.source_name for v in result.state.precision.explicit} & {"y", "z"}
    assert not loop_counters(program.program), "y and z step in loops x and z count"


AFFINE = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int i, n, a, b;
  i = 0; a = 0; b = 0; n = __VERIFIER_nondet_int();
  if (!(n >= 0 && n <= 1000000)) return 0;
  while (i < n) {
    if (__VERIFIER_nondet_int()) { a = a + 1; b = b + 2; }
    else { a = a + 2; b = b + 1; }
    i = i + 1;
  }
  if (a + b != 3 * n) { return 1; }  /* infeasible */
  return 0;
}
"""


def test_an_affine_relation_of_the_body_paths_proves_a_sum(program_of):
    """bhmr2007 (Path Invariants, PLDI 2007): each path through the body adds 3 to
    ``a + b`` and 1 to ``i``; neither pair is balanced, the three together are."""
    program = program_of(AFFINE)
    assert "((main::a + main::b) == (3 * main::i))" in _texts(program, line_of(AFFINE, "while"))
    dead = goal_at(program, line_of(AFFINE, "infeasible"), True)
    _analysed(program, (["-1"], ["0"], ["2", "1", "0"]))
    assert program.infeasible.get(dead, "").startswith("predicate: complete ARG of ")


HALVES = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int(), i, k;
  k = n;
  i = 0;
  while (i < n) { k--; i = i + 2; }
  if (i + 2 * k != 2 * n) { return 1; }  /* infeasible */
  return 0;
}
"""


def test_an_affine_relation_starts_from_a_variable_the_loop_leaves_alone(program_of):
    """half_2's first loop: ``k`` starts at ``n``, which the loop does not write."""
    program = program_of(HALVES)
    assert "((main::i + (2 * main::k)) == (2 * main::n))" in _texts(program, line_of(HALVES, "while"))
    dead = goal_at(program, line_of(HALVES, "infeasible"), True)
    _analysed(program, (["0"], ["3"]))
    assert program.infeasible.get(dead, "").startswith("predicate: complete ARG of ")


BOUNDED = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int max = __VERIFIER_nondet_int();
  if (!(max > 0 && max < 2147483647)) return 0;
  int start = 0;
  int bound = start + (max + 1) - 1;
  int lim = bound;
  int p;
  for (p = start; p <= lim; p++) {
    if (p < 0) { return 1; }  /* infeasible: p >= start == 0, and p <= lim < INT_MAX */
    if (p >= max + 1) { return 2; }  /* infeasible: p <= lim == max */
  }
  return 0;
}
"""


def test_what_the_code_before_a_loop_establishes_proves_its_bounds(program_of):
    """NetBSD_loop's shape: the loop never writes ``lim``, ``bound``, ``start`` or
    ``max``, so what the code before it assumes and assigns of them holds at every
    iteration, and ``start <= p`` holds as ``p`` only steps up from ``start``. The
    chain of definitions ``lim == bound``, ``bound == start + ...``, ``start == 0`` must
    be carried into the next block in that order, or ``lim`` keeps ``bound``'s old value."""
    program = program_of(BOUNDED)
    texts = _texts(program, line_of(BOUNDED, "for"))
    assert {"(main::lim == main::bound)", "(main::start == 0)", "(main::max < 2147483647)",
            "(main::start <= main::p)"} <= texts
    dead = {goal_at(program, line_of(BOUNDED, "p < 0"), True),
            goal_at(program, line_of(BOUNDED, "p >= max + 1"), True)}
    # gcc folds ``(max + 1) - 1`` to ``max``: predicate's proofs hold once no overflow is
    # shown there (chc's work in a run, by the guard ``max < 2147483647``; given here)
    assert {s.line for s in program.program.proof_blockers.overflow_sites.values()} >= {
        line_of(BOUNDED, "int bound")}
    for site in program.program.proof_blockers.overflow_sites:
        program.prove_no_overflow(site, "the guard max < 2147483647")
    _analysed(program, (["0"], ["5"]))
    assert all(program.infeasible.get(g, "").startswith("predicate: complete ARG of ") for g in dead)


OFFSETS = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int(), size = __VERIFIER_nondet_int(), len = __VERIFIER_nondet_int();
  if (!(n > 0 && n < 1000000 && size > 0 && size < 1000000 && len > 0 && len < 1000000)) return 0;
  int p = 0, i;
  int size0 = size;
  size -= n;
  p += n;
  if (size < 2 * len) return 0;
  for (i = 0; i < len; i++) {
    if (p + 1 >= size0) { return 1; }  /* infeasible: p == 2*i + n, size0 == size + n */
    p += 2;
  }
  return 0;
}
"""


def test_steps_before_a_loop_are_undone_to_relate_its_variables(program_of):
    """MADWiFi-encode_ie_ok's shape: ``size`` is stepped down after ``size0`` copies it,
    and ``p`` enters the loop at ``n``, not at the 0 it was first given."""
    program = program_of(OFFSETS)
    texts = _texts(program, line_of(OFFSETS, "for"))
    assert {"(main::size0 == (main::size + main::n))", "(main::p == ((2 * main::i) + main::n))"} <= texts
    dead = goal_at(program, line_of(OFFSETS, "infeasible"), True)
    _analysed(program, (["0"], ["1", "10", "2"]))
    assert program.infeasible.get(dead, "").startswith("predicate: complete ARG of ")


WRAPS = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int max = __VERIFIER_nondet_int();
  if (!(max > 0)) return 0;
  int start = 0;
  int lim = max;
  int p;
  for (p = start; p <= lim; p++) {
    if (p < 0) { return 1; }  /* reached for max == INT_MAX: p wraps after 2^31 iterations */
  }
  return 0;
}
"""
BUMPED = """extern int __VERIFIER_nondet_int(void);
int g;
void bump(void) { g = g + 1; }
int main(void) {
  int n = __VERIFIER_nondet_int();
  int i = 0;
  g = 0;
  while (i < n) {
    bump();
    i++;
    if (g > 1) { return 1; }  /* reached for n >= 2: g == 0 holds only at entry */
  }
  return 0;
}
"""


def test_what_does_not_hold_at_every_iteration_proves_nothing(program_of):
    """Adversarial: without a bound below INT_MAX on ``lim`` the counter wraps at
    ``max == INT_MAX`` and ``p < 0`` is reachable (after 2^31 iterations: no test finds
    it, no proof may claim it); a callee in the loop writes the global of the fact
    ``g == 0``; without ``size > 0``, ``size -= n`` wraps and the offsets' bound fails."""
    program = program_of(WRAPS)
    wrapped = goal_at(program, line_of(WRAPS, "p < 0"), True)
    _analysed(program, (["0"], ["5"]), 20)
    assert wrapped not in program.infeasible

    program = program_of(BUMPED)
    reached = goal_at(program, line_of(BUMPED, "g > 1"), True)
    assert "(g == 0)" in _texts(program, line_of(BUMPED, "while"))
    _analysed(program, (), 20)
    assert reached not in program.infeasible
    assert reached in program.submit(["2"], "check").covered

    wrapping = OFFSETS.replace("size > 0 && ", "")
    program = program_of(wrapping)
    reached = goal_at(program, line_of(wrapping, "infeasible"), True)
    _analysed(program, (), 20)
    assert reached not in program.infeasible


SUM = """extern unsigned char __VERIFIER_nondet_uchar(void);
extern unsigned short __VERIFIER_nondet_ushort(void);
int main(void) {
  unsigned char n = __VERIFIER_nondet_uchar();
  unsigned int s = 0, i = 0;
  while (i < n) {
    unsigned char v = __VERIFIER_nondet_uchar();
    s += v;
    ++i;
  }
  if (s > 65025) { return 1; }  /* infeasible: s <= 255 * i, and i <= n <= 255 */
  return 0;
}
"""


def test_a_sum_of_bytes_grows_by_at_most_255_an_iteration(program_of):
    """linear-inequality-inv-a's shape: the bound ``s <= 255 * i`` comes from the type of
    what is added; the adversarial twin adds unsigned shorts, and its goal is reached."""
    program = program_of(SUM)
    assert "(main::s <= (255 * main::i))" in _texts(program, line_of(SUM, "while"))
    dead = goal_at(program, line_of(SUM, "infeasible"), True)
    _analysed(program, (["0"], ["2", "1", "1"]))
    assert program.infeasible.get(dead, "").startswith("predicate: complete ARG of ")

    shorts = SUM.replace("unsigned char v = __VERIFIER_nondet_uchar()", "unsigned short v = __VERIFIER_nondet_ushort()")
    program = program_of(shorts)
    assert "(main::s <= (65535 * main::i))" in _texts(program, line_of(shorts, "while"))
    reached = goal_at(program, line_of(shorts, "infeasible"), True)
    _analysed(program, (), 20)
    assert reached not in program.infeasible
    assert reached in program.submit(["1", "65535"], "check").covered
