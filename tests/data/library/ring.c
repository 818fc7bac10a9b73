#include <string.h>
#include "ring.h"
#include "device.h"

/* what ring_account counts: a struct of this file only */
struct ring_stats {
  unsigned pushed;
  unsigned dropped;
};

int ring_account(struct ring_stats *stats, int accepted);

/* settings of the library: inputs of a harness, unless --keep-globals */
int ring_trace;
unsigned ring_traced;
static unsigned ring_calls; /* no other file sees it: not an input */

int ring_push(struct ring *r, int value) {
  if (r == NULL)
    return -1;
  if (r->count > RING_CAP)
    return -2; /* corrupt */
  if (r->count == RING_CAP) {
    if (r->policy == RING_REJECT)
      return 0;
    r->head = (r->head + 1) % RING_CAP;
    r->count--;
  }
  r->items[(r->head + r->count) % RING_CAP] = value;
  r->count++;
  return 1;
}

int ring_pop(struct ring *r, int *out) {
  if (r == NULL || out == NULL)
    return -1;
  if (r->count == 0 || r->count > RING_CAP)
    return 0;
  *out = r->items[r->head % RING_CAP];
  r->head = (r->head + 1) % RING_CAP;
  r->count--;
  return 1;
}

int ring_push_all(struct ring *r, const int *values, size_t n) {
  size_t i;
  int pushed = 0;
  if (values == NULL)
    return -1;
  for (i = 0; i < n; i++) {
    if (values[i] < 0)
      continue; /* negative values are skipped */
    if (ring_push(r, values[i]) == 1)
      pushed++;
  }
  return pushed;
}

int ring_visit(const struct ring *r, ring_visitor visit, void *context) {
  unsigned i;
  int visited = 0;
  if (r == NULL || visit == NULL)
    return -1;
  if (r->count > RING_CAP)
    return -2;
  for (i = 0; i < r->count; i++) {
    if (visit(r->items[(r->head + i) % RING_CAP], context) != 0)
      break; /* the visitor stopped the walk */
    visited++;
  }
  return visited;
}

int ring_is_full(struct ring r) {
  if (r.count >= RING_CAP)
    return 1;
  return 0;
}

int ring_label(const char *label) {
  if (label == NULL)
    return -1;
  if (strcmp(label, "ring") == 0)
    return 1;
  if (label[0] == '#')
    return 2;
  return 0;
}

int chain_length(const struct ring_chain *chain) {
  int n = 0;
  while (chain != NULL) {
    if (chain->ring != NULL && chain->ring->count == RING_CAP)
      n += 10; /* a full ring counts ten */
    n++;
    chain = chain->next;
  }
  return n;
}

int ring_refill(struct ring *r, int port) {
  int v;
  if (r == NULL)
    return -1;
  v = device_read(port);
  if (v < 0)
    return -2; /* the device failed */
  if (v == 0x1234)
    return 2; /* the device's reset word */
  return ring_push(r, v);
}

int ring_account(struct ring_stats *stats, int accepted) {
  if (stats == NULL)
    return -1;
  if (accepted)
    stats->pushed++;
  else
    stats->dropped++;
  return stats->dropped > stats->pushed;
}

int ring_traced_push(struct ring *r, int value) {
  int pushed = ring_push(r, value);
  ring_calls++;
  if (ring_trace && pushed == 1)
    ring_traced++;
  return pushed;
}
