/* glibc's obstack functions, written for the environment model (cooptest_env.h, included
 * with COOPTEST_IO): cooptest_io.h makes the program's calls of them these. A program
 * that ships the GNU obstack.c built against glibc compiles none of it (ELIDE_CODE: glibc's
 * interface version is the same), so its obstack_init and obstack_alloc macros call into
 * the C library, a call nobody can follow: every analysis had to forget all memory, and
 * grep's kwset, which builds its trie on an obstack, diverged at every node it allocated.
 * Here they are code of the program's CFA, run natively as well.
 *
 * What glibc (malloc/obstack.c, interface version 1) does that a program can observe, all
 * of it reproduced, and compared with glibc under -m32 and -m64 by
 * tests/harness/test_obstack_model.py:
 *   - the default chunk size, 4096 less glibc's allowance for a malloc header rounded to
 *     the widest of uintmax_t, long double and void *, and the default alignment, that
 *     type's (4064 and 16 on x86-64);
 *   - the chunk's header (limit, prev) and where the first object starts in it, aligned
 *     as the obstack's alignment_mask says, relative to address 0 (__PTR_ALIGN);
 *   - a new chunk's size when an object outgrows its chunk (the object's size and the
 *     growth, an eighth of the object, the mask and 100 more, at least chunk_size), the
 *     object copied to it, and the old chunk freed when the object was all it held;
 *   - obstack_free freeing every chunk above the object, abort() for an object in none;
 *   - the chunk functions called with extra_arg first where use_extra_arg is set;
 *   - obstack_alloc_failed_handler called where a chunk function returns NULL. */
#include <obstack.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#ifndef COOPTEST_LIBRARY /* included on its own (cooptest_env.h defines it) */
#define COOPTEST_LIBRARY __attribute__((weak))
#endif

union __cooptest_obstack_widest {
  uintmax_t i;
  long double d;
  void *p;
};

struct __cooptest_obstack_aligned {
  char c;
  union __cooptest_obstack_widest u;
};

static struct _obstack_chunk *__cooptest_obstack_chunk(struct obstack *h, long size) {
  if (h->use_extra_arg)
    return h->chunkfun(h->extra_arg, size);
  return ((struct _obstack_chunk * (*)(long)) h->chunkfun)(size);
}

static void __cooptest_obstack_release(struct obstack *h, struct _obstack_chunk *chunk) {
  if (h->use_extra_arg)
    h->freefun(h->extra_arg, chunk);
  else
    ((void (*)(void *))h->freefun)(chunk);
}

/* Where objects start in a chunk. */
static char *__cooptest_obstack_first(struct _obstack_chunk *chunk, int mask) {
  return __PTR_ALIGN((char *)chunk, chunk->contents, mask);
}

static int __cooptest_obstack_start(struct obstack *h, int size, int alignment) {
  struct _obstack_chunk *chunk;
  if (alignment == 0)
    alignment = (int)offsetof(struct __cooptest_obstack_aligned, u);
  if (size == 0) {
    int round = (int)sizeof(union __cooptest_obstack_widest);
    size = 4096 - ((((12 + round - 1) & ~(round - 1)) + 4 + round - 1) & ~(round - 1));
  }
  h->chunk_size = size;
  h->alignment_mask = alignment - 1;
  chunk = h->chunk = __cooptest_obstack_chunk(h, h->chunk_size);
  if (!chunk)
    (*obstack_alloc_failed_handler)();
  h->next_free = h->object_base = __cooptest_obstack_first(chunk, alignment - 1);
  h->chunk_limit = chunk->limit = (char *)chunk + h->chunk_size;
  chunk->prev = 0;
  h->maybe_empty_object = 0;
  h->alloc_failed = 0;
  return 1;
}

COOPTEST_LIBRARY int __cooptest_obstack_begin(struct obstack *h, int size, int alignment,
                                              void *(*chunkfun)(long), void (*freefun)(void *)) {
  h->chunkfun = (struct _obstack_chunk * (*)(void *, long)) chunkfun;
  h->freefun = (void (*)(void *, struct _obstack_chunk *))freefun;
  h->use_extra_arg = 0;
  return __cooptest_obstack_start(h, size, alignment);
}

COOPTEST_LIBRARY int __cooptest_obstack_begin_1(struct obstack *h, int size, int alignment,
                                                void *(*chunkfun)(void *, long),
                                                void (*freefun)(void *, void *), void *arg) {
  h->chunkfun = (struct _obstack_chunk * (*)(void *, long)) chunkfun;
  h->freefun = (void (*)(void *, struct _obstack_chunk *))freefun;
  h->extra_arg = arg;
  h->use_extra_arg = 1;
  return __cooptest_obstack_start(h, size, alignment);
}

COOPTEST_LIBRARY void __cooptest_obstack_newchunk(struct obstack *h, int length) {
  struct _obstack_chunk *old = h->chunk, *chunk;
  long used = h->next_free - h->object_base, size, i;
  char *base;
  size = used + length + (used >> 3) + h->alignment_mask + 100;
  if (size < h->chunk_size)
    size = h->chunk_size;
  chunk = __cooptest_obstack_chunk(h, size);
  if (!chunk)
    (*obstack_alloc_failed_handler)();
  h->chunk = chunk;
  chunk->prev = old;
  chunk->limit = h->chunk_limit = (char *)chunk + size;
  base = __cooptest_obstack_first(chunk, h->alignment_mask);
  for (i = 0; i < used; i++) /* no memcpy: the program may define its own */
    base[i] = h->object_base[i];
  if (!h->maybe_empty_object && h->object_base == __cooptest_obstack_first(old, h->alignment_mask)) {
    chunk->prev = old->prev; /* the object was all the old chunk held */
    __cooptest_obstack_release(h, old);
  }
  h->object_base = base;
  h->next_free = base + used;
  h->maybe_empty_object = 0;
}

COOPTEST_LIBRARY void __cooptest_obstack_free(struct obstack *h, void *obj) {
  struct _obstack_chunk *chunk = h->chunk, *below;
  /* >=: no object starts a chunk, but an empty one may end the chunk below */
  while (chunk != 0 && ((void *)chunk >= obj || (void *)chunk->limit < obj)) {
    below = chunk->prev;
    __cooptest_obstack_release(h, chunk);
    chunk = below;
    h->maybe_empty_object = 1; /* whether the chunk below holds an empty object is unknown */
  }
  if (chunk) {
    h->object_base = h->next_free = (char *)obj;
    h->chunk_limit = chunk->limit;
    h->chunk = chunk;
  } else if (obj != 0) {
    abort();
  }
}

COOPTEST_LIBRARY int __cooptest_obstack_allocated_p(struct obstack *h, void *obj) {
  struct _obstack_chunk *chunk = h->chunk;
  while (chunk != 0 && ((void *)chunk >= obj || (void *)chunk->limit < obj))
    chunk = chunk->prev;
  return chunk != 0;
}

COOPTEST_LIBRARY int __cooptest_obstack_memory_used(struct obstack *h) {
  struct _obstack_chunk *chunk;
  int bytes = 0;
  for (chunk = h->chunk; chunk != 0; chunk = chunk->prev)
    bytes += chunk->limit - (char *)chunk;
  return bytes;
}
