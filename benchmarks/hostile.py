#!/usr/bin/env python3
"""Hostile programs under ``cooptest generate``: what their tests take from the machine.

    python benchmarks/hostile.py [--budget 10] [--strategy random] [--bomb] [--out DIR]

Each program reads an input, branches on it, and then abuses the machine in one way:

- ``forks``: 5,000 children that sleep (a bounded fork bomb);
- ``memory``: six children that touch 1 GB each and hold it for a second (each within
  its own 2-GB address space);
- ``capabilities``: tries to raise its hard core-file limit (root's CAP_SYS_RESOURCE)
  and reads its capability sets, and takes a branch if it holds any;
- ``bomb`` (with ``--bomb`` only: run it only where tests are capped, see the report's
  ``sandbox``): ``while (1) fork();``.

While a run lasts, the machine's processes and its available memory are sampled every
20 ms. Printed per program, as a Markdown table: the exit code, whether stderr holds a
traceback, the wall time, the peak number of processes on the machine (its baseline
before the run is given), the peak memory taken (MemAvailable's drop below its
baseline), the goals covered, whether the abuse succeeded (``capabilities``: the branch
taken when a capability is held) and the summary's ``sandbox``. Compare two revisions by
running the script under each (``PYTHONPATH=REV/src``), one after the other, on an idle
machine.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HEAD = """extern int __VERIFIER_nondet_int(void);
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
int main() {
  int x = __VERIFIER_nondet_int();
  if (x > 0) return 0;
"""
PROGRAMS = {
    "forks": "  for (int i = 0; i < 5000; i++) if (fork() == 0) { pause(); _exit(0); }\n",
    "memory": "  for (int i = 0; i < 6; i++) if (fork() == 0) {\n"
              "    char *m = malloc(1 << 30); if (m) memset(m, 1, 1 << 30); sleep(1); _exit(0); }\n"
              "  sleep(2);\n",
    "capabilities": "  char line[256]; int held = 0; struct rlimit core = {1, 1};\n"
                    "  FILE *f = fopen(\"/proc/self/status\", \"r\");\n"
                    "  while (f && fgets(line, sizeof line, f))\n"
                    "    if (!strncmp(line, \"CapEff\", 6) && strcmp(line + 6, \":\\t0000000000000000\\n\")) held = 1;\n"
                    "  if (setrlimit(RLIMIT_CORE, &core) == 0) held = 1;\n"
                    "  if (held == 1)\n    return 1;\n",
    "bomb": "  while (1) fork();\n",
}
ABUSE_LINE = {"capabilities": "if (held == 1)"}  # the branch taken when the abuse succeeds


class Sampler(threading.Thread):
    """Peak processes on the machine and lowest MemAvailable while a run lasts."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.stop = threading.Event()
        self.processes, self.available = processes(), available_mb()
        self.base_processes, self.base_available = self.processes, self.available

    def run(self) -> None:
        while not self.stop.wait(0.02):
            self.processes = max(self.processes, processes())
            self.available = min(self.available, available_mb())


def processes() -> int:
    return sum(1 for p in os.listdir("/proc") if p.isdigit())


def available_mb() -> int:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    return 0


def run(name: str, source: str, args: argparse.Namespace, work: Path) -> dict:
    program = work / f"{name}.c"
    program.write_text(HEAD + source + "  return 0;\n}\n")
    out = work / f"{name}-out"
    sampler = Sampler()
    sampler.start()
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "cooptest.cli", "generate", str(program), "--budget",
                           str(args.budget), "--strategy", args.strategy, "--out", str(out), "--quiet"],
                          capture_output=True, text=True)
    wall = time.monotonic() - started
    sampler.stop.set()
    sampler.join()
    row = {"program": name, "rc": proc.returncode, "traceback": "Traceback" in proc.stderr,
           "wall_s": round(wall, 1), "processes_base": sampler.base_processes,
           "processes_peak": sampler.processes,
           "memory_taken_mb": sampler.base_available - sampler.available}
    report = out / "report.json"
    if report.exists():
        doc = json.loads(report.read_text())
        summary = doc["summary"]
        row.update(covered=summary["covered"], goals=summary["goals"], sandbox=summary.get("sandbox"))
        if name in ABUSE_LINE:
            lines = program.read_text().splitlines()
            line = next(i for i, t in enumerate(lines, 1) if ABUSE_LINE[name] in t)
            row["abused"] = any(g["line"] == line and g["id"].endswith("T") and g["status"] == "covered"
                                for g in doc["goals"])
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", type=float, default=10)
    ap.add_argument("--strategy", default="random")
    ap.add_argument("--bomb", action="store_true", help="also run while (1) fork(); (capped machines only)")
    ap.add_argument("--out", default=None, help="folder for the programs and their outputs")
    args = ap.parse_args()
    work = Path(args.out or tempfile.mkdtemp(prefix="hostile-"))
    work.mkdir(parents=True, exist_ok=True)
    rows = [run(name, source, args, work) for name, source in PROGRAMS.items()
            if name != "bomb" or args.bomb]
    (work / "rows.json").write_text(json.dumps(rows, indent=1))
    print("| program | rc | traceback | wall s | processes (base → peak) | memory taken MB "
          "| covered / goals | abused | sandbox |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['program']} | {r['rc']} | {r['traceback']} | {r['wall_s']} | "
              f"{r['processes_base']} → {r['processes_peak']} | {r['memory_taken_mb']} | "
              f"{r.get('covered')} / {r.get('goals')} | {r.get('abused', '')} | {r.get('sandbox')} |")


if __name__ == "__main__":
    main()
