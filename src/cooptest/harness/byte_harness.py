"""A nondet harness that reads its values from raw bytes, for a fuzzer, and its translator.

A fuzzer mutates bytes; a cooptest test is a list of literals, one a nondet call
(``harness.nondet``). The byte harness maps one to the other as AFL's harnesses for
SV-COMP tasks do (FuSeBMC's among them): each ``__VERIFIER_nondet_T`` call takes the
next bytes of the input, as many as ``T`` has in the task's data model, little endian;
when the bytes run out the run exits with 1, as TestCov's harness does when the lines
run out. A ``long`` of an ILP32 task takes four bytes even in a 64-bit build (AFL++
ships no 32-bit runtime), so the values a build reads are those a test can hold.

The same C, built with gcc as a *translator*, turns bytes into a test and back by
running the program: the types of the calls are known only as the program makes them.
Its first input line says which way: ``d`` then the bytes in hex (a fuzzer's input: one
literal a call it reads, written as TestCov reads them), or ``e`` then a test's literals
(a seed: the bytes of the values it reads). The translator writes what it makes on its
own copy of stdout, the program's output going to /dev/null. A translated test is only
a candidate: it counts only once ``GoalBoard.submit`` has run it natively.
"""
from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass

from cooptest.cfa.ctype import DataModel
from cooptest.harness.build import BASE_FLAGS, compile_sources, containment_source, in_standards, write_once
from cooptest.harness.nondet import ASSUME, ERROR, EXTRA_FUNCTIONS, PREFIX, TESTCOV_FUNCTIONS
from cooptest.harness.runner import Executable

DECODE, ENCODE = "d", "e"  # the translator's first input line
MAX_VALUES = 1 << 19  # as executor.MAX_INPUTS: the longest test
STRING_BYTES = 3000  # TestCov's MAX_INPUT_SIZE
# Each C type of a nondet function (``harness.nondet``): how its bytes are read.
SIGNED, UNSIGNED, REAL, BOOL, STRING = "signed", "unsigned", "real", "bool", "string"
KINDS = {"char": SIGNED, "short": SIGNED, "int": SIGNED, "long": SIGNED, "long long": SIGNED,
         "unsigned char": UNSIGNED, "unsigned short": UNSIGNED, "unsigned int": UNSIGNED,
         "unsigned long": UNSIGNED, "unsigned long long": UNSIGNED, "void *": UNSIGNED,
         "float": REAL, "double": REAL, "_Bool": BOOL, "const char *": STRING}
# The compilers that instrument for AFL++, best first: clang's pass mode, then gcc's plugin.
AFL_COMPILERS = ("afl-clang-fast", "afl-gcc-fast")
# CmpLog (Redqueen's input-to-state): the build logs the operands of its comparisons,
# and afl-fuzz (``-c 0``) writes the value compared against where the input held the
# other, so that a magic value is one step (a 32-bit equality is 2^-32 for a mutation).
AFL_BUILD_ENV = {"AFL_LLVM_CMPLOG": "1", "AFL_QUIET": "1"}

