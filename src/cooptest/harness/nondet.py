"""C source of the nondet harness, behaving exactly as TestCov 3.7's ``harness.c``.

Test-Comp scores a suite by TestCov's execution, so every input must be parsed here
exactly as TestCov parses it: one stdin line per ``__VERIFIER_nondet_*`` call, read by
``sscanf`` with TestCov's format plus ``%c%c%c%c`` to catch suffixes, ``0x`` turning
``d``/``u`` conversions into ``x``, quotes stripped, ``'c'`` read with ``%c`` for char,
and only the suffixes l/L/u/U/f/F tolerated. Deliberate TestCov quirks kept: size_t is
read as ``unsigned int`` even on LP64, bool via ``int``, pointer via ``unsigned long``;
``__VERIFIER_assume(0)`` and an unparsable input call ``abort()`` (after dumping gcov
counters when compiled with ``-DGCOV``); running out of inputs exits with code 1.

Differences that only make the harness more robust, never change a parsed value:
the harness is its own translation unit (so a program's unusual prototype such as
``int __VERIFIER_nondet_int(char *)`` links instead of clashing), its helpers are
``static``, and in a traced build each input read is counted in the trace region
(registers only: no frame changes), so that a test keeps only the inputs its run read
(``GoalBoard._trim``). A program that defines one of the functions itself keeps its
own: only the functions named in ``declared`` are emitted, which TestCov cannot do (it
fails to compile such programs).
"""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class NondetFunction:
    """``ctype __VERIFIER_nondet_<name>(void)`` with TestCov's function body."""

    ctype: str
    body: str


def _scan(ctype: str, fmt: str) -> NondetFunction:
    return NondetFunction(ctype, f'  {ctype} val;\n  parse_input("{fmt}", &val);\n  return val;\n')


def _via(ctype: str, cast: str, base: str) -> NondetFunction:
    """TestCov delegates some types to another reader (one more stack frame)."""
    return NondetFunction(ctype, f"  return {cast}{_INTERNAL}{base}();\n")


_INTERNAL = "cooptest_nondet_"

# TestCov's list, in its order, with its (sometimes surprising) types and delegations.
TESTCOV_FUNCTIONS: dict[str, NondetFunction] = {
    "char": NondetFunction("char", "  char val;\n  char *inp_var = get_input();\n"
                                   "  if (inp_var[0] == '\\'') {\n"
                                   "    parse_input_from(inp_var, \"%c\", &val);\n  } else {\n"
                                   "    parse_input_from(inp_var, \"%hhd\", &val);\n  }\n"
                                   "  return val;\n"),
    "uchar": _scan("unsigned char", "%hhu"),
    "short": _scan("short", "%hd"),
    "ushort": _scan("unsigned short", "%hu"),
    "int": _scan("int", "%d"),
    "uint": _scan("unsigned int", "%u"),
    "long": _scan("long", "%ld"),
    "ulong": _scan("unsigned long", "%lu"),
    "longlong": _scan("long long", "%lld"),
    "ulonglong": _scan("unsigned long long", "%llu"),
    "float": _scan("float", "%f"),
    "double": _scan("double", "%lf"),
    "bool": _via("_Bool", "(_Bool)", "int"),
    "pointer": _via("void *", "(void *)", "ulong"),
    "size_t": _via("unsigned int", "", "uint"),
    "u8": _via("unsigned char", "", "uchar"),
    "u16": _via("unsigned short", "", "ushort"),
    "u32": _via("unsigned int", "", "uint"),
    "U32": _via("unsigned int", "", "u32"),
    "unsigned_char": _via("unsigned char", "", "uchar"),
    "unsigned": _via("unsigned int", "", "uint"),
    "string": NondetFunction("const char *", "  char *val = malloc(MAX_INPUT_SIZE + 1);\n"
                                             "  parse_input(\"%[^\\n]\", val);\n  return val;\n"),
}

# Not in TestCov (it cannot link programs using them; such tasks score nothing there),
# defined only on request so that cooptest can still execute those programs.
EXTRA_FUNCTIONS: dict[str, NondetFunction] = {
    "u64": _scan("unsigned long long", "%llu"),
    "loff_t": _scan("long long", "%lld"),
}

PREFIX = "__VERIFIER_nondet_"
ASSUME = "__VERIFIER_assume"
ERROR = "__VERIFIER_error"

