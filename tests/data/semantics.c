/* Differential test of C integer semantics: every condition's outcome is compared
   between the native run and the symbolic execution of the CFA. */
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);
extern char __VERIFIER_nondet_char(void);
extern long __VERIFIER_nondet_long(void);
extern unsigned char __VERIFIER_nondet_uchar(void);
extern short __VERIFIER_nondet_short(void);
struct S { int a; char c; unsigned int bits : 3; int sbits : 4; };
int g[4] = {1, 2, 3, 4};
int main(void) {
  int x = __VERIFIER_nondet_int();
  unsigned int u = __VERIFIER_nondet_uint();
  char c = __VERIFIER_nondet_char();
  long l = __VERIFIER_nondet_long();
  unsigned char uc = __VERIFIER_nondet_uchar();
  short s = __VERIFIER_nondet_short();
  struct S st; int *p = &g[1]; int i;
  if (x < u) x++;                 /* usual arithmetic conversion to unsigned */
  if ((((unsigned)x - 1u) - 2147483647u) - 3u == 7u) u = 21;  /* folded offsets wrap around */
  if (((x - 1) - 2) + 3 == 0) u = 25;
  if ((u + 4294967295u) + 2u < 3u) u = 22;
  if (((uc - 1) - 255) + 256 == 254) uc = 23;  /* promoted to int: no wrap at 8 bits */
  if ((((short)(s + 1)) - 1) == -32768) s = 24;
  if (c + 1 > 100) c--;           /* char promotion */
  if ((unsigned char)(uc + 200) < 50) uc = 1;
  if (l * 3 < x) l = 0;
  if (x / 7 == -2) x = 3;         /* truncation toward zero */
  if (x % 5 == -1) x = 4;
  if (x != 0 && 100 / x > 3) u = 7;
  if ((x >> 2) < -3) u = 9;       /* arithmetic shift */
  if ((u >> 31) == 1) u = 11;
  if ((unsigned short)s > 40000) s = 0;
  if ((signed char)x == -1) x = 12;
  if (-u > 5u) u = 13;
  if (~x == 0) x = 14;
  if ((x ^ u) & 1) x = 15;
  st.a = x; st.c = c; st.bits = x; st.sbits = x;
  if (st.bits == 5) x = 16;       /* bit-field wrap */
  if (st.sbits < 0) x = 17;       /* signed bit-field */
  if (st.c == c) x = x + 1;
  for (i = 0; i < 3; i++) { if (p[i % 3 - 1] > x) x = p[i % 3 - 1]; }
  if (g[(u & 3)] == 3) l = 1;
  if (sizeof(long) == 8) i = 1; else i = 2;
  switch (x & 7) { case 0: x = 1; break; case 3: case 4: x = 2; default: x = 3; }
  if (x == 3 || u == 13) return 1;
  return 0;
}
