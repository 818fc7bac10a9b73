"""Random testing draws the constants the program's conditions compare with (a parser's
``c == '['`` is one draw in thousands for the plain distribution, a few in a hundred
with the dictionary), and makes its vectors longer only when a run read them all."""
from __future__ import annotations

import random

from cooptest.analyses.random_testing import DICTIONARY, InputSource, RandomTesting, dictionary
from cooptest.core.analysis import Job
from cooptest.core.budget import Budget

PARSER = """extern char __VERIFIER_nondet_char(void);
int main(void) {
  char a = __VERIFIER_nondet_char(), b = __VERIFIER_nondet_char();
  int kind = 0;
  if (a == '[') {
    if (b == '%') kind = 2;
    else kind = 1;
  }
  return kind * 0;  /* exit code 1 would mean "inputs ran out" */
}
"""


def test_the_dictionary_is_the_conditions_constants(program_of) -> None:
    board = program_of(PARSER)
    # '[' and '%' are compared with; 3 is among the small values drawn anyway
    assert dictionary(board.program) == (ord("%"), ord("["))


def test_dictionary_values_are_drawn_as_often_as_said() -> None:
    source = InputSource(random.Random(0), dictionary=(91,))
    drawn = [source.value() for _ in range(10_000)]
    share = sum(v in ("90", "91", "92") for v in drawn) / len(drawn)
    assert DICTIONARY * 0.8 < share < DICTIONARY * 1.2


def test_random_testing_passes_a_parsers_two_character_guard(program_of) -> None:
    """Both bytes equal to constants: in a few hundred native runs with the dictionary
    (without it, one chance in ~20,000 per byte)."""
    board = program_of(PARSER)
    RandomTesting(rng_seed=0).run(board, Job(frozenset(board.open()), Budget.seconds(60)))
    assert not board.open() and board.stats["iterations"] < 2000


def test_a_program_exiting_with_1_does_not_lengthen_the_vectors(program_of) -> None:
    """Exit code 1 is the harness's "inputs ran out" only when the run read them all
    (grep exits with 1 when no line matches)."""
    board = program_of("""extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x == 12345) return 0;
  return 1;
}
""")
    outcome = RandomTesting(rng_seed=0).run(board, Job(frozenset(board.open()), Budget.seconds(60)))
    assert not board.open() and outcome.state.length == 8  # type: ignore[attr-defined]
