/* cooptest containment, linked into every build of a program under test.
 *
 * A test must not outlive cooptest: if cooptest dies (even by SIGKILL, when it cannot
 * clean up), the kernel sends SIGKILL to the test (PR_SET_PDEATHSIG), and to every
 * process it forks, each of which dies with its own parent in turn. The pid of cooptest
 * is passed in $COOPTEST_PARENT; a test whose parent is already gone exits at once.
 * While cooptest lives, it kills the tests' process trees itself (see runner.py).
 *
 * Nothing a test does may escape its working directory, the private directory cooptest
 * runs it in: before main, the test (and whatever it starts) is put in a Landlock
 * domain (Linux 5.13+, unprivileged) in which files can be created, written, truncated,
 * renamed or removed only beneath that directory (and $COOPTEST_WRITABLE, where a
 * coverage build writes its gcov counts; /dev/null can be written), TCP can be
 * neither bound nor connected (ABI 4+), and no process outside the domain, cooptest
 * included, can be signalled or reached through an abstract unix socket (ABI 6+).
 * Reading is left alone: programs read their own inputs, the C library its locale.
 * The constants are the kernel's (include/uapi/linux/landlock.h), spelt out so that a
 * build does not depend on the age of the system's headers; the syscall numbers are
 * the same on every architecture. Without Landlock the test runs as before (runner.py
 * tells which: ``landlock_abi``).
 *
 * Landlock leaves UDP and unix sockets with a name in the file system (a daemon's
 * control socket) open, so a seccomp filter denies what creates any socket: socket(2),
 * i386's socketcall(2) (reachable from a 64-bit test through int 0x80, hence the
 * filter's test of the calling architecture, and x32's numbering) and io_uring, whose
 * rings create and connect sockets on their own. A test gets EACCES, as a program
 * does whose network is down; Test-Comp's programs open none. The filter is x86's
 * (the constants of include/uapi/linux/{filter,seccomp,audit}.h and the syscall
 * tables), on other architectures there is none.
 *
 * Nor may a test change the limits of another process: prlimit64(2) on cooptest's pid
 * (its parent's, of the same user) lowered cooptest's own RLIMIT_NOFILE to 5 or its
 * RLIMIT_CPU to 1, and the run ended at once with no test. The same filter lets
 * prlimit64 through only for pid 0 (the caller, what the C library's getrlimit and
 * setrlimit pass) or the test's own pid, and fails it with EPERM, as the kernel does
 * for a process one may not touch. setrlimit(2) changes only the caller's limits.
 *
 * A test of root's is not capped by RLIMIT_NPROC (the kernel exempts uid 0), so
 * cooptest then gives each executable's tests cgroups of the pids and memory
 * controllers (cgroups.py), whose cgroup.procs files $COOPTEST_CGROUPS lists,
 * separated by ':'. The test moves itself there first, before anything of its own can
 * fork, or does not run at all (exit 125).
 *
 * A test of root's would also hold every capability: it could reboot the machine, load
 * a kernel module, set the clock, raise its own hard limits. So it drops them all
 * before main, with the no_new_privs bit set first: an execve then gives a process no
 * capability its caller did not hold, root's or a file's (dropping the bounding set
 * too, one prctl a capability, took 75 us a run). It stays uid 0, the owner of its
 * directory.
 */
#define _GNU_SOURCE /* O_PATH */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "private_libc.h"

#define LANDLOCK_CREATE_RULESET 444
#define LANDLOCK_ADD_RULE 445
#define LANDLOCK_RESTRICT_SELF 446
#define LANDLOCK_CREATE_RULESET_VERSION 1u
#define LANDLOCK_RULE_PATH_BENEATH 1
#define FS_WRITE_FILE (1ull << 1)
#define FS_MAKE_AND_REMOVE (((1ull << 13) - 1) & ~0xfull) /* REMOVE_DIR .. MAKE_SYM */
#define FS_REFER (1ull << 13)    /* ABI 2 */
#define FS_TRUNCATE (1ull << 14) /* ABI 3 */
#define NET_BIND_AND_CONNECT_TCP 3ull /* ABI 4 */
#define SCOPE_ABSTRACT_UNIX_AND_SIGNAL 3ull /* ABI 6 */

struct ruleset_attr {
  uint64_t handled_access_fs, handled_access_net, scoped;
};
struct path_beneath_attr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

