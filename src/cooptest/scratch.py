"""Temporary folders of one step (a build, a probe of gcc), for every layer: the harness
may not load the core (``tests/harness/test_layering.py``)."""
from __future__ import annotations

import tempfile


def scratch(prefix: str | None = None, dir: str | None = None) -> tempfile.TemporaryDirectory[str]:
    """A temporary folder for one step's files (a build, a probe of gcc). A signal may
    unwind the step while a compiler it started still writes there (killing gcc's
    driver leaves its assembler running): the folder's removal then leaves what it
    cannot remove, rather than replacing the signal with an OSError ("Directory not
    empty", exit 2 for a run its budget stopped while loading); the run's work folder,
    removed at its end (``leave``), holds it."""
    return tempfile.TemporaryDirectory(prefix=prefix, dir=dir, ignore_cleanup_errors=True)
