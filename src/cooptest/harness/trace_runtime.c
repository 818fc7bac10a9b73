/* cooptest trace runtime, linked into instrumented programs.
 *
 * The instrumented program reports each branch decision (__cooptest_br), each error
 * call (__cooptest_err) and raw events (__cooptest_log). Events are int32 (little
 * endian on every target gcc -m32/-m64 builds here), stored straight into a shared
 * memory region that cooptest created and handed over as the file descriptor named by
 * $COOPTEST_TRACE_FD: a header (the number of events, and the number of inputs the
 * nondet harness read, which it counts through __cooptest_inputs_read) followed by
 * the events.
 *
 * The region is mapped and its descriptor closed in a constructor that runs before any
 * of the program's, and the variable is removed: the program under test is untrusted,
 * and it can neither lose the trace (unlink files, close descriptors, mkdir in its
 * working directory) nor forge one. Since the memory is shared, nothing has to be
 * flushed: a run that crashes, aborts, is killed or runs destructors after main still
 * delivers every event. A forked child stops recording (its path is not the run's).
 * After MAX_EVENTS events one INT32_MIN marks the trace as truncated and logging stops.
 * Without the variable nothing is recorded: plain execution pays one branch per event.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <fcntl.h>

#include "private_libc.h"

#define MAX_EVENTS 4000000L
#define TRUNCATED INT32_MIN
#define HEADER 2 /* int32 words before the events: their count, the inputs read */

enum { UNSET, OFF, ON, STOPPED };

static volatile int32_t *region;
/* the nondet harness's count of inputs read */
extern int *__cooptest_inputs_read __attribute__((weak));
extern int __cooptest_inputs_early __attribute__((weak));
static int32_t total;
static int state = UNSET;

static void stop_in_child(void) { state = OFF; }

static void init(void) {
  const char *fd_text = getenv("COOPTEST_TRACE_FD");
  state = OFF;
  if (!fd_text || !*fd_text)
    return;
  int fd = atoi(fd_text);
  unsetenv("COOPTEST_TRACE_FD");
  void *p = mmap(0, (HEADER + MAX_EVENTS + 1) * sizeof(int32_t), PROT_READ | PROT_WRITE,
                 MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED)
    return;
  region = p;
  if (&__cooptest_inputs_read && &__cooptest_inputs_early) {
    region[1] = __cooptest_inputs_early;
    __cooptest_inputs_read = (int *)&region[1];
  }
  pthread_atfork(0, 0, stop_in_child);
  state = ON;
}

__attribute__((constructor(0))) static void cooptest_trace_init(void) {
  if (state == UNSET)
    init();
}

static void record(int32_t event) {
  if (state != ON) {
    if (state != UNSET)
      return;
    init(); /* an event before our constructor: a constructor of the program ran first */
    if (state != ON)
      return;
  }
  if (total >= MAX_EVENTS) {
    event = TRUNCATED;
    state = STOPPED;
  }
  region[HEADER + total] = event;
  region[0] = ++total;
}

int __cooptest_br(int id, int cond) {
  record(2 * id + (cond != 0));
  return cond != 0;
}

void __cooptest_err(int id) { record(-(id + 1)); }

void __cooptest_log(int event) { record(event); }
