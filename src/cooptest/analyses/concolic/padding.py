"""Runs that ask for more inputs than they got: the one place concolic testing pads.

A run that reads past its inputs exits natively at that read (``executor.starved``).
Its inputs are then padded, doubling, until the run no longer starves, or reads
``MAX_INPUTS``. What a padding holds are *fresh inputs*: inputs that neither the
solver nor an earlier run chose. ``zero`` pads with zeros. ``random`` draws one byte
each, 0 to 127, a value every nondet type reads as itself (a char, a bool's true, a
small count), as CREST gives each fresh input a random value
(``SymbolicInterpreter::NewInput``: ``CastTo(rand(), type)``; CREST's ``rand()`` as an
``int`` would run a counted loop two billion times) and DART starts from random inputs.
Random ones fill a run's first ``RANDOM_INPUTS`` positions only, zeros the rest. The
first run of a fresh state is all fresh inputs, and it decides where the search
starts. Neither fill wins everywhere: on replace, cgs with random fresh inputs covers
180 or 181 of its 181 feasible goals within 1,000 iterations, as the paper's CREST runs
do, and with zeros 139 (its zero pattern is illegal, its zero line empty; a random
pattern may be illegal too, and then the paths that mend it read the line as fresh
inputs); on standard_copy8_ground, whose 200,000 inputs must be pairwise equal for the
loops to end, zeros reach every goal and random values stop at the first assertion. So the
default, ``both`` (``Padding.starts``), is CREST's rule and one run more: a fresh state
starts from random values and then from zeros, and the search branches from both paths.
Where fresh inputs make the run abort, other paddings are tried: a loop that assumes
something of each element it reads (``assume(x > y)`` on pairs of inputs, as the array
benchmarks fill their arrays) aborts on the first fresh inputs, and its code after the
loop is never reached. The inputs repeated are then tried (the path's first
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
RANDOM_INPUTS = 256  # a run's inputs from this one on are zeros whatever the fill: beyond
# it a run reads a loop's inputs, and random ones keep covering goals by chance as the
# padding doubles (a program reading endlessly kept tests of 65,536 random inputs)


@dataclass
class Padding:
    """How fresh inputs are chosen (``policy``, one of ``registry.FRESH_INPUTS``), and
    what padding has learnt about the program (part of the concolic state, so that its
    random sequence goes on across jobs)."""

    policy: str = FRESH_INPUTS[0]
    rng: random.Random = field(default_factory=random.Random)
    endless: bool = False  # a run starved at MAX_INPUTS: the program reads endlessly

    def starts(self) -> list[str]:
        """The fills of a fresh state's first runs, in order."""
        return ["random", "zero"] if self.policy == "both" else [self.policy]

    @property
    def later(self) -> str:
        """The fill of every padding after the first runs: zeros only under ``zero``."""
        return "zero" if self.policy == "zero" else "random"

    def fresh(self, at: int, n: int, fill: str | None = None) -> list[str]:
        """``n`` fresh inputs of ``fill`` (None: ``later``) for a run's positions ``at`` on."""
        random_ones = max(0, min(n, RANDOM_INPUTS - at)) if (fill or self.later) == "random" else 0
        return [str(self.rng.randint(0, 127)) for _ in range(random_ones)] + ["0"] * (n - random_ones)


def padded(inputs: list[str], padding: Padding, fill: str | None = None) -> list[str]:
    """``inputs`` followed by as many fresh inputs (``FIRST`` for none)."""
    return inputs + padding.fresh(len(inputs), len(inputs) or FIRST, fill)


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
            padding: Padding, runs: float = math.inf, fill: str | None = None) -> Execution:
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
        longer = board.submit(padded(inputs, padding, fill), origin)
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
