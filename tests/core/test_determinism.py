"""Which programs run the same path on the same inputs (``cfa.determinism``), and that the
board confirms runs of the others only."""
from __future__ import annotations

import pytest

from cooptest.cfa.determinism import variation_source

HEAD = "extern int __VERIFIER_nondet_int(void);\n#include <stdlib.h>\n#include <time.h>\n"
FIXED = HEAD + """int g[4];
int twice(int v) { int r; r = 2 * v; return r; }
int sign(int v) { if (v < 0) return -1; if (v > 0) return 1; }
int pick(int v) { if (v > 0) return 1; else return 2; }  /* no end without a value */
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y;
  if (x > 0) y = twice(x); else y = -x * pick(x);
  g[2] = y;
  struct { int a, b; } s = {0};
  for (int i = 0; i < 3; i++) { int t; t = i + g[2] + s.a; if (t > 7) return 1; }
  return y > 5;
}
"""
VARYING = {  # a statement that makes the path vary -> what the reason says
    "int z; if (x) z = 1; if (z) return 2;": "z may be read before it is assigned",
    "int a[4]; if (a[1]) return 2;": "declared without a whole initialiser",
    "if (g[x & 3]) return 2;": "computed index",
    "int *p = malloc(4); if (*p) return 2;": "malloc()",
    "if (time(0) & 1) return 2;": "time()",
    "if (((long) &x) & 16) return 2;": "an address converted to a number",
    "int *p = &y; if (*p > 4) return 2;": "through an address",
    "if (sign(x) > 0) return 2;": "sign() may end without returning a value",
}


def test_a_program_of_registers_globals_and_calls_has_one_path_per_input(program_of) -> None:
    board = program_of(FIXED)
    assert variation_source(board.program) is None and board.variation is None
    for x in ("3", "-9", "0"):
        board.submit([x], "test")
    assert board.executions == 3 and "confirmations" not in board.stats


@pytest.mark.parametrize("statement", sorted(VARYING))
def test_what_can_make_a_path_vary_is_named_and_confirmed(program_of, statement: str) -> None:
    board = program_of(FIXED.replace("  g[2] = y;\n", f"  g[2] = y;\n  {statement}\n"))
    reason = variation_source(board.program)
    assert reason is not None and VARYING[statement] in reason
    assert reason.split(":")[1].strip().isdigit()  # file:line: reason
    board.submit(["3"], "test")
    assert board.stats["confirmations"] == 1 and board.executions == 2
