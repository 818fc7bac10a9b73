"""For every proof method, no goal claimed infeasible is covered by a native run of any
seed: the adversarial programs of ``programs.py`` do what a CFA easily gets wrong."""
from __future__ import annotations

import json
import os
import subprocess
from functools import partial
from pathlib import Path

import pytest

from cooptest.analyses.callgraph import CallGraphAnalysis
from cooptest.analyses.chc import CHCAnalysis
from cooptest.analyses.concolic import ConcolicAnalysis
from cooptest.analyses.field_invariants import FieldAnalysis
from cooptest.analyses.reachability import MultiGoalAnalysis, PredicateAnalysis, ValueAnalysis
from cooptest.core.analysis import Job
from cooptest.core.board import GoalBoard
from cooptest.core.budget import Budget
from cooptest.frontend import load_program
from cooptest.harness.executor import Executor
from cooptest.cfa.ctype import DataModel
from cooptest.task import load_task

from programs import PROGRAMS
from clitools import cooptest

CONCOLIC_RUNS = 100
"""The native runs the matrix's concolic search makes: on these programs it exhausts its
tree, the one way it proves anything, within a handful; past that it only spends the
budget on loops over inputs."""
METHODS = {"value": ValueAnalysis, "predicate": PredicateAnalysis, "mgp": MultiGoalAnalysis,
           "concolic": partial(ConcolicAnalysis, max_iterations=CONCOLIC_RUNS),
           "callgraph": CallGraphAnalysis, "fields": FieldAnalysis, "chc": CHCAnalysis}
MODELLED = ("constructor", "constructor-order", "packed", "mode", "pointer-escape", "library-optind",
            "library-stdout")


def program_under_test(tmp_path: Path, name: str) -> GoalBoard:
    """A fresh board of the soundness program ``name``. Its file and work folder are
    shared by the tests of one process (beside their own ``tmp_path``), so that the
    seven methods' tests of a program load it from the work folder's caches (gcc's
    preprocessing, folds and native build: 0.5 s, then 0.1 s)."""
    home = tmp_path.parent / f"program-{name}"
    path = home / f"{name}.c"
    if not path.exists():
        home.mkdir(exist_ok=True)
        path.write_text(PROGRAMS[name][0])
    frontend = load_program(load_task(str(path)), str(home / "work"))
    return GoalBoard(frontend.program, Executor(frontend, str(home / "work")))


PROOFS = Path(__file__).with_name("proofs.json")
"""The soundness matrix: program -> method -> the goals it proved infeasible when last
recorded (``COOPTEST_RECORD_PROOFS=1 pytest tests/soundness/test_proofs.py`` rewrites
the entries of the tests that run). A method that stops proving one of them fails."""
RECORDED: dict[str, dict[str, list[str]]] = json.loads(PROOFS.read_text()) if PROOFS.exists() else {}


def record_proofs(name: str, method: str, proved: set[str]) -> None:
    data = json.loads(PROOFS.read_text()) if PROOFS.exists() else {}
    entry = data.setdefault(name, {})
    entry[method] = sorted(proved)
    if not proved:
        del entry[method]
    if not entry:
        del data[name]
    PROOFS.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


@pytest.mark.parametrize("method", sorted(METHODS))
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_no_goal_proved_infeasible_is_covered(tmp_path, name, method):
    put = program_under_test(tmp_path, name)
    seeds = PROGRAMS[name][1]
    natively = set().union(*(put.executor.run(s).covered for s in seeds))
    assert natively, "the seeds must cover something natively"
    METHODS[method]().run(put, Job(put.open(), Budget.seconds(20)))
    assert not set(put.infeasible) & natively, (put.infeasible, natively)
    if os.environ.get("COOPTEST_RECORD_PROOFS"):
        record_proofs(name, method, set(put.infeasible))
    else:
        lost = set(RECORDED.get(name, {}).get(method, ())) - set(put.infeasible)
        assert not lost, f"{method} no longer proves {sorted(lost)} of {name} ({PROOFS.name})"
    for s in seeds:  # and the board agrees: no proof a seed refutes
        put.submit(s, "seed")
    assert not put.contradictions, put.contradictions


@pytest.mark.parametrize("name", MODELLED)
def test_what_is_modelled_is_not_refused(tmp_path, name):
    """Constructors, packed, mode, pointers the program calls itself and the C
    library's streams and getopt state before getopt are modelled: the value analysis
    proves the goals the seeds miss and refuses nothing."""
    put = program_under_test(tmp_path, name)
    assert put.program.proof_blockers.reason(next(iter(put.goals.values()))) is None
    for s in PROGRAMS[name][1]:
        put.submit(s, "seed")
    METHODS["value"]().run(put, Job(put.open(), Budget.seconds(20)))
    assert not put.refused
    assert not put.open(), "every goal is covered or proved infeasible"


