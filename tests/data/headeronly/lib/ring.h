/* ring.h: a ring buffer of ints, header-only (the example of a library whose every
   goal is in a header, for cooptest's tests). */
#ifndef RING_H
#define RING_H

#define RING_CAP 4

struct ring {
  int data[RING_CAP];
  int head, count;
};

static inline void ring_init(struct ring *r) {
  r->head = 0;
  r->count = 0;
}

static inline int ring_push(struct ring *r, int v) {
  if (r->count > RING_CAP) /* never: the buffer would be corrupt */
    return -2;
  if (r->count == RING_CAP)
    return -1;
  r->data[(r->head + r->count) % RING_CAP] = v;
  r->count++;
  return 0;
}

static inline int ring_pop(struct ring *r, int *out) {
  if (r->count == 0)
    return -1;
  *out = r->data[r->head];
  r->head = (r->head + 1) % RING_CAP;
  r->count--;
  return 0;
}

static inline int ring_max(const struct ring *r) {
  int best = 0;
  for (int i = 0; i < r->count; i++) {
    int v = r->data[(r->head + i) % RING_CAP];
    if (v > best)
      best = v;
  }
  return best;
}

#endif
