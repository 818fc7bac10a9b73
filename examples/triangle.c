// Classify a triangle from three side lengths: the textbook test-generation example.
extern int __VERIFIER_nondet_int(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error(void) { __assert_fail("0", "triangle.c", 4, "reach_error"); }

int classify(int a, int b, int c) {
  if (a <= 0 || b <= 0 || c <= 0) return 0;          /* not a triangle */
  if (a + b <= c || a + c <= b || b + c <= a) return 0;
  if (a == b && b == c) return 3;                     /* equilateral */
  if (a == b || b == c || a == c) return 2;           /* isosceles */
  return 1;                                           /* scalene */
}

int main(void) {
  int a = __VERIFIER_nondet_int();
  int b = __VERIFIER_nondet_int();
  int c = __VERIFIER_nondet_int();
  if (a > 1000 || b > 1000 || c > 1000) return 0;
  int kind = classify(a, b, c);
  if (kind == 3 && a == 7) reach_error();             /* a deep error call */
  return kind;
}
