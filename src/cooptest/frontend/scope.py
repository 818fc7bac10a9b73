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
    """A stack of block scopes."""

    def __init__(self) -> None:
        self._names: list[dict[str, Ordinary]] = [{}]
        self._tags: list[dict[str, CType]] = [{}]

    def push(self) -> None:
        self._names.append({})
        self._tags.append({})

    def pop(self) -> None:
        self._names.pop()
        self._tags.pop()

    @property
    def at_file_scope(self) -> bool:
        return len(self._names) == 1

    def declare(self, name: str, what: Ordinary, file_scope: bool = False) -> None:
        (self._names[0] if file_scope else self._names[-1])[name] = what

    def lookup(self, name: str) -> Ordinary | None:
        for names in reversed(self._names):
            if name in names:
                return names[name]
        return None

    def declare_tag(self, tag: str, t: CType) -> None:
        self._tags[-1][tag] = t

    def lookup_tag(self, tag: str, innermost_only: bool = False) -> CType | None:
        for tags in reversed(self._tags[-1:] if innermost_only else self._tags):
            if tag in tags:
                return tags[tag]
        return None
