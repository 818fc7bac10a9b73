#!/usr/bin/env python3
"""``cooptest bench`` as a script: generate and measure suites for many tasks.

    python benchmarks/bench.py TASKS... --strategy S [--search X] --budget B --jobs J --out DIR [--testcov]

(the options are those of ``cooptest bench --help``)."""
import sys

from cooptest.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
