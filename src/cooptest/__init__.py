"""cooptest: test generation for C by making testing and verification cooperate."""

__version__ = "0.1.0"
