"""Issue 43's figures: five small real libraries (benchmarks/libraries/README.md), every
function each exports tested with ``--all-functions`` for BUDGET seconds, beside
libFuzzer run for the same time on the same harness.

    python benchmarks/libraries.py --budget 60 --out OUT [--only jsmn,crc]

Per library: cooptest's goals and cov_f (report.json); gcov branch coverage of the
library's files under cooptest's suite (``cooptest export``, ``make coverage``), under
the suite exported as plain unit tests (``export --framework plain``: within 1 point of
the former is the check), and under libFuzzer's corpus (clang ``-fsanitize=fuzzer``, each
``__VERIFIER_nondet_*`` value the next bytes of the fuzzer's input, zeros past its end;
``-fork=1`` so that a crash does not end the campaign), its corpus and the inputs it
found crashing replayed on a gcc ``--coverage``
build of the same harness, each input in a child process that writes its counters
however it ends: the same gcc, gcov and gcovr count both tools. Per function: cov_f and
gcov branch coverage of its own lines. Writes OUT/libraries.json and prints the tables
for benchmarks/RESULTS.md.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LIBRARIES = REPO / "benchmarks" / "libraries"
# name: the program as cooptest takes it (files or folders, then flags)
PROGRAMS = {"jsmn": ["jsmn/jsmn.c"], "base64": ["base64/base64.c"],
            "ringbuffer": ["ringbuffer/ringbuffer.c"], "crc": ["crc/src", "-I", "crc/include"],
            "timestamp": ["timestamp"]}

# libFuzzer's entry: the harness's main, its inputs the fuzzer's bytes
FUZZ_DRIVER = r"""
#include <stddef.h>
#include <stdint.h>
#include <string.h>
static const uint8_t *cooptest_data;
static size_t cooptest_size, cooptest_at;
static void cooptest_take(void *value, size_t n) {
  size_t k = cooptest_size - cooptest_at < n ? cooptest_size - cooptest_at : n;
  memset(value, 0, n);
  memcpy(value, cooptest_data + cooptest_at, k);
  cooptest_at += k;
}
#define NONDET(name, type) \
  type __VERIFIER_nondet_##name(void) { type v; cooptest_take(&v, sizeof v); return v; }
NONDET(char, char) NONDET(uchar, unsigned char) NONDET(short, short)
NONDET(ushort, unsigned short) NONDET(int, int) NONDET(uint, unsigned int)
NONDET(long, long) NONDET(ulong, unsigned long) NONDET(longlong, long long)
NONDET(ulonglong, unsigned long long) NONDET(float, float) NONDET(double, double)
_Bool __VERIFIER_nondet_bool(void) { unsigned char v; cooptest_take(&v, 1); return v & 1; }
int cooptest_harness_main(void);
void cooptest_run(const uint8_t *data, size_t size) {
  cooptest_data = data;
  cooptest_size = size;
  cooptest_at = 0;
  cooptest_harness_main();
}
"""
FUZZ_ENTRY = r"""
#include <stddef.h>
#include <stdint.h>
void cooptest_run(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cooptest_run(data, size);
  return 0;
}
"""
# the corpus replayed on the gcov build: each input in a child process
REPLAY_MAIN = r"""
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
extern void __gcov_dump(void);
void cooptest_run(const uint8_t *data, size_t size);
static void dump(int sig) { __gcov_dump(); signal(sig, SIG_DFL); raise(sig); }
int main(int argc, char **argv) {
  int i;
  for (i = 1; i < argc; i++) {
    pid_t child = fork();
    if (child == 0) {
      static uint8_t data[1 << 20];
      size_t n;
      FILE *f = fopen(argv[i], "rb");
      int s[] = {SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL, SIGALRM};
      unsigned k;
      for (k = 0; k < sizeof s / sizeof *s; k++)
        signal(s[k], dump);
      if (!f)
        _exit(2);
      n = fread(data, 1, sizeof data, f);
      fclose(f);
      alarm(3);
      cooptest_run(data, n);
      exit(0);
    }
    waitpid(child, 0, 0);
  }
  return 0;
}
"""


def program(name: str) -> list[str]:
    """The arguments naming the library for cooptest (its files and folders absolute)."""
    return [a if a.startswith("-") else str(LIBRARIES / a) for a in PROGRAMS[name]]


def sources(name: str) -> tuple[list[str], list[str]]:
    """The library's C files and the flags that build them."""
    files, flags, args = [], [], program(name)
    i = 0
    while i < len(args):
        if args[i] == "-I":
            flags += ["-I", args[i + 1]]
            i += 2
            continue
        path = Path(args[i])
        files += sorted(map(str, path.rglob("*.c"))) if path.is_dir() else [str(path)]
        i += 1
    return files, flags + [f"-I{d}" for d in dict.fromkeys(os.path.dirname(f) for f in files)]


