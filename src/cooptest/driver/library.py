"""A library as a harness is written for it: its translation units read once (gcc -E,
pycparser, the CFA), and what the harness needs to know of them.

The harness is a translation unit of its own, so it sees the library as another file
of the program would: through the headers the library's files include and the
declarations they make themselves. ``context`` gives that text for one file, in the
file's own order (an ``#include`` line as the file spells it, then its own types and
prototypes, as pycparser prints them), so that a single-file library whose types live
in its ``.c`` can be tested as well as one with a header.
"""
from __future__ import annotations

import copy
import ctypes
import functools
import os
import re
from dataclasses import dataclass, field

from pycparser import c_ast, c_generator

from cooptest.cfa.ctype import Types
from cooptest.cfa.ir import ERROR_FUNCTIONS, Program
from cooptest.errors import UserError
from cooptest.frontend import parse
from cooptest.frontend.attributes import Attributes, system_headers
from cooptest.frontend.builder import CFABuilder
from cooptest.frontend.preprocess import attributes_of, preprocess_unit
from cooptest.task import Source, Task

LIBRARY_MAIN = "__cooptest_library_main"
LIBRARY_FLAGS = (f"-Dmain={LIBRARY_MAIN}",)  # the harness's main is the program's
_MARKER = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"([ \d]*)$', re.M)


@dataclass
class LibraryUnit:
    source: Source  # as the user gave it (without ``LIBRARY_FLAGS``)
    preprocessed: str  # path of the text pycparser read
    ast: c_ast.FileAST


@dataclass
class Library:
    """The library's units, its CFA (entered at the first function to test), and the
    names and types the harness refers to."""

    units: list[LibraryUnit]
    program: Program
    system: set[str]  # files gcc entered as system headers
    definitions: dict[str, tuple[LibraryUnit, c_ast.FuncDef]] = field(default_factory=dict)
    declarations: dict[str, c_ast.Decl] = field(default_factory=dict)  # functions, first seen
    typedefs: dict[str, c_ast.Typedef] = field(default_factory=dict)
    tags: dict[tuple[str, str], c_ast.Node] = field(default_factory=dict)  # (kind, tag): definition
    referred: set[str] = field(default_factory=set)  # identifiers the functions' bodies use
    uses: dict[str, set[str]] = field(default_factory=dict)  # function: identifiers its body uses
    variables: dict[str, c_ast.Decl] = field(default_factory=dict)  # of external linkage
    aliases: dict[int, str] = field(default_factory=dict)  # an anonymous struct's typedef name

    def is_static(self, name: str) -> bool:
        return "static" in self.definitions[name][1].decl.storage

    def resolve(self, node: c_ast.Node) -> c_ast.Node:
        """The type ``node`` denotes, through typedefs and to the definition of a tag:
        an ``IdentifierType``, ``Struct``, ``Union``, ``Enum``, ``PtrDecl``,
        ``ArrayDecl`` or ``FuncDecl``."""
        for _ in range(100):  # a typedef chain, never a cycle
            if isinstance(node, (c_ast.Decl, c_ast.Typename, c_ast.Typedef)):
                node = node.type
            if not isinstance(node, c_ast.TypeDecl):
                return node
            inner = node.type
            if isinstance(inner, c_ast.IdentifierType) and len(inner.names) == 1 \
                    and inner.names[0] in self.typedefs:
                node = self.typedefs[inner.names[0]].type
                continue
            if isinstance(inner, (c_ast.Struct, c_ast.Union, c_ast.Enum)) and inner.name is not None \
                    and (inner.values is None if isinstance(inner, c_ast.Enum) else inner.decls is None):
                return self.tags.get((type(inner).__name__, inner.name), inner)
            return inner
        return node

    def member(self, struct: c_ast.Struct | c_ast.Union, name: str) -> c_ast.Decl | None:
        """The declaration of member ``name``, also inside anonymous members."""
        for d in struct.decls or []:
            if d.name == name:
                return d
            if d.name is None:
                inner = self.resolve(d.type)
                if isinstance(inner, (c_ast.Struct, c_ast.Union)):
                    found = self.member(inner, name)
                    if found is not None:
                        return found
        return None

    def testable(self) -> tuple[str, ...]:
        """The functions ``--all-functions`` tests: those another file can call, in the
        order of their files and definitions."""
        external = self.external_functions()
        return tuple(n for n in self.definitions if n in external)

    def external_functions(self) -> set[str]:
        """The functions with a body that another file can call."""
        return {n for n in self.definitions if not self.is_static(n) and n != LIBRARY_MAIN}

    def globals_read(self, name: str) -> list[str]:
        """The variables of external linkage that ``name``, or a function it may call,
        refers to and may write (not ``const``), in the order they are declared."""
        from cooptest.cfa.calls import callees
        used = set().union(*(self.uses.get(f, set()) for f in callees(self.program, {name})))
        return [v for v, d in self.variables.items() if v in used and not _read_only(d.type)]

    def stubbed(self) -> list[str]:
        """The functions the library uses, declares in its own files and defines in
        none, that the C library does not define either: a stub stands in for each."""
        return [n for n, d in self.declarations.items()
                if n not in self.definitions and n in self.referred
                and d.coord is not None and d.coord.file not in self.system
                and not n.startswith(("__VERIFIER_", "__builtin_", "__cooptest"))
                and n not in ERROR_FUNCTIONS and not in_c_library(n)]


