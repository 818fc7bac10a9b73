"""Helper processes that must not outlive the process that started them.

A cooptest run forks helpers (lane workers of a portfolio, the builder of the coverage
meter, a benchmark's ``generate`` child). When their parent is killed (SIGKILL leaves it
no chance to clean up), Linux's parent-death signal ends them too; without it a helper
waits forever on a queue its dead parent was to fill. Nor do their temporary files
outlive them: a helper keeps them in a folder its starter removes.
"""
from __future__ import annotations

import ctypes
import os
import signal
import tempfile
from typing import Any

PR_SET_PDEATHSIG = 1
_PRCTL = ctypes.CDLL(None, use_errno=True).prctl  # looked up here, not in a forked child


def die_with_parent(sig: int = signal.SIGKILL, parent: int | None = None) -> None:
    """In a freshly started child: receive ``sig`` when the parent dies. ``parent`` (the
    pid the child was started by) closes the race of a parent dying before the call."""
    _PRCTL(PR_SET_PDEATHSIG, sig)
    if parent is not None and os.getppid() != parent:
        os.kill(os.getpid(), sig)


STOPPING = {signal.SIGTERM, signal.SIGINT}


def start_forked(process: Any) -> None:
    """Start a forked ``multiprocessing`` process with SIGTERM and SIGINT blocked: a
    signal between the fork and the child's own handlers (``take_own_signals``) would
    otherwise run the parent's handler in the child."""
    signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING)
    try:
        process.start()
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPPING)


def take_own_signals() -> None:
    """In a child started by ``start_forked``: SIGTERM ends it, SIGINT (a Ctrl-C meant
    for the parent, which decides when its helpers end) is ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPPING)


def temporary_files_in(folder: str) -> None:
    """Send this process's temporary files, and its children's, to ``folder``: a helper
    ended by a signal removes none of its own, so its starter removes the folder."""
    tempfile.tempdir = os.environ["TMPDIR"] = folder