def cooptest(*args: object, timeout: float | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cooptest.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def gcov_json(root: Path, objects: Path) -> dict:
    """gcovr's JSON of the files under ``root`` (the library's: its headers too, jsmn's
    code is in one) but cooptest's own, from the counters under ``objects``."""
    excluded = ["cooptest/", "tests/", "cooptest_harness\\.c$"]
    out = subprocess.run([sys.executable, "-m", "gcovr", "--root", str(root), "--object-directory", str(objects),
                          *(a for e in excluded for a in ("--exclude", e)), "--json", "-", str(objects)],
                         capture_output=True, text=True, check=True, cwd=root)  # filters are relative to it
    return json.loads(out.stdout)


def branches(doc: dict, by_function: bool = False) -> dict[str, list[int]]:
    """[covered, total] gcc branches overall (key ""), or per function."""
    counts: dict[str, list[int]] = {}
    for f in doc["files"]:
        functions = sorted((fn["lineno"], fn["name"]) for fn in f.get("functions", []))
        for line in f["lines"]:
            key = ""
            if by_function:
                key = line.get("function_name") or next(
                    (n for ln, n in reversed(functions) if ln <= line["line_number"]), "?")
            c = counts.setdefault(key, [0, 0])
            for b in line.get("branches", []):
                c[1] += 1
                c[0] += b["count"] > 0
    return counts


def percent(c: list[int]) -> float | None:
    return round(100.0 * c[0] / c[1], 1) if c[1] else None


def exported(name: str, suite: Path, out: Path, *options: str) -> tuple[dict, str]:
    """``cooptest export`` of ``suite`` and its gcov JSON (after make coverage)."""
    proc = cooptest("export", *program(name), "--all-functions", suite, "--out", out, *options)
    if not (out / "cov").is_dir():
        raise SystemExit(f"{name}: export {' '.join(options)} failed: {proc.stdout}{proc.stderr}")
    return gcov_json(out, out / "cov"), proc.stdout.strip()


def fuzz(name: str, harness: Path, out: Path, seconds: int) -> tuple[dict, int]:
    """libFuzzer on ``harness`` for ``seconds``; the gcov JSON of its corpus, its size."""
    files, flags = sources(name)
    out.mkdir(parents=True, exist_ok=True)
    (out / "driver.c").write_text(FUZZ_DRIVER)
    (out / "entry.c").write_text(FUZZ_ENTRY)
    (out / "replay.c").write_text(REPLAY_MAIN)
    renamed = ["-Dmain=cooptest_harness_main"]
    library = ["-Dmain=__cooptest_library_main"]
    objects = []
    for i, f in enumerate(files):  # the library, instrumented for the fuzzer
        objects.append(str(out / f"lib{i}.o"))
        subprocess.run(["clang", "-O1", "-g", "-w", "-fsanitize=fuzzer-no-link", *flags, *library,
                        "-c", f, "-o", objects[-1]], check=True)
    subprocess.run(["clang", "-O1", "-g", "-w", "-fsanitize=fuzzer-no-link", *flags, *renamed, "-c",
                    str(harness), "-o", str(out / "harness.o")], check=True)
    subprocess.run(["clang", "-O1", "-g", "-w", "-fsanitize=fuzzer", *objects, str(out / "harness.o"),
                    str(out / "driver.c"), str(out / "entry.c"), "-o", str(out / "fuzzer")], check=True)
    corpus = out / "corpus"
    shutil.rmtree(corpus, ignore_errors=True)
    corpus.mkdir()
    for old in (*out.glob("crash-*"), *out.glob("timeout-*"), *out.glob("oom-*")):
        old.unlink()
    subprocess.run([str(out / "fuzzer"), "-fork=1", "-ignore_crashes=1", "-ignore_timeouts=1",
                    "-ignore_ooms=1", f"-max_total_time={seconds}", "-timeout=3", str(corpus)],
                   cwd=out, capture_output=True)
    gcov = out / "gcov"
    shutil.rmtree(gcov, ignore_errors=True)
    gcov.mkdir()
    built = []
    for i, f in enumerate(files):  # the same gcc --coverage build as the exports'
        built.append(str(gcov / f"lib{i}.o"))
        subprocess.run(["gcc", "-std=gnu11", "-O0", "-w", "--coverage", *flags, *library, "-c", f,
                        "-o", built[-1]], check=True)
    subprocess.run(["gcc", "-std=gnu11", "-O0", "-w", *flags, *renamed, "-c", str(harness), "-o",
                    str(gcov / "harness.o")], check=True)
    subprocess.run(["gcc", "-std=gnu11", "-O0", "-w", *built, str(gcov / "harness.o"), str(out / "driver.c"),
                    str(out / "replay.c"), "--coverage", "-o", str(gcov / "replay")], check=True)
    # the corpus keeps what covered more; a crash, timeout or out-of-memory input is
    # kept beside it (cooptest's suite keeps its crashing tests too)
    inputs = sorted([*map(str, corpus.iterdir()), *(str(p) for kind in ("crash", "timeout", "oom")
                                                    for p in out.glob(f"{kind}-*"))])
    for start in range(0, len(inputs), 500):
        subprocess.run([str(gcov / "replay"), *inputs[start:start + 500]], cwd=gcov, capture_output=True)
    return gcov_json(LIBRARIES / PROGRAMS[name][0].split("/")[0], gcov), len(inputs)


def measure(name: str, budget: int, out: Path) -> dict:
    run = out / name
    shutil.rmtree(run, ignore_errors=True)
    gen = cooptest("generate", *program(name), "--all-functions", "--budget", budget, "--out",
                   run / "cooptest", "--quiet")
    if gen.returncode != 0:
        raise SystemExit(f"{name}: generate failed: {gen.stderr}")
    report = json.loads((run / "cooptest" / "report.json").read_text())
    suite = run / "cooptest" / "test-suite.zip"
    inputs, _ = exported(name, suite, run / "export")
    unit, unit_line = exported(name, suite, run / "unit", "--framework", "plain")
    fuzzed, corpus = fuzz(name, run / "cooptest" / "harness.c", run / "libfuzzer", budget)
    per = {k: branches(d, by_function=True) for k, d in (("cooptest", inputs), ("libfuzzer", fuzzed))}
    summary = report["summary"]
    return {"library": name, "functions": report["harness"]["functions"],
            "skipped": report["harness"]["skipped"], "goals": summary["goals"],
            "covered": summary["covered"], "infeasible": summary["infeasible"], "cov_f": summary["cov_f"],
            "tests": summary["tests"], "gcov_cooptest": percent(branches(inputs)[""]),
            "gcov_unit_tests": percent(branches(unit)[""]), "gcov_libfuzzer": percent(branches(fuzzed)[""]),
            "branches": branches(inputs)[""][1], "libfuzzer_corpus": corpus, "unit_tests": unit_line,
            "per_function": {f: {"cov_f": report["functions"].get(f, {}).get("cov_f"),
                                 "gcov_cooptest": percent(per["cooptest"].get(f, [0, 0])),
                                 "gcov_libfuzzer": percent(per["libfuzzer"].get(f, [0, 0])),
                                 "branches": per["cooptest"].get(f, [0, 0])[1]}
                             for f in report["harness"]["functions"]}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=int, default=60)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--only", default=",".join(PROGRAMS))
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for name in args.only.split(","):
        rows.append(measure(name, args.budget, args.out.resolve()))
        (args.out / "libraries.json").write_text(json.dumps(rows, indent=1))
        r = rows[-1]
        print(f"{name}: {len(r['functions'])} functions, cov_f {r['cov_f']}%, gcov branches "
              f"cooptest {r['gcov_cooptest']}% / unit tests {r['gcov_unit_tests']}% / libFuzzer "
              f"{r['gcov_libfuzzer']}% of {r['branches']}", flush=True)
    print("\n| library | functions | goals | cov_f | gcov branches: cooptest | its unit tests | libFuzzer | gcc branches |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['library']} | {len(r['functions'])} | {r['goals']} | {r['cov_f']}% | {r['gcov_cooptest']}% "
              f"| {r['gcov_unit_tests']}% | {r['gcov_libfuzzer']}% | {r['branches']} |")
    print("\n| function | cov_f | gcov branches: cooptest | libFuzzer | gcc branches |")
    print("|---|---|---|---|---|")
    for r in rows:
        for f, p in r["per_function"].items():
            print(f"| {r['library']}: {f} | {p['cov_f']}% | {p['gcov_cooptest']}% | {p['gcov_libfuzzer']}% "
                  f"| {p['branches']} |")


if __name__ == "__main__":
    main()
