"""Small programs whose native runs reach branches a CFA can get wrong (callbacks from
the C library, constructors, attributes, non-local jumps, ...). Each comes with seed
inputs that together cover the goals in question natively."""
from __future__ import annotations

HEAD = """extern int __VERIFIER_nondet_int(void);
#include <stdlib.h>
"""

PROGRAMS: dict[str, tuple[str, list[list[str]]]] = {
    "atexit": (HEAD + """int g, sink;
void h(void) { if (g == 5) { sink = 1; } else { sink = 2; } }
int main() { g = __VERIFIER_nondet_int(); atexit(h); if (g > 100) { sink = 3; } return 0; }
""", [["5"], ["3"], ["101"]]),
    "signal": (HEAD + """#include <signal.h>
int g, seen;
void on(int s) { seen = 1; }
int main() { g = __VERIFIER_nondet_int(); signal(SIGUSR1, on); if (g == 5) raise(SIGUSR1);
  if (seen) { return 1; } return 0; }
""", [["5"], ["3"]]),
    "sigaction": (HEAD + """#include <signal.h>
#include <string.h>
int g, seen;
void on(int s) { seen = g; }
int main() { struct sigaction sa; memset(&sa, 0, sizeof sa); sa.sa_handler = on;
  sigaction(SIGUSR1, &sa, 0); g = __VERIFIER_nondet_int(); raise(SIGUSR1);
  if (seen == 7) { return 1; } return 0; }
""", [["7"], ["3"]]),
    "qsort": (HEAD + """int calls;
int cmp(const void *a, const void *b) { calls++; return *(const int *)a - *(const int *)b; }
int main() { int a[3]; a[0] = __VERIFIER_nondet_int(); a[1] = 2; a[2] = 1;
  qsort(a, 3, sizeof a[0], cmp); if (calls > 0) { if (a[0] == -4) return 1; } return 0; }
""", [["-4"], ["3"]]),
    "constructor": (HEAD + """int g;
__attribute__((constructor)) static void init(void) { g = 7; }
int main() { int x = __VERIFIER_nondet_int(); if (g == 7) { if (x) return 1; } return 0; }
""", [["1"], ["0"]]),
    "constructor-order": (HEAD + """int g;
void __attribute__((constructor(200))) second(void) { g = g * 10 + 2; }
void first(void) __attribute__((constructor(150)));
void first(void) { g = g * 10 + 1; }
int main() { int x = __VERIFIER_nondet_int(); if (g == 12) { if (x) return 1; } return 0; }
""", [["1"], ["0"]]),
    "destructor": (HEAD + """int g;
__attribute__((destructor)) void fini(void) { if (g == 3) { g = 4; } }
int main() { g = __VERIFIER_nondet_int(); return 0; }
""", [["3"], ["0"]]),
    "packed": (HEAD + """struct __attribute__((packed)) S { char c; int x; };
typedef struct { char c; long y; } __attribute__((__packed__)) T;
int main() { int x = __VERIFIER_nondet_int();
  if (sizeof(struct S) == 5 && sizeof(T) == 1 + sizeof(long)) { if (x) return 1; } return 0; }
""", [["1"], ["0"]]),
    "mode": (HEAD + """typedef int i8 __attribute__((mode(QI)));
typedef unsigned int u16 __attribute__((__mode__(__HI__)));
int main() { i8 a = (i8)__VERIFIER_nondet_int(); u16 b = 65535; b++;
  if (sizeof(a) == 1 && b == 0) { if (a == -1) return 1; } return 0; }
""", [["255"], ["0"]]),
    "setjmp": (HEAD + """#include <setjmp.h>
jmp_buf env; int g;
int main() { int x = __VERIFIER_nondet_int(); g = 0;
  if (setjmp(env)) { if (g == 1) { return 2; } return 1; }
  g = 1; if (x == 5) longjmp(env, 1); return 0; }
""", [["5"], ["0"]]),
    "error-returns": (HEAD + """void reach_error(void) { }
int main() { int x = __VERIFIER_nondet_int(); if (x == 5) { reach_error(); if (x > 4) { return 3; } }
  return 0; }
""", [["5"], ["3"]]),
    "pointer-escape": (HEAD + """int g;
void set(void) { g = 9; }
void (*volatile hook)(void);
int main() { int x = __VERIFIER_nondet_int(); hook = set; if (x == 2) hook();
  if (g == 9) { return 1; } return 0; }
""", [["2"], ["0"]]),
    "library-writes": (HEAD + """#include <stdio.h>
int g = 5;
char h[16] = "abc";
int main() { int x = __VERIFIER_nondet_int(); struct { char c[8]; int n; } s = {"", 3};
  sprintf(h, "%d", x); snprintf(s.c, sizeof s.c, "%d", x);
  if (h[0] == '1') { return 1; }
  if (s.c[0] == '2') { return 3; }
  if (g == 5) { return 2; }
  return 0; }
""", [["1"], ["2"], ["3"]]),
    "pointer-table": (HEAD + """int f(int x) { if (x > 10) { return 1; } return 2; }
int g(int x) { if (x < -10) { return 3; } return 4; }
int (*table[2])(int) = {f, g};
struct ops { int (*op)(int); } ops = {g};
int main() { int x = __VERIFIER_nondet_int(); int r = table[x & 1](x);
  if (x == 7) { r = ops.op(x); } return r; }
""", [["12"], ["2"], ["-11"], ["-12"], ["7"]]),
    "forged-call": (HEAD + """int seen;
void target(void) { if (seen == 0) { seen = 1; } }
int main() { int x = __VERIFIER_nondet_int(); unsigned long a = (unsigned long) &target;
  void (*fp)(void) = (void (*)(void)) (a + (unsigned long) (x != 0) * 0);
  if (x == 3) { fp(); } return seen; }
""", [["3"], ["0"]]),
    # Burstall's model of heap fields (analyses/field_invariants.py) and every way out of it:
    "heap-cast-alias": (HEAD + """struct S { int state; int other; };
int main() { struct S *s = malloc(sizeof *s); s->state = 1; int *q = (int *) s;
  *q = __VERIFIER_nondet_int(); if (s->state == 7) { return 1; } return 0; }
""", [["7"], ["1"]]),
    "heap-member-address": (HEAD + """struct S { int other; int state; };
int main() { struct S *s = malloc(sizeof *s); s->state = 1; int *q = &s->state;
  *q = __VERIFIER_nondet_int(); if (s->state == 5) { return 1; } return 0; }
""", [["5"], ["1"]]),
    "heap-forged-store": (HEAD + """struct S { int state; };
int main() { struct S *s = malloc(sizeof *s); s->state = 1;
  unsigned long a = (unsigned long) s; int *q = (int *) a; *q = __VERIFIER_nondet_int();
  if (s->state == 5) { return 1; } return 0; }
""", [["5"], ["1"]]),
    "heap-memset": (HEAD + """#include <string.h>
struct S { int state; };
int main() { struct S *s = malloc(sizeof *s); s->state = 1;
  memset(s, __VERIFIER_nondet_int(), sizeof *s); if (s->state == 0x05050505) { return 1; }
  return 0; }
""", [["5"], ["1"]]),
    "heap-overflow": (HEAD + """struct S { int a[2]; int state; };
int main() { struct S *s = malloc(sizeof *s); s->state = 1; int i = __VERIFIER_nondet_int();
  if (i >= 0 && i <= 2) { s->a[i] = 9; } if (s->state == 9) { return 1; } return 0; }
""", [["2"], ["0"]]),
    "heap-read-before-store": (HEAD + """struct S { int state; };
int main() { struct S *s = malloc(sizeof *s); if (s->state == 0) { s->state = 2; }
  if (__VERIFIER_nondet_int()) { s->state = 3; } if (s->state == 2) { return 1; } return 0; }
""", [["0"], ["1"]]),
    "heap-union": (HEAD + """struct S { int state; };
union U { struct S s; int i; };
int main() { union U *u = malloc(sizeof *u); u->s.state = 1; u->i = __VERIFIER_nondet_int();
  struct S *p = &u->s; if (p->state == 5) { return 1; } return 0; }
""", [["5"], ["1"]]),
    "heap-on-stack": (HEAD + """struct S { int state; };
int main() { struct S local; struct S *p = &local; p->state = 1;
  local.state = __VERIFIER_nondet_int(); if (p->state == 5) { return 1; } return 0; }
""", [["5"], ["1"]]),
    "heap-parameter": (HEAD + """struct S { int state; };
void set(struct S *s, int v) { s->state = v; }
int main() { struct S *s = malloc(sizeof *s); set(s, 1); set(s, __VERIFIER_nondet_int());
  if (s->state == 5) { return 1; } return 0; }
""", [["5"], ["1"]]),
    # heap cells of the value analysis (one object per struct: HeapCells), null pointers
    # and branch facts, and the ways out of them:
    "heap-two-types": (HEAD + """struct A { int x; }; struct B { int y; };
int main() { void *t = malloc(8); struct A *a = (struct A *) t; struct B *b = (struct B *) t;
  a->x = 1; b->y = 5; int n = __VERIFIER_nondet_int();
  if (a->x != 5) { return 3; } if (n == 7) { return 1; } if (n == 8) { return 2; } return 0; }
""", [["7"], ["8"], ["0"]]),
    "heap-two-objects": (HEAD + """struct S { int x; };
int main() { struct S *p = malloc(sizeof *p); struct S *q = malloc(sizeof *q);
  p->x = 5; q->x = 1; int n = __VERIFIER_nondet_int();
  if (p->x != 5) { return 3; } if (n == 7) { return 1; } if (n == 8) { return 2; } return 0; }
""", [["7"], ["8"], ["0"]]),
    "heap-loop-allocation": (HEAD + """struct S { int x; };
int main() { struct S *first = 0; int n = __VERIFIER_nondet_int();
  for (int i = 0; i < 2; i++) { struct S *t = malloc(sizeof *t); t->x = i + 5;
    if (i == 0) { first = t; } }
  if (first->x != 5) { return 3; } if (n == 7) { return 1; } if (n == 8) { return 2; } return 0; }
""", [["7"], ["8"], ["0"]]),
    "heap-null-cell": (HEAD + """struct C { int k; }; struct S { struct C *c; };
int main() { struct S *s = malloc(sizeof *s); if (__VERIFIER_nondet_int()) { s->c = 0; }
  else { s->c = malloc(sizeof *s->c); } if ((unsigned long) s->c != (unsigned long) (void *) 0)
  { return 1; } return 0; }
""", [["0"], ["1"]]),
    "fact-rewritten-cell": (HEAD + """struct S { int x; };
void clear(struct S *p) { p->x = __VERIFIER_nondet_int(); }
int main() { struct S *s = malloc(sizeof *s); struct S *t = s; s->x = __VERIFIER_nondet_int();
  if (s->x & 256) { clear(t); if (!(s->x & 256)) { return 1; } } return 0; }
""", [["256", "0"], ["256", "256"], ["0"]]),
    "fact-rewritten-global": (HEAD + """int g;
int main() { g = __VERIFIER_nondet_int(); if (g & 4) { g = __VERIFIER_nondet_int();
  if (!(g & 4)) { return 1; } } return 0; }
""", [["4", "0"], ["4", "4"], ["0"]]),
    # facts over locals hold in their own frame until the local is written: a recursive
    # call's ``x`` is another object, a loop's ``y`` a new value each iteration
    "fact-local-recursion": (HEAD + """int f(int x, int d) {
  if (x > 0) { if (!(x > 0)) { return 9; }
    if (d == 0) { int r = f(__VERIFIER_nondet_int(), 1); if (r == 5) { return 4; } return 3; }
    return 2; }
  if (d == 1) { return 5; } return 0; }
int main() { return f(__VERIFIER_nondet_int(), 0); }
""", [["1", "-1"], ["-1"], ["1", "1"]]),
    "fact-local-loop": (HEAD + """int main() { int n = 0, k = 0;
  for (int i = 0; i < 2; i++) { int y = __VERIFIER_nondet_int();
    if (y > 0) { if (y <= 0) { return 7; } n++; } else { k++; } }
  if (n == 1) { if (k == 1) { return 1; } } return 0; }
""", [["1", "0"], ["1", "1"], ["0", "0"]]),
    # concolic search closes a decision whose other side runs straight into abort()
    # without running it (StaticInfo.dead_end): a call on the way is no straight run
    "abort-after-call": (HEAD + """int g;
void note(int v) { if (v == 7) { g = 1; } else { g = 2; } }
void check(int c, int v) { if (!c) { note(v); abort(); } }
int main() { int x = __VERIFIER_nondet_int(), y = __VERIFIER_nondet_int(), z = __VERIFIER_nondet_int();
  check(x == 4242, 0); check(y != 12345, z); return 0; }
""", [["4242", "12345", "7"], ["4242", "12345", "1"], ["4242", "0", "0"], ["0"]]),
    "offsetof-null": (HEAD + """struct S { int first; int second; };
int main() { int n = __VERIFIER_nondet_int(); void *q = &((struct S *) 0)->first;
  if (q != 0) { return 3; } if (n == 7) { return 1; } if (n == 8) { return 2; } return 0; }
""", [["7"], ["8"], ["0"]]),
    # Invariant templates (analyses/reachability/templates.py): candidates that look
    # invariant from the loop's own edges, but a callee, a wrap or a zero step breaks them.
    "template-parity-callee": (HEAD + """int g;
void bump(int c) { if (c == 3) { g = g + 1; } }
int main() { int n = 0; g = 1;
  while (n < 4) { int d = __VERIFIER_nondet_int(); g = g + 2 * d; bump(d); n++; }
  if ((g & 1) == 0) { return 1; } return 0; }
""", [["3", "0", "0", "0"], ["0", "0", "0", "0"]]),
    "template-balance-global": (HEAD + """unsigned n;
void grow(int c) { if (c == 7) { n = n + 1; } }
int main() { unsigned x = (unsigned) __VERIFIER_nondet_int() % 4, y = 0; n = x;
  while (x > 0) { x--; y++; grow(__VERIFIER_nondet_int()); }
  if (y != n) { return 1; } return 0; }
""", [["1", "7"], ["1", "0"]]),
    "template-balance-wrap": (HEAD + """int main() { unsigned char x = __VERIFIER_nondet_int(), y = 250, n = x;
  while (x > 0) { x--; y++; }
  if (y < 250) { return 1; } if (n == 3) { return 2; } return 0; }
""", [["10"], ["3"], ["1"]]),
    "template-order-stalls": (HEAD + """int main() { int i = 0, k = 0;
  while (i < 10) { int j = __VERIFIER_nondet_int(); if (j < 0 || j > 5) { return 0; }
    if (k > 20) { return 0; } i = i + j; k++; }
  if (k > i) { return 1; } return 0; }
""", [["0"] * 10 + ["5", "5"], ["5", "5"], ["9"], ["0"] * 22]),
    "template-target-in-body": (HEAD + """int main() { int i = 0, s = 0;
  while (i < 5) { int d = __VERIFIER_nondet_int(); if (i == 2) { if (d == 9) { s = 1; } } i++; }
  return s; }
""", [["0", "0", "9", "0", "0"], ["0"] * 5]),
    "template-affine-callee": (HEAD + """int g;
void bump(int c) { if (c == 4) { g = g + 1; } }
int main() { int i = 0; g = 0;
  while (i < 3) { bump(__VERIFIER_nondet_int()); g = g + 2; i++; }
  if (g != 2 * i) { return 1; } return 0; }
""", [["4", "0", "0"], ["0", "0", "0"]]),
    "template-affine-wrap": (HEAD + """int main() { int i = 0, n = __VERIFIER_nondet_int(); unsigned char a = 0, b = 0;
  while (i < n && i < 200) { a = a + 1; b = b + 2; i++; }
  if (a + b != 3 * i) { return 1; } return 0; }
""", [["130"], ["3"]]),
    "template-affine-call-before": (HEAD + """int a, b;
void reset(int c) { if (c == 4) { a = 7; } }
int main() { int i = 0; a = 0; b = 0; reset(__VERIFIER_nondet_int());
  while (i < 3) { a = a + 1; b = b + 2; i++; }
  if (a + b != 3 * i) { return 1; } return 0; }
""", [["4"], ["0"]]),
    "template-affine-entry-moves": (HEAD + """int main() { int n = __VERIFIER_nondet_int() % 8, i = 0, k; k = n; n++;
  while (i < 6) { k--; i = i + 2; }
  if (i + 2 * k != 2 * n) { return 1; } if (n == 3) { return 2; } return 0; }
""", [["0"], ["2"]]),
    # Horn clauses (analyses/chc.py): what a summary or an invariant over registers gets
    # wrong if an operation's C meaning or a value's origin is mis-modelled.
    "chc-recursion-wrap": (HEAD + """unsigned add(unsigned n, unsigned m) { if (n == 0) { return m; } return add(n - 1, m + 1); }
int main() { unsigned a = __VERIFIER_nondet_int() % 8, b = __VERIFIER_nondet_int();
  if (add(a, b) < b) { return 1; } return 0; }
""", [["3", "4294967295"], ["3", "5"]]),
    "chc-shift": (HEAD + """int main() { int n = __VERIFIER_nondet_int();
  if (n >= 0 && n < 40 && n != 0) { if ((1 << n) == 1) { return 1; } } return 0; }
""", [["32"], ["3"]]),
    "chc-char-input": (HEAD + """extern char __VERIFIER_nondet_char(void);
int main() { int c = __VERIFIER_nondet_char(); if (c < 0) { return 1; } if (c > 100) { return 2; } return 0; }
""", [["-3"], ["120"], ["5"]]),
    "chc-global-callee": (HEAD + """int g;
void set(int v) { g = v; }
int count(void) { static int c; c = c + 1; return c; }
int main() { g = 0; set(__VERIFIER_nondet_int()); count();
  if (g == 5) { if (count() == 2) { return 1; } } return 0; }
""", [["5"], ["1"]]),
    "chc-overflow": (HEAD + """int twice(int x) { return x + x; }
int main() { int x = __VERIFIER_nondet_int(); if (x > 0 && twice(x) < 0) { return 1; } return 0; }
""", [["2000000000"], ["3"]]),
    "chc-library-result": (HEAD + """int main() { int x = __VERIFIER_nondet_int(); if (abs(x) < 0) { return 1; } return 0; }
""", [["-2147483648"], ["3"]]),
    "chc-context": (HEAD + """int f(int n) { if (n > 10) { return 1; } if (n < 0) { return 2; } return f(n + 1); }
int main() { int x = __VERIFIER_nondet_int(); if (x < -5) { x = -5; } return f(x); }
""", [["-100"], ["3"]]),
    # Library calls given memory and pointers: what they write only a library call reads
    # back, whose result the clauses take as unknown.
    "chc-library-memory": (HEAD + """#include <stdio.h>
int main() { int x = __VERIFIER_nondet_int(); char *buf = malloc(16);
  if (buf == 0) { return 3; }
  sprintf(buf, "%d", x); int n = atoi(buf); printf("%c %d", *buf, n);
  if (n == 5) { return 1; } if (x != 5 && n != x) { return 2; } return 0; }
""", [["5"], ["4"]]),
    # Memory in the Horn clauses: every read of it is unknown, a store changes no
    # register. Each program below reaches with its seeds a goal that depends only on
    # what memory holds or on a register that took its value from memory.
    "chc-memory-copy": (HEAD + """int main() { int a[2]; a[0] = 0; a[1] = __VERIFIER_nondet_int();
  int x = a[1]; if (x == 7) { return 1; } if (a[0] == a[1]) { return 2; } return 0; }
""", [["7"], ["0"], ["3"]]),
    "chc-memory-callee-store": (HEAD + """int g[1];
void set(int *p, int v) { *p = v; g[0] = v + 1; }
int main() { int s[1]; s[0] = 0; set(s, __VERIFIER_nondet_int());
  int x = s[0]; if (x == 3) { if (g[0] == 4) { return 1; } } return 0; }
""", [["3"], ["1"]]),
    "chc-memory-address-taken": (HEAD + """int main() { int x = 0, *p = &x; *p = __VERIFIER_nondet_int();
  if (x == 9) { return 1; } return 0; }
""", [["9"], ["1"]]),
    "chc-memory-struct-result": (HEAD + """struct P { int x; int y; };
struct P make(int v) { struct P p; p.x = v; p.y = 0; return p; }
int main() { struct P p = make(__VERIFIER_nondet_int()); int k = p.x;
  if (k == 4) { return 1; } return 0; }
""", [["4"], ["1"]]),
    "chc-memory-float": (HEAD + """extern double __VERIFIER_nondet_double(void);
int main() { double d = __VERIFIER_nondet_double(); int x = (int)(d * 2);
  if (d > 1.5) { if (x == 5) { return 1; } } return 0; }
""", [["2.5"], ["1.0"]]),
    "chc-memory-pointer-order": (HEAD + """int main() { int a[4]; int *p = a + (__VERIFIER_nondet_int() & 3);
  if (p > a + 2) { return 1; } return 0; }
""", [["3"], ["0"]]),
    "chc-memory-heap": (HEAD + """struct N { struct N *next; int v; };
int main() { struct N *n = malloc(sizeof(struct N)); if (n == 0) { return 3; }
  n->next = 0; n->v = __VERIFIER_nondet_int(); struct N *m = n;
  if (__VERIFIER_nondet_int()) { m = malloc(sizeof(struct N)); if (m == 0) { return 3; } m->next = n; m->v = 1; }
  int k = m->v; if (m->next != 0) { if (k == 1) { return 1; } } else if (k == 2) { return 2; } return 0; }
""", [["2", "0"], ["5", "1"]]),
    "string-unsigned-bytes": (HEAD + """#include <string.h>
int main() { char x[2]; x[0] = __VERIFIER_nondet_int(); x[1] = 0;
  if (strcmp(x, "m") > 0) { if (x[0] < 0) { return 1; } return 2; } return 0; }
""", [["-1"], ["110"], ["0"]]),
    "string-magnitude": (HEAD + """#include <string.h>
int main() { char x[2]; x[0] = __VERIFIER_nondet_int(); x[1] = 0; int r = strcmp(x, "b");
  if (r == 5) { return 1; } if (r == -1) { return 2; } if (r == 1) { return 3; } return 0; }
""", [["103"], ["97"], ["99"], ["98"]]),
    "string-memcmp-past-zero": (HEAD + """#include <string.h>
int main() { char a[3], b[3]; a[0] = 0; a[1] = 1; a[2] = 0; b[0] = 0; b[1] = __VERIFIER_nondet_int();
  b[2] = 0; if (memcmp(a, b, 3) != 0) { return 1; } return 0; }
""", [["2"], ["1"]]),
    "malloc-fails": (HEAD + """int main() { unsigned n = __VERIFIER_nondet_int(); char *p = malloc(n);
  if (p == 0) { return 9; } p[0] = 1; return 0; }
""", [["-1"], ["16"]]),
    "malloc-fails-in-callee": (HEAD + """struct S { int x; };
struct S *make(int big) { return malloc(big ? 0xfffffff0u : sizeof(struct S)); }
int main() { struct S *s = make(__VERIFIER_nondet_int()); if (!s) { return 9; } s->x = 1;
  if (s->x == 1) { return 1; } return 0; }
""", [["1"], ["0"]]),
    "calloc-fails": (HEAD + """int main() { unsigned n = __VERIFIER_nondet_int(); int *p = calloc(n, 4);
  if (p) { p[0] = 1; return 1; } return 9; }
""", [["-1"], ["16"]]),
    "malloc-both-fail": (HEAD + """int main() { unsigned n = __VERIFIER_nondet_int(); char *p = malloc(n), *q = malloc(n);
  if (p == q) { return 9; } return 0; }
""", [["-1"], ["16"]]),
    # Old C: the callee of a K&R definition reads promoted arguments and converts them
    # to its parameters' types (n = -1: c is -1 and x the float 0.5; 300: c is 44)
    "knr-promotions": ("""extern int __VERIFIER_nondet_int();
main() { int n = __VERIFIER_nondet_int();
  return f(n, 0.5 + n * 1e-9, n); }
f(c, x, n) char c; float x; {
  if (c == -1) { if (x == 0.5) { return 1; } return 2; }
  if (c == 44) { if (n > 100) { return 3; } return 4; }
  return 5; }
""", [["-1"], ["255"], ["300"], ["44"], ["7"]]),
    "implicit-int": ("""extern int __VERIFIER_nondet_int();
count = 70000, *where;
main() { register c = __VERIFIER_nondet_int(); static k; k = c * 2; where = &count;
  if (c == 300) { if (k == 600 && *where == 70000) { return 1; } } return 0; }
""", [["300"], ["1"]]),
    # sqrt called without <math.h>: gcc declares it double sqrt(double), not int sqrt()
    "implicit-builtin": ("""extern int __VERIFIER_nondet_int();
int main() { int n = __VERIFIER_nondet_int(); double r = sqrt(n);
  if (r > 2.4) { if (r < 2.5) { return 1; } } return 0; }
""", [["6"], ["100"], ["1"]]),
    # sizeof of a variable-length array is its length times 4, not 0
    "vla-sizeof": (HEAD + """int main() { int n = __VERIFIER_nondet_int() & 7; int a[n + 1];
  int x = __VERIFIER_nondet_int(); if (sizeof a == 8) { if (x == 1) { return 1; } return 2; }
  return 0; }
""", [["1", "1"], ["1", "0"], ["0", "0"]]),
    # GNU __alignof__ is gcc's alignment, not the 8 a neutralising macro once made it
    "alignof-gnu": (HEAD + """int main() { int x = __VERIFIER_nondet_int(); char c;
  if (__alignof__(char) == 1 && __alignof__ c == 1) { if (x == 1) { return 1; } } return 0; }
""", [["1"], ["0"]]),
    # GNU C: a case range is every value from low to high in the promoted type (c = -100
    # for x = 156); a ?: b evaluates a once; typeof(c) is c's type, with its width
    "case-range": (HEAD + """int main() { int x = __VERIFIER_nondet_int(); signed char c = x;
  switch (c) { case -128 ... -100: if (x == 156) { return 1; } return 2; case 'a' ... 'z': return 3; }
  return 0; }
""", [["156"], ["-128"], ["97"], ["0"]]),
    "elvis-once": (HEAD + """int n;
int next(void) { n++; return n - 1; }
int main() { int x = __VERIFIER_nondet_int(); n = x; int y = next() ?: 5;
  if (n == x + 1) { if (y == 5) { return 1; } return 2; } return 0; }
""", [["0"], ["3"]]),
    "typeof-width": (HEAD + """int main() { unsigned char c = __VERIFIER_nondet_int(); typeof(c) d = c + 1;
  if (d == 0) { return 1; } return 0; }
""", [["255"], ["3"]]),
    # Input sources no option makes inputs: what the native run reads is whatever the
    # source gives, and no prover may take it for fixed or for absent
    "rand-source": (HEAD + """int main() { int x = __VERIFIER_nondet_int(); int r = rand();
  if (r == 1804289383) { if (x == 1) { return 1; } return 2; } return 0; }
""", [["1"], ["0"]]),
    "stdin-source": ("""#include <stdio.h>
extern int __VERIFIER_nondet_int(void);
int main() { int c = getchar(); if (c == '1') { return 1; } if (c == EOF) { return 2; } return 0; }
""", [["120"], ["7"]]),
    "environment-source": (HEAD + """int main() { int x = __VERIFIER_nondet_int(); char *p = getenv("PATH");
  if (p != 0) { if (x == 3) { return 1; } return 2; } return 0; }
""", [["3"], ["0"]]),
    # The program's own strlen, which the nondet harness calls (as TestCov's does), and
    # its own getenv, which cooptest's runtime must not call: no path of the program's
    # CFA calls strlen, yet its branch runs natively
    "own-library-names": ("""#include <stddef.h>
extern int __VERIFIER_nondet_int(void);
int calls;
char *getenv(const char *name) { if (name[0] == 'C') { calls++; } return 0; }
size_t strlen(const char *s) { size_t n = 0; while (s[n]) { n++; } if (n > 100) { calls++; } return n; }
int main(void) { int x = __VERIFIER_nondet_int(); if (x == 3) { return calls; } return 0; }
""", [["3"], ["1"]]),
    # Layout as gcc makes it: an anonymous union's members overlap (the byte written
    # through i is b[0]), _Alignas moves a member, #pragma pack packs one
    "layout-anonymous-union": (HEAD + """struct S { int tag; union { int i; unsigned char b[4]; }; };
int main() { struct S s; s.tag = 0; s.i = __VERIFIER_nondet_int();
  if (s.b[0] == 7) { return 1; } return 0; }
""", [["7"], ["0"]]),
    "layout-alignas": (HEAD + """struct A { char c; _Alignas(16) int x; };
int main() { int x = __VERIFIER_nondet_int(); struct A a; a.x = x;
  if (sizeof(struct A) == 32) { if (x == 1) { return 1; } return 2; } return 0; }
""", [["1"], ["0"]]),
    # A bit-field narrower than int promotes to int, whatever type declares it
    "bitfield-promotes-minus": (HEAD + """struct S { unsigned a : 4; unsigned long long b : 40; };
int main() { struct S s; s.a = __VERIFIER_nondet_int(); s.b = 1;
  if (s.a - 8 < 0) { return 1; } if (s.b - 2 < 0) { return 3; } return 0; }
""", [["3"], ["12"]]),
    "bitfield-promotes-negate": (HEAD + """struct S { unsigned c : 7; };
int main() { struct S s; s.c = __VERIFIER_nondet_int(); if (-s.c < 0) { return 1; } return 0; }
""", [["5"], ["0"]]),
    "bitfield-promotes-compare": (HEAD + """struct S { unsigned long long a : 4; unsigned b : 32; };
int main() { struct S s; s.a = __VERIFIER_nondet_int(); s.b = s.a;
  if (s.a > -1) { if (s.b > -1) { return 2; } return 1; } return 0; }
""", [["3"]]),
    # character constants as gcc reads them: 'ab' is 0x6162, L'\x1234' a code, not bytes
    "multichar-constant": (HEAD + """int main() { int x = __VERIFIER_nondet_int();
  if (x < 10) { if ('ab' + x == 24931) { return 1; } } return 0; }
""", [["1"], ["2"]]),
    "wide-char-constant": (HEAD + """int main() { int x = __VERIFIER_nondet_int();
  if (x < 10) { if (L'\\x1234' + x == 4661) { return 1; } if (u'\\xe9' + x == 236) { return 2; } }
  return 0; }
""", [["1"], ["3"], ["5"]]),
    # enums as gcc types them: an enum with a negative value is signed (also named by its
    # tag), an enumerator past int has the enum's type, values past 32 bits widen the enum
    "enum-tag-signed": (HEAD + """enum sign { NEGATIVE = -3, ZERO = 0 };
int main() { enum sign v = __VERIFIER_nondet_int(); if (v < 0) { return 1; } return 0; }
""", [["-2"], ["0"]]),
    "enum-past-int": (HEAD + """enum big { B0 = 0x80000000, B1 };
int main() { int x = __VERIFIER_nondet_int(); if (B0 > x) { return 1; } return 2; }
""", [["-1"], ["0"]]),
    "enum-wide": (HEAD + """enum mixed { M0 = -1, M1 = 0x80000000 };
int main() { int x = __VERIFIER_nondet_int(); enum mixed m = M1;
  if (sizeof(m) == 8 && m > 0 && sizeof(M1) == 8) { if (x) { return 1; } return 2; } return 0; }
""", [["1"], ["0"]]),
    # initialisers as gcc places them: an anonymous member is one member (its first
    # member takes the next value, a designator into it goes on after it), braces elide
    # across members, a nested designator goes on inside the member it names
    "init-anonymous-union": (HEAD + """struct U { char c; union { struct { char x, y; }; int w; }; char d; };
int main() { int x = __VERIFIER_nondet_int(); struct U u = { 'a', 'b', 'c', x };
  if (u.d == 5) { return 1; } return 0; }
""", [["5"], ["0"]]),
    "init-designator-anonymous": (HEAD + """struct S { int tag; union { int i; float f; }; int after; };
int main() { int x = __VERIFIER_nondet_int(); struct S s = { .i = 3, x };
  if (s.after == 7) { return 1; } if (s.i == 3) { return 2; } return 0; }
""", [["7"], ["0"]]),
    "init-brace-elision": (HEAD + """struct E { int a[2]; int b; };
int main() { int x = __VERIFIER_nondet_int(); struct E e = { 1, 2, x };
  if (e.b == 3) { return 1; } return 0; }
""", [["3"], ["0"]]),
    "init-nested-designator": (HEAD + """struct N { struct { int p, q, r; } a; int b; };
int main() { int x = __VERIFIER_nondet_int(); struct N n = { .a.q = 5, x };
  if (n.a.r == 6) { return 1; } if (n.a.p == 5) { return 2; } return 0; }
""", [["6"], ["0"]]),
    # asm statements the front end erases: each writes what the goal reads
    "asm-writes-register": (HEAD + """int main() { int x = __VERIFIER_nondet_int(); int y = 0;
  if (x == 3) { __asm__("movl $5, %0" : "=r"(y)); }
  if (y == 5) { return 1; } return 0; }
""", [["3"], ["0"]]),
    "asm-writes-memory": (HEAD + """int g;
int main() { int x = __VERIFIER_nondet_int(); g = 0;
  if (x == 3) { __asm("movl $7, g(%%rip)" ::: "memory"); }
  if (g == 7) { return 1; } return 0; }
""", [["3"], ["0"]]),
    "asm-in-callee": (HEAD + """static int twice(int v) { int r = v; __asm__("addl %0, %0" : "+r"(r)); return r; }
int main() { int x = __VERIFIER_nondet_int(); if (twice(x) == 8) { return 1; } return 0; }
""", [["4"], ["0"]]),
    "layout-pragma-pack": (HEAD + """#pragma pack(push, 1)
struct P { char c; int x; };
#pragma pack(pop)
struct Q { char c; int x; };
int main() { int x = __VERIFIER_nondet_int();
  if (sizeof(struct P) == 5 && sizeof(struct Q) == 8) { if (x == 1) { return 1; } return 2; } return 0; }
""", [["1"], ["0"]]),
    # float types wider than double, which cooptest's front end and build make double
    "float128-sizeof": (HEAD + """int main() { int x = __VERIFIER_nondet_int(); if (x > 5) { x = 1; }
  if (sizeof(__float128) == 16) { if (x) { return 1; } return 2; } return 0; }
""", [["1"], ["0"]]),
    "float128-precision": (HEAD + """int main() { int x = __VERIFIER_nondet_int(); _Float128 q = 1;
  q += 1e-20; if (q != 1) { if (x) { return 1; } return 2; } return 0; }
""", [["1"], ["0"]]),
    "float64x-cast": (HEAD + """int main() { int x = __VERIFIER_nondet_int(); long long big = (1LL << 60) + 1;
  if ((long long)(_Float64x)big == big) { if (x) { return 1; } return 2; } return 0; }
""", [["1"], ["0"]]),
    # variables the C library defines: set before main, changed by its calls
    "library-optind": (HEAD + """#include <unistd.h>
int main() { int x = __VERIFIER_nondet_int(); if (optind == 1) { if (x) { return 1; } return 2; }
  return 0; }
""", [["1"], ["0"]]),
    # where realloc puts an object is glibc's choice: the model keeps it in place when it
    # fits, glibc moves it when a chunk follows (strdup's, which the model allocates none
    # for), and keeps it where the model moves it (past a local the model allocated)
    "realloc-moved": (HEAD + """#include <string.h>
int main() { int x = __VERIFIER_nondet_int(); char *p = malloc(16); if (!p) return 0;
  char *q = strdup("abc"); char *r = realloc(p, 64); if (!r) return 0;
  if (r == p) { if (x) { return 1; } return 2; }
  if (x) { return 3; } return q != 0; }
""", [["1"], ["0"]]),
    # strcpy copies up to the first 0 of its source: a symbolic byte that is 0 ends the
    # copy there and leaves the rest of the destination as it was
    "library-strcpy-short": (HEAD + """#include <string.h>
int main() { char src[4], dst[8] = "QQQQQQQ"; for (int i = 0; i < 3; i++) src[i] = (char) __VERIFIER_nondet_int();
  src[3] = 0; strcpy(dst, src); strcat(dst, "z");
  if (dst[2] == 'Q') { return 1; } if (dst[3] == 'z') { return 2; } return 0; }
""", [["0", "5", "5"], ["5", "5", "5"], ["5", "0", "5"]]),
    # strchr's terminator is part of the string (strchr(s, 0) is not NULL); c is
    # converted to char (0x161 finds 'a', 255 finds '\xff'); strrchr stops at the first
    # 0; memchr does not, and its count may be an input
    "library-strchr-terminator": (HEAD + """#include <string.h>
int main() { char s[4]; for (int i = 0; i < 3; i++) s[i] = (char) __VERIFIER_nondet_int();
  s[3] = 0; char *p = strchr(s, 0); if (p == s + 3) { return 1; } if (p == s) { return 2; } return 3; }
""", [["1", "1", "1"], ["0", "1", "1"], ["1", "0", "1"]]),
    "library-strchr-conversion": (HEAD + """#include <string.h>
int main() { char s[3]; s[0] = (char) __VERIFIER_nondet_int(); s[1] = (char) __VERIFIER_nondet_int(); s[2] = 0;
  if (strchr(s, 0x161) == s) { return 1; } if (strchr(s, 255) == s + 1) { return 2; } return 0; }
""", [["97", "0"], ["1", "-1"], ["1", "1"]]),
    "library-strrchr-first-zero": (HEAD + """#include <string.h>
int main() { char s[6] = "ab\\0x"; s[0] = (char) __VERIFIER_nondet_int(); s[1] = (char) __VERIFIER_nondet_int();
  char *p = strrchr(s, 'x'); if (p == 0) { return 1; } if (p == s + 1) { return 2; } if (p == s) { return 3; }
  return 4; }
""", [["1", "1"], ["120", "120"], ["120", "1"], ["0", "120"]]),
    "library-memchr-past-zero": (HEAD + """#include <string.h>
int main() { char s[4] = {0, 0, 0, 0}; s[1] = (char) __VERIFIER_nondet_int(); s[3] = (char) __VERIFIER_nondet_int();
  unsigned n = (unsigned) __VERIFIER_nondet_int(); char *p = memchr(s, 'k', n > 4 ? 4 : n);
  if (p == s + 1) { return 1; } if (p == s + 3) { return 2; } if (p == 0) { return 3; } return 4; }
""", [["107", "0", "4"], ["0", "107", "4"], ["0", "107", "3"], ["107", "107", "1"]]),
    "realloc-kept": (HEAD + """int main() { int x = __VERIFIER_nondet_int(); char *p = malloc(16); if (!p) return 0;
  int k = x; int *pk = &k; char *r = realloc(p, 20); if (!r) return 0;
  if (r != p) { if (*pk) { return 1; } return 2; }
  if (*pk) { return 3; } return 4; }
""", [["1"], ["0"]]),
    "library-stdout": (HEAD + """#include <stdio.h>
int main() { int x = __VERIFIER_nondet_int(); if (stdout != NULL) { if (x) { return 1; } return 2; }
  return 0; }
""", [["1"], ["0"]]),
    "library-optind-after-call": (HEAD + """#include <unistd.h>
int main(int argc, char **argv) { int before = optind, x = __VERIFIER_nondet_int();
  char *args[] = {"p", "-a", 0}; getopt(2, args, "a");
  if (optind != before) { if (x) { return 1; } return 2; } return 0; }
""", [["1"], ["0"]]),
    # the streams are glibc's objects until the program assigns them (freopen reopens
    # one in place); their fields are glibc's, which no prover has
    "library-freopen": (HEAD + """#include <stdio.h>
int main() { int x = __VERIFIER_nondet_int(); freopen("/dev/null", "w", stdout);
  if (stdout != NULL && stdout != stderr) { if (x) { return 1; } return 2; } return 0; }
""", [["1"], ["0"]]),
    "library-stdout-assigned": (HEAD + """#include <stdio.h>
int main() { int x = __VERIFIER_nondet_int(); if (x == 3) { stdout = NULL; }
  if (stdout == NULL) { return 1; } return 0; }
""", [["3"], ["0"]]),
    "library-stream-fields": (HEAD + """#include <stdio.h>
int main() { int x = __VERIFIER_nondet_int(); FILE *out = stdout;
  if (out->_flags != 0) { if (x) { return 1; } return 2; } return 0; }
""", [["1"], ["0"]]),
    "library-stream-bytes": (HEAD + """#include <stdio.h>
int main() { int x = __VERIFIER_nondet_int(); const unsigned char *b = (const unsigned char *)stderr;
  if (b[0] | b[1] | b[2] | b[3]) { if (x) { return 1; } return 2; } return 0; }
""", [["1"], ["0"]]),
    # a string input: 32 symbolic bytes for concolic search, an unknown pointer elsewhere
    "string-input": (HEAD + """extern const char *__VERIFIER_nondet_string(void);
int main() { const char *s = __VERIFIER_nondet_string();
  if (s[0] == 'k' && s[1] == 0) { return 1; } if (s[2] == 'y') { return 2; } return 0; }
""", [['"k"'], ['"xxy"'], ['"ab"']]),
    # effects of the C library (cfa.libc_model): a write through an argument, a free
    "printf-writes-count": (HEAD + """#include <stdio.h>
int main() { int x = __VERIFIER_nondet_int(); int n = 0; printf("ab%n\\n", &n);
  if (n == 2) { if (x) { return 1; } return 2; } return 0; }
""", [["1"], ["0"]]),
    "read-after-free": (HEAD + """int main() { int x = __VERIFIER_nondet_int(); int *p = malloc(4 * sizeof *p);
  if (!p) { return 3; } p[0] = 5; free(p); if (p[0] != 5) { if (x) { return 1; } return 2; } return 0; }
""", [["1"], ["0"]]),
    "stream-buffer-lent": (HEAD + """#include <stdio.h>
char buf[64];
int main() { int x = __VERIFIER_nondet_int(); setvbuf(stdout, buf, _IOFBF, sizeof buf); buf[0] = 0;
  printf("x"); if (buf[0] == 'x') { if (x) { return 1; } return 2; } return 0; }
""", [["1"], ["0"]]),
    "heap-field-by-percent-n": (HEAD + """#include <stdio.h>
struct S { int state; };
int main() { int x = __VERIFIER_nondet_int(); struct S *s = malloc(sizeof *s); if (!s) { return 3; }
  s->state = 1; printf("1234567%n\\n", &s->state);
  if (s->state == 7) { if (x) { return 1; } return 2; } return 0; }
""", [["1"], ["0"]]),
    # gcc folds signed arithmetic as if it could not overflow (at -O0 too), the CFA wraps:
    # the first seed takes, in gcc's build, the branch the wrapped value rules out
    "fold-add-compare": (HEAD + """int main() { int x = __VERIFIER_nondet_int();
  if (x == 2147483647) { if (x + 1 < 0) { return 2; } return 1; } return 0; }
""", [["2147483647"], ["0"]]),
    "fold-add-large": (HEAD + """int main() { int x = __VERIFIER_nondet_int();
  if (x > 2147483000) { if (x + 1000 > 0) { return 1; } return 2; } return 0; }
""", [["2147483500"], ["0"]]),
    "fold-mul-div": (HEAD + """int main() { int x = __VERIFIER_nondet_int(); int y = x * 10 / 5;
  if (x == 429496730) { if (y == 858993460) { return 1; } return 2; } return 0; }
""", [["429496730"], ["0"]]),
    "fold-mul-div-identity": (HEAD + """int twice_halved(int x) { return x * 2 / 2; }
int main() { int x = __VERIFIER_nondet_int();
  if (x > 1073741823) { if (twice_halved(x) == x) { return 1; } return 2; } return 0; }
""", [["1073741824"], ["0"]]),
    # x86-64's long double is the x87's 80 bits (64-bit significand) where the CFA's is a
    # double: a sum, a constant, a conversion from a wide integer that a double rounds
    "long-double-sum": (HEAD + """int main() { int x = __VERIFIER_nondet_int(); long double t = 1.0L;
  if (x == 1) { t = t + 0x1p-60L; }
  if (t != 1.0L) { return 1; } return 0; }
""", [["1"], ["0"]]),
    "long-double-constant": (HEAD + """int main() { int x = __VERIFIER_nondet_int(); long double t = 0.1L;
  if (x == 1) { if (t == 0.1) { return 2; } return 1; } return 0; }
""", [["1"], ["0"]]),
    "long-double-from-integer": (HEAD + """int main() { long long x = __VERIFIER_nondet_int();
  long double t = (long double)(x * 1000000007LL * 3);
  if (x == 1073741823) { if ((long long)t == x * 1000000007LL * 3) { return 1; } return 2; } return 0; }
""", [["1073741823"], ["0"]]),
}
