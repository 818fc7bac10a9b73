#include "shape.h"
int counter = 0;
static int helper(int v) { return v > 100 ? 100 : v; }
int area(const struct shape *s) {
  counter++;
  if (s->kind == 1) return helper(clamp(s->w) * clamp(s->h));
  return 0;
}
point move(point p, int dx) { p.x += dx; if (p.x > 10) p.y = 1; return p; }
