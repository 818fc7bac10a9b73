"""Automata over CFA edges: how one analysis tells another where to look.

Two cooperations need the same object. Crabs' *monitor* is an ARG read as an automaton:
a path of the program that leaves it is infeasible by the ARG's proof, so concolic
search cuts it. CoVeriTest's *condition* (conditional model checking) is an ARG read
the same way, with the parts that were explored completely (every goal in them decided)
also left out: a path entering them has nothing left to find, so the next analysis
skips it. Both are deterministic automata over CFA edges whose "no transition" means
"nothing for you here", and whose :data:`TOP` state means "no information: every
continuation is allowed" (the frontier of a partial ARG, anything an analysis did not
explore). Soundness rests on one rule, kept by every automaton built from an analysis:
``step`` returns None only where the analysis *proved* there is nothing left to find.

A product of automata (the program with every earlier monitor, Crabs' next round) steps
each component; it has no transition as soon as one component has none.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, Protocol

from cooptest.cfa.ir import Edge

TOP = "TOP"
"""The permissive state: every edge leads back to TOP."""

State = Hashable


class EdgeAutomaton(Protocol):
    @property
    def name(self) -> str: ...

    def initial(self) -> State: ...

    def step(self, q: State, edge: Edge) -> State | None:
        """The state after ``edge`` from ``q``; None: no execution along this edge can
        reach anything the automaton's analysis left open."""


@dataclass(frozen=True)
class Product:
    """The synchronous product of automata (states are tuples, one per component)."""

    components: tuple[EdgeAutomaton, ...]
    name: str = "product"

    def initial(self) -> State:
        return tuple(a.initial() for a in self.components)

    def step(self, q: State, edge: Edge) -> State | None:
        out = []
        for a, qa in zip(self.components, q):  # type: ignore[call-overload]
            nxt = TOP if qa == TOP else a.step(qa, edge)
            if nxt is None:
                return None
            out.append(nxt)
        return tuple(out)
