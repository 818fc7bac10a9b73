"""Budgets: a tree of wall-clock deadlines that analyses poll.

A cooperation hands each analysis a *child* of its own budget: the child never
outlives its parent (its deadline is capped by every ancestor's), and cancelling a
budget cancels every budget below it, so that a signal, or a portfolio taking a core
away, reaches the innermost loop of whatever runs. Why an analysis stopped follows from
its budget: ``cancelled`` when someone cancelled it, ``budget`` when its time ran out.
Neither is a verdict about the program (see ``core.analysis``).
"""
from __future__ import annotations

import math
import time
from typing import Literal


class DeadlineReached(Exception):
    """The budget ran out inside one step of an analysis (a transfer, a precision
    adjustment, a build of clauses). The step is not recorded, not even as a coarser or
    unknown result: the next run does it again. A deadline never changes what an
    analysis says."""


class Budget:
    """A deadline (``time.monotonic`` seconds) in a tree of budgets."""

    def __init__(self, deadline: float, parent: Budget | None = None) -> None:
        self._deadline = deadline
        self.parent = parent
        self._cancelled = False

    @staticmethod
    def seconds(s: float) -> Budget:
        """A root budget of ``s`` seconds from now (``inf``: until cancelled)."""
        return Budget(time.monotonic() + s if math.isfinite(s) else math.inf)

    def child(self, seconds: float | None = None) -> Budget:
        """A sub-budget of at most ``seconds`` (None: as long as this one)."""
        own = math.inf if seconds is None else time.monotonic() + seconds
        return Budget(own, self)

    def own_deadline(self) -> float:
        """This budget's own deadline, before its ancestors' cap it (one that moves, as
        ``core.parallel.UntilStuck``'s, overrides this)."""
        return self._deadline

    @property
    def deadline(self) -> float:
        """The effective deadline: the earliest along the path to the root, 0 once
        cancelled."""
        if self.cancelled:
            return 0.0
        if self.parent is None:
            return self.own_deadline()
        return min(self.own_deadline(), self.parent.deadline)

    @property
    def cancelled(self) -> bool:
        b: Budget | None = self
        while b is not None:
            if b._cancelled:
                return True
            b = b.parent
        return False

    def cancel(self) -> None:
        self._cancelled = True

    def remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def expired(self) -> bool:
        return time.monotonic() >= self.deadline

    def solver_timeout_ms(self, cap: float) -> int:
        """A z3 timeout in milliseconds: at most ``cap`` seconds, never past the
        deadline (z3 takes 0 as "no limit", so at least 1 ms)."""
        return max(1, int(min(self.remaining(), cap) * 1000))

    def stop_reason(self) -> Literal["budget", "cancelled"]:
        """Why an analysis that ran out of this budget stopped."""
        return "cancelled" if self.cancelled else "budget"
