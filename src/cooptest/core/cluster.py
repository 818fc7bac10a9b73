"""Joining a Ray cluster, for the commands that run jobs on one (``bench --ray``,
``generate --per-function --ray``): the address checked at once, cooptest's own
environment forwarded to the workers, one line for every way it fails."""
from __future__ import annotations

import contextlib
import os
import socket
from types import ModuleType
from typing import Iterator

from cooptest.errors import UserError

# what a worker needs of this process's environment: where cooptest and its caches are
FORWARDED_ENV = ("PYTHONPATH", "COOPTEST_CACHE", "COOPTEST_TESTCOV_MEASURE", "XDG_CACHE_HOME")


@contextlib.contextmanager
def joined(address: str) -> Iterator[ModuleType]:
    """``ray``, initialised on the cluster at ``address`` for the ``with`` block."""
    try:
        import ray
    except ModuleNotFoundError:
        raise UserError("--ray needs Ray: pip install 'cooptest[ray]'") from None
    check_reachable(address)
    env = {k: os.environ[k] for k in FORWARDED_ENV if k in os.environ}
    try:
        ray.init(address=address, runtime_env={"env_vars": env}, log_to_driver=False,
                 logging_level="ERROR")
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise UserError(f"cannot join the Ray cluster at {address}: {e}") from None
    try:
        yield ray
    finally:
        ray.shutdown()


def check_reachable(address: str) -> None:
    """Fail at once when nothing listens at a ``host:port`` address (Ray itself keeps
    retrying for minutes); other forms (``auto``, ``ray://…``) are Ray's to resolve."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "/" in address:
        return
    try:
        socket.create_connection((host, int(port)), timeout=10).close()
    except OSError as e:
        raise UserError(f"cannot join the Ray cluster at {address}: {e.strerror or e}") from None
