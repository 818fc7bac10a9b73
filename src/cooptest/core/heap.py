"""The run's program, kept out of the cyclic garbage collector's walks.

A run loads its program once (the ASTs of every unit and the CFA: millions of objects
on grep 2.2) and holds it to the end. Each full collection walked it all: 0.75 s each
in the main process (four in a 26-s concolic search run on grep), and in every forked
helper, which inherits the heap: 0.3 s each in the coverage meter, 15 times in a 30-s
run, 70% of its CPU, writing to pages the fork had left shared. ``gc.freeze`` moves
what exists into a generation no collection walks, in the process and in the children
it forks (as the gc module's documentation advises before a fork).
"""
from __future__ import annotations

import gc


class FrozenHeap:
    """While open, what existed at ``freeze`` is never walked by the collector; the
    close unfreezes it, so that a process loading program after program (the tests)
    collects each once its run is over. Cyclic garbage among the frozen objects waits
    for the close; what a run frees by reference counting is freed at once."""

    def __enter__(self) -> FrozenHeap:
        return self

    def freeze(self) -> None:
        gc.freeze()

    def __exit__(self, *exc: object) -> None:
        gc.unfreeze()
