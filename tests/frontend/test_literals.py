"""Adjacent string literals mean what C makes of them, in the CFA and in every build."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from pycparser import c_generator

from cooptest.frontend import load_program
from cooptest.frontend.parser import CParser
from cooptest.harness.executor import Executor
from cooptest.task import load_task


@pytest.mark.parametrize("literals, data", [
    (r'"\x7f" "ELF"', b"\x7fELF"),  # the hex escape would swallow E
    (r'"\1" "23"', b"\x0123"),  # the octal escape would swallow 23
    (r'"\123" "4"', b"S4"),  # three octal digits: closed already
    (r'"a\\x4" "1"', b"a\\x41"),  # an escaped backslash opens no escape
    (r'"\x41" "g"', b"Ag"),  # g is no hex digit
    (r'"ab" "" "cd"', b"abcd"),
])
def test_joined_literals_hold_the_bytes_c_gives(tmp_path: Path, literals: str, data: bytes) -> None:
    """gcc compiles the text cooptest writes back (the instrumented and coverage builds)."""
    ast = CParser().parse(f"char s[] = {literals};")
    source = tmp_path / "s.c"
    source.write_text("#include <stdio.h>\n" + c_generator.CGenerator().visit(ast)
                      + "int main(void) { fwrite(s, 1, sizeof s - 1, stdout); return 0; }\n")
    subprocess.run(["gcc", "-w", "-o", tmp_path / "s", source], check=True)
    assert subprocess.run([tmp_path / "s"], capture_output=True).stdout == data


MAGIC = r"""extern unsigned char __VERIFIER_nondet_uchar(void);
int main(void) {
  unsigned char h[4];
  for (int i = 0; i < 4; i++) h[i] = __VERIFIER_nondet_uchar();
  const char *magic = "\x7f" "ELF";
  for (int i = 0; i < 4; i++) if (h[i] != (unsigned char)magic[i]) return 0;
  return 1;
}
"""


def test_the_instrumented_build_checks_the_magic_the_program_has(tmp_path: Path) -> None:
    """The ELF magic, 7f 45 4c 46, reaches ``return 1``; pycparser's pasted "\\x7fELF"
    (fe 4c 46 00) did, and was reported covered where TestCov found it missed."""
    path = tmp_path / "magic.c"
    path.write_text(MAGIC)
    frontend = load_program(load_task(str(path)), str(tmp_path / "work"))
    executor = Executor(frontend, str(tmp_path / "build"))
    assert executor.run(["127", "69", "76", "70"]).exit_code == 1
    assert executor.run(["254", "76", "70", "0"]).exit_code == 0


@pytest.mark.parametrize("literal", ['L"ab"', 'u"ab"', 'U"ab"'])
def test_a_wide_string_is_refused_in_one_line(tmp_path: Path, literal: str) -> None:
    """Its elements are 2 or 4 bytes, which the CFA's char arrays cannot hold: read as
    bytes, ``sizeof(L"ab")`` was 3, not 12."""
    source = tmp_path / "w.c"
    source.write_text(f"int main(void) {{ return sizeof({literal}) == 12; }}\n")
    r = subprocess.run(["cooptest", "cfa", str(source)], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.strip() == f"cooptest: {source}:1: unsupported construct: a wide or Unicode string literal"


def test_character_constants_are_gccs(tmp_path: Path) -> None:
    """A multi-character constant is gcc's int of its bytes; a wide one the code."""
    from cooptest.cfa.ctype import DataModel, Types
    from cooptest.frontend.literals import char_literal
    texts = ["'ab'", "'\\xff'", "'\\xff\\xff'", "'abcde'", "L'\\x1234'", "u'\\xe9'", "U'\\n'"]
    source = tmp_path / "c.c"
    source.write_text("#include <stdio.h>\nint main(void) {\n"
                      + "".join(f'  printf("%lld\\n", (long long) {t});\n' for t in texts) + "}\n")
    subprocess.run(["gcc", "-w", "-o", tmp_path / "c", source], check=True)
    native = [int(v) for v in subprocess.run([tmp_path / "c"], capture_output=True, text=True).stdout.split()]
    types = Types(DataModel.LP64)
    assert [char_literal(types, t).value for t in texts] == native
