"""Runs a compiled program on one test input vector, fast and contained.

Test generation executes the program thousands of times, so one run costs a single
spawn: inputs go to stdin through a pipe (one C literal a line, as TestCov feeds
them), output is drained by a select loop that keeps only the first few KB, and
every Executable reuses one private working directory. Resource limits (address
space, CPU time, processes, no core files) are applied with prlimit(2) right after the
spawn: a ``preexec_fn`` would force fork+exec instead of vfork and divide the run rate by
3, while the child cannot get far in the microseconds before its limits land. For
root, whose processes RLIMIT_NPROC does not cap, cgroups cap the processes of a test
and their memory together (``cgroups.py``).

The program is untrusted, and so is everything it starts. A run ends when its process
exits (a pidfd tells, even while children keep its output open) or its time is up;
then its whole process group is killed, and so is every process that escaped the
group with ``setsid``: cooptest is a child subreaper, so such orphans become its
children, found in ``/proc/self/task/*/children`` by a session that is not its own.
If cooptest itself dies, ``contain.c`` lets the kernel kill the tests. ``contain.c``
also confines every test to its working directory (Landlock, see there): it can write
files nowhere else, reach no TCP port and signal no process outside its own tree;
``sandbox()`` says whether the kernel offers that. A seccomp filter denies it sockets
of any kind and prlimit(2) on any process but itself: a test lowered cooptest's own
RLIMIT_NOFILE (x86 builds, ``seccomp_filters``). Files it writes are capped at
``FILE_SIZE``. A test of root's drops every capability.

The branch trace travels through shared memory (:class:`TraceRegion`), never through
the program's working directory, where the program could delete or forge it.
"""
from __future__ import annotations

import ctypes
import functools
import mmap
import os
import platform
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import weakref
from array import array
from dataclasses import dataclass, field

from cooptest.cfa.ctype import DataModel
from cooptest.harness.cgroups import cgroup_roots, new_cgroups, remove_cgroup

OUTPUT_KEEP = 4096  # bytes of stdout/stderr kept per run
ADDRESS_SPACE = 2 << 30
FILE_SIZE = 64 << 20  # bytes a test may write into one file
PROCESSES = 256  # processes a test may start (beyond those of the user, if not root: cgroups.py)
FAULT_ADDRESSES = 16  # trace_runtime.c: the faulting instruction's, then return addresses
# int32 words before the events (trace_runtime.c): their count, the inputs read, a
# fault's signal, how many addresses follow, the addresses (two words each)
TRACE_HEADER = 4 + 2 * FAULT_ADDRESSES
NOT_COUNTED = -1  # the inputs read, until the runtime counts them
MAX_EVENTS = 4_000_000  # trace_runtime.c; one more event marks a truncated trace
# The locale of every run of the program, whatever the caller's. A program starts in
# the "C" locale (C11 7.11.1.1) and leaves it by ``setlocale(..., "")``, which reads
# these variables: pinned, a suite replays alike on every machine and in CI, the ctype
# tables the engine models (``ctype_tables``, asked of glibc in "C") stay the
# program's, and no run loads the locale's files (a third of an AFL++ execution of
# grep under C.UTF-8).
LOCALE = {"LC_ALL": "C"}
PR_SET_CHILD_SUBREAPER = 36
SYS_LANDLOCK_CREATE_RULESET = 444  # the same number on every architecture
LANDLOCK_CREATE_RULESET_VERSION = 1


