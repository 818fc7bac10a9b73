"""``max_align_t``, ``__float128`` and ``_Float64x`` as gcc lays them out, under -m32
and -m64.

gcc's ``<stddef.h>`` ends i386's ``max_align_t`` with a ``__float128`` member (16 bytes,
aligned to 16): 48 bytes aligned to 16 under -m32, 32 under -m64. A front end reading
``__float128`` as a ``double`` makes it 28 bytes aligned to 4, and so do both builds
made from its text: a goal gcc's build reaches at 48 could be claimed infeasible, and
no replay would see it."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cooptest.cfa.ctype import DataModel
from cooptest.frontend import load_program
from cooptest.harness.executor import Executor
from cooptest.sources import load_program_task

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from clitools import cooptest  # noqa: E402

MODELS = [DataModel.ILP32, DataModel.LP64]
MEASURES = ("sizeof(max_align_t) + 100 * _Alignof(max_align_t) + 1000 * offsetof(struct tail, m)"
            " + 10000 * sizeof(__float128) + 100000 * _Alignof(_Float128) + 1000000 * __alignof__(q)")
PROGRAM = f"""#include <stddef.h>
extern int __VERIFIER_nondet_int(void);
struct tail {{ char c; max_align_t m; }};
struct wide {{ char c; __float128 q; short s; _Float128 r[2]; _Float64x x; char tail; }};
max_align_t global;
struct tail tail;
struct wide wide;
__float128 q;
int main(void) {{
  if (__VERIFIER_nondet_int() == (int) ({MEASURES})) {{
    return 1;
  }}
  return 0;
}}
"""


def gccs_measure(tmp_path: Path, model: DataModel) -> int:
    """What gcc's build of the program computes for ``MEASURES``."""
    source = tmp_path / "measure.c"
    source.write_text(PROGRAM.split("int main")[0] + f'#include <stdio.h>\nint main(void) {{ '
                      f'printf("%d", (int) ({MEASURES})); return 0; }}\n')
    subprocess.run(["gcc", "-w", model.gcc_flag, source, "-o", tmp_path / "measure"], check=True)
    return int(subprocess.run([tmp_path / "measure"], capture_output=True, text=True, check=True).stdout)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.value)
def test_the_layout_of_max_align_t_is_gccs(layout_of, model: DataModel) -> None:
    """Every member's offset and width, against the DWARF of gcc's build."""
    assert layout_of(PROGRAM, model).leaves >= 15


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.value)
def test_a_goal_at_gccs_sizes_is_reached_and_never_refuted(tmp_path: Path, model: DataModel) -> None:
    """The instrumented build computes gcc's sizes (48 under -m32), and ``generate``
    neither claims the goal that needs them infeasible nor misses it."""
    expected = gccs_measure(tmp_path, model)
    aligned_16 = 16 * (100 + 1000 + 10000 + 100000 + 1000000)  # all but sizeof(max_align_t)
    assert expected == aligned_16 + (48 if model is DataModel.ILP32 else 32)
    program = tmp_path / "p.c"
    program.write_text(PROGRAM)
    task = load_program_task([str(program)], model)
    executor = Executor(load_program(task, str(tmp_path / "work")), str(tmp_path / "build"))
    assert "B1T" in executor.run([str(expected)]).covered
    for strategy in ("auto", "chc", "value"):
        out = tmp_path / f"out-{strategy}"
        r = cooptest("generate", program, "--data-model", model.value, "--strategy", strategy,
                     "--budget", 10, "--out", out, "--quiet")
        assert r.returncode == 0, r.stderr
        goals = {g["id"]: g["status"] for g in json.loads((out / "report.json").read_text())["goals"]}
        assert goals["B1T"] != "infeasible", (strategy, goals)
        if strategy != "chc":
            assert goals["B1T"] == "covered", (strategy, goals)
