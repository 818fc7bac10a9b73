"""Cooperations of analyses: each module reads like its paper's pseudocode, on top of
the core (``core.board``, ``core.analysis``, ``core.automaton``)."""
