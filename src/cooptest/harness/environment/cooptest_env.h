/* cooptest's model of a program's environment: its command line, stdin and named files
 * made of inputs, as KLEE's POSIX runtime makes them symbolic (--sym-args, --sym-stdin,
 * --sym-file). It is C, compiled into the native build and analysed with the program, so
 * a run and its symbolic model read the same bytes through the same code. It is included
 * by the generated environment unit from a system folder: its branches are no goals.
 *
 * The generated unit defines, before including this file:
 *   COOPTEST_ARGC0 and COOPTEST_ARGV0   the fixed arguments (--args), argv[0] first
 *   COOPTEST_SYM_ARGS_MIN/_MAX/_LEN     --sym-args MIN MAX N (MAX 0: none)
 *   COOPTEST_STDIN_LEN                  --sym-stdin N: up to N bytes (-1: stdin left as it is)
 *   COOPTEST_FILES, COOPTEST_FILE_NAMES, COOPTEST_FILE_LENS   --sym-file NAME:N, up to N bytes
 *   COOPTEST_WRAP_MAIN                  1: main is the program's main renamed
 *   COOPTEST_IO                         1: the C library's input functions are these
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <limits.h>
#include <errno.h>

/* The model's C library functions are weak, as a shared library's are to the linker:
 * a program that defines one itself (its own getopt_long, its own isdigit), renamed
 * by cooptest_io.h as its calls are, has its definition called. */
#define COOPTEST_LIBRARY __attribute__((weak))

char __VERIFIER_nondet_char(void);
unsigned char __VERIFIER_nondet_uchar(void);
unsigned short __VERIFIER_nondet_ushort(void);
void __VERIFIER_assume(int cond);

/* One input source: bytes and a read position. */
struct __cooptest_stream {
  const char *name;
  unsigned char *bytes;
  int len;
  int pos;
  int open;
};

#if COOPTEST_STDIN_LEN > 0
static unsigned char __cooptest_stdin_bytes[COOPTEST_STDIN_LEN];
#else
static unsigned char __cooptest_stdin_bytes[1];
#endif
static struct __cooptest_stream __cooptest_stdin_stream = {
    "<stdin>", __cooptest_stdin_bytes, COOPTEST_STDIN_LEN > 0 ? COOPTEST_STDIN_LEN : 0, 0, 1};

#if COOPTEST_FILES > 0
static const char *__cooptest_file_names[COOPTEST_FILES] = COOPTEST_FILE_NAMES;
static const int __cooptest_file_lens[COOPTEST_FILES] = COOPTEST_FILE_LENS;
static unsigned char __cooptest_file_bytes[COOPTEST_FILES][COOPTEST_FILE_MAX];
static struct __cooptest_stream __cooptest_files[COOPTEST_FILES];
static FILE __cooptest_file_handles[COOPTEST_FILES];
#endif

/* Up to ``most`` input bytes: the length is an input too (a stream may be short or
 * empty, as stdin and files are), then the bytes. Returns the length. */
static int __cooptest_fill(unsigned char *bytes, int most) {
  int len = (int)(__VERIFIER_nondet_ushort() % (unsigned)(most + 1)), i;
  for (i = 0; i < len; i++)
    bytes[i] = __VERIFIER_nondet_uchar();
  return len;
}

#if COOPTEST_IO
/* The stream a FILE * or a file descriptor stands for; 0 if none of the model's. */
static struct __cooptest_stream *__cooptest_stream_of(FILE *f) {
#if COOPTEST_FILES > 0
  int i;
  for (i = 0; i < COOPTEST_FILES; i++)
    if (f == &__cooptest_file_handles[i])
      return &__cooptest_files[i];
#endif
  if (f == stdin && COOPTEST_STDIN_LEN >= 0)
    return &__cooptest_stdin_stream;
  return 0;
}

static struct __cooptest_stream *__cooptest_stream_of_fd(int fd) {
  if (fd == 0 && COOPTEST_STDIN_LEN >= 0)
    return &__cooptest_stdin_stream;
#if COOPTEST_FILES > 0
  if (fd >= 1000 && fd < 1000 + COOPTEST_FILES && __cooptest_files[fd - 1000].open)
    return &__cooptest_files[fd - 1000];
#endif
  return 0;
}

static int __cooptest_next(struct __cooptest_stream *s) {
  if (s->pos >= s->len)
    return EOF;
  return s->bytes[s->pos++];
}

