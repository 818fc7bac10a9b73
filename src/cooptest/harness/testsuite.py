"""Test-Comp test-suite I/O (a zip of test-format XML files), as TestCov 3.7 accepts it.

TestCov silently skips a test file unless its first line starts with ``<?xml `` and its
second with ``<!DOCTYPE testcase ``, and rejects the whole suite unless ``metadata.xml``
holds all eight metadata elements; so both are written here with fixed header lines
rather than by a generic XML serialiser.

The suite is rewritten atomically after every added test (copy, append, ``os.replace``):
a generation run killed at any moment still leaves a valid zip of all tests so far, and
Test-Comp scores whatever zip is on disk when the time limit strikes.
"""
from __future__ import annotations

import datetime
import hashlib
import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from xml.etree import ElementTree
from xml.sax.saxutils import escape

from cooptest.errors import UserError
from cooptest.task import BRANCHES, ERROR_CALL, Task

XML_HEADER = '<?xml version="1.0" encoding="UTF-8" standalone="no"?>'
TESTCASE_DOCTYPE = ('<!DOCTYPE testcase PUBLIC "+//IDN sosy-lab.org//DTD test-format testcase 1.1//EN"'
                    ' "https://sosy-lab.org/test-format/testcase-1.1.dtd">')
METADATA_DOCTYPE = ('<!DOCTYPE test-metadata PUBLIC "+//IDN sosy-lab.org//DTD test-format'
                    ' test-metadata 1.1//EN" "https://sosy-lab.org/test-format/test-metadata-1.1.dtd">')
METADATA_NAME = "metadata.xml"
METADATA_FIELDS = ("sourcecodelang", "producer", "specification", "programfile", "programhash",
                   "entryfunction", "architecture", "creationtime")
SPECIFICATIONS = {
    BRANCHES: "COVER( init(main()), FQL(COVER EDGES(@DECISIONEDGE)) )",
    ERROR_CALL: "COVER( init(main()), FQL(COVER EDGES(@CALL(reach_error))) )",
}


@dataclass
class TestCase:
    """One test: the n-th input answers the n-th ``__VERIFIER_nondet_*`` call.

    ``inputs`` are C literal texts ("5", "-3", "0x1f", "'a'"); ``name`` is the file name
    without ``.xml`` (TestCov's test name), empty for a test not yet written.
    """

    __test__ = False  # not a pytest class despite its name

    inputs: list[str] = field(default_factory=list)
    covers_error: bool = False
    name: str = ""


def xml_of_test(test: TestCase) -> str:
    """The test-format XML of ``test``; rejects inputs TestCov could not read back."""
    for value in test.inputs:
        # TestCov strips each input and feeds it as one stdin line; an empty element
        # even crashes it (``None.strip()``).
        if not value.strip() or "\n" in value or "\r" in value or value != value.strip():
            raise ValueError(f"input {value!r} cannot be represented as one test-format input")
    attrs = ' coversError="true"' if test.covers_error else ""
    lines = [XML_HEADER, TESTCASE_DOCTYPE, f"<testcase{attrs}>"]
    lines += [f"  <input>{escape(v)}</input>" for v in test.inputs]
    lines.append("</testcase>")
    return "\n".join(lines) + "\n"


def metadata_xml(task: Task, goal_property: str, producer: str) -> str:
    """``metadata.xml`` with all eight elements TestCov requires."""
    if goal_property not in SPECIFICATIONS:
        raise ValueError(f"no test-format specification for property {goal_property!r}")
    with open(task.program, "rb") as f:
        program_hash = hashlib.sha256(f.read()).hexdigest()
    values = {
        "sourcecodelang": "C",
        "producer": producer,
        "specification": SPECIFICATIONS[goal_property],
        "programfile": task.program,
        "programhash": program_hash,
        "entryfunction": "main",
        "architecture": task.data_model.architecture,
        "creationtime": datetime.datetime.now().isoformat(timespec="seconds"),
    }
    lines = [XML_HEADER, METADATA_DOCTYPE, "<test-metadata>"]
    lines += [f"  <{k}>{escape(values[k])}</{k}>" for k in METADATA_FIELDS]
    lines.append("</test-metadata>")
    return "\n".join(lines) + "\n"


