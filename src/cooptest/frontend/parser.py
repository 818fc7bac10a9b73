"""pycparser's parser, reading the GNU C that gcc accepts by default where pycparser
does not, with every syntax error at a line, and adjacent string literals joined as C
joins them.

C concatenates adjacent literals after their escapes are read (C11 5.1.1.2, phase 6),
so ``"\\x7f" "ELF"`` is the four bytes 7f 45 4c 46. pycparser pastes the texts instead,
giving ``"\\x7fELF"``, where the hex escape swallows the ``E`` (one byte 0xfe, then
``LF``): the CFA, the instrumented build and the coverage build would all hold another
program than the one TestCov compiles (a file-magic check of that kind was "covered"
by tests TestCov found missing it). Here an escape left open at the end of the left
literal is closed by writing the right literal's first character as an octal escape.
"""
from __future__ import annotations

import re
from typing import Callable, Iterator, NoReturn

from pycparser import c_ast, c_parser

_OPEN_ESCAPE = re.compile(r"\\(?:x[0-9a-fA-F]+|[0-7]{1,2})\Z")  # may go on with a digit
_QUOTED = re.compile(r'(?P<prefix>[A-Za-z0-9]*)"(?P<body>.*)"\s*\Z', re.S)


def join_literals(left: str, right: str) -> str:
    """One literal token meaning what the tokens ``left`` and ``right`` mean in a row."""
    a, b = _QUOTED.match(left), _QUOTED.match(right)
    if a is None or b is None:  # not a string literal token: leave pycparser's reading
        return left.rstrip()[:-1] + right[right.index('"') + 1:]
    head, tail = a["body"], b["body"]
    if tail and _open_escape(head) and _extends(head, tail[0]):
        tail = f"\\{ord(tail[0]):03o}" + tail[1:]
    return f'{a["prefix"] or b["prefix"]}"{head}{tail}"'


def _open_escape(body: str) -> bool:
    """Whether ``body`` ends in a hex or a short octal escape (its backslash itself not
    escaped)."""
    m = _OPEN_ESCAPE.search(body)
    if m is None:
        return False
    backslashes = len(body[:m.start()]) - len(body[:m.start()].rstrip("\\"))
    return backslashes % 2 == 0


def _extends(body: str, c: str) -> bool:
    hex_escape = body[body.rindex("\\") + 1] == "x"
    return c in "0123456789abcdefABCDEF" if hex_escape else c in "01234567"


class StatementExpression(c_ast.Compound):
    """GNU ``({ ... })``: a block whose last statement gives its value. Told apart from a
    block also where it stands as a statement (``({ ...; v; });``, obstack.h's last
    statement of a statement expression, whose value that one takes)."""

    __slots__ = ()


class GenericAssociation(c_ast.Node):
    """``type: expr`` of a generic selection; ``type`` None for ``default: expr``."""

    __slots__ = ("type", "expr", "coord", "__weakref__")
    attr_names = ()

    def __init__(self, type: c_ast.Typename | None, expr: c_ast.Node, coord: c_parser.Coord | None = None) -> None:
        self.type = type
        self.expr = expr
        self.coord = coord

    def children(self) -> tuple[tuple[str, c_ast.Node], ...]:
        return ((("type", self.type),) if self.type is not None else ()) + (("expr", self.expr),)

    def __iter__(self) -> Iterator[c_ast.Node]:
        for _, child in self.children():
            yield child


class GenericSelection(c_ast.Node):
    """C11 ``_Generic(expr, T1: e1, ..., default: e)``. ``selected``: the index of the
    association the CFA builder found selected (C11 6.5.1.1), which is then what the
    native build compiles; None until then (written back as ``_Generic``, gcc selects)."""

    __slots__ = ("expr", "associations", "selected", "coord", "__weakref__")
    attr_names = ("selected",)

    def __init__(self, expr: c_ast.Node, associations: list[GenericAssociation],
                 coord: c_parser.Coord | None = None) -> None:
        self.expr = expr
        self.associations = associations
        self.selected: int | None = None
        self.coord = coord

    def children(self) -> tuple[tuple[str, c_ast.Node], ...]:
        return (("expr", self.expr),) + tuple((f"associations[{i}]", a)
                                             for i, a in enumerate(self.associations))

    def __iter__(self) -> Iterator[c_ast.Node]:
        for _, child in self.children():
            yield child