static int __cooptest_file_index(const char *path) {
#if COOPTEST_FILES > 0
  int i;
  for (i = 0; i < COOPTEST_FILES; i++)
    if (strcmp(path, __cooptest_file_names[i]) == 0)
      return i;
#endif
  return -1;
}

COOPTEST_LIBRARY FILE *__cooptest_fopen(const char *path, const char *mode) {
  int i = __cooptest_file_index(path);
  if (i < 0)
    return fopen(path, mode);
#if COOPTEST_FILES > 0
  __cooptest_files[i].pos = 0;
  __cooptest_files[i].open = 1;
  return &__cooptest_file_handles[i];
#else
  return 0;
#endif
}

COOPTEST_LIBRARY int __cooptest_open(const char *path, int flags, ...) {
  int i = __cooptest_file_index(path);
  if (i < 0)
    return open(path, flags, 0644); /* a file the model does not hold: the real one */
#if COOPTEST_FILES > 0
  __cooptest_files[i].pos = 0;
  __cooptest_files[i].open = 1;
#endif
  return 1000 + i;
}

COOPTEST_LIBRARY int __cooptest_fclose(FILE *f) {
  struct __cooptest_stream *s = __cooptest_stream_of(f);
  if (s == 0)
    return fclose(f);
  s->open = 0;
  return 0;
}

COOPTEST_LIBRARY int __cooptest_close(int fd) {
  struct __cooptest_stream *s = __cooptest_stream_of_fd(fd);
  if (s == 0)
    return close(fd);
  return 0;
}

COOPTEST_LIBRARY int __cooptest_fgetc(FILE *f) {
  struct __cooptest_stream *s = __cooptest_stream_of(f);
  if (s == 0)
    return fgetc(f);
  return __cooptest_next(s);
}

COOPTEST_LIBRARY int __cooptest_getchar(void) { return __cooptest_fgetc(stdin); }

COOPTEST_LIBRARY int __cooptest_ungetc(int c, FILE *f) {
  struct __cooptest_stream *s = __cooptest_stream_of(f);
  if (s == 0)
    return ungetc(c, f);
  if (c == EOF || s->pos == 0)
    return EOF;
  s->pos--;
  s->bytes[s->pos] = (unsigned char)c;
  return (unsigned char)c;
}

COOPTEST_LIBRARY int __cooptest_feof(FILE *f) {
  struct __cooptest_stream *s = __cooptest_stream_of(f);
  if (s == 0)
    return feof(f);
  return s->pos >= s->len;
}

COOPTEST_LIBRARY char *__cooptest_fgets(char *buf, int size, FILE *f) {
  struct __cooptest_stream *s = __cooptest_stream_of(f);
  int i = 0;
  if (s == 0)
    return fgets(buf, size, f);
  if (size <= 0)
    return 0;
  while (i < size - 1) {
    int c = __cooptest_next(s);
    if (c == EOF)
      break;
    buf[i++] = (char)c;
    if (c == '\n')
      break;
  }
  if (i == 0)
    return 0;
  buf[i] = 0;
  return buf;
}

COOPTEST_LIBRARY size_t __cooptest_fread(void *ptr, size_t size, size_t n, FILE *f) {
  struct __cooptest_stream *s = __cooptest_stream_of(f);
  size_t items, k;
  if (s == 0)
    return fread(ptr, size, n, f);
  for (items = 0; items < n; items++) {
    if ((size_t)(s->len - s->pos) < size)
      break;
    for (k = 0; k < size; k++)
      ((unsigned char *)ptr)[items * size + k] = (unsigned char)__cooptest_next(s);
  }
  return items;
}

COOPTEST_LIBRARY ssize_t __cooptest_read(int fd, void *buf, size_t count) {
  struct __cooptest_stream *s = __cooptest_stream_of_fd(fd);
  size_t k;
  if (s == 0)
    return read(fd, buf, count);
  for (k = 0; k < count && s->pos < s->len; k++)
    ((unsigned char *)buf)[k] = (unsigned char)__cooptest_next(s);
  return (ssize_t)k;
}
#endif /* COOPTEST_IO */

/* The ctype classifiers of the "C" locale (the programs run under it: their
 * environment has no LANG), as functions over the byte: glibc's are lookups in a
 * table (__ctype_b_loc). Each is one comparison or several joined by & and |, never
 * by && or ||: a decision of the model is a node of every execution tree, and a
 * search that took isspace's three tests for three decisions per byte read spent its
 * iterations on orders of blanks (scan.c: no "%d %d" read in 400 iterations). */
