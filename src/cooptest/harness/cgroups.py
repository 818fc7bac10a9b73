"""Caps on all the processes of a test together, when cooptest runs as root.

Each process of a test has its own limits (``runner._limit``: address space, CPU
time), and RLIMIT_NPROC caps how many a test of an ordinary user may start. It
binds no process of uid 0: the kernel exempts root's processes, whatever their
capabilities. CI runs cooptest as root, and a fork bomb under test would then fill
the machine's process table (32,768 ids here) for the seconds its run lasts, failing
every fork of cooptest's own and of everything else on the machine; and 256 processes
of 2 GB each could take more memory than the machine has. So, where cgroup-v1
hierarchies of the ``pids`` and ``memory`` controllers are writable (as they are to
root), each executable's tests go into a cgroup of their own in each: ``pids.max``
caps processes and threads together, ``memory.limit_in_bytes`` the memory of all the
test's processes together (the kernel kills one of them beyond it; swap, where there
is any, is not capped). ``contain.c`` moves the test there before its first
instruction of ``main`` (``$COOPTEST_CGROUPS``). Joining costs a run 20-50 us for
each (``benchmarks/RESULTS.md``). cgroup v2 is not used: there a cgroup can take
controllers for its children only if it holds no process itself, which the cgroup of a
shell running cooptest does.

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
# controller -> the file of its cap, and the value that caps nothing
CAPS = {"pids": ("pids.max", "max"), "memory": ("memory.limit_in_bytes", "-1")}


@functools.cache
def cgroup_roots() -> dict[str, str]:
    """For each controller of ``CAPS`` with a cgroup-v1 hierarchy in which this
    process can make cgroups (root only: anyone else is capped by RLIMIT_NPROC), the
    folder of this process's cgroup there."""
    if os.getuid() != 0:
        return {}
    try:
        with open("/proc/self/mounts") as f:  # device, mount point, type, options, ...
            mounts = [(point, options.split(",")) for _, point, kind, options, *_ in map(str.split, f)
                      if kind == "cgroup"]
        with open("/proc/self/cgroup") as f:  # id:controllers:path
            own = [(controllers.split(","), path) for _, controllers, path
                   in (line.rstrip("\n").split(":", 2) for line in f)]
    except (OSError, ValueError):
        return {}
    roots = {}
    for controller, (_, unlimited) in CAPS.items():
        points = [point for point, options in mounts if controller in options]
        paths = [path for controllers, path in own if controller in controllers]
        if points and paths:
            here = os.path.join(points[0], paths[0].lstrip("/"))
            probe = _make(here, controller, unlimited)  # the report says what caps the tests
            if probe is not None:
                remove_cgroup(probe)
                roots[controller] = here
    return roots


def new_cgroups(limits: dict[str, int]) -> tuple[str, ...]:
    """A new cgroup of each controller that has a hierarchy (``cgroup_roots``), capped
    at ``limits[controller]``: the paths of their ``cgroup.procs``, into which a test
    writes its pid."""
    remove_orphans()
    made = (_make(root, controller, str(limits[controller])) for controller, root in cgroup_roots().items())
    return tuple(path for path in made if path is not None)


def _make(root: str, controller: str, cap: str) -> str | None:
    """A cgroup under ``root`` with ``cap`` written to its controller's limit: the path
    of its ``cgroup.procs``; None if the kernel refuses either."""
    try:
        path = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=root)
    except OSError:
        return None
    try:
        with open(os.path.join(path, CAPS[controller][0]), "w") as f:
            f.write(cap)
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
    found = []
    for root in cgroup_roots().values():
        try:
            names = os.listdir(root)
        except OSError:
            continue
        found += [os.path.join(root, n) for n in names if n.startswith(PREFIX) and not alive(maker(n))]
    return found


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
