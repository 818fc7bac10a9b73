/* A named file: its magic bytes and a digit. */
#include <stdio.h>
#include <ctype.h>
int main(void) {
  FILE *f = fopen("data.bin", "r");
  char head[4];
  if (f == 0) return 1;
  if (fread(head, 1, 2, f) != 2) return 2;
  if (head[0] == 'P' && head[1] == 'K') {
    int c = fgetc(f);
    if (isdigit(c)) return 3;
    return 4;
  }
  fclose(f);
  return 0;
}