COOPTEST_LIBRARY int __cooptest_isdigit(int c) { return (unsigned)(c - '0') < 10u; }
COOPTEST_LIBRARY int __cooptest_islower(int c) { return (unsigned)(c - 'a') < 26u; }
COOPTEST_LIBRARY int __cooptest_isupper(int c) { return (unsigned)(c - 'A') < 26u; }
COOPTEST_LIBRARY int __cooptest_isalpha(int c) { return (unsigned)((c | 32) - 'a') < 26u; }
COOPTEST_LIBRARY int __cooptest_isalnum(int c) { return __cooptest_isalpha(c) | __cooptest_isdigit(c); }
COOPTEST_LIBRARY int __cooptest_isxdigit(int c) { return __cooptest_isdigit(c) | ((unsigned)((c | 32) - 'a') < 6u); }
COOPTEST_LIBRARY int __cooptest_isspace(int c) { return (c == ' ') | ((unsigned)(c - '\t') < 5u); }
COOPTEST_LIBRARY int __cooptest_isblank(int c) { return (c == ' ') | (c == '\t'); }
COOPTEST_LIBRARY int __cooptest_iscntrl(int c) { return ((unsigned)c < 32u) | (c == 127); }
COOPTEST_LIBRARY int __cooptest_isprint(int c) { return (unsigned)(c - 32) < 95u; }
COOPTEST_LIBRARY int __cooptest_isgraph(int c) { return (unsigned)(c - 33) < 94u; }
COOPTEST_LIBRARY int __cooptest_ispunct(int c) { return __cooptest_isgraph(c) & (__cooptest_isalnum(c) ^ 1); }
COOPTEST_LIBRARY int __cooptest_tolower(int c) { return c | (__cooptest_isupper(c) << 5); }
COOPTEST_LIBRARY int __cooptest_toupper(int c) { return c & ~(__cooptest_islower(c) << 5); }

/* v * base as a sum of shifted copies of v over the bits of base, which is concrete: a
   solver decides "the number read is 4242" after seven digits in 0.4 s so, and in 10 s
   over a chain of 64-bit multiplications */
static unsigned long long __cooptest_times(unsigned long long v, unsigned base) {
  unsigned long long r = 0;
  int i;
  for (i = 0; base >> i; i++)
    if ((base >> i) & 1u)
      r += v << i;
  return r;
}

/* strtol and friends over the bytes, as C11 7.22.1.4 defines them (base 0, 2..36). */
static unsigned long long __cooptest_strtoull_core(const char *s, char **end, int base,
                                                   int *negative, int *overflow) {
  const char *p = s;
  unsigned long long v = 0;
  int any = 0;
  *negative = 0;
  *overflow = 0;
  while (__cooptest_isspace((unsigned char)*p))
    p++;
  if (*p == '+' || *p == '-')
    *negative = *p++ == '-';
  if ((base == 0 || base == 16) && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')
      && __cooptest_isxdigit((unsigned char)p[2])) {
    p += 2;
    base = 16;
  } else if (base == 0) {
    base = p[0] == '0' ? 8 : 10;
  }
  /* the bound as glibc computes it, from the base alone: no division by a digit's value,
     which a solver would have to reason about at every digit */
  unsigned long long limit = ULLONG_MAX / (unsigned)base;
  unsigned rest = (unsigned)(ULLONG_MAX % (unsigned)base);
  for (;; p++) {
    int c = (unsigned char)*p, d;
    if (__cooptest_isdigit(c))
      d = c - '0';
    else if (__cooptest_islower(c))
      d = c - 'a' + 10;
    else if (__cooptest_isupper(c))
      d = c - 'A' + 10;
    else
      break;
    if (d >= base)
      break;
    any = 1;
    if (v > limit || (v == limit && (unsigned)d > rest))
      *overflow = 1;
    else
      v = __cooptest_times(v, (unsigned)base) + (unsigned)d;
  }
  if (end)
    *end = (char *)(any ? p : s);
  return v;
}

