/* Four TestCov branch goals: then, (absent) else, loop body, after the loop.
   The input 5 covers three of them (not the else). */
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 0) {
    x = 1;
  }
  while (x < 3) {
    x++;
  }
  return 0;
}
