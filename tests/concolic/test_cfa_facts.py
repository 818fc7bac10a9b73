"""Static CFA facts behind the strategies: dominance (cgs), control dependence
(carfast), distances to open goals (cfg)."""
from __future__ import annotations

from cooptest.analyses.concolic.cfa_facts import StaticInfo

SOURCE = r"""
extern int __VERIFIER_nondet_int(void);
int g;
void f(void) { g = 1; g = 2; }
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  if (x > 0) {
    if (y > 0) { f(); }
    x = 3;
  }
  if (y == 2) return 1;
  return 0;
}
"""


def test_dominance_control_dependence_and_distance(make_program) -> None:
    put = make_program(SOURCE)
    program = put.program
    by_line = {bp.line: bp.id for bp in program.branch_points.values()}
    outer, inner, last = by_line[8], by_line[9], by_line[12]
    info = StaticInfo(program)
    assert info.branch_dominates(outer, True, inner)
    assert not info.branch_dominates(outer, False, inner)
    assert not info.branch_dominates(outer, True, last)  # the join comes before it
    assert not info.branch_dominates(inner, True, last)
    outer_true = info.region(info.edge(outer, True))
    inner_true = info.region(info.edge(inner, True))
    assert inner_true < outer_true  # transitively dependent, nested region included
    assert any(e.src.function == "f" for e in inner_true)  # the called body counts
    assert not info.region(info.edge(last, True)) & outer_true
    dist = info.distances({f"B{last}T"})
    assert dist[info.edge(last, True).src] == 0
    assert dist[info.edge(outer, True).src] > dist[info.edge(outer, False).dst] >= 0