COOPTEST_LIBRARY long __cooptest_strtol(const char *s, char **end, int base) {
  int neg, over;
  unsigned long long v = __cooptest_strtoull_core(s, end, base, &neg, &over);
  if (over || (!neg && v > (unsigned long long)LONG_MAX)) {
    errno = ERANGE;
    return neg ? LONG_MIN : LONG_MAX;
  }
  if (neg && v > (unsigned long long)LONG_MAX + 1) {
    errno = ERANGE;
    return LONG_MIN;
  }
  return neg ? (long)(0 - v) : (long)v;
}

COOPTEST_LIBRARY unsigned long __cooptest_strtoul(const char *s, char **end, int base) {
  int neg, over;
  unsigned long long v = __cooptest_strtoull_core(s, end, base, &neg, &over);
  if (over || v > ULONG_MAX) {
    errno = ERANGE;
    return ULONG_MAX;
  }
  return neg ? (unsigned long)(0 - v) : (unsigned long)v;
}

COOPTEST_LIBRARY int __cooptest_atoi(const char *s) { return (int)__cooptest_strtol(s, 0, 10); }
COOPTEST_LIBRARY long __cooptest_atol(const char *s) { return __cooptest_strtol(s, 0, 10); }

#if COOPTEST_IO
/* scanf, fscanf and sscanf over a stream, for the conversions programs mostly use:
 * %d %i (decimal) %u %x with h, hh, l, ll; %c, %s with a width; %*; literal characters
 * and whitespace. A conversion outside these ends the scan (as a matching failure).
 * They take eight pointers, not "...": the C library declares them variadic, and the
 * arguments a call passes arrive the same way on x86 (extra ones are never read). */
static int __cooptest_peek(struct __cooptest_stream *s) {
  return s->pos < s->len ? s->bytes[s->pos] : EOF;
}

static void __cooptest_store(void *to, int size, long long v) {
  if (size == -2)
    *(char *)to = (char)v;
  else if (size == -1)
    *(short *)to = (short)v;
  else if (size == 1)
    *(long *)to = (long)v;
  else if (size == 2)
    *(long long *)to = v;
  else
    *(int *)to = (int)v;
}

static int __cooptest_scan(struct __cooptest_stream *s, const char *fmt, void **out) {
  int assigned = 0, n = 0;
  while (*fmt) {
    int skip = 0, width = 0, size = 0, c;
    char conv;
    if (__cooptest_isspace((unsigned char)*fmt)) {
      while (__cooptest_isspace(__cooptest_peek(s)))
        s->pos++;
      fmt++;
      continue;
    }
    if (*fmt != '%' || fmt[1] == '%') {
      fmt += *fmt == '%';
      c = __cooptest_peek(s);
      if (c == EOF)
        return assigned ? assigned : EOF;
      if (c != (unsigned char)*fmt)
        return assigned;
      s->pos++;
      fmt++;
      continue;
    }
    fmt++;
    if (*fmt == '*') {
      skip = 1;
      fmt++;
    }
    while (*fmt >= '0' && *fmt <= '9')
      width = width * 10 + (*fmt++ - '0');
    while (*fmt == 'h' || *fmt == 'l')
      size += *fmt++ == 'h' ? -1 : 1;
    conv = *fmt++;
    if (conv == 'c') {
      int k;
      for (k = 0; k < (width ? width : 1); k++) {
        c = __cooptest_next(s);
        if (c == EOF)
          return assigned ? assigned : EOF;
        if (!skip)
          ((char *)out[n])[k] = (char)c;
      }
    } else {
      while (__cooptest_isspace(__cooptest_peek(s)))
        s->pos++;
      if (__cooptest_peek(s) == EOF)
        return assigned ? assigned : EOF;
      if (conv == 's') {
        int k = 0;
        while ((width == 0 || k < width) && (c = __cooptest_peek(s)) != EOF && !__cooptest_isspace(c)) {
          if (!skip)
            ((char *)out[n])[k] = (char)c;
          k++;
          s->pos++;
        }
        if (!skip)
          ((char *)out[n])[k] = 0;
      } else if (conv == 'd' || conv == 'i' || conv == 'u' || conv == 'x') {
        unsigned long long v = 0;
        int negative = 0, digits = 0, base = conv == 'x' ? 16 : 10, k = 0;
        c = __cooptest_peek(s);
        if (c == '-' || c == '+') {
          negative = c == '-';
          s->pos++;
          k++;
        }
        while ((width == 0 || k < width) && (c = __cooptest_peek(s)) != EOF) {
          int d = __cooptest_isdigit(c) ? c - '0'
                  : base == 16 && __cooptest_isxdigit(c) ? __cooptest_tolower(c) - 'a' + 10 : -1;
          if (d < 0)
            break;
          v = __cooptest_times(v, (unsigned)base) + (unsigned)d;
          digits++;
          k++;
          s->pos++;
        }
        if (!digits)
          return assigned;
        if (!skip)
          __cooptest_store(out[n], size, negative ? (long long)(0 - v) : (long long)v);
      } else {
        return assigned;
      }
    }
    if (!skip) {
      assigned++;
      n++;
    }
  }
  return assigned;
}

