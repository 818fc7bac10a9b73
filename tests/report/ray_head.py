"""A Ray head of its own on 127.0.0.1 for tests and benchmarks: free ports, a private
temporary folder, started with ``ray start --head --block`` in a session of its own and
stopped by signalling that session only (``ray stop`` would stop every Ray on the
machine, also other people's)."""
from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from typing import Iterator

START_LIMIT = 120.0  # seconds: a loaded 2-core machine starts Ray slowly


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


ATTEMPTS = 3  # ports chosen free may be taken before Ray binds them: try new ones


@contextmanager
def local_ray_head(num_cpus: int = 2) -> Iterator[str]:
    """Yield the address (``127.0.0.1:PORT``) of a running head with ``num_cpus`` CPUs."""
    for attempt in range(ATTEMPTS):
        try:
            head, temp, address = _start(num_cpus)
            break
        except RuntimeError:
            if attempt == ATTEMPTS - 1:
                raise
    try:
        yield address
    finally:
        _stop(head)
        shutil.rmtree(temp, ignore_errors=True)


def _start(num_cpus: int) -> tuple[subprocess.Popen, str, str]:
    temp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")  # Ray's socket paths must stay short
    port = free_port()
    workers = random.randrange(20000, 60000, 200)
    ray = os.path.join(os.path.dirname(sys.executable), "ray")
    cmd = [ray if os.path.exists(ray) else "ray", "start", "--head", "--block",
           "--node-ip-address=127.0.0.1", f"--port={port}", f"--num-cpus={num_cpus}",
           "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp}",
           f"--node-manager-port={free_port()}", f"--object-manager-port={free_port()}",
           f"--metrics-export-port={free_port()}",
           f"--dashboard-agent-listen-port={free_port()}",
           f"--dashboard-agent-grpc-port={free_port()}", f"--runtime-env-agent-port={free_port()}",
           f"--min-worker-port={workers}", f"--max-worker-port={workers + 199}"]
    log = os.path.join(temp, "start.log")
    with open(log, "w") as f:
        head = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    deadline = time.monotonic() + START_LIMIT
    while True:
        failed = "exited" if head.poll() is not None else \
            "did not come up in time" if time.monotonic() > deadline else None
        if failed:
            _stop(head)
            with open(log) as f:
                message = f"ray start {failed}: {f.read()[-2000:]}"
            shutil.rmtree(temp, ignore_errors=True)
            raise RuntimeError(message)
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return head, temp, f"127.0.0.1:{port}"
        time.sleep(0.5)


def _stop(head: subprocess.Popen) -> None:
    """SIGTERM to the head's session (``ray start --block`` then stops what it started),
    SIGKILL to whatever of the session is left."""
    try:
        os.killpg(head.pid, signal.SIGTERM)
        head.wait(timeout=30)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass
    try:
        os.killpg(head.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    head.wait()
