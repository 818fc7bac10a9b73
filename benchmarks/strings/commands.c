/* A request line checked against verbs and paths, as a small server does. */
#include <stdlib.h>
#include <string.h>
extern char __VERIFIER_nondet_char(void);
void reach_error(void) { abort(); }

int main(void) {
  char line[16];
  for (int i = 0; i < 15; i++) line[i] = __VERIFIER_nondet_char();
  line[15] = 0;
  if (strncmp(line, "GET ", 4) == 0) {
    if (strcmp(line + 4, "/admin") == 0) reach_error();
    if (strcmp(line + 4, "/") == 0) return 1;
    return 2;
  }
  if (strncmp(line, "PUT ", 4) == 0) {
    if (strlen(line + 4) > 8) return 3;
    return 4;
  }
  if (strncmp(line, "DELETE ", 7) == 0) return 5;
  return 0;
}
