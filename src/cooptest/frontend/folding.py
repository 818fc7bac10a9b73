"""Where gcc's build of a unit relies on signed arithmetic not overflowing, by asking gcc.

Signed overflow is undefined in C, and gcc folds expressions as if it never happened, at
-O0 too (fold-const: ``x + 1 < 0`` becomes ``x < -1``, ``x * 10 / 5`` becomes ``x * 2``,
``(size_t)(n - 1)`` becomes ``(size_t)n - 1``). The CFA computes the wrapped value x86's
instructions would; the two differ exactly on the inputs where the arithmetic overflows,
and there a proof made on the CFA may claim infeasible a branch gcc's build takes.

gcc's ``-fwrapv`` build computes what the CFA computes (wrapping is then defined and those
folds are off). So the statements whose GIMPLE differs between the unit's build with
and without ``-fwrapv`` are exactly the ones where gcc's build may compute something
else than the CFA: their locations are what this module returns
(``cfa.proof_blockers.overflow_folded`` decides which goals they make proofs unsafe for).
Where the two agree, gcc's -O0 code is its -fwrapv code, whatever the inputs.
"""
from __future__ import annotations

import difflib
import json
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor

from cooptest.cfa.ctype import DataModel
from cooptest.frontend.preprocess import search_flags, unit_key
from cooptest.scratch import scratch
from cooptest.task import Source

FORMAT = 2  # bump when what is cached changes
GCC_SECONDS = 300  # for one compilation of a unit to GIMPLE
# a GIMPLE statement's location as ``-lineno`` dumps it: ``[file:line:column]``
_LOCATION = re.compile(r"^\s*\[(?P<file>[^\]]+):(?P<line>\d+):\d+\]")
# a temporary's declaration, numbers replaced: ``  int #;``, ``  char * #;``
_TEMPORARY = re.compile(r"^\s+[^=;\[(]*\s\**#;$")
# gcc's temporaries and labels (``D.1995``, ``_1``, ``x.0_3``): numbered in creation order,
# so one folded statement renumbers all that follow
_NUMBERED = re.compile(r"\b(?:D\.\d+|_\d+|[A-Za-z_]\w*\.\d+(?:_\d+)?)\b")


def overflow_folds(unit: Source, data_model: DataModel, out_dir: str) -> list[tuple[str, int]] | None:
    """The (file, line) of each statement of ``unit`` that gcc compiles otherwise than
    under ``-fwrapv`` (none if the unit is compiled with ``-fwrapv``), cached in
    ``out_dir`` by the unit's content and flags; None if gcc did not dump the unit's
    GIMPLE (it does not compile, or took past ``GCC_SECONDS``): no one knows then."""
    if "-fwrapv" in unit.flags:
        return []
    os.makedirs(out_dir, exist_ok=True)
    cached = os.path.join(out_dir, f"{unit_key(unit, data_model)}.folds-{FORMAT}.json")
    try:
        with open(cached) as f:
            return [(file, line) for file, line in json.load(f)]
    except (OSError, ValueError):
        pass
    with scratch(dir=out_dir) as work, ThreadPoolExecutor(2) as gccs:
        # both at once: loading has the machine to itself (the lanes start after it)
        folded, wrapped = gccs.map(lambda name, extra: _gimple(unit, data_model, os.path.join(work, name), extra),
                                   ("folded", "wrapped"), ((), ("-fwrapv",)))
    if folded is None or wrapped is None:
        return None
    sites = sorted(_differing_lines(wrapped, folded))
    with open(cached + ".tmp", "w") as f:
        json.dump(sites, f)
    os.replace(cached + ".tmp", cached)
    return sites


def _gimple(unit: Source, data_model: DataModel, dump: str, extra: tuple[str, ...]) -> list[str] | None:
    """The unit's GIMPLE with locations, as gcc -O0 builds it, or None if gcc does not
    compile it (the native build will say why) or not within ``GCC_SECONDS``."""
    try:
        proc = subprocess.run(["gcc", "-w", "-c", *search_flags(unit, data_model), *unit.flags, *extra,
                               f"-fdump-tree-gimple-lineno={dump}", unit.path, "-o", os.devnull],
                              capture_output=True, timeout=GCC_SECONDS, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None
    if proc.returncode != 0 or not os.path.exists(dump):
        return None
    with open(dump, errors="replace") as f:
        return [_NUMBERED.sub("#", line) for line in f.read().splitlines()]


def _differing_lines(wrapped: list[str], folded: list[str]) -> set[tuple[str, int]]:
    """The source locations of the statements in which the two dumps differ."""
    sites: set[tuple[str, int]] = set()
    records = _statements(wrapped), _statements(folded)
    matcher = difflib.SequenceMatcher(None, [text for _, text in records[0]], [text for _, text in records[1]])
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            sites.update(site for site, _ in records[0][i1:i2] + records[1][j1:j2])
    return sites


def _statements(dump: list[str]) -> list[tuple[tuple[str, int], str]]:
    """The dump as located statements: each line with a location, together with the
    lines after it that have none (labels, ``else``, a statement gcc dumps without
    one), but for temporaries' declarations (the statements that use them differ too,
    where they are). Located lines are nearly all distinct, which keeps the diff of a
    program's 100,000 lines of GIMPLE linear."""
    out: list[tuple[tuple[str, int], str]] = []
    for text in dump:
        if (m := _LOCATION.match(text)):
            out.append(((os.path.normpath(m["file"]), int(m["line"])), text))
        elif out and not _TEMPORARY.match(text):
            out[-1] = (out[-1][0], out[-1][1] + "\n" + text)
    return out
