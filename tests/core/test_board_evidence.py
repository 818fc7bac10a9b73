"""A proof's text is evidence for a reader: the board keeps its first ``PROOF_CHARS``
characters, so that no prover's slip (a type's repr with every member's) can fill
the report and the memory of the run."""
from __future__ import annotations

from cooptest.core.board import PROOF_CHARS, GoalBoard

PROGRAM = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 5) { if (x < 3) return 1; }
  return 0;
}
"""


def test_a_long_proof_is_cut_and_says_how_much(program_of) -> None:
    board: GoalBoard = program_of(PROGRAM)
    goal = "B2T"  # x < 3 under x > 5
    assert board.prove_infeasible(goal, "value: " + "x" * 10 * PROOF_CHARS)
    kept = board.infeasible[goal]
    assert kept.startswith("value: xxx") and kept.endswith(f"({9 * PROOF_CHARS + 7:,} more characters)")
    assert len(kept) < PROOF_CHARS + 40


def test_a_short_proof_is_kept_whole(program_of) -> None:
    board: GoalBoard = program_of(PROGRAM)
    goal = "B2T"  # x < 3 under x > 5
    assert board.prove_infeasible(goal, "value: complete ARG of 3 states, tracking x")
    assert board.infeasible[goal] == "value: complete ARG of 3 states, tracking x"
