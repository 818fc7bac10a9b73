"""GNU grep 2.2 as CREST built it for the CGS paper (``shared/benchmarks/realworld/crest``):
the one definition the benchmarks share.

``src/Makefile.CREST`` links the seven files of ``grep_OBJECTS`` with ``LDADD = regex.o
...``, and ``regex.o`` is compiled by the same ``.c.o`` rule (``cilly
--doCrestInstrument``): CREST instruments GNU regex as well and counts its branches, and
grep calls its own ``re_compile_pattern`` and ``re_search``, not glibc's. The defines are
the Makefile's ``DEFS``, ``INCLUDES`` (the locale folder) and ``CPPFLAGS``; ``../intl``'s
``libintl.a`` is not shipped, and glibc provides what ``ENABLE_NLS`` calls.
"""
from __future__ import annotations

from pathlib import Path

CREST = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "realworld" / "crest"
GREP = CREST / "grep-2.2" / "src"
GREP_FILES = ["grep.c", "dfa.c", "kwset.c", "obstack.c", "getopt.c", "getopt1.c", "search.c", "regex.c"]
GREP_DEFINES = ["HAVE_CONFIG_H", 'LOCALEDIR="/usr/share/locale"', "_LARGEFILE_SOURCE", "_FILE_OFFSET_BITS=64"]
GREP_INCLUDES = [".", ".."]  # relative to GREP, where the benchmarks run grep's commands
GREP_FLAGS = [*(f"-D{d}" for d in GREP_DEFINES), *(f"-I{i}" for i in GREP_INCLUDES)]
