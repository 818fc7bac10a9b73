"""When this run of cooptest began: a budget counts from the process's start, since the
interpreter's start and the imports are part of a run (under load they take seconds).

The reading is taken when the package is first imported (``cooptest/__init__.py``
imports this module before anything else), so that the only work done since the exec
is the interpreter's own start and the bound below stays tight."""
from __future__ import annotations

import os
import time

STARTUP_LOAD, STARTUP_SLACK = 2.0, 0.2  # the bound of ``process_age``: wall per CPU second


def process_age() -> float:
    """Seconds since this process was exec'd (0 where /proc does not tell).

    /proc gives the time of the fork, not of the exec, and the two can be far apart: a
    shell runs the last command of a subshell ``( a; b )`` in the subshell's own
    process, forked before ``a`` ran (that run of ``b`` found its budget spent before
    it began). Since the exec this process has done only the interpreter's start, so
    its CPU time, at most halved by load, bounds the age."""
    try:
        with open("/proc/self/stat") as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])  # field 22, starttime
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0
    cpu = os.times()
    return max(0.0, min(age, STARTUP_LOAD * (cpu.user + cpu.system) + STARTUP_SLACK))


STARTED = time.monotonic() - process_age()
