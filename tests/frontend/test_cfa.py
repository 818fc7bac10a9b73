"""The front end on small programs with known CFAs, and on bad input."""
from __future__ import annotations

from pathlib import Path

import pytest

from cooptest.cfa.ctype import DataModel, FunctionType, PointerType
from cooptest.cfa.ir import AssignEdge, AssumeEdge, CallEdge, ErrorEdge, NondetEdge
from cooptest.errors import UserError
from cooptest.frontend import load_program
from cooptest.task import load_task


def cfa_of(tmp_path: Path, source: str, model: DataModel = DataModel.LP64):
    prog = tmp_path / "p.c"
    prog.write_text(source)
    return load_program(load_task(str(prog), model), str(tmp_path / "work")).program


def test_and_or_are_split_into_branch_points(tmp_path: Path) -> None:
    p = cfa_of(tmp_path, """
        extern int __VERIFIER_nondet_int(void);
        int main(void) { int a = __VERIFIER_nondet_int(), b = __VERIFIER_nondet_int();
          if (a > 0 && (b > 0 || a == b)) return 1; return 0; }""")
    assert len(p.branch_points) == 3
    assert sorted(bp.kind for bp in p.branch_points.values()) == ["and", "or", "or"]
    assert len([g for g in p.goals() if g.kind == "branch"]) == 6


def test_each_branch_point_keeps_its_condition_as_c(tmp_path: Path) -> None:
    """What a report shows beside a goal: the leaf condition as written (macros
    expanded), a case as a comparison with the switch's subject."""
    p = cfa_of(tmp_path, """
        extern int __VERIFIER_nondet_int(void);
        #define LIMIT 5
        int main(void) { int x = __VERIFIER_nondet_int(), y = __VERIFIER_nondet_int();
          if (x > LIMIT && !(y == 3)) x++;
          switch (y) { case 1: x--; break; case 4 ... 6: x++; break; default: break; }
          return x; }""")
    assert [(g.id, g.condition) for g in p.goals()] == [
        ("B1T", "x > 5"), ("B1F", "x > 5"), ("B2T", "y == 3"), ("B2F", "y == 3"),
        ("B3T", "y == 1"), ("B3F", "y == 1"), ("B4T", "4 <= y <= 6"), ("B4F", "4 <= y <= 6")]


def test_constant_conditions_make_no_goals(tmp_path: Path) -> None:
    p = cfa_of(tmp_path, """
        extern int __VERIFIER_nondet_int(void);
        int main(void) { while (1) { if (__VERIFIER_nondet_int()) break; } for (;;) break; return 0; }""")
    assert len(p.branch_points) == 1


def test_loop_heads_are_where_cycles_close(tmp_path: Path) -> None:
    """``do ... while (0)`` and a label no goto returns to close no cycle: not loop heads
    (the predicate analysis ends a block at each loop head, forgetting what it does not
    track); a ``while`` and a label a goto jumps back to are."""
    p = cfa_of(tmp_path, """
        extern int __VERIFIER_nondet_int(void);
        int main(void) { int n = 0;
          do { n++; } while (0);
          ERROR: n++;
          while (n < 5) n++;
        again: n++;
          if (__VERIFIER_nondet_int()) goto again;
          return n; }""")
    heads = sorted(e.line for loc in p.locations() if loc.is_loop_head for e in loc.leaving)
    assert heads == [6, 6, 7]  # the while's two branches, the label's n++


def test_switch_becomes_a_chain_of_case_comparisons(tmp_path: Path) -> None:
    p = cfa_of(tmp_path, """
        extern int __VERIFIER_nondet_int(void);
        int main(void) { int r = 0; switch (__VERIFIER_nondet_int()) {
          case 1: r = 1; break; case 2: case 3: r = 2; default: r = 4; } return r; }""")
    assert [bp.kind for bp in p.branch_points.values()] == ["case"] * 3


def test_error_calls_are_goals_and_nondet_calls_are_inputs(tmp_path: Path) -> None:
    p = cfa_of(tmp_path, """
        extern int __VERIFIER_nondet_int(void);
        void reach_error(void) {}
        int main(void) { int x = __VERIFIER_nondet_int(); if (x == 42) reach_error(); return 0; }""")
    goals = p.goals()
    assert [g.id for g in goals] == ["B1T", "B1F", "E1"]
    assert isinstance(goals[2].edge, ErrorEdge) and goals[2].line == 4
    assert sum(isinstance(e, NondetEdge) for e in p.edges()) == 1


def test_side_effects_are_pulled_out_of_conditions(tmp_path: Path) -> None:
    p = cfa_of(tmp_path, """
        int f(int *p) { return (*p)++; }
        int main(void) { int i = 0; while (f(&i) < 3 && i++ != 7) ; return i; }""")
    conds = [e.cond for e in p.edges() if isinstance(e, AssumeEdge)]
    assert conds and all("f(" not in repr(c) for c in conds)


def test_data_model_sets_type_widths(tmp_path: Path) -> None:
    src = "int main(void) { long x = 1; return sizeof(x) == 8; }"
    for model, expected in ((DataModel.LP64, 8), (DataModel.ILP32, 4)):
        p = cfa_of(tmp_path, src, model)
        assert p.types.sizeof(p.types.long) == expected


def test_function_designators_in_a_conditional_decay_to_pointers(tmp_path: Path) -> None:
    p = cfa_of(tmp_path, """
        extern int __VERIFIER_nondet_int(void);
        int add1(int x) { return x + 1; }
        int sub1(int x) { return x - 1; }
        int main(void) { int (*f)(int) = __VERIFIER_nondet_int() ? add1 : sub1; return f(0); }""")
    branches = [e for e in p.main.edges() if isinstance(e, AssignEdge) and repr(e.rhs) in ("&add1", "&sub1")]
    assert len(branches) == 2
    for e in branches:  # the temporary holding the value of ?: is a function pointer
        assert isinstance(e.lhs.type, PointerType) and isinstance(e.lhs.type.target, FunctionType)
        assert e.rhs.type == e.lhs.type


def test_knr_definition_receives_promoted_arguments(tmp_path: Path) -> None:
    p = cfa_of(tmp_path, """
        int f(a, c, d) char c; float d; { return a + c + (int)d; }
        int main(void) { return f(1, 300, 2.5f); }""")
    t = p.types
    f = p.functions["f"]
    assert f.type == FunctionType(t.int, (), True)  # no prototype
    assert [v.type for v in f.params] == [t.int, t.int, t.double]  # a undeclared: int
    assert [(v.source_name, v.type) for v in f.locals] == [("c", t.char), ("d", t.float)]
    entry = [repr(e.rhs) for e in f.edges() if isinstance(e, AssignEdge)]
    assert "((char) f::c)" in entry and "((float) f::d)" in entry
    call = next(e for e in p.main.edges() if isinstance(e, CallEdge))
    assert [a.type for a in call.args] == [t.int, t.int, t.double]


@pytest.mark.parametrize("source, message", [
    ("int main( { return 0; }", "p.c:1"),
    ("this is not C at all\n", "p.c:1"),
    ("int main(void) { return y; }", "undeclared identifier y"),
])
def test_bad_input_names_file_and_line(tmp_path: Path, source: str, message: str) -> None:
    with pytest.raises(UserError) as err:
        cfa_of(tmp_path, source)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such file"):
        load_task(str(tmp_path / "absent.c"))
