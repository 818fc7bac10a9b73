/* Hand-instrumented as cooptest's instrumentation would: branch 0 is x > 5,
   branch 1 the loop condition, error call 3 when x > 5. */
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int);
int __cooptest_br(int id, int cond);
void __cooptest_err(int id);
void __cooptest_log(int event);
int main(void) {
  int x = __VERIFIER_nondet_int();
  __cooptest_log(1000);
  if (__cooptest_br(0, x > 5)) {
    __cooptest_err(3);
  }
  while (__cooptest_br(1, x < 3)) {
    x++;
  }
  if (x == 4) {
    *(volatile int *)0 = 1; /* crash after the events above */
  }
  if (x == 6) {
    __VERIFIER_assume(0);
  }
  if (x == 7) {
    for (int i = 0; i < 5000000; i++) __cooptest_br(2, 1); /* beyond the event cap */
  }
  if (x == 8) {
    for (;;) {} /* runs into the timeout */
  }
  return 0;
}
