/* A file's header told apart by its magic bytes, as file(1) does. */
#include <string.h>
extern unsigned char __VERIFIER_nondet_uchar(void);

int main(void) {
  unsigned char header[8];
  for (int i = 0; i < 8; i++) header[i] = __VERIFIER_nondet_uchar();
  if (memcmp(header, "\x7f" "ELF", 4) == 0) {
    if (header[4] == 1) return 32;
    if (header[4] == 2) return 64;
    return 1;
  }
  if (memcmp(header, "%PDF-1.", 7) == 0) {
    if (header[7] >= '4') return 14;
    return 10;
  }
  if (memcmp(header, "\x89PNG", 4) == 0) return 2;
  return 0;
}
