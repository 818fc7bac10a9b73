"""Whole runs of ``cooptest generate`` as a user starts them, for the tests that judge a
run by its report."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def concolic_report(tmp_path: Path, source: str, sym_args: tuple[int, int, int], iterations: int) -> dict[str, Any]:
    """report.json of a run on ``source`` with ``--sym-args MIN MAX N``: concolic dfs for
    ``iterations`` runs, the environment model's functions (getopt_long, the obstack
    functions) under the program."""
    program = tmp_path / "prog.c"
    program.write_text(source)
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "cooptest.cli", "generate", str(program), "--sym-args",
                        *map(str, sym_args), "--strategy", "concolic", "--search", "dfs", "--max-iterations",
                        str(iterations), "--budget", "600", "--out", str(out), "--quiet"],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    report: dict[str, Any] = json.loads((out / "report.json").read_text())
    return report
