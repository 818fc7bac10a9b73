"""Cooperations of analyses: each module reads like its paper's pseudocode."""
