/* stdin read byte by byte, to its end. */
#include <stdio.h>
int main(void) {
  int c, digits = 0, other = 0;
  while ((c = getchar()) != EOF) {
    if (c >= '0' && c <= '9') digits++;
    else if (c == '\n') break;
    else other++;
  }
  if (digits > 2 && other == 0) return 1;
  return 0;
}
