"""Runs that ask for more inputs than they got: the one place concolic testing pads.

A run that reads past its inputs exits natively at that read (``executor.starved``).
Its inputs are then padded with zeros, doubling, until the run no longer starves, or
reads ``MAX_INPUTS`` (a program reading inputs in an endless loop). The padding is found
by native runs alone: the native run covers goals however long the path, while the
replay of a path through a loop reading 10^5 inputs would be cut.
"""
from __future__ import annotations

from cooptest.core.board import GoalBoard
from cooptest.core.budget import Budget
from cooptest.harness.executor import Execution, starved

PADDING = "0"  # the value of an input the search has not chosen yet
FIRST = 8  # inputs given to a run that starved on no inputs at all
MAX_INPUTS = 1 << 18


def padded(inputs: list[str]) -> list[str]:
    """``inputs`` followed by as many zeros (``FIRST`` for none)."""
    return inputs + [PADDING] * (len(inputs) or FIRST)


def may_pad(inputs: list[str]) -> bool:
    return len(inputs) < MAX_INPUTS


def run_fed(board: GoalBoard, inputs: list[str], origin: str, budget: Budget) -> Execution:
    """Submit ``inputs``, padded while the run starves and more input makes it go
    further (a program may exit with the harness's code by itself: the longer run then
    does the same), until the budget ends. Each native run counts as an iteration."""
    execution = board.submit(inputs, origin)
    board.count("iterations")
    while starved(execution) and may_pad(inputs) and not budget.expired():
        longer = board.submit(padded(inputs), origin)
        board.count("iterations")
        if longer.events == execution.events:
            break
        inputs, execution = longer.inputs, longer
    return execution
