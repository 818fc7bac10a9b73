/* cooptest containment, linked into every build of a program under test.
 *
 * A test must not outlive cooptest: if cooptest dies (even by SIGKILL, when it cannot
 * clean up), the kernel sends SIGKILL to the test (PR_SET_PDEATHSIG), and to every
 * process it forks, each of which dies with its own parent in turn. The pid of cooptest
 * is passed in $COOPTEST_PARENT; a test whose parent is already gone exits at once.
 * While cooptest lives, it kills the tests' process trees itself (see runner.py).
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

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
  pthread_atfork(before_fork, 0, in_child);
}
