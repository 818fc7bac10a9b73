/* A password check behind a length rule. */
#include <stdlib.h>
#include <string.h>
extern char __VERIFIER_nondet_char(void);
void reach_error(void) { abort(); }

int check(const char *pw) {
  size_t n = strlen(pw);
  if (n < 6) return -1;
  if (n > 10) return -2;
  if (strcmp(pw, "s3cr3t!") == 0) return 1;
  if (strcmp(pw, "letmein") > 0) return 2;
  return 0;
}

int main(void) {
  char pw[12];
  for (int i = 0; i < 11; i++) pw[i] = __VERIFIER_nondet_char();
  pw[11] = 0;
  int verdict = check(pw);
  if (verdict == 1) reach_error();
  return verdict;
}
