"""The core every analysis and cooperation stands on: budgets (``budget``), the goal
board (``board``), the analysis interface (``analysis``) and the registry of analyses
and searches (``registry``)."""