static int allow_beneath(int ruleset, const char *path, uint64_t access) {
  struct path_beneath_attr rule = {access, open(path, O_PATH | O_CLOEXEC)};
  if (rule.parent_fd < 0)
    return -1;
  int r = (int)syscall(LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
  close(rule.parent_fd);
  return r;
}

static void confine_to_working_directory(const char *writable) {
  long abi = syscall(LANDLOCK_CREATE_RULESET, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 1)
    return;
  uint64_t file = FS_WRITE_FILE | (abi >= 3 ? FS_TRUNCATE : 0);
  struct ruleset_attr attr = {file | FS_MAKE_AND_REMOVE | (abi >= 2 ? FS_REFER : 0),
                              abi >= 4 ? NET_BIND_AND_CONNECT_TCP : 0,
                              abi >= 6 ? SCOPE_ABSTRACT_UNIX_AND_SIGNAL : 0};
  int ruleset = (int)syscall(LANDLOCK_CREATE_RULESET, &attr, sizeof attr, 0);
  if (ruleset < 0)
    return;
  if (allow_beneath(ruleset, ".", attr.handled_access_fs) == 0 &&
      (!writable || allow_beneath(ruleset, writable, attr.handled_access_fs) == 0) &&
      allow_beneath(ruleset, "/dev/null", file) == 0 &&
      prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
    syscall(LANDLOCK_RESTRICT_SELF, ruleset, 0);
  close(ruleset);
}

struct sock_filter {
  uint16_t code;
  uint8_t jump_if_true, jump_if_false;
  uint32_t k;
};
struct sock_fprog {
  unsigned short len;
  const struct sock_filter *filter;
};

#define LOAD(offset) {0x20, 0, 0, offset} /* BPF_LD | BPF_W | BPF_ABS */
#define CLEAR(bits) {0x54, 0, 0, ~(uint32_t)(bits)} /* BPF_ALU | BPF_AND | BPF_K */
#define IF_EQUAL(value, skip_if_true, skip_if_false) {0x15, skip_if_true, skip_if_false, value}
#define RETURN(action) {0x06, 0, 0, action} /* BPF_RET | BPF_K */
#define SECCOMP_DATA_NR 0
#define SECCOMP_DATA_ARCH 4
#define AUDIT_ARCH_X86_64 0xc000003eu
#define AUDIT_ARCH_I386 0x40000003u
#define X32_SYSCALL_BIT 0x40000000u
#define SECCOMP_DATA_ARG0 16 /* the low half of the first argument: a pid is an int */
#define ALLOW 0x7fff0000u         /* SECCOMP_RET_ALLOW */
#define DENY (0x00050000u | 13u)  /* SECCOMP_RET_ERRNO | EACCES */
#define NOT_YOURS (0x00050000u | 1u)  /* SECCOMP_RET_ERRNO | EPERM */
#define PR_SET_SECCOMP 22
#define SECCOMP_MODE_FILTER 2

/* Jumps count the instructions skipped: the comment on each line is its index. */
static void deny_sockets_and_others_limits(void) {
  const struct sock_filter program[] = {
      LOAD(SECCOMP_DATA_ARCH),                /* 0 */
      IF_EQUAL(AUDIT_ARCH_X86_64, 0, 6),      /* 1: else 8 */
      LOAD(SECCOMP_DATA_NR),                  /* 2 */
      CLEAR(X32_SYSCALL_BIT),                 /* 3 */
      IF_EQUAL(41, 15, 0),                    /* 4: socket, 20 */
      IF_EQUAL(425, 14, 0),                   /* 5: io_uring_setup, 20 */
      IF_EQUAL(302, 8, 0),                    /* 6: prlimit64, 15 */
      RETURN(ALLOW),                          /* 7 */
      IF_EQUAL(AUDIT_ARCH_I386, 0, 5),        /* 8: else 14 */
      LOAD(SECCOMP_DATA_NR),                  /* 9 */
      IF_EQUAL(102, 9, 0),                    /* 10: socketcall, 20 */
      IF_EQUAL(359, 8, 0),                    /* 11: socket, 20 */
      IF_EQUAL(425, 7, 0),                    /* 12: io_uring_setup, 20 */
      IF_EQUAL(340, 1, 0),                    /* 13: prlimit64, 15 */
      RETURN(ALLOW),                          /* 14 */
      LOAD(SECCOMP_DATA_ARG0),                /* 15: prlimit64's pid */
      IF_EQUAL(0, 1, 0),                      /* 16: the caller, 18 */
      IF_EQUAL((uint32_t)getpid(), 0, 1),     /* 17: the test itself, 18; else 19 */
      RETURN(ALLOW),                          /* 18 */
      RETURN(NOT_YOURS),                      /* 19 */
      RETURN(DENY),                           /* 20 */
  };
  const struct sock_fprog filter = {sizeof program / sizeof program[0], program};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &filter);
}

/* A test that cannot be confined as promised does not run at all. */
static void refuse(const char *why) {
  (void)!write(2, why, strlen(why));
  _exit(125);
}

static void join_cgroups(const char *list) {
  char pid[24], path[4096];
  int length = cooptest_decimal_line(pid, (long)getpid());
  for (const char *p = list; *p;) {
    size_t n = strcspn(p, ":");
    int fd = -1;
    if (n < sizeof path) {
      memcpy(path, p, n);
      path[n] = 0;
      fd = open(path, O_WRONLY | O_CLOEXEC);
    }
    if (fd < 0 || write(fd, pid, (size_t)length) != length)
      refuse("cooptest: the test cannot join its cgroups\n");
    close(fd);
    p += n + (p[n] == ':');
  }
}

#define CAPABILITY_VERSION_3 0x20080522u

struct capability_header {
  uint32_t version;
  int pid;
};
struct capability_data {
  uint32_t effective, permitted, inheritable;
};

static void drop_capabilities(void) {
  struct capability_header header = {CAPABILITY_VERSION_3, 0};
  struct capability_data none[2] = {{0, 0, 0}, {0, 0, 0}};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(SYS_capset, &header, none) != 0)
    refuse("cooptest: the test cannot drop its capabilities\n");
}

static pid_t parent;

static void die_with_parent(pid_t expected) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != expected)
    _exit(137);
}

static void before_fork(void) { parent = getpid(); }

static void in_child(void) { die_with_parent(parent); }

__attribute__((constructor(0))) static void cooptest_contain(void) {
  const char *text = getenv("COOPTEST_PARENT");
  if (!text || !*text)
    return;
  unsetenv("COOPTEST_PARENT");
  die_with_parent((pid_t)atol(text));
  const char *cgroups = getenv("COOPTEST_CGROUPS");
  if (cgroups)
    join_cgroups(cgroups);
  unsetenv("COOPTEST_CGROUPS");
  if (geteuid() == 0)
    drop_capabilities();
  pthread_atfork(before_fork, 0, in_child);
  const char *writable = getenv("COOPTEST_WRITABLE");
  confine_to_working_directory(writable && *writable ? writable : NULL);
#if defined(__x86_64__) || defined(__i386__)
  deny_sockets_and_others_limits();
#endif
  unsetenv("COOPTEST_WRITABLE");
}
