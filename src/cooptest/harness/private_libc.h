/* What cooptest's runtimes (contain.c, trace_runtime.c) call instead of the C library,
 * included after the system headers; build.py pastes it into each runtime's text.
 *
 * The runtimes run before main, in the program's process, and call no function the
 * program may define itself. A program's own memcpy, strlen, getenv or write (programs
 * under test do define such names) would otherwise run there, and an instrumented one
 * would be credited with goals the program never ran. So the kernel is called through
 * syscall(2), and the few string functions are loops of our own (gcc -O0 turns no loop
 * into a library call). */
#ifndef COOPTEST_PRIVATE_LIBC_H
#define COOPTEST_PRIVATE_LIBC_H
extern char **environ;

static size_t cooptest_strlen(const char *s) {
  size_t n = 0;
  while (s[n])
    n++;
  return n;
}

static size_t cooptest_strcspn(const char *s, const char *stop) {
  size_t n = 0;
  while (s[n] && s[n] != stop[0])
    n++;
  return n;
}

static void *cooptest_memcpy(void *to, const void *from, size_t n) {
  char *d = to;
  const char *s = from;
  while (n--)
    *d++ = *s++;
  return to;
}

static char *cooptest_getenv(const char *name) {
  size_t n = cooptest_strlen(name);
  for (char **e = environ; e && *e; e++) {
    size_t i = 0;
    while (i < n && (*e)[i] == name[i])
      i++;
    if (i == n && (*e)[n] == '=')
      return *e + n + 1;
  }
  return NULL;
}

static int cooptest_unsetenv(const char *name) {
  char *value = cooptest_getenv(name);
  if (value) {
    char **e = environ;
    while (*e != value - cooptest_strlen(name) - 1)
      e++;
    do
      e[0] = e[1];
    while (*e++);
  }
  return 0;
}

static long cooptest_atol(const char *s) {
  long v = 0;
  while (*s >= '0' && *s <= '9')
    v = v * 10 + (*s++ - '0');
  return v;
}

/* "%ld\n" of a non-negative value into out (at least 22 bytes); returns its length. */
static int cooptest_decimal_line(char *out, long v) {
  char digits[24];
  int n = 0, length = 0;
  do
    digits[n++] = (char)('0' + v % 10);
  while ((v /= 10) > 0);
  while (n)
    out[length++] = digits[--n];
  out[length++] = '\n';
  return length;
}

#define strlen cooptest_strlen
#define strcspn cooptest_strcspn
#define memcpy cooptest_memcpy
#define getenv cooptest_getenv
#define unsetenv cooptest_unsetenv
#define atol cooptest_atol
#define open(path, flags) ((int)syscall(SYS_openat, AT_FDCWD, (path), (flags)))
#define close(fd) ((int)syscall(SYS_close, (fd)))
#define write(fd, buf, n) ((ssize_t)syscall(SYS_write, (fd), (buf), (n)))
#define getpid() ((pid_t)syscall(SYS_getpid))
#define getppid() ((pid_t)syscall(SYS_getppid))
#ifdef SYS_geteuid32
#define geteuid() ((uid_t)syscall(SYS_geteuid32))
#else
#define geteuid() ((uid_t)syscall(SYS_geteuid))
#endif
#define prctl(...) ((int)syscall(SYS_prctl, __VA_ARGS__))
#define _exit(status) syscall(SYS_exit_group, (status))

#define atoi(s) ((int)cooptest_atol(s))

#endif
