"""``core.lifetime.call_forked``: a call in a forked child with a hard deadline, for
native work that outlives its own time limit (z3's SMT core on queries over memory)."""
from __future__ import annotations

import os
import time
from pathlib import Path

from cooptest.core.lifetime import call_forked


def _spin_after_writing_pid(path: str) -> None:
    Path(path).write_text(str(os.getpid()))
    while True:
        pass


def _die() -> None:
    os._exit(3)


def _raise() -> None:
    raise ValueError("in the child")


def test_the_result_comes_back_from_the_child() -> None:
    assert call_forked(divmod, 17, 5, seconds=5) == (3, 2)
    assert call_forked(os.getpid, seconds=5) != os.getpid()


def test_a_call_past_its_seconds_is_killed_and_answers_none(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    started = time.monotonic()
    assert call_forked(_spin_after_writing_pid, str(pid_file), seconds=0.5) is None
    assert time.monotonic() - started < 3
    pid = int(pid_file.read_text())
    assert not Path(f"/proc/{pid}").exists()  # killed and reaped: no zombie either


def test_a_child_that_dies_or_raises_answers_none() -> None:
    assert call_forked(_die, seconds=5) is None
    assert call_forked(_raise, seconds=5) is None
