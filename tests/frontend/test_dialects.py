"""The C that gcc accepts by default (gnu17) and the old dialects real programs are
written in: each construct is read, built into a CFA whose decisions are the native
run's (symbolic replay of the CFA agrees with the compiled program), or refused with
the file and line."""
from __future__ import annotations

from pathlib import Path

import pytest

from cooptest.analyses.concolic.replay import TermMemo, replay
from cooptest.analyses.concolic.solver import Symbols
from cooptest.errors import UserError
from cooptest.frontend import load_program
from cooptest.harness.executor import Executor
from cooptest.task import load_task

HEAD = "extern int __VERIFIER_nondet_int(void);\n"


def agreed_goals(tmp_path: Path, source: str, vectors: list[list[str]]) -> set[str]:
    """The goals the native runs of ``vectors`` cover, each run's branch decisions
    checked against the symbolic replay of the CFA."""
    path = tmp_path / "p.c"
    path.write_text(source)
    fe = load_program(load_task(str(path)), str(tmp_path / "work"))
    executor = Executor(fe, str(tmp_path / "build"))
    symbols, memo = Symbols(), TermMemo()
    covered: set[str] = set()
    for inputs in vectors:
        execution = executor.run(inputs)
        assert not execution.crashed and not execution.timed_out, inputs
        path_ = replay(fe.program, execution, symbols, memo, set())
        assert path_.divergences == 0 and not path_.imprecise, inputs
        assert path_.trace == list(execution.decisions()), inputs
        covered |= execution.covered
    return covered


def goals_of(tmp_path: Path, source: str) -> set[str]:
    path = tmp_path / "p.c"
    path.write_text(source)
    return {g.id for g in load_program(load_task(str(path)), str(tmp_path / "work")).program.goals()}


def refusal(tmp_path: Path, source: str) -> str:
    path = tmp_path / "p.c"
    path.write_text(source)
    with pytest.raises(UserError) as err:
        load_program(load_task(str(path)), str(tmp_path / "work"))
    assert "\n" not in str(err.value)
    return str(err.value)


# ---------------------------------------------------------------- statement expressions

STATEMENT_EXPRESSIONS = HEAD + """struct trie { int a; };
struct obstack { char *next; char *base; };
#define obstack_finish(h) ({ struct obstack *__o1 = (h); void *value = __o1->base; \\
                             __o1->next += 1; value; })
#define obstack_copy(h) ({ struct obstack *__h = (h); __h->next = __h->base; obstack_finish(__h); })
int main(void) {
  int x = __VERIFIER_nondet_int();
  struct trie t; char buf[4]; struct obstack o = { buf, buf + 2 };
  struct trie *p = (struct trie *) ({ struct trie *q = &t; q->a = x; q; });
  char *c = (char *) obstack_copy(&o);
  int y = ({ 2; }) + ({ x; }) * 2;
  y = -({ y; });
  if (({ int z = y; z < -10; })) { return 1; }
  if (c == buf + 2) { return 2; }
  return ({ p->a; }) == 3 ? 4 : 5;
}
"""


def test_statement_expressions_are_primary_expressions(tmp_path: Path) -> None:
    """A cast of ``({...})`` (obstack.h's ``obstack_alloc``), ``({...})`` as an operand,
    in a condition, and as the last statement of another, which gives that one its
    value (obstack.h's ``obstack_copy``: the native build must not make it a block)."""
    covered = agreed_goals(tmp_path, STATEMENT_EXPRESSIONS, [["3"], ["7"], ["-2"]])
    assert {"B1T", "B1F", "B2T"} <= covered  # c == buf + 2: the inner value came through
    assert "B2F" not in covered


# ---------------------------------------------------------------- syntax errors


@pytest.mark.parametrize("source, line", [
    ("int main(void) {\n  int x = 1;\n  x = x + ;\n  return 0;\n}\n", 3),  # Invalid expression
    ("int main(void) {\n  return 0;\n}\nint f(void) { return (int) ; }\n", 4),
    ("int x;\n\n  @ y;\n", 3),
])
def test_a_syntax_error_names_its_line(tmp_path: Path, source: str, line: int) -> None:
    message = refusal(tmp_path, source)
    assert f"p.c:{line}: not C or unsupported syntax" in message
