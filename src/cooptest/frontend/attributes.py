"""GNU ``__attribute__`` lists: removed for pycparser, but never forgotten.

pycparser does not parse attributes, yet some change what a program does: a
``constructor`` runs before ``main``, ``packed`` changes a struct's layout, ``mode(QI)``
the width of an integer. Erasing them silently (as ``-D__attribute__(x)=`` did) made
cooptest analyse and run a different program than the user's, and prove reachable
branches infeasible. So each attribute of the user's own files is, by name:

* ignored when it carries no meaning for test generation (``IGNORED``: hints to the
  optimiser, warnings, calling conventions of a single translation unit);
* rewritten into plain C with the same meaning (``mode``: the integer type of that width);
* remembered, modelled by the CFA and put back into the native build (``constructor``,
  ``destructor``, ``packed`` on a struct or union: see :class:`AttributeGenerator`);
* otherwise refused as unsupported (one line, exit 2), rather than guessed.

Attributes in system headers are dropped as before: they describe the C library.
"""
from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field

from pycparser import c_ast, c_generator

from cooptest.errors import Unsupported
from cooptest.frontend.literals import c_string
from cooptest.frontend.parser import CaseRange, GenericSelection, StatementExpression, TypeOf

IGNORED = frozenset({
    "unused", "used", "noinline", "always_inline", "noreturn", "nonnull", "format",
    "format_arg", "const", "pure", "malloc", "warn_unused_result", "deprecated", "nothrow",
    "leaf", "cold", "hot", "visibility", "gnu_inline", "artificial", "returns_nonnull",
    "alloc_size", "alloc_align", "sentinel", "nonstring", "access", "optimize",
    "no_instrument_function", "externally_visible", "flatten", "noclone", "noipa",
    "unavailable", "error", "warning", "fallthrough", "maybe_unused", "no_sanitize",
    "no_sanitize_address", "no_sanitize_undefined", "no_stack_protector", "noplt",
    "dllimport", "dllexport", "stdcall", "cdecl", "fastcall", "thiscall", "regparm",
    "selectany", "may_alias", "returns_twice", "no_reorder", "target", "unused_result",
})
CALLED_AROUND_MAIN = ("constructor", "destructor")
MODES = {"QI": "char", "HI": "short", "SI": "int", "DI": "long long", "word": "long",
         "pointer": "long", "byte": "char"}
KEYWORDS = frozenset({"if", "while", "for", "switch", "return", "sizeof", "typeof",
                      "_Alignof", "__attribute__", "__attribute", "_Alignas"})

TYPE_WORDS = frozenset({"void", "char", "short", "int", "long", "float", "double", "signed",
                        "unsigned", "_Bool", "const", "volatile", "static", "extern", "inline"})
_ATTRIBUTE = re.compile(r"\b__attribute(?:__)?\s*\(\s*\(")
_MARKER = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"([ \d]*)$', re.M)
_STRUCT_HEAD = re.compile(r"\b(struct|union)\s*(\w*)\s*$")
_ANON_TAG = "__cooptest_packed"
FLOAT128 = "__cooptest_float128"  # __float128 and _Float128, a typedef name for pycparser


@dataclass
class Attributes:
    """What the CFA models and the native build must keep, found by :func:`strip`."""

    around_main: dict[str, tuple[str, int | None]] = field(default_factory=dict)
    # function name -> ("constructor" | "destructor", priority or None), in source order
    packed: set[str] = field(default_factory=set)  # struct/union tags
    asm: list[tuple[str | None, int | None]] = field(default_factory=list)
    # (file, line) of each asm statement of the user's code the front end erased
    narrowed: list[tuple[str | None, int | None]] = field(default_factory=list)
    # (file, line) of each __float128, _Float128 or _Float64x of the user's code, made double
    weak: set[str] = field(default_factory=set)  # functions declared weak in this unit

    def constructors(self) -> list[str]:
        """Constructors in the order gcc runs them: by priority, then in source order."""
        ctors = [(p if p is not None else 1 << 16, i, name)
                 for i, (name, (kind, p)) in enumerate(self.around_main.items())
                 if kind == "constructor"]
        return [name for _, _, name in sorted(ctors)]

    def destructors(self) -> list[str]:
        return [n for n, (kind, _) in self.around_main.items() if kind == "destructor"]

    @staticmethod
    def union(parts: list[Attributes]) -> Attributes:
        """The attributes of a program of several translation units, in link order."""
        out = Attributes()
        for a in parts:
            out.around_main.update(a.around_main)
            out.packed |= a.packed
            out.asm += a.asm
            out.narrowed += a.narrowed
            out.weak |= a.weak
        return out

    def dumps(self) -> str:
        return json.dumps({"around_main": self.around_main, "packed": sorted(self.packed),
                           "asm": self.asm, "narrowed": self.narrowed, "weak": sorted(self.weak)})

    @staticmethod
    def loads(text: str) -> Attributes:
        doc = json.loads(text)
        return Attributes({k: (v[0], v[1]) for k, v in doc["around_main"].items()},
                          set(doc["packed"]), [(f, n) for f, n in doc.get("asm", [])],
                          [(f, n) for f, n in doc.get("narrowed", [])], set(doc.get("weak", [])))


