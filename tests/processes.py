"""Processes a test must see ended: those still working in a run's folder after the run
was killed (a compiler building there, afl-fuzz and its fork server)."""
from __future__ import annotations

import os
from pathlib import Path


def working_in(folder: Path) -> list[int]:
    """Processes whose command line names ``folder``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if str(folder).encode() in f.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found