_RUNTIME = r"""/* cooptest byte harness: see cooptest/harness/byte_harness.py */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned char *cooptest_bytes;
static size_t cooptest_length, cooptest_position;
static int cooptest_loaded;
#ifdef COOPTEST_TRANSLATOR
static int cooptest_out = -1, cooptest_encoding;
static unsigned long cooptest_values;
static char *cooptest_line;
static size_t cooptest_line_size;

static void cooptest_write(const char *text, size_t n) {
  while (n) {
    ssize_t w = write(cooptest_out, text, n);
    if (w <= 0)
      _exit(1);
    text += w;
    n -= (size_t)w;
  }
}

static int cooptest_hex(int c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}
#endif

#ifdef COOPTEST_TRANSLATOR
/* The program's own output goes to /dev/null from the start: the translator's output
   is its copy of stdout alone. */
__attribute__((constructor)) static void cooptest_redirect(void) {
  cooptest_out = dup(1);
  int null = open("/dev/null", O_WRONLY);
  dup2(null, 1);
  dup2(null, 2);
}
#endif

/* The input, read once: the fuzzer's bytes; for the translator, its mode and (decoding)
   the bytes in hex. */
static void cooptest_load(void) {
  cooptest_loaded = 1;
#ifdef COOPTEST_TRANSLATOR
  ssize_t n = getline(&cooptest_line, &cooptest_line_size, stdin);
  cooptest_encoding = n > 0 && cooptest_line[0] == 'e';
  if (cooptest_encoding || getline(&cooptest_line, &cooptest_line_size, stdin) <= 0)
    return;
  cooptest_bytes = malloc(strlen(cooptest_line) / 2 + 1);
  for (char *p = cooptest_line; cooptest_hex(p[0]) >= 0 && cooptest_hex(p[1]) >= 0; p += 2)
    cooptest_bytes[cooptest_length++] = (unsigned char)(cooptest_hex(p[0]) * 16 + cooptest_hex(p[1]));
#else
  size_t size = 4096;
  cooptest_bytes = malloc(size);
  ssize_t n;
  while (cooptest_bytes && (n = read(0, cooptest_bytes + cooptest_length, size - cooptest_length)) > 0) {
    cooptest_length += (size_t)n;
    if (cooptest_length == size)
      cooptest_bytes = realloc(cooptest_bytes, size *= 2);
  }
#endif
}

/* The next ``size`` bytes, or the end of the run when there are not that many. */
static const unsigned char *cooptest_take(size_t size) {
  if (!cooptest_loaded)
    cooptest_load();
  if (cooptest_length - cooptest_position < size)
    exit(1);
  cooptest_position += size;
  return cooptest_bytes + cooptest_position - size;
}

#ifdef COOPTEST_TRANSLATOR
/* Encoding: the next literal of the test, parsed as TestCov's harness would, written as
   ``size`` bytes; decoding: the bytes' value written as a literal. */
static int cooptest_next_line(void) {
  if (!cooptest_loaded)
    cooptest_load();
  if (cooptest_values++ >= __COOPTEST_MAX_VALUES)
    exit(1);
  if (!cooptest_encoding)
    return 1;
  ssize_t n = getline(&cooptest_line, &cooptest_line_size, stdin);
  if (n <= 0)
    exit(1);
  if (cooptest_line[n - 1] == '\n')
    cooptest_line[n - 1] = 0;
  return 0;
}

static void cooptest_emit_bytes(const void *value, size_t size) {
  char hex[3];
  for (size_t i = 0; i < size; i++) {
    snprintf(hex, sizeof hex, "%02x", ((const unsigned char *)value)[i]);
    cooptest_write(hex, 2);
  }
}

static void cooptest_emit_line(const char *text) {
  cooptest_write(text, strlen(text));
  cooptest_write("\n", 1);
}

static unsigned long long cooptest_parsed(int is_signed) {
  const char *s = cooptest_line;
  if (s[0] == '\'' || s[0] == '"')
    return (unsigned long long)(long long)(signed char)s[1];
  int base = s[0] == '0' && s[1] == 'x' ? 16 : 10;
  return is_signed ? (unsigned long long)strtoll(s, 0, base) : strtoull(s, 0, base);
}
#endif

/* An integer of ``size`` bytes, sign-extended if ``is_signed``. */
static unsigned long long cooptest_integer(size_t size, int is_signed) {
#ifdef COOPTEST_TRANSLATOR
  if (!cooptest_next_line()) {
    unsigned long long v = cooptest_parsed(is_signed);
    cooptest_emit_bytes(&v, size); /* little endian: x86 */
    return v;
  }
#endif
  unsigned long long v = 0;
  memcpy(&v, cooptest_take(size), size);
  if (is_signed && size < 8 && (v >> (8 * size - 1)) & 1)
    v |= ~0ull << (8 * size);
#ifdef COOPTEST_TRANSLATOR
  char text[32];
  snprintf(text, sizeof text, is_signed ? "%lld" : "%llu", v);
  cooptest_emit_line(text);
#endif
  return v;
}

static double cooptest_real(size_t size) {
  float f;
  double d;
#ifdef COOPTEST_TRANSLATOR
  if (!cooptest_next_line()) {
    d = strtod(cooptest_line, 0);
    f = (float)d;
    cooptest_emit_bytes(size == sizeof f ? (void *)&f : (void *)&d, size);
    return size == sizeof f ? f : d;
  }
#endif
  memcpy(size == sizeof f ? (void *)&f : (void *)&d, cooptest_take(size), size);
  d = size == sizeof f ? f : d;
#ifdef COOPTEST_TRANSLATOR
  char text[40];
  snprintf(text, sizeof text, size == sizeof f ? "%.9g" : "%.17g", d);
  cooptest_emit_line(text);
#endif
  return d;
}

/* A line of printable characters, ended by a zero byte or the input's end (TestCov
   reads a string as a line). */
static char *cooptest_string(void) {
  char *s = malloc(__COOPTEST_STRING_BYTES + 1);
  size_t n = 0;
#ifdef COOPTEST_TRANSLATOR
  if (!cooptest_next_line()) {
    for (n = 0; cooptest_line[n] && n < __COOPTEST_STRING_BYTES; n++)
      cooptest_emit_bytes(&cooptest_line[n], 1);
    cooptest_emit_bytes("", 1);
    return strcpy(s, cooptest_line);
  }
#endif
  if (!cooptest_loaded)
    cooptest_load();
  while (n < __COOPTEST_STRING_BYTES && cooptest_position < cooptest_length &&
         cooptest_bytes[cooptest_position])
    s[n++] = (char)(' ' + cooptest_bytes[cooptest_position++] % 95);
  cooptest_position += cooptest_position < cooptest_length; /* the zero that ended it */
  s[n] = 0;
#ifdef COOPTEST_TRANSLATOR
  cooptest_emit_line(s);
#endif
  return s;
}
"""

