"""Errors a user can act on: the CLI prints them as one line and exits with code 2."""
from __future__ import annotations


class UserError(Exception):
    """Bad input: not C, an unsupported construct, a missing file, a bad option.

    ``str()`` is the one line the user sees: ``file:line: message``."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None) -> None:
        self.message = message
        self.file = file
        self.line = line
        where = f"{file}:{line}: " if file and line else f"{file}: " if file else ""
        super().__init__(f"{where}{message}")


class Unsupported(UserError):
    """A C construct cooptest does not model; names the construct."""


class ToolMissing(UserError):
    """A system tool is missing; the message carries the exact apt line."""
