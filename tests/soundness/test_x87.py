"""gcc -m32 computes floating point on the x87 (FLT_EVAL_METHOD 2), in more precision
than the IEEE float and double cooptest's analyses compute: each program below reaches
a goal in gcc's -m32 build that a CFA of IEEE doubles cannot reach, and no method may
claim it infeasible (``cfa.proof_blockers._excess_precision``). Under -m64 (SSE) the same
doubles are the CFA's, and the proofs are still made."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from clitools import cooptest

HEAD = "extern int __VERIFIER_nondet_int(void);\n"
OVERFLOW = HEAD + """int main(void) {
  int k = __VERIFIER_nondet_int();
  double x = 1e308;
  double y = x * 10 / 10;  /* 1e308 in the x87's 80 bits, inf in doubles */
  if (y < 1e309) {
    if (k == 3) return 1;
    return 2;
  }
  return 0;
}
"""
CONVERSION = HEAD + """int main(void) {
  int i = __VERIFIER_nondet_int();
  if ((float)i == (double)i) {  /* GNU C -m32 need not round (float)i */
    if (i == 16777217) return 1;
    return 2;
  }
  return 0;
}
"""
CONSTANT = HEAD + """int main(void) {
  int k = __VERIFIER_nondet_int();
  double d = 0.1;
  if (d == 0.1) return 0;  /* a strict -std= makes this 0.1 a long double */
  if (k == 3) return 1;
  return 2;
}
"""
# name -> (program, the flags of gcc's build that reaches k == 3 / i == 16777217, that goal)
CASES = {"overflow": (OVERFLOW, ["-std=gnu11"], "B2T"), "conversion": (CONVERSION, ["-std=gnu11"], "B2T"),
         "constant": (CONSTANT, ["-std=c99"], "B2T")}
REACHING = {"overflow": 3, "conversion": 16777217, "constant": 3}
METHODS = ("value", "predicate", "chc", "mgp", "concolic", "bite", "auto")


def gccs_run(tmp_path: Path, source: str, flags: list[str], value: int) -> int:
    """The exit status of gcc's build of ``source`` with ``flags`` and the nondet int
    ``value``: the user's program as the user compiles it."""
    program, stub, exe = tmp_path / "gcc.c", tmp_path / "stub.c", tmp_path / "gcc"
    program.write_text(source)
    stub.write_text(f"int __VERIFIER_nondet_int(void) {{ return {value}; }}\n")
    subprocess.run(["gcc", "-w", *flags, program, stub, "-o", exe], check=True)
    return subprocess.run([exe]).returncode


def goals(tmp_path: Path, source: str, flags: list[str], method: str) -> dict[str, dict[str, str]]:
    """Goal -> its entry in report.json of ``generate`` with ``method``."""
    program, out = tmp_path / "p.c", tmp_path / f"out-{method}"
    program.write_text(source)
    r = cooptest("generate", program, f"--cflags={' '.join(flags)}", "--strategy", method, "--budget", 10,
                 "--out", out, "--quiet")
    assert r.returncode == 0, r.stderr
    report = json.loads((out / "report.json").read_text())
    assert report["goals"], (method, report["summary"])
    return {g["id"]: g for g in report["goals"]}


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_method_claims_what_the_x87_reaches(tmp_path: Path, case: str) -> None:
    source, flags, goal = CASES[case]
    assert gccs_run(tmp_path, source, [*flags, "-m32"], REACHING[case]) == 1
    assert gccs_run(tmp_path, source, [*flags, "-m64"], REACHING[case]) != 1, "SSE's doubles do not reach it"
    for method in METHODS:
        entry = goals(tmp_path, source, [*flags, "-m32"], method)[goal]
        assert entry["status"] != "infeasible", (method, entry)
        if entry["status"] == "unknown" and entry.get("refused"):
            assert "gcc -m32" in entry["refused"], entry


def test_auto_covers_the_goal_the_x87_reaches(tmp_path: Path) -> None:
    source, flags, goal = CASES["overflow"]
    assert goals(tmp_path, source, [*flags, "-m32"], "auto")[goal]["status"] == "covered"


@pytest.mark.parametrize("case", sorted(CASES))
def test_sse_doubles_are_still_proved(tmp_path: Path, case: str) -> None:
    """Under -m64 the CFA's doubles are gcc's: the goal is proved infeasible (by the
    method that proves it, a float conversion being beyond predicate's solver)."""
    source, flags, goal = CASES[case]
    method = "concolic" if case == "conversion" else "predicate"
    assert goals(tmp_path, source, [*flags, "-m64"], method)[goal]["status"] == "infeasible"


def test_doubles_only_compared_are_proved_under_m32(tmp_path: Path) -> None:
    """Loaded, stored and compared without arithmetic, a double is exact on the x87 too:
    the blocker leaves such a program's proofs alone."""
    source = HEAD + """int main(void) {
  double d = __VERIFIER_nondet_int();
  double e = d;
  if (d != e) return 1;
  return 0;
}
"""
    assert goals(tmp_path, source, ["-std=gnu11", "-m32"], "auto")["B1T"]["status"] == "infeasible"


def test_goals_before_the_arithmetic_are_still_proved(tmp_path: Path) -> None:
    """No path to ``k < 3`` (under ``k > 5``) passes the x87's arithmetic: its proof
    holds for gcc -m32's build and is made; the goal after the arithmetic is not
    claimed."""
    source = OVERFLOW.replace("  double x = 1e308;\n", "  if (k > 5) {\n    if (k < 3) return 5;\n  }\n"
                                                       "  double x = 1e308;\n")
    assert gccs_run(tmp_path, source, ["-m32"], 3) == 1
    found = goals(tmp_path, source, ["-std=gnu11", "-m32"], "predicate")
    assert found["B2T"]["status"] == "infeasible", found["B2T"]
    assert found["B4T"]["status"] != "infeasible", found["B4T"]


def test_a_backward_proof_that_crosses_no_arithmetic_holds_behind_it(tmp_path: Path) -> None:
    """``k > 5 && k < 3`` after the x87's arithmetic is false for any state: BiTe's
    walk back from it crosses the two conditions only, so its proof stands, where
    predicate's (which reads every edge before the goal) is refused."""
    source = OVERFLOW.replace("  if (y < 1e309) {\n", "  if (k > 5) {\n    if (k < 3) return 5;\n  }\n"
                                                        "  if (y < 1e309) {\n")
    by_bite = goals(tmp_path, source, ["-std=gnu11", "-m32"], "bite")["B2T"]
    assert by_bite["status"] == "infeasible" and by_bite["proof"].startswith("bite: "), by_bite
    by_predicate = goals(tmp_path, source, ["-std=gnu11", "-m32"], "predicate")["B2T"]
    assert by_predicate["status"] != "infeasible" and "gcc -m32" in by_predicate["refused"], by_predicate
