"""The C library as every analysis models it: one table of what each function does.

A program's CFA holds no body for ``malloc``, ``memcpy`` or ``printf``; each analysis
must still say what a call of one does to the program's state. Written per analysis,
the answers drifted apart (two sets of allocators; ``sprintf_s`` counted as writing
nothing, though it writes its first argument; ``printf``'s ``%n`` stores through its
argument). Here, as in KLEE's ``SpecialFunctionHandler`` table, a function's effects are
facts stated once, and each analysis derives its treatment from them:

- what it *writes* in the program's memory: through which pointer arguments, how many
  bytes and what (a copy, a fill), or ``None``, anything its pointer arguments reach;
  a ``printf`` whose format is not a literal free of ``%n`` writes through its arguments;
- whether it *allocates* (how big, zeroed, may it return NULL, on the heap or in the
  caller's frame, does it move an object) and what it *returns* (an argument, a constant);
- what it does to control: whether it *terminates* the run (``abort``, ``exit``), *jumps*
  non-locally (``setjmp``/``longjmp``), may *call back* a function of the program;
- whether it is *deterministic*: its result and effects depend on its arguments only,
  and which input it *reads* otherwise (stdin, a file, the clock...);
- whether *gcc emits* calls of it itself (aggregate copies, a simplified ``printf``).

A function absent from the table is unknown: it writes anything its pointer arguments
reach (nothing if it gets none: the C library's own variables are ``cfa.proof_blockers``'s
concern), may call back, and may return something else in another run. Soundness rests
on the facts over-approximating what glibc does: a write listed where none happens costs
precision, one missing costs a wrong proof.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from typing import Sequence

from cooptest.cfa.calls import callee_name
from cooptest.cfa.ctype import PointerType
from cooptest.cfa.fold import const_int
from cooptest.cfa.ir import AddrOf, CallEdge, Cast, Expr, Index, Program, StringLit

NAN, INF = float("nan"), float("inf")


@dataclass(frozen=True)
class Write:
    """A write through pointer argument ``argument``: ``count`` is the argument holding
    the bytes written (None: as many as the call decides, up to the object's end);
    the bytes are copied from where ``source`` points (without a count: the C string
    there, its terminator included), or are all the byte ``fill``, or unknown.
    ``appends``: written from the destination's terminator on (``strcat``). ``ends``:
    the object's lifetime ends (``free``), what it held is gone."""

    argument: int
    count: int | None = None
    source: int | None = None
    fill: int | None = None
    appends: bool = False
    ends: bool = False


@dataclass(frozen=True)
class Allocation:
    """A fresh object of as many bytes as the product of the arguments ``size``."""

    size: tuple[int, ...]
    zeroed: bool = False  # its bytes read 0 (calloc)
    may_fail: bool = True  # it returns NULL on failure
    frame: bool = False  # it lives in the caller's frame, freed when the caller returns
    resizes: bool = False  # it takes over the object its first argument points to


@dataclass(frozen=True)
class Constant:
    """A result that is a constant of the machine the tests run on (``float_bits``:
    the width of a floating-point result, None for an ``int``)."""

    value: float
    float_bits: int | None = None


@dataclass(frozen=True)
class Source:
    """An input the function reads, which a test controls only if an option makes it
    one (``cfa.concrete_inputs``): ``kind`` is ``stdin``, ``stream`` (the FILE its last
    argument is), ``descriptor`` (its first argument; 0 is stdin), ``file`` (the one
    argument ``name`` names), ``environment``, ``clock`` or ``random``."""

    kind: str
    name: int | None = None


@dataclass(frozen=True)
class Function:
    """What a call of one C library function does (module docstring)."""

    writes: tuple[Write, ...] | None = ()
    format: int | None = None  # the argument of a printf format: a %n conversion stores
    allocation: Allocation | None = None
    returns: int | None = None  # the argument it returns (memcpy's destination)
    constant: Constant | None = None
    terminates: str | None = None  # "abort" or "exit": the run ends here
    jumps: bool = False  # control returns twice or leaves non-locally
    calls_back: bool = False  # it may call a function whose address it is given
    deterministic: bool = False  # result and effects depend only on the arguments
    gcc_emits: bool = False  # gcc calls it for code that names no function
    reads: Source | None = None  # an input it reads
    lends: int | None = None  # the buffer argument the library keeps and writes in later calls


READS = Function()  # reads memory or computes, writes none of the program's
UNKNOWN = Function(writes=None, calls_back=True)
_COPY = Function(writes=(Write(0, count=2, source=1),), returns=0)
_FILL = Function(writes=(Write(0, count=2, fill=1),), returns=0)
_STRING_WRITE = Function(writes=(Write(0),), returns=0)  # strncat and kin: into the first argument
_HEAP = Allocation(size=(0,))
_STACK = Allocation(size=(0,), may_fail=False, frame=True)
_JUMP = Function(jumps=True, calls_back=True)
_STDIN, _STREAM = Source("stdin"), Source("stream")


def _printing_into(buffer: int, format_: int) -> Function:
    return Function(writes=(Write(buffer),), format=format_)


LIBRARY: dict[str, Function] = {
    # memory
    "malloc": Function(allocation=_HEAP), "valloc": Function(allocation=_HEAP),
    "calloc": Function(allocation=Allocation(size=(0, 1), zeroed=True)),
    "realloc": Function(writes=(Write(0, ends=True),), allocation=Allocation(size=(1,), resizes=True)),
    "alloca": Function(allocation=_STACK), "__builtin_alloca": Function(allocation=_STACK),
    # allocators of other libraries (the kernel's, libiberty's), by their usual contracts
    "kmalloc": Function(allocation=_HEAP), "xmalloc": Function(allocation=_HEAP),
    "kzalloc": Function(allocation=Allocation(size=(0,), zeroed=True)),
    "free": Function(writes=(Write(0, ends=True),)),
    "memcpy": replace(_COPY, gcc_emits=True), "memmove": replace(_COPY, gcc_emits=True),
    "__builtin_memcpy": _COPY, "memset": replace(_FILL, gcc_emits=True), "__builtin_memset": _FILL,
    "memcmp": Function(gcc_emits=True), "memchr": READS,
    # strings
    "strlen": READS, "strnlen": READS, "strcmp": READS, "strncmp": READS, "strchr": READS,
    "strrchr": READS, "index": READS, "rindex": READS, "strstr": READS, "strdup": READS, "strndup": READS,
    "strcpy": Function(writes=(Write(0, source=1),), returns=0),
    "strcat": Function(writes=(Write(0, source=1, appends=True),), returns=0), "strncat": _STRING_WRITE,
    "strncpy": Function(writes=(Write(0, count=2),), returns=0),
    "wcslen": READS, "wcscmp": READS, "wcsncmp": READS,
    "wcscpy": _STRING_WRITE, "wcscat": _STRING_WRITE,
    "wcsncpy": Function(writes=(Write(0),), returns=0),
    "strtol": Function(writes=(Write(1),)), "strtoul": Function(writes=(Write(1),)),
    "strtoll": Function(writes=(Write(1),)), "strtoull": Function(writes=(Write(1),)),
    "strtod": Function(writes=(Write(1),)),
    "atoi": READS, "atol": READS, "atof": READS,
    # output: it fills the C library's buffers, never the program's memory (a havoc on
    # fputc(c, stdout) made replace's later reads diverge), but a %n conversion stores
    # the count so far through its argument
    "printf": Function(format=0, deterministic=True), "fprintf": Function(format=1),
    "vprintf": Function(format=0), "vfprintf": Function(format=1),
    "sprintf": _printing_into(0, 1), "vsprintf": _printing_into(0, 1),
    "snprintf": _printing_into(0, 2), "vsnprintf": _printing_into(0, 2),
    "sprintf_s": _printing_into(0, 2),
    # wide formats: what they store is not read here
    "wprintf": Function(writes=None), "fwprintf": Function(writes=None),
    "swprintf": Function(writes=None), "vwprintf": Function(writes=None),
    "vfwprintf": Function(writes=None), "vswprintf": Function(writes=None),
    "puts": Function(deterministic=True, gcc_emits=True),
    "putchar": Function(deterministic=True, gcc_emits=True),
    "fflush": Function(deterministic=True), "fputs": READS, "fputc": READS, "putc": READS,
    "ferror": READS,
    "fwrite": READS, "fclose": READS, "write": READS, "close": READS,
    # a stream's buffer the program gives: every later output may write it
    **{name: Function(writes=None, lends=argument) for name, argument in (
        ("setbuf", 1), ("setvbuf", 1), ("setbuffer", 1), ("fmemopen", 0), ("open_memstream", 0),
        ("open_wmemstream", 0))},
    # input; fgets returns NULL at its end, scanf stores through what its format says
    **{name: Function(writes=writes, reads=_STDIN) for name, writes in (
        ("getchar", ()), ("getchar_unlocked", ()), ("scanf", None), ("vscanf", None),
        ("gets", (Write(0),)))},
    **{name: Function(writes=writes, reads=_STREAM) for name, writes in (
        ("fgetc", ()), ("getc", ()), ("getc_unlocked", ()), ("fgetc_unlocked", ()), ("getw", ()),
        ("fgets", (Write(0),)), ("fgets_unlocked", (Write(0),)), ("fread", (Write(0),)),
        ("fread_unlocked", (Write(0),)), ("fscanf", None), ("vfscanf", None),
        ("getline", None), ("getdelim", None))},
    "read": Function(writes=(Write(1),), reads=Source("descriptor")),
    "fstat": Function(writes=(Write(1),), reads=Source("descriptor")),
    "sscanf": Function(writes=None),
    **{name: Function(writes=writes, reads=Source("file", argument)) for name, argument, writes in (
        ("fopen", 0, ()), ("fopen64", 0, ()), ("freopen", 0, ()), ("open", 0, ()),
        ("open64", 0, ()), ("openat", 1, ()), ("opendir", 0, ()), ("access", 0, ()),
        ("stat", 0, (Write(1),)))},
    "getenv": Function(reads=Source("environment")), "secure_getenv": Function(reads=Source("environment")),
    # the locale and the message catalogues are the C library's own state: none of the
    # program's memory changes (read as unknown, the three calls grep makes before its
    # option parsing made every later address of its symbolic executions unknown)
    "setlocale": Function(reads=Source("environment")), "bindtextdomain": READS, "textdomain": READS,
    # a message's translation: in the C locale the message itself (the pointer given);
    # under another one a path is imprecise from its setlocale on
    "gettext": Function(returns=0), "dgettext": Function(returns=1), "dcgettext": Function(returns=1),
    **{name: Function(writes=writes, reads=Source("clock")) for name, writes in (
        ("time", (Write(0),)), ("clock", ()), ("gettimeofday", (Write(0), Write(1))),
        ("clock_gettime", (Write(1),)), ("ftime", (Write(0),)), ("times", (Write(0),)))},
    **{name: Function(writes=writes, reads=Source("random")) for name, writes in (
        ("rand", ()), ("random", ()), ("rand_r", (Write(0),)), ("drand48", ()),
        ("erand48", (Write(0),)), ("lrand48", ()), ("nrand48", (Write(0),)), ("mrand48", ()),
        ("jrand48", (Write(0),)), ("getrandom", (Write(0, count=1),)), ("arc4random", ()),
        ("arc4random_uniform", ()))},
    # numbers, characters, the process
    "abs": Function(deterministic=True), "labs": Function(deterministic=True),
    "llabs": Function(deterministic=True), "__builtin_abs": Function(deterministic=True),
    "__builtin_expect": Function(deterministic=True),
    **{f"__builtin_bswap{n}": Function(deterministic=True) for n in (16, 32, 64)},
    **dict.fromkeys(("sqrt", "sqrtf", "fabs", "fabsf", "floor", "ceil", "pow", "exp", "log",
                     "sin", "cos", "fmod", "round"), READS),
    **dict.fromkeys(("isalpha", "isdigit", "isalnum", "isspace", "isupper", "islower",
                     "isprint", "isxdigit", "toupper", "tolower"), READS),
    "srand": READS, "sleep": READS, "usleep": READS, "getpid": READS,
    "getpagesize": Function(constant=Constant(os.sysconf("SC_PAGE_SIZE"))),  # grep aligns by it
    # gcc's floating-point builtins, which programs call undeclared (newlib's
    # ``return __builtin_nan("");``): typed by the front end, their value known
    **{name: Function(constant=Constant(value, bits)) for name, (bits, value) in {
        "nan": (64, NAN), "nanf": (32, NAN), "__builtin_nan": (64, NAN),
        "__builtin_nanf": (32, NAN), "__builtin_inf": (64, INF), "__builtin_inff": (32, INF),
        "__builtin_huge_val": (64, INF), "__builtin_huge_valf": (32, INF)}.items()},
    # control
    "abort": Function(terminates="abort", calls_back=True),  # a SIGABRT handler runs
    **dict.fromkeys(("exit", "_exit", "_Exit"), Function(terminates="exit", calls_back=True)),
    "__assert_fail": Function(terminates="abort"), "__VERIFIER_abort": Function(terminates="abort"),
    **dict.fromkeys(("setjmp", "_setjmp", "__sigsetjmp", "sigsetjmp", "longjmp", "_longjmp",
                     "siglongjmp", "__longjmp_chk", "__builtin_setjmp", "__builtin_longjmp",
                     "vfork", "getcontext", "setcontext", "swapcontext", "makecontext"), _JUMP),
    # the verification tasks' own, when a program declares them without a body
    "__VERIFIER_assert": READS, "assert": READS,
    "assume_abort_if_not": Function(deterministic=True),
}


def function(name: str | None) -> Function:
    """The model of the library function ``name`` (None: a call through a pointer
    nobody resolved), ``UNKNOWN`` where the table has none."""
    return LIBRARY.get(name, UNKNOWN) if name is not None else UNKNOWN


def writes(edge: CallEdge, name: str | None) -> tuple[Write, ...] | None:
    """The writes of the call ``edge`` of ``name`` (None: anything its pointer
    arguments reach). Writes through a null constant are no writes; a format
    that may store (``%n``, or not a literal) makes the call's writes unknown."""
    f = function(name)
    pointers = any(isinstance(a.type, PointerType) for a in edge.args)
    if f.writes is None or f.format is not None and not _stores_nothing(edge.args, f.format):
        return None if pointers or name is None else ()
    used = [i for w in f.writes for i in (w.argument, w.count, w.source, w.fill) if i is not None]
    if any(i >= len(edge.args) for i in used):
        return None  # a call without the prototype's arguments: whatever it does
    return tuple(w for w in f.writes if not _null(edge.args[w.argument]))


def may_write(edge: CallEdge, name: str | None) -> bool:
    """Whether the call ``edge`` of ``name`` may change the program's memory."""
    return writes(edge, name) != ()


def lent_buffer(program: Program) -> str | None:
    """Why no proof holds when the program lends the C library a buffer (``setvbuf``
    with its own array, ``fmemopen``): the library writes it in later calls, such as a
    ``printf``, that the model has writing nothing."""
    for edge in program.edges():
        if not isinstance(edge, CallEdge):
            continue
        name = callee_name(edge)
        if name is None or name in program.functions or (i := function(name).lends) is None:
            continue
        if i >= len(edge.args) or not _null(edge.args[i]):
            return f"line {edge.line}: {name}() lends the C library a buffer its later calls write"
    return None


def calls_back(name: str) -> bool:
    """Whether ``name`` may call a function of the program it is given the address of
    (an ``atexit`` handler, a ``qsort`` comparator): gcc's builtins never do."""
    return LIBRARY[name].calls_back if name in LIBRARY else not name.startswith("__builtin_")


TERMINATING = {name: f.terminates for name, f in LIBRARY.items() if f.terminates is not None}
GCC_EMITS = frozenset(name for name, f in LIBRARY.items() if f.gcc_emits)

_CONVERSION = re.compile(rb"%[-+ #0'0-9.*$hlLqjzZtI]*(.)", re.DOTALL)  # flags, width, length


def _null(e: Expr) -> bool:
    """Whether ``e`` is a null pointer constant (``0``, ``(char *) 0``)."""
    while isinstance(e, Cast):
        e = e.operand
    return const_int(e) == 0


def _stores_nothing(args: Sequence[Expr], position: int) -> bool:
    """Whether the printf format at ``position`` of ``args`` is a literal without a
    ``%n`` conversion (the one conversion that stores through its argument)."""
    if position >= len(args):
        return False
    e = args[position]
    while isinstance(e, (Cast, AddrOf)) or isinstance(e, Index) and const_int(e.index) == 0:
        e = e.operand if isinstance(e, (Cast, AddrOf)) else e.base
    return isinstance(e, StringLit) and all(
        m.group(1) != b"n" for m in _CONVERSION.finditer(e.value.replace(b"%%", b"")))
