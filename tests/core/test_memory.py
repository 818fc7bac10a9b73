"""The memory watch ends the largest of cooptest's own processes: a helper if it is the
largest, the parent's analysis (through its budget) otherwise."""
from __future__ import annotations

import os
import subprocess
import sys

from cooptest.core.budget import Budget
from cooptest.core.memory import MemoryWatch, _rss

HOG = "b = bytearray({mb} << 20)\nfor i in range(0, len(b), 4096): b[i] = 1\nprint('ready', flush=True)\nimport time; time.sleep(60)"


def test_the_largest_helper_is_killed_and_the_parent_goes_on() -> None:
    # larger than this process, which late in a full test run is past 300 MB itself
    mb = max(300, (_rss(os.getpid()) >> 20) + 200)
    hog = subprocess.Popen([sys.executable, "-c", HOG.format(mb=mb)], stdout=subprocess.PIPE, text=True)
    try:
        assert hog.stdout is not None and hog.stdout.readline().strip() == "ready"
        budget = Budget.seconds(60)
        killed: list[int] = []
        watch = MemoryWatch((_rss(os.getpid()) >> 20) + 100, budget, killed.append)
        watch.check()
        assert killed == [hog.pid] and hog.wait(timeout=10) < 0
        assert not watch.exceeded and not budget.cancelled
        assert watch.peak_mb >= 300
    finally:
        hog.kill()


def test_a_parent_over_the_limit_on_its_own_stops_its_analysis() -> None:
    budget = Budget.seconds(60)
    watch = MemoryWatch(1, budget)
    watch.check()
    assert watch.exceeded and budget.cancelled and budget.expired()


def test_a_helper_that_grows_between_two_exact_readings_is_killed_at_the_next_reading() -> None:
    budget = Budget.seconds(60)
    killed: list[int] = []
    watch = MemoryWatch((_rss(os.getpid()) >> 20) + 100, budget, killed.append)
    watch.check()  # the first reading is an exact one, under the limit
    mb = max(300, (_rss(os.getpid()) >> 20) + 200)
    hog = subprocess.Popen([sys.executable, "-c", HOG.format(mb=mb)], stdout=subprocess.PIPE, text=True)
    try:
        assert hog.stdout is not None and hog.stdout.readline().strip() == "ready"
        watch.check()  # not an exact one: the resident sets' bound is over, so Pss is read
        assert killed == [hog.pid] and hog.wait(timeout=10) < 0
    finally:
        hog.kill()
