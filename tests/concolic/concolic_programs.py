"""C programs the concolic tests run."""

NESTED = r"""
extern int __VERIFIER_nondet_int(void);
extern char __VERIFIER_nondet_char(void);
void reach_error(void) {}
int classify(int a, int b) {
  if (a > 100) {
    if (b < -7) {
      if (a + b == 1000) return 3;
      return 2;
    }
    if (a * 3 == b + 301) return 4;
    return 1;
  }
  if (a == b && b != 0) return 5;
  return 0;
}
int main(void) {
  int a = __VERIFIER_nondet_int();
  int b = __VERIFIER_nondet_int();
  char c = __VERIFIER_nondet_char();
  int r = classify(a, b);
  if (r == 3 && c == 'z') reach_error();
  if (c > 'a' || r == 4) return 1;
  return 0;
}
"""

# native behaviour the symbolic model cannot follow: an unmodelled library call
DIVERGING = r"""
extern int __VERIFIER_nondet_int(void);
extern int rand(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int r = rand();
  if (r > 5) {
    if (x == 42) return 1;
  }
  return 0;
}
"""

# an infeasible branch and a tree that can be exhausted exactly
EXACT = r"""
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 5) {
    if (x < 3) return 2;
    return 1;
  }
  return 0;
}
"""

FLOATS = r"""
extern float __VERIFIER_nondet_float(void);
extern double __VERIFIER_nondet_double(void);
extern unsigned int __VERIFIER_nondet_uint(void);
extern _Bool __VERIFIER_nondet_bool(void);
int main(void) {
  float f = __VERIFIER_nondet_float();
  double d = __VERIFIER_nondet_double();
  unsigned int u = __VERIFIER_nondet_uint();
  _Bool b = __VERIFIER_nondet_bool();
  if (f == 0.1f) return 1;
  if (d + 0.1 == 0.3) return 2;
  if (u > 4000000000u) return 3;
  if (b) return 4;
  return 0;
}
"""

# the goal needs the 40th input: runs starve and get padded inputs
MANY_INPUTS = r"""
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int i, last = 0;
  for (i = 0; i < 40; i++) last = __VERIFIER_nondet_int();
  if (last == 1234) return 1;
  return 0;
}
"""

# each pair read must satisfy an assumption, zeros abort: the code after the loop needs
# 2,000 inputs that all pass it (array-cav19's array_init_pair_symmetr2, smaller)
ASSUMED_PAIRS = r"""
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void assume_abort_if_not(int cond) { if (!cond) abort(); }
int main(void) {
  int i, sum = 0;
  for (i = 0; i < 1000; i++) {
    int x = __VERIFIER_nondet_int();
    int y = __VERIFIER_nondet_int();
    assume_abort_if_not(x > y);
    sum += x - y;
  }
  if (sum > 0) return 1;
  return 0;
}
"""

# a protocol's event loop: it reads inputs for ever, every run starves however long
ENDLESS = r"""
extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}
int main(void) {
  int state = 0;
  while (1) {
    int c = __VERIFIER_nondet_int();
    if (state == 0) {
      if (c == 7) state = 1;
    } else if (state == 1) {
      if (c == 8) state = 2; else state = 0;
    } else if (c == 9) {
      reach_error();
    }
  }
}
"""

# memory: arrays, structs and a pointer chosen by an input (CUTE-style concretisation)
MEMORY = r"""
extern int __VERIFIER_nondet_int(void);
struct point { int x, y; };
int main(void) {
  int a[4] = {0, 0, 0, 0};
  struct point p;
  int i = __VERIFIER_nondet_int();
  int v = __VERIFIER_nondet_int();
  if (i < 0 || i > 3) return 0;
  a[i] = v;
  p.x = a[2];
  p.y = a[1];
  int *q = i == 1 ? &p.y : &p.x;
  if (*q == 77) return 1;
  if (p.x + p.y == 5) return 2;
  return 3;
}
"""

# A SAT instance without a model, written as Test-Comp's xcsp tasks write them: every
# clause an assume(), whose failing side runs straight into abort().
UNSAT_CLAUSES = r"""
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int);
extern void abort(void);
void reach_error(void) { abort(); }  /* as sv-benchmarks define it: a returning one blocks proofs */
void assume(int cond) { if (!cond) abort(); }
int main(void) {
  int a = __VERIFIER_nondet_int(); assume(a >= 0); assume(a <= 1);
  int b = __VERIFIER_nondet_int(); assume(b >= 0); assume(b <= 1);
  int c = __VERIFIER_nondet_int(); __VERIFIER_assume(c >= 0 & c <= 1);
  assume(!(a == 0 & b == 0)); assume(!(a == 1 & c == 1));
  assume(!(b == 1 & c == 0)); assume(!(a == 1 & b == 1 & c == 0));
  assume(!(a == 0 & c == 0));
  if (a + b + c == 3) reach_error();
  return 0;
}
"""

# The inputs a == 65521, b == 65519 (or the other way round) are a factoring problem:
# tens of milliseconds for z3.
FACTORS = r"""
extern unsigned __VERIFIER_nondet_uint(void);
int main(void) {
  unsigned a = __VERIFIER_nondet_uint(), b = __VERIFIER_nondet_uint();
  if (a > 1 && b > 1 && a < 65536 && b < 65536 && a * b == 65521u * 65519u) return 1;
  return 0;
}
"""
