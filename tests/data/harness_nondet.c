/* Prints every value the nondet harness returns, one line per call. */
int printf(const char *, ...);
extern char __VERIFIER_nondet_char(void);
extern unsigned char __VERIFIER_nondet_uchar(void);
extern short __VERIFIER_nondet_short(void);
extern unsigned short __VERIFIER_nondet_ushort(void);
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);
extern long __VERIFIER_nondet_long(void);
extern unsigned long __VERIFIER_nondet_ulong(void);
extern long long __VERIFIER_nondet_longlong(void);
extern unsigned long long __VERIFIER_nondet_ulonglong(void);
extern float __VERIFIER_nondet_float(void);
extern double __VERIFIER_nondet_double(void);
extern _Bool __VERIFIER_nondet_bool(void);
extern unsigned int __VERIFIER_nondet_size_t(void);
extern void *__VERIFIER_nondet_pointer(void);
int main(void) {
  printf("char %d\n", __VERIFIER_nondet_char());
  printf("uchar %u\n", __VERIFIER_nondet_uchar());
  printf("short %d\n", __VERIFIER_nondet_short());
  printf("ushort %u\n", __VERIFIER_nondet_ushort());
  printf("int %d\n", __VERIFIER_nondet_int());
  printf("uint %u\n", __VERIFIER_nondet_uint());
  printf("long %ld\n", __VERIFIER_nondet_long());
  printf("ulong %lu\n", __VERIFIER_nondet_ulong());
  printf("longlong %lld\n", __VERIFIER_nondet_longlong());
  printf("ulonglong %llu\n", __VERIFIER_nondet_ulonglong());
  printf("float %.9g\n", __VERIFIER_nondet_float());
  printf("double %.17g\n", __VERIFIER_nondet_double());
  printf("bool %d\n", __VERIFIER_nondet_bool());
  printf("size_t %u\n", __VERIFIER_nondet_size_t());
  printf("pointer %lu\n", (unsigned long)__VERIFIER_nondet_pointer());
  return 0;
}
