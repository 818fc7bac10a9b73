/* A harness written for KLEE, unchanged. */
#include <klee/klee.h>
int main(void) {
  int x; unsigned char c; int r;
  klee_make_symbolic(&x, sizeof x, "x");
  klee_make_symbolic(&c, sizeof c, "c");
  klee_assume(x != 7);
  r = klee_range(0, 10, "r");
  if (x > 1000) { if (c == 'q') return 3; return 2; }
  if (r == 9) return 4;
  return 0;
}
