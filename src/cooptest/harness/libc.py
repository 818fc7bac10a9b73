"""The C library's functions a program's own definition takes over *and* that run
without the program calling them: the CFA sees no call, the native run makes one.

Three sources, each asked rather than listed: the C library's own calls it leaves
interposable (the relocations of ``libc.so.6`` against its own functions: ``malloc``,
``free``, ``calloc``, ``realloc``), read with pyelftools; the calls of the nondet
harness linked into every build (its object's undefined symbols: TestCov's harness
calls ``strlen``, ``sscanf``...); and the calls gcc itself emits, which its manual
names (``cfa.libc_model``: ``memcpy``, ``memmove``, ``memset``, ``memcmp`` for aggregate
copies and comparisons, ``puts`` and ``putchar`` for a ``printf`` it simplifies). A name
libc exports but never calls on its own (glibc's legacy ``step``) is no such function."""
from __future__ import annotations

import functools
import os
import subprocess

from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection
from elftools.elf.sections import SymbolTableSection

from cooptest.cfa import libc_model
from cooptest.cfa.ctype import DataModel
from cooptest.harness.nondet import TESTCOV_FUNCTIONS, harness_source
from cooptest.scratch import scratch

FUNCTION_TYPES = ("STT_FUNC", "STT_LOOS")  # LOOS: STT_GNU_IFUNC (strlen, memcpy...)


@functools.cache
def called_behind_the_program(data_model: DataModel) -> frozenset[str]:
    """The names whose definition by the program runs from outside its CFA."""
    return libc_model.GCC_EMITS | _libc_self_calls(data_model) | _harness_calls(data_model)


def _libc_self_calls(data_model: DataModel) -> frozenset[str]:
    proc = subprocess.run(["gcc", data_model.gcc_flag, "-print-file-name=libc.so.6"],
                          capture_output=True, text=True)
    out: set[str] = set()
    try:
        with open(proc.stdout.strip(), "rb") as f:
            elf = ELFFile(f)
            for section in elf.iter_sections():
                if not (section.name.startswith((".rela.", ".rel.")) and isinstance(section, RelocationSection)):
                    continue
                table = elf.get_section(section["sh_link"])
                if not isinstance(table, SymbolTableSection):
                    continue
                for r in section.iter_relocations():
                    if r["r_info_sym"]:
                        s = table.get_symbol(r["r_info_sym"])
                        if s["st_info"]["type"] in FUNCTION_TYPES and s["st_shndx"] != "SHN_UNDEF":
                            out.add(s.name)
    except OSError:
        pass
    return frozenset(out)


def _harness_calls(data_model: DataModel) -> frozenset[str]:
    with scratch(prefix="cooptest-libc-") as work:
        source, obj = os.path.join(work, "harness.c"), os.path.join(work, "harness.o")
        with open(source, "w") as f:
            f.write(harness_source(set(f"__VERIFIER_nondet_{n}" for n in TESTCOV_FUNCTIONS)))
        if subprocess.run(["gcc", data_model.gcc_flag, "-w", "-c", source, "-o", obj],
                          capture_output=True).returncode != 0:
            return frozenset()
        with open(obj, "rb") as f:
            table = ELFFile(f).get_section_by_name(".symtab")
            if not isinstance(table, SymbolTableSection):
                return frozenset()
            return frozenset(s.name for s in table.iter_symbols()
                             if s["st_shndx"] == "SHN_UNDEF" and s.name)
