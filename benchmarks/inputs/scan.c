/* Numbers and a word read with scanf, a number parsed from a string with sscanf. */
#include <stdio.h>
int main(void) {
  int n, m; char word[8];
  if (scanf("%d %d", &n, &m) != 2) return 2;
  if (n == 42) { if (m < -3) return 1; return 3; }
  if (sscanf("x=17", "x=%d", &m) == 1 && m == 17 && n > 1000) return 4;
  if (scanf("%7s", word) == 1 && word[0] == 'q') return 5;
  return 0;
}
