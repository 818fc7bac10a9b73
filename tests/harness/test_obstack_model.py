"""The environment model's obstack functions (``cooptest_obstack.h``): they lay out and
grow chunks as glibc's do, and concolic search follows a program whose data lives on an
obstack, as grep's kwset's trie does."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from cooptest.frontend.preprocess import harness_headers
from runs import concolic_report

# Prints the obstack's layout after every step: chunk sizes, where objects start, when a
# new chunk is taken and the old one freed, what obstack_free leaves, the objects' bytes.
DRIVER = r"""#include <obstack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define obstack_chunk_alloc malloc
#define obstack_chunk_free free

static void *last_free;
static void *counting_alloc(void *arg, long n) { ++*(int *)arg; return malloc(n); }
static void counting_free(void *arg, void *p) { ++*(int *)arg; last_free = p; free(p); }

static void show(const char *what, struct obstack *h) {
  char *c = (char *)h->chunk;
  printf("%s size=%ld mask=%d base=%ld next=%ld limit=%ld used=%d empty=%d below=%d\n", what,
         (long)h->chunk_size, h->alignment_mask, (long)(h->object_base - c), (long)(h->next_free - c),
         (long)(h->chunk_limit - c), obstack_memory_used(h), h->maybe_empty_object, h->chunk->prev != 0);
}

int main(void) {
  struct obstack o, a;
  int i, k, calls = 0, sizes[] = {1, 7, 100, 4000, 3, 9000, 0, 17, 5000, 2};
  char *marks[10], *first;
  obstack_init(&o);
  show("init", &o);
  first = obstack_alloc(&o, 10);
  memcpy(first, "abcdefghi", 10);
  show("alloc", &o);
  for (k = 0; k < 10; k++) {
    for (i = 0; i < sizes[k]; i++)
      obstack_1grow(&o, 'a' + (i + k) % 26);
    show("grow", &o);
    marks[k] = obstack_finish(&o);
    show("finish", &o);
  }
  for (k = 0; k < 10; k++) {
    long sum = 0;
    for (i = 0; i < sizes[k]; i++)
      sum += marks[k][i] * (i + 1);
    printf("object %d %ld allocated=%d\n", k, sum, _obstack_allocated_p(&o, marks[k]));
  }
  printf("first %s\n", first);
  obstack_free(&o, marks[5]);
  show("free 5", &o);
  obstack_free(&o, marks[2]);
  show("free 2", &o);
  obstack_free(&o, 0);
  obstack_specify_allocation_with_arg(&a, 100, 8, counting_alloc, counting_free, &calls);
  show("with arg", &a);
  for (k = 0; k < 30; k++) {
    obstack_blank(&a, 33 + k);
    if (k % 7 == 0)
      obstack_finish(&a);
    show("blank", &a);
  }
  obstack_free(&a, 0);
  printf("calls %d\n", calls);
  return 0;
}
"""


def _run(tmp_path: Path, bits: int, model: bool) -> str:
    driver = tmp_path / "driver.c"
    driver.write_text(DRIVER)
    sources, flags = [str(driver)], [f"-m{bits}"]
    if model:
        unit = tmp_path / "model.c"
        unit.write_text("#include <cooptest_obstack.h>\n")
        sources.append(str(unit))
        flags += ["-include", os.path.join(harness_headers(), "cooptest_io.h"), "-isystem", harness_headers()]
    binary = tmp_path / f"{'model' if model else 'glibc'}{bits}"
    subprocess.run(["gcc", "-o", str(binary), *flags, *sources], check=True)
    if model:  # the calls are the model's, not glibc's
        symbols = subprocess.run(["nm", str(binary)], capture_output=True, text=True, check=True).stdout
        assert "__cooptest_obstack_newchunk" in symbols and " U _obstack_newchunk" not in symbols
    return subprocess.run([str(binary)], capture_output=True, text=True, check=True, timeout=30).stdout


@pytest.mark.parametrize("bits", [64, 32])
def test_the_model_lays_out_chunks_as_glibc_does(tmp_path, bits):
    """Every step's layout, the objects' bytes and the chunk functions' calls, with
    glibc's functions and with the model's, under -m64 and -m32 (long double and the
    default alignment differ; scripts/setup.sh installs gcc-multilib)."""
    glibc = _run(tmp_path, bits, model=False)
    assert glibc.count("\n") > 60 and "below=1" in glibc  # new chunks were taken
    assert _run(tmp_path, bits, model=True) == glibc


PROGRAM = r"""#include <obstack.h>
#include <stdlib.h>
#include <string.h>
#define obstack_chunk_alloc malloc
#define obstack_chunk_free free
struct node { char c; struct node *next; };
int main(int argc, char **argv) {
  struct obstack o;
  struct node *list = 0, *n;
  int depth = 0;
  const char *s;
  if (argc < 2)
    return 0;
  obstack_init(&o);
  for (s = argv[1]; *s; s++) {   /* a list of the argument's bytes, on the obstack */
    n = obstack_alloc(&o, sizeof *n);
    n->c = *s;
    n->next = list;
    list = n;
  }
  for (n = list; n; n = n->next)
    depth++;
  if (list && list->c == 'z') {
    if (depth == 3 && list->next->c == 'q')
      return 1;
    return 2;
  }
  obstack_free(&o, 0);
  return 0;
}
"""


@pytest.mark.slow
def test_concolic_search_follows_nodes_allocated_on_an_obstack(tmp_path):
    """``n->c`` and ``n->next`` are read back through the obstack's chunk: with glibc's
    _obstack_begin, a call nobody can follow, memory was havocked at obstack_init, 100
    iterations diverged 496 times and left ``list->next->c == 'q'``, the loop's exit and
    ``depth != 3`` uncovered. The obstack macros' own conditions are no goals of the
    test: some cannot be taken by three bytes (a full chunk)."""
    doc = concolic_report(tmp_path, PROGRAM, (0, 1, 3), iterations=100)
    own = [g for g in doc["goals"] if "__o" not in g["condition"]]
    assert len(own) == 14 and all(g["status"] == "covered" for g in own), own
    assert doc["summary"]["divergences"] == 0
