"""``gcc -E`` with the data model's flags, and GNU extensions neutralised for pycparser.

pycparser parses C99/C11 only. System headers (glibc) and sv-benchmarks programs use GNU
extensions; the macros below erase those that carry no semantics for test generation
(asm labels, ``__extension__``) and map extended float types to the nearest standard
type (``_Float64x`` is x86's ``long double``), so the real headers can be used instead
of fake ones. ``__float128`` becomes a
typedef name the text declares for pycparser (``FLOAT128``): the CFA computes it as a
``double`` yet lays it out in gcc's 16 bytes, and the builds write it back as gcc's
type. Attributes may carry semantics: ``attributes.strip`` removes them and says which
ones must be kept.
"""
from __future__ import annotations

import functools
import hashlib
import os
import re
import subprocess
from importlib import resources

from cooptest.errors import ToolMissing, UserError
from cooptest.frontend.attributes import FLOAT128, Attributes, strip
from cooptest.cfa.ctype import DataModel
from cooptest.task import Source, Task

ERASED_ASM = "__attribute__((__cooptest_asm__))"  # where an asm was: attributes.strip says
# the float types wider than double, which the CFA computes as a double: x86's _Float64x is
# its long double
NARROWED_FLOAT64X = "__attribute__((__cooptest_narrowed__)) long double"
NARROWED_FLOAT128 = f"__attribute__((__cooptest_narrowed__)) {FLOAT128}"
GNU_NEUTRALISERS = (
    "-D__extension__=", f"-D__asm__(...)={ERASED_ASM}", f"-D__asm(...)={ERASED_ASM}",
    "-D__restrict=", "-D__restrict__=", "-D__inline=inline", "-D__inline__=inline",
    "-D__builtin_va_list=char*", f"-D_Float128={NARROWED_FLOAT128}", f"-D_Float64x={NARROWED_FLOAT64X}",
    "-D_Float32x=double", "-D_Float64=double", "-D_Float32=float", f"-D__float128={NARROWED_FLOAT128}",
    "-D_Noreturn=", "-D__volatile__=volatile", "-D__const=const", "-D__signed__=signed",
    "-D__typeof__=typeof", "-D__builtin_offsetof(t,m)=((unsigned long)&((t*)0)->m)",
    "-D__thread=", "-D_Thread_local=",
)


def include_dir() -> str:
    """Our copy of the referee's assert.h: assert as one conditional expression."""
    return str(resources.files("cooptest.harness") / "include")


def gcc_e(unit: Source, data_model: DataModel, out_path: str, extra: tuple[str, ...] = (),
          line_markers: bool = True) -> None:
    """Run ``gcc -E`` on one translation unit into ``out_path``, with its own flags;
    errors become UserError naming the file and line gcc names.

    With ``line_markers`` the output keeps ``# line "file"`` markers, so that pycparser's
    coordinates (goal lines, error messages) name the original file and line."""
    _cpp(["gcc", "-E", *(() if line_markers else ("-P",)), *search_flags(unit, data_model), *extra,
          *unit.flags, unit.path, "-o", out_path], unit)


def search_flags(unit: Source, data_model: DataModel) -> tuple[str, ...]:
    """What cooptest adds before a unit's own flags, wherever it is preprocessed or
    compiled: the data model, the unit's C standard (TestCov's where it names none, as
    every build of it does), our ``assert.h``, and the unit's folder (as gcc searches
    it for ``"file.h"``, but also for ``<file.h>``)."""
    return (data_model.gcc_flag, unit.standard, f"-I{include_dir()}", "-isystem", harness_headers(),
            f"-I{os.path.dirname(unit.path)}")


def harness_headers() -> str:
    """The headers of the field's tools' harnesses (``<klee/klee.h>``) and of the
    environment model, searched as system headers: their code is no goal."""
    return str(resources.files("cooptest.harness") / "environment")


