"""Bit-precise C semantics, checked against gcc: every branch decision of a native run
must be what symbolic execution of the CFA computes under the same inputs (no
divergence), in both data models."""
from __future__ import annotations

from pathlib import Path

import pytest

from cooptest.analyses.concolic.solver import Symbols
from cooptest.analyses.concolic.symbolic_execution import TermMemo, execute_symbolically
from cooptest.cfa.ctype import DataModel
from cooptest.frontend import load_program
from cooptest.harness.executor import Executor
from cooptest.task import load_task

PROGRAM = Path(__file__).resolve().parents[1] / "data" / "semantics.c"
# x, u, c, l, uc, s
INPUT_VECTORS = [
    ["0", "0", "0", "0", "0", "0"],
    ["-1", "1", "127", "-3", "255", "-1"],
    ["-15", "4294967295", "-128", "2147483647", "56", "-25536"],
    ["2147483647", "2147483648", "99", "-9223372036854775807", "200", "32767"],
    ["-2147483648", "3", "100", "715827883", "55", "-32768"],
    ["29", "12", "-1", "10", "7", "12"],
    ["-9", "7", "5", "-4", "1", "9"],
]


@pytest.mark.parametrize("model", [DataModel.LP64, DataModel.ILP32])
def test_native_and_symbolic_decisions_agree(tmp_path: Path, model: DataModel) -> None:
    fe = load_program(load_task(str(PROGRAM), model), str(tmp_path))
    executor = Executor(fe, str(tmp_path / "build"))
    symbols, memo = Symbols(), TermMemo()
    for inputs in INPUT_VECTORS:
        execution = executor.run(inputs)
        assert not execution.crashed and not execution.timed_out
        path = execute_symbolically(fe.program, execution, symbols, memo, set())
        assert path.divergences == 0, inputs
        assert not path.imprecise
        assert path.trace == list(execution.decisions()), inputs
