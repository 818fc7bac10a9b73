"""gcc is the authority on layout: the sizes, member offsets and bit-field positions
cooptest computes (``cfa.ctype.Types.layout``), and its enums' types and values
(``TypeResolver.enum``), against the DWARF of gcc's build (``benchmarks/layout.py``),
for -m32 and -m64, on every variable and enum of the program."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cooptest.cfa.ctype import DataModel

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import layout  # noqa: E402

MODELS = [DataModel.ILP32, DataModel.LP64]
CORNERS = """#include <stddef.h>
struct anonymous { int a; union { int x; char y; double z; }; struct { char p; short q; }; int tail; };
union overlay { struct { int lo, hi; }; long long whole; };
struct bits { unsigned a : 3; unsigned : 0; unsigned b : 5; unsigned : 4; unsigned c : 9; char d; };
struct aligned { char c; _Alignas(16) int x; _Alignas(double) char e; };
struct nested { char c; struct { char d; int e; } in[2][3]; long long f; long double g; };
#pragma pack(push, 2)
struct two { char c; long l; int i; };
#pragma pack(push)
#pragma pack(1)
struct one { char c; int i; short s; struct nested n; };
#pragma pack(pop)
struct still_two { char c; double d; };
#pragma pack(pop)
struct natural { char c; double d; };
#pragma pack(4)
struct four { char c; double d; };
#pragma pack()
struct reset { char c; double d; };
struct anonymous g1; union overlay g2; struct bits g3; struct aligned g4; struct nested g5;
struct two g6; struct one g7; struct still_two g8; struct natural g9; struct four g10; struct reset g11;
int main(void) { struct one local[2]; union overlay u = {{1, 2}}; return local[0].c + u.lo; }
"""
ENUMS = """enum small { S0, S1 = 5, S2 };
enum negative { N0 = -3, N1 };
enum past_int { B0 = 0x80000000, B1 };
enum past_unsigned { H0 = 0x100000000LL };
enum mixed { M0 = -1, M1 = 0x80000000 };
enum below_int { G0 = -0x80000001LL, G1 };
enum widest { T0 = 0x7fffffffffffffffLL, T1 = -1ULL >> 1 };
enum from_others { C0 = 'a', C1 = L'b' + 1, C2 = sizeof(long), C3 = S2 * N0, C4 = B1 > 0 };
typedef enum { U0 = 3u, U1 } anonymous_t;
enum negative by_tag = N1; anonymous_t by_typedef;
int main(void) { enum { L0 = 7, L1 = -2 } local = L0; enum past_int p = B0; return local + (p > 0); }
"""
TASKS = Path(layout.SHARED) / "testcomp"
DEV = ["ntdrivers/kbfiltr.i.cil-2.yml",  # #pragma pack(push, 4) around its structs
       "openssl/s3_srvr.blast.01.i.cil-2.yml", "heap-data/cart.yml", "forester-heap/dll-01-2.yml"]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.value)
def test_the_layout_of_cs_corners_is_gccs(layout_of, model: DataModel) -> None:
    """#pragma pack, anonymous members, _Alignas, unnamed and zero-width bit-fields."""
    r = layout_of(CORNERS, model)
    assert r.variables >= 12 and r.leaves > 60


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.value)
def test_enums_are_gccs(layout_of, model: DataModel) -> None:
    """Each enum's size, signedness and values: past ``int`` gcc takes ``unsigned int``,
    then a 64-bit type; an enum with a negative value is signed."""
    r = layout_of(ENUMS, model)
    assert r.enums == 10 and r.variables >= 4


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.value)
@pytest.mark.parametrize("name", sorted(layout.REALWORLD))
def test_the_layout_of_the_realworld_programs_is_gccs(name: str, model: DataModel) -> None:
    files, flags = layout.REALWORLD[name]
    if not Path(files[0]).exists():
        pytest.skip("no shared/benchmarks/realworld")
    r = layout.compare(files, model, flags)
    assert not r.skipped, r.skipped
    assert r.variables > 20
    assert not r.differ, r.differ


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.value)
@pytest.mark.parametrize("task", DEV)
def test_the_layout_of_dev_tasks_with_structs_is_gccs(task: str, model: DataModel) -> None:
    """The whole 190 are ``python benchmarks/layout.py`` (benchmarks/RESULTS.md)."""
    if not (TASKS / task).exists():
        pytest.skip("no shared/benchmarks/testcomp")
    r = layout.compare([str(TASKS / task)], model)
    assert not r.skipped, r.skipped
    assert r.leaves > r.variables, "structs are compared, directly or through a pointer"
    assert not r.differ, r.differ
