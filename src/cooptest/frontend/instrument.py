"""The instrumented twin of a program: the same C, reporting its path through the CFA.

Every leaf condition the CFA builder made a branch point is wrapped as
``__cooptest_br(id, (cond) != 0)``; every switch reports the outcome of each case
comparison in the order the CFA tests them; every call of reach_error reports its call
id first. The runtime (``harness/trace_runtime.c``) writes these events, so a native
run yields the CFA goals it covered and the branch decisions concolic testing's symbolic
execution follows. Instrumenting the AST the CFA was built from (rather than the text)
is what keeps the ids of both in step.
"""
from __future__ import annotations

from pycparser import c_ast

from cooptest.frontend import Frontend
from cooptest.frontend.attributes import AttributeGenerator

MARKER = "cooptest-instrumented"  # the file #line names for cooptest's code after the program's

PRELUDE = """\
int __cooptest_br(int id, int cond);
void __cooptest_log(int event);
void __cooptest_err(int id);
"""


def _int(v: int) -> c_ast.Constant:
    return c_ast.Constant("int", str(v))


def _switch_helper(index: int, cases: list[tuple[int, int, int]]) -> str:
    """A function that logs each case comparison of one switch and returns its value.

    A case ``low ... high`` holds where ``v - low <= high - low`` in unsigned arithmetic:
    ``v`` is the promoted value, sign- or zero-extended, so the difference is exact."""
    lines = [f"static unsigned long long __cooptest_sw{index}(unsigned long long v) {{"]
    for branch, low, high in cases:
        span, low = high - low, low & 0xFFFFFFFFFFFFFFFF
        test = f"v == {low}ULL" if span == 0 else f"v - {low}ULL <= {span}ULL"
        lines.append(f"  if ({test}) {{ __cooptest_log({2 * branch + 1}); return v; }}")
        lines.append(f"  __cooptest_log({2 * branch});")
    lines.append("  return v;\n}")
    return "\n".join(lines)


def instrumented_source(fe: Frontend) -> list[str]:
    """C source of each translation unit of the instrumented program (to be compiled
    with the trace runtime and linked).

    The Frontend's own ASTs are instrumented in place (the recorded leaves are their
    nodes), so the result is computed once and kept on the Frontend. Switch helpers and
    error-call wrappers are ``static``: each unit has those of its own code. The program's
    statements carry ``#line`` directives to the user's files (``AttributeGenerator``),
    the code added after them names ``MARKER``."""
    if fe.instrumented is not None:
        return fe.instrumented
    ins = fe.instrumentation
    for leaf in ins.leaves:
        wrapped = c_ast.FuncCall(c_ast.ID("__cooptest_br"), c_ast.ExprList([
            _int(leaf.branch), c_ast.BinaryOp("!=", leaf.node, _int(0))]))
        leaf.put(wrapped)
    helpers: dict[str, list[str]] = {}
    for i, site in enumerate(ins.switches):
        if not site.cases:
            continue
        helpers.setdefault(site.unit, []).append(_switch_helper(i, site.cases))
        call = c_ast.FuncCall(c_ast.ID(f"__cooptest_sw{i}"), c_ast.ExprList([site.node.cond]))
        to = c_ast.Typename(None, [], None, c_ast.TypeDecl(None, [], None,
                                                            c_ast.IdentifierType(site.promoted.name.split())))
        site.node.cond = c_ast.Cast(to, call)
    error_functions: dict[str, set[str]] = {}
    for call_id, call, unit_path in ins.error_calls:
        name = call.name.name
        error_functions.setdefault(unit_path, set()).add(name)
        call.name = c_ast.ID(f"__cooptest_reach_{name}")
        call.args = c_ast.ExprList([_int(call_id)])
    out: list[str] = []
    for unit in fe.units:
        path = unit.source.path
        names = sorted(error_functions.get(path, ()))
        prototypes = "".join(f"static void __cooptest_reach_{n}(int id);\n" for n in names)
        wrappers = "".join(
            f"static void __cooptest_reach_{n}(int id) {{ __cooptest_err(id); {n}(); }}\n" for n in names)
        body = AttributeGenerator(unit.attributes, lines=True).visit(unit.ast)
        out.append(PRELUDE + prototypes + "\n".join(helpers.get(path, [])) + "\n" + body + "\n"
                   + f'#line 1 "{MARKER}"\n' + wrappers)
    fe.instrumented = out
    return out
