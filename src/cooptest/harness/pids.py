"""A cap on the processes of a test when cooptest runs as root.

RLIMIT_NPROC, which caps the tests of an ordinary user (``runner._process_limit``),
binds no process of uid 0: the kernel exempts root's processes from it, whatever
their capabilities. CI runs cooptest as root, and a fork bomb under test would
then fill the machine's process table (32,768 ids here) for the seconds its run
lasts, failing every fork of cooptest's own and of everything else on the machine.
So, where a cgroup-v1 ``pids`` hierarchy is writable (as it is to root), each
executable's tests go into a cgroup of their own, whose ``pids.max`` caps processes
and threads together; ``contain.c`` moves the test there before its first
instruction of ``main`` (``$COOPTEST_CGROUP``). cgroup v2 is not used: there a
cgroup can take controllers for its children only if it holds no process itself,
which the cgroup of a shell running cooptest does.

Each cgroup is named after the cooptest process that made it. It is removed when its
executable is closed; one left behind by a process killed outright (a worker at the
deadline, a cooptest by SIGKILL) is removed at the end of the run, or by the next
cooptest, once its maker and its tests are gone.
"""
from __future__ import annotations

import functools
import os
import tempfile

PREFIX = "cooptest-"


@functools.cache
def cgroup_root() -> str | None:
    """The folder of this process's cgroup in a writable cgroup-v1 ``pids`` hierarchy,
    for root only (anyone else is capped by RLIMIT_NPROC); None if there is none."""
    if os.getuid() != 0:
        return None
    try:
        with open("/proc/self/mounts") as f:
            mounts = [line.split()[1] for line in f
                      if line.split()[2] == "cgroup" and "pids" in line.split()[3].split(",")]
        with open("/proc/self/cgroup") as f:
            own = [line.rstrip("\n").split(":", 2)[2] for line in f
                   if "pids" in line.split(":", 2)[1].split(",")]
    except (OSError, IndexError):
        return None
    if not mounts or not own:
        return None
    here = os.path.join(mounts[0], own[0].lstrip("/"))
    probe = _make(here, 1)  # the report says what caps the tests: one cgroup made tells
    if probe is None:
        return None
    remove_cgroup(probe)
    return here


def new_cgroup(limit: int) -> str | None:
    """A new cgroup capped at ``limit`` processes: the path of its ``cgroup.procs``,
    which a test writes its pid into; None where there is no ``pids`` hierarchy to
    make it in."""
    root = cgroup_root()
    if root is None:
        return None
    remove_orphans()
    return _make(root, limit)


def _make(root: str, limit: int) -> str | None:
    try:
        path = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=root)
    except OSError:
        return None
    try:
        with open(os.path.join(path, "pids.max"), "w") as f:
            f.write(str(limit))
    except OSError:
        remove_cgroup(path)
        return None
    return os.path.join(path, "cgroup.procs")


def remove_cgroup(path: str) -> None:
    """Remove a cgroup (given by its folder or its ``cgroup.procs``); the kernel refuses
    while a process is in it, which leaves it to ``remove_orphans``."""
    if os.path.basename(path) == "cgroup.procs":
        path = os.path.dirname(path)
    try:
        os.rmdir(path)
    except OSError:
        pass


def remove_orphans() -> None:
    """Remove the cgroups whose cooptest process is gone: a worker terminated at the
    deadline, a cooptest killed outright (and then their tests, which die with them)."""
    for path in orphans():
        remove_cgroup(path)


def orphans() -> list[str]:
    """The cgroups of ours whose maker is gone."""
    root = cgroup_root()
    try:
        names = os.listdir(root) if root is not None else []
    except OSError:
        return []
    return [os.path.join(root, n) for n in names if n.startswith(PREFIX) and not alive(maker(n))]


def maker(cgroup: str) -> int:
    """The process that made a cgroup of ours (-1: none of ours)."""
    pid = cgroup[len(PREFIX):].split("-", 1)[0]
    return int(pid) if pid.isdigit() else -1


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not: a killed worker waits as one for init)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False
