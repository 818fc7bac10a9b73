"""Running ``cooptest`` as a user does: a separate process, its exit code and stderr."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
EXAMPLES = REPO / "examples"
HEADERONLY = REPO / "tests" / "data" / "headeronly"  # harness.c, and lib/ring.h it includes


def cooptest(*args: object, timeout: float = 120, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cooptest.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, cwd=cwd)


def cooptest_process(*args: object) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "cooptest.cli", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)


def full_page(out: Path) -> Path:
    """``out`` with report.html rendered in full by ``cooptest report``: a run that ends
    at its budget (random testing always does; on a slow machine past the time it keeps
    for the page) writes the page without its source view, by design."""
    proc = cooptest("report", out)
    assert proc.returncode == 0, proc.stderr
    return out
