#!/usr/bin/env bash
# The test suite in two phases: first every test bound by work, on both cores
# (pytest-xdist, one worker per core); then the tests marked `serial` (tests/conftest.py
# says which and why: their assertions are about wall-clock time, or they start whole
# runs on both cores), one at a time on an otherwise idle machine.
#
#   bash scripts/test.sh                 # the whole suite, as CI runs it
#   bash scripts/test.sh "not slow"      # the fast tier, between two edits
#   bash scripts/test.sh "" --record-durations   # and tests/slow.json measured again
#   bash scripts/test.sh "" -x -k chc    # further arguments go to pytest
#
# The first argument is a marker expression that both phases add to their own; the
# exit code is the first phase's failure, else the second's (pytest's 5, "no test
# selected", counts as success: a filter may leave a phase empty).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
filter="${1:-}"
shift || true
and() { if [ -n "$filter" ]; then echo "$1 and ($filter)"; else echo "$1"; fi; }
python -m pytest -q -n 2 -m "$(and "not serial")" "$@"
first=$?
python -m pytest -q -m "$(and serial)" "$@"
second=$?
[ "$first" = 5 ] && first=0
[ "$second" = 5 ] && second=0
if [ "$first" != 0 ]; then exit "$first"; fi
exit "$second"