class SuiteWriter:
    """Writes a suite zip test by test; the file on disk is always a complete suite."""

    def __init__(self, path_zip: str, task: Task, goal_property: str | None = None,
                 producer: str = "cooptest 0.1") -> None:
        self.path = os.path.abspath(path_zip)
        self._names: set[str] = set()
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        metadata = metadata_xml(task, goal_property or task.goal_property, producer)
        self._replace(lambda z: z.writestr(METADATA_NAME, metadata), copy_old=False)

    def __len__(self) -> int:
        return len(self._names)

    def add(self, test: TestCase) -> str:
        """Append ``test`` and return its file name inside the zip.

        Unnamed tests are numbered ``test000001.xml``, … so that file-name order is the
        order of generation.
        """
        name = f"{test.name}.xml" if test.name else f"test{len(self._names) + 1:06d}.xml"
        if name in self._names or name == METADATA_NAME:
            raise ValueError(f"test file {name} already in {self.path}")
        content = xml_of_test(test)
        self._replace(lambda z: z.writestr(name, content), copy_old=True)
        self._names.add(name)
        return name

    def _replace(self, write, copy_old: bool) -> None:
        fd, tmp = tempfile.mkstemp(prefix=".suite-", suffix=".zip", dir=os.path.dirname(self.path))
        os.close(fd)
        try:
            if copy_old:
                shutil.copyfile(self.path, tmp)
            with zipfile.ZipFile(tmp, "a" if copy_old else "w", zipfile.ZIP_DEFLATED) as z:
                write(z)
            os.replace(tmp, self.path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


def read_suite(path_zip: str) -> list[TestCase]:
    """The tests TestCov would execute from ``path_zip``, ordered by file name.

    Like TestCov: every ``*.xml`` but ``metadata.xml`` is a candidate, files without the two
    header lines or with malformed XML are skipped, every child element of ``<testcase>``
    is one input, its text stripped. A suite TestCov rejects as a whole (not a zip, no or
    incomplete metadata) raises ``UserError``.
    """
    try:
        with zipfile.ZipFile(path_zip) as z:
            names = z.namelist()
            _check_metadata(z, names, path_zip)
            files = sorted(n for n in names
                           if n.endswith(".xml") and os.path.basename(n) != METADATA_NAME)
            tests = [_parse_testcase(n, z.read(n)) for n in files]
    except (zipfile.BadZipFile, OSError) as e:
        raise UserError(f"not a readable test-suite zip: {e}", path_zip) from None
    return [t for t in tests if t is not None]


def _check_metadata(z: zipfile.ZipFile, names: list[str], path_zip: str) -> None:
    meta = next((n for n in names if os.path.basename(n) == METADATA_NAME), None)
    if meta is None:
        raise UserError("no metadata.xml in test suite", path_zip)
    try:
        root = ElementTree.fromstring(z.read(meta))
    except ElementTree.ParseError as e:
        raise UserError(f"test-suite metadata not valid: {e}", path_zip) from None
    missing = [f for f in METADATA_FIELDS if root.find(f) is None]
    if missing:
        raise UserError(f"test-suite metadata not valid: no <{missing[0]}>", path_zip)


def _parse_testcase(name: str, data: bytes) -> TestCase | None:
    lines = data.splitlines(keepends=True)
    if not lines or not lines[0].startswith(b"<?xml "):
        return None
    if len(lines) > 1 and not lines[1].startswith(b"<!DOCTYPE testcase "):
        return None
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError:
        return None
    return TestCase(inputs=[(el.text or "").strip() for el in root],
                    covers_error=root.get("coversError") == "true",
                    name=os.path.basename(name)[:-4])
