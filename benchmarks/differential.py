#!/usr/bin/env python3
"""Differential testing of cooptest's provers against gcc, on random programs by Csmith.

    python benchmarks/differential.py [--first 1] [--count 2000] [--jobs 1] [--seconds 2]
                                      [--methods value,predicate,...] [--out DIR]

A Csmith program reads no input: one native run of gcc's build decides every branch, so
every goal that run does not reach is infeasible and every one it reaches is not. For
each seed the script

1. generates the program with ``csmith --seed SEED`` and the fixed ``OPTIONS`` below;
2. builds it with gcc for the seed's data model (odd seeds ``-m32``, even ``-m64``) with
   its observations (the ``csmith_sink_ = E;`` lines, where Csmith's checksum would
   hash each global) printed, and runs it: the native values;
3. turns each observation into a goal pair, ``if ((unsigned long long)(E) !=
   diff_expected[k]) ...`` with the native values in the array: the outcome ``!=``
   true is infeasible exactly when cooptest's semantics of the program agrees with
   gcc's, so a prover that proves it computed the value gcc computes, and a prover that
   proves the other outcome infeasible computed another;
4. runs every method of ``--methods`` on it, each on a fresh board with ``--seconds`` of
   budget, and checks each infeasibility claim against the native run of cooptest's own
   build (instrumented, by gcc): a claimed goal that run reaches is a *contradiction*;
   a reached ``!=`` outcome means the instrumented build computes another value than
   gcc's plain build (*build mismatch*).

Programs the front end refuses are counted (``refused``) with the first line of the
reason. Prints one line per contradiction and per mismatch, and a summary: programs,
claims per method, contradictions, mismatches. ``--out`` keeps every program (and a
JSON line per seed in ``results.jsonl``); a run given the same ``--out`` again reads back
the seeds already there instead of checking them, so a stopped run resumes and a longer
range extends a shorter one, and the summary covers every seed of the range. Seeds,
options and data models are fixed, so two runs check the same programs; the number of
claims depends on the budget and the machine's load, the contradictions must be 0 at any
budget.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

CSMITH = "csmith"
CSMITH_INCLUDE = "/usr/include/csmith"  # Debian's libcsmith-dev
OPTIONS = (
    # small programs that a prover can decide within seconds: few functions, shallow
    # blocks, short expressions, small one-dimensional arrays
    "--max-funcs", "3", "--max-block-depth", "2", "--max-block-size", "3",
    "--max-expr-complexity", "4", "--max-array-dim", "1", "--max-array-len-per-dim", "3",
    "--max-struct-fields", "4", "--max-union-fields", "3", "--max-pointer-depth", "2",
    # observations instead of a CRC over them (a CRC's table is 2,048 iterations of
    # arithmetic before the first goal), main without argc/argv, no comments
    "--no-checksum", "--no-argc", "--concise",
    # volatile reads are the one thing a native run may not repeat; the front end
    # refuses the bit-fields of packed structs (``#pragma pack(1)``), which Csmith's
    # packed structs nearly always have
    "--no-volatiles", "--no-volatile-pointers", "--no-packed-struct",
)
"""Csmith's options, fixed: every other construct it generates (pointers, structs,
unions, bit-fields, goto, 64-bit arithmetic, safe-math wrappers, ...) stays in."""
METHODS = ("value", "predicate", "chc", "fields", "callgraph", "concolic")
SINK = re.compile(r"^(\s*)csmith_sink_ = (.*);$", re.M)
MAIN = "int main (void)"


@dataclass
class Result:
    """What one seed gave."""

    seed: int
    data_model: str
    refused: str = ""  # why the program was not checked (front end, csmith, gcc)
    goals: int = 0
    observations: int = 0
    claims: dict[str, int] = field(default_factory=dict)  # method -> goals it proved infeasible
    values: dict[str, int] = field(default_factory=dict)  # method -> observations proved gcc's value
    contradictions: list[str] = field(default_factory=list)  # "method goal (condition)"
    mismatches: list[str] = field(default_factory=list)  # observations cooptest's build disagrees on


def data_model(seed: int) -> str:
    return "ILP32" if seed % 2 else "LP64"


def generate(seed: int, folder: Path) -> str:
    """Csmith's program for ``seed``."""
    out = folder / f"csmith-{seed}.c"
    subprocess.run([CSMITH, "--seed", str(seed), *OPTIONS, "-o", str(out)], check=True,
                   capture_output=True, timeout=60, cwd=folder)  # it writes platform.info there
    return out.read_text()


def observed(source: str, seed: int, folder: Path) -> list[int]:
    """The values of the program's observations, in the order gcc's build makes them."""
    probe = folder / f"probe-{seed}.c"
    probe.write_text(SINK.sub(r'\1printf("observed %llu\\n", (unsigned long long)(\2));', source))
    binary = folder / f"probe-{seed}"
    subprocess.run(["gcc", "-w", "-m32" if seed % 2 else "-m64", "-isystem", CSMITH_INCLUDE,
                    str(probe), "-o", str(binary)], check=True, capture_output=True, timeout=120)
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=20, check=True)
    return [int(line.split()[1]) for line in run.stdout.splitlines() if line.startswith("observed ")]


def checked(source: str, values: list[int]) -> str:
    """The program with each observation a goal pair over its native value."""
    table = (f"static const unsigned long long diff_expected[{max(len(values), 1)}] = "
             f"{{{', '.join(f'{v}ULL' for v in values) or '0'}}};\nstatic int diff_at, diff_wrong;\n")
    body = SINK.sub(r"\1if ((unsigned long long)(\2) != diff_expected[diff_at++]) { diff_wrong++; }", source)
    return body.replace(MAIN, table + MAIN, 1)


