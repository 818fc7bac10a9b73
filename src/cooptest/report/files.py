"""The files of a program as the outputs name them, and the goals of each.

A program of several translation units has goals in each unit and in the project
headers they include (a goal's ``file``; a header-only library has all of its goals in
a header). People know such a file by its path within the project, so every output
names it relative to the folder the program's files share (``lib/ring.h``, not
``/home/…/lib/ring.h``), and totals are given per file: the figure of the whole program
hides a header whose every goal is open behind a harness whose goals are covered.
"""
from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from cooptest.task import Task

STATUSES = ("covered", "infeasible", "unknown")


def common_folder(paths: Iterable[str]) -> str:
    """The deepest folder holding every one of ``paths`` (absolute)."""
    folders = [os.path.dirname(os.path.abspath(p)) for p in paths]
    return os.path.commonpath(folders) if folders else os.getcwd()


def short_names(paths: Iterable[str]) -> dict[str, str]:
    """Each path named relative to the folder all of them share (one file: its base name)."""
    unique = list(dict.fromkeys(os.path.normpath(p) for p in paths))
    root = common_folder(unique)
    return {p: os.path.relpath(p, root) for p in unique}


@dataclass
class FileTotals:
    """The goals of one file by status (``unknown``: open)."""

    path: str
    name: str
    counts: Counter = field(default_factory=Counter)

    @property
    def goals(self) -> int:
        return sum(self.counts.values())

    @property
    def cov_f(self) -> float:
        """Covered goals among those not proven infeasible, in percent (100 without any)."""
        decidable = self.goals - self.counts["infeasible"]
        return round(100.0 * self.counts["covered"] / decidable, 2) if decidable else 100.0


def file_totals(statuses: Iterable[tuple[str, str]], units: Sequence[str] = ()) -> list[FileTotals]:
    """Totals per file of ``statuses`` (pairs of a goal's file and its status): the
    translation units first, in ``units``' order, then the headers by name. Only files
    with goals are listed."""
    counts: dict[str, Counter] = {}
    for path, status in statuses:
        counts.setdefault(os.path.normpath(path), Counter())[status] += 1
    rank = {os.path.normpath(u): i for i, u in enumerate(units)}
    names = short_names([*units, *counts])  # named alike in every output of the program
    order = sorted(counts, key=lambda p: (rank.get(p, len(rank)), names[p]))
    return [FileTotals(p, names[p], counts[p]) for p in order]


def several_files(statuses: Iterable[tuple[str, str]], task: Task) -> list[FileTotals]:
    """The totals per file of a program whose goals are not all in its one file (as
    :func:`file_totals`); none for a program of one file, whose outputs stay as they were."""
    totals = file_totals(statuses, task.files)
    return totals if [t.path for t in totals] not in ([os.path.normpath(task.program)], []) else []