# TestCov's harness.c and stdin reader, statement for statement: programs that read
# uninitialised memory see the stack and heap the harness left behind, so even frame
# layouts (locals, call depth, buffer sizes) and the per-input malloc are kept.
_PRELUDE = r"""/* cooptest nondet harness: TestCov 3.7 harness.c, see cooptest/harness/nondet.py */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define MAX_INPUT_SIZE 3000
#ifdef GCOV
extern void __gcov_dump(void);
#endif

/* The inputs read: a test keeps only those its run read. In a traced build the trace
   runtime points __cooptest_inputs_read at its region, taking over the reads counted
   before (by a constructor run before its own). Only registers touch them: the frames
   stay TestCov's. */
int *__cooptest_inputs_read;
int __cooptest_inputs_early;

static void abort_prog(void) {
#ifdef GCOV
  __gcov_dump();
#endif
  abort();
}

"""

_PARSERS = r"""
static void replace_char(char *str, char find, char replace) {
  char *current_pos = strchr(str, find);
  while (current_pos) {
    *current_pos = replace;
    current_pos = strchr(current_pos, find);
  }
}

static void parse_input_from(char *inp_var, char *format, void *destination) {
  /* 13 as in TestCov: "%[^\n]%c%c%c%c" of nondet_string overflows it by two bytes there
     too, and the frame layout stays the same */
  char format_with_fallback[13];
  strcpy(format_with_fallback, format);
  strcat(format_with_fallback, "%c%c%c%c");
  if (inp_var[0] == '0' && inp_var[1] == 'x') {
    replace_char(format_with_fallback, 'd', 'x');
    replace_char(format_with_fallback, 'u', 'x');
  } else {
    if (inp_var[0] == '\'' || inp_var[0] == '\"') {
      int inp_length = strlen(inp_var);
      inp_var[inp_length - 1] = '\0';
      inp_var++;
    }
  }
  char leftover[4];
  int filled = sscanf(inp_var, format_with_fallback, destination, &leftover[0],
                      &leftover[1], &leftover[2], &leftover[3]);
  _Bool is_valid = 1;
  if (filled == 5 || filled == 0) {
    is_valid = 0;
  }
  while (filled > 1) {
    filled--;
    char literal = leftover[filled - 1];
    switch (literal) {
    case 'l':
    case 'L':
    case 'u':
    case 'U':
    case 'f':
    case 'F':
      break;
    default:
      is_valid = 0;
    }
  }
  if (!is_valid) {
    fprintf(stderr, "Can't parse input: '%s'\n", inp_var);
    abort_prog();
  }
}

static void parse_input(char *format, void *destination) {
  char *inp_var = get_input();
  parse_input_from(inp_var, format, destination);
}
"""

_STDIN_READER = r"""
static char *get_input(void) {
  char *inp_var = malloc(MAX_INPUT_SIZE);
  char *result = fgets(inp_var, MAX_INPUT_SIZE, stdin);
  /* every read asked for is counted, the one that finds no input too: a count past the
     inputs given is what tells the harness's exit code 1 from the program's own */
  if (__cooptest_inputs_read)
    ++*__cooptest_inputs_read;
  else
    ++__cooptest_inputs_early;
  if (result == 0) {
    fprintf(stderr, "No more test inputs available, exiting\n");
    exit(1);
  }
  unsigned int input_length = strlen(inp_var) - 1;
  /* Remove '\n' at end of input */
  if (inp_var[input_length] == '\n') {
    inp_var[input_length] = '\0';
  }
  return inp_var;
}
"""

