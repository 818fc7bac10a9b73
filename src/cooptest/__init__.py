"""cooptest: test generation for C by making testing and verification cooperate."""

__version__ = "0.1.0"

from cooptest import clock  # noqa: E402,F401  (first: the run's start, before heavy imports)
