"""Which sub-object each initialiser of a brace-enclosed list initialises (C11 6.7.9).

A list initialises the *current object* member by member; a member that is itself an
aggregate takes its initialisers from the same list when they are not braced (brace
elision, ``struct { int a[2]; int b; } s = {1, 2, 3}``), and a designator (``.a.q = 5``,
``[1][0] = 7``, ``.i`` of an anonymous union) moves the position, from where the
following initialisers go on in order. The walk is the standard's "current object"
stack: one frame per aggregate entered by elision or by a designator, each at the
position of its next member.

An anonymous struct or union member is one member of its struct, as declared
(``StructType.declared``); its own members are addressed through the nearest named
object, whose ``fields`` hold them (``TypeResolver._define`` lifts them)."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pycparser import c_ast

from cooptest.cfa.ctype import ArrayType, CType, Field, StructType, Types
from cooptest.cfa.ir import Const, Expr, Index, Member
from cooptest.frontend.declarations import unsupported
from cooptest.frontend.parser import IndexRange

UNBOUNDED = 1 << 62  # the length of an array whose length its initialiser decides


@dataclass(frozen=True)
class SubObject:
    """An object of ``type`` being initialised: ``lvalue`` names it, or for an anonymous
    struct or union member (``anonymous``) the named object its members belong to."""

    type: CType
    lvalue: Expr
    anonymous: bool = False

    def is_aggregate(self) -> bool:
        return isinstance(self.type, (ArrayType, StructType))


@dataclass
class Frame:
    """An aggregate being initialised and the position of its next member."""

    object: SubObject
    position: int = 0


Placement = tuple[list[Expr], c_ast.Node]
"""Objects an initialiser expression initialises (several: GNU's ``[a ... b] = v``)."""


def members(t: StructType) -> list[Field]:
    """The members an initialiser list walks: the declared ones, an anonymous member as
    one, unnamed bit-fields left out (C11 6.7.9p9)."""
    declared = t.declared if t.declared is not None else t.fields
    return [f for f in declared if not (f.bit_width is not None and f.name.startswith("__pad"))]


class InitialiserWalk:
    """The placements of a brace-enclosed initialiser list's expressions.

    ``const_eval`` evaluates an array designator; ``is_whole`` says whether an
    initialiser expression initialises an aggregate sub-object whole (a string literal
    for an array of characters, a struct value for a struct) rather than its first
    scalar by brace elision."""

    def __init__(self, types: Types, const_eval: Callable[[c_ast.Node], int | None],
                 is_whole: Callable[[SubObject, c_ast.Node], bool]) -> None:
        self.types = types
        self.const_eval = const_eval
        self.is_whole = is_whole
        self.greatest = -1  # the greatest position placed in the outermost list

    def placements(self, target: SubObject, init: c_ast.InitList) -> Iterator[Placement]:
        stack = [Frame(target)]
        for item in init.exprs:
            if isinstance(item, c_ast.NamedInitializer):
                del stack[1:]
                *path, last = item.name
                for designator in path:
                    self._designate(stack, designator)
                    frame = stack[-1]
                    sub = self._member(frame.object, frame.position)
                    if not sub.is_aggregate():
                        raise unsupported("a designator into a scalar", item)
                    stack.append(Frame(sub))
                if isinstance(last, IndexRange):
                    yield self._range(stack, last, item)
                    continue
                self._designate(stack, last)
                item = item.expr
            yield from self._place(stack, item)

    def _place(self, stack: list[Frame], item: c_ast.Node) -> Iterator[Placement]:
        """Place one initialiser at the stack's position, entering aggregates it does
        not initialise whole, leaving those it has filled."""
        while True:
            frame = stack[-1]
            if frame.position >= self._length(frame.object):
                if len(stack) == 1:
                    return  # an excess initialiser: gcc warns and drops it
                stack.pop()
                self._advance(stack[-1])
                continue
            sub = self._member(frame.object, frame.position)
            if len(stack) == 1:
                self.greatest = max(self.greatest, frame.position)
            if isinstance(item, c_ast.InitList):
                if sub.is_aggregate():
                    yield from InitialiserWalk(self.types, self.const_eval, self.is_whole).placements(sub, item)
                elif item.exprs:  # a scalar in braces: { 5 }
                    yield [sub.lvalue], item.exprs[0]
                self._advance(frame)
                return
            if sub.is_aggregate() and not self.is_whole(sub, item):
                stack.append(Frame(sub))
                continue
            if sub.anonymous:
                raise unsupported("an anonymous member initialised whole", item)
            yield [sub.lvalue], item
            self._advance(frame)
            return

    def _range(self, stack: list[Frame], designator: IndexRange, item: c_ast.NamedInitializer) -> Placement:
        """GNU ``[low ... high] = value``: each element of the range is ``value``."""
        frame = stack[-1]
        t = frame.object.type
        low, high = (self.const_eval(n) for n in (designator.low, designator.high))
        if low is None or high is None or not isinstance(t, ArrayType) or not t.elem.is_scalar() \
                or isinstance(item.expr, c_ast.InitList):
            raise unsupported("a designated range but of scalar elements", item)
        frame.position = high + 1
        if len(stack) == 1:
            self.greatest = max(self.greatest, high)
        return [self._member(frame.object, i).lvalue for i in range(low, high + 1)], item.expr

    def _designate(self, stack: list[Frame], designator: c_ast.Node) -> None:
        """Move the top frame to the member ``designator`` names; a member of an
        anonymous member is reached through it (a frame for the anonymous one)."""
        frame = stack[-1]
        t = frame.object.type
        if isinstance(t, ArrayType):
            index = self.const_eval(designator)
            if index is None or isinstance(designator, c_ast.ID):
                raise unsupported("an array designator not a constant", designator)
            frame.position = index
            return
        if not isinstance(t, StructType) or not isinstance(designator, c_ast.ID):
            raise unsupported("a designator of no member", designator)
        for position, f in enumerate(members(t)):
            if f.name == designator.name:
                frame.position = position
                return
            if isinstance(f.type, StructType) and f.name.startswith("__anonymous") \
                    and any(g.name == designator.name for g in f.type.fields):
                frame.position = position
                stack.append(Frame(self._member(frame.object, position)))
                self._designate(stack, designator)
                return
        raise unsupported(f"no member {designator.name} to designate", designator)

    def _advance(self, frame: Frame) -> None:
        """A union takes one initialiser; a struct or an array goes on to its next member."""
        t = frame.object.type
        frame.position = len(members(t)) if isinstance(t, StructType) and t.is_union else frame.position + 1

    def _length(self, o: SubObject) -> int:
        t = o.type
        if isinstance(t, ArrayType):
            return UNBOUNDED if t.length is None else t.length
        assert isinstance(t, StructType)
        return len(members(t))

    def _member(self, o: SubObject, position: int) -> SubObject:
        t = o.type
        if isinstance(t, ArrayType):
            return SubObject(t.elem, Index(t.elem, o.lvalue, Const(self.types.int, position)))
        assert isinstance(t, StructType)
        f = members(t)[position]
        if f.name.startswith("__anonymous"):
            return SubObject(f.type, o.lvalue, anonymous=True)
        return SubObject(f.type, Member(f.type, o.lvalue, f.name))

