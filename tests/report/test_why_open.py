"""An open goal says why it is open, in report.json and on the page: what the tests did
(no test reached its condition, or only with the other outcome) and, for each analysis
that worked on it, why that one gave up: a construct it does not model blocked its
proof (named, with its line), its solver answered "unknown" at its limit, its time ran
out, the program is outside its fragment. Real runs of small programs."""
from __future__ import annotations

import json
import re
from pathlib import Path

from clitools import cooptest
from probe import probe

ASM_C = """extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = 0;
  __asm__("" ::: "memory");
  if (x > 5 && x < 3) {
    y = 1;
  }
  return y;
}
"""

# x^3 + y^3 == z^3 has no solution (Fermat, n = 3), and no 32-bit sum wraps below 1000:
# the goal is infeasible, and a nonlinear query no prover here settles in seconds.
CUBES_C = """extern unsigned int __VERIFIER_nondet_uint(void);
int main(void) {
  unsigned int x = __VERIFIER_nondet_uint();
  unsigned int y = __VERIFIER_nondet_uint();
  unsigned int z = __VERIFIER_nondet_uint();
  if (x > 1 && y > 1 && z > 1 && x < 1000 && y < 1000 && z < 1000) {
    if (x * x * x + y * y * y == z * z * z) {
      return 1;
    }
  }
  return 0;
}
"""

ROWS = """Object.fromEntries(Array.from(document.querySelectorAll('#goals tbody tr')).map(function (r) {
  return [r.id.slice(2), {text: r.innerText, notes: Array.from(r.querySelectorAll('ul.gave-up li')).map(
    function (li) { return li.innerText; })}]; }))"""
TITLES = """Object.fromEntries(Array.from(document.querySelectorAll('.src .g.u')).map(function (m) {
  return [m.dataset.goal, m.title]; }))"""


def generate(tmp_path: Path, name: str, source: str, *options: str) -> tuple[dict, Path]:
    program = tmp_path / name
    program.write_text(source)
    out = tmp_path / name.removesuffix(".c")
    proc = cooptest("generate", program, "--out", out, "--seed", "1", "--quiet", *options)
    assert proc.returncode == 0, proc.stderr
    return json.loads((out / "report.json").read_text()), out


def test_a_proof_an_asm_statement_blocks_is_named_with_its_line(tmp_path: Path) -> None:
    """Predicate analysis proves ``x > 5 && x < 3`` unreachable; the board refuses the
    proof, since the asm statement before it may change anything."""
    doc, out = generate(tmp_path, "asm.c", ASM_C, "--strategy", "predicate", "--budget", "10")
    [goal] = [g for g in doc["goals"] if g["status"] == "unknown"]
    assert goal["condition"] == "x < 3" and goal["id"].endswith("T")
    other = next(g for g in doc["goals"] if g["id"] == goal["id"][:-1] + "F")
    blocker = f"an asm statement ({tmp_path / 'asm.c'}:5), which the CFA does not model, may change anything"
    assert goal["why_open"] == {
        "reached": f"the condition is reached ({other['test']}), only with the other outcome",
        "gave_up": {"predicate": f"its proof was refused: {blocker}"}}
    rows = probe(out / "report.html", tmp_path, ROWS)
    assert f"no proof is trusted here: {blocker}" in rows[goal["id"]]["text"]
    assert rows[goal["id"]]["notes"] == ["predicate: its proof was refused"]
    title = probe(out / "report.html", tmp_path, TITLES)[goal["id"]]
    assert title.endswith(f"open: {goal['why_open']['reached']}; no proof is trusted here: {blocker}; "
                          "gave up: predicate")


def test_a_nonlinear_condition_says_each_solver_gave_up_at_its_limit(tmp_path: Path) -> None:
    """Spacer (chc) and concolic testing's z3 both answer "unknown" on the cubes; the
    other outcome is covered, so the condition is reached."""
    doc, out = generate(tmp_path, "cubes.c", CUBES_C, "--strategy", "coveritest",
                        "--sequence", "chc:3,concolic:3", "--budget", "25")
    [goal] = [g for g in doc["goals"] if g["status"] == "unknown"]
    assert goal["condition"].startswith("(((x * x) * x)") and goal["id"].endswith("T")
    why = goal["why_open"]
    assert why["reached"].startswith("the condition is reached (test")
    assert re.fullmatch(r"Spacer answered unknown at its [\d.]+-s limit(, its last)?", why["gave_up"]["chc"])
    assert re.fullmatch(r"z3 answered unknown at its [\d.]+-s limit on a path to it",
                        why["gave_up"]["concolic"])
    notes = probe(out / "report.html", tmp_path, ROWS)[goal["id"]]["notes"]
    assert notes == [f"{analysis}: {text}" for analysis, text in why["gave_up"].items()]


def test_an_analysis_outside_its_fragment_and_one_out_of_time_say_so(tmp_path: Path) -> None:
    """fields has nothing to do on a program without heap structs; random testing's
    time runs out; the call graph proves nothing of goals in main."""
    doc, _ = generate(tmp_path, "cubes.c", CUBES_C, "--strategy", "coveritest",
                      "--sequence", "callgraph:1,fields:1,random:2", "--budget", "12")
    open_goals = [g for g in doc["goals"] if g["status"] == "unknown"]
    assert open_goals
    for g in open_goals:
        notes = g["why_open"]["gave_up"]
        assert notes["fields"] == "outside its fragment: no branch reads a field of fresh heap structs"
        assert notes["random"] == "its time ran out"
        assert notes["callgraph"] == "calls from main reach its function (it proves the goals of functions none reaches)"
