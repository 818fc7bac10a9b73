/* A line of stdin compared with keywords. */
#include <stdio.h>
#include <string.h>
int main(void) {
  char line[32];
  if (fgets(line, sizeof line, stdin) == 0) return 2;
  if (strncmp(line, "hello", 5) == 0) return 1;
  if (strcmp(line, "quit\n") == 0) return 3;
  return 0;
}
