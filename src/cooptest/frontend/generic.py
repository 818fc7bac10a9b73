"""C11 generic selection (6.5.1.1): which association ``_Generic(e, T1: a1, ...,
default: d)`` selects.

The selected association is the one whose type is compatible with the type of ``e``
after lvalue conversion (qualifiers at the top dropped, arrays and functions made
pointers); ``e`` is not evaluated. The CFA's types carry no qualifiers, yet below the
top they decide compatibility: ``const char *`` and ``char *`` are two associations, and
a ``const char *`` selects ``default`` in ``_Generic(p, char *: 1, default: 2)``. So the
qualifiers are read off the declarators, level by level (:func:`declarator_levels`): of
the declared variables, the typedefs, the casts and the associations' type names. Where
the controlling expression is a pointer whose qualifiers cannot be told that way (a
struct member, a call's result), the selection is refused, not guessed.
"""
from __future__ import annotations

from typing import Callable

from pycparser import c_ast

from cooptest.cfa.ctype import ArrayType, CType, FunctionType, PointerType
from cooptest.frontend.parser import TypeOf

Levels = tuple[frozenset[str], ...]  # qualifiers of the object, its pointee, its pointee's, ...
NONE: frozenset[str] = frozenset()
QUALIFIERS = frozenset({"const", "volatile", "restrict", "_Atomic"})


class NoSelection(Exception):
    """No association can be told: the program is wrong (``unsupported`` False: none
    matches, as gcc says) or beyond the front end (``unsupported`` True)."""

    def __init__(self, message: str, unsupported: bool) -> None:
        super().__init__(message)
        self.unsupported = unsupported


def _quals(names: list[str] | None) -> frozenset[str]:
    return frozenset(names or ()) & QUALIFIERS


def declarator_levels(node: c_ast.Node | None, typedef: Callable[[str], Levels | None]) -> Levels | None:
    """The qualifiers of each level of the type a declarator denotes (``const char *p``:
    the pointer none, the char const); None if not known. ``typedef(name)`` gives those
    of a typedef name's type, None where ``name`` is no typedef."""
    match node:
        case c_ast.Typename():
            return declarator_levels(node.type, typedef)
        case c_ast.PtrDecl():
            inner = declarator_levels(node.type, typedef)
            return None if inner is None else (_quals(node.quals),) + inner
        case c_ast.ArrayDecl():  # an array's qualifiers are its elements'
            inner = declarator_levels(node.type, typedef)
            return None if inner is None else (_quals(node.dim_quals),) + inner
        case c_ast.FuncDecl():
            return (NONE,)
        case c_ast.TypeDecl() if isinstance(node.type, TypeOf):
            return None  # the qualifiers of an expression's type are not tracked
        case c_ast.TypeDecl():
            own = _quals(node.quals)
            if isinstance(node.type, c_ast.IdentifierType) and len(node.type.names) == 1:
                named = typedef(node.type.names[0])
                if named is not None:
                    return (named[0] | own,) + named[1:]
            return (own,)
    return None


def compatible(a: CType, b: CType) -> bool:
    """C11 6.2.7 on the CFA's types (qualifiers aside): the same type, arrays of which
    one has no length, pointers to compatible types."""
    if a == b:
        return True
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        return (a.length is None or b.length is None or a.length == b.length) and compatible(a.elem, b.elem)
    if isinstance(a, PointerType) and isinstance(b, PointerType):
        return compatible(a.target, b.target)
    return False


def has_pointer(t: CType) -> bool:
    """Whether qualifiers below the top of ``t`` can matter: it points to an object."""
    return isinstance(t, ArrayType) or isinstance(t, PointerType) and not isinstance(t.target, FunctionType)


class Selection:
    """The association a generic selection selects, given how the builder types and
    names things at that point of the program."""

    def __init__(self, type_of: Callable[[c_ast.Node], CType], resolve: Callable[[c_ast.Node], CType],
                 variable_levels: Callable[[str], Levels | None],
                 typedef: Callable[[str], Levels | None]) -> None:
        self.type_of = type_of  # an expression's type, not lvalue-converted
        self.resolve = resolve  # a type name's type
        self.variable_levels = variable_levels  # levels of an identifier's declared type
        self.typedef = typedef

    def select(self, controlling: CType, expr: c_ast.Node,
               associations: list[tuple[c_ast.Node | None, c_ast.Node]]) -> int:
        """The index of the selected association; NoSelection why none can be told."""
        default = None
        matches: list[int] = []
        for i, (typ, _) in enumerate(associations):
            if typ is None:
                default = i
            elif compatible(self.resolve(typ), controlling):
                matches.append(i)
        if matches and has_pointer(controlling):
            levels = self.levels(expr)
            if levels is None:
                raise NoSelection(f"_Generic on {controlling} whose qualifiers cooptest cannot "
                                  f"tell (a member or a call's result): cast it to the type you mean", True)
            wanted = (NONE,) + levels[1:]  # lvalue conversion drops the top's
            matches = [i for i in matches
                       if declarator_levels(associations[i][0], self.typedef) == wanted]
        elif matches:
            matches = [i for i in matches
                       if (declarator_levels(associations[i][0], self.typedef) or (NONE,))[0] == NONE]
        if len(matches) > 1:
            raise NoSelection(f"_Generic with {len(matches)} associations compatible with {controlling}", True)
        if matches:
            return matches[0]
        if default is not None:
            return default
        raise NoSelection(f"_Generic selects nothing for {controlling} and has no default", False)

    def levels(self, node: c_ast.Node) -> Levels | None:
        """The qualifiers of each level of the type of the expression ``node`` (before
        lvalue conversion), None where not known."""
        match node:
            case c_ast.ID():
                return self.variable_levels(node.name)
            case c_ast.Constant():
                return (NONE, NONE) if node.type == "string" else (NONE,)
            case c_ast.Cast():
                inner = declarator_levels(node.to_type, self.typedef)
                return None if inner is None else (NONE,) + inner[1:]
            case c_ast.CompoundLiteral():
                return declarator_levels(node.type, self.typedef)
            case c_ast.UnaryOp(op="&"):
                inner = self.levels(node.expr)
                return None if inner is None else (NONE,) + inner
            case c_ast.UnaryOp(op="*"):
                inner = self.levels(node.expr)
                return inner[1:] if inner is not None and len(inner) > 1 else None
            case c_ast.UnaryOp(op="++" | "--" | "p++" | "p--"):
                inner = self.levels(node.expr)
                return None if inner is None else (NONE,) + inner[1:]
            case c_ast.UnaryOp():
                return (NONE,)  # arithmetic, logical, sizeof
            case c_ast.ArrayRef():
                base = node.name if has_pointer(self.type_of(node.name)) else node.subscript
                inner = self.levels(base)
                return inner[1:] if inner is not None and len(inner) > 1 else None
            case c_ast.BinaryOp(op="+" | "-"):
                for side in (node.left, node.right):
                    if has_pointer(self.type_of(side)):
                        inner = self.levels(side)
                        return None if inner is None else (NONE,) + inner[1:]
                return (NONE,)
            case c_ast.BinaryOp():
                return (NONE,)
            case c_ast.Assignment():
                inner = self.levels(node.lvalue)
                return None if inner is None else (NONE,) + inner[1:]
            case c_ast.ExprList():
                return self.levels(node.exprs[-1])
            case c_ast.TernaryOp():
                a, b = self.levels(node.iftrue), self.levels(node.iffalse)
                return a if a == b else None
        return None
