"""``DIR/test-suite.zip`` and ``DIR/report.json`` published as one, so that a run killed at
any moment leaves two files that agree.

Each publication is a new folder ``DIR/.published-XXXX`` holding both files; the symlink
``DIR/.published`` names the current one, and the two files a user opens are symlinks
through it (``test-suite.zip -> .published/test-suite.zip``). Replacing ``.published``
is one ``rename(2)``: a SIGKILL leaves the previous pair or the next, never one of each.
(Renaming the two files one after the other left the suite a test ahead of the report
when the process was descheduled between the renames, on a loaded CI machine.)

``finalize`` at the end of a run turns the links into the files themselves, the suite
first: killed between the two, the report's link still reaches the folder the suite
came from. A finished run leaves two plain files; ``clear`` removes a previous run's
outputs, links and folders, killed or not.
"""
from __future__ import annotations

import glob
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from typing import Any

from cooptest.harness.testsuite import SuiteWriter

SUITE, REPORT = "test-suite.zip", "report.json"
CURRENT = ".published"  # the symlink to the current publication's folder


@dataclass
class Publication:
    """The publications of one run into ``folder``."""

    folder: str
    _current: str | None = None  # the current publication's folder, once there is one

    def publish(self, doc: dict[str, Any], suite: SuiteWriter, names: list[str]) -> None:
        """The report ``doc`` and ``suite`` holding the tests ``names`` (those ``doc``
        lists), in a new folder that then replaces the current one."""
        new = tempfile.mkdtemp(prefix=CURRENT + "-", dir=self.folder)
        os.chmod(new, 0o755)  # mkdtemp's 0700 would hide both files from other users
        previous = os.path.join(self._current, SUITE) if self._current else None
        suite.publish(names, os.path.join(new, SUITE), previous)
        with open(os.path.join(new, REPORT), "w") as f:
            json.dump(doc, f, indent=1)
        self._relink(CURRENT, os.path.basename(new))
        for name in (SUITE, REPORT):  # the suite's link first: a report never comes alone
            self._relink(name, os.path.join(CURRENT, name))
        if self._current is not None:
            shutil.rmtree(self._current, ignore_errors=True)
        self._current = new

    def finalize(self) -> None:
        """Replace the links by the current publication's files (the suite first)."""
        if self._current is None:
            return
        for name in (SUITE, REPORT):
            os.replace(os.path.join(self._current, name), os.path.join(self.folder, name))
        os.unlink(os.path.join(self.folder, CURRENT))
        shutil.rmtree(self._current, ignore_errors=True)
        self._current = None

    def clear(self) -> None:
        """Remove what a previous run into the folder published (or began to)."""
        for name in (SUITE, REPORT, CURRENT):
            path = os.path.join(self.folder, name)
            if os.path.lexists(path):
                os.unlink(path)
        for stale in glob.glob(os.path.join(glob.escape(self.folder), CURRENT + "-*")):
            shutil.rmtree(stale, ignore_errors=True)

    def _relink(self, name: str, target: str) -> None:
        """``folder/name`` made a symlink to ``target`` in one rename (if it is not one)."""
        path = os.path.join(self.folder, name)
        if os.path.islink(path) and os.readlink(path) == target:
            return
        tmp = f"{path}.{os.getpid()}.link"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(target, tmp)
        os.replace(tmp, path)

