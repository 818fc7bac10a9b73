"""Test-Comp test-suite I/O (a zip of test-format XML files), as TestCov 3.7 accepts it.

TestCov silently skips a test file unless its first line starts with ``<?xml `` and its
second with ``<!DOCTYPE testcase ``, and rejects the whole suite unless ``metadata.xml``
holds all eight metadata elements; so both are written here with fixed header lines
rather than by a generic XML serialiser.

The suite is rewritten atomically after every added test (copy, append, ``os.replace``):
a generation run killed at any moment still leaves a valid zip of all tests so far, and
Test-Comp scores whatever zip is on disk when the time limit strikes. A writer that is
not ``eager`` leaves the publishing to its owner (``publish``): a run publishes the suite
together with the report that describes it (``report.report``), so that the two agree
whenever the run is killed.
"""
from __future__ import annotations

import contextlib
import datetime
import hashlib
import os
import struct
import tempfile
import time
import zipfile
import zlib
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
                 producer: str = "cooptest 0.1", eager: bool = True) -> None:
        self.path = os.path.abspath(path_zip)
        self.eager = eager  # published after every change, else by ``publish`` only
        self.unpublished = False  # tests added or removed since the file was written
        self._names: set[str] = set()
        self._tests: dict[str, _Entry] = {}  # file name -> its entry, in order of generation
        self._zip = _ZipImage()
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self._metadata = metadata_xml(task, goal_property or task.goal_property, producer).encode()
        self._zip.add(METADATA_NAME, self._metadata)
        self._publish()

    def __len__(self) -> int:
        return len(self._names)

    def add(self, test: TestCase) -> str:
        """Append ``test`` and return its name (the file name inside the zip without
        ``.xml``, as TestCov and ``read_suite`` name it).

        Unnamed tests are numbered ``test000001``, … so that file-name order is the
        order of generation.
        """
        name = test.name or f"test{len(self._names) + 1:06d}"
        file = f"{name}.xml"
        if file in self._names or file == METADATA_NAME:
            raise ValueError(f"test file {file} already in {self.path}")
        self._tests[file] = self._zip.add(file, xml_of_test(test).encode())
        self._names.add(file)
        self._changed()
        return name

    def keep_only(self, names: list[str]) -> None:
        """Rewrite the suite with only the tests named (as ``add`` names them), in
        generation order (suite reduction)."""
        keep = {f"{n}.xml" for n in names}
        self._tests = {n: d for n, d in self._tests.items() if n in keep}
        self._names = set(self._tests)
        self._zip = _ZipImage()
        self._zip.add(METADATA_NAME, self._metadata)
        for entry in self._tests.values():
            self._zip.append(entry)
        self._changed()

    def _changed(self) -> None:
        self.unpublished = True
        if self.eager:
            self._publish()

    def publish(self, names: list[str] | None = None, path: str | None = None,
                previous: str | None = None) -> None:
        """Write the suite, holding only the tests ``names`` (as ``add`` names them) if
        given: those the report written with it lists (a signal may stop a run between
        adding a test here and recording it on the board). Over this writer's file, or
        to the new file ``path`` (``report.publication``), where ``previous``, the file
        written there last, is hard-linked if the suite has not changed since."""
        image = None
        if names is not None and len(names) != len(self._names):
            keep = {f"{n}.xml" for n in names}
            image = _ZipImage()
            image.add(METADATA_NAME, self._metadata)
            for file, entry in self._tests.items():
                if file in keep:
                    image.append(entry)
        if path is None:
            if image is not None or self.unpublished:
                self._publish(image)  # a part: still unpublished, the file is not this suite
            return
        if previous is not None and image is None and not self.unpublished:
            with contextlib.suppress(OSError):  # a file system without hard links: write it
                os.link(previous, path)
                return
        with open(path, "wb") as f:
            f.writelines((image or self._zip).parts())
        self.unpublished = image is not None

    def _publish(self, image: _ZipImage | None = None) -> None:
        """Write the whole archive to a temporary file and rename it over the suite."""
        fd, tmp = tempfile.mkstemp(prefix=".suite-", suffix=".zip", dir=os.path.dirname(self.path))
        try:
            os.fchmod(fd, 0o644)  # mkstemp's 0600 would hide the suite from other users
            with os.fdopen(fd, "wb") as f:
                f.writelines((image or self._zip).parts())
            os.replace(tmp, self.path)
            self.unpublished = image is not None
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


@dataclass(frozen=True)
class _Entry:
    """A file of the archive, deflated."""

    name: bytes
    body: bytes
    crc: int
    size: int  # of the data, inflated


class _ZipImage:
    """A deflated zip archive kept in memory as local records plus central directory.

    Appending costs only the new entry, so the complete archive can be rewritten after
    every test (``zipfile`` in append mode re-reads the whole directory each time, which
    made a suite of thousands of tests quadratic in Python time). Plain zip, no ZIP64:
    at most 65535 entries, far beyond what TestCov executes within its time limit.
    """

    MAX_ENTRIES = 0xFFFF
    _UTF8 = 0x800

    def __init__(self) -> None:
        self.records = bytearray()
        self.directory = bytearray()
        self.count = 0
        now = time.localtime()
        self._time = now.tm_hour << 11 | now.tm_min << 5 | now.tm_sec // 2
        self._date = (now.tm_year - 1980) << 9 | now.tm_mon << 5 | now.tm_mday

    def add(self, name: str, data: bytes) -> _Entry:
        """Deflate ``data`` (zlib's default level: level 9 took 0.8 s for a test of 400,000
        random inputs, 2% smaller) and append it as ``name``."""
        packer = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
        entry = _Entry(name.encode(), packer.compress(data) + packer.flush(), zlib.crc32(data), len(data))
        self.append(entry)
        return entry

    def append(self, entry: _Entry) -> None:
        """Append an entry deflated before (a suite rewritten after reduction)."""
        if self.count >= self.MAX_ENTRIES:
            raise ValueError(f"a test suite holds at most {self.MAX_ENTRIES - 1} tests")
        raw_name, body = entry.name, entry.body
        fields = (zipfile.ZIP_DEFLATED, self._time, self._date, entry.crc, len(body),
                  entry.size, len(raw_name))
        offset = len(self.records)
        self.records += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, self._UTF8, *fields, 0)
        self.records += raw_name + body
        self.directory += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, self._UTF8, *fields,
                                      0, 0, 0, 0, 0o100644 << 16, offset)
        self.directory += raw_name
        self.count += 1

    def parts(self) -> list[bytes | bytearray]:
        end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, self.count, self.count,
                          len(self.directory), len(self.records), 0)
        return [self.records, self.directory, end]


def read_seeds(path: str) -> list[list[str]]:
    """The inputs of the tests to start from: a Test-Comp suite (a zip), or a CREST input
    file, the values of one run, one a line (as CREST writes them and ``run_crest``
    takes its INITIAL_INPUT), which is one test."""
    if zipfile.is_zipfile(path):
        return [t.inputs for t in read_suite(path)]
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise UserError(f"neither a test-suite zip nor a CREST input file: {e}", path) from None
    values = []
    for n, line in enumerate(lines, 1):
        value = line.strip()
        if not value:
            continue
        try:
            int(value)
        except ValueError:
            raise UserError(f"not a CREST input value (an integer a line): {value[:40]!r}",
                            path, n) from None
        values.append(value)
    return [values]


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
