"""Runs a compiled program on one test input vector, fast and contained.

Test generation executes the program thousands of times, so one run costs a single
spawn: inputs go to stdin through a pipe (one C literal a line, as TestCov feeds
them), output is drained by a select loop that keeps only the first few KB, and
every Executable reuses one private working directory. Resource limits (address
space, CPU time, no core files) are applied with prlimit(2) right after the spawn:
a ``preexec_fn`` would force fork+exec instead of vfork and cut the run rate by 3x,
while the child cannot get far in the microseconds before its limits land. On
timeout the whole process group gets SIGTERM (the trace runtime flushes on it) and
then SIGKILL.
"""
from __future__ import annotations

import os
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

OUTPUT_KEEP = 4096  # bytes of stdout/stderr kept per run
ADDRESS_SPACE = 2 << 30
TERM_GRACE = 0.1  # seconds between SIGTERM and SIGKILL of a timed-out run
TRACE_FILE = "trace.bin"


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
    _workdir: str | None = field(default=None, init=False, repr=False, compare=False)

    def run(self, inputs: list[str], timeout: float = 3.0, trace: bool = False) -> RunResult:
        """Run on ``inputs``; ``trace`` collects the branch events (needs a trace build)."""
        if trace and not self.trace:
            raise ValueError(f"{self.path} was built without the trace runtime")
        workdir = self._private_dir()
        trace_path = os.path.join(workdir, TRACE_FILE)
        env = dict(os.environ)
        if trace:
            env["COOPTEST_TRACE"] = trace_path
        else:
            env.pop("COOPTEST_TRACE", None)
        stdin = "".join(f"{v}\n" for v in inputs).encode()
        proc = subprocess.Popen([self.path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=workdir, env=env,
                                start_new_session=True)
        _limit(proc.pid, cpu_seconds=int(timeout) + 2)
        out, err, timed_out = _communicate(proc, stdin, timeout)
        code = proc.returncode
        events = _read_trace(trace_path) if trace else None
        _clean(workdir)
        killed_by = -code if code < 0 else None
        return RunResult(exit_code=None if killed_by else code, timed_out=timed_out,
                         crashed=killed_by is not None and not timed_out, signal=killed_by,
                         events=events, stdout=out.decode(errors="replace"),
                         stderr=err.decode(errors="replace"))

    def close(self) -> None:
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    def _private_dir(self) -> str:
        if self._workdir is None:
            self._workdir = tempfile.mkdtemp(prefix="cooptest-run-")
            weakref.finalize(self, shutil.rmtree, self._workdir, True)
        return self._workdir


def _limit(pid: int, cpu_seconds: int) -> None:
    try:
        resource.prlimit(pid, resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
        resource.prlimit(pid, resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        resource.prlimit(pid, resource.RLIMIT_CORE, (0, 0))
    except ProcessLookupError:
        pass  # already gone: nothing left to limit


def _communicate(proc: subprocess.Popen, stdin: bytes, timeout: float) -> tuple[bytes, bytes, bool]:
    """Feed ``stdin``, keep the first OUTPUT_KEEP bytes of each output, enforce ``timeout``."""
    assert proc.stdin and proc.stdout and proc.stderr
    deadline = time.monotonic() + timeout
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    kept = {out_fd: bytearray(), err_fd: bytearray()}
    sel = selectors.DefaultSelector()
    for fd in kept:
        sel.register(fd, selectors.EVENT_READ)
    pending = memoryview(stdin)
    if pending:
        os.set_blocking(proc.stdin.fileno(), False)
        sel.register(proc.stdin.fileno(), selectors.EVENT_WRITE)
    else:
        proc.stdin.close()
    timed_out = False
    try:
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for key, _ in sel.select(left):
                fd = key.fd
                if fd in kept:
                    chunk = os.read(fd, 65536)
                    if not chunk:
                        sel.unregister(fd)
                    elif len(kept[fd]) < OUTPUT_KEEP:
                        kept[fd] += chunk[:OUTPUT_KEEP - len(kept[fd])]
                    continue
                try:
                    pending = pending[os.write(fd, pending):]
                except BrokenPipeError:
                    pending = pending[:0]
                if not pending:
                    sel.unregister(fd)
                    proc.stdin.close()
        if not timed_out:
            try:
                proc.wait(max(deadline - time.monotonic(), 0))
            except subprocess.TimeoutExpired:
                timed_out = True
    finally:
        sel.close()
        if timed_out:
            _kill_group(proc)
        proc.wait()
        for f in (proc.stdin, proc.stdout, proc.stderr):
            f.close()
    return bytes(kept[out_fd]), bytes(kept[err_fd]), timed_out


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGTERM first so the trace runtime can flush, SIGKILL after a short grace."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(TERM_GRACE)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _read_trace(path: str) -> array:
    events = array("i")
    try:
        with open(path, "rb") as f:
            data = f.read()
        os.unlink(path)
    except FileNotFoundError:
        return events
    events.frombytes(data[:len(data) - len(data) % 4])
    if sys.byteorder != "little":
        events.byteswap()
    return events


def _clean(workdir: str) -> None:
    """Remove what the program left in its working directory (usually nothing)."""
    for name in os.listdir(workdir):
        p = os.path.join(workdir, name)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p, ignore_errors=True)
        else:
            os.unlink(p)