class TypeOf(c_ast.Node):
    """GNU ``typeof(expr)`` or ``typeof(type)`` as a type specifier: the type of ``expr``
    (not evaluated, not converted: an array stays one) or ``type``."""

    __slots__ = ("expr", "coord", "__weakref__")
    attr_names = ()

    def __init__(self, expr: c_ast.Node, coord: c_parser.Coord | None = None) -> None:
        self.expr = expr
        self.coord = coord

    def children(self) -> tuple[tuple[str, c_ast.Node], ...]:
        return (("expr", self.expr),)

    def __iter__(self) -> Iterator[c_ast.Node]:
        yield self.expr


class CaseRange(c_ast.Node):
    """GNU ``case low ... high:``, the expression of a ``c_ast.Case``."""

    __slots__ = ("low", "high", "coord", "__weakref__")
    attr_names = ()

    def __init__(self, low: c_ast.Node, high: c_ast.Node, coord: c_parser.Coord | None = None) -> None:
        self.low = low
        self.high = high
        self.coord = coord

    def children(self) -> tuple[tuple[str, c_ast.Node], ...]:
        return (("low", self.low), ("high", self.high))

    def __iter__(self) -> Iterator[c_ast.Node]:
        yield self.low
        yield self.high


class IndexRange(CaseRange):
    """GNU ``[low ... high] = value``, a designator of array elements."""

    __slots__ = ()


TYPEOF = frozenset({"typeof", "__typeof", "__typeof__"})
NOT_MODELLED = {  # the GNU built-ins of variadic functions, which cooptest does not model
    "__builtin_va_arg": "va_arg (a variadic function's arguments)",
    "__builtin_va_start": "va_start (a variadic function's arguments)",
    "__builtin_va_copy": "va_copy (a variadic function's arguments)",
}
ASM = frozenset({"asm", "__asm", "__asm__"})