def system_headers(text: str) -> set[str]:
    """The files preprocessed ``text`` enters as system headers (a line marker with the
    flags 1, a new file, and 3, a system header): the C library's, whose code is never a
    goal, as gcov leaves it out. (Flag 3 alone also marks a system macro's expansion in
    the user's own file, which stays the user's.)"""
    return {m[2] for m in _MARKER.finditer(text) if {"1", "3"} <= set(m[3].split())}


class _Source:
    """Preprocessed text with its line markers: where a position is in the user's file."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.markers = [(m.end(), int(m[1]), m[2], " 3" in m[3]) for m in _MARKER.finditer(text)]
        self.starts = [m[0] for m in self.markers]

    def where(self, pos: int) -> tuple[str | None, int | None, bool]:
        """(file, line, in a system header) of ``pos``."""
        i = bisect.bisect_right(self.starts, pos) - 1
        if i < 0:
            return None, None, False
        end, line, name, system = self.markers[i]
        return name, line + self.text.count("\n", end + 1, pos), system


def _close(text: str, open_pos: int) -> int:
    """Index just past the parenthesis closing the one at ``open_pos``."""
    depth = 0
    for i in range(open_pos, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _split(body: str) -> list[tuple[str, str]]:
    """``a, b(1, 2)`` -> [("a", ""), ("b", "1, 2")] with names stripped of ``__``."""
    parts, depth, cur = [], 0, ""
    for ch in body + ",":
        if ch == "," and depth == 0:
            if cur.strip():
                parts.append(cur.strip())
            cur = ""
            continue
        depth += (ch == "(") - (ch == ")")
        cur += ch
    out = []
    for p in parts:
        name, _, args = p.partition("(")
        out.append((name.strip().strip("_") if name.strip() != "__" else name.strip(),
                    args.rsplit(")", 1)[0].strip()))
    return out


def strip(text: str) -> tuple[str, Attributes]:
    """``text`` without attribute lists (line numbers kept) and the attributes it had."""
    src = _Source(text)
    attrs = Attributes()
    edits: list[tuple[int, int, str]] = []
    spans: list[tuple[int, int]] = []
    for m in _ATTRIBUTE.finditer(text):
        if spans and m.start() < spans[-1][1]:
            continue  # within another attribute (a narrowed float in __alignof): erased with it
        spans.append((m.start(), _close(text, text.index("(", m.start()))))
    headers = system_headers(text)
    for start, end in spans:
        edits.append((start, end, "\n" * text.count("\n", start, end) or " "))
        file, line, system = src.where(start)
        inner = text[text.index("(", text.index("(", start) + 1) + 1:text.rindex(")", start, end - 1)]
        weak = _declared_function(text, spans, start) if any(n == "weak" for n, _ in _split(inner)) else None
        if weak:
            attrs.weak.add(weak)  # a system header's too: the linker's rule is everyone's
        if system or file in headers:  # gcc marks a -D macro's expansion there as no system's
            continue
        for name, args in _split(inner):
            if name in IGNORED or name == "weak" and weak:  # a weak variable: refused
                continue
            if name == "cooptest_asm":  # an asm the preprocessor erased (ERASED_ASM)
                if _in_a_body(text, start):  # a statement, not a declaration's asm label
                    attrs.asm.append((file, line))
            elif name == "cooptest_narrowed":  # a wider float type the preprocessor made double
                attrs.narrowed.append((file, line))
            elif name in CALLED_AROUND_MAIN:
                attrs.around_main[_function_name(text, spans, start, file, line)] = (
                    name, int(args, 0) if args else None)
            elif name == "packed":
                tag, insert = _struct_tag(text, start, end, len(attrs.packed), file, line)
                attrs.packed.add(tag)
                if insert is not None:
                    edits.append((insert, insert, f" {tag}"))
            elif name == "mode":
                edits.append(_mode_rewrite(text, start, args.strip("_"), file, line))
            else:
                raise Unsupported(f"unsupported attribute {name}", file, line)
    for a, b, new in sorted(edits, key=lambda e: e[0], reverse=True):
        text = text[:a] + new + text[b:]
    return text, attrs


_BRACE_OR_LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|[{}]')


def _in_a_body(text: str, pos: int) -> bool:
    """Whether ``pos`` lies within braces (a function's body; an asm there is a
    statement or a register variable's, never a file-scope symbol's name)."""
    depth = 0
    for m in _BRACE_OR_LITERAL.finditer(text, 0, pos):
        depth += {"{": 1, "}": -1}.get(m[0], 0)
    return depth > 0


def _without_attributes(text: str, begin: int, end: int, spans: list[tuple[int, int]]) -> str:
    out, pos = [], begin
    for a, b in spans:
        if begin <= a < end:
            out.append(text[pos:a] + " ")
            pos = b
    out.append(text[pos:end])
    return "".join(out)


def _called_names(text: str, spans: list[tuple[int, int]], start: int) -> tuple[int, list[str]]:
    """Where the declaration around the attribute at ``start`` begins, and the names in
    it that a ``(`` follows, keywords left out, in order: the first is the declared
    function's, if it declares one."""
    begin = max(text.rfind(c, 0, start) for c in ";{}") + 1
    ends = [i for i in (text.find(";", start), text.find("{", start)) if i >= 0]
    decl = _without_attributes(text, begin, min(ends) if ends else len(text), spans)
    return begin, [m[1] for m in re.finditer(r"([A-Za-z_]\w*)\s*\(", decl) if m[1] not in KEYWORDS]


def _declared_function(text: str, spans: list[tuple[int, int]], start: int) -> str | None:
    """The function the declaration around the attribute at ``start`` declares, if any."""
    found = next(iter(_called_names(text, spans, start)[1]), None)
    return None if found in TYPE_WORDS else found  # ``int (*fp)(void)``: a variable


def _function_name(text: str, spans: list[tuple[int, int]], start: int, file: str | None,
                   line: int | None) -> str:
    """The function a ``constructor``/``destructor`` attribute is given to. Only on its
    first declaration: gcc drops the priority given on a later one, and runs such
    constructors in an order of its own."""
    begin, names = _called_names(text, spans, start)
    if not names:
        raise Unsupported("constructor or destructor attribute not on a function", file, line)
    if re.search(rf"\b{names[0]}\s*\(", text[:begin]):
        raise Unsupported(f"constructor or destructor attribute on a later declaration "
                          f"of {names[0]}: put it on the first one", file, line)
    return names[0]


def _struct_tag(text: str, start: int, end: int, n: int, file: str | None,
                line: int | None) -> tuple[str, int | None]:
    """The tag of the struct ``packed`` applies to, and where to insert one if anonymous."""
    head = _STRUCT_HEAD.search(text, 0, start)  # anchored at ``start``
    if head and not head[2]:
        after = re.match(r"\s*(\w*)\s*\{", text[end:])
        if after is None:
            raise Unsupported("packed struct without a body", file, line)
        return (after[1], None) if after[1] else (f"{_ANON_TAG}{n}", end)
    before = text[:start].rstrip()
    if before.endswith("}"):
        depth, i = 0, len(before) - 1
        while i >= 0:
            depth += (before[i] == "}") - (before[i] == "{")
            if depth == 0:
                break
            i -= 1
        head = _STRUCT_HEAD.search(text, 0, i)
        if head:
            return (head[2], None) if head[2] else (f"{_ANON_TAG}{n}", head.end())
    raise Unsupported("attribute packed is supported on a struct or union definition only",
                      file, line)


def _mode_rewrite(text: str, start: int, mode: str, file: str | None,
                  line: int | None) -> tuple[int, int, str]:
    """Replace the integer type words of the declaration by the type ``mode`` names."""
    if mode not in MODES:
        raise Unsupported(f"unsupported attribute mode({mode})", file, line)
    begin = max(text.rfind(c, 0, start) for c in ";{}\n") + 1
    words = list(re.finditer(r"\b(signed|unsigned|char|short|int|long)\b", text[begin:start]))
    if not words:
        raise Unsupported("attribute mode on a type that is not an integer keyword", file, line)
    unsigned = any(w[1] == "unsigned" for w in words)
    first, last = begin + words[0].start(), begin + words[-1].end()
    if re.search(r"[^\s\w]|\b(?!(?:signed|unsigned|char|short|int|long)\b)\w+\b",
                 text[first:last]):
        raise Unsupported("attribute mode on a type that is not an integer keyword", file, line)
    return first, last, f"{'unsigned' if unsigned else 'signed'} {MODES[mode]}"


class AttributeGenerator(c_generator.CGenerator):
    """C from the AST with the remembered attributes put back, so that the native build
    (and the coverage build) is the user's program, not the one pycparser could read.

    With ``lines``, each statement and each declaration at file scope is preceded by a
    ``#line`` directive naming where it is in the user's file: the build's debug
    information (a crash's line, ``harness.crash``) and gcc's messages then name the
    user's file and line, not the generated text's."""

    def __init__(self, attributes: Attributes, lines: bool = False) -> None:
        super().__init__()
        self.attributes = attributes
        self.lines = lines
        self._placed: set[str] = set()
        self._defined: set[int] = set()  # the tags' definitions written (by identity)

    def _line(self, n: c_ast.Node) -> str:
        coord = getattr(n, "coord", None)
        if not self.lines or coord is None or not coord.file or not coord.line:
            return ""
        return f"#line {coord.line} {c_string(coord.file)}\n"

    def visit_FileAST(self, n: c_ast.FileAST) -> str:
        if not self.lines:
            return super().visit_FileAST(n)
        out = []
        for ext in n.ext:
            text = self.visit(ext)
            if isinstance(ext, c_ast.Pragma):
                out.append(text + "\n")
            else:
                out.append(self._line(ext) + text + ("" if isinstance(ext, c_ast.FuncDef) else ";\n"))
        return "".join(out)

    def visit_StatementExpression(self, n: StatementExpression) -> str:
        """``({ ... })`` in parentheses wherever it stands: pycparser writes them only
        where an operator takes it, not in ``if (...)``, ``return`` or a subscript, and
        as an expression statement, the value of an enclosing statement expression, it
        would become a block (of value void)."""
        return f"({self.visit_Compound(n)})"

    def visit_GenericSelection(self, n: GenericSelection) -> str:
        """The association the CFA was built with, where the builder selected one (so the
        native build runs what the CFA models); else ``_Generic`` as written."""
        if n.selected is not None:
            return f"({self._visit_expr(n.associations[n.selected].expr)})"
        associations = ", ".join(
            f"{'default' if a.type is None else self._generate_type(a.type, emit_declname=False)}: "
            f"{self._visit_expr(a.expr)}" for a in n.associations)
        return f"_Generic({self._visit_expr(n.expr)}, {associations})"

    def visit_TypeOf(self, n: TypeOf) -> str:
        inner = self._generate_type(n.expr, emit_declname=False) if isinstance(n.expr, c_ast.Typename) \
            else self.visit(n.expr)
        return f"__typeof__({inner})"

    def visit_IndexRange(self, n: CaseRange) -> str:
        return self.visit_CaseRange(n)

    def visit_CaseRange(self, n: CaseRange) -> str:
        return f"{self.visit(n.low)} ... {self.visit(n.high)}"

    def visit_Typedef(self, n: c_ast.Typedef) -> str:
        """The preprocessed text's ``typedef double __cooptest_float128``, for pycparser,
        as gcc's type: the build's ``__float128`` is the user's."""
        return f"typedef __float128 {FLOAT128}" if n.name == FLOAT128 else super().visit_Typedef(n)

    def visit_UnaryOp(self, n: c_ast.UnaryOp) -> str:
        if n.op in ("__alignof__", "_Alignof"):  # pycparser would write __alignof__x
            return f"{n.op}({self.visit(n.expr)})"
        return super().visit_UnaryOp(n)

    def _generate_stmt(self, n: c_ast.Node, add_indent: bool = False) -> str:
        if isinstance(n, StatementExpression):
            return self._line(n) + self._make_indent() + self.visit(n) + ";\n"
        return self._line(n) + super()._generate_stmt(n, add_indent)

    def visit_Decl(self, n: c_ast.Decl, no_type: bool = False) -> str:
        s = super().visit_Decl(n, no_type)
        if isinstance(n.type, c_ast.FuncDecl) and n.name in self.attributes.weak:
            s = f"__attribute__((weak)) {s}"
        found = self.attributes.around_main.get(n.name) if isinstance(n.type, c_ast.FuncDecl) \
            else None
        if found is None or n.name in self._placed:
            return s
        self._placed.add(n.name)  # on the first declaration, where gcc honours a priority
        kind, priority = found
        return f"__attribute__(({kind}{'' if priority is None else f'({priority})'})) {s}"

    def _generate_struct_union_enum(self, n: c_ast.Struct | c_ast.Union | c_ast.Enum,
                                    name: str) -> str:
        """A tag's definition where the source has it, and its name after: pycparser
        splits ``typedef struct node {...} node_t, *node_p;`` into two typedefs sharing
        one definition, which written twice is gcc's "redefinition of struct node"."""
        body = n.values if isinstance(n, c_ast.Enum) else n.decls
        if body is not None and n.name is not None:
            if id(n) in self._defined:
                return f"{name} {n.name}"
            self._defined.add(id(n))
        s = super()._generate_struct_union_enum(n, name)
        if name != "enum" and n.decls is not None and n.name in self.attributes.packed:
            s = f"{name} __attribute__((packed)){s[len(name):]}"
        return s
