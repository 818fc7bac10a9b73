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
``static``, the input line buffer is reused instead of leaked, and the sscanf format
buffer is large enough for ``%[^\\n]`` (TestCov overflows it by two bytes). A program
that defines one of the functions itself keeps its own: only the functions named in
``declared`` are emitted, which TestCov cannot do (it fails to compile such programs).
"""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class NondetFunction:
    """``ctype __VERIFIER_nondet_<name>(void)`` returning ``expr`` (C, may use readers)."""

    ctype: str
    expr: str


def _read(ctype: str, fmt: str) -> str:
    return f'({{ {ctype} val; parse_input("{fmt}", &val); val; }})'


_UINT = _read("unsigned int", "%u")
_UCHAR = _read("unsigned char", "%hhu")
_USHORT = _read("unsigned short", "%hu")
_ULONG = _read("unsigned long", "%lu")

# TestCov's list, in its order, with its (sometimes surprising) types and delegations.
TESTCOV_FUNCTIONS: dict[str, NondetFunction] = {
    "char": NondetFunction("char", "read_char()"),
    "uchar": NondetFunction("unsigned char", _UCHAR),
    "short": NondetFunction("short", _read("short", "%hd")),
    "ushort": NondetFunction("unsigned short", _USHORT),
    "int": NondetFunction("int", _read("int", "%d")),
    "uint": NondetFunction("unsigned int", _UINT),
    "long": NondetFunction("long", _read("long", "%ld")),
    "ulong": NondetFunction("unsigned long", _ULONG),
    "longlong": NondetFunction("long long", _read("long long", "%lld")),
    "ulonglong": NondetFunction("unsigned long long", _read("unsigned long long", "%llu")),
    "float": NondetFunction("float", _read("float", "%f")),
    "double": NondetFunction("double", _read("double", "%lf")),
    "bool": NondetFunction("_Bool", "(_Bool)" + _read("int", "%d")),
    "pointer": NondetFunction("void *", "(void *)" + _ULONG),
    "size_t": NondetFunction("unsigned int", _UINT),
    "u8": NondetFunction("unsigned char", _UCHAR),
    "u16": NondetFunction("unsigned short", _USHORT),
    "u32": NondetFunction("unsigned int", _UINT),
    "U32": NondetFunction("unsigned int", _UINT),
    "unsigned_char": NondetFunction("unsigned char", _UCHAR),
    "unsigned": NondetFunction("unsigned int", _UINT),
    "string": NondetFunction("const char *", "read_string()"),
}

# Not in TestCov (it cannot link programs using them; such tasks score nothing there),
# defined only on request so that cooptest can still execute those programs.
EXTRA_FUNCTIONS: dict[str, NondetFunction] = {
    "u64": NondetFunction("unsigned long long", _read("unsigned long long", "%llu")),
    "loff_t": NondetFunction("long long", _read("long long", "%lld")),
}

PREFIX = "__VERIFIER_nondet_"
ASSUME = "__VERIFIER_assume"
ERROR = "__VERIFIER_error"

_PRELUDE = r"""/* cooptest nondet harness: TestCov 3.7 input semantics, see cooptest/harness/nondet.py */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define MAX_INPUT_SIZE 3000
#ifdef GCOV
extern void __gcov_dump(void);
#endif

static void abort_prog(void) {
#ifdef GCOV
  __gcov_dump();
#endif
  abort();
}

static char *get_input(void) {
  static char inp_var[MAX_INPUT_SIZE];
  char *result = fgets(inp_var, MAX_INPUT_SIZE, stdin);
  if (result == 0) {
    fprintf(stderr, "No more test inputs available, exiting\n");
    exit(1);
  }
  unsigned int input_length = strlen(inp_var) - 1;
  if (inp_var[input_length] == '\n') {
    inp_var[input_length] = '\0';
  }
  return inp_var;
}

static void replace_char(char *str, char find, char replace) {
  char *current_pos = strchr(str, find);
  while (current_pos) {
    *current_pos = replace;
    current_pos = strchr(current_pos, find);
  }
}

static void parse_input_from(char *inp_var, const char *format, void *destination) {
  char format_with_fallback[16];
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

static void parse_input(const char *format, void *destination) {
  parse_input_from(get_input(), format, destination);
}

static char read_char(void) {
  char val;
  char *inp_var = get_input();
  if (inp_var[0] == '\'') {
    parse_input_from(inp_var, "%c", &val);
  } else {
    parse_input_from(inp_var, "%hhd", &val);
  }
  return val;
}

static const char *read_string(void) {
  char *val = malloc(MAX_INPUT_SIZE + 1);
  parse_input("%[^\n]", val);
  return val;
}
"""

_ASSUME_DEF = f"void {ASSUME}(int cond) {{\n  if (!cond) {{\n    abort_prog();\n  }}\n}}\n"
# Test-Comp's meaning of the legacy error function (TestCov itself leaves it undefined).
_ERROR_DEF = (f'void {ERROR}(void) {{\n  fprintf(stderr, "{ERROR} called\\n");\n'
              "  exit(1);\n}\n")


def harness_source(declared: set[str] | None = None) -> str:
    """The harness C file; ``declared`` names the functions to define.

    ``None`` defines TestCov's full set (its nondet functions and ``__VERIFIER_assume``).
    Otherwise only the names in ``declared`` are defined — pass what the program uses
    but does not define (see :func:`needed_functions`) so that neither a duplicate nor
    a missing definition stops the link. Names the harness does not know are ignored.
    """
    known = {PREFIX + k: v for k, v in (TESTCOV_FUNCTIONS | EXTRA_FUNCTIONS).items()}
    if declared is None:
        wanted = [PREFIX + k for k in TESTCOV_FUNCTIONS] + [ASSUME]
    else:
        wanted = [n for n in (*known, ASSUME, ERROR) if n in declared]
    parts = [_PRELUDE]
    for name in wanted:
        if name == ASSUME:
            parts.append(_ASSUME_DEF)
        elif name == ERROR:
            parts.append(_ERROR_DEF)
        else:
            f = known[name]
            parts.append(f"{f.ctype} {name}(void) {{\n  return {f.expr};\n}}\n")
    return "\n".join(parts)


_MENTION = re.compile(r"\b__VERIFIER_\w+")
# A definition: the name, a parameter list (one level of nested parentheses for function
# pointer parameters), then a body; preprocessed text has no comments in between.
_DEFINITION = re.compile(r"\b(__VERIFIER_\w+)\s*\((?:[^()]|\([^()]*\))*\)\s*\{")


def needed_functions(source: str) -> set[str]:
    """``__VERIFIER_*`` names ``source`` mentions but does not define."""
    return set(_MENTION.findall(source)) - set(_DEFINITION.findall(source))
