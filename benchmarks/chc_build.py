"""Which Test-Comp tasks the Horn-clause encoding (``analyses/chc.py``) takes, and how
long building their clauses takes, with and without calling contexts.

    PYTHONPATH=REV/src python benchmarks/chc_build.py [--jobs 2] [--results FILE]
        [--only CATEGORY/TASK.yml ...]

One line per task: ``IN`` with its goals and the two building times, or ``OUT`` with
the reason the encoding gives (``CHCState.why_not``); then the count of tasks in the
fragment, the reasons out of it by kind, and the building times' sum and maximum. The
code measured is whatever ``cooptest`` the interpreter imports, so two revisions compare
by running the script under each one's ``PYTHONPATH`` (the front end's work is not
timed). ``--jobs 2`` loads both cores: say so with the figures.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import tempfile
import time
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

from concolic_table import TESTCOMP


def measure(task: str) -> dict:
    """Build the clauses of one task (both encodings); the front end's time is not counted."""
    from cooptest.analyses.chc import Clauses, OutsideFragment
    from cooptest.core.budget import Budget
    from cooptest.errors import UserError
    from cooptest.frontend import load_program
    from cooptest.task import load_task

    work = tempfile.mkdtemp(prefix="chc-build-")
    try:
        program = load_program(load_task(task), work).program
        times = []
        for contexts in (False, True):
            started = time.monotonic()
            Clauses(program, contexts).build(Budget.seconds(600))
            times.append(round(time.monotonic() - started, 2))
        return {"in": True, "goals": len(program.goals()), "without": times[0], "with": times[1]}
    except OutsideFragment as e:
        return {"in": False, "why_not": str(e)}
    except UserError as e:
        return {"in": False, "why_not": f"front end: {e}"}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def kind(why: str) -> str:
    """The reason without its line and names: what a table of reasons counts."""
    why = re.sub(r"^line \d+: ", "", why)
    if why.startswith("front end"):
        return "front end"
    return re.sub(r"^\S+ is not an integer", "a variable is not an integer", why).split(" *")[0].split(" (")[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", action="append", default=[], help="CATEGORY/TASK.yml (repeatable)")
    ap.add_argument("--results", type=Path, help="write every task's figures here (JSON)")
    args = ap.parse_args()
    tasks = [str(TESTCOMP / t) for t in args.only] or sorted(str(p) for p in TESTCOMP.glob("*/*.yml"))
    results: dict[str, dict] = {}
    with Pool(args.jobs) as pool:
        for task, r in zip(tasks, pool.imap(measure, tasks)):
            name = str(Path(task).relative_to(TESTCOMP))
            results[name] = r
            print(f"IN  {name} {r['goals']} goals: {r['without']:.2f} s / {r['with']:.2f} s" if r["in"]
                  else f"OUT {name}: {r['why_not']}", flush=True)
    inside = [r for r in results.values() if r["in"]]
    print(f"\n{len(inside)} of {len(results)} tasks in the fragment")
    for why, n in Counter(kind(r["why_not"]) for r in results.values() if not r["in"]).most_common():
        print(f"  out, {n:3}: {why}")
    for key in ("without", "with"):
        times = [r[key] for r in inside]
        if times:
            print(f"building {key} calling contexts: sum {sum(times):.1f} s, max {max(times):.2f} s")
    if args.results:
        args.results.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
