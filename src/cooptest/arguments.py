"""Types of command-line values: each turns one argument's text into a value or says,
in one line, why it cannot (argparse turns that into a UserError, exit 2)."""
from __future__ import annotations

import argparse
import os
from typing import Any, Callable

from cooptest.cfa.ctype import DataModel


def data_model(text: str) -> DataModel:
    try:
        return DataModel(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"unknown data model {text!r} (ILP32 or LP64)") from None


MAX_BUDGET = 7 * 24 * 3600.0  # a week: beyond, a budget is a typo, not a plan


def _number(text: str, kind: type, within: Callable[[float], bool], expected: str) -> Any:
    """``text`` as a ``kind`` (float or int) for which ``within`` holds."""
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a {'number' if kind is float else 'whole number'}: {text!r}") from None
    if not within(value):  # also false for nan
        raise argparse.ArgumentTypeError(f"must be {expected}: {text!r}")
    return value


def budget_seconds(text: str) -> float:
    """A budget in seconds: finite, positive and at most MAX_BUDGET."""
    return _number(text, float, lambda v: 0 < v <= MAX_BUDGET,
                   f"a number of seconds above 0 and at most {MAX_BUDGET:.0f}")


def share(text: str) -> float:
    """A share of time, 0 to 1."""
    return _number(text, float, lambda v: 0 <= v <= 1, "between 0 and 1")


def positive_count(text: str) -> int:
    """A positive whole number (partitions, jobs, megabytes)."""
    return _number(text, int, lambda v: v >= 1, "at least 1")


def depth(text: str) -> int:
    """A number of pointers followed (``--max-depth``): 0 to 16."""
    return _number(text, int, lambda v: 0 <= v <= 16, "from 0 to 16")


def folder(text: str) -> str:
    """An output folder: not empty, and not one of the system's own (``--out /`` would
    write report.json into the root)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must name a folder")
    real = os.path.realpath(text)
    if real in SYSTEM_FOLDERS or real == os.path.realpath(os.path.expanduser("~")):
        raise argparse.ArgumentTypeError(f"{text!r} is a system or home folder; name a folder "
                                         "for cooptest's outputs")
    return text


SYSTEM_FOLDERS = frozenset({"/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib64",
                            "/proc", "/root", "/run", "/sbin", "/sys", "/tmp", "/usr", "/var"})


def jobs(text: str) -> int:
    """A number of cores to use: at least 1, at most the ones this process may run on."""
    from cooptest.core.parallel import usable_cores
    cores = len(usable_cores())
    return _number(text, int, lambda v: 1 <= v <= cores, f"from 1 to the {cores} cores cooptest may use")


def memory_mb(text: str) -> int:
    """Megabytes for cooptest's own processes: below 16 not even the interpreter fits."""
    return _number(text, int, lambda v: v >= 16, "at least 16 (MB)")


def byte_count(text: str) -> int:
    """A number of input bytes (arguments, stdin, a file): 0 to 65,536."""
    return _number(text, int, lambda v: 0 <= v <= 1 << 16, "from 0 to 65536")


def sym_file(text: str) -> tuple[str, int]:
    """``NAME:N`` of ``--sym-file``: a file name and its number of input bytes."""
    from cooptest.environment import parse_sym_file
    try:
        return parse_sym_file(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