def dependencies(unit: Source, data_model: DataModel) -> list[str]:
    """Every file the preprocessing of ``unit`` reads (``gcc -M``: the unit, then its
    headers, system headers too), absolute and normalised; a missing header is a
    UserError naming the file and line that include it."""
    proc = _cpp(["gcc", "-M", "-MT", "unit", *search_flags(unit, data_model), *unit.flags,
                 "-x", "c", unit.path], unit)  # a ``.i`` too: it is compiled as C
    rule = proc.stdout.replace("\\\n", " ").split(":", 1)[1]
    words = re.findall(r"(?:\\.|[^\s\\])+", rule)  # make's escapes: "\ " is a blank in a name
    folder = os.path.dirname(unit.path)
    return list(dict.fromkeys(os.path.normpath(os.path.join(folder, re.sub(r"\\(.)", r"\1", w)))
                              for w in words))


@functools.cache
def system_folders(data_model: DataModel) -> tuple[str, ...]:
    """The folders gcc searches for ``<file.h>`` on its own: the C library's and the
    compiler's headers, which every machine with gcc has (a file under them is no part
    of a program's project)."""
    proc = _cpp(["gcc", "-E", "-v", data_model.gcc_flag, "-x", "c", os.devnull, "-o", os.devnull], None)
    listed = proc.stderr.split("#include <...> search starts here:", 1)[-1]
    return tuple(os.path.realpath(line.strip()) for line in listed.split("End of search list.")[0].splitlines()
                 if line.strip())


def _cpp(cmd: list[str], unit: Source | None) -> subprocess.CompletedProcess:
    """Run the preprocessor ``cmd``; its errors become UserError naming the file and
    line gcc names."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                              env={**os.environ, "LC_ALL": "C"})
    except FileNotFoundError:
        raise ToolMissing("gcc not found; install it with: apt-get install -y gcc") from None
    if proc.returncode != 0:
        first = next((l for l in proc.stderr.splitlines() if "error" in l), proc.stderr.strip())
        if "bits/" in first or "gnu/stubs-32.h" in first:
            raise ToolMissing("32-bit headers missing; install them with: apt-get install -y gcc-multilib")
        m = _GCC_MESSAGE.match(first)
        if m:
            raise UserError(f"preprocessing failed: {m['msg']}", m["file"], int(m["line"]))
        raise UserError(f"preprocessing failed: {first}", unit.path if unit else None)
    return proc


_GCC_MESSAGE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? (?:fatal )?error: (?P<msg>.*)$")


def preprocess(task: Task, out_dir: str) -> list[str]:
    """Each translation unit of the task preprocessed for pycparser (GNU extensions
    neutralised), in the task's order.

    Returns the paths of the ``.i`` files in ``out_dir``, cached by content and flags;
    the attributes each had are beside it (:func:`attributes_of`)."""
    return [preprocess_unit(unit, task.data_model, out_dir) for unit in task.units]


def unit_key(unit: Source, data_model: DataModel) -> str:
    """A name for what cooptest derives from ``unit`` in an output's work folder: the
    unit's name and a digest of its content, path, data model and flags."""
    with open(unit.path, "rb") as f:
        key = hashlib.sha256(f.read() + "\0".join((data_model.value, unit.path, *unit.flags)).encode()
                             ).hexdigest()[:16]
    return f"{os.path.splitext(os.path.basename(unit.path))[0]}-{key}"


def preprocess_unit(unit: Source, data_model: DataModel, out_dir: str) -> str:
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, f"{unit_key(unit, data_model)}.i")
    if not os.path.exists(out):
        gcc_e(unit, data_model, out + ".tmp", GNU_NEUTRALISERS)
        with open(out + ".tmp", encoding="utf-8", errors="surrogateescape") as f:
            text, attributes = strip(f.read())
        if FLOAT128 in text:
            text = f"typedef double {FLOAT128};\n{text}"  # before the first line marker
        with open(out + ".attributes.json", "w") as f:
            f.write(attributes.dumps())
        with open(out + ".tmp", "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        os.replace(out + ".tmp", out)
    return out


def attributes_of(preprocessed_path: str) -> Attributes:
    """The attributes :func:`preprocess` found in the program it wrote to this path."""
    with open(preprocessed_path + ".attributes.json") as f:
        return Attributes.loads(f.read())
