"""The harness builds and runs tests and knows nothing of the core that drives it: core
imports harness, never the other way round, so that neither needs the other half-loaded."""
from __future__ import annotations

import pkgutil
import subprocess
import sys

import cooptest.harness


def test_no_harness_module_loads_the_core() -> None:
    modules = [f"cooptest.harness.{m.name}" for m in pkgutil.iter_modules(cooptest.harness.__path__)]
    assert "cooptest.harness.executor" in modules
    probe = (f"import importlib, sys\nfor m in {modules!r}: importlib.import_module(m)\n"
             "print(sorted(n for n in sys.modules if n.startswith('cooptest.core')))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]", loaded.stdout
