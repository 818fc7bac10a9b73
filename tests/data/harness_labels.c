/* TestCov's labelling rules in one program; goal counts in tests/harness/test_coverage.py. */
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
int sign(int a) { return a > 0 ? 1 : -1; }
void spin(int a) {
  while (1) { }
  if (a) a = 0;
}
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x == 99) {
    abort();
  }
  if (x == 42) spin(x);
  if (x > 5) x = 1; else if (x < -5) x = 2;
  do x--; while (x > 0);
  switch (x) { case 0: x = 3; break; case 1: default: x = 4; }
  for (;;) { break; }
  return sign(x);
}
