"""The C that gcc accepts by default (gnu17) and the old dialects real programs are
written in: each construct is read, built into a CFA whose decisions are the native
run's (symbolic execution of the CFA agrees with the compiled program), or refused with
the file and line."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cooptest.analyses.concolic.solver import Symbols
from cooptest.analyses.concolic.symbolic_execution import TermMemo, execute_symbolically
from cooptest.cfa.ctype import DataModel
from cooptest.cfa.ir import CallEdge
from cooptest.errors import UserError
from cooptest.frontend import load_program
from cooptest.frontend.attributes import AttributeGenerator
from cooptest.harness.executor import Executor
from cooptest.task import load_task

HEAD = "extern int __VERIFIER_nondet_int(void);\n"


def agreed_goals(tmp_path: Path, source: str, vectors: list[list[str]], exact: bool = True) -> set[str]:
    """The goals the native runs of ``vectors`` cover, each run's branch decisions
    checked against symbolic execution of the CFA (``exact``: where the program's
    branches depend on no library function's result, which symbolic execution cannot know)."""
    path = tmp_path / "p.c"
    path.write_text(source)
    fe = load_program(load_task(str(path)), str(tmp_path / "work"))
    executor = Executor(fe, str(tmp_path / "build"))
    symbols, memo = Symbols(), TermMemo()
    covered: set[str] = set()
    for inputs in vectors:
        execution = executor.run(inputs)
        assert not execution.crashed and not execution.timed_out, inputs
        covered |= execution.covered
        if not exact:
            continue
        path_ = execute_symbolically(fe.program, execution, symbols, memo, set())
        assert path_.divergences == 0 and not path_.imprecise, inputs
        assert path_.trace == list(execution.decisions()), inputs
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


# ---------------------------------------------------------------- old C

OLD_C = """extern int __VERIFIER_nondet_int();
static twice(x) { return 2 * x; }
f();
count = 1, *where;
g(a, b) register a; short b; { register i; auto j = 3; i = a + b + j; return i; }
main(argc, argv) int argc; char *argv[]; {
  int n = __VERIFIER_nondet_int();
  static k;
  where = &count;
  if (twice(n) == 10) return 1;
  if (f(n, 3) == 9) return 2;
  if (g(n, 2) == 15) return 3;
  if (h(n) == 11) return 4;
  if (*where + n == 13) return 5;
  return k;
}
f(a, b) { return a + b; }
h(x) { return x; }
"""


def test_old_c_is_read_with_implicit_int(tmp_path: Path) -> None:
    """Declarations without a type (``f();``, ``count = 1, *where;``, ``register i;``,
    ``static k;``), K&R definitions without a return type, calls of ``f()`` declared
    without a prototype and of ``h`` declared nowhere."""
    covered = agreed_goals(tmp_path, OLD_C, [["5"], ["6"], ["10"], ["11"], ["12"], ["0"]])
    assert {f"B{i}T" for i in range(1, 6)} <= covered
    p = load_program(load_task(str(tmp_path / "p.c")), str(tmp_path / "w2")).program
    t = p.types
    assert {v.name: v.type for v in p.globals if v.name in ("count", "where")} == \
        {"count": t.int, "where": t.pointer(t.int)}
    assert [v.type for v in p.functions["g"].locals if v.source_name in ("i", "j")] == [t.int, t.int]


def test_a_builtin_called_without_a_declaration_has_gccs_prototype(tmp_path: Path) -> None:
    """gcc declares ``sqrt``, ``labs``, ``strlen`` called without their headers with the
    builtin prototypes (``sqrt(6)`` is 2.449..., not an int); other names are ``int f()``."""
    source = HEAD + """int mine(int x) { return x; }
int main() { int n = __VERIFIER_nondet_int(); double r = sqrt(n); long l = labs(n);
  if (r > 2.4 && r < 2.5) { return 1; }
  if (strlen("abc") + l == 10) { return 2; }
  return other(n); }
int other(int x) { return x; }
"""
    covered = agreed_goals(tmp_path, source, [["6"], ["-7"], ["1"]], exact=False)
    assert {"B1T", "B2T", "B3T"} <= covered
    p = load_program(load_task(str(tmp_path / "p.c")), str(tmp_path / "w2")).program
    t = p.types
    assert p.declared_functions["sqrt"].ret == t.double and p.declared_functions["sqrt"].params == (t.double,)
    assert p.declared_functions["labs"].ret == t.long and p.declared_functions["strlen"].ret == t.ulong
    assert p.declared_functions["other"].ret == t.int


def test_builtin_expect_is_the_value_of_its_argument(tmp_path: Path) -> None:
    """``likely(x)``/``unlikely(x)``: ``__builtin_expect(x, c)`` is ``(long) x``, no
    library call whose result the analyses cannot know."""
    source = HEAD + """#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect((x), 0)
int main(void) { int x = __VERIFIER_nondet_int();
  if (likely(x > 3 && x < 9)) { if (unlikely(x == 5)) { return 1; } return 2; }
  if (__builtin_expect(x, 7) == -3) { return 3; }
  return 0; }
"""
    covered = agreed_goals(tmp_path, source, [["5"], ["4"], ["-3"], ["100"]])
    assert len(covered) == len(goals_of(tmp_path, source))
    p = load_program(load_task(str(tmp_path / "p.c")), str(tmp_path / "w2")).program
    assert "__builtin_expect" not in p.declared_functions


# ---------------------------------------------------------------- _Generic

def same_output_as_gcc(tmp_path: Path, source: str, model: DataModel = DataModel.LP64) -> str:
    """The output of the program as gcc compiles it, which must be that of the program
    the native build compiles (the associations the CFA builder selected, say)."""
    path = tmp_path / "p.c"
    path.write_text(source)
    fe = load_program(load_task(str(path), model), str(tmp_path / "work"))
    (unit,) = fe.units
    (tmp_path / "selected.c").write_text(AttributeGenerator(unit.attributes).visit(unit.ast))
    outputs = []
    for name in ("p.c", "selected.c"):
        subprocess.run(["gcc", "-w", model.gcc_flag, "-o", str(tmp_path / "a.out"), str(tmp_path / name)],
                       check=True)
        outputs.append(subprocess.run([str(tmp_path / "a.out")], capture_output=True, text=True).stdout)
    assert outputs[0] == outputs[1]
    return outputs[0]


GENERIC = """#include <stdio.h>
#define type_name(x) _Generic((x), int: "int", long: "long", char *: "char*", double: "double", \\
    struct s *: "struct s*", const char *: "const char*", char **: "char**", \\
    int (*)(int): "int(*)(int)", default: "other")
#define other(x) _Generic((x), int: "int", default: "other")
struct s { int a; };
typedef const char *cstr;
int f(int x) { return x; }
int main(void) {
  int i = 3; long l = 4; char buf[4] = "ab", *p = buf, *const kp = buf; double d = 2.5;
  struct s S, *sp = &S; cstr c = "x"; const char *cc = c; unsigned u = 1; char ch = 'a';
  const int ci = 3; short h = 1;
  printf("%s %s %s %s %s %s %s %s %s\\n", type_name(i), type_name(l), type_name(p),
         type_name(d), type_name(sp), type_name(c), type_name(cc), type_name(u), type_name(buf));
  printf("%s %s %s %s %s %s %s %s\\n", type_name(ch), type_name(ci), type_name("lit"),
         type_name(kp), type_name(&p), type_name(f), type_name(h + h), type_name('a'));
  printf("%s %s %s %d\\n", other(l), other((int)l), type_name(p + 1),
         _Generic(f, int (*)(int): f, default: f)(7));
  return 0;
}
"""


def test_generic_selects_as_gcc_does(tmp_path: Path) -> None:
    """By the type after lvalue conversion (C11 6.5.1.1): ``const int`` selects ``int``,
    an array and a string literal ``char *``, ``char *const`` ``char *``, a
    ``const char *`` (also through a typedef) not ``char *``; inside a macro too."""
    assert same_output_as_gcc(tmp_path, GENERIC).splitlines() == [
        "int long char* double struct s* const char* const char* other char*",
        "other int char* char* char** int(*)(int) int int",
        "other int char* 7"]


def test_the_selected_association_is_what_the_cfa_and_the_native_build_run(tmp_path: Path) -> None:
    source = HEAD + """#define positive(x) _Generic((x), double: (x) > 0.5, default: (x) > 0)
int main(void) { int n = __VERIFIER_nondet_int(); double d = n / 4.0;
  if (positive(d) && _Generic(n, int: n != 3, long: n == 3)) { return 1; }
  return _Generic(n, long: n, default: n == -7 ? 2 : 3); }
"""
    covered = agreed_goals(tmp_path, source, [["1"], ["3"], ["7"], ["-7"]])
    assert len(covered) == len(goals_of(tmp_path, source))


@pytest.mark.parametrize("source, message", [
    ("int main(void) { int x = 0;\n  return _Generic(x, double: 1, long: 2); }\n",
     "p.c:2: _Generic selects nothing for int and has no default"),
    ("struct s { char *m; };\nint main(void) { struct s S = {0};\n"
     "  return _Generic(S.m, char *: 1, default: 2); }\n",
     "p.c:3: unsupported construct: _Generic on char* whose qualifiers"),
])
def test_a_generic_selection_that_cannot_be_made_names_its_line(tmp_path: Path, source: str,
                                                                  message: str) -> None:
    assert message in refusal(tmp_path, source)


# ---------------------------------------------------------------- sizes and alignments

@pytest.mark.parametrize("model, expected", [(DataModel.LP64, "8 8 16 8 8 8 8 8 8 4 8"),
                                             (DataModel.ILP32, "8 8 4 4 8 8 8 4 4 4 8")])
def test_gnu_alignof_is_gccs(tmp_path: Path, model: DataModel, expected: str) -> None:
    """``__alignof__`` of an object is the alignment gcc prefers (8 for a double on
    i386, 4 inside a struct, as ``_Alignof`` says); the CFA's constants are gcc's."""
    source = """#include <stdio.h>
struct sd { double d; };
int main(void) { double x; long long y; double arr[2]; struct sd s; char c; int i;
  printf("%d %d %d %d %d %d %d %d %d %d %d\\n", (int)__alignof__(double), (int)__alignof__(long long),
    (int)__alignof__(long double), (int)__alignof__(struct sd), (int)__alignof__(double[2]),
    (int)__alignof__(x), (int)__alignof__ arr, (int)__alignof__(s.d), (int)_Alignof(double),
    (int)__alignof__(c + i), (int)__alignof__(y));
  return 0; }
"""
    assert same_output_as_gcc(tmp_path, source, model).strip() == expected
    p = load_program(load_task(str(tmp_path / "p.c"), model), str(tmp_path / "w2")).program
    (call,) = [e for e in p.main.edges() if isinstance(e, CallEdge)]
    assert " ".join(str(a.value) for a in call.args[1:]) == expected


def test_sizeof_a_variable_length_array_is_its_length_at_declaration(tmp_path: Path) -> None:
    source = HEAD + """int main(void) { int n = __VERIFIER_nondet_int() & 7; int a[n + 1]; n = 0;
  if (sizeof a == 8) { return 1; } if (sizeof(a) / sizeof(a[0]) == 3) { return 2; } return 0; }
"""
    covered = agreed_goals(tmp_path, source, [["1"], ["2"], ["3"]])
    assert covered == {"B1T", "B1F", "B2T", "B2F"}
    message = refusal(tmp_path, "int main(void) { int n = 2; int a[n][n];\n  return sizeof a; }\n")
    assert "p.c:2: unsupported construct: sizeof of a variable-length array" in message


# ---------------------------------------------------------------- GNU C

def test_typeof_declares_by_the_type_of_an_expression_or_a_type_name(tmp_path: Path) -> None:
    source = HEAD + """#define max(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })
struct S { typeof(long) m; };
__typeof__(1L) big = 1, *at = &big;
int main(void) { unsigned char c = __VERIFIER_nondet_int(); typeof(c) d = c + 1;
  const __typeof__(c) *p = &d; typeof(int *) q = 0; struct S s; s.m = (typeof(s.m)) -1;
  if (d == 0) { return 1; }
  if (max(*p, 200) == 250 && sizeof(typeof(s.m)) == sizeof(long) && !q && s.m < 0 && *at == 1)
    { return 2; }
  return 0; }
"""
    covered = agreed_goals(tmp_path, source, [["255"], ["249"], ["7"]])
    assert {"B1T", "B1F", "B2T"} <= covered  # d wraps as an unsigned char


def test_the_omitted_middle_operand_is_evaluated_once(tmp_path: Path) -> None:
    """GNU ``a ?: b`` is ``a`` if nonzero, else ``b``; ``a`` is evaluated once."""
    source = HEAD + """int calls;
int f(int x) { calls++; return x; }
int main(void) { int x = __VERIFIER_nondet_int(); char *s = x > 5 ? "big" : 0;
  int y = f(x) ?: 7;
  if (calls == 1 && y == 7) { return 1; }
  if ((s ?: "none")[0] == 'b') { return 2; }
  return 0; }
"""
    covered = agreed_goals(tmp_path, source, [["0"], ["9"], ["3"]])
    assert {"B3T", "B4T", "B5T", "B6T"} <= covered


def test_case_ranges_are_one_comparison_each(tmp_path: Path) -> None:
    """``case low ... high:`` over signed, unsigned and char values, negative bounds and
    an empty range (gcc: never taken); each range is one branch, as TestCov counts it."""
    source = HEAD + """int main(void) { int x = __VERIFIER_nondet_int(); char c = x; unsigned u = x;
  switch (x) { case -5 ... -1: return 1; case 0: return 2; case 100 ... 2147483647: break;
               case 7 ... 3: return 9; }
  switch (c) { case 'a' ... 'z': return 3; case -128 ... -100: return 4; }
  switch (u) { case 4294967290u ... 4294967295u: return 5; case 0 ... 10: return 6; }
  return 0; }
"""
    covered = agreed_goals(tmp_path, source, [["-3"], ["0"], ["42"], ["-6"], ["-200"], ["97"],
                                              ["-2147483648"], ["-128"], ["150"], ["5"]])
    p = load_program(load_task(str(tmp_path / "p.c")), str(tmp_path / "w2")).program
    assert [bp.kind for bp in p.branch_points.values()] == ["case"] * 7  # 7 ... 3 is none
    assert {f"B{i}T" for i in range(1, 8)} <= covered


def test_static_asserts_and_type_builtins_are_compile_time(tmp_path: Path) -> None:
    source = """#include <stdio.h>
_Static_assert(sizeof(int) == 4, "int");
typedef const char *cstr;
int main(void) { int x = 3; _Static_assert(1, "in a block");
  printf("%d %d %d %d %d\\n", __builtin_types_compatible_p(int, const int),
         __builtin_types_compatible_p(int, long), __builtin_types_compatible_p(char *, cstr),
         __builtin_types_compatible_p(const char *, cstr), __builtin_types_compatible_p(int[3], int[]));
  printf("%d %g\\n", __builtin_choose_expr(sizeof(int) == 4, x + 1, 0.5),
         __builtin_choose_expr(0, x, 2.5));
  return 0; }
"""
    assert same_output_as_gcc(tmp_path, source) == "1 0 0 1 1\n4 2.5\n"


@pytest.mark.parametrize("source, construct", [
    ("int main(void) { int x = 1;\n  asm volatile (\"\" ::: \"memory\"); return x; }\n", "an asm statement"),
    ("#include <stdarg.h>\nint f(int n, ...) { va_list ap;\n  va_start(ap, n); return n; }\n"
     "int main(void) { return f(1, 2); }\n", "va_start"),
    ("int main(void) { void *p;\n  p = &&out; goto *p; out: return 0; }\n", "a label's address"),
    ("int main(void) { void *p = 0;\n  goto *p; }\n", "a computed goto"),
    ("int main(void) { int x = 1;\n  int g(int y) { return y; } return g(x); }\n",
     "a nested function definition"),
    ("int main(void) { int x = 1;\n  __auto_type y = x; return y; }\n", "__auto_type"),
    ("int main(void) {\n  _Complex double z = 1; return 0; }\n", "complex type"),
    ("union u { int i; };\nint main(void) { int x = 1;\n  union u v = (union u) x; return v.i; }\n",
     "unsupported construct: cannot convert int to union u"),
])
def test_what_is_not_modelled_names_its_line_and_the_construct(tmp_path: Path, source: str,
                                                                construct: str) -> None:
    """Labels as values, nested functions, ``__auto_type``, complex numbers, casts to a
    union, asm statements and variadic functions: one line naming file, line and what."""
    message = refusal(tmp_path, source)
    assert message.startswith(f"{tmp_path / 'p.c'}:2: ") or message.startswith(f"{tmp_path / 'p.c'}:3: ")
    assert construct in message
    r = subprocess.run([sys.executable, "-m", "cooptest.cli", "cfa", str(tmp_path / "p.c")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and construct in r.stderr


def test_a_designated_range_initialises_each_element_from_one_evaluation(tmp_path: Path) -> None:
    source = HEAD + """int calls;
int f(int x) { calls++; return x; }
int g[6] = { [1 ... 4] = 7 };
int main(void) { int x = __VERIFIER_nondet_int(); int a[5] = { [0 ... 2] = f(x), [4] = 9 };
  int b[] = { [0 ... 5] = 2 };
  if (calls == 1 && a[2] == x && a[3] == 0 && sizeof b == 6 * sizeof(int) && g[4] == 7 && g[5] == 0)
    { if (a[x & 3] == 9) { return 1; } return 2; }
  return 0; }
"""
    covered = agreed_goals(tmp_path, source, [["9"], ["1"]])
    assert covered == set(goals_of(tmp_path, source)) - {f"B{i}F" for i in range(1, 6)}