class TraceRegion:
    """The shared memory a traced run writes its events into (see trace_runtime.c):
    an anonymous memfd, inherited by the test as a descriptor the runtime maps and
    closes before main; no name in any directory the program could reach."""

    def __init__(self) -> None:
        size = 4 * (TRACE_HEADER + MAX_EVENTS + 1)
        if hasattr(os, "memfd_create"):
            self.fd = os.memfd_create("cooptest-trace", os.MFD_CLOEXEC)
        else:  # pragma: no cover - not Linux
            f = tempfile.TemporaryFile()
            self.fd = os.dup(f.fileno())
            f.close()
        os.ftruncate(self.fd, size)
        self.map = mmap.mmap(self.fd, size)
        weakref.finalize(self, os.close, self.fd)

    def reset(self) -> None:
        """No events, the inputs read not counted (the runtime sets the count when
        it maps the region: a run that never does has no count), no fault."""
        self.map[0:16] = bytes(4) + NOT_COUNTED.to_bytes(4, "little", signed=True) + bytes(8)

    def fault(self) -> Fault | None:
        """The fault the run died of, as the runtime's handler wrote it, if it did."""
        sig, n = (int.from_bytes(self.map[k:k + 4], "little", signed=True) for k in (8, 12))
        if sig <= 0:
            return None
        words = [int.from_bytes(self.map[16 + 8 * i:24 + 8 * i], "little")
                 for i in range(min(max(n, 0), FAULT_ADDRESSES))]
        return Fault(sig, tuple(words))

    def inputs_read(self) -> int | None:
        """How many inputs the nondet harness read, if the runtime counted them."""
        n = int.from_bytes(self.map[4:8], "little", signed=True)
        return None if n < 0 else n

    def events(self) -> array:
        n = min(max(int.from_bytes(self.map[0:4], "little", signed=True), 0), MAX_EVENTS + 1)
        events = array("i")
        events.frombytes(self.map[4 * TRACE_HEADER:4 * (TRACE_HEADER + n)])
        if sys.byteorder != "little":
            events.byteswap()
        return events


@dataclass(frozen=True)
class Fault:
    """Where a traced run died of a signal (``trace_runtime.c``'s handler): ``offsets``
    from the executable's start (``__executable_start``) of the faulting instruction,
    then of words on the stack above it that point into the executable's code (return
    addresses among them, innermost first). ``harness.crash`` makes lines of them."""

    signal: int
    offsets: tuple[int, ...]


@dataclass
class RunResult:
    """How one run ended. ``exit_code`` is None when a signal ended the run.

    Note that TestCov's harness ends ``__VERIFIER_assume(0)`` and an unparsable input
    with ``abort()``: such runs are ``crashed`` with ``signal == SIGABRT``.
    """

    exit_code: int | None
    timed_out: bool
    crashed: bool
    signal: int | None = None
    events: array | None = None
    inputs_read: int | None = None  # counted by a traced run (an overcount if it forks)
    fault: Fault | None = None  # where a traced run died of a fault, if it did
    stdout: str = ""
    stderr: str = ""


