"""The nondet harness parses inputs exactly as TestCov's harness does."""
from __future__ import annotations

import signal
import subprocess

import pytest

from cooptest.cfa.ctype import DataModel
from cooptest.errors import UserError
from cooptest.harness.build import compile_program
from cooptest.harness.nondet import harness_source, needed_functions

# One input per nondet call of harness_nondet.c, in its order.
VECTOR = ["'a'", "300", "0x7fff", "-1", "4294967296", "-1", "5l", "0x10",
          "-9223372036854775808", "18446744073709551615u", "1.5f", "0.1", "2", "4294967297",
          "0x1000"]
EXPECTED = {
    DataModel.LP64: ["char 97", "uchar 44", "short 32767", "ushort 65535", "int 0",
                     "uint 4294967295", "long 5", "ulong 16", "longlong -9223372036854775808",
                     "ulonglong 18446744073709551615", "float 1.5", "double 0.10000000000000001",
                     "bool 1", "size_t 1", "pointer 4096"],
    # sscanf saturates out-of-range values at the 32-bit long's limits before narrowing
    DataModel.ILP32: ["char 97", "uchar 44", "short 32767", "ushort 65535", "int 2147483647",
                      "uint 4294967295", "long 5", "ulong 16", "longlong -9223372036854775808",
                      "ulonglong 18446744073709551615", "float 1.5", "double 0.10000000000000001",
                      "bool 1", "size_t 4294967295", "pointer 4096"],
}
MORE_VECTORS = [
    ["-1", "0", "-32768", "65536", "-2147483648", "0xffffffff", "-5L", "7UL", "0x7fffffffffffffff",
     "1", "-0.0", "1e308", "0", "0", "0"],
    ["200", "'b'", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13"],
    ["1", "1", "1", "1", "-0x1f"],     # a sign before 0x: not hex, "x1f" is no suffix
    ["1", "1", "1", "1", "12abc"],     # garbage after the number
    ["1", "1", "1", "1", "1 "],        # even a blank
    ["1", "1", "1", "1", "0X1F"],      # only a lower-case 0x is hex
    ["1", "1", "1", "1", "5uu"],       # up to three suffix letters
    ["1", "1", "1", "1", "5ulx"],
    ["1", "1", "1"],                   # runs out of inputs
]


@pytest.fixture(scope="module", params=list(DataModel), ids=lambda m: m.value)
def nondet_exe(request, tmp_path_factory, data):
    out = tmp_path_factory.mktemp("build")
    return compile_program(str(data / "harness_nondet.c"), request.param, str(out), trace=False)


def test_values_parse_like_testcov(nondet_exe):
    r = nondet_exe.run(VECTOR)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines() == EXPECTED[nondet_exe.data_model]


@pytest.mark.parametrize("inputs, outcome", [
    (MORE_VECTORS[2], "abort"), (MORE_VECTORS[3], "abort"), (MORE_VECTORS[4], "abort"),
    (MORE_VECTORS[5], "abort"), (MORE_VECTORS[6], "ok"), (MORE_VECTORS[7], "abort"),
    (MORE_VECTORS[8], "exit1")])
def test_invalid_inputs_abort_and_missing_inputs_exit_1(nondet_exe, inputs, outcome):
    r = nondet_exe.run(inputs)
    if outcome == "abort":
        assert r.crashed and r.signal == signal.SIGABRT and "Can't parse input" in r.stderr
    elif outcome == "exit1":
        assert r.exit_code == 1 and "No more test inputs" in r.stderr
    else:
        assert not r.crashed


def test_same_outputs_as_testcovs_own_harness(nondet_exe, data, tmp_path, testcov_python):
    """Differential: build TestCov's harness (its HarnessCreator) and compare runs."""
    program = str(data / "harness_nondet.c")
    text = subprocess.run([str(testcov_python), "-c",
                           "import sys; from suite_validation.execution import HarnessCreator;"
                           " print(HarnessCreator().convert(sys.argv[1]))", program],
                          capture_output=True, text=True, check=True).stdout
    (tmp_path / "harness.c").write_text(text)
    exe = tmp_path / "testcov"
    subprocess.run(["gcc", "-std=gnu11", nondet_exe.data_model.gcc_flag, "-Wno-attributes", "-w",
                    "-o", str(exe), "-include", program, str(tmp_path / "harness.c"), "-lm"],
                   check=True)
    for vector in [VECTOR, *MORE_VECTORS]:
        theirs = subprocess.run([str(exe)], input="\n".join(vector), capture_output=True, text=True)
        ours = nondet_exe.run(vector)
        assert ours.stdout == theirs.stdout, vector
        assert (ours.exit_code if ours.exit_code is not None else -ours.signal) == theirs.returncode


def test_assume_false_aborts(tmp_path):
    src = tmp_path / "assume.c"
    src.write_text("extern void __VERIFIER_assume(int);\nextern int __VERIFIER_nondet_int(void);\n"
                   "int main(void) { __VERIFIER_assume(__VERIFIER_nondet_int() > 0); return 7; }\n")
    exe = compile_program(str(src), DataModel.LP64, str(tmp_path), trace=False)
    assert exe.run(["1"]).exit_code == 7
    r = exe.run(["0"])
    assert r.crashed and r.signal == signal.SIGABRT


def test_program_defining_or_misdeclaring_nondet_functions_still_links(tmp_path):
    src = tmp_path / "own.c"
    src.write_text(
        "extern int __VERIFIER_nondet_int(char *);\n"
        "unsigned char __VERIFIER_nondet_uchar(void) { return 42; }\n"
        "int main(void) { return __VERIFIER_nondet_int(\"x\") + __VERIFIER_nondet_uchar(); }\n")
    assert needed_functions(src.read_text()) == {"__VERIFIER_nondet_int"}
    exe = compile_program(str(src), DataModel.ILP32, str(tmp_path), trace=False)
    assert exe.run(["3"]).exit_code == 45


def test_harness_defines_only_what_is_asked():
    full = harness_source()
    assert "__VERIFIER_nondet_size_t" in full and "__VERIFIER_assume" in full
    assert "__VERIFIER_nondet_u64" not in full  # not in TestCov's list
    some = harness_source({"__VERIFIER_nondet_u64", "__VERIFIER_nondet_int", "printf"})
    assert "__VERIFIER_nondet_u64(void)" in some and "__VERIFIER_nondet_int(void)" in some
    assert "__VERIFIER_nondet_uint(void)" not in some and "__VERIFIER_assume" not in some


def test_compile_error_names_file_and_line(tmp_path):
    src = tmp_path / "bad.c"
    src.write_text("int main(void) {\n  return x;\n}\n")
    with pytest.raises(UserError) as e:
        compile_program(str(src), DataModel.LP64, str(tmp_path), trace=False)
    assert e.value.line == 2 and e.value.file.endswith("bad.c") and "'x' undeclared" in e.value.message