@pytest.mark.parametrize("name,why", [("atexit", "atexit"), ("signal", "signal"),
                                      ("sigaction", "sigaction"), ("qsort", "qsort"),
                                      ("setjmp", "jmp"), ("error-returns", "may return"),
                                      ("library-optind-after-call", "optind is the C library's"),
                                      ("library-stream-fields", "FILE pointer"),
                                      ("library-stream-bytes", "FILE pointer converted")])
def test_what_is_not_modelled_is_refused_with_a_reason(tmp_path, name, why):
    put = program_under_test(tmp_path, name)
    goal = next(iter(put.goals))
    assert not put.prove_infeasible(goal, "a proof")
    assert goal not in put.infeasible and why in put.refused[goal]


NONDET = "#include <stdio.h>\nint __VERIFIER_nondet_int(void) { int x = 0; scanf(\"%d\", &x); return x; }\n"


def exit_of_gccs_build(tmp_path: Path, name: str) -> int:
    """The exit code of gcc's build of the original program on its first seed."""
    source, seeds = PROGRAMS[name]
    (tmp_path / "prog.c").write_text(source)
    (tmp_path / "nondet.c").write_text(NONDET)
    subprocess.run(["gcc", "-w", str(tmp_path / "prog.c"), str(tmp_path / "nondet.c"), "-o",
                    str(tmp_path / "native")], check=True)
    return subprocess.run([str(tmp_path / "native")], input="\n".join(seeds[0]) + "\n", text=True).returncode


@pytest.mark.parametrize("name", ["asm-writes-register", "asm-writes-memory", "asm-in-callee"])
def test_an_erased_asm_statement_blocks_every_proof(tmp_path, name):
    """The front end erases ``__asm__("...")`` (and so does its instrumented build: its
    runs cannot refute a claim the asm makes wrong); gcc's build of the original file
    returns 1 on the first seed, which the CFA without the asm never does."""
    assert exit_of_gccs_build(tmp_path, name) == 1, "gcc's build takes the branch the asm decides"
    put = program_under_test(tmp_path, name)
    assert all(not put.prove_infeasible(g, "a proof") for g in put.goals)
    assert all("asm statement" in put.refused[g] for g in put.goals)


@pytest.mark.parametrize("name", ["float128-sizeof", "float128-precision", "float64x-cast"])
def test_a_float_wider_than_double_blocks_every_proof(tmp_path, name):
    """The front end and cooptest's own build make ``__float128``, ``_Float128`` and
    ``_Float64x`` double; gcc's build of the original file keeps them wider and returns
    1 on the first seed, which the CFA's double never does."""
    assert exit_of_gccs_build(tmp_path, name) == 1, "gcc's build takes the branch the wider type decides"
    put = program_under_test(tmp_path, name)
    assert all(not put.prove_infeasible(g, "a proof") for g in put.goals)
    line = next(i for i, text in enumerate(PROGRAMS[name][0].splitlines(), 1)
                if "loat128" in text or "64x" in text)
    assert all(f"{name}.c:{line})" in put.refused[g] and "double" in put.refused[g] for g in put.goals)


def test_a_system_headers_wider_float_blocks_nothing(tmp_path):
    """Under -m32 glibc's stddef.h aligns a __float128 member in an attribute: the
    marker within is erased with it, and the C library's own use blocks no proof."""
    path = tmp_path / "max_align.c"
    path.write_text("#include <stddef.h>\n#include <math.h>\n"
                    "int main(void) { max_align_t m; return sizeof m > 4 && fabs(-1.0) > 0; }\n")
    frontend = load_program(load_task(str(path), DataModel.ILP32), str(tmp_path / "work"))
    assert frontend.program.proof_blockers.everywhere is None


def test_destructors_block_the_goals_they_run(tmp_path):
    put = program_under_test(tmp_path, "destructor")
    assert {g.function for g in put.goals.values()} == {"fini"}
    assert all(not put.prove_infeasible(g, "a proof") for g in put.goals)
    assert "after main" in put.refused[next(iter(put.goals))]


def test_mgp_on_a_callback_program_ends_normally_and_says_why(tmp_path):
    """Was: the tripwire fired (exit 3), a goal both covered and infeasible."""
    prog = tmp_path / "atexit.c"
    prog.write_text(PROGRAMS["atexit"][0])
    out = tmp_path / "out"
    r = cooptest("generate", prog, "--budget", 8, "--out", out, "--strategy", "mgp", "--quiet")
    assert r.returncode == 0, r.stderr
    goals = json.loads((out / "report.json").read_text())["goals"]
    assert not [g for g in goals if g["status"] == "infeasible"]
    assert any("atexit" in g.get("refused", "") for g in goals if g["status"] == "unknown") \
        or all(g["status"] == "covered" for g in goals)


