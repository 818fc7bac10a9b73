"""Runs that ask for more inputs than they got: the one place concolic testing pads.

A run that reads past its inputs exits natively at that read (``executor.starved``).
Its inputs are then padded, doubling, until the run no longer starves, or reads
``MAX_INPUTS``. What a padding holds is the state's *fresh inputs* (``Padding.fill``):
inputs that neither the solver nor an earlier run chose. CREST gives each of them a
random value (``SymbolicInterpreter::NewInput``: ``CastTo(rand(), type)``) and DART
starts from random inputs; ``random`` draws one byte each, 0 to 127, a value every
nondet type reads as itself (a char, a bool's true, a small count: CREST's ``rand()``
as an ``int`` would run a counted loop two billion times). ``zero`` pads with zeros.
The first run of a fresh state is all padding, and it decides where the search
starts: on replace, cgs from random fresh inputs covers every feasible goal within
1,000 iterations, as the paper's CREST runs do, and from zeros 139 of the 181. Where
fresh inputs make the run abort, other paddings are tried: a loop that
assumes something of each element it reads (``assume(x > y)`` on pairs of inputs, as
the array benchmarks fill their arrays) aborts on the first fresh inputs, and its code after
the loop is never reached. The inputs repeated are then tried (the path's first
iteration again and again), and the value read last repeated, and the first of them
whose run does not abort (it starves again, or ends otherwise) is taken. The padding is
found by native runs alone: the native run covers goals however long the path, while
symbolic execution of a path through a loop reading 10^5 inputs would be truncated.

Doubling is what a loop filling a 10^5-element array needs before the code after it
runs, but a program that reads inputs in an endless loop (a protocol's event loop)
starves however long its inputs, and every path would be padded to ``MAX_INPUTS``: 5-MB
tests, and each iteration spending its time in native runs and symbolic executions of
zeros. The two cannot be told apart before the first run reaches ``MAX_INPUTS``; after it,
the analysis knows the program reads endlessly (``Padding.endless``), and a padding stops
at the first doubling that covers no goal the shorter run did not. Whenever a run
still starves at the end, what is kept is the shortest run of the padding that covers
as much as the longest: a suffix of zeros that adds nothing is not worth its symbolic
execution.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from cooptest.core.board_view import Board
from cooptest.core.budget import Budget
from cooptest.core.registry import FRESH_INPUTS
from cooptest.harness.executor import MAX_INPUTS, Execution, aborted, starved

FIRST = 8  # inputs given to a run that starved on no inputs at all


@dataclass
class Padding:
    """How fresh inputs are chosen, and what padding has learnt about the program (part
    of the concolic state, so that its random sequence goes on across jobs)."""

    fill: str = FRESH_INPUTS[0]
    rng: random.Random = field(default_factory=random.Random)
    endless: bool = False  # a run starved at MAX_INPUTS: the program reads endlessly

    def fresh(self, n: int) -> list[str]:
        """``n`` fresh inputs."""
        if self.fill == "zero":
            return ["0"] * n
        return [str(self.rng.randint(0, 127)) for _ in range(n)]


def padded(inputs: list[str], padding: Padding) -> list[str]:
    """``inputs`` followed by as many fresh inputs (``FIRST`` for none)."""
    return inputs + padding.fresh(len(inputs) or FIRST)


def repeated(inputs: list[str]) -> list[list[str]]:
    """The paddings tried when fresh inputs end the run: ``inputs`` twice, and ``inputs``
    followed by as many copies of its last value (the two are one for a single input)."""
    if not inputs:
        return []
    twice = inputs + inputs
    last = inputs + [inputs[-1]] * len(inputs)
    return [twice] if last == twice else [twice, last]


def may_pad(inputs: list[str]) -> bool:
    return len(inputs) < MAX_INPUTS


def run_fed(board: Board, inputs: list[str], origin: str, budget: Budget,
            padding: Padding, runs: float = math.inf) -> Execution:
    """Submit ``inputs``, padded while the run starves and more input makes it go
    further (a program may exit with the harness's code by itself: the longer run then
    does the same), until the budget ends, ``runs`` native runs are made (what is left
    of ``generate --max-iterations``) or, on a program known to read endlessly, a
    doubling covers nothing new. Each native run counts as an iteration."""
    execution = board.submit(inputs, origin)
    board.count("iterations")
    made = 1
    kept = execution  # the shortest run so far that covers what the longest does
    while starved(execution) and may_pad(inputs) and not budget.expired() and made < runs:
        longer = board.submit(padded(inputs, padding), origin)
        board.count("iterations")
        made += 1
        for other in repeated(inputs) if aborted(longer) else ():
            if budget.expired() or made >= runs:
                break
            candidate = board.submit(other, origin)
            board.count("iterations")
            made += 1
            if not aborted(candidate):
                board.count("repeated_paddings")
                longer = candidate
                break
        if longer.events == execution.events:  # symbolic execution tells whether it starved
            return execution
        inputs, execution = longer.inputs, longer
        if not longer.covered <= kept.covered:
            kept = longer
        elif padding.endless:
            return kept
    if starved(execution) and not may_pad(inputs):
        padding.endless = True
        return kept
    return execution
