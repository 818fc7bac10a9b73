"""Issue 43's figures: five small real libraries (benchmarks/libraries/README.md), every
function each exports tested with ``--all-functions`` for BUDGET seconds, beside
libFuzzer run for the same time on the same harness.

    python benchmarks/libraries.py --budget 60 --out OUT [--only jsmn,crc]

Per library: cooptest's goals and cov_f (report.json); gcov branch coverage of the
library's files under cooptest's suite (``cooptest export``, ``make coverage``), under
the suite exported as plain unit tests (``export --framework plain``: within 1 point of
the former is the check), and under libFuzzer's corpus (clang ``-fsanitize=fuzzer``, each
``__VERIFIER_nondet_*`` value the next bytes of the fuzzer's input, zeros past its end;
a crash returning to the fuzzer, which goes on), its corpus and the inputs it found
crashing replayed on a gcc ``--coverage``
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
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LIBRARIES = REPO / "benchmarks" / "libraries"
# name: the library's files or folders, and the options cooptest and the builds take;
# c-timestamp parses RFC 3339 timestamps, 20 characters at least: arrays of 32, not 8
PROGRAMS = {"jsmn": (["jsmn/jsmn.c"], []), "base64": (["base64/base64.c"], []),
            "ringbuffer": (["ringbuffer/ringbuffer.c"], []), "crc": (["crc/src"], ["-I", "crc/include"]),
            "timestamp": (["timestamp"], ["--max-array", "32"])}

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
# A crash or an abort returns to libFuzzer (its own handlers off), which goes on with the
# next input: the harness's NULL arguments crash many functions at once, and a fuzzer
# that stops, or restarts a job (-fork), at each crash spends its time restarting.
FUZZ_ENTRY = r"""
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
void cooptest_run(const uint8_t *data, size_t size);
static sigjmp_buf cooptest_escape;
static void cooptest_crashed(int sig) { siglongjmp(cooptest_escape, sig); }
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  int s[] = {SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL};
  struct sigaction sa;
  unsigned k;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = cooptest_crashed;
  sa.sa_flags = SA_NODEFER;
  for (k = 0; k < sizeof s / sizeof *s; k++)
    sigaction(s[k], &sa, 0);
  return 0;
}
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (sigsetjmp(cooptest_escape, 1) == 0)
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
    paths, options = PROGRAMS[name]
    return [str(LIBRARIES / p) for p in paths] + [
        str(LIBRARIES / o) if i and options[i - 1] == "-I" else o for i, o in enumerate(options)]


def sources(name: str) -> tuple[list[str], list[str]]:
    """The library's C files and the flags that build them."""
    paths, options = PROGRAMS[name]
    files = [f for p in paths for f in (sorted(map(str, (LIBRARIES / p).rglob("*.c")))
                                        if (LIBRARIES / p).is_dir() else [str(LIBRARIES / p)])]
    flags = [f"-I{LIBRARIES / o}" for i, o in enumerate(options) if i and options[i - 1] == "-I"]
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
    end = time.monotonic() + seconds
    while (left := int(end - time.monotonic())) > 0:  # again after a timeout or out of memory
        with open(out / "fuzzer.log", "a") as log:  # a process it starts may keep a pipe open
            proc = subprocess.Popen([str(out / "fuzzer"), "-handle_segv=0", "-handle_abrt=0", "-handle_fpe=0",
                                     "-handle_bus=0", "-handle_ill=0", "-rss_limit_mb=1024",
                                     f"-max_total_time={left}", "-timeout=3", str(corpus)],
                                    cwd=out, stdout=log, stderr=log, stdin=subprocess.DEVNULL,
                                    start_new_session=True)
            try:
                proc.wait(timeout=left + 10)
            except subprocess.TimeoutExpired:  # a crash left the heap locked: a deadlock
                pass
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
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
    return gcov_json(LIBRARIES / PROGRAMS[name][0][0].split("/")[0], gcov), len(inputs)


def measure(name: str, budget: int, out: Path, before: dict | None = None) -> dict:
    """One library's row; ``before``: its row of an earlier run, whose cooptest run and
    exports are taken as they are (libFuzzer alone again)."""
    run = out / name
    if before is not None:
        inputs, unit = gcov_json(run / "export", run / "export" / "cov"), gcov_json(run / "unit", run / "unit" / "cov")
        unit_line = before["unit_tests"]
    else:
        shutil.rmtree(run, ignore_errors=True)
        gen = cooptest("generate", *program(name), "--all-functions", "--budget", budget, "--out",
                       run / "cooptest", "--quiet")
        if gen.returncode != 0:
            raise SystemExit(f"{name}: generate failed: {gen.stderr}")
        suite = run / "cooptest" / "test-suite.zip"
        inputs, _ = exported(name, suite, run / "export")
        unit, unit_line = exported(name, suite, run / "unit", "--framework", "plain")
    report = json.loads((run / "cooptest" / "report.json").read_text())
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
    ap.add_argument("--fuzz-only", action="store_true", help="libFuzzer again beside the cooptest runs in OUT")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    before = {r["library"]: r for r in json.loads((args.out / "libraries.json").read_text())} \
        if args.fuzz_only else {}
    for name in args.only.split(","):
        rows.append(measure(name, args.budget, args.out.resolve(), before.get(name) if args.fuzz_only else None))
        (args.out / "libraries.json").write_text(json.dumps(rows, indent=1))
        r = rows[-1]
        print(f"{name}: {len(r['functions'])} functions, cov_f {r['cov_f']}%, gcov branches "
              f"cooptest {r['gcov_cooptest']}% / unit tests {r['gcov_unit_tests']}% / libFuzzer "
              f"{r['gcov_libfuzzer']}% of {r['branches']}", flush=True)
    table(rows)


def shown(value: float | None) -> str:
    return "—" if value is None else f"{value}%"


def table(rows: list[dict]) -> None:
    """The tables for benchmarks/RESULTS.md."""
    print("\n| library | functions | goals | cov_f | gcov branches: cooptest | its unit tests | libFuzzer "
          "| gcc branches |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['library']} | {len(r['functions'])} | {r['goals']} | {r['cov_f']}% | "
              f"{shown(r['gcov_cooptest'])} | {shown(r['gcov_unit_tests'])} | {shown(r['gcov_libfuzzer'])} "
              f"| {r['branches']} |")
    print("\n| function | cov_f | gcov branches: cooptest | libFuzzer | gcc branches |")
    print("|---|---|---|---|---|")
    for r in rows:
        for f, p in r["per_function"].items():
            print(f"| {r['library']}: {f} | {p['cov_f']}% | {shown(p['gcov_cooptest'])} | "
                  f"{shown(p['gcov_libfuzzer'])} | {p['branches']} |")


if __name__ == "__main__":
    main()