COOPTEST_LIBRARY int __cooptest_scanf(const char *fmt, void *a0, void *a1, void *a2, void *a3, void *a4,
                     void *a5, void *a6, void *a7) {
  void *out[8] = {a0, a1, a2, a3, a4, a5, a6, a7};
  struct __cooptest_stream *s = __cooptest_stream_of(stdin);
  if (s == 0)
    return scanf(fmt, a0, a1, a2, a3, a4, a5, a6, a7);
  return __cooptest_scan(s, fmt, out);
}

COOPTEST_LIBRARY int __cooptest_fscanf(FILE *f, const char *fmt, void *a0, void *a1, void *a2, void *a3,
                      void *a4, void *a5, void *a6, void *a7) {
  void *out[8] = {a0, a1, a2, a3, a4, a5, a6, a7};
  struct __cooptest_stream *s = __cooptest_stream_of(f);
  if (s == 0)
    return fscanf(f, fmt, a0, a1, a2, a3, a4, a5, a6, a7);
  return __cooptest_scan(s, fmt, out);
}

COOPTEST_LIBRARY int __cooptest_sscanf(const char *text, const char *fmt, void *a0, void *a1, void *a2,
                      void *a3, void *a4, void *a5, void *a6, void *a7) {
  void *out[8] = {a0, a1, a2, a3, a4, a5, a6, a7};
  struct __cooptest_stream s;
  s.name = "<string>";
  s.bytes = (unsigned char *)text;
  s.len = (int)strlen(text);
  s.pos = 0;
  s.open = 1;
  return __cooptest_scan(&s, fmt, out);
}

#include "cooptest_getopt.h"
#include "cooptest_obstack.h"
#endif /* COOPTEST_IO */

#if COOPTEST_WRAP_MAIN
int __cooptest_main();
extern char **environ;

/* KLEE's --sym-args MIN MAX N: between MIN and MAX more arguments, each of N input
 * bytes and a terminating NUL (a byte may be NUL too, making the argument shorter). */
#if COOPTEST_SYM_ARGS_MAX > 0
static char __cooptest_arg_bytes[COOPTEST_SYM_ARGS_MAX][COOPTEST_SYM_ARGS_LEN + 1];
#endif
static char *__cooptest_argv[COOPTEST_ARGC0 + COOPTEST_SYM_ARGS_MAX + 1] = COOPTEST_ARGV0;

int main(void) {
  int argc = COOPTEST_ARGC0;
#if COOPTEST_SYM_ARGS_MAX > 0
  int extra = COOPTEST_SYM_ARGS_MIN, i, j;
  while (extra < COOPTEST_SYM_ARGS_MAX && __VERIFIER_nondet_uchar() % 2)
    extra++;
  for (i = 0; i < extra; i++) {
    for (j = 0; j < COOPTEST_SYM_ARGS_LEN; j++)
      __cooptest_arg_bytes[i][j] = __VERIFIER_nondet_char();
    __cooptest_arg_bytes[i][COOPTEST_SYM_ARGS_LEN] = 0;
    __cooptest_argv[argc++] = __cooptest_arg_bytes[i];
  }
#endif
  __cooptest_argv[argc] = 0;
#if COOPTEST_STDIN_LEN > 0
  __cooptest_stdin_stream.len = __cooptest_fill(__cooptest_stdin_bytes, COOPTEST_STDIN_LEN);
#endif
#if COOPTEST_FILES > 0
  {
    int f;
    for (f = 0; f < COOPTEST_FILES; f++) {
      __cooptest_files[f].name = __cooptest_file_names[f];
      __cooptest_files[f].bytes = __cooptest_file_bytes[f];
      __cooptest_files[f].len = __cooptest_fill(__cooptest_file_bytes[f], __cooptest_file_lens[f]);
    }
  }
#endif
  return __cooptest_main(argc, __cooptest_argv, environ);
}
#endif
