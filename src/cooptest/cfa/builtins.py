"""gcc's floating-point constant builtins, which programs call without declaring them
(newlib's ``return __builtin_nan("");``). C's implicit ``int`` return would make their
value an integer in the model, where the native code returns a double NaN: the front
end types them (``CFABuilder._call``) and the symbolic state knows their values
(``SymbolicState._external``). ``nan``/``nanf`` are declared by ``<math.h>``."""
from __future__ import annotations

import os

NAN, INF = float("nan"), float("inf")
# Library functions whose result is a constant of the machine the tests run on (name: value):
# grep sizes and aligns its buffer by the page, and read as an unknown 0 diverged there.
INT_CONSTANTS: dict[str, int] = {"getpagesize": os.sysconf("SC_PAGE_SIZE")}
FLOAT_CONSTANTS: dict[str, tuple[int, float]] = {  # name: (bits of the result, value)
    "nan": (64, NAN), "nanf": (32, NAN), "__builtin_nan": (64, NAN), "__builtin_nanf": (32, NAN),
    "__builtin_inf": (64, INF), "__builtin_inff": (32, INF),
    "__builtin_huge_val": (64, INF), "__builtin_huge_valf": (32, INF),
}
