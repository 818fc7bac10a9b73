/* KLEE's klee.h (github.com/klee/klee, include/klee/klee.h), for harnesses written for
 * KLEE to run under cooptest unchanged: symbolic memory is made of Test-Comp nondet
 * values, one input per byte, and an assumption is __VERIFIER_assume. This folder is
 * a system include folder of every program cooptest builds: the code here is no goal. */
#ifndef COOPTEST_KLEE_H
#define COOPTEST_KLEE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

unsigned char __VERIFIER_nondet_uchar(void);
unsigned int __VERIFIER_nondet_uint(void);
int __VERIFIER_nondet_int(void);
void __VERIFIER_assume(int cond);
void __assert_fail(const char *assertion, const char *file, unsigned int line,
                   const char *function);

static inline void klee_make_symbolic(void *addr, size_t nbytes, const char *name) {
  size_t i;
  (void)name;
  for (i = 0; i < nbytes; i++)
    ((unsigned char *)addr)[i] = __VERIFIER_nondet_uchar();
}

static inline void klee_assume(uintptr_t condition) { __VERIFIER_assume(condition != 0); }

/* A value in [begin, end), as KLEE's klee_range. */
static inline int klee_range(int begin, int end, const char *name) {
  (void)name;
  if (end <= begin)
    abort();
  return begin + (int)(__VERIFIER_nondet_uint() % (unsigned int)(end - begin));
}

static inline int klee_int(const char *name) {
  (void)name;
  return __VERIFIER_nondet_int();
}

static inline void klee_silent_exit(int status) { exit(status); }
static inline void klee_abort(void) { abort(); }

#define klee_assert(expr) \
  ((expr) ? (void)0 : __assert_fail(#expr, __FILE__, __LINE__, __func__))

#endif
