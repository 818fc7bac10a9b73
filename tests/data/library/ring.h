/* A ring buffer of ints: the library of the tests of `cooptest generate --function`
 * (a harness written by cooptest, no main of its own). */
#ifndef RING_H
#define RING_H
#include <stddef.h>

#define RING_CAP 8

enum ring_policy { RING_REJECT, RING_OVERWRITE };

struct ring {
  int items[RING_CAP];
  unsigned head;
  unsigned count;
  enum ring_policy policy;
};

/* a linked structure: rings in a chain */
struct ring_chain {
  struct ring *ring;
  struct ring_chain *next;
};

typedef int (*ring_visitor)(int item, void *context);

int ring_push(struct ring *r, int value);
int ring_pop(struct ring *r, int *out);
int ring_push_all(struct ring *r, const int *values, size_t n);
int ring_visit(const struct ring *r, ring_visitor visit, void *context);
int ring_is_full(struct ring r);
int ring_label(const char *label);
int chain_length(const struct ring_chain *chain);
int ring_refill(struct ring *r, int port);
int ring_traced_push(struct ring *r, int value);

#endif
