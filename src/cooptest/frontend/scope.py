"""Block scopes of C: ordinary identifiers (variables, functions, typedefs, enum
constants) and tags (struct, union, enum) live in separate name spaces (C11 6.2.3)."""
from __future__ import annotations

from dataclasses import dataclass

from cooptest.cfa.ctype import CType, FunctionType
from cooptest.cfa.ir import Variable


@dataclass(frozen=True)
class Typedef:
    type: CType


@dataclass(frozen=True)
class EnumConst:
    value: int
    type: CType


@dataclass(frozen=True)
class Function:
    name: str
    type: FunctionType


Ordinary = Variable | Typedef | EnumConst | Function


class Scope:
    """A stack of block scopes.

    Each name maps to its visible declarations, innermost last, so that a lookup costs
    one dict access however deep the blocks nest (else-if chains of generated code nest
    hundreds deep); each level remembers the names it declared, to hide them again."""

    def __init__(self) -> None:
        self._names: dict[str, list[tuple[int, Ordinary]]] = {}
        self._tags: dict[str, list[tuple[int, CType]]] = {}
        self._levels: list[tuple[list[str], list[str]]] = [([], [])]  # names, tags declared

    def push(self) -> None:
        self._levels.append(([], []))

    def pop(self) -> None:
        names, tags = self._levels.pop()
        for name in names:
            self._names[name].pop()
        for tag in tags:
            self._tags[tag].pop()

    def declare(self, name: str, what: Ordinary, file_scope: bool = False) -> None:
        _declare(self._names, self._levels, name, what, 0 if file_scope else len(self._levels) - 1, 0)

    def at_file_scope(self) -> bool:
        return len(self._levels) == 1

    def lookup(self, name: str) -> Ordinary | None:
        found = self._names.get(name)
        return found[-1][1] if found else None

    def declare_tag(self, tag: str, t: CType) -> None:
        _declare(self._tags, self._levels, tag, t, len(self._levels) - 1, 1)

    def lookup_tag(self, tag: str, innermost_only: bool = False) -> CType | None:
        found = self._tags.get(tag)
        if not found or innermost_only and found[-1][0] != len(self._levels) - 1:
            return None
        return found[-1][1]


def _declare(space: dict[str, list], levels: list[tuple[list[str], list[str]]], name: str,
             what: object, level: int, kind: int) -> None:
    """Make ``what`` the declaration of ``name`` at ``level``: a redeclaration at the
    same level replaces it; one at file scope from inside a block goes under the
    block's own."""
    stack = space.setdefault(name, [])
    position = len(stack)
    while position and stack[position - 1][0] > level:
        position -= 1
    if position and stack[position - 1][0] == level:
        stack[position - 1] = (level, what)
        return
    stack.insert(position, (level, what))
    levels[level][kind].append(name)
