"""Loops of a CFA: the edges on the cycles through a loop head."""
from __future__ import annotations

from functools import lru_cache

from cooptest.cfa.ir import Edge, Location


@lru_cache(maxsize=4096)
def cycle_edges(head: Location) -> tuple[Edge, ...]:
    """The edges of ``head``'s function that lie on a cycle through ``head`` (calls
    are edges to their return location, so a callee's edges are not among them).
    Cached: the loop counters of the predicate analysis and the invariant templates
    both ask for every loop head, the counters once per branch leaving it."""
    def closure(forwards: bool) -> set[Location]:
        seen = {head}
        todo = [head]
        while todo:
            loc = todo.pop()
            for e in (loc.leaving if forwards else loc.entering):
                nxt = e.dst if forwards else e.src
                if nxt.function == head.function and nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    on_cycle = closure(True) & closure(False)
    return tuple(e for loc in on_cycle for e in loc.leaving if e.dst in on_cycle)
