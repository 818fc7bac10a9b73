"""``--library concrete``: CREST's C library, which is not instrumented, so that a call
computes on the run's values of its arguments and of the bytes it reads; against the
default, where ``strcmp``, ``strlen``, ``strchr`` and copies are terms over them."""
from __future__ import annotations

import pytest

from cooptest.analyses.concolic import ConcolicAnalysis
from cooptest.core.analysis import Job
from cooptest.core.budget import Budget

from test_addresses import decided_lines

CALLS = {
    "strcmp": 'strcmp(buf, "key") == 0',
    "strlen": "strlen(buf) == 1",
    "strchr": "strchr(buf, 'e') == buf + 1",
    "memcpy": "(memcpy(copy, buf, 3), copy[2] == 'y')",
    "strcpy": "(strcpy(copy, buf), copy[1] == 'e')",
}


def program(condition: str) -> str:
    return f"""#include <string.h>
extern char __VERIFIER_nondet_char(void);
int main(void) {{
  char buf[4], copy[4];
  for (int i = 0; i < 3; i++) buf[i] = __VERIFIER_nondet_char();
  buf[3] = 0;
  if ({condition}) return 1;
  return 2;
}}
"""


def run(put, library: str):
    analysis = ConcolicAnalysis(fresh_inputs="zero", library=library)
    return analysis.run(put, Job(frozenset(put.goals), Budget.seconds(20.0)))


def goal(put, outcome: bool) -> str:
    (name,) = [g for g, v in put.goals.items() if v.line == 7 and g.endswith("T" if outcome else "F")]
    return name


@pytest.mark.parametrize("call", CALLS)
def test_a_modelled_call_is_a_term_of_the_inputs_by_default(make_program, call: str) -> None:
    put = make_program(program(CALLS[call]))
    run(put, "symbolic")
    assert goal(put, True) in put.covered  # the solver chose the bytes that make it true


@pytest.mark.parametrize("call", CALLS)
def test_a_concrete_call_gives_no_decision_and_no_proof(make_program, call: str) -> None:
    """The call's result is a number, so its branch is no decision to negate (the
    default makes it one), and the tree that runs out proves nothing."""
    put = make_program(program(CALLS[call]))
    result = run(put, "concrete")
    assert 7 not in decided_lines(put, result)
    assert not put.infeasible and not result.state.exact
    put = make_program(program(CALLS[call]))
    assert 7 in decided_lines(put, run(put, "symbolic"))
