/* A harness written for CREST, unchanged. */
#include <crest.h>
int main(void) {
  char c; int n;
  CREST_char(c);
  CREST_int(n);
  if (c == 'z') { if (n > 100000) return 2; return 1; }
  return 0;
}
