"""Where a test crashed: the program's own ``file:line`` of the fault a run died of.

A traced build's runtime (``trace_runtime.c``) catches SIGSEGV, SIGBUS, SIGFPE, SIGILL
and SIGABRT, writes the faulting instruction's address and the words on the stack above
it that point into the executable's code (``runner.Fault``), and dies of the same
signal. Here those addresses become a line: the build is compiled with ``-g`` and the
instrumented source carries ``#line`` directives back to the user's files
(``frontend.instrument``), so the DWARF line table of the executable names the user's
file and line directly. The faulting instruction is the answer where it is the
program's (a null dereference, a division by zero); where it is not (abort() in the C
library, a crash inside strlen, the nondet harness's abort of an unparsable input), the
first return address into the program's code is, the line of the call: a word on the
stack counts as a return address only where the bytes before it are a call
instruction.
"""
from __future__ import annotations

import bisect
import os
import signal
from collections.abc import Callable
from dataclasses import dataclass

from cooptest.harness.runner import Fault



@dataclass(frozen=True)
class Crash:
    """How a run died: its signal's name and, where found, the program's file and line."""

    signal: str
    file: str | None = None
    line: int | None = None

    def at(self, names: dict[str, str] | None = None) -> str | None:
        """``prog.c:12`` (the file as ``names`` names it, else its base name)."""
        if self.file is None or self.line is None:
            return None
        name = (names or {}).get(os.path.normpath(self.file)) or os.path.basename(self.file)
        return f"{name}:{self.line}"

    def document(self, names: dict[str, str] | None = None) -> dict[str, str]:
        """report.json's ``crash`` of a test: ``{"signal": "SIGSEGV", "at": "prog.c:12"}``."""
        at = self.at(names)
        return {"signal": self.signal, **({"at": at} if at else {})}


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


@dataclass
class _Image:
    """What one executable says about its addresses."""

    start: int  # __executable_start's link-time address
    mask: int  # addresses wrap at the word size
    starts: list[int]  # row addresses, sorted
    rows: list[tuple[int, str, int]]  # (end, file, line) of the row at starts[i]
    segments: list[tuple[int, int, int, bool]]  # (vaddr, size in the file, file offset, code) of PT_LOADs
    path: str

    def line_of(self, address: int) -> tuple[str, int] | None:
        i = bisect.bisect_right(self.starts, address) - 1
        if i < 0:
            return None
        end, file, line = self.rows[i]
        return (file, line) if address < end and line > 0 else None

    def code(self, address: int, n: int) -> bytes:
        for vaddr, size, offset, _ in self.segments:
            if vaddr <= address and address + n <= vaddr + size:
                with open(self.path, "rb") as f:
                    f.seek(offset + address - vaddr)
                    return f.read(n)
        return b""

    def follows_call(self, ret: int) -> bool:
        """Whether the bytes before ``ret`` are a call: ``e8 rel32`` to the executable's
        code (a function, or the PLT entry of the C library's), or ``ff /2`` (indirect)."""
        before = self.code(ret - 7, 7)
        if len(before) != 7:
            return False
        if before[2] == 0xE8:
            target = (ret + int.from_bytes(before[3:7], "little", signed=True)) & self.mask
            return any(code and vaddr <= target < vaddr + size
                       for vaddr, size, _, code in self.segments)
        return any(before[7 - k] == 0xFF and (before[8 - k] >> 3) & 7 == 2 for k in (2, 3, 6, 7))


def _read(path: str) -> _Image | None:
    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection
    with open(path, "rb") as f:
        elf = ELFFile(f)
        symbols = elf.get_section_by_name(".symtab")
        found = symbols.get_symbol_by_name("__executable_start") \
            if isinstance(symbols, SymbolTableSection) else None
        if not found or not elf.has_dwarf_info():
            return None
        start = int(found[0]["st_value"])
        segments = [(int(s["p_vaddr"]), int(s["p_filesz"]), int(s["p_offset"]), bool(s["p_flags"] & 1))
                    for s in elf.iter_segments() if s["p_type"] == "PT_LOAD"]
        dwarf = elf.get_dwarf_info()
        table: list[tuple[int, int, str, int]] = []  # (address, end, file, line)
        for cu in dwarf.iter_CUs():
            program = dwarf.line_program_for_CU(cu)
            if program is None:
                continue
            names = _file_names(program, cu)
            row: tuple[int, str, int] | None = None
            for entry in program.get_entries():
                state = entry.state
                if state is None:
                    continue
                if row is not None and state.address > row[0]:
                    table.append((row[0], state.address, row[1], row[2]))
                row = None if state.end_sequence else \
                    (state.address, names.get(state.file, ""), state.line)
        table.sort()
        return _Image(start, (1 << elf.elfclass) - 1, [t[0] for t in table],
                      [(t[1], t[2], t[3]) for t in table], segments, path)


def _file_names(program: object, cu: object) -> dict[int, str]:
    """The line program's files by index, as paths (DWARF 5 counts files and folders
    from 0, with the compilation's folder first; earlier versions from 1)."""
    header = program.header  # type: ignore[attr-defined]
    version = header["version"]
    top = cu.get_top_DIE()  # type: ignore[attr-defined]
    comp_dir = top.attributes.get("DW_AT_comp_dir")
    folders = [_text(d) for d in header["include_directory"]]
    if version < 5:
        folders = [_text(comp_dir.value) if comp_dir else ""] + folders
    out = {}
    for i, entry in enumerate(header["file_entry"]):
        name = _text(entry.name)
        d = entry.dir_index
        if not os.path.isabs(name) and 0 <= d < len(folders) and folders[d]:
            name = os.path.join(folders[d], name)
        out[i if version >= 5 else i + 1] = os.path.normpath(name) if name else ""
    return out


def _text(b: bytes | str) -> str:
    return b.decode(errors="surrogateescape") if isinstance(b, bytes) else b


class Locator:
    """Lines of the faults of one executable's runs; ``user`` tells the program's own
    files (not the C library's headers, not cooptest's harness or runtimes)."""

    def __init__(self, executable: str, user: Callable[[str], bool]) -> None:
        self.executable = executable
        self.user = user
        self._image: _Image | None | bool = False  # False: not read yet
        self._found: dict[Fault, tuple[str, int] | None] = {}

    def crash(self, fault: Fault | None, sig: int | None) -> Crash | None:
        """The crash of a run killed by ``sig`` (None: not killed by a signal)."""
        if sig is None:
            return None
        where = self.locate(fault) if fault is not None and fault.signal == sig else None
        return Crash(signal_name(sig), *(where or (None, None)))

    def locate(self, fault: Fault) -> tuple[str, int] | None:
        if fault not in self._found:
            self._found[fault] = self._locate(fault)
        return self._found[fault]

    def _locate(self, fault: Fault) -> tuple[str, int] | None:
        if self._image is False:
            try:
                self._image = _read(self.executable)
            except Exception:  # noqa: BLE001 - a build we cannot read names no line
                self._image = None
        image = self._image
        if not isinstance(image, _Image) or not fault.offsets:
            return None
        addresses = [(o + image.start) & image.mask for o in fault.offsets]
        hit = image.line_of(addresses[0])
        if hit is not None and self.user(hit[0]):
            return hit
        for ret in addresses[1:]:
            if image.follows_call(ret) and (hit := image.line_of(ret - 1)) is not None \
                    and self.user(hit[0]):
                return hit
        return None