def check(seed: int, seconds: float, methods: tuple[str, ...], keep: Path | None) -> Result:
    """Generate, observe, and check every method's claims on the program of ``seed``."""
    from cooptest.cfa.ctype import DataModel
    from cooptest.core.analysis import Job
    from cooptest.core.board import GoalBoard
    from cooptest.core.budget import Budget
    from cooptest.core.registry import make_analysis
    from cooptest.errors import UserError
    from cooptest.frontend import load_program
    from cooptest.harness.executor import Executor
    from cooptest.task import BRANCHES, Source, Task

    result = Result(seed, data_model(seed))
    with tempfile.TemporaryDirectory(prefix="differential-") as work:
        folder = Path(work)
        try:
            source = generate(seed, folder)
            values = observed(source, seed, folder)
        except (subprocess.SubprocessError, OSError) as e:
            result.refused = f"native: {type(e).__name__}"
            return result
        result.observations = len(values)
        program = folder / f"diff-{seed}.c"
        program.write_text(checked(source, values))
        if keep is not None:
            shutil.copy(program, keep / program.name)
        task = Task(str(program), DataModel(result.data_model), (BRANCHES,),
                    sources=(Source(str(program), ("-isystem", CSMITH_INCLUDE)),))
        try:
            frontend = load_program(task, str(folder / "work"))
        except UserError as e:
            result.refused = str(e).splitlines()[0]
            return result
        executor = Executor(frontend, str(folder / "work"))
        native = executor.run([])
        goals = {g.id: g for g in frontend.program.goals()}
        result.goals = len(goals)
        checks = {g.id for g in goals.values() if "diff_expected[" in g.condition}
        result.mismatches = sorted(f"{g} line {goals[g].line}" for g in native.covered & checks
                                   if g.endswith("T"))
        for method in methods:
            board = GoalBoard(frontend.program, executor)
            make_analysis(method).run(board, Job(board.open(), Budget.seconds(seconds)))
            result.claims[method] = len(board.infeasible)
            result.values[method] = sum(g in checks and g.endswith("T") for g in board.infeasible)
            result.contradictions += [f"{method} {g} line {goals[g].line} ({goals[g].condition}): "
                                      f"{board.infeasible[g][:120]}"
                                      for g in sorted(set(board.infeasible) & native.covered)]
    return result


def recorded(log: Path, seeds: range) -> dict[int, Result]:
    """The results ``log`` already holds for ``seeds``: what an earlier run checked."""
    if not log.exists():
        return {}
    results = (Result(**json.loads(line)) for line in log.read_text().splitlines() if line.strip())
    return {r.seed: r for r in results if r.seed in seeds}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--first", type=int, default=1, help="first seed (1)")
    ap.add_argument("--count", type=int, default=2000, help="number of seeds (2000)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=2.0, help="budget of each method per program")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--out", type=Path, help="keep the programs and results.jsonl here")
    args = ap.parse_args()
    if shutil.which(CSMITH) is None or not os.path.isdir(CSMITH_INCLUDE):
        print("differential: needs csmith and libcsmith-dev (scripts/setup.sh)", file=sys.stderr)
        return 2
    methods = tuple(m for m in args.methods.split(",") if m)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    seeds = range(args.first, args.first + args.count)
    done = recorded(args.out / "results.jsonl", seeds) if args.out else {}
    log = open(args.out / "results.jsonl", "a") if args.out else None
    results: list[Result] = list(done.values())
    with ProcessPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(check, s, args.seconds, methods, args.out) for s in seeds if s not in done]
        for future in futures:
            r = future.result()
            results.append(r)
            for line in r.contradictions:
                print(f"CONTRADICTION seed {r.seed} ({r.data_model}): {line}", flush=True)
            for line in r.mismatches:
                print(f"BUILD MISMATCH seed {r.seed} ({r.data_model}): {line}", flush=True)
            if log:
                log.write(json.dumps(asdict(r)) + "\n")
                log.flush()
    results.sort(key=lambda r: r.seed)
    checked_ = [r for r in results if not r.refused]
    claims = {m: sum(r.claims.get(m, 0) for r in checked_) for m in methods}
    refusals: dict[str, int] = {}
    for r in results:
        if r.refused:
            reason = re.sub(r"^\S+:\d+: ", "", r.refused)
            refusals[reason] = refusals.get(reason, 0) + 1
    print(f"seeds {seeds.start}..{seeds.stop - 1} ({len(results)} results, {len(done)} read back): "
          f"{len(checked_)} programs checked, "
          f"{len(results) - len(checked_)} refused; {sum(r.goals for r in checked_)} goals, "
          f"{sum(r.observations for r in checked_)} observations")
    print("claims: " + ", ".join(f"{m} {n}" for m, n in claims.items()) + f" (total {sum(claims.values())})")
    print("observations proved equal to gcc's value: " + ", ".join(
        f"{m} {sum(r.values.get(m, 0) for r in checked_)}" for m in methods))
    print(f"contradictions: {sum(len(r.contradictions) for r in results)}; "
          f"build mismatches: {sum(len(r.mismatches) for r in results)}")
    for reason, n in sorted(refusals.items(), key=lambda kv: -kv[1]):
        print(f"refused {n}: {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
