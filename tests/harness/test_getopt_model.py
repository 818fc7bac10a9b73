"""The environment model's getopt_long and getopt_long_only (``cooptest_getopt.h``):
they parse as glibc's do, and concolic search follows a program past its option parsing."""
from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest

from cooptest.frontend.preprocess import harness_headers
from runs import concolic_report

# Prints every call's result and glibc's variables, then argv as the parse left it.
DRIVER = r"""#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

static int flag_a, flag_b;
static struct option longopts[] = {
  {"alpha", no_argument, &flag_a, 7},
  {"alpine", no_argument, &flag_a, 7},
  {"beta", required_argument, 0, 'b'},
  {"bet", optional_argument, 0, 'B'},
  {"gamma", optional_argument, &flag_b, 3},
  {"verbose", no_argument, 0, 'v'},
  {"value", required_argument, 0, 300},
  {0, 0, 0, 0}};

static void parse(int argc, char **argv, const char *optstring) {
  int c, k, index = -1;
  for (k = 0; k < 40; k++) {
#ifdef LONG_ONLY
    c = getopt_long_only(argc, argv, optstring, longopts, &index);
#else
    c = getopt_long(argc, argv, optstring, longopts, &index);
#endif
    printf("%d optind=%d optarg=%s optopt=%d index=%d a=%d b=%d\n", c, optind,
           optarg ? optarg : "(null)", optopt, index, flag_a, flag_b);
    if (c == -1)
      break;
  }
}

int main(int argc, char **argv) {
  int i;
  const char *optstring = getenv("OPTSTRING");
  if (getenv("NOERR"))
    opterr = 0;
  parse(argc, argv, optstring);
  if (getenv("RESCAN")) {
    optind = 0;
    parse(argc, argv, optstring);
  }
  for (i = 0; i < argc; i++)
    printf("argv[%d]=%s\n", i, argv[i]);
  return 0;
}
"""
# option elements of every kind glibc tells apart: clusters, attached and detached
# arguments, exact, abbreviated, ambiguous and unknown long names, "-W name", "--", "-"
ELEMENTS = ["-a", "-b", "-bx", "-ab", "-v", "-va", "--alpha", "--alp", "--al", "--a", "--beta",
            "--beta=1", "--bet", "--bet=2", "--b", "--gamma", "--gamma=z", "--val", "--value",
            "--value=", "--v", "--ve", "-W", "alpha", "-Wbeta=3", "-Wal", "--", "-", "file", "x",
            "-x", "-:", "-;", "--verbose=1", "-vb", "-B", "-Bq", "-alpha", "-al", "-beta", "-v1",
            "--=", "--alpha=", "-W;", "-\xe9"]
# the orderings ('+', '-', POSIXLY_CORRECT), ':' (no messages, ':' for a missing
# argument), "W;", optional arguments
OPTSTRINGS = ["ab:vW;B::", "+ab:v", "-ab:v", ":ab:v", "ab:v", "W;ab::", "+:W;b:", "-:ab:B::", "", "a"]
COMMAND_LINES = 150


def _build(tmp_path: Path, name: str, *flags: str, model: bool) -> Path:
    driver = tmp_path / "driver.c"
    driver.write_text(DRIVER)
    sources = [str(driver)]
    if model:
        unit = tmp_path / "model.c"
        unit.write_text("#include <stdio.h>\n#include <stdlib.h>\n#include <cooptest_getopt.h>\n")
        sources.append(str(unit))
        flags += ("-include", os.path.join(harness_headers(), "cooptest_io.h"), "-isystem", harness_headers())
    binary = tmp_path / name
    subprocess.run(["gcc", "-o", str(binary), *flags, *sources], check=True)
    return binary


@pytest.mark.parametrize("long_only", [False, True], ids=["getopt_long", "getopt_long_only"])
def test_the_model_parses_as_glibc_does(tmp_path, long_only):
    """The same command lines and environments through glibc's parse and the model's:
    the same results, variables, permuted argv, messages and exit."""
    flags = ("-DLONG_ONLY",) if long_only else ()
    glibc = _build(tmp_path, "glibc", *flags, model=False)
    model = _build(tmp_path, "model", *flags, model=True)
    rng = random.Random(45)
    differ = []
    for _ in range(COMMAND_LINES):
        argv = ["prog", *(rng.choice(ELEMENTS) for _ in range(rng.randint(0, 6)))]
        env = {"PATH": os.environ.get("PATH", "/usr/bin"), "OPTSTRING": rng.choice(OPTSTRINGS),
               **{name: "1" for name in ("POSIXLY_CORRECT", "RESCAN", "NOERR") if rng.random() < 0.2}}
        runs = [subprocess.run(argv, executable=str(b), env=env, capture_output=True) for b in (glibc, model)]
        if len({(r.stdout, r.stderr, r.returncode) for r in runs}) > 1:
            differ.append((argv, env, runs[0].stdout.decode(errors="replace"),
                           runs[1].stdout.decode(errors="replace")))
    assert not differ, differ[0]


PROGRAM = """#include <getopt.h>
#include <stdio.h>

static struct option longopts[] = {
  {"verbose", no_argument, 0, 'v'},
  {"num", required_argument, 0, 'n'},
  {0, 0, 0, 0}};

int main(int argc, char **argv) {
  int c, verbose = 0;
  const char *num = 0;
  while ((c = getopt_long(argc, argv, "vn:", longopts, 0)) != -1) {
    if (c == 'v')
      verbose = 1;
    else if (c == 'n')
      num = optarg;
    else
      return 1;
  }
  if (optind < argc) {
    const char *key = argv[optind];
    if (key[0] == 'k') {
      if (key[1] == 'y')
        return 5;
      return 4;
    }
  }
  if (verbose && num != 0 && num[0] == '7')
    return 6;
  return 0;
}
"""


@pytest.mark.slow
def test_concolic_search_covers_the_branches_after_option_parsing(tmp_path):
    """``key = argv[optind]`` and ``num = optarg`` are argv's bytes after the parse: with
    glibc's getopt_long, a call nobody can follow, they were unknown and 200 iterations
    covered 5 of the 18 goals with a divergence every other run."""
    doc = concolic_report(tmp_path, PROGRAM, (0, 3, 3), iterations=200)
    assert [g["status"] for g in doc["goals"]] == ["covered"] * len(doc["goals"]), doc["goals"]
    assert doc["summary"]["divergences"] == 0