def test_a_library_call_writes_through_its_pointers_and_keeps_the_globals_in_registers(tmp_path):
    """sprintf changes the array it is given, never ``g``, whose address nobody takes:
    after the seeds, the one goal left open (``g == 5`` false) is proved infeasible."""
    put = program_under_test(tmp_path, "library-writes")
    for s in PROGRAMS["library-writes"][1]:
        put.submit(s, "seed")
    line = next(i for i, t in enumerate(PROGRAMS["library-writes"][0].splitlines(), 1) if "g == 5" in t)
    (dead,) = put.open()
    assert put.goals[dead].line == line
    METHODS["predicate"]().run(put, Job(put.open(), Budget.seconds(20)))
    assert dead in put.infeasible


DEAD_CODE = """extern int __VERIFIER_nondet_int(void);
int dead_leaf(int x) { if (x) { return 1; } return 0; }
int dead(int x) { if (x > 3) { return dead_leaf(x); } return 2; }
int stored(int x) { if (x) { return 5; } return 6; }
int (*keep)(int) = stored;
int live(int x) { if (x == 2) { return 1; } return 0; }
int main() { int x = __VERIFIER_nondet_int(); %s return live(x); }
"""


@pytest.mark.parametrize("pointer_call", [False, True])
def test_the_goals_of_functions_no_call_reaches_are_proved_and_no_others(tmp_path, pointer_call):
    """``dead`` has no caller and ``dead_leaf`` only that one; ``stored``'s address is
    taken, so a call through a pointer may enter it."""
    path = tmp_path / "dead.c"
    path.write_text(DEAD_CODE % ("if (x == 9) { keep(x); }" if pointer_call else ""))
    frontend = load_program(load_task(str(path)), str(tmp_path / "work"))
    put = GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "work")))
    outcome = CallGraphAnalysis().run(put, Job(put.open(), Budget.seconds(5)))
    proved_in = {put.goals[g].function for g in put.infeasible}
    assert proved_in == ({"dead", "dead_leaf"} if pointer_call else {"dead", "dead_leaf", "stored"})
    assert all(put.goals[g].function not in proved_in for g in put.open())
    assert outcome.stopped == "exhausted"


STATE_MACHINE = """extern int __VERIFIER_nondet_int(void);
#include <stdlib.h>
struct ctx { int state; struct { int next; } tmp; };
int step(struct ctx *c, int in) {
  switch (c->state) {
  case 1: c->tmp.next = in ? 3 : 4; c->state = 2; break;
  case 2: c->state = c->tmp.next; break;
  case 3: return 1;
  case 4: return 2;
  case 7: return 7; /* no store names 7: dead */
  }
  if (c->state == 0) { return 9; } /* read before any store: zero, live */
  return 0;
}
int main() { struct ctx *c = ALLOCATE; int r = 0; step(c, 0); c->state = 1;
  while (!r) { r = step(c, __VERIFIER_nondet_int()); } return r; }
"""


@pytest.mark.parametrize("allocate", ["calloc(1, sizeof *c)", "malloc(sizeof *c)"])
def test_the_field_invariants_prove_the_state_no_store_names_and_no_other(tmp_path, allocate):
    """``state`` holds 0 (calloc's), 1, 2 and ``tmp.next``'s 3 and 4: the case 7 and
    its return are dead; everything else is covered by two runs. ``malloc``'s memory
    may hold 7 when ``step`` first reads it: then nothing is proved."""
    path = tmp_path / "machine.c"
    path.write_text(STATE_MACHINE.replace("ALLOCATE", allocate))
    frontend = load_program(load_task(str(path)), str(tmp_path / "work"))
    put = GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "work")))
    for seed in (["0", "0", "0"], ["1", "0", "0"]):
        put.submit(seed, "seed")
    FieldAnalysis().run(put, Job(put.open(), Budget.seconds(5)))
    seven = next(i for i, t in enumerate(STATE_MACHINE.splitlines(), 1) if "case 7" in t)
    if allocate.startswith("malloc"):
        assert not put.infeasible
        return
    assert put.infeasible and {put.goals[g].line for g in put.infeasible} == {seven}
    assert not put.open(), "every other goal is covered"


