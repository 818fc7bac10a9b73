"""The C library's variables whose values are certain, and so modelled, not blocking.

A variable the program declares and no unit defines is the C library's: glibc sets it
before ``main`` and its calls may change it, so a read of one blocks every proof
(``cfa.proof_blockers.library_global``) unless its value is known at every read:

* ``stdin``, ``stdout``, ``stderr`` point to glibc's FILE objects (``_IO_2_1_stdout_``
  and kin) from before ``main`` on, and no library call assigns them (``freopen``
  reopens the object in place; ``fclose`` leaves the pointer dangling, not changed):
  only the program does, and its stores are modelled. The objects' fields are glibc's
  own, so the model holds where the program only compares or passes the pointers; a
  read through one (``stdout->_flags``, a FILE pointer converted to another) blocks.
* ``optind``, ``opterr``, ``optopt``, ``optarg`` are getopt's: 1, 1, ``'?'`` and NULL
  until a getopt function runs (``getopt``, ``getopt_long``, glibc's ``__posix_getopt``,
  and ``argp_parse``, which calls them). A program that may call one keeps them blocked;
  the environment model's getopt_long and getopt_long_only (``cooptest_getopt.h``) are
  code of the program's CFA, whose stores to them every prover sees.

Everything else (``environ``, ``signgam``, ``timezone``, ``errno`` through
``__errno_location``) stays blocked: its value depends on the environment or on calls.
"""
from __future__ import annotations

STREAMS = {"stdin": "_IO_2_1_stdin_", "stdout": "_IO_2_1_stdout_", "stderr": "_IO_2_1_stderr_"}
"""Stream variable -> the glibc object it points to at the start of main."""

GETOPT_STATE = {"optind": 1, "opterr": 1, "optopt": ord("?"), "optarg": 0}
"""getopt's variables -> their values until a getopt function runs (glibc's getopt.c)."""


def changes_getopt_state(function: str) -> bool:
    """Whether a library function may run getopt, and so change ``GETOPT_STATE``."""
    return "getopt" in function or function.startswith("argp")
