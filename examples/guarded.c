// A clamped input: the error call is unreachable, and a verifier can prove it
// (cov_f counts only the goals not proven infeasible).
extern int __VERIFIER_nondet_int(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error(void) { __assert_fail("0", "guarded.c", 5, "reach_error"); }

int main(void) {
  int n = __VERIFIER_nondet_int();
  int x;
  if (n > 100) x = 100;
  else if (n < 0) x = 0;
  else x = n;
  if (x > 100) reach_error();       /* infeasible: 0 <= x <= 100 */
  if (x == 42) return 1;            /* feasible, but only for n == 42 */
  return 0;
}
