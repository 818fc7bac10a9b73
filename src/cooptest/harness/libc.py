"""The names the C library exports, read from the library gcc links (its dynamic symbol
table, with pyelftools): the library itself says which names a program's own
definition takes over at link time, rather than a list of ours."""
from __future__ import annotations

import functools
import subprocess

from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from cooptest.cfa.ctype import DataModel


@functools.cache
def c_library_exports(data_model: DataModel) -> frozenset[str]:
    """The functions ``libc.so.6`` of the data model defines (empty where gcc names no
    such file: then nothing is taken for the library's)."""
    proc = subprocess.run(["gcc", data_model.gcc_flag, "-print-file-name=libc.so.6"],
                          capture_output=True, text=True)
    path = proc.stdout.strip()
    try:
        with open(path, "rb") as f:
            table = ELFFile(f).get_section_by_name(".dynsym")
            if not isinstance(table, SymbolTableSection):
                return frozenset()
            return frozenset(s.name.split("@")[0] for s in table.iter_symbols()
                             if s["st_info"]["type"] in ("STT_FUNC", "STT_LOOS")  # LOOS: GNU_IFUNC
                             and s["st_shndx"] != "SHN_UNDEF")
    except OSError:
        return frozenset()