# A failed assumption ends the run quietly: it is no crash for the fuzzer to keep.
_ASSUME_DEF = f"void {ASSUME}(int cond) {{\n  if (!cond)\n    exit(0);\n}}\n"
_ERROR_DEF = f"void {ERROR}(void) {{\n  exit(1);\n}}\n"


def _size(ctype: str, data_model: DataModel) -> int:
    if ctype in ("long", "unsigned long", "void *"):
        return data_model.long_bits // 8
    return {"char": 1, "short": 2, "int": 4, "long long": 8, "float": 4, "double": 8,
            "_Bool": 1}[ctype.removeprefix("unsigned ")]


def _reader(name: str, ctype: str, data_model: DataModel) -> str:
    kind = KINDS[ctype]
    if kind == STRING:
        value = "cooptest_string()"
    elif kind == REAL:
        value = f"({ctype})cooptest_real({_size(ctype, data_model)})"
    elif kind == BOOL:  # TestCov reads a bool as an int: any nonzero byte is true
        value = "cooptest_integer(1, 0) != 0"
    else:
        value = f"({ctype})cooptest_integer({_size(ctype, data_model)}, {int(kind == SIGNED)})"
    return f"{ctype} {PREFIX}{name}(void) {{\n  return {value};\n}}\n"


def harness_source(declared: set[str], data_model: DataModel) -> str:
    """The byte harness for a program that uses, without defining, the ``__VERIFIER_``
    functions ``declared`` (``nondet.needed_functions``)."""
    readers = {k: f.ctype for k, f in (TESTCOV_FUNCTIONS | EXTRA_FUNCTIONS).items()}
    parts = [f"#define __COOPTEST_MAX_VALUES {MAX_VALUES}ul\n"
             f"#define __COOPTEST_STRING_BYTES {STRING_BYTES}\n", _RUNTIME]
    parts += [_reader(k, ctype, data_model) for k, ctype in readers.items() if PREFIX + k in declared]
    parts += [text for name, text in ((ASSUME, _ASSUME_DEF), (ERROR, _ERROR_DEF)) if name in declared]
    return "\n".join(parts)


def afl_compiler() -> str | None:
    """The AFL++ compiler to build with, if AFL++ is installed."""
    return next((c for c in AFL_COMPILERS if shutil.which(c)), None) if shutil.which("afl-fuzz") else None


@dataclass(frozen=True)
class ByteBuilds:
    """The program built for the fuzzer (``fuzzed``) and as the translator."""

    fuzzed: str
    translator: Executable


AFL_FLAGS = ("-w", "-O2")
TRANSLATOR_FLAGS = (*BASE_FLAGS, "-DCOOPTEST_TRANSLATOR")


def build(preprocessed: list[str], dialects: Sequence[tuple[str, ...]], declared: set[str],
          data_model: DataModel, out_dir: str, compiler: str) -> ByteBuilds:
    """Both builds of the program (``gcc -E`` outputs, each unit in its ``dialects``,
    as ``build.in_standards`` takes them), each linked with ``contain.c``: the fuzzer's
    forks are tests like any other. Raises ``UserError`` when one does not compile (a
    program's GNU C that clang does not take)."""
    harness = write_once(out_dir, "byte-harness", harness_source(declared, data_model))
    runtime = [harness, containment_source(out_dir)]
    key = hashlib.sha256("\0".join([*preprocessed, *runtime, compiler, *(" ".join(d) for d in dialects)]
                                   ).encode()).hexdigest()[:16]
    fuzzed = os.path.join(out_dir, f"fuzzed-{key}")
    translator = os.path.join(out_dir, f"translator-{key}")
    if not os.path.exists(fuzzed):  # made once for the lanes of a run (atomically)
        # AFL++ has no 32-bit runtime: the fuzzed build is 64-bit, with the task's sizes of input
        env = {**os.environ, **AFL_BUILD_ENV}
        units = in_standards(preprocessed, dialects, DataModel.LP64, AFL_FLAGS, f"fuzzed-{key}", compiler, env)
        compile_sources([*units, *runtime], DataModel.LP64, fuzzed, AFL_FLAGS, compiler, env)
    if not os.path.exists(translator):
        units = in_standards(preprocessed, dialects, data_model, TRANSLATOR_FLAGS, f"translator-{key}")
        compile_sources([*units, *runtime], data_model, translator, TRANSLATOR_FLAGS)
    return ByteBuilds(fuzzed, Executable(translator, data_model, trace=False))


def decode(translator: Executable, data: bytes, timeout: float) -> list[str] | None:
    """The test a fuzzer's input stands for: the literals of the values the program read
    from it (None when the translator's run timed out)."""
    r = translator.run([DECODE, data.hex()], timeout=timeout, keep=None)
    return None if r.timed_out else r.stdout.splitlines()


def encode(translator: Executable, inputs: list[str], timeout: float) -> bytes | None:
    """The bytes a test's values take in the byte harness (None when the run timed out)."""
    r = translator.run([ENCODE, *inputs], timeout=timeout, keep=None)
    return None if r.timed_out else bytes.fromhex(r.stdout.strip())
