"""glibc's character tables of the "C" locale, asked of glibc itself.

``<ctype.h>`` in glibc turns ``isalnum(c)`` into ``(*__ctype_b_loc())[(int) c] &
_ISalnum`` and ``tolower``/``toupper`` into calls, or, with ``__USE_EXTERN_INLINES``,
into reads of ``*__ctype_tolower_loc()``/``*__ctype_toupper_loc()``. A program that
classifies its input bytes so reads a table the symbolic engine must know to flip
such branches (``analyses.symbolic``): its entries for ``-128 .. 255``, as a program
linked with the target's glibc prints them, once per data model. Every program starts
in the "C" locale (C11 7.11.1.1), so the tables hold until it calls ``setlocale``."""
from __future__ import annotations

import functools
import os
import subprocess
from dataclasses import dataclass

from cooptest.cfa.ctype import DataModel
from cooptest.scratch import scratch

FIRST, LAST = -128, 255  # the indices glibc's tables define (EOF is -1)
FUNCTIONS = {"__ctype_b_loc": 2, "__ctype_tolower_loc": 4, "__ctype_toupper_loc": 4}  # bytes an entry
CASE_MAPS = {"tolower": "__ctype_tolower_loc", "toupper": "__ctype_toupper_loc"}  # their tables

PROBE = r"""
#include <ctype.h>
#include <stdio.h>
int main(void) {
  int i;
  for (i = -128; i <= 255; i++)
    printf("%u %d %d\n", (unsigned)(*__ctype_b_loc())[i], (int)(*__ctype_tolower_loc())[i],
           (int)(*__ctype_toupper_loc())[i]);
  return 0;
}
"""


@dataclass(frozen=True)
class Run:
    """Entries ``first .. last`` (positions in ``Table.entries``) that are ``value``,
    ``value + 1``, … (``step`` 1: ``tolower`` outside the capitals) or all ``value``
    (``step`` 0: the classes of ``__ctype_b_loc``)."""

    first: int
    last: int
    value: int
    step: int


@dataclass(frozen=True)
class Table:
    """One table: ``entries[i - FIRST]`` is the entry of index ``i``, ``size`` bytes each."""

    size: int
    entries: tuple[int, ...]

    @functools.cached_property
    def runs(self) -> tuple[Run, ...]:
        """The entries as maximal runs, left to right: a read at a symbolic index is
        then a choice among a few dozen terms (the C locale's ``__ctype_b_loc`` has 17
        runs), where an array of 384 stores made each query several times slower."""
        out, i, e = [], 0, self.entries
        while i < len(e):
            step = e[i + 1] - e[i] if i + 1 < len(e) and e[i + 1] - e[i] in (0, 1) else 0
            j = i
            while j + 1 < len(e) and e[j + 1] == e[i] + step * (j + 1 - i):
                j += 1
            out.append(Run(i, j, e[i], step))
            i = j + 1
        return tuple(out)


@functools.cache
def tables(data_model: DataModel) -> dict[str, Table] | None:
    """The tables by the function whose result points to them, None where the probe
    cannot be built or run (then the engine keeps these calls unknown)."""
    with scratch(prefix="cooptest-ctype-") as work:
        source, binary = os.path.join(work, "probe.c"), os.path.join(work, "probe")
        with open(source, "w") as f:
            f.write(PROBE)
        try:
            subprocess.run(["gcc", data_model.gcc_flag, "-o", binary, source], check=True,
                           capture_output=True, timeout=60)
            out = subprocess.run([binary], check=True, capture_output=True, text=True, timeout=10,
                                 env={"PATH": os.environ.get("PATH", "")}).stdout
        except (OSError, subprocess.SubprocessError):
            return None
    rows = [tuple(int(x) for x in line.split()) for line in out.splitlines()]
    if len(rows) != LAST - FIRST + 1:
        return None
    return {name: Table(size, tuple(row[k] & ((1 << 8 * size) - 1) for row in rows))
            for k, (name, size) in enumerate(FUNCTIONS.items())}
