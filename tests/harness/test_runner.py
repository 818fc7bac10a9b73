"""Trace events and run outcomes of a tiny hand-instrumented program."""
from __future__ import annotations

import signal
import time

import pytest

from cooptest.cfa.ctype import DataModel
from cooptest.harness.build import compile_program

TRUNCATED = -(1 << 31)
START = 1000  # the raw event harness_trace.c logs after reading x


@pytest.fixture(scope="module", params=list(DataModel), ids=lambda m: m.value)
def traced(request, tmp_path_factory, data):
    out = str(tmp_path_factory.mktemp("build"))
    return compile_program(str(data / "harness_trace.c"), request.param, out, trace=True)


def test_branch_and_error_events_in_order(traced):
    r = traced.run(["9"], trace=True)
    assert (r.exit_code, r.crashed, r.timed_out) == (0, False, False)
    assert list(r.events) == [START, 2 * 0 + 1, -(3 + 1), 2 * 1 + 0]
    r = traced.run(["1"], trace=True)
    assert list(r.events) == [START, 0, 3, 3, 2]


def test_crash_and_abort_still_deliver_the_trace(traced):
    r = traced.run(["4"], trace=True)
    assert r.crashed and r.signal == signal.SIGSEGV and r.exit_code is None
    assert list(r.events) == [START, 0, 2]
    r = traced.run(["6"], trace=True)  # __VERIFIER_assume(0) aborts, as in TestCov
    assert r.crashed and r.signal == signal.SIGABRT
    assert list(r.events) == [START, 1, -4, 2]


def test_timeout_kills_and_keeps_the_trace(traced):
    start = time.monotonic()
    r = traced.run(["8"], timeout=0.5, trace=True)
    assert r.timed_out and not r.crashed and r.exit_code is None
    assert time.monotonic() - start < 2
    assert list(r.events) == [START, 1, -4, 2]


def test_event_cap_ends_with_the_truncation_marker(traced):
    r = traced.run(["7"], trace=True)
    assert r.exit_code == 0
    assert len(r.events) == 4_000_001 and r.events[-1] == TRUNCATED
    assert list(r.events[:5]) == [START, 1, -4, 2, 5]


def test_no_trace_without_request_and_inputs_running_out(traced):
    r = traced.run(["1"])
    assert r.events is None and r.exit_code == 0
    r = traced.run([], trace=True)
    assert r.exit_code == 1 and list(r.events) == []
    assert "No more test inputs" in r.stderr


def test_plain_build_refuses_tracing_and_is_cached(tmp_path, data):
    a = compile_program(str(data / "harness_branches.c"), DataModel.LP64, str(tmp_path), trace=False)
    b = compile_program(str(data / "harness_branches.c"), DataModel.LP64, str(tmp_path), trace=False)
    assert a.path == b.path
    with pytest.raises(ValueError):
        a.run(["1"], trace=True)


def test_address_space_is_limited_and_output_truncated(tmp_path):
    src = tmp_path / "big.c"
    src.write_text("#include <stdio.h>\n#include <stdlib.h>\nint main(void) {\n"
                   "  for (int i = 0; i < 100000; i++) fputs(\"0123456789\", stdout);\n"
                   "  fputs(malloc(3UL << 30) ? \"got\" : \"null\", stderr);\n  return 0;\n}\n")
    exe = compile_program(str(src), DataModel.LP64, str(tmp_path), trace=False)
    r = exe.run([])
    assert r.stderr == "null"
    assert 0 < len(r.stdout) <= 4096


def test_runs_are_fast(traced):
    """About 1000 runs/s on an idle machine; the bound leaves room for a loaded one."""
    n = 200
    start = time.monotonic()
    for _ in range(n):
        traced.run(["1"], trace=True)
    rate = n / (time.monotonic() - start)
    assert rate > 50, f"{rate:.0f} runs/s"
