"""Small C programs of the report tests."""

PAGE_C = """\
extern int __VERIFIER_nondet_int(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error(void) { __assert_fail("0", "page.c", 3, "reach_error"); }
/* a comment <with markup>
   over two lines */
int clamp(int n) {
  if (n > 100) return 100;
  if (n < 0) return 0;
  return n;
}

int main(void) {
  int x = clamp(__VERIFIER_nondet_int());
  int key = __VERIFIER_nondet_int(), needle = 987654321;
  if (x > 100) reach_error();          /* infeasible */
  if (key == needle) return 2;         /* random testing misses it (no constant to draw) */
  return x == 7;
}
"""
