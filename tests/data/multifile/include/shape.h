#ifndef SHAPE_H
#define SHAPE_H
struct shape { int kind; int w, h; struct shape *next; };
typedef struct { int x, y; } point;
extern int counter;
int area(const struct shape *s);
point move(point p, int dx);
static inline int clamp(int v) { if (v < 0) return 0; return v; }
#endif
