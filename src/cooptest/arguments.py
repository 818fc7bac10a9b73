"""Types of command-line values: each turns one argument's text into a value or says,
in one line, why it cannot (argparse turns that into a UserError, exit 2)."""
from __future__ import annotations

import argparse

from cooptest.cfa.ctype import DataModel


def data_model(text: str) -> DataModel:
    try:
        return DataModel(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"unknown data model {text!r} (ILP32 or LP64)") from None


MAX_BUDGET = 7 * 24 * 3600.0  # a week: beyond, a budget is a typo, not a plan


def budget_seconds(text: str) -> float:
    """A budget in seconds: finite, positive and at most MAX_BUDGET."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value <= MAX_BUDGET:  # also false for nan
        raise argparse.ArgumentTypeError(
            f"must be a number of seconds above 0 and at most {MAX_BUDGET:.0f}: {text!r}")
    return value


def share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1: {text!r}")
    return value


def positive_count(text: str) -> int:
    """A positive whole number (partitions, jobs)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def folder(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("must name a folder")
    return text
