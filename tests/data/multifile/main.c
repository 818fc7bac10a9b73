#include "shape.h"
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
static int helper(int v) { return v * 2; }
int main(void) {
  struct shape s = { __VERIFIER_nondet_int(), __VERIFIER_nondet_int(), __VERIFIER_nondet_int(), 0 };
  point p = { 0, 0 };
  p = move(p, __VERIFIER_nondet_int());
  if (p.y == 1) counter += 5;
  if (area(&s) == 100 && counter == 6) reach_error();
  return helper(counter) == 4;
}
void reach_error(void) {}