@functools.cache
def in_c_library(name: str) -> bool:
    """Whether the C library (libc or libm) defines ``name``: the program links it
    from there, as a program declaring ``printf`` itself does."""
    for lib in ("libc.so.6", "libm.so.6"):
        try:
            if hasattr(ctypes.CDLL(lib), name):
                return True
        except OSError:
            continue
    return False


def _read_only(node: c_ast.Node) -> bool:
    """Whether an object declared by ``node`` is ``const`` (an array: its elements)."""
    while isinstance(node, c_ast.ArrayDecl):
        node = node.type
    return isinstance(node, (c_ast.TypeDecl, c_ast.PtrDecl)) and "const" in node.quals


class _Referred(c_ast.NodeVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_ID(self, node: c_ast.ID) -> None:
        self.names.add(node.name)


def read_library(task: Task, functions: tuple[str, ...], work: str) -> Library:
    """Preprocess and parse every file of ``task`` (each without its ``main``) into
    ``work``, and build the CFA entered at the first of ``functions`` (none: of every
    function another file can call, ``Library.testable``); a function that does not
    exist, or cannot be called from another file, is a UserError."""
    units = []
    for source in task.sources or (Source(task.program),):
        path = preprocess_unit(Source(source.path, source.flags + LIBRARY_FLAGS), task.data_model,
                               os.path.join(work, "pp"))
        units.append(LibraryUnit(source, path, parse(path, source.path)))
    system: set[str] = set()
    for u in units:
        with open(u.preprocessed, errors="replace") as f:
            system |= system_headers(f.read())
    lib = Library(units, None, system)  # type: ignore[arg-type]  # the CFA below
    for u in units:
        for ext in u.ast.ext:
            _index(lib, u, ext)
    for name in functions:
        check_function(lib, name)
    if not functions:
        functions = lib.testable()
        if not functions:
            raise UserError("--all-functions: no function with a body that another file can call",
                            task.program)
    builder = CFABuilder(Types(task.data_model, task.unsigned_char), task.program,
                         Attributes.union([attributes_of(u.preprocessed) for u in units]),
                         {u.source.path: u.source.standard for u in units})
    lib.program = builder.build([(u.source.path, u.ast) for u in units], entry=functions[0])
    return lib


def _index(lib: Library, unit: LibraryUnit, ext: c_ast.Node) -> None:
    if isinstance(ext, c_ast.FuncDef):
        lib.definitions.setdefault(ext.decl.name, (unit, ext))
        referred = _Referred()
        referred.visit(ext.body)
        lib.referred |= referred.names
        lib.uses.setdefault(ext.decl.name, set()).update(referred.names)
        _tags(lib, ext.decl.type)
        return
    if isinstance(ext, c_ast.Typedef):
        lib.typedefs.setdefault(ext.name, ext)
        if isinstance(ext.type, c_ast.TypeDecl) and isinstance(ext.type.type, _TAGGED) \
                and ext.type.type.name is None:
            lib.aliases.setdefault(id(ext.type.type), ext.name)
        _tags(lib, ext.type)
    elif isinstance(ext, c_ast.Decl):
        if isinstance(ext.type, c_ast.FuncDecl) and ext.name is not None:
            lib.declarations.setdefault(ext.name, ext)
        elif ext.name is not None and "static" not in ext.storage and "typedef" not in ext.storage \
                and ext.name not in lib.variables:
            lib.variables[ext.name] = ext
        _tags(lib, ext.type)
        if ext.init is not None:
            referred = _Referred()
            referred.visit(ext.init)
            lib.referred |= referred.names


def _tags(lib: Library, node: c_ast.Node | None) -> None:
    """Record the struct, union and enum definitions within a declaration."""
    if node is None:
        return
    if isinstance(node, (c_ast.Struct, c_ast.Union)) and node.decls is not None:
        if node.name is not None:
            lib.tags.setdefault((type(node).__name__, node.name), node)
        for d in node.decls:
            _tags(lib, d.type)
        return
    if isinstance(node, c_ast.Enum) and node.values is not None and node.name is not None:
        lib.tags.setdefault(("Enum", node.name), node)
        return
    if isinstance(node, c_ast.FuncDecl) and node.args is not None:
        for p in node.args.params:
            _tags(lib, getattr(p, "type", None))
    _tags(lib, getattr(node, "type", None))


_TAGGED = (c_ast.Struct, c_ast.Union, c_ast.Enum)


def spelled(node: c_ast.Node, aliases: dict[int, str], printed: set[int] | None = None) -> c_ast.Node:
    """A copy of the declarator ``node`` that names a struct, union or enum instead of
    defining it again (a second definition is another type, or an error): by its tag,
    or, if it has none, by its typedef (``aliases``). With ``printed``, only those
    whose definition is among them (by identity; others' are added as they are kept):
    pycparser shares one definition among the declarators of ``typedef struct n {...}
    n_t, *n_p;``."""
    if isinstance(node, c_ast.TypeDecl):
        inner = node.type
        body = (inner.values if isinstance(inner, c_ast.Enum) else inner.decls) \
            if isinstance(inner, _TAGGED) else None
        if body is not None and (printed is None or id(inner) in printed):
            if inner.name is not None:
                inner = type(inner)(inner.name, None)
            elif id(inner) in aliases:
                inner = c_ast.IdentifierType([aliases[id(inner)]])
            else:
                inner = copy.deepcopy(inner)
        else:
            if body is not None and printed is not None:
                printed.add(id(inner))
            inner = copy.deepcopy(inner)
        return c_ast.TypeDecl(node.declname, list(node.quals), node.align, inner)
    if isinstance(node, c_ast.PtrDecl):
        return c_ast.PtrDecl(list(node.quals), spelled(node.type, aliases, printed))
    if isinstance(node, c_ast.ArrayDecl):
        return c_ast.ArrayDecl(spelled(node.type, aliases, printed), copy.deepcopy(node.dim),
                               list(node.dim_quals))
    if isinstance(node, c_ast.FuncDecl):
        return c_ast.FuncDecl(copy.deepcopy(node.args), spelled(node.type, aliases, printed))
    return copy.deepcopy(node)


def check_function(lib: Library, name: str) -> None:
    """A UserError (one line) unless ``name`` is a function with a body another file
    can call."""
    if name not in lib.definitions:
        if name in lib.declarations:
            d = lib.declarations[name]
            raise UserError(f"--function {name}: declared but defined in none of the files",
                            d.coord.file if d.coord else None, d.coord.line if d.coord else None)
        raise UserError(f"--function {name}: no such function in "
                        + ", ".join(os.path.basename(u.source.path) for u in lib.units))
    if lib.is_static(name):
        d = lib.definitions[name][1].decl
        raise UserError(f"--function {name}: static, so no other file can call it (remove "
                        "static to test it)", d.coord.file if d.coord else None,
                        d.coord.line if d.coord else None)


def context(unit: LibraryUnit, aliases: dict[int, str]) -> list[str]:
    """The C lines that put in scope, for another file, what the functions of
    ``unit`` see: its ``#include`` lines as it spells them, and its own types,
    prototypes and ``extern`` declarations of its variables, in its order."""
    path = unit.source.path
    with open(unit.preprocessed, errors="replace") as f:
        text = f.read()
    lines: list[tuple[int, str]] = []
    with open(path, errors="replace") as f:
        source = f.read().splitlines()
    # a header holding the code of functions (jsmn.h, a C99 inline function) would
    # define them in the harness too: its declarations stand in for its #include line
    coded = {e.coord.file for e in unit.ast.ext
             if isinstance(e, c_ast.FuncDef) and e.coord is not None and e.coord.file != path}
    inlined: dict[str, int] = {}
    for m in _MARKER.finditer(text):  # a return to the file: the line before includes
        if m[2] == path and "2" in m[3].split() and 1 < int(m[1]) <= len(source) + 1:
            directive = source[int(m[1]) - 2].strip()
            named = re.match(r'#\s*include\s*"([^"]+)"', directive)
            header = next((h for h in coded if named and h.endswith("/" + named[1])), None)
            if header is not None:
                inlined[header] = int(m[1]) - 1
                lines += [(int(m[1]) - 1, ln.strip()) for ln in _system_includes(header)]
            elif directive.startswith("#"):
                lines.append((int(m[1]) - 1, directive))
    printed: set[int] = set()
    for ext in unit.ast.ext:
        if ext.coord is not None and (ext.coord.file == path or ext.coord.file in inlined):
            decl = declaration(ext, aliases, printed)
            if decl is not None:
                lines.append((ext.coord.line if ext.coord.file == path else inlined[ext.coord.file], decl))
    lines.sort(key=lambda t: t[0])
    return [text for _, text in lines]


def _system_includes(header: str) -> list[str]:
    """The ``#include <...>`` lines of ``header``: what its declarations need."""
    with open(header, errors="replace") as f:
        return [ln for ln in f if re.match(r"\s*#\s*include\s*<", ln)]


def declaration(ext: c_ast.Node, aliases: dict[int, str], printed: set[int]) -> str | None:
    """The declaration another file makes of ``ext`` (a file-scope declaration or
    function definition), or None for what no other file can see; ``printed``: the
    struct definitions given so far (``spelled``)."""
    gen = c_generator.CGenerator()
    if isinstance(ext, c_ast.Typedef):
        return gen.visit(c_ast.Typedef(ext.name, list(ext.quals), list(ext.storage),
                                       spelled(ext.type, aliases, printed))) + ";"
    decl = ext.decl if isinstance(ext, c_ast.FuncDef) else ext
    if not isinstance(decl, c_ast.Decl) or decl.name == LIBRARY_MAIN:
        return None
    if "static" in decl.storage and decl.name is not None:
        return None
    decl = copy.copy(decl)
    decl.type = spelled(decl.type, aliases, printed)
    if decl.name is None:  # struct, union or enum
        return gen.visit(decl) + ";"
    decl.init = None
    if isinstance(decl.type, c_ast.FuncDecl):
        decl.funcspec = [s for s in decl.funcspec if s != "inline"]
        if decl.type.args is not None and any(isinstance(p, c_ast.ID) for p in decl.type.args.params):
            decl.type.args = None  # K&R: no prototype
    else:
        decl.storage = ["extern"]
    return gen.visit(decl) + ";"
