#!/usr/bin/env python3
"""Places in src/ that name a C library function: lines of Python (not comments) holding a
string literal that libc.so.6 exports (nm -D) or a __builtin_ name, the figure of issue 41's
"one model of the C library". Literals that are no C function (search strategies, message
kinds, gcc attributes, edge kinds) are left out by NOISE_FILES and noise().

    python benchmarks/libc_names.py [src] [-v]
"""
import re, subprocess, sys, pathlib, collections
libc = subprocess.run(["gcc", "-print-file-name=libc.so.6"], capture_output=True, text=True).stdout.strip()
nm = subprocess.run(["nm", "-D", "--defined-only", libc], capture_output=True, text=True).stdout
names = {l.split()[-1].split("@")[0] for l in nm.splitlines() if l.split()[1] in "TtWiI"}
names |= {"kmalloc", "kzalloc", "xmalloc", "alloca", "assert", "__VERIFIER_assert"}
NOISE_FILES = ("attributes.py", "parallel.py", "live_coverage.py", "runner.py", "harness/replay.py", "progress.py", "portfolio.py", "registry.py", "random_testing.py", "mgp.py", "cli.py", "concolic/padding.py")
def noise(f, n):
    """Literals that are not C function names: search strategies and fresh inputs ("random"), message kinds,
    gcc attributes, multiprocessing contexts, edge kinds ("abort" of a TerminateEdge)."""
    s = str(f)
    if any(s.endswith(x) for x in NOISE_FILES): return True
    if n in ("error", "index", "signal"): return True
    if n == "abort" and s.endswith(("ir.py", "concolic/symbolic_execution.py", "concolic/cfa_facts.py")): return True
    return False
root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "src")
lines = 0; hits = 0; per = collections.Counter()
for f in sorted(root.rglob("*.py")):
    for i, line in enumerate(f.read_text().splitlines(), 1):
        code = line.split("#")[0] if not line.lstrip().startswith("#") else ""
        lits = re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', code) + re.findall(r"'([A-Za-z_][A-Za-z0-9_]*)'", code)
        lib = [n for n in lits if (n in names or (n.startswith("__builtin_") and n != "__builtin_")) and not noise(f, n)]
        if lib:
            lines += 1; hits += len(lib); per[str(f)] += 1
for f, n in per.most_common(): print(n, f)
print("lines", lines, "literals", hits, "files", len(per))
if "-v" in sys.argv:
    for f in sorted(root.rglob("*.py")):
        for i, line in enumerate(f.read_text().splitlines(), 1):
            code = line.split("#")[0] if not line.lstrip().startswith("#") else ""
            lits = re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', code) + re.findall(r"'([A-Za-z_][A-Za-z0-9_]*)'", code)
            lib = [n for n in lits if (n in names or (n.startswith("__builtin_") and n != "__builtin_")) and not noise(f, n)]
            if lib: print(f"{f}:{i}: {lib[:8]}")
