"""``core.heap.FrozenHeap``: a run's program out of the collector's walks, in the run's
process and in the helpers it forks, until the run ends."""
from __future__ import annotations

import gc
import json
import time
from pathlib import Path

import pytest

from cooptest import cli
from cooptest.core.heap import FrozenHeap
from cooptest.core.lifetime import call_forked


def test_a_frozen_heap_is_frozen_in_the_children_too_until_it_closes() -> None:
    """A run freezes its program once loaded: its own full collections skip it, and so
    do those of the helpers it forks, which inherit it; the run's end thaws it."""
    with FrozenHeap() as heap:
        program = [[i] for i in range(100_000)]  # lists: objects the collector tracks
        heap.freeze()
        assert gc.get_freeze_count() >= len(program)
        assert call_forked(gc.get_freeze_count, seconds=5) >= len(program)
    assert gc.get_freeze_count() == 0
    assert gc.is_tracked(program[-1])


def test_a_run_in_the_process_leaves_nothing_frozen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``generate`` freezes the program it loads and thaws it as it returns: a process
    that runs one program after another collects each."""
    monkeypatch.setattr(cli, "STARTED", time.monotonic())  # the budget counts from now
    triangle = Path(__file__).resolve().parents[2] / "examples" / "triangle.c"
    assert cli.main(["generate", str(triangle), "--strategy", "random", "--budget", "5",
                     "--out", str(tmp_path), "--quiet"]) == 0
    summary = json.loads((tmp_path / "report.json").read_text())["summary"]
    assert summary["covered"] > 0, {k: summary[k] for k in ("stopped", "time_s", "executions")}
    assert gc.get_freeze_count() == 0
