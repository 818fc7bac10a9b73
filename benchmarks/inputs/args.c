/* A command line: a flag compared with strcmp, a count of arguments. */
#include <string.h>
int main(int argc, char **argv) {
  if (argc > 2) {
    if (strcmp(argv[1], "-v") == 0) return 3;
    return 2;
  }
  return 0;
}
