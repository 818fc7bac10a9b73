#!/usr/bin/env python3
"""cooptest's layout of every variable's type, and its enums, against gcc's, read from
the DWARF of gcc's build (pyelftools), for -m32 and -m64.

    python benchmarks/layout.py [PROGRAM.c|TASK.yml ...]   (default: the 190 dev tasks
                                                            and the realworld programs)

cooptest computes sizes, member offsets and bit-field positions itself
(``cfa.ctype.Types``); gcc is the authority on them. For each program and data model
the script loads the program with cooptest, compiles each translation unit with
``gcc -g -c`` and its own flags, and compares, for every variable both sides name alike
(globals; parameters and locals of a function, where the name is not shadowed), the
type's *leaves*: each scalar, bit-field, array and aggregate inside it, by access path,
with its first bit and its width in bits; and every enum type (gcc's DWARF keeps the
unused ones too, ``-fno-eliminate-unused-debug-types``), known by its enumerators'
names: its size, its signedness and each enumerator's value. Prints one line per
variable or enum that differs and a summary per data model: programs, variables, leaves
and enums compared, those that differ. Exit 1 when any differs.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from elftools.elf.elffile import ELFFile

from crest_subjects import CREST, GREP, GREP_DEFINES, GREP_FILES, GREP_INCLUDES

from cooptest.cfa.ctype import ArrayType, CType, DataModel, PointerType, StructType, Types
from cooptest.cfa.ir import Program
from cooptest.errors import UserError
from cooptest.frontend import parse
from cooptest.frontend.attributes import Attributes
from cooptest.frontend.builder import CFABuilder
from cooptest.frontend.preprocess import attributes_of, preprocess, search_flags
from cooptest.sources import load_program_task
from cooptest.task import Task

Leaf = tuple[str, int, int]  # access path, first bit, width in bits
Enumeration = tuple[int, bool, tuple[int, ...]]  # bytes, signed, the enumerators' values
SHARED = Path(__file__).resolve().parents[2] / "shared" / "benchmarks"
REALWORLD: dict[str, tuple[list[str], tuple[str, ...]]] = {  # name -> files, flags
    "replace": ([str(CREST / "replace" / "replace.c")], ()),
    "grep-2.2": ([str(GREP / f) for f in GREP_FILES],
                 (*(f"-D{d}" for d in GREP_DEFINES), *(f"-I{(GREP / i).resolve()}" for i in GREP_INCLUDES))),
}
QUALIFIERS = ("DW_TAG_typedef", "DW_TAG_const_type", "DW_TAG_volatile_type",
              "DW_TAG_restrict_type", "DW_TAG_atomic_type")


@dataclass
class Comparison:
    """One program in one data model."""

    program: str
    data_model: str
    variables: int = 0
    leaves: int = 0
    enums: int = 0
    differ: list[str] = field(default_factory=list)  # "variable: cooptest's leaf vs gcc's"
    skipped: str = ""  # why the program was not compared


def cooptest_leaves(t: CType, sizeof, path: str = "", base: int = 0, follow: bool = True) -> Iterator[Leaf]:
    """The leaves of ``t`` as cooptest lays it out (``sizeof``: its ``Types.sizeof``);
    bit-fields named ``__pad…`` are the front end's names for unnamed ones, which gcc's
    DWARF omits."""
    yield path, base, sizeof(t) * 8
    if isinstance(t, ArrayType) and t.length:
        yield from cooptest_leaves(t.elem, sizeof, path + "[0]", base, follow)
    elif isinstance(t, PointerType) and isinstance(t.target, StructType) and follow:
        yield from cooptest_leaves(t.target, sizeof, path + "->", 0, False)
    elif isinstance(t, StructType):
        for f in t.fields:
            if f.name.startswith("__pad") and f.bit_width is not None:
                continue
            if f.bit_width is not None:
                yield f"{path}.{f.name}", base + f.offset * 8 + f.bit_offset, f.bit_width
            else:
                yield from cooptest_leaves(f.type, sizeof, f"{path}.{f.name}", base + f.offset * 8, follow)


def _unqualified(die):
    while die is not None and die.tag in QUALIFIERS:
        die = die.get_DIE_from_attribute("DW_AT_type") if "DW_AT_type" in die.attributes else None
    return die


def gcc_leaves(die, pointer_bytes: int, path: str = "", base: int = 0, follow: bool = True) -> Iterator[Leaf]:
    """The leaves of the DWARF type ``die`` as gcc laid it out; the members of an
    anonymous struct or union member are the outer one's (C11 6.7.2.1), as in
    cooptest's fields. With ``follow``, a pointer to a struct or union has the leaves
    of its target too (one pointer deep: a list's node, not the list)."""
    die = _unqualified(die)
    if die is None:  # void
        return
    if die.tag == "DW_TAG_array_type":
        bounds = [c.attributes.get("DW_AT_upper_bound") for c in die.iter_children()
                  if c.tag == "DW_TAG_subrange_type"]  # an expression for a VLA's
        counts = [b.value + 1 if b is not None and isinstance(b.value, int) else None for b in bounds]
        elem = list(gcc_leaves(die.get_DIE_from_attribute("DW_AT_type"), pointer_bytes, "", 0, follow))
        if not elem or any(not isinstance(n, int) for n in counts):
            return  # variable or unknown length: cooptest's is another model
        for depth in range(len(counts)):  # int a[2][3] is an array of arrays
            n = 1
            for c in counts[depth:]:
                n *= c
            yield path + "[0]" * depth, base, n * elem[0][2]
        inner = path + "[0]" * len(counts)
        yield from ((inner + p, base + b, w) for p, b, w in elem)
        return
    size = die.attributes["DW_AT_byte_size"].value * 8 if "DW_AT_byte_size" in die.attributes \
        else pointer_bytes * 8 if die.tag == "DW_TAG_pointer_type" else 0
    yield path, base, size
    if die.tag == "DW_TAG_pointer_type" and follow and "DW_AT_type" in die.attributes:
        target = _unqualified(die.get_DIE_from_attribute("DW_AT_type"))
        if target is not None and target.tag in ("DW_TAG_structure_type", "DW_TAG_union_type"):
            yield from gcc_leaves(target, pointer_bytes, path + "->", 0, False)
    if die.tag not in ("DW_TAG_structure_type", "DW_TAG_union_type"):
        return
    for m in die.iter_children():
        if m.tag != "DW_TAG_member":
            continue
        a = m.attributes
        name = a["DW_AT_name"].value.decode() if "DW_AT_name" in a else None
        start = base + (a["DW_AT_data_bit_offset"].value if "DW_AT_data_bit_offset" in a
                        else a["DW_AT_data_member_location"].value * 8
                        if "DW_AT_data_member_location" in a else 0)
        if "DW_AT_bit_size" in a:
            if name is not None:
                yield f"{path}.{name}", start, a["DW_AT_bit_size"].value
            continue
        mtype = m.get_DIE_from_attribute("DW_AT_type")
        if name is None:  # an anonymous member: its leaves are the outer struct's, less itself
            yield from list(gcc_leaves(mtype, pointer_bytes, path, start, follow))[1:]
        else:
            yield from gcc_leaves(mtype, pointer_bytes, f"{path}.{name}", start, follow)


def gcc_variables(objects: list[str], pointer_bytes: int) -> dict[tuple[str | None, str], list[Leaf]]:
    """(function or None for a global, name) -> leaves, from the DWARF of ``objects``;
    a name declared twice in one function (a shadowed local) is left out."""
    found: dict[tuple[str | None, str], list[Leaf]] = {}
    twice: set[tuple[str | None, str]] = set()

    def visit(die, function: str | None) -> None:
        for child in die.iter_children():
            a = child.attributes
            if child.tag == "DW_TAG_subprogram" and "DW_AT_name" in a:
                visit(child, a["DW_AT_name"].value.decode())
            elif child.tag == "DW_TAG_lexical_block":
                visit(child, function)
            elif child.tag in ("DW_TAG_variable", "DW_TAG_formal_parameter") \
                    and "DW_AT_name" in a and "DW_AT_type" in a:
                key = (function, a["DW_AT_name"].value.decode())
                leaves = list(gcc_leaves(child.get_DIE_from_attribute("DW_AT_type"), pointer_bytes))
                if key in found and found[key] != leaves:
                    twice.add(key)
                found[key] = leaves

    for path in objects:
        with open(path, "rb") as f:
            for cu in ELFFile(f).get_dwarf_info().iter_CUs():
                visit(cu.get_top_DIE(), None)
    return {k: v for k, v in found.items() if k not in twice}


ENCODINGS = {0x05: True, 0x06: True, 0x07: False, 0x08: False}  # DW_ATE_(un)signed(_char)
DATA_FORMS = {"DW_FORM_data1": 8, "DW_FORM_data2": 16, "DW_FORM_data4": 32, "DW_FORM_data8": 64}


def gcc_enumerations(objects: list[str]) -> dict[tuple[str, ...], Enumeration]:
    """Every enum type in the DWARF of ``objects``, by its enumerators' names. gcc
    writes a negative constant as ``sdata`` and any other in the least fixed-size form
    that holds it; only one as wide as a signed type may be its two's complement."""
    found: dict[tuple[str, ...], Enumeration] = {}

    def visit(die) -> None:
        for child in die.iter_children():
            if child.tag != "DW_TAG_enumeration_type":
                visit(child)
                continue
            a = child.attributes
            encoding = a["DW_AT_encoding"].value if "DW_AT_encoding" in a else \
                _unqualified(child.get_DIE_from_attribute("DW_AT_type")).attributes["DW_AT_encoding"].value
            signed, size = ENCODINGS[encoding], a["DW_AT_byte_size"].value
            names, values = [], []
            for e in child.iter_children():
                if e.tag != "DW_TAG_enumerator":
                    continue
                value = e.attributes["DW_AT_const_value"]
                v, bits = value.value, DATA_FORMS.get(value.form)
                if signed and bits == 8 * size and v >> (bits - 1):
                    v -= 1 << bits
                names.append(e.attributes["DW_AT_name"].value.decode())
                values.append(v)
            if names:
                found[tuple(names)] = (size, signed, tuple(values))

    for path in objects:
        with open(path, "rb") as f:
            for cu in ELFFile(f).get_dwarf_info().iter_CUs():
                visit(cu.get_top_DIE())
    return found


def cooptest_types(task: Task, work: str) -> tuple[Program, dict[tuple[str, ...], Enumeration]]:
    """The program as cooptest's front end builds it, and its enum types by their
    enumerators' names."""
    units = [(unit.path, parse(path, unit.path), attributes_of(path))
             for unit, path in zip(task.units, preprocess(task, os.path.join(work, "pp")))]
    builder = CFABuilder(Types(task.data_model), task.program, Attributes.union([a for *_, a in units]),
                         {unit.path: unit.standard for unit in task.units})
    program = builder.build([(path, ast) for path, ast, _ in units])
    return program, {tuple(n for n, _ in values): (t.bits // 8, t.signed, tuple(v for _, v in values))
                     for _, t, values in builder.resolver.enumerations}


def compare_enumerations(result: Comparison, ours: dict[tuple[str, ...], Enumeration],
                         gcc: dict[tuple[str, ...], Enumeration]) -> None:
    for names in sorted(ours.keys() & gcc.keys()):
        result.enums += 1
        if ours[names] != gcc[names]:
            result.differ.append(f"enum {{{', '.join(names[:3])}{', ...' if len(names) > 3 else ''}}}: "
                                 f"cooptest's (bytes, signed, values) {ours[names]}, gcc's {gcc[names]}")


def compare(targets: list[str], model: DataModel, flags: tuple[str, ...] = ()) -> Comparison:
    """cooptest's leaves of every variable of the program of ``targets`` (C files or a
    task .yml, as the command line takes them, with ``flags``) against gcc's."""
    result = Comparison(" ".join(map(os.path.basename, targets)), model.value)
    with tempfile.TemporaryDirectory(prefix="layout-") as work:
        try:
            task = load_program_task(targets, model, flags)
            program, enumerations = cooptest_types(task, work)
        except UserError as e:
            result.skipped = f"cooptest: {str(e).splitlines()[0]}"
            return result
        objects = []
        for i, unit in enumerate(task.units):
            obj = os.path.join(work, f"unit{i}.o")
            r = subprocess.run(["gcc", "-g", "-fno-eliminate-unused-debug-types", "-c", "-w",
                                *search_flags(unit, model), *unit.flags, unit.path, "-o", obj],
                               capture_output=True, text=True, cwd=os.path.dirname(unit.path))
            if r.returncode != 0:
                result.skipped = f"gcc: {(r.stderr.strip().splitlines() or ['failed'])[-1]}"
                return result
            objects.append(obj)
        compare_enumerations(result, enumerations, gcc_enumerations(objects))
        gcc = gcc_variables(objects, model.pointer_bits // 8)
        ours: dict[tuple[str | None, str], CType] = {}
        twice: set[tuple[str | None, str]] = set()
        variables = [(v.function, v) for v in program.globals] + [
            (f.name, v) for f in program.functions.values() for v in f.params + f.locals]
        for function, v in variables:
            if v.temporary:
                continue
            key = (function, v.source_name)
            if key in ours and ours[key] is not v.type:
                twice.add(key)
            ours[key] = v.type
        for key in sorted(set(ours) - twice & gcc.keys(), key=str):
            mine = list(cooptest_leaves(ours[key], program.types.sizeof))
            if not gcc[key]:
                continue
            result.variables += 1
            result.leaves += len(gcc[key])
            if mine != gcc[key]:
                where = f"{key[0]}::{key[1]}" if key[0] else key[1]
                only = sorted(set(mine) ^ set(gcc[key]), key=lambda leaf: (-leaf[0].count("."), leaf))
                result.differ.append(f"{where}: only cooptest's {[x for x in only if x in mine][:2]}, "
                                     f"only gcc's {[x for x in only if x in gcc[key]][:2]}")
    return result


def default_programs() -> list[tuple[list[str], tuple[str, ...]]]:
    """The 190 dev tasks and the realworld programs."""
    return [([str(p)], ()) for p in sorted((SHARED / "testcomp").glob("*/*.yml"))] + list(REALWORLD.values())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("programs", nargs="*")
    args = ap.parse_args()
    programs = [([p], ()) for p in args.programs] or default_programs()
    failed = False
    for model in (DataModel.ILP32, DataModel.LP64):
        results = [compare(files, model, flags) for files, flags in programs]
        for r in results:
            for line in r.differ:
                print(f"DIFFERS {r.program} ({r.data_model}): {line}", flush=True)
        done = [r for r in results if not r.skipped]
        print(f"{model.value}: {len(done)} of {len(results)} programs compared, "
              f"{sum(r.variables for r in done)} variables, {sum(r.leaves for r in done)} leaves, "
              f"{sum(r.enums for r in done)} enums; {sum(len(r.differ) for r in done)} differ", flush=True)
        for r in results:
            if r.skipped:
                print(f"  skipped {r.program}: {r.skipped}")
        failed |= any(r.differ for r in done)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
