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
 *
 * A run that dies of a fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) says where: a
 * handler on an alternate stack (a stack overflow still runs it) writes the signal, the
 * faulting instruction's address and the return addresses it finds on the stack above
 * it (the program's call of abort(), or of a library function that faulted, is one of
 * them) into the header, each as an offset from __executable_start (the load address of
 * a PIE), and then dies of the same signal: the default action restored, the signal
 * unblocked and sent again, so the run's exit status is the one it had. The stack is
 * read through process_vm_readv(2), which fails instead of faulting where no memory
 * is. cooptest maps the addresses to the program's file:line (the build has DWARF line
 * tables, the instrumented source #line directives, see harness.crash). Like the rest
 * of the runtime it calls the kernel through syscall(2) only: no sigaction() or raise()
 * of a program's own. A program that installs its own handler replaces this one.
 */
#define _GNU_SOURCE /* REG_RIP */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <fcntl.h>

#include "private_libc.h"

#define MAX_EVENTS 4000000L
#define TRUNCATED INT32_MIN
/* int32 words before the events: their count, the inputs read, the fault's signal (0:
   none), how many addresses follow, and the addresses (two words each, low first) */
#define ADDRESSES 16
#define HEADER (4 + 2 * ADDRESSES)
#define STACK_SCANNED 65536 /* bytes above the faulting frame's stack pointer */

enum { UNSET, OFF, ON, STOPPED };

static volatile int32_t *region;
/* the nondet harness's count of inputs read */
extern int *__cooptest_inputs_read __attribute__((weak));
extern int __cooptest_inputs_early __attribute__((weak));
static int32_t total;
static int state = UNSET;

static void stop_in_child(void) { state = OFF; }

/* The kernel's struct sigaction of rt_sigaction(2), the same fields on x86-64 and i386. */
struct kernel_sigaction {
  void (*handler)(int, siginfo_t *, void *);
  unsigned long flags;
  void (*restorer)(void);
  uint64_t mask;
};
#define KERNEL_SA_RESTORER 0x04000000ul
#define SIGSET_BYTES 8

/* What the kernel returns to when a handler returns (rt_sigreturn), as the C library's
   __restore_rt: x86-64 has no default one. The handler below never returns; a
   kernel that finds none there kills the process at the signal's delivery. */
#if defined(__x86_64__)
__asm__(".text\n.align 16\ncooptest_restore_rt:\n\tmovq $15, %rax\n\tsyscall\n");
#define HAS_RESTORER 1
#elif defined(__i386__)
__asm__(".text\n.align 16\ncooptest_restore_rt:\n\tmovl $173, %eax\n\tint $0x80\n");
#define HAS_RESTORER 1
#endif
#ifdef HAS_RESTORER
void cooptest_restore_rt(void) __asm__("cooptest_restore_rt") __attribute__((visibility("hidden")));
#endif

/* The linker's: where the executable's image starts, where its code ends (weak: a link
   that defines neither still links, and catches no fault). */
extern const char __executable_start[] __attribute__((weak, visibility("hidden")));
extern const char __etext[] __attribute__((weak, visibility("hidden")));

static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
static char alternate_stack[1 << 16] __attribute__((aligned(16)));

static void put_address(int i, uintptr_t address) {
  uint64_t offset = (uint64_t)(address - (uintptr_t)__executable_start);
  region[4 + 2 * i] = (int32_t)(uint32_t)offset;
  region[5 + 2 * i] = (int32_t)(uint32_t)(offset >> 32);
}

/* Words on the stack from sp up that point into the executable's code: return
   addresses among them (cooptest keeps those that follow a call). */
static int scan_stack(uintptr_t sp, int n) {
  uintptr_t chunk[64];
  uintptr_t start = (uintptr_t)__executable_start, end = (uintptr_t)__etext;
  pid_t self = (pid_t)syscall(SYS_getpid);
  sp &= ~(uintptr_t)(sizeof(uintptr_t) - 1);
  for (uintptr_t at = sp; at - sp < STACK_SCANNED && n < ADDRESSES; at += sizeof chunk) {
    struct iovec mine = {chunk, sizeof chunk}, theirs = {(void *)at, sizeof chunk};
    long got = syscall(SYS_process_vm_readv, self, &mine, 1ul, &theirs, 1ul, 0ul);
    if (got <= 0)
      break;
    for (long k = 0; k < got / (long)sizeof(uintptr_t) && n < ADDRESSES; k++)
      if (chunk[k] > start && chunk[k] < end)
        put_address(n++, chunk[k]);
    if (got < (long)sizeof chunk)
      break;
  }
  return n;
}

static void die_of(int sig) {
  struct kernel_sigaction fallback = {0};
  fallback.handler = (void (*)(int, siginfo_t *, void *))SIG_DFL;
  syscall(SYS_rt_sigaction, sig, &fallback, 0, SIGSET_BYTES);
  uint64_t unblock = 1ull << (sig - 1);
  syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &unblock, 0, SIGSET_BYTES);
  syscall(SYS_tgkill, (pid_t)syscall(SYS_getpid), (pid_t)syscall(SYS_gettid), sig);
  syscall(SYS_exit_group, 128 + sig); /* not reached: the signal's default action ends the run */
}

static void on_fault(int sig, siginfo_t *info, void *context) {
  (void)info;
  if (state != OFF && state != UNSET && region[2] == 0) { /* the run's own process, first fault */
#if defined(__x86_64__)
    uintptr_t pc = (uintptr_t)((ucontext_t *)context)->uc_mcontext.gregs[REG_RIP];
    uintptr_t sp = (uintptr_t)((ucontext_t *)context)->uc_mcontext.gregs[REG_RSP];
#elif defined(__i386__)
    uintptr_t pc = (uintptr_t)((ucontext_t *)context)->uc_mcontext.gregs[REG_EIP];
    uintptr_t sp = (uintptr_t)((ucontext_t *)context)->uc_mcontext.gregs[REG_ESP];
#else
    uintptr_t pc = 0, sp = 0;
#endif
    put_address(0, pc);
    int n = sp ? scan_stack(sp, 1) : 1;
    region[3] = n;
    region[2] = sig;
  }
  die_of(sig);
}

static void catch_faults(void) {
#ifdef HAS_RESTORER
  if (!__executable_start || !__etext)
    return;
  stack_t alternate = {alternate_stack, 0, sizeof alternate_stack};
  if (syscall(SYS_sigaltstack, &alternate, 0) != 0)
    return;
  struct kernel_sigaction action = {0};
  action.handler = on_fault;
  action.flags = SA_SIGINFO | SA_ONSTACK | KERNEL_SA_RESTORER;
  action.restorer = cooptest_restore_rt;
  for (unsigned i = 0; i < sizeof fault_signals / sizeof fault_signals[0]; i++)
    syscall(SYS_rt_sigaction, fault_signals[i], &action, 0, SIGSET_BYTES);
#endif
}

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
  catch_faults();
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
