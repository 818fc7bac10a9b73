"""Helper processes that must not outlive the process that started them.

A cooptest run forks helpers (lane workers of a portfolio, the builder of the coverage
meter, a benchmark's ``generate`` child). When their parent is killed (SIGKILL leaves it
no chance to clean up), Linux's parent-death signal ends them too; without it a helper
waits forever on a queue its dead parent was to fill. Nor do their temporary files
outlive them: a helper keeps them in a folder its starter removes.

The run's own folder of temporary files (the builds, the tests' working folders, about
600 KB) is a SIGKILL's leftover the run cannot remove: ``work_folder`` makes it in the
output folder, not the system's temporary folder, where the next run removes what dead
runs left (a run holds a lock on its folder while it lives, so that concurrent runs
into one output folder never remove each other's).
"""
from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import pickle
import select
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any

PR_SET_PDEATHSIG = 1
_PRCTL = ctypes.CDLL(None, use_errno=True).prctl  # looked up here, not in a forked child


def die_with_parent(sig: int = signal.SIGKILL, parent: int | None = None) -> None:
    """In a freshly started child: receive ``sig`` when the parent dies. ``parent`` (the
    pid the child was started by) closes the race of a parent dying before the call."""
    _PRCTL(PR_SET_PDEATHSIG, sig)
    if parent is not None and os.getppid() != parent:
        os.kill(os.getpid(), sig)


STOPPING = {signal.SIGTERM, signal.SIGINT}


@contextlib.contextmanager
def _stopping_blocked() -> Iterator[None]:
    """SIGTERM and SIGINT blocked while a child is forked: a signal between the fork and
    the child's own handlers (``take_own_signals``) would otherwise run the parent's
    handler in the child. Unblocked again in the parent only: a child that leaves the
    block keeps them blocked."""
    parent = os.getpid()
    signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING)
    try:
        yield
    finally:
        if os.getpid() == parent:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPPING)


def start_forked(process: Any) -> None:
    """Start a forked ``multiprocessing`` process with SIGTERM and SIGINT blocked."""
    with _stopping_blocked():
        process.start()


def call_forked(function: Callable[..., Any], *args: Any, seconds: float) -> Any | None:
    """``function(*args)`` in a forked child that dies with this process: its result
    (pickled through a pipe), or None when the child did not answer within
    ``seconds`` (it is killed) or died. For work that may not stop when asked and that
    can be abandoned: a native library's call that outlives its own time limit. The
    child shares the parent's memory as it was (copied only where written) and leaves
    by ``os._exit``, never through the parent's code."""
    parent = os.getpid()
    reader, writer = os.pipe()
    try:
        with _stopping_blocked():
            pid = os.fork()
    except OSError:
        os.close(reader)
        os.close(writer)
        raise
    if pid == 0:  # the child
        code = 1
        try:
            os.close(reader)
            die_with_parent(parent=parent)
            with os.fdopen(writer, "wb") as out:
                out.write(pickle.dumps(function(*args)))
            code = 0
        finally:
            os._exit(code)
    os.close(writer)
    data: bytes | None = None
    try:
        data = _read_within(reader, seconds)
    finally:
        os.close(reader)
        if data is None:
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    return pickle.loads(data) if data else None


def _read_within(fd: int, seconds: float) -> bytes | None:
    """All ``fd`` gives until its end, or None at ``seconds`` from now."""
    deadline = time.monotonic() + seconds
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def take_own_signals() -> None:
    """In a child started by ``start_forked``: SIGTERM ends it, SIGINT (a Ctrl-C meant
    for the parent, which decides when its helpers end) is ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPPING)


def temporary_files_in(folder: str) -> None:
    """Send this process's temporary files, and its children's, to ``folder``: a helper
    ended by a signal removes none of its own, so its starter removes the folder."""
    tempfile.tempdir = os.environ["TMPDIR"] = folder


WORK_PREFIX = ".cooptest-work-"  # a run's folder of temporary files, in its output folder
LOCK = ".lock"  # in it: locked (flock) while the run, or a process it forked, lives
_locks: dict[str, int] = {}  # work folder -> the descriptor holding its lock


def work_folder(out: str) -> str:
    """A new folder for a run's temporary files, in ``out`` (the system's temporary
    folder if ``out`` does not allow running programs: the tests are built there), after
    removing the folders of dead runs there; locked until ``leave`` (or this process
    and its forked helpers are gone: the kernel drops the lock, SIGKILL or not)."""
    parent = out if _runs_programs(out) else tempfile.gettempdir()
    remove_abandoned(parent)
    while True:
        path = tempfile.mkdtemp(prefix=WORK_PREFIX, dir=parent)
        try:
            fd = os.open(os.path.join(path, LOCK), os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o600)
            break
        except FileNotFoundError:
            continue  # taken for abandoned by a run starting beside this one: another
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        pass  # a file system without locks: the folder is never taken for abandoned
    _locks[path] = fd
    return path


def leave(path: str) -> None:
    """Remove the work folder ``path`` and release its lock."""
    _remove(path)
    fd = _locks.pop(path, None)
    if fd is not None:
        os.close(fd)


def _remove(path: str) -> bool:
    """Remove the work folder ``path``, its lock file last: a compiler a killed run
    started may still write there (gcc does not die with its parent), and a folder it
    kept from being removed keeps its lock file, for the next run to try again."""
    try:
        entries = [e for e in os.scandir(path) if e.name != LOCK]
    except OSError:
        return not os.path.exists(path)
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            try:
                os.unlink(entry.path)
            except OSError:
                pass
    try:
        if os.listdir(path) == [LOCK]:
            os.unlink(os.path.join(path, LOCK))
        os.rmdir(path)
    except OSError:
        return False
    return True


def remove_abandoned(parent: str) -> list[str]:
    """Remove the work folders in ``parent`` whose run is gone (its lock is free), and
    return them. Of a folder without its lock file (a SIGKILL between making the folder
    and the file) only an empty one is removed: nothing else is known to be ours."""
    removed: list[str] = []
    try:
        names = [n for n in os.listdir(parent) if n.startswith(WORK_PREFIX)]
    except OSError:
        return removed
    for name in names:
        path = os.path.join(parent, name)
        try:
            fd = os.open(os.path.join(path, LOCK), os.O_WRONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            try:
                os.rmdir(path)
                removed.append(path)
            except OSError:
                pass
            continue
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free: its run is gone
        except OSError:
            continue  # a live run's (or no locks here)
        finally:
            os.close(fd)
        if _remove(path):
            removed.append(path)
    return removed


def _runs_programs(folder: str) -> bool:
    """Whether programs built in ``folder`` can run (it is not mounted ``noexec``)."""
    try:
        return not os.statvfs(folder).f_flag & os.ST_NOEXEC
    except OSError:
        return False
