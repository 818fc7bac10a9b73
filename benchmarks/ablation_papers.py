#!/usr/bin/env python3
"""Ablations as the papers ran them (issue 40), each beside the paper's own ranking.

``cgs``: the CGS paper's Figure 8 (Seo & Kim, FSE 2014): context-guided search with a
fixed k = 1, 2, 3 against incremental k, and without dominators, plus cooptest's
``cgs-eager``; goals covered after a number of iterations (native runs), so that the
figures measure the search, not the machine's load. Subjects: the paper's own replace
(CREST's Siemens program), the CGS seed examples and dev tasks of real C code.

``reuse``: CoVeriTest's nine reuse types (Beyer & Jakobs, FASE 2019, Sect. 3) at one
time pair, on the seed examples and dev tasks: goals covered and decided, per task and
in total (one ``generate --strategy coveritest`` run each).

    python benchmarks/ablation_papers.py cgs [--iterations 500] [--budget 90] [--out DIR]
        [--configs cfg carfast]   (the other searches; PYTHONPATH=OLD/src --out OLD-DIR for
                                   the revision before)
    python benchmarks/ablation_papers.py reuse [--pair 20/80] [--budget 20] [--out DIR]
    python benchmarks/ablation_papers.py crabs [--budget 30] [--out DIR]
    python benchmarks/ablation_papers.py mgp [--budget 30] [--out DIR]
    python benchmarks/ablation_papers.py bite [--budget 30] [--out DIR]

``crabs``: Crabs with and without monitors (Daca, Gupta & Henzinger, VMCAI 2016, its
question whether the model checker's abstraction helps concolic testing), and with
cooptest's own CFG-directed rule in place of CREST's (``--search cfg``), on the seed
examples and the ntdrivers dev tasks (SV-COMP device drivers, the kind of category the
paper ran). ``mgp``: Tiger-MGP's partitionings (Ruland et al., STTT 2021): random and
proximity with 1, 4 and 8 partitions, size with 1, 4 and 8 goals per partition (one
``generate --strategy mgp`` run each).

``bite``: BiTe's frontier orders (Baluda, Denaro & Pezzè, TSE 2016): its Algorithm 2
with the frontier edges in the order found (the paper's) or nearest R-state first, and
cooptest's own ``balanced`` steps, on the seed examples and the ntdrivers and openssl
dev tasks (the C programs of the paper's panel); the revision before: this script
copied into its checkout, ``--configs nearest`` (its default then), ``--out OLD-DIR``.

Results are kept in ``DIR/<mode>.json`` (one entry per run, written after each), so an
interrupted table resumes; ``--table`` prints it without running anything.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "benchmarks"
SEEDS = SHARED / "seed-examples"
TESTCOMP = SHARED / "testcomp"
REPLACE = SHARED / "realworld" / "crest" / "replace" / "replace.c"

CGS_SUBJECTS = {
    "replace": REPLACE,
    "context.c": SEEDS / "context.c",
    "branches.c": SEEDS / "branches.c",
    "kbfiltr-2": TESTCOMP / "ntdrivers" / "kbfiltr.i.cil-2.yml",
    "s3_srvr.01-2": TESTCOMP / "openssl" / "s3_srvr.blast.01.i.cil-2.yml",
    "pals_lcr": TESTCOMP / "combinations" / "pals_lcr.3.1.ufo.UNBOUNDED.pals+Problem12_label02.yml",
}
# search name and searcher options of each configuration of the CGS ablation
CGS_CONFIGS: dict[str, tuple[str, dict[str, Any]]] = {
    "cgs (incremental k)": ("cgs", {}),
    "cgs k=1": ("cgs", {"k": 1}),
    "cgs k=2": ("cgs", {"k": 2}),
    "cgs k=3": ("cgs", {"k": 3}),
    "cgs, no dominators": ("cgs", {"dominators": False}),
    "cgs-eager": ("cgs-eager", {}),
}
# the other searches issue 40 changed, for runs of two revisions (PYTHONPATH=OLD/src)
OTHER_CONFIGS: dict[str, tuple[str, dict[str, Any]]] = {"cfg": ("cfg", {}), "carfast": ("carfast", {})}
CGS_PAPER = ("incremental k is the paper's choice, its best in Figure 8 against fixed k; "
             "dominators are left out of contexts (its Algorithm 2). The paper's own figures "
             "could not be read here: the ranking is the paper's choice, not its numbers")

REUSE_TYPES = ("plain", "cond-v", "cond-p", "cond-vp", "reuse-prec", "reuse-arg",
               "cond-v+r", "cond-p+r", "cond-vp+r")
REUSE_SUBJECTS = {
    "loop_foo.c": SEEDS / "loop_foo.c",
    "unreach.c": SEEDS / "unreach.c",
    "check_valves.c": SEEDS / "check_valves.c",
    "simple_while.c": SEEDS / "simple_while.c",
    "jain_1-2": TESTCOMP / "bitvector" / "jain_1-2.yml",
    "nested_1b": TESTCOMP / "loop-simple" / "nested_1b.yml",
    "bhmr2007": TESTCOMP / "loop-lit" / "bhmr2007.yml",
    "kbfiltr-2": TESTCOMP / "ntdrivers" / "kbfiltr.i.cil-2.yml",
}
CRABS_SUBJECTS = {
    **{p.name: p for p in sorted(SEEDS.glob("*.c"))},
    "kbfiltr-1": TESTCOMP / "ntdrivers" / "kbfiltr.i.cil-1.yml",
    "kbfiltr-2": TESTCOMP / "ntdrivers" / "kbfiltr.i.cil-2.yml",
    "diskperf-1": TESTCOMP / "ntdrivers" / "diskperf.i.cil-1.yml",
}
CRABS_CONFIGS = {"crabs": ["--strategy", "crabs"],
                 "crabs --no-monitor": ["--strategy", "crabs", "--no-monitor"],
                 "crabs --search cfg": ["--strategy", "crabs", "--search", "cfg"]}
CRABS_PAPER = ("monitors help: the abstraction prunes concolic search and Crabs covers more "
               "branches than concolic testing alone (66% -> 71% on average, 48% -> 63% at "
               "best, the paper's abstract); the paper's tables could not be read here")
MGP_SUBJECTS = {
    "unreach.c": SEEDS / "unreach.c",
    "check_valves.c": SEEDS / "check_valves.c",
    "jain_1-2": TESTCOMP / "bitvector" / "jain_1-2.yml",
    "nested_1b": TESTCOMP / "loop-simple" / "nested_1b.yml",
    "bhmr2007": TESTCOMP / "loop-lit" / "bhmr2007.yml",
    "kbfiltr-2": TESTCOMP / "ntdrivers" / "kbfiltr.i.cil-2.yml",
}
MGP_CONFIGS = {
    **{f"{kind} n={n}": ["--strategy", "mgp", "--partitioning", kind, "--partitions", str(n)]
       for kind in ("random", "proximity") for n in (1, 4, 8)},
    **{f"size k={k}": ["--strategy", "mgp", "--partitioning", "size", "--partition-size", str(k)]
       for k in (1, 4, 8)},
}
MGP_PAPER = ("random with 4 partitions is the paper's best partitioning (Ruland et al., "
             "STTT 2021); the paper's figures per partitioning could not be read here")
BITE_SUBJECTS = {
    **{p.name: p for p in sorted(SEEDS.glob("*.c"))},
    "kbfiltr-1": TESTCOMP / "ntdrivers" / "kbfiltr.i.cil-1.yml",
    "diskperf-1": TESTCOMP / "ntdrivers" / "diskperf.i.cil-1.yml",
    "s3_srvr.01-2": TESTCOMP / "openssl" / "s3_srvr.blast.01.i.cil-2.yml",
    "s3_srvr.13-1": TESTCOMP / "openssl" / "s3_srvr.blast.13.i.cil-1.yml",
}
BITE_CONFIGS = {order: ["--strategy", "bite", "--frontier-order", order]
                for order in ("found", "nearest", "balanced")}
BITE_PAPER = ("the paper's Algorithm 2 takes one frontier edge per iteration (found, nearest); "
              "it reports branch coverage and infeasible branches per subject, not an "
              "ablation of the order, and its figures could not be read here")
REUSE_PAPER = ("reuse-arg with 20/80 is the paper's best configuration (Beyer & Jakobs, "
               "FASE 2019), cooptest's default; the paper's figures per reuse type could "
               "not be read here")


def one_cgs(subject: str, config: str, iterations: int, budget: float) -> dict[str, Any]:
    """One concolic run in this process (called in a child, one per run)."""
    from cooptest.analyses.concolic import ConcolicAnalysis
    from cooptest.core.analysis import Job
    from cooptest.core.board import GoalBoard
    from cooptest.core.budget import Budget
    from cooptest.frontend import load_program
    from cooptest.harness.executor import Executor
    from cooptest.task import load_task

    search, options = (CGS_CONFIGS | OTHER_CONFIGS)[config]
    with tempfile.TemporaryDirectory() as work:
        task = load_task(str(CGS_SUBJECTS[subject]))
        fe = load_program(task, str(Path(work) / "fe"))
        board = GoalBoard(fe.program, Executor(fe, str(Path(work) / "build")))
        started = time.monotonic()
        outcome = ConcolicAnalysis(search=search, max_iterations=iterations, **options).run(
            board, Job(frozenset(board.goals), Budget.seconds(budget)))
        return {"goals": len(board.goals), "covered": len(board.covered),
                "infeasible": len(board.infeasible), "iterations": outcome.state.iterations,
                "stopped": outcome.stopped, "seconds": round(time.monotonic() - started, 1)}


def one_reuse(subject: str, reuse: str, pair: str, budget: float, out: Path) -> dict[str, Any]:
    return one_generate(REUSE_SUBJECTS[subject], ["--strategy", "coveritest", "--reuse", reuse,
                                                  "--time-pair", pair], budget, out / f"reuse-{subject}-{reuse}")


def one_generate(subject: Path, options: list[str], budget: float, folder: Path) -> dict[str, Any]:
    """One ``generate`` run with ``options``: its report's figures."""
    cmd = [sys.executable, "-m", "cooptest.cli", "generate", str(subject), *options, "--budget",
           str(budget), "--out", str(folder), "--quiet"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=budget + 120,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    if not (folder / "report.json").exists():
        return {"error": proc.stderr.strip()[-300:]}
    s = json.loads((folder / "report.json").read_text())["summary"]
    return {"goals": s["goals"], "covered": s["covered"], "infeasible": s["infeasible"],
            "stopped": s.get("stopped"), "seconds": s["time_s"], "cuts": s.get("cut", 0)}


# mode -> subjects, configurations (generate's options), default seconds per run, the paper's
# ranking; the modes run by ``generate`` with options of their own
GENERATE_MODES: dict[str, tuple[dict[str, Path], dict[str, list[str]], float, str]] = {
    "crabs": (CRABS_SUBJECTS, CRABS_CONFIGS, 30.0, CRABS_PAPER),
    "mgp": (MGP_SUBJECTS, MGP_CONFIGS, 30.0, MGP_PAPER),
    "bite": (BITE_SUBJECTS, BITE_CONFIGS, 30.0, BITE_PAPER),
}


def table(results: list[dict[str, Any]], configs: list[str], subjects: list[str], paper: str) -> str:
    """Goals covered (+ proven infeasible) per subject and configuration; the last
    column sums them; a rank per column of its best."""
    head = ["configuration", *subjects, "total decided"]
    rows = [head]
    for c in configs:
        cells, total = [c], 0
        for s in subjects:
            r = next((x for x in results if x["config"] == c and x["subject"] == s), None)
            if r is None or "error" in r:
                cells.append("-" if r is None else "error")
                continue
            decided = r["covered"] + r["infeasible"]
            total += decided
            cells.append(f"{r['covered']}+{r['infeasible']}/{r['goals']}")
        cells.append(str(total))
        rows.append(cells)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    loads = [x["load"] for x in results if "load" in x]
    note = f"load average during the runs: {min(loads):.1f}-{max(loads):.1f}" if loads else ""
    return "\n".join(["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
                     + ["", "covered+infeasible/goals; " + note, "paper: " + paper])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=("cgs", "reuse", *GENERATE_MODES, "one-cgs"))
    ap.add_argument("--iterations", type=int, default=500, help="cgs: native runs per run")
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds per run (cgs: 90, a cap the iterations should reach first; reuse: 20)")
    ap.add_argument("--pair", default="20/80", help="reuse: the time pair")
    ap.add_argument("--subjects", nargs="+", default=None)
    ap.add_argument("--configs", nargs="+", default=None)
    ap.add_argument("--out", default="ablation-out")
    ap.add_argument("--table", action="store_true")
    args, rest = ap.parse_known_args()
    if args.mode == "one-cgs":  # the child of a cgs run
        print(json.dumps(one_cgs(rest[0], rest[1], args.iterations, args.budget or 90.0)))
        return
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{args.mode}.json"
    results: list[dict[str, Any]] = json.loads(path.read_text()) if path.exists() else []
    mode_subjects: dict[str, Path]
    mode_configs: dict[str, Any]
    if args.mode in GENERATE_MODES:
        mode_subjects, mode_configs, mode_budget, paper = GENERATE_MODES[args.mode]
    else:
        mode_subjects, mode_configs, mode_budget, paper = (
            (CGS_SUBJECTS, CGS_CONFIGS, 90.0, CGS_PAPER) if args.mode == "cgs"
            else (REUSE_SUBJECTS, dict.fromkeys(REUSE_TYPES), 20.0, REUSE_PAPER))
    configs = args.configs or list(mode_configs)
    subjects = args.subjects or list(mode_subjects)
    budget = args.budget or mode_budget
    if not args.table:
        done = {(r["subject"], r["config"]) for r in results if "error" not in r}
        for subject in subjects:
            for config in configs:
                if (subject, config) in done:
                    continue
                print(f"{args.mode}: {subject} {config} ...", file=sys.stderr, flush=True)
                load = os.getloadavg()[0]
                if args.mode == "cgs":
                    proc = subprocess.run([sys.executable, __file__, "one-cgs", subject, config,
                                           "--iterations", str(args.iterations), "--budget", str(budget)],
                                          capture_output=True, text=True, timeout=budget + 300)
                    r = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 \
                        else {"error": proc.stderr.strip()[-300:]}
                elif args.mode == "reuse":
                    r = one_reuse(subject, config, args.pair, budget, out)
                else:
                    r = one_generate(mode_subjects[subject], GENERATE_MODES[args.mode][1][config], budget,
                                     out / f"{args.mode}-{subject}-{config.replace(' ', '_')}")
                r |= {"subject": subject, "config": config,
                      "load": round((load + os.getloadavg()[0]) / 2, 1)}
                results = [x for x in results if (x["subject"], x["config"]) != (subject, config)] + [r]
                path.write_text(json.dumps(results, indent=1))
                print(json.dumps(r), file=sys.stderr, flush=True)
    print(table(results, configs, subjects, paper))


if __name__ == "__main__":
    main()
