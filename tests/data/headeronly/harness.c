/* A harness of lib/ring.h (built with -I lib): pushes and pops as the inputs say. */
#include "ring.h"

extern int __VERIFIER_nondet_int(void);

int main(void) {
  struct ring r;
  int v = 0;
  ring_init(&r);
  for (int step = 0; step < 8; step++) {
    if (__VERIFIER_nondet_int() > 0)
      ring_push(&r, __VERIFIER_nondet_int());
    else
      ring_pop(&r, &v);
  }
  return ring_max(&r) > v;
}
