"""Helper processes that must not outlive the process that started them.

A cooptest run forks helpers (lane workers of a portfolio, the builder of the coverage
meter, a benchmark's ``generate`` child). When their parent is killed (SIGKILL leaves it
no chance to clean up), Linux's parent-death signal ends them too; without it a helper
waits forever on a queue its dead parent was to fill.
"""
from __future__ import annotations

import ctypes
import os
import signal

PR_SET_PDEATHSIG = 1
_PRCTL = ctypes.CDLL(None, use_errno=True).prctl  # looked up here, not in a forked child


def die_with_parent(sig: int = signal.SIGKILL, parent: int | None = None) -> None:
    """In a freshly started child: receive ``sig`` when the parent dies. ``parent`` (the
    pid the child was started by) closes the race of a parent dying before the call."""
    _PRCTL(PR_SET_PDEATHSIG, sig)
    if parent is not None and os.getppid() != parent:
        os.kill(os.getpid(), sig)