class CParser(c_parser.CParser):
    """``c_parser.CParser`` whose string literals are joined by ``join_literals``, that
    reads the GNU C gcc accepts by default that pycparser does not (statement expressions
    wherever a primary expression may stand, ``typeof``, ``a ?: b``, case ranges,
    ``__alignof__``) and C11's ``_Generic``, and whose every error names a line."""

    def __init__(self) -> None:
        super().__init__()
        self._elvis = 0  # temporaries of ``a ?: b``

    def _parse_error(self, msg: str, coord: c_parser.Coord | str | None) -> NoReturn:
        """pycparser reports some errors ("Invalid expression", "Invalid declaration")
        with the file name alone; give them the line and column of the next token."""
        if not isinstance(coord, c_parser.Coord):
            tok = self._tokens.peek() or self._last_token()
            if tok is not None:
                coord = self._tok_coord(tok)
                msg = f"{msg} before: {tok.value}"
        super()._parse_error(msg, coord)
        raise AssertionError("unreachable: pycparser's _parse_error raises ParseError")

    def _last_token(self) -> c_parser._Token | None:
        consumed = self._tokens._buffer[:self._tokens._index]
        return next((t for t in reversed(consumed) if t is not None), None)

    def _parse_external_declaration(self) -> list[c_ast.Node]:
        """Old C at file scope, as gcc reads it: a declaration without specifiers is of
        ``int`` (``f();``, ``count = 0;``), and so is a K&R definition without them
        (``main(argc, argv) int argc; char **argv; {...}``; pycparser took only
        ``f() {...}``)."""
        if self._peek_type() != "ID" or self._starts_declaration():  # typeof
            return super()._parse_external_declaration()
        decl = self._parse_id_declarator()
        spec: c_parser._DeclSpec = dict(qual=[], alignment=[], storage=[], function=[],
                                        type=[c_ast.IdentifierType(["int"], coord=decl.coord)])
        if self._peek_type() == "LBRACE" or self._starts_declaration():
            param_decls = self._parse_declaration_list() if self._starts_declaration() else None
            if self._peek_type() != "LBRACE":
                self._parse_error("Invalid function definition", decl.coord)
            return [self._build_function_definition(spec=spec, decl=decl, param_decls=param_decls,
                                                    body=self._parse_compound_statement())]
        first: c_parser._DeclInfo = dict(decl=decl, init=None, bitsize=None)
        if self._accept("EQUALS"):
            first["init"] = self._parse_initializer()
        decls = self._build_declarations(spec=spec, decls=self._parse_init_declarator_list(first=first),
                                         typedef_namespace=True)
        self._expect("SEMI")
        return decls

    def _fix_decl_name_type(self, decl: c_ast.Decl | c_ast.Typedef | c_ast.Typename,
                            typename: list[c_ast.Node]) -> c_ast.Node:
        """A declaration with a storage class but no type is of ``int`` (old C:
        ``register i;``, ``static k;``, K&R ``f(a) register a; {...}``)."""
        if not typename:
            typename = [c_ast.IdentifierType(["int"], coord=decl.coord)]
        return super()._fix_decl_name_type(decl, typename)

    def _starts_declaration(self, tok: c_parser._Token | None = None) -> bool:
        tok = tok or self._peek()
        return super()._starts_declaration(tok) or \
            tok is not None and tok.type == "ID" and tok.value in TYPEOF

    def _at_typeof(self) -> bool:
        tok = self._peek()
        return tok is not None and tok.type == "ID" and tok.value in TYPEOF

    def _parse_typeof(self) -> TypeOf:
        coord = self._tok_coord(self._advance())
        self._expect("LPAREN")
        operand = self._parse_type_name() if self._starts_declaration() else self._parse_expression()
        self._expect("RPAREN")
        return TypeOf(operand, coord)

    def _with_typeof(self, parse: Callable[[], tuple[c_parser._DeclSpec, bool, c_parser.Coord | None]],
                     spec: c_parser._DeclSpec | None = None, saw_type: bool = False,
                     first: c_parser.Coord | None = None,
                     ) -> tuple[c_parser._DeclSpec | None, bool, c_parser.Coord | None]:
        """The specifiers ``spec`` read so far and those that follow: read by ``parse``
        (pycparser's loop, which stops at ``typeof``) or ``typeof`` specifiers."""
        while True:
            if self._at_typeof():
                node = self._parse_typeof()
                part: c_parser._DeclSpec = dict(qual=[], storage=[], type=[node], function=[], alignment=[])
                saw, coord = True, node.coord
            elif spec is None or super()._starts_declaration() and not (
                    saw_type and self._peek_type() == "TYPEID"):  # a typedef name redeclared
                part, saw, coord = parse()
            else:
                return spec, saw_type, first
            if spec is None:
                spec, first = part, coord
            else:
                for kind in ("qual", "storage", "type", "function", "alignment"):
                    spec[kind] = spec.get(kind, []) + part.get(kind, [])
            saw_type = saw_type or saw

    def _parse_declaration_specifiers(self, allow_no_type: bool = False,
                                      ) -> tuple[c_parser._DeclSpec, bool, c_parser.Coord | None]:
        spec, saw_type, first = None, False, None
        if not self._at_typeof():
            spec, saw_type, first = super()._parse_declaration_specifiers(allow_no_type=True)
            if not self._at_typeof():
                if not saw_type and not allow_no_type:
                    self._parse_error("Missing type in declaration", first)
                return spec, saw_type, first
        spec, saw_type, first = self._with_typeof(
            lambda: super(CParser, self)._parse_declaration_specifiers(allow_no_type=True),
            spec, saw_type, first)
        assert spec is not None
        return spec, saw_type, first

    def _parse_specifier_qualifier_list(self) -> c_parser._DeclSpec:
        spec = None
        if not self._at_typeof():
            spec = super()._parse_specifier_qualifier_list()
            if not self._at_typeof():
                return spec
        spec, _, _ = self._with_typeof(
            lambda: (super(CParser, self)._parse_specifier_qualifier_list(), True, None), spec)
        assert spec is not None
        spec.setdefault("storage", [])
        spec.setdefault("function", [])
        return spec

    def _parse_conditional_expression(self) -> c_ast.Node:
        """GNU ``a ?: b``: ``a`` if it is nonzero, else ``b``, with ``a`` evaluated once;
        read as ``({ typeof(a + 0) t = a; t ? t : b; })``, which every later stage knows."""
        expr = self._parse_binary_expression()
        if not self._accept("CONDOP"):
            return expr
        if not self._accept("COLON"):
            iftrue = self._parse_expression()
            self._expect("COLON")
            return c_ast.TernaryOp(expr, iftrue, self._parse_conditional_expression(), expr.coord)
        otherwise = self._parse_conditional_expression()
        self._elvis += 1
        name, coord = f"__cooptest_elvis{self._elvis}", expr.coord
        value = c_ast.BinaryOp("+", expr, c_ast.Constant("int", "0", coord), coord)
        decl = c_ast.Decl(name, [], [], [], [], c_ast.TypeDecl(name, [], None, TypeOf(value, coord), coord),
                          expr, None, coord)
        pick = c_ast.TernaryOp(c_ast.ID(name, coord), c_ast.ID(name, coord), otherwise, coord)
        return StatementExpression([decl, pick], coord)

    def _parse_labeled_statement(self) -> c_ast.Node:
        """GNU ``case low ... high:``."""
        if self._peek_type() != "CASE":
            return super()._parse_labeled_statement()
        case_tok = self._advance()
        expr = self._parse_constant_expression()
        if self._accept("ELLIPSIS"):
            expr = CaseRange(expr, self._parse_constant_expression(), expr.coord)
        self._expect("COLON")
        stmt = self._parse_pragmacomp_or_statement() if self._starts_statement() \
            else c_ast.EmptyStatement(self._tok_coord(case_tok))
        return c_ast.Case(expr, [stmt], self._tok_coord(case_tok))

    def _parse_designator(self) -> c_ast.Node:
        """GNU ``[low ... high]``, besides ``[index]`` and ``.member``."""
        if self._peek_type() != "LBRACKET":
            return super()._parse_designator()
        self._advance()
        index = self._parse_constant_expression()
        if self._accept("ELLIPSIS"):
            index = IndexRange(index, self._parse_constant_expression(), index.coord)
        self._expect("RBRACKET")
        return index

    def _parse_static_assert(self) -> list[c_ast.Node]:
        """``_Static_assert``: gcc checks it; nothing is left of it to run or model."""
        super()._parse_static_assert()
        return []

    def _parse_statement(self) -> c_ast.Node | list[c_ast.Node]:
        tok = self._peek()
        if tok is not None and tok.type == "ID" and tok.value in ASM:
            self._not_modelled("an asm statement", tok)
        if tok is not None and tok.type == "GOTO" and self._peek_type(2) == "TIMES":
            self._not_modelled("a computed goto (goto *p)", tok)
        return super()._parse_statement()

    def _parse_block_item(self) -> c_ast.Node | list[c_ast.Node]:
        tok = self._peek()
        if tok is not None and tok.type == "ID" and tok.value == "__auto_type":
            self._not_modelled("__auto_type", tok)
        return super()._parse_block_item()

    def _parse_declaration(self) -> list[c_ast.Node]:
        decls = self._parse_decl_body()
        if self._peek_type() == "LBRACE" and decls and isinstance(decls[-1].type, c_ast.FuncDecl):
            self._not_modelled("a nested function definition", self._peek())
        self._expect("SEMI")
        return decls

    def _not_modelled(self, what: str, tok: c_parser._Token | None) -> NoReturn:
        self._parse_error(f"{what}, which cooptest does not model",
                          self._tok_coord(tok) if tok is not None else None)

    def _parse_assignment_expression(self) -> c_ast.Node:
        """As pycparser's, without its own reading of ``({...})``, which took a statement
        expression for a whole assignment expression (``({...}) + 1`` failed): it is a
        primary expression (``_parse_primary_expression``)."""
        expr = self._parse_conditional_expression()
        if self._is_assignment_op():
            op = self._advance().value
            rhs = self._parse_assignment_expression()
            return c_ast.Assignment(op, expr, rhs, expr.coord)
        return expr

    def _parse_unary_expression(self) -> c_ast.Node:
        """GNU ``__alignof__``, of a type or an expression: the alignment gcc prefers for
        an object, 8 for a ``double`` on i386 where ``_Alignof`` says 4."""
        tok = self._peek()
        if tok is not None and tok.type == "LAND":
            self._not_modelled("a label's address (&&label)", tok)
        if tok is not None and tok.type == "ID" and tok.value in ("__alignof__", "__alignof"):
            self._advance()
            paren = self._try_parse_paren_type_name()
            operand = paren[0] if paren is not None else self._parse_unary_expression()
            return c_ast.UnaryOp("__alignof__", operand, self._tok_coord(tok))
        return super()._parse_unary_expression()

    def _parse_primary_expression(self) -> c_ast.Node:
        """GNU ``({ ... })`` is a primary expression (a ``StatementExpression``): obstack.h's
        ``(struct trie *) ({ ... })`` is a cast of one; so is C11's ``_Generic``."""
        if self._peek_type() == "LPAREN" and self._peek_type(2) == "LBRACE":
            self._advance()
            comp = self._parse_compound_statement()
            self._expect("RPAREN")
            return StatementExpression(comp.block_items, comp.coord)
        tok = self._peek()
        if tok is not None and tok.type == "ID" and tok.value == "_Generic" \
                and self._peek_type(2) == "LPAREN":
            return self._parse_generic_selection()
        if tok is not None and tok.type == "ID" and tok.value in NOT_MODELLED:
            self._not_modelled(NOT_MODELLED[tok.value], tok)
        if tok is not None and tok.type == "ID" and tok.value == "__builtin_types_compatible_p":
            coord = self._tok_coord(self._advance())
            self._expect("LPAREN")
            first = self._parse_type_name()
            self._expect("COMMA")
            second = self._parse_type_name()
            self._expect("RPAREN")
            return c_ast.FuncCall(c_ast.ID(tok.value, coord), c_ast.ExprList([first, second], coord), coord)
        return super()._parse_primary_expression()

    def _parse_generic_selection(self) -> GenericSelection:
        """C11 6.5.1.1: ``_Generic ( assignment-expression , generic-assoc-list )``."""
        coord = self._tok_coord(self._advance())
        self._expect("LPAREN")
        expr = self._parse_assignment_expression()
        associations: list[GenericAssociation] = []
        self._expect("COMMA")
        while True:
            tok = self._peek()
            typ = None if self._accept("DEFAULT") else self._parse_type_name()
            self._expect("COLON")
            associations.append(GenericAssociation(typ, self._parse_assignment_expression(),
                                                   self._tok_coord(tok) if tok else coord))
            if not self._accept("COMMA"):
                break
        self._expect("RPAREN")
        return GenericSelection(expr, associations, coord)

    def _parse_unified_string_literal(self) -> c_ast.Node:
        tok = self._expect("STRING_LITERAL")
        node = c_ast.Constant("string", tok.value, self._tok_coord(tok))
        while self._peek_type() == "STRING_LITERAL":
            node.value = join_literals(node.value, self._advance().value)
        return node

    def _parse_unified_wstring_literal(self) -> c_ast.Node:
        tok = self._advance()
        if tok.type not in c_parser._WSTR_LITERAL:
            self._parse_error("Invalid string literal", self._tok_coord(tok))
        node = c_ast.Constant("string", tok.value, self._tok_coord(tok))
        while self._peek_type() in c_parser._WSTR_LITERAL:
            node.value = join_literals(node.value, self._advance().value)
        return node
