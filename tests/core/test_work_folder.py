"""A run's folder of temporary files (``core.lifetime``): in the output folder, locked
while its run lives, removed by the next run once its run is gone (a SIGKILL leaves it
behind), never while it lives, whoever else starts in the same output folder."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from cooptest.core.lifetime import WORK_PREFIX, leave, remove_abandoned, work_folder
from cooptest.scratch import scratch

KILLED = """import os, signal, sys
from cooptest.core.lifetime import remove_abandoned, work_folder
print(remove_abandoned(sys.argv[1]), flush=True)  # another run's, alive: not removed
with open(os.path.join(work_folder(sys.argv[1]), "build.o"), "w") as f:
    f.write("what a run leaves")
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_the_next_run_removes_a_killed_run_s_folder_and_never_a_live_one_s(tmp_path: Path) -> None:
    mine = work_folder(str(tmp_path))
    assert Path(mine).parent == tmp_path and Path(mine).name.startswith(WORK_PREFIX)
    (Path(mine) / "tests" / "t1").mkdir(parents=True)
    r = subprocess.run([sys.executable, "-c", KILLED, str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == -signal.SIGKILL and r.stdout.strip() == "[]", r.stderr
    killed = [p for p in tmp_path.iterdir() if str(p) != mine]
    assert len(killed) == 1 and (killed[0] / "build.o").exists()
    assert remove_abandoned(str(tmp_path)) == [str(killed[0])]
    assert sorted(tmp_path.iterdir()) == [Path(mine)] and (Path(mine) / "tests" / "t1").is_dir()
    leave(mine)
    assert list(tmp_path.iterdir()) == []


def test_what_is_not_a_run_s_folder_is_left_alone(tmp_path: Path) -> None:
    """A folder named like ours without a lock file: removed only if empty (a SIGKILL
    between making the folder and its lock file), else it is not known to be ours."""
    (tmp_path / f"{WORK_PREFIX}empty").mkdir()
    (tmp_path / f"{WORK_PREFIX}someone").mkdir()
    (tmp_path / f"{WORK_PREFIX}someone" / "notes").write_text("keep")
    (tmp_path / "other").mkdir()
    assert remove_abandoned(str(tmp_path)) == [str(tmp_path / f"{WORK_PREFIX}empty")]
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{WORK_PREFIX}someone", "other"]



class Unwound(BaseException):
    """What a signal raises through a step (``generate.Signalled``)."""


def _write_until(stop: threading.Event, folder: str) -> None:
    i = 0
    while not stop.is_set():
        try:
            open(os.path.join(folder, f"f{i}"), "w").close()
        except OSError:
            pass  # the folder is gone
        i += 1


def test_a_step_unwound_while_something_writes_in_its_scratch_folder_raises_what_unwound_it(
        tmp_path: Path) -> None:
    """CI: a run whose budget ended while loading exited 2 with "Directory not empty":
    the alarm had killed gcc's driver while its assembler still wrote in the step's
    folder, and the folder's removal raised over the signal. A thread writing files
    while the folder is removed is that race (with ``tempfile.TemporaryDirectory``'s
    default, 7 trials in 20 lose it)."""
    for _ in range(20):
        stop = threading.Event()
        writer: threading.Thread | None = None
        try:
            with pytest.raises(Unwound):
                with scratch(dir=str(tmp_path)) as folder:
                    writer = threading.Thread(target=_write_until, args=(stop, folder))
                    writer.start()
                    while len(os.listdir(folder)) < 200:
                        pass
                    raise Unwound
        finally:
            stop.set()
            if writer is not None:
                writer.join()