# How a reader of cooptest's own copies an input, as TestCov's reader does.
_COPIED = r"""
/* The input ``next`` in a buffer of the size TestCov's reader gives, or the end of the
   run when there is none. */
static char *cooptest_copied(const char *next) {
  char *inp_var = malloc(MAX_INPUT_SIZE);
  if (next == 0) {
    fprintf(stderr, "No more test inputs available, exiting\n");
    exit(1);
  }
  cooptest_next_input++;
  strncpy(inp_var, next, MAX_INPUT_SIZE - 1);
  inp_var[MAX_INPUT_SIZE - 1] = '\0';
  return inp_var;
}
"""
# For tests exported as C files (``cooptest export``): the n-th input is the n-th string
# of the test's ``cooptest_inputs`` (a null pointer ends them), copied into a fresh
# buffer as TestCov's reader copies a stdin line; every other step stays TestCov's.
# Built with -DGCOV, an abort() anywhere (a failed assertion in the program too) first
# writes the coverage counters, as TestCov's added flushes do, and so does a crash: the
# goals cooptest counts a crashing test for are the coverage make coverage shows.
_ARRAY_READER = r"""
extern const char *const cooptest_inputs[];
static unsigned long cooptest_next_input;

""" + _COPIED + r"""
static char *get_input(void) { return cooptest_copied(cooptest_inputs[cooptest_next_input]); }

#ifdef GCOV
#include <signal.h>
static void cooptest_dump_on_abort(int sig) {
  __gcov_dump();
  signal(sig, SIG_DFL);
  raise(sig);
}

__attribute__((constructor)) static void cooptest_catch_abort(void) {
  signal(SIGABRT, cooptest_dump_on_abort);
  signal(SIGSEGV, cooptest_dump_on_abort);
  signal(SIGFPE, cooptest_dump_on_abort);
  signal(SIGBUS, cooptest_dump_on_abort);
  signal(SIGILL, cooptest_dump_on_abort);
}
#endif
"""
# For a library's unit tests (``cooptest export --framework``): each test hands the
# values its stubs return to ``cooptest_use_inputs`` before it calls the function.
_QUEUE_READER = r"""
static const char *const *cooptest_queue;
static unsigned long cooptest_next_input;

void cooptest_use_inputs(const char *const *inputs) {
  cooptest_queue = inputs;
  cooptest_next_input = 0;
}

""" + _COPIED + r"""
static char *get_input(void) {
  return cooptest_copied(cooptest_queue ? cooptest_queue[cooptest_next_input] : 0);
}
"""
READERS = {"stdin": _STDIN_READER, "array": _ARRAY_READER, "queue": _QUEUE_READER}

_ASSUME_DEF = f"void {ASSUME}(int cond) {{\n  if (!cond) {{\n    abort_prog();\n  }}\n}}\n"
# Test-Comp's meaning of the legacy error function (TestCov itself leaves it undefined).
_ERROR_DEF = (f'void {ERROR}(void) {{\n  fprintf(stderr, "{ERROR} called\\n");\n'
              "  exit(1);\n}\n")


def harness_source(declared: set[str] | None = None, inputs: str = "stdin") -> str:
    """The harness C file; ``declared`` names the functions to define.

    ``None`` defines TestCov's full set (its nondet functions and ``__VERIFIER_assume``).
    Otherwise only the names in ``declared`` are defined — pass what the program uses
    but does not define (see :func:`needed_functions`) so that neither a duplicate nor
    a missing definition stops the link. Names the harness does not know are ignored.

    Each reader is a static ``cooptest_nondet_<type>`` with TestCov's body, and the
    public ``__VERIFIER_nondet_<type>`` an alias of it: delegating readers keep
    TestCov's call depth without ever calling a program's own definition.

    ``inputs`` says where the inputs come from: ``"stdin"`` (one a line, as TestCov
    feeds them), ``"array"`` (compiled into the test, see ``_ARRAY_READER``) or
    ``"queue"`` (handed over by each unit test, see ``_QUEUE_READER``).
    """
    readers = TESTCOV_FUNCTIONS | EXTRA_FUNCTIONS
    if declared is None:
        wanted = [PREFIX + k for k in TESTCOV_FUNCTIONS] + [ASSUME]
    else:
        wanted = [n for n in (*(PREFIX + k for k in readers), ASSUME, ERROR) if n in declared]
    parts = [_PRELUDE, READERS[inputs], _PARSERS]
    parts += [f"static {f.ctype} {_INTERNAL}{k}(void) {{\n{f.body}}}\n" for k, f in readers.items()]
    for name in wanted:
        if name == ASSUME:
            parts.append(_ASSUME_DEF)
        elif name == ERROR:
            parts.append(_ERROR_DEF)
        else:
            k = name.removeprefix(PREFIX)
            parts.append(f'{readers[k].ctype} {name}(void) __attribute__((alias("{_INTERNAL}{k}")));\n')
    return "\n".join(parts)


_MENTION = re.compile(r"\b__VERIFIER_\w+")
# A definition: the name, a parameter list (one level of nested parentheses for function
# pointer parameters), then a body; preprocessed text has no comments in between.
_DEFINITION = re.compile(r"\b(__VERIFIER_\w+)\s*\((?:[^()]|\([^()]*\))*\)\s*\{")


def needed_functions(source: str) -> set[str]:
    """``__VERIFIER_*`` names ``source`` mentions but does not define."""
    return set(_MENTION.findall(source)) - set(_DEFINITION.findall(source))