def test_a_field_stored_right_after_malloc_keeps_its_invariant(tmp_path):
    """``c->state`` and ``c->tmp.next`` stored straight after ``malloc``: no read sees
    malloc's bytes, so the case no store names is still dead (unlike above)."""
    path = tmp_path / "machine.c"
    path.write_text(STATE_MACHINE.replace("ALLOCATE", "malloc(sizeof *c); c->state = 1; c->tmp.next = 3"))
    frontend = load_program(load_task(str(path)), str(tmp_path / "work"))
    put = GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "work")))
    FieldAnalysis().run(put, Job(put.open(), Budget.seconds(5)))
    seven = next(i for i, t in enumerate(STATE_MACHINE.splitlines(), 1) if "case 7" in t)
    assert seven in {put.goals[g].line for g in put.infeasible}


HANDSHAKE = """extern int __VERIFIER_nondet_int(void);
#include <stdlib.h>
struct cert { int k; };
struct ctx { int state; int alg; struct cert *cert; };
struct cert fallback;
int main() {
  struct ctx *s = malloc(sizeof *s);
  s->alg = __VERIFIER_nondet_int();
  if (__VERIFIER_nondet_int()) { s->cert = 0; } else { s->cert = &fallback; }
  if (s->cert == 0) { s->cert = &fallback; }
  if (s->cert == 0) { return 8; } /* dead: the cell is not null */
  s->state = 1;
  while (s->state != 4) {
    if (s->state == 1) { if (s->alg & 256) { s->state = 2; } else { s->state = 3; } }
    else if (s->state == 2) { if (!(s->alg & 256)) { return 9; } /* dead: the same outcome */
                              s->state = 4; }
    else if (s->state == 3) { s->state = 4; } /* its false branch is dead: 1, 2, 3 above */
    else if (s->state == 7) { return 7; } /* dead: no store of 7 */
  }
  return 0;
}
"""


def test_the_value_analysis_tracks_heap_cells_null_pointers_and_branch_facts(tmp_path):
    """The three kinds of knowledge the openssl tasks need (``reachability/value.py``):
    ``s->state`` as a cell, ``s->cert`` as not null (an address: ``malloc``'s result
    may be null, ``malloc-fails`` in ``programs.py``), ``s->alg & 256`` deciding twice.
    The value analysis decides every goal and proves exactly the three dead ones."""
    path = tmp_path / "handshake.c"
    path.write_text(HANDSHAKE)
    frontend = load_program(load_task(str(path)), str(tmp_path / "work"))
    put = GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "work")))
    METHODS["value"]().run(put, Job(put.open(), Budget.seconds(20)))
    dead = {i for i, t in enumerate(HANDSHAKE.splitlines(), 1) if "dead" in t}
    assert not put.open(), "every goal decided"
    assert {put.goals[g].line for g in put.infeasible} == dead
    # the proofs name the cells they tracked as a reader would (a struct type's repr,
    # with every member's, made openssl's report.json 1.7 GB)
    assert all("struct ctx.state" in proof and len(proof) < 300 for proof in put.infeasible.values())


LOCAL_FACTS = """extern int __VERIFIER_nondet_int(void);
int check(int level) {
  int status = __VERIFIER_nondet_int();
  if (status >= 0) {
    if (level > 0) { check(level - 1); } /* a call between: the fact is this frame's */
    if (!(status >= 0)) { return 9; } /* dead: the same outcome */
    return 1;
  }
  return 0;
}
int main() { return check(1); }
"""


def test_the_value_analysis_keeps_branch_facts_over_locals_in_their_frame(tmp_path):
    """diskperf's ``main`` tests its local ``status >= 0`` twice: the second test's
    outcome is the first's, also across a recursive call that has its own ``status``."""
    path = tmp_path / "facts.c"
    path.write_text(LOCAL_FACTS)
    frontend = load_program(load_task(str(path)), str(tmp_path / "work"))
    put = GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "work")))
    for seed in (["1", "1"], ["-1"], ["1", "-1"]):
        put.submit(seed, "seed")
    METHODS["value"]().run(put, Job(put.open(), Budget.seconds(20)))
    dead = {i for i, t in enumerate(LOCAL_FACTS.splitlines(), 1) if "dead" in t}
    assert not put.open(), "every goal decided"
    assert {put.goals[g].line for g in put.infeasible} == dead


@pytest.mark.parametrize("name", ["long-double-sum", "long-double-constant", "long-double-from-integer"])
def test_gccs_long_double_is_wider_than_a_double(tmp_path, name):
    """The premise of the long-double programs: gcc's x86-64 build takes, on the first
    seed, the branch a double's 53 bits would rule out."""
    assert exit_of_gccs_build(tmp_path, name) == 1