@dataclass
class Executable:
    """A program linked with the nondet harness (and the trace runtime if ``trace``).

    Runs of one Executable share its working directory: run them one at a time (use
    one Executable per worker to run in parallel).
    """

    path: str
    data_model: DataModel
    trace: bool
    writable: str | None = None  # a directory the test may write besides its own (gcov's counts)
    _workdir: str | None = field(default=None, init=False, repr=False, compare=False)
    _cgroups: tuple[str, ...] = field(default=(), init=False, repr=False, compare=False)
    _region: TraceRegion | None = field(default=None, init=False, repr=False, compare=False)

    def run(self, inputs: list[str], timeout: float = 3.0, trace: bool = False,
            keep: int | None = OUTPUT_KEEP) -> RunResult:
        """Run on ``inputs``; ``trace`` collects the branch events (needs a trace build);
        ``keep`` bytes of each output are kept (None: all, for a program whose output is
        the result, as the byte harness's translator)."""
        if trace and not self.trace:
            raise ValueError(f"{self.path} was built without the trace runtime")
        workdir = self._private_dir()
        env = test_environment()
        env["COOPTEST_PARENT"] = str(os.getpid())
        env.pop("COOPTEST_WRITABLE", None)
        if self.writable is not None:
            env["COOPTEST_WRITABLE"] = self.writable
        env.pop("COOPTEST_TRACE_FD", None)
        env.pop("COOPTEST_CGROUPS", None)
        if self._cgroups:
            env["COOPTEST_CGROUPS"] = ":".join(self._cgroups)
        fds: tuple[int, ...] = ()
        if trace:
            if self._region is None:
                self._region = TraceRegion()
            self._region.reset()
            fds = (self._region.fd,)
            env["COOPTEST_TRACE_FD"] = str(self._region.fd)
        stdin = "".join(f"{v}\n" for v in inputs).encode()
        contained = _become_subreaper()
        proc = subprocess.Popen([self.path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=workdir, env=env,
                                start_new_session=True, pass_fds=fds)
        _limit(proc.pid, cpu_seconds=int(timeout) + 2)
        out, err, timed_out = _communicate(proc, stdin, timeout, keep)
        code = proc.returncode
        if contained:
            kill_strays()
        region = self._region if trace else None
        events = region.events() if region is not None else None
        read = region.inputs_read() if region is not None else None
        _clean(workdir)
        killed_by = -code if code < 0 else None
        fault = region.fault() if region is not None and killed_by is not None else None
        return RunResult(exit_code=None if killed_by else code, timed_out=timed_out,
                         crashed=killed_by is not None and not timed_out, signal=killed_by,
                         events=events, inputs_read=read,
                         fault=fault if fault is not None and fault.signal == killed_by else None,
                         stdout=out.decode(errors="replace"),
                         stderr=err.decode(errors="replace"))

    def close(self) -> None:
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None
        for cgroup in self._cgroups:
            remove_cgroup(cgroup)
        self._cgroups = ()

    def _private_dir(self) -> str:
        """The working directory of the runs (and, for root, their cgroups)."""
        if self._workdir is None:
            self._workdir = tempfile.mkdtemp(prefix="cooptest-run-")
            weakref.finalize(self, shutil.rmtree, self._workdir, True)
            self._cgroups = new_cgroups({"pids": PROCESSES, "memory": ADDRESS_SPACE})
            for cgroup in self._cgroups:
                weakref.finalize(self, remove_cgroup, cgroup)
        return self._workdir


def _limit(pid: int, cpu_seconds: int) -> None:
    try:
        resource.prlimit(pid, resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
        resource.prlimit(pid, resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        resource.prlimit(pid, resource.RLIMIT_CORE, (0, 0))
        resource.prlimit(pid, resource.RLIMIT_FSIZE, (FILE_SIZE, FILE_SIZE))
        if (n := _process_limit()) is not None:
            resource.prlimit(pid, resource.RLIMIT_NPROC, (n, n))
    except ProcessLookupError:
        pass  # already gone: nothing left to limit


@functools.cache
def _process_limit() -> int | None:
    """RLIMIT_NPROC for tests: the user's processes now plus PROCESSES (the limit counts
    all processes of the user). None for root, whom the kernel does not limit."""
    uid = os.getuid()
    if uid == 0:
        return None
    mine = sum(1 for p in os.listdir("/proc") if p.isdigit() and _owner(p) == uid)
    return mine + PROCESSES


def _owner(pid: str) -> int | None:
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


@functools.cache
def landlock_abi() -> int:
    """The kernel's Landlock ABI version (0: no Landlock), with which ``contain.c``
    confines every test."""
    try:
        abi = ctypes.CDLL(None, use_errno=True).syscall(
            SYS_LANDLOCK_CREATE_RULESET, None, 0, LANDLOCK_CREATE_RULESET_VERSION)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return 0
    return max(int(abi), 0)


@functools.cache
def seccomp_filters() -> bool:
    """Whether ``contain.c`` denies tests every socket and the limits of other processes:
    the kernel takes seccomp filters
    (``/proc/self/status`` has a ``Seccomp`` line) and the filter is x86's."""
    if platform.machine() not in ("x86_64", "i686"):
        return False
    try:
        with open("/proc/self/status") as f:
            return any(line.startswith("Seccomp:") for line in f)
    except OSError:  # pragma: no cover - not Linux
        return False


def sandbox() -> str:
    """What confines the tests, for the report."""
    abi = landlock_abi()
    sockets = "no sockets, no limits of other processes (seccomp)" if seccomp_filters() \
        else "sockets allowed, limits of the user's processes changeable"
    files = f"landlock ABI {abi}" if abi else "no Landlock: a test may write outside its directory"
    caps = cgroup_roots()
    if _process_limit() is not None:
        processes = f"at most {PROCESSES} processes beyond the user's (RLIMIT_NPROC)"
    elif "pids" in caps:
        processes = f"at most {PROCESSES} processes (pids cgroup)"
    else:
        processes = "processes unlimited (root, no pids cgroup)"
    gb = ADDRESS_SPACE >> 30
    memory = f"{gb} GB for all processes (memory cgroup)" if "memory" in caps else f"{gb} GB per process"
    capabilities = "; no capabilities (root's dropped)" if os.getuid() == 0 else ""
    return f"{files}; {sockets}; {processes}; {memory}{capabilities}"


@functools.cache
def _become_subreaper() -> bool:
    """Make this process the one orphaned descendants of tests are reparented to."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return False


def _strays() -> list[int]:
    """Children of this process in another session: what tests left behind (tests run in
    sessions of their own; whatever cooptest starts itself stays in its session)."""
    mine = os.getsid(0)
    found: list[int] = []
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as f:
                pids = f.read().split()
        except OSError:
            continue
        for pid in map(int, pids):
            try:
                if os.getsid(pid) != mine:
                    found.append(pid)
            except ProcessLookupError:
                pass
    return found


def kill_strays() -> None:
    """Kill and reap the strays, and then those they orphaned in turn. After each run;
    and when a worker that runs tests (a lane, the coverage meter) has been killed in
    the middle of one, its test's processes are this process's strays."""
    for _ in range(1000):
        strays = _strays()
        if not strays:
            return
        for pid in strays:
            for kill in (os.killpg, os.kill):
                try:
                    kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def test_environment() -> dict[str, str]:
    """The environment of a run of the program under test: the caller's, in ``LOCALE``."""
    return {**os.environ, **LOCALE}


def _communicate(proc: subprocess.Popen, stdin: bytes, timeout: float,
                 keep: int | None = OUTPUT_KEEP) -> tuple[bytes, bytes, bool]:
    """Feed ``stdin``, keep the first ``keep`` bytes of each output, enforce ``timeout``;
    the run is over when the process exits, whoever else holds its output open. Its
    process group is killed before the process is reaped (so its id cannot be reused)."""
    assert proc.stdin and proc.stdout and proc.stderr
    most = sys.maxsize if keep is None else keep
    deadline = time.monotonic() + timeout
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    kept = {out_fd: bytearray(), err_fd: bytearray()}
    sel = selectors.DefaultSelector()
    for fd in kept:
        sel.register(fd, selectors.EVENT_READ)
    exited = _pidfd(proc.pid)
    if exited is not None:
        sel.register(exited, selectors.EVENT_READ)
    pending = memoryview(stdin)
    if pending:
        os.set_blocking(proc.stdin.fileno(), False)
        sel.register(proc.stdin.fileno(), selectors.EVENT_WRITE)
    else:
        proc.stdin.close()
    timed_out = done = False
    try:
        while sel.get_map() and not done:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for key, _ in sel.select(left):
                fd = key.fd
                if fd == exited:
                    done = True
                    continue
                if fd in kept:
                    chunk = os.read(fd, 65536)
                    if not chunk:
                        sel.unregister(fd)
                    elif len(kept[fd]) < most:
                        kept[fd] += chunk[:most - len(kept[fd])]
                    continue
                try:
                    pending = pending[os.write(fd, pending):]
                except BrokenPipeError:
                    pending = pending[:0]
                if not pending:
                    sel.unregister(fd)
                    proc.stdin.close()
        while exited is None and not timed_out:  # no pidfd: poll for the exit
            if os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG):
                break
            timed_out = time.monotonic() >= deadline
            time.sleep(0.001)
        if done:
            for fd in kept:  # what the process wrote before it exited
                _drain(fd, kept[fd], most)
    finally:
        sel.close()
        if exited is not None:
            os.close(exited)
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the process is unreaped: its group id is ours
        except ProcessLookupError:
            pass
        proc.wait()
        for f in (proc.stdin, proc.stdout, proc.stderr):
            f.close()
    return bytes(kept[out_fd]), bytes(kept[err_fd]), timed_out


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):  # pragma: no cover - Linux before 5.3
        return None


def _drain(fd: int, kept: bytearray, most: int) -> None:
    os.set_blocking(fd, False)
    for _ in range(16):
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return
        if not chunk:
            return
        if len(kept) < most:
            kept += chunk[:most - len(kept)]


def _clean(workdir: str) -> None:
    """Remove what the program left in its working directory (usually nothing)."""
    for name in os.listdir(workdir):
        p = os.path.join(workdir, name)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p, ignore_errors=True)
        else:
            os.unlink(p)
