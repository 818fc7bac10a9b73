"""The run's memory limit (``--memory``): cooptest's own processes stay under it.

A portfolio forks a worker per core, and each holds its own ARGs, execution trees and z3
contexts; one analysis that explodes (a value analysis enumerating an input-dependent
counter) must not take the machine, or the other workers, with it. A watch thread in the
parent reads the resident memory of cooptest's processes (the parent and its forked
helpers, not the programs under test, which have their own address-space limit) a few
times a second. Over the limit, it ends the largest consumer: a worker is killed (its
lane ends; the board keeps everything it reported), the parent's own analysis is
cancelled through its budget (the run then ends normally, with the suite so far). The
peak is reported.

Pss, the honest size of forks that share pages, costs the kernel a walk of every page
table (~20 ms for a worker of 600 MB; at five readings a second, 9% of a core on
pals_lcr, taken from the lanes). So one reading in five sums Pss, for the peak, and the
others sum the resident sets, an upper bound read for free, and fall back to Pss only
when that bound passes the limit.
"""
from __future__ import annotations

import os
import signal
import threading
from typing import Callable

from cooptest.core.budget import Budget

PAGE = os.sysconf("SC_PAGE_SIZE")
DEFAULT_LIMIT_MB = 4096
INTERVAL = 0.2  # seconds between two readings
EXACT_EVERY = 5  # readings: one in five sums Pss, the others resident sets (see check)


def _rss(pid: int) -> int:
    """Resident bytes of ``pid``, pages shared with its forks counted proportionally
    (Pss: a forked worker shares the parsed program with its parent); 0 once gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) << 10
    except (OSError, IndexError, ValueError):
        pass
    return _resident(pid)


def _resident(pid: int) -> int:
    """Resident bytes of ``pid``, shared pages counted in full: at least its Pss, and
    read without the walk of every page table that Pss costs the kernel."""
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                found += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return found


def own_processes(root: int) -> list[int]:
    """``root`` and its descendants that run the same executable (forked helpers)."""
    try:
        exe = os.readlink(f"/proc/{root}/exe")
    except OSError:
        return [root]
    found, todo = [root], _children(root)
    while todo:
        pid = todo.pop()
        try:
            same = os.readlink(f"/proc/{pid}/exe") == exe
        except OSError:
            continue
        if same:
            found.append(pid)
            todo += _children(pid)
    return found


class MemoryWatch:
    """Keeps cooptest's processes under ``limit_mb``; ``budget`` is what the parent's
    own analysis runs under. ``on_kill(pid)`` is told of every helper it ends."""

    def __init__(self, limit_mb: int, budget: Budget,
                 on_kill: Callable[[int], None] | None = None) -> None:
        self.limit = limit_mb << 20
        self.budget = budget
        self.on_kill = on_kill
        self.peak = 0
        self.exceeded = False  # the parent's analysis was stopped for memory
        self.readings = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="memory-watch", daemon=True)

    @property
    def peak_mb(self) -> int:
        return round(self.peak / (1 << 20))

    def __enter__(self) -> MemoryWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def check(self) -> None:
        """One reading: the peak (exact readings only), and the largest consumer ended
        if over the limit."""
        me = os.getpid()
        processes = own_processes(me)
        self.readings += 1
        if self.readings % EXACT_EVERY != 1 and \
                sum(_resident(pid) for pid in processes) <= self.limit:
            return  # under the limit even with shared pages counted in every fork
        sizes = {pid: _rss(pid) for pid in processes}
        total = sum(sizes.values())
        self.peak = max(self.peak, total)
        if total <= self.limit:
            return
        largest = max(sizes, key=lambda p: sizes[p])
        if largest != me:
            try:
                os.kill(largest, signal.SIGKILL)
            except OSError:
                return
            if self.on_kill is not None:
                self.on_kill(largest)
        elif not self.exceeded:
            self.exceeded = True
            self.budget.cancel()

    def _watch(self) -> None:
        """Readings from the start: a run that ends within one interval has a peak
        too, and a limit exceeded from the start stops it at once."""
        self.check()
        while not self._stop.wait(INTERVAL):
            self.check()
