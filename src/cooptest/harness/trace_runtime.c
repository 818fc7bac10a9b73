/* cooptest trace runtime, linked into instrumented programs.
 *
 * The instrumented program reports each branch decision (__cooptest_br), each error
 * call (__cooptest_err) and raw events (__cooptest_log). Events are int32 (little
 * endian on every target gcc -m32/-m64 builds here) collected in a 64 KiB buffer and
 * written with write(2) to the file named by $COOPTEST_TRACE when the buffer is full,
 * at exit, and from the handlers of fatal signals, so that a crashing or aborting run
 * (assume(0) and failed assertions abort) still delivers its path. Without the
 * variable nothing is recorded: plain test execution pays one branch per event.
 * After MAX_EVENTS events one INT32_MIN marks the trace as truncated and logging
 * stops, which bounds the file of a run stuck in a long loop.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define BUF_EVENTS (65536 / sizeof(int32_t))
#define MAX_EVENTS 4000000L
#define TRUNCATED INT32_MIN

enum { OFF, ON, STOPPED };

static int32_t buf[BUF_EVENTS];
static unsigned used;
static long total;
static int state = OFF;
static int fd = -1;
static pid_t owner; /* a forked child must not flush the parent's events again */
static char altstack[1 << 16];

static void flush(void) {
  const char *p = (const char *)buf;
  size_t left = used * sizeof(int32_t);
  used = 0;
  if (fd < 0 || getpid() != owner)
    return;
  while (left > 0) {
    ssize_t w = write(fd, p, left);
    if (w <= 0)
      return;
    p += w;
    left -= (size_t)w;
  }
}

static void on_exit_flush(void) { flush(); }

static void on_fatal_signal(int sig) {
  flush();
  signal(sig, SIG_DFL);
  raise(sig);
}

__attribute__((constructor)) static void cooptest_trace_init(void) {
  const char *path = getenv("COOPTEST_TRACE");
  if (!path || !*path)
    return;
  fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    return;
  owner = getpid();
  atexit(on_exit_flush);
  /* an alternate stack lets the SIGSEGV of a stack overflow still flush */
  stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0};
  sigaltstack(&ss, 0);
  static const int fatal[] = {SIGABRT, SIGSEGV, SIGFPE, SIGBUS, SIGTERM, SIGILL};
  for (unsigned i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
    struct sigaction sa = {0};
    sa.sa_handler = on_fatal_signal;
    sa.sa_flags = SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(fatal[i], &sa, 0);
  }
  state = ON;
}

static void record(int32_t event) {
  if (state != ON)
    return;
  if (total >= MAX_EVENTS) {
    event = TRUNCATED;
    state = STOPPED;
  }
  buf[used++] = event;
  total++;
  if (used == BUF_EVENTS || state == STOPPED)
    flush();
}

int __cooptest_br(int id, int cond) {
  record(2 * id + (cond != 0));
  return cond != 0;
}

void __cooptest_err(int id) { record(-(id + 1)); }

void __cooptest_log(int event) { record(event); }
