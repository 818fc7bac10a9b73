"""pycparser AST → CFA, the way CIL and CPAchecker simplify C.

Statements become edges between locations; expressions are made side-effect free by
pulling assignments, increments and calls out into edges of their own (with temporaries),
left to right. Conditions are split: ``&&``, ``||``, ``!`` and ``?:`` become separate
assume edges, so that every leaf condition is a branch point and so a pair of goals.
Each leaf is also remembered with its place in the AST, so that the native build can be
instrumented to report exactly these branch points (see ``instrument.py``).
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

from pycparser import c_ast, c_generator

from cooptest.cfa import libc_model
from cooptest.cfa.ctype import (ArrayType, CType, DataModel, FloatType, FunctionType, IntType,
                                PointerType, StructType, Types, VoidType)
from cooptest.cfa.fold import const_int
from cooptest.cfa.library_globals import GETOPT_STATE, STREAMS
from cooptest.cfa.loops import cycle_edges
from cooptest.cfa.ir import (ERROR_FUNCTIONS, AddrOf, AssignEdge, AssumeEdge, BlankEdge, BranchPoint,
                             CallEdge, Const, DeclEdge, Deref, Edge, ErrorEdge, Expr,
                             FuncRef, FunctionCFA, Index, Location, Member, NondetEdge,
                             Program, ReturnEdge, TerminateEdge, Var, Variable)
from cooptest.errors import UserError
from cooptest.frontend import conversions as conv
from cooptest.frontend import implicit
from cooptest.frontend.attributes import FLOAT128, Attributes
from cooptest.frontend.declarations import TypeResolver, unsupported, where
from cooptest.frontend.generic import (Levels, NoSelection, Selection, compatible,
                                       declarator_levels)
from cooptest.frontend.parser import CaseRange, GenericSelection, StatementExpression
from cooptest.frontend.literals import (C90, UnicodeString, char_literal, exactly_its_value, float_literal,
                                        int_literal, string_literal)
from cooptest.frontend.initialisers import InitialiserWalk, SubObject
from cooptest.frontend.scope import EnumConst, Function, Scope, Typedef
from cooptest.task import DEFAULT_STANDARD

NONDET_PREFIX = "__VERIFIER_nondet_"
CONDITION_CHARS = 80  # of a condition's text kept for reports (generated code nests deep)

Slot = Callable[[c_ast.Node], None]  # puts a replacement node where the original stood


def slot(parent: object, attr: str | int) -> Slot:
    if isinstance(attr, int):
        return lambda n: parent.__setitem__(attr, n)  # type: ignore[index]
    return lambda n: setattr(parent, attr, n)


@dataclass
class Leaf:
    """A leaf condition of the source: the native build wraps it to log its outcome."""

    branch: int
    put: Slot
    node: c_ast.Node


@dataclass
class SwitchSite:
    """A switch: the native build logs the outcome of each case comparison in order."""

    node: c_ast.Switch
    promoted: IntType
    cases: list[tuple[int, int, int]]  # (branch id, case values low...high in the promoted type)
    unit: str  # the translation unit it is in


@dataclass
class Instrumentation:
    """Where the AST must be instrumented so that a native run reports its CFA path."""

    leaves: list[Leaf] = field(default_factory=list)
    switches: list[SwitchSite] = field(default_factory=list)
    error_calls: list[tuple[int, c_ast.FuncCall, str]] = field(default_factory=list)  # id, call, unit


@dataclass
class FunctionState:
    """What the builder knows while it builds one function body."""

    name: str
    ftype: FunctionType
    entry: Location
    exit: Location
    locations: list[Location]
    cur: Location | None
    labels: dict[str, Location] = field(default_factory=dict)
    defined_labels: set[str] = field(default_factory=set)
    gotos: dict[str, c_ast.Goto] = field(default_factory=dict)  # label -> its first goto
    breaks: list[Location] = field(default_factory=list)
    continues: list[Location] = field(default_factory=list)
    switch_cases: list[dict[int, Location]] = field(default_factory=list)
    locals: list[Variable] = field(default_factory=list)
    params: list[Variable] = field(default_factory=list)
    temps: int = 0


class CFABuilder:
    def __init__(self, types: Types, path: str, attributes: Attributes | None = None,
                 standards: Mapping[str, str] | None = None) -> None:
        """``standards``: each unit's ``-std=`` by its path (TestCov's where none is
        given), which decides the types of its constants and gcc's implicit builtins."""
        self.types = types
        self.standards = standards or {}
        self.standard = DEFAULT_STANDARD  # the unit being built's
        self.path = path
        self.attributes = attributes or Attributes()
        self.scope = Scope()
        self.resolver = TypeResolver(types, self.scope, self._const_eval,
                                     frozenset(self.attributes.packed))
        self.globals: list[Variable] = []
        self.functions: dict[str, FunctionCFA] = {}
        self.declared: dict[str, FunctionType] = {}
        self.branch_points: dict[int, BranchPoint] = {}
        self.error_calls: dict[int, ErrorEdge] = {}
        self.instrumentation = Instrumentation()
        self._next_loc = 0
        self._next_branch = 0
        self._next_error = 0
        self._names: set[str] = set()
        self._sandbox = 0
        self._constants: dict[tuple[str, str, str], Expr] = {}  # (kind, text, standard)
        self.widened_constants: list[tuple[str | None, int | None]] = []  # see _constant
        self._expr_handlers = self._make_expr_handlers()
        self._declarators: dict[int, c_ast.Node] = {}  # id of a Variable or Typedef -> its declarator
        self._vla_lengths: dict[int, Var] = {}  # id of a variable-length array -> its length
        self.resolver.type_of = self._type_of
        self._selection = Selection(self._type_of, lambda n: self.resolver.resolve(n),
                                    self._variable_levels, self._typedef_levels)
        self._defined_globals: set[str] = set()  # globals some unit defines; the others are the C library's
        self._library_state_set: set[str] = set()  # of those, given glibc's values at the start
        self.prelude = self._new_function_state("main", FunctionType(types.int, ()))
        self.fs = self.prelude
        self.linkage: dict[str, Variable] = {}  # objects of external linkage, by name
        self._unit = path  # the translation unit being built
        self._internal_names: dict[tuple[str, str], str] = {}  # (unit, static name) -> CFA name
        self._defined_in: dict[str, str] = {}  # function -> file of its definition
        self.static_inline: set[str] = set()  # functions gcc emits only where referenced
        self.internal: set[str] = set()  # functions of internal linkage (static)
        self._declared_static: set[tuple[str, str]] = set()  # (unit, name) declared static

    # ------------------------------------------------------------------ top level

    def build(self, units: list[tuple[str, c_ast.FileAST]], entry: str = "main",
              weak: Mapping[str, set[str]] | None = None) -> Program:
        """The CFA of the program the translation units ``units`` (path, AST) link into;
        ``weak``: the functions each unit (by path) declares weak.

        Each unit has a file scope of its own; names of external linkage are one object
        or function across units (``linkage``), as the linker makes them, and types of
        one tag one type (``TypeResolver.linked``). A ``static`` function whose name
        another unit also uses is named ``name@file`` in the CFA. A weak definition
        another unit defines strong is left out, as the linker leaves it out."""
        self._internal_names = _internal_function_names(units)
        overridden = _overridden_weak(units, weak or {})
        for path, ast in units:
            self.scope = Scope()
            self.resolver.scope = self.scope
            self.resolver.file = path
            self.resolver.pack, self.resolver.packs = None, []  # #pragma pack is the unit's own
            self.resolver.linked.next_unit()
            self._unit = path
            self.standard = self.standards.get(path, DEFAULT_STANDARD)
            for ext in ast.ext:
                if isinstance(ext, c_ast.FuncDef) and (path, ext.decl.name) in overridden:
                    self._declaration(ext.decl, file_scope=True)
                elif isinstance(ext, c_ast.FuncDef):
                    self._function(ext)
                elif isinstance(ext, c_ast.Decl):
                    self._declaration(ext, file_scope=True)
                elif isinstance(ext, c_ast.Typedef):
                    self._typedef(ext)
                elif isinstance(ext, c_ast.Pragma):
                    self.resolver.pragma(ext)
                else:
                    raise unsupported(type(ext).__name__, ext)
        if entry not in self.functions:
            raise UserError(f"no function {entry}() with a body", self.path)
        main = self.functions[entry]
        self.fs = self.prelude
        self._library_state(main.line)
        self._constructor_calls(main.line)
        self._jump(main.entry, main.line)
        main.entry = self.prelude.entry
        main.locations[:0] = self.prelude.locations
        self.path = self._defined_in.get(entry, self.path)
        return Program(self.path, self.types.model, self.types, self.globals, self.functions,
                       self.branch_points, self.error_calls, self.declared, entry,
                       files=[path for path, _ in units],
                       library_globals=frozenset(v.name for v in self.globals
                                                 if v.name not in self._defined_globals),
                       library_state=frozenset(self._library_state_set))

    def _function_name(self, name: str) -> str:
        """The CFA's name of the function this unit calls ``name``."""
        return self._internal_names.get((self._unit, name), name)

    def _library_state(self, line: int) -> None:
        """The C library's variables the program declares, as glibc has them at the
        start of main where that is certain (``cfa.library_globals``): a stream points
        to its FILE object, getopt's variables hold their initial values."""
        for v in [v for v in self.globals if v.name not in self._defined_globals]:
            t = v.type
            if v.name in STREAMS and isinstance(t, PointerType) and isinstance(t.target, StructType) \
                    and STREAMS[v.name] not in self._names:  # unless the program names the object
                stream = Variable(self._unique(STREAMS[v.name]), STREAMS[v.name], t.target, True,
                                  line=line, address_taken=True)
                self.globals.append(stream)
                self._edge(DeclEdge, None, line, var=stream)
                self._edge(AssignEdge, None, line, lhs=Var(t, v), rhs=AddrOf(t, Var(t.target, stream)))
                self._library_state_set |= {v.name, stream.name}
            elif v.name in GETOPT_STATE and isinstance(t, (IntType, PointerType)):
                if GETOPT_STATE[v.name]:  # optarg is NULL: zeroed already
                    self._edge(AssignEdge, None, line, lhs=Var(t, v), rhs=Const(t, GETOPT_STATE[v.name]))
                self._library_state_set.add(v.name)

    def _constructor_calls(self, line: int) -> None:
        """Functions with ``__attribute__((constructor))`` run after the globals are
        initialised and before main, in gcc's order."""
        for name in self.attributes.constructors():
            if name not in self.functions:
                continue  # declared only: defined in no file cooptest sees
            ftype = self.functions[name].type
            if ftype.params:
                raise UserError(f"constructor {name} takes parameters", self.path)
            self._edge(CallEdge, None, line, lhs=None, callee=name, args=(), ftype=ftype)

    def _typedef(self, node: c_ast.Typedef) -> None:
        typedef = Typedef(self.types.float128 if node.name == FLOAT128 else self.resolver.resolve(node.type))
        self._declarators[id(typedef)] = node.type
        self.scope.declare(node.name, typedef)

    def _new_function_state(self, name: str, ftype: FunctionType, line: int = 0) -> FunctionState:
        entry = self._location(name, line)
        exit_ = self._location(name, line)
        return FunctionState(name, ftype, entry, exit_, [entry, exit_], entry)

    def _location(self, function: str, line: int) -> Location:
        self._next_loc += 1
        return Location(self._next_loc, function, line)

    def _unique(self, name: str) -> str:
        base, n = name, 1
        while name in self._names:
            n += 1
            name = f"{base}#{n}"
        self._names.add(name)
        return name

    def _function(self, node: c_ast.FuncDef) -> None:
        name = self._function_name(node.decl.name)
        ftype = self.resolver.resolve(node.decl.type)
        assert isinstance(ftype, FunctionType)
        self.scope.declare(node.decl.name, Function(name, ftype), file_scope=True)
        self.declared[name] = ftype
        line = node.coord.line if node.coord else 0
        if name in self.functions:  # the linker's "multiple definition"
            raise UserError(f"{name}() is defined twice: here and in "
                            f"{self._defined_in[name]}:{self.functions[name].line}", *where(node))
        self._defined_in[name] = node.coord.file if node.coord else self._unit
        if "static" in (node.decl.storage or []) or (self._unit, node.decl.name) in self._declared_static:
            self.internal.add(name)
            if "inline" in (node.decl.funcspec or []):
                self.static_inline.add(name)
        fs = self._new_function_state(name, ftype, line)
        self.fs = fs
        self.scope.push()
        self._parameters(node, line)
        self._compound(node.body, new_scope=False)
        if fs.cur is not None:
            ret = None if isinstance(ftype.ret, VoidType) else (
                Const(self.types.int, 0) if name == "main" else None)
            self._edge(ReturnEdge, fs.exit, line, value=ret)
        self.scope.pop()
        for label, loc in fs.labels.items():
            if not loc.entering and not loc.leaving and label.startswith("?"):
                raise unsupported(f"goto to undefined label {label[1:]}", node)
        for label, goto in fs.gotos.items():  # as gcc says it, at the goto, of the user's file
            if label not in fs.defined_labels:
                raise UserError(f"label '{label}' used but not defined", *where(goto))
        for loc in fs.locations:  # marked where a cycle may close: kept where one does
            loc.is_loop_head = loc.is_loop_head and bool(cycle_edges(loc))
        self.functions[name] = FunctionCFA(name, ftype, fs.params, fs.locals, fs.entry, fs.exit,
                                           fs.locations, line, self._defined_in[name])
        self.fs = self.prelude

    def _parameters(self, node: c_ast.FuncDef, line: int) -> None:
        """Declare the parameters of the function being built, in their order.

        A prototype's parameters are received as declared. A K&R definition
        (``int f(a, c) int a; char c; {...}``) has no prototype, so its callers pass
        default-promoted arguments: each parameter is received in its promoted type and,
        where that differs from the declared one (``char``, ``short``, ``float``),
        converted on entry into a local of the declared type (C11 6.9.1p10), as the
        compiled callee does. A parameter the K&R declarations omit is ``int``, as in gcc."""
        name = self.fs.name
        declared = {d.name: d.type for d in node.param_decls or []}
        for p in node.decl.type.args.params if node.decl.type.args else []:
            if isinstance(p, c_ast.EllipsisParam) or p.name is None:
                continue
            if isinstance(p, c_ast.ID):
                decl = declared.get(p.name)
                t = self.resolver.param_type(self.resolver.resolve(decl)) if decl \
                    else self.types.int
                passed = conv.argument_type(self.types, t)
            else:
                t = passed = self.resolver.param_type(self.resolver.resolve(p.type))
            if isinstance(t, VoidType):
                continue
            param = Variable(self._unique(f"{name}::{p.name}"), p.name, passed, False, name, line)
            self.fs.params.append(param)
            self._declarators[id(param)] = declared.get(p.name) if isinstance(p, c_ast.ID) else p.type
            if passed == t:
                self.scope.declare(p.name, param)
                continue
            local = Variable(self._unique(f"{name}::{p.name}"), p.name, t, False, name, line)
            self.fs.locals.append(local)
            self._declarators[id(local)] = self._declarators[id(param)]
            self.scope.declare(p.name, local)
            self._edge(AssignEdge, None, line, lhs=Var(t, local),
                       rhs=self._convert(Var(passed, param), t, p))

    # ------------------------------------------------------------------ edges

    def _here(self, line: int) -> Location:
        if self.fs.cur is None:  # unreachable code: give it a location of its own
            self.fs.cur = self._new_loc(line)
        return self.fs.cur

    def _new_loc(self, line: int) -> Location:
        loc = self._location(self.fs.name, line)
        self.fs.locations.append(loc)
        return loc

    def _edge(self, cls: type[Edge], dst: Location | None, line: int, **kw: object) -> Edge:
        """Add an edge from the current location; ``dst`` None means a fresh location,
        which becomes current. With an explicit ``dst``, the code after is unreachable."""
        src = self._here(line)
        target = dst if dst is not None else self._new_loc(line)
        e = cls(src, target, line, **kw)
        if not self._sandbox:
            src.leaving.append(e)
            target.entering.append(e)
        self.fs.cur = target if dst is None else None
        return e

    def _jump(self, target: Location, line: int, label: str = "") -> None:
        if self.fs.cur is not None:
            self._edge(BlankEdge, target, line, label=label)
        self.fs.cur = None

    def _sink(self, line: int) -> Location:
        return self._new_loc(line)

    # ------------------------------------------------------------------ statements

    def _compound(self, node: c_ast.Compound, new_scope: bool = True) -> None:
        if new_scope:
            self.scope.push()
        for item in node.block_items or []:
            self._statement(item)
        if new_scope:
            self.scope.pop()

    def _statement(self, node: c_ast.Node) -> None:
        line = node.coord.line if node.coord else 0
        match node:
            case c_ast.Compound():
                self._compound(node)
            case c_ast.Decl():
                self._declaration(node, file_scope=False)
            case c_ast.Typedef():
                self._typedef(node)
            case c_ast.DeclList():
                for d in node.decls:
                    self._declaration(d, file_scope=False)
            case c_ast.EmptyStatement() | c_ast.Pragma():
                pass
            case c_ast.If():
                then, els, after = self._new_loc(line), self._new_loc(line), self._new_loc(line)
                self._cond(node.cond, then, els, "if", slot(node, "cond"))
                self.fs.cur = then
                if node.iftrue is not None:
                    self._statement(node.iftrue)
                self._jump(after, line)
                self.fs.cur = els
                if node.iffalse is not None:
                    self._statement(node.iffalse)
                self._jump(after, line)
                self.fs.cur = after
            case c_ast.While():
                head, body, after = self._new_loc(line), self._new_loc(line), self._new_loc(line)
                head.is_loop_head = True
                self._jump(head, line)
                self.fs.cur = head
                self._cond(node.cond, body, after, "while", slot(node, "cond"))
                self._loop_body(node.stmt, body, after, head, head)
            case c_ast.DoWhile():
                body, cond, after = self._new_loc(line), self._new_loc(line), self._new_loc(line)
                body.is_loop_head = True
                self._jump(body, line)
                self._loop_body(node.stmt, body, after, cond, cond)
                self.fs.cur = cond
                self._cond(node.cond, body, after, "do", slot(node, "cond"))
                self.fs.cur = after
            case c_ast.For():
                self.scope.push()
                if isinstance(node.init, c_ast.DeclList):
                    for d in node.init.decls:
                        self._declaration(d, file_scope=False)
                elif node.init is not None:
                    self._effect(node.init)
                head, body, nxt, after = (self._new_loc(line) for _ in range(4))
                head.is_loop_head = True
                self._jump(head, line)
                self.fs.cur = head
                if node.cond is not None:
                    self._cond(node.cond, body, after, "for", slot(node, "cond"))
                else:
                    self._jump(body, line)
                self._loop_body(node.stmt, body, after, nxt, nxt)
                self.fs.cur = nxt
                if node.next is not None:
                    self._effect(node.next)
                self._jump(head, line)
                self.fs.cur = after
                self.scope.pop()
            case c_ast.Switch():
                self._switch(node, line)
            case c_ast.Case() | c_ast.Default():
                if not self.fs.switch_cases:
                    raise unsupported("case label outside switch", node)
                target = self.fs.switch_cases[-1][id(node)]
                self._jump(target, line)
                self.fs.cur = target
                for s in node.stmts or []:
                    self._statement(s)
            case c_ast.Break():
                if not self.fs.breaks:
                    raise unsupported("break outside loop or switch", node)
                self._jump(self.fs.breaks[-1], line, "break")
            case c_ast.Continue():
                if not self.fs.continues:
                    raise unsupported("continue outside loop", node)
                self._jump(self.fs.continues[-1], line, "continue")
            case c_ast.Return():
                value = None
                if node.expr is not None:
                    e = self._rvalue(node.expr)
                    if not isinstance(self.fs.ftype.ret, VoidType):
                        value = self._convert(e, self.fs.ftype.ret, node)
                self._edge(ReturnEdge, self.fs.exit, line, value=value)
            case c_ast.Label():
                self.fs.defined_labels.add(node.name)
                target = self._label(node.name)
                target.is_loop_head = True  # a goto may close a cycle here
                self._jump(target, line)
                self.fs.cur = target
                if node.stmt is not None:
                    self._statement(node.stmt)
            case c_ast.Goto():
                self.fs.gotos.setdefault(node.name, node)
                self._jump(self._label(node.name), line, f"goto {node.name}")
            case _:
                self._effect(node)

    def _label(self, name: str) -> Location:
        if name not in self.fs.labels:
            self.fs.labels[name] = self._new_loc(0)
        return self.fs.labels[name]

    def _loop_body(self, stmt: c_ast.Node | None, body: Location, brk: Location,
                   cont: Location, back: Location) -> None:
        self.fs.cur = body
        self.fs.breaks.append(brk)
        self.fs.continues.append(cont)
        if stmt is not None:
            self._statement(stmt)
        self.fs.breaks.pop()
        self.fs.continues.pop()
        self._jump(back, 0)
        self.fs.cur = brk

    def _switch(self, node: c_ast.Switch, line: int) -> None:
        value = conv.promote(self.types, self._rvalue(node.cond))
        if not isinstance(value.type, IntType):
            raise unsupported("switch on a non-integer", node)
        promoted = value.type
        if not isinstance(value, (Var, Const)):
            tmp = self._temp(promoted)
            self._edge(AssignEdge, None, line, lhs=tmp, rhs=value)
            value = tmp
        labels: dict[int, Location] = {}
        cases: list[tuple[c_ast.Node, tuple[int, int] | None]] = []
        self._collect_cases(node.stmt, labels, cases)
        after = self._new_loc(line)
        site = SwitchSite(node, promoted, [], self._unit)
        default = after
        for case_node, case_value in cases:
            if case_value is None:
                default = labels[id(case_node)]
                continue
            match, no = labels[id(case_node)], self._new_loc(line)
            low, high = (promoted.wrap(v) for v in case_value)
            cond = self._in_range(value, low, high)
            subject = condition_text(node.cond)
            bid = self._branch(cond, match, no, "case", case_node.coord.line if case_node.coord else line,
                               case_node.coord.file if case_node.coord else "",
                               f"{subject} == {case_value[0]}" if case_value[0] == case_value[1]
                               else f"{case_value[0]} <= {subject} <= {case_value[1]}")
            if bid is not None:
                site.cases.append((bid, low, high))
            self.fs.cur = no
        self._jump(default, line)
        if not self._sandbox:
            self.instrumentation.switches.append(site)
        self.fs.switch_cases.append(labels)
        self.fs.breaks.append(after)
        self.fs.cur = None
        self._statement(node.stmt)
        self._jump(after, line)
        self.fs.breaks.pop()
        self.fs.switch_cases.pop()
        self.fs.cur = after

    def _in_range(self, value: Expr, low: int, high: int) -> Expr:
        """``low <= value && value <= high`` as one comparison: ``value - low <= high - low``
        in the unsigned type of ``value``'s width (gcc's case range; one value: ``==``)."""
        t = value.type
        assert isinstance(t, IntType)
        if low == high:
            return conv.binary(self.types, "==", value, Const(t, low))
        if low > high:  # an empty range
            return Const(self.types.int, 0)
        unsigned = next(u for u in (self.types.uint, self.types.ulong, self.types.ulonglong,
                                    self.types.uint128) if u.bits == t.bits)
        offset = conv.binary(self.types, "-", conv.convert(self.types, value, unsigned),
                             Const(unsigned, unsigned.wrap(low)))
        return conv.binary(self.types, "<=", offset, Const(unsigned, high - low))

    def _collect_cases(self, node: c_ast.Node | None, labels: dict[int, Location],
                       cases: list[tuple[c_ast.Node, tuple[int, int] | None]]) -> None:
        """The case/default labels of one switch (not of switches nested in it), with
        their values (low, high: a GNU case range, else one value twice)."""
        if node is None or isinstance(node, c_ast.Switch):
            return
        if isinstance(node, (c_ast.Case, c_ast.Default)):
            labels[id(node)] = self._new_loc(node.coord.line if node.coord else 0)
            value = None
            if isinstance(node, c_ast.Case):
                ends = (node.expr.low, node.expr.high) if isinstance(node.expr, CaseRange) \
                    else (node.expr, node.expr)
                low, high = (self._const_eval(e) for e in ends)
                if low is None or high is None:
                    raise unsupported("non-constant case label", node)
                value = (low, high)
            cases.append((node, value))
        for _, child in node.children():
            self._collect_cases(child, labels, cases)

    # ------------------------------------------------------------------ declarations

    def _declaration(self, node: c_ast.Decl, file_scope: bool) -> None:
        if node.name is None:  # struct/union/enum declaration only
            self.resolver.resolve(node.type)
            return
        t = self.resolver.resolve(node.type)
        line = node.coord.line if node.coord else 0
        if isinstance(t, FunctionType):
            if "static" in (node.storage or []):
                self._declared_static.add((self._unit, node.name))
            name = self._function_name(node.name)
            self.declared.setdefault(name, t)
            self.scope.declare(node.name, Function(name, t), file_scope=True)
            return
        storage = set(node.storage or [])
        if isinstance(t, ArrayType) and t.length is None and node.init is not None:
            t = ArrayType(t.elem, self._init_length(t, node.init))
        is_static = file_scope or "static" in storage or "extern" in storage
        if "extern" in storage and not file_scope:
            found = self.scope.lookup(node.name)
            if not isinstance(found, Variable) or not found.is_global:
                found = self.linkage.get(node.name, found)
            if isinstance(found, Variable):
                self.scope.declare(node.name, found)
                return
        if file_scope:
            found = self.scope.lookup(node.name)
            if not isinstance(found, Variable) and "static" not in storage:
                found = self.linkage.get(node.name)  # defined or declared by another unit
                if found is not None:
                    self.scope.declare(node.name, found, file_scope=True)
            if isinstance(found, Variable) and found.is_global:
                if "extern" not in storage or node.init is not None:
                    self._defined_globals.add(found.name)
                if isinstance(found.type, ArrayType) and found.type.length is None:
                    found.type = t
                if node.init is not None:
                    self._initialise(found, node.init, line, into_prelude=True)
                return
        qualified = node.name if file_scope else f"{self.fs.name}::{node.name}"
        v = Variable(self._unique(qualified), node.name, t, is_static,
                     None if file_scope else self.fs.name, line)
        if "extern" not in storage or node.init is not None:
            self._defined_globals.add(v.name)  # a definition, tentative or not
        self._declarators[id(v)] = node.type
        self.scope.declare(node.name, v)
        if "static" not in storage and (file_scope or "extern" in storage):
            self.linkage[node.name] = v
        if isinstance(t, ArrayType) and t.length is None and not is_static:
            if node.type.dim is not None:  # variable-length array: its length, for sizeof
                length = self._temp(self.types.size_t)
                self._edge(AssignEdge, None, line, lhs=length,
                           rhs=self._convert(self._rvalue(node.type.dim), self.types.size_t, node))
                self._vla_lengths[id(v)] = length
        if is_static:
            self.globals.append(v)
            saved, self.fs = self.fs, self.prelude
            self._edge(DeclEdge, None, line, var=v)
            self.fs = saved
            if node.init is not None:
                self._initialise(v, node.init, line, into_prelude=True)
            return
        self.fs.locals.append(v)
        self._edge(DeclEdge, None, line, var=v)
        if node.init is not None:
            self._initialise(v, node.init, line, into_prelude=False)

    def _init_length(self, t: ArrayType, init: c_ast.Node) -> int:
        """The length an initialiser gives an array declared without one (C11 6.7.9p22)."""
        init = _braced_string(t, init)
        if isinstance(init, c_ast.Constant) and init.type == "string":
            return string_literal(self.types, init.value).type.length or 0
        if isinstance(init, c_ast.InitList):
            walk = self._initialiser_walk()
            for _ in walk.placements(SubObject(t, Const(t, 0)), init):
                pass
            return walk.greatest + 1
        raise unsupported("array initialiser", init)

    def _initialise(self, v: Variable, init: c_ast.Node, line: int, into_prelude: bool) -> None:
        saved = self.fs
        if into_prelude:
            self.fs = self.prelude
        before = self._next_branch
        if isinstance(init, c_ast.InitList) or isinstance(v.type, (ArrayType, StructType)):
            self._edge(AssignEdge, None, line, lhs=Var(v.type, v), rhs=Const(v.type, 0))
        self._init_object(Var(v.type, v), init, line)
        if into_prelude and self._next_branch != before:
            raise unsupported("initialiser of a static variable with conditions", init)
        self.fs = saved

    def _init_object(self, target: Expr, init: c_ast.Node, line: int) -> None:
        """Assign ``init`` to ``target``; the object is already zeroed if aggregate."""
        t = target.type
        init = _braced_string(t, init)
        if isinstance(t, ArrayType) and isinstance(init, c_ast.Constant) and init.type == "string":
            data = string_literal(self.types, init.value).value
            for i, b in enumerate(data[: t.length]):
                if b:
                    assert isinstance(t.elem, IntType)  # an array a string initialises is of chars
                    self._edge(AssignEdge, None, line, lhs=Index(t.elem, target, Const(self.types.int, i)),
                               rhs=Const(t.elem, t.elem.wrap(b)))
            return
        if not isinstance(init, c_ast.InitList):
            rhs = self._rvalue(init)
            self._edge(AssignEdge, None, line, lhs=target, rhs=self._convert(rhs, t, init))
            return
        if not isinstance(t, (ArrayType, StructType)):  # a scalar in braces: int x = { 5 };
            if init.exprs:
                self._init_object(target, init.exprs[0], line)
            return
        for targets, e in self._initialiser_walk().placements(SubObject(t, target), init):
            if len(targets) == 1:
                self._init_object(targets[0], e, line)
                continue
            # GNU [low ... high] = value: the value is evaluated once
            value = self._convert(self._rvalue(e), targets[0].type, e)
            if not isinstance(value, Const):
                tmp = self._temp(targets[0].type)
                self._edge(AssignEdge, None, line, lhs=tmp, rhs=value)
                value = tmp
            for lhs in targets:
                self._edge(AssignEdge, None, line, lhs=lhs, rhs=value)

    def _initialiser_walk(self) -> InitialiserWalk:
        return InitialiserWalk(self.types, self._const_eval, self._initialises_whole)

    def _initialises_whole(self, sub: SubObject, node: c_ast.Node) -> bool:
        """Whether ``node`` is the value of the aggregate ``sub`` (a string literal of an
        array of characters, a struct of a struct) rather than of its first scalar."""
        if isinstance(sub.type, ArrayType):
            return isinstance(node, c_ast.Constant) and node.type == "string" \
                and isinstance(sub.type.elem, IntType)
        return isinstance(self._type_of(node), StructType)

    # ------------------------------------------------------------------ conditions

    def _cond(self, node: c_ast.Node, t: Location, f: Location, kind: str, put: Slot) -> None:
        """Branch to ``t`` if ``node`` is nonzero, else to ``f``; splits ``&&``, ``||``,
        ``!``, ``?:`` and ``,`` into separate assume edges."""
        if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
            self._left_operand(node, self._new_loc(self._line(node)), f if node.op == "&&" else t)
            self._cond(node.right, t, f, "and" if node.op == "&&" else "or", slot(node, "right"))
        elif isinstance(node, c_ast.UnaryOp) and node.op == "!":
            self._cond(node.expr, f, t, kind, slot(node, "expr"))
        elif isinstance(node, c_ast.TernaryOp):
            a, b = self._new_loc(0), self._new_loc(0)
            self._cond(node.cond, a, b, "cond", slot(node, "cond"))
            self.fs.cur = a
            self._cond(node.iftrue, t, f, kind, slot(node, "iftrue"))
            self.fs.cur = b
            self._cond(node.iffalse, t, f, kind, slot(node, "iffalse"))
        elif isinstance(node, c_ast.ExprList):
            for e in node.exprs[:-1]:
                self._effect(e)
            self._cond(node.exprs[-1], t, f, kind, slot(node.exprs, len(node.exprs) - 1))
        elif isinstance(node, GenericSelection):
            chosen = self._generic(node)
            assert node.selected is not None  # _generic chose it
            self._cond(chosen, t, f, kind, slot(node.associations[node.selected], "expr"))
        else:
            line = node.coord.line if node.coord else 0
            try:
                cond = conv.to_condition(self.types, self._rvalue(node))
            except conv.TypeMismatch as e:
                raise unsupported(str(e), node) from None
            bid = self._branch(cond, t, f, kind, line, node.coord.file if node.coord else "",
                               condition_text(node))
            if bid is not None and not self._sandbox:
                self.instrumentation.leaves.append(Leaf(bid, put, node))

    def _left_operand(self, node: c_ast.BinaryOp, right: Location, short: Location) -> None:
        """Branch on the left operand of ``&&``/``||``: to ``right``, which becomes
        current, where the right operand must be evaluated; to ``short`` where not."""
        t, f = (right, short) if node.op == "&&" else (short, right)
        self._cond(node.left, t, f, "and" if node.op == "&&" else "or", slot(node, "left"))
        self.fs.cur = right

    def _branch(self, cond: Expr, t: Location, f: Location, kind: str, line: int,
                file: str, text: str = "") -> int | None:
        """Two assume edges from here; a constant condition is a plain jump (no goal).
        ``text``: the condition as the source writes it, for reports."""
        value = const_int(cond) if isinstance(cond.type, IntType) else None
        if value is not None:
            self._jump(t if value else f, line)
            return None
        src = self._here(line)
        self.fs.cur = src
        if self._sandbox:
            self.fs.cur = None
            return None
        self._next_branch += 1
        bid = self._next_branch
        te = self._edge(AssumeEdge, t, line, cond=cond, positive=True, branch=bid)
        self.fs.cur = src
        fe = self._edge(AssumeEdge, f, line, cond=cond, positive=False, branch=bid)
        assert isinstance(te, AssumeEdge) and isinstance(fe, AssumeEdge)
        self.branch_points[bid] = BranchPoint(bid, self.fs.name, line, kind, te, fe, file, text)
        return bid

    # ------------------------------------------------------------------ expressions

    def _temp(self, t: CType) -> Var:
        self.fs.temps += 1
        v = Variable(self._unique(f"{self.fs.name}::__tmp{self.fs.temps}"), f"__tmp{self.fs.temps}",
                     t, False, self.fs.name, temporary=True)
        self.fs.locals.append(v)
        return Var(t, v)

    def _convert(self, e: Expr, t: CType, node: c_ast.Node) -> Expr:
        try:
            return conv.convert(self.types, e, t)
        except conv.TypeMismatch as ex:
            raise unsupported(str(ex), node) from None

    def _type_of(self, node: c_ast.Node) -> CType:
        """The type of an expression, without emitting its side effects (for sizeof)."""
        saved = self.fs
        self.fs = FunctionState(saved.name, saved.ftype, saved.entry, saved.exit, [], None,
                                switch_cases=saved.switch_cases, temps=saved.temps)
        self._sandbox += 1
        try:
            return self._expr(node).type
        finally:
            self._sandbox -= 1
            self.fs = saved

    def _const_eval(self, node: c_ast.Node) -> int | None:
        """The value of an integer constant expression, or None. ``?:``, ``&&`` and
        ``||`` are decided here: as expressions they become branches, not constants."""
        if isinstance(node, GenericSelection):
            return self._const_eval(self._generic(node))
        if isinstance(node, c_ast.TernaryOp):
            c = self._const_eval(node.cond)
            return None if c is None else self._const_eval(node.iftrue if c else node.iffalse)
        if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
            a = self._const_eval(node.left)
            if a is None or (a != 0) == (node.op == "||"):
                return None if a is None else int(a != 0)
            b = self._const_eval(node.right)
            return None if b is None else int(b != 0)
        saved = self.fs
        self.fs = FunctionState(saved.name, saved.ftype, saved.entry, saved.exit, [], None)
        self._sandbox += 1
        try:
            return const_int(self._expr(node))
        finally:
            self._sandbox -= 1
            self.fs = saved

    def _rvalue(self, node: c_ast.Node) -> Expr:
        return conv.decay(self.types, self._expr(node))

    def _effect(self, node: c_ast.Node) -> None:
        """Evaluate ``node`` for its side effects only (expression statements)."""
        if isinstance(node, c_ast.UnaryOp) and node.op in ("p++", "p--", "++", "--"):
            self._increment(node, want_value=False)
        elif isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
                and node.name.name == "__builtin_choose_expr" and node.args and len(node.args.exprs) == 3:
            self._effect(self._chosen(node))
        elif isinstance(node, c_ast.FuncCall):
            self._call(node, want_value=False)
        elif isinstance(node, c_ast.ExprList):
            for e in node.exprs:
                self._effect(e)
        elif isinstance(node, GenericSelection):
            self._effect(self._generic(node))
        elif isinstance(node, c_ast.Cast) and isinstance(self.resolver.resolve(node.to_type), VoidType):
            self._effect(node.expr)
        elif isinstance(node, c_ast.TernaryOp):
            line = node.coord.line if node.coord else 0
            a, b, after = self._new_loc(line), self._new_loc(line), self._new_loc(line)
            self._cond(node.cond, a, b, "cond", slot(node, "cond"))
            for loc, branch in ((a, node.iftrue), (b, node.iffalse)):
                self.fs.cur = loc
                self._effect(branch)
                self._jump(after, line)
            self.fs.cur = after
        elif isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
            line = self._line(node)
            after = self._new_loc(line)
            self._left_operand(node, self._new_loc(line), after)
            self._effect(node.right)
            self._jump(after, line)
            self.fs.cur = after
        else:
            self._expr(node)

    def _expr(self, node: c_ast.Node) -> Expr:
        """The value of ``node`` (not decayed); side effects are emitted as edges."""
        handler = self._expr_handlers.get(type(node))
        if handler is None:
            raise unsupported(type(node).__name__, node)
        return handler(node)

    def _make_expr_handlers(self) -> dict[type, Callable[[Any], Expr]]:
        return {
            c_ast.Constant: self._constant, c_ast.ID: self._identifier,
            c_ast.BinaryOp: self._binary_op, c_ast.UnaryOp: self._unary,
            c_ast.Assignment: self._assignment, c_ast.TernaryOp: self._ternary_value,
            c_ast.FuncCall: self._call_value, c_ast.ArrayRef: self._subscript,
            c_ast.StructRef: self._member, c_ast.Cast: self._cast,
            c_ast.ExprList: self._comma, c_ast.CompoundLiteral: self._compound_literal,
            c_ast.Compound: self._statement_expression,
            StatementExpression: self._statement_expression,
            GenericSelection: lambda n: self._expr(self._generic(n)),
        }

    def _line(self, node: c_ast.Node) -> int:
        return node.coord.line if node.coord else 0

    def _identifier(self, node: c_ast.ID) -> Expr:
        found = self.scope.lookup(node.name)
        if isinstance(found, Variable):
            return Var(found.type, found)
        if isinstance(found, EnumConst):
            return Const(found.type, found.value)
        if isinstance(found, Function):
            return FuncRef(found.type, found.name)
        if node.name in ("__func__", "__FUNCTION__", "__PRETTY_FUNCTION__"):
            return string_literal(self.types, f'"{self.fs.name}"')
        raise UserError(f"undeclared identifier {node.name}", *self._where(node))

    def _binary_op(self, node: c_ast.BinaryOp) -> Expr:
        if node.op in ("&&", "||"):
            return self._logical_value(node)
        a = self._rvalue(node.left)
        b = self._rvalue(node.right)
        try:
            return conv.binary(self.types, node.op, a, b)
        except conv.TypeMismatch as e:
            raise unsupported(str(e), node) from None

    def _assignment(self, node: c_ast.Assignment) -> Expr:
        lhs = self._expr(node.lvalue)
        rhs = self._rvalue(node.rvalue)
        if node.op != "=":
            try:
                rhs = conv.binary(self.types, node.op[:-1], lhs, rhs)
            except conv.TypeMismatch as e:
                raise unsupported(str(e), node) from None
        self._edge(AssignEdge, None, self._line(node), lhs=lhs, rhs=self._convert(rhs, lhs.type, node))
        return lhs

    def _call_value(self, node: c_ast.FuncCall) -> Expr:
        builtin = self._gnu_builtin(node)
        if builtin is not None:
            return builtin
        result = self._call(node, want_value=True)
        assert result is not None
        return result

    def _gnu_builtin(self, node: c_ast.FuncCall) -> Expr | None:
        """The value of a call of a GNU built-in that is no function: ``__builtin_expect``
        (likely/unlikely: its first argument, as a long), ``__builtin_choose_expr`` (the
        argument its constant selects, the other not evaluated) and
        ``__builtin_types_compatible_p``; None for other calls."""
        name = node.name.name if isinstance(node.name, c_ast.ID) else None
        args = node.args.exprs if node.args else []
        if name == "__builtin_expect" and len(args) == 2:
            value = self._rvalue(args[0])
            self._effect(args[1])
            return self._convert(value, self.types.long, node)
        if name == "__builtin_choose_expr" and len(args) == 3:
            return self._expr(self._chosen(node))
        if name == "__builtin_types_compatible_p" and len(args) == 2:
            a, b = (self.resolver.resolve(t) for t in args)
            levels = [declarator_levels(t, self._typedef_levels) for t in args]
            if None in levels:
                raise unsupported("__builtin_types_compatible_p of a typeof", node)
            same = compatible(a, b) and levels[0][1:] == levels[1][1:]  # type: ignore[index]
            return Const(self.types.int, int(same))
        return None

    def _chosen(self, node: c_ast.FuncCall) -> c_ast.Node:
        """The argument ``__builtin_choose_expr(c, a, b)`` selects, by its constant ``c``."""
        condition, a, b = node.args.exprs
        value = self._const_eval(condition)
        if value is None:
            raise unsupported("__builtin_choose_expr with a condition not constant", node)
        return a if value else b

    def _subscript(self, node: c_ast.ArrayRef) -> Expr:
        t = self.types
        base = self._expr(node.name)
        index = self._rvalue(node.subscript)
        if isinstance(index.type, (PointerType, ArrayType)) and not isinstance(base.type, (PointerType, ArrayType)):
            base, index = index, base
        if isinstance(base.type, ArrayType):
            return Index(base.type.elem, base, conv.promote(t, index))
        ptr = conv.decay(t, base)
        if not isinstance(ptr.type, PointerType):
            raise unsupported("subscript of a non-pointer", node)
        return Deref(ptr.type.target, conv.binary(t, "+", ptr, index))

    def _member(self, node: c_ast.StructRef) -> Expr:
        base = self._expr(node.name)
        if node.type == "->":
            base = conv.decay(self.types, base)
            if not isinstance(base.type, PointerType):
                raise unsupported("-> on a non-pointer", node)
            base = Deref(base.type.target, base)
        st = base.type
        if not isinstance(st, StructType):
            raise unsupported(f"member access on {st}", node)
        try:
            f = st.field(node.field.name)
        except KeyError:
            raise UserError(f"no member {node.field.name} in {st}", *self._where(node)) from None
        return Member(f.type, base, f.name)

    def _cast(self, node: c_ast.Cast) -> Expr:
        to = self.resolver.resolve(node.to_type)
        e = self._rvalue(node.expr)
        if isinstance(to, VoidType):
            return Const(self.types.int, 0)
        return self._convert(e, to, node)

    def _comma(self, node: c_ast.ExprList) -> Expr:
        for e in node.exprs[:-1]:
            self._effect(e)
        return self._expr(node.exprs[-1])

    def _compound_literal(self, node: c_ast.CompoundLiteral) -> Expr:
        ct = self.resolver.resolve(node.type)
        if isinstance(ct, ArrayType) and ct.length is None:
            ct = ArrayType(ct.elem, self._init_length(ct, node.init))
        tmp = self._temp(ct)
        line = self._line(node)
        self._edge(AssignEdge, None, line, lhs=tmp, rhs=Const(ct, 0))
        self._init_object(tmp, node.init, line)
        return tmp

    def _statement_expression(self, node: c_ast.Compound) -> Expr:
        """GNU ``({ s1; ...; e; })``: the statements, then the value of the last one."""
        items = node.block_items or []
        self.scope.push()
        for item in items[:-1]:
            self._statement(item)
        value: Expr = Const(self.types.int, 0)
        if items and isinstance(items[-1], StatementExpression):  # ({ ...; ({ ...; v; }); })
            value = self._rvalue(items[-1])
        elif items and not isinstance(items[-1], (c_ast.Decl, c_ast.Compound, c_ast.If,
                                                c_ast.While, c_ast.For, c_ast.DoWhile,
                                                c_ast.Return, c_ast.Goto, c_ast.Label,
                                                c_ast.Switch, c_ast.EmptyStatement)):
            value = self._rvalue(items[-1])
        elif items:
            self._statement(items[-1])
        self.scope.pop()
        return value

    def _generic(self, node: GenericSelection) -> c_ast.Node:
        """The expression of the association ``node`` selects (C11 6.5.1.1, ``generic``),
        remembered in ``node``: the native build compiles that one alone."""
        controlling = conv.decayed_type(self.types, self._type_of(node.expr))
        try:
            chosen = self._selection.select(controlling, node.expr,
                                            [(a.type, a.expr) for a in node.associations])
        except NoSelection as e:
            raise unsupported(str(e), node) if e.unsupported else UserError(str(e), *self._where(node))
        node.selected = chosen
        return node.associations[chosen].expr

    def _variable_levels(self, name: str) -> Levels | None:
        found = self.scope.lookup(name)
        declarator = self._declarators.get(id(found)) if isinstance(found, Variable) else None
        return declarator_levels(declarator, self._typedef_levels)

    def _typedef_levels(self, name: str) -> Levels | None:
        found = self.scope.lookup(name)
        if not isinstance(found, Typedef):
            return None
        return declarator_levels(self._declarators.get(id(found)), self._typedef_levels)

    def _where(self, node: c_ast.Node) -> tuple[str | None, int | None]:
        return (node.coord.file, node.coord.line) if node.coord else (self.path, None)

    def _constant(self, node: c_ast.Constant) -> Expr:
        key = (node.type, node.value, self.standard)
        c = self._constants.get(key)
        if c is None:
            c = self._constants[key] = self._parse_constant(node)
        if isinstance(c, Const) and isinstance(c.type, FloatType) and self._excess_precision_constants() \
                and not exactly_its_value(node.value, c):
            self.widened_constants.append(self._where(node))
        return c

    def _excess_precision_constants(self) -> bool:
        """Whether gcc evaluates this unit's floating constants in long double (C11
        5.2.4.2.2p9, FLT_EVAL_METHOD 2): on -m32's x87 under a strict ISO ``-std=``
        (-fexcess-precision=standard); the GNU dialects round them to their types."""
        return self.types.model is DataModel.ILP32 and not self.standard.startswith("-std=gnu")

    def _parse_constant(self, node: c_ast.Constant) -> Expr:
        t = self.types
        if node.type == "string":
            try:
                return string_literal(t, node.value)
            except UnicodeString:
                raise unsupported("a wide or Unicode string literal", node) from None
        if node.type == "char" or node.value.startswith(("'", "L'", "u'", "U'")):
            return char_literal(t, node.value)
        c = int_literal(t, node.value, self.standard in C90)
        if c is not None:
            return c
        try:
            return float_literal(t, node.value)
        except ValueError:
            raise unsupported(f"constant {node.value}", node) from None

    def _unary(self, node: c_ast.UnaryOp) -> Expr:
        t = self.types
        op = node.op
        if op in ("sizeof", "_Alignof", "__alignof__"):
            target = self.resolver.resolve(node.expr) if isinstance(node.expr, c_ast.Typename) \
                else self._type_of(node.expr)
            if op == "sizeof" and isinstance(target, ArrayType) and target.length is None:
                return self._vla_size(node)
            if op == "__alignof__" and not isinstance(node.expr, c_ast.StructRef):
                return Const(t.size_t, self._preferred_alignment(target))
            size = t.sizeof(target) if op == "sizeof" else t.alignof(target)
            return Const(t.size_t, size)
        if op in ("p++", "p--", "++", "--"):
            result = self._increment(node, want_value=True)
            assert result is not None
            return result
        if op == "&":
            e = self._expr(node.expr)
            if isinstance(e, Deref):
                return e.pointer
            if isinstance(e, FuncRef):
                return FuncRef(t.pointer(e.type), e.name)
            if isinstance(e, Var):
                e.var.address_taken = True
            return AddrOf(t.pointer(e.type), e)
        if op == "*":
            p = self._rvalue(node.expr)
            if isinstance(p, FuncRef) or (isinstance(p.type, PointerType) and isinstance(p.type.target, FunctionType)):
                return p  # *fp designates the function again
            if not isinstance(p.type, PointerType):
                raise unsupported(f"dereference of {p.type}", node)
            return Deref(p.type.target, p)
        try:
            return conv.unary(t, op, self._rvalue(node.expr))
        except conv.TypeMismatch as e:
            raise unsupported(str(e), node) from None

    def _vla_size(self, node: c_ast.UnaryOp) -> Expr:
        """``sizeof a`` of a variable-length array ``a``: its length, kept when it was
        declared, times its element's size (gcc computes it there too)."""
        found = self.scope.lookup(node.expr.name) if isinstance(node.expr, c_ast.ID) else None
        length = self._vla_lengths.get(id(found)) if isinstance(found, Variable) else None
        elem = found.type.elem if isinstance(found, Variable) and isinstance(found.type, ArrayType) else None
        if length is None or elem is None or isinstance(elem, ArrayType) and elem.length is None:
            raise unsupported("sizeof of a variable-length array but a one-dimensional variable", node)
        return conv.binary(self.types, "*", length, Const(self.types.size_t, self.types.sizeof(elem)))

    def _preferred_alignment(self, t: CType) -> int:
        """gcc's ``__alignof__`` of an object not in a struct: i386 aligns 8-byte scalars
        (``double``, ``long long``) to 8 there, though to 4 in a struct (``_Alignof``)."""
        if isinstance(t, ArrayType):
            return self._preferred_alignment(t.elem)
        if isinstance(t, (IntType, FloatType)) and t.bits == 64:
            return 8
        return self.types.alignof(t)

    def _increment(self, node: c_ast.UnaryOp, want_value: bool) -> Expr | None:
        line = node.coord.line if node.coord else 0
        lhs = self._expr(node.expr)
        one = Const(self.types.int, 1)
        op = "+" if "++" in node.op else "-"
        old: Expr = lhs
        if want_value and node.op.startswith("p"):
            old = self._temp(lhs.type)
            self._edge(AssignEdge, None, line, lhs=old, rhs=lhs)
        try:
            new = self._convert(conv.binary(self.types, op, old, one), lhs.type, node)
        except conv.TypeMismatch as e:
            raise unsupported(str(e), node) from None
        self._edge(AssignEdge, None, line, lhs=lhs, rhs=new)
        return old if want_value else None

    def _logical_value(self, node: c_ast.BinaryOp) -> Expr:
        line = self._line(node)
        """``a && b`` as a value: control flow into a temporary, as CIL does."""
        tmp = self._temp(self.types.int)
        yes, no, after = self._new_loc(line), self._new_loc(line), self._new_loc(line)
        self._cond(node, yes, no, "and" if node.op == "&&" else "or", lambda n: None)
        for loc, v in ((yes, 1), (no, 0)):
            self.fs.cur = loc
            self._edge(AssignEdge, None, line, lhs=tmp, rhs=Const(self.types.int, v))
            self._jump(after, line)
        self.fs.cur = after
        return tmp

    def _ternary_value(self, node: c_ast.TernaryOp) -> Expr:
        line = self._line(node)
        ta, tb = (conv.decayed_type(self.types, self._type_of(n))
                  for n in (node.iftrue, node.iffalse))
        if ta.is_arithmetic() and tb.is_arithmetic():
            rt: CType = self.types.usual_arithmetic(ta, tb)
        elif isinstance(ta, PointerType):
            rt = ta
        elif isinstance(tb, PointerType):
            rt = tb
        else:
            rt = ta
        a, b, after = self._new_loc(line), self._new_loc(line), self._new_loc(line)
        self._cond(node.cond, a, b, "cond", slot(node, "cond"))
        tmp = None if isinstance(rt, VoidType) else self._temp(rt)
        for loc, branch in ((a, node.iftrue), (b, node.iffalse)):
            self.fs.cur = loc
            v = self._rvalue(branch)
            if tmp is not None:
                self._edge(AssignEdge, None, line, lhs=tmp, rhs=self._convert(v, rt, node))
            self._jump(after, line)
        self.fs.cur = after
        return tmp if tmp is not None else Const(self.types.int, 0)

    # ------------------------------------------------------------------ calls

    def _implicit(self, name: str, node: c_ast.Node) -> FunctionType:
        """The type of a function called without a declaration: C's implicit ``int``,
        except for gcc's float constant builtins (``cfa.libc_model``) and its library
        builtins, which gcc declares with their prototypes (``frontend.implicit``)."""
        constant = libc_model.function(name).constant
        if constant is not None and constant.float_bits is not None:
            return FunctionType(self.types.double if constant.float_bits == 64 else self.types.float, (), True)
        try:
            builtin = implicit.builtin_type(name, self.types, self.standard)
        except ValueError as e:
            raise unsupported(f"{name}() called without a declaration: gcc gives it the type "
                              f"{e}; declare it (include its header)", node) from None
        return builtin or FunctionType(self.types.int, (), True)

    def _call(self, node: c_ast.FuncCall, want_value: bool) -> Expr | None:
        t = self.types
        line = node.coord.line if node.coord else 0
        args = node.args.exprs if node.args else []
        name = node.name.name if isinstance(node.name, c_ast.ID) else None
        callee: str | Expr
        if name is not None and not isinstance(self.scope.lookup(name), Variable):
            found = self.scope.lookup(name)
            ftype = found.type if isinstance(found, Function) else self._implicit(name, node)
            callee = found.name if isinstance(found, Function) else self._function_name(name)
            if found is None:
                self.declared.setdefault(callee, ftype)
        else:
            fexpr = self._rvalue(node.name)
            ftarget = fexpr.type.target if isinstance(fexpr.type, PointerType) else fexpr.type
            if not isinstance(ftarget, FunctionType):
                raise unsupported("call of a non-function", node)
            ftype = ftarget
            callee = fexpr.name if isinstance(fexpr, FuncRef) else fexpr
        assert isinstance(ftype, FunctionType)
        if isinstance(callee, str):
            if callee in ERROR_FUNCTIONS:
                for a in args:
                    self._effect(a)
                self._next_error += 1
                e = self._edge(ErrorEdge, self._sink(line), line, call_id=self._next_error,
                               file=node.coord.file if node.coord else "")
                if not self._sandbox:
                    assert isinstance(e, ErrorEdge)
                    self.error_calls[self._next_error] = e
                    self.instrumentation.error_calls.append((self._next_error, node, self._unit))
                return Const(t.int, 0)
            if callee in libc_model.TERMINATING:
                codes = [self._rvalue(a) for a in args]
                self._edge(TerminateEdge, self._sink(line), line, kind=libc_model.TERMINATING[callee],
                           code=codes[0] if codes and callee != "__assert_fail" else None)
                return Const(t.int, 0)
            if callee == "__VERIFIER_assume":
                cond = conv.to_condition(t, self._rvalue(args[0]))
                if const_int(cond) == 0:
                    self._edge(TerminateEdge, self._sink(line), line, kind="assume")
                elif const_int(cond) is None:
                    self._edge(AssumeEdge, None, line, cond=cond, positive=True, branch=None)
                return Const(t.int, 0)
            if callee.startswith(NONDET_PREFIX) and callee not in self.functions:
                kind = callee[len(NONDET_PREFIX):]
                vt = ftype.ret if not isinstance(ftype.ret, VoidType) else t.int
                lhs = self._temp(vt) if want_value else None
                self._edge(NondetEdge, None, line, lhs=lhs, kind=kind, value_type=vt)
                return lhs
        values: list[Expr] = []
        for i, a in enumerate(args):
            v = self._rvalue(a)
            param = ftype.params[i] if i < len(ftype.params) else conv.argument_type(t, v.type)
            values.append(self._convert(v, param, a))
        ret = ftype.ret
        lhs = self._temp(ret) if want_value and not isinstance(ret, VoidType) else None
        self._edge(CallEdge, None, line, lhs=lhs, callee=callee, args=tuple(values), ftype=ftype)
        if want_value and lhs is None:
            return Const(t.int, 0)
        return lhs


def condition_text(node: c_ast.Node) -> str:
    """A condition as C, from the AST (macros expanded, the source's own parentheses
    dropped), truncated at ``CONDITION_CHARS``: what a report shows beside a goal's outcome."""
    try:
        text = " ".join(c_generator.CGenerator().visit(node).split())
    except (AttributeError, TypeError, RecursionError):  # a node of the GNU extensions
        return ""
    return text if len(text) <= CONDITION_CHARS else text[:CONDITION_CHARS - 1] + "…"


def _overridden_weak(units: list[tuple[str, c_ast.FileAST]],
                     weak: Mapping[str, set[str]]) -> set[tuple[str, str]]:
    """The weak function definitions, by (unit, name), that a strong definition of
    another unit overrides."""
    defined: dict[str, list[str]] = {}
    for path, ast in units:
        for ext in ast.ext:
            if isinstance(ext, c_ast.FuncDef) and "static" not in (ext.decl.storage or []):
                defined.setdefault(ext.decl.name, []).append(path)
    return {(path, name) for name, paths in defined.items() if len(paths) > 1
            and any(name not in weak.get(p, ()) for p in paths)
            for path in paths if name in weak.get(path, ())}


def _internal_function_names(units: list[tuple[str, c_ast.FileAST]]) -> dict[tuple[str, str], str]:
    """CFA names of the ``static`` functions whose names another unit also uses, by
    (unit, name): ``name@file`` (with the file's index where two units share a name),
    so that one unit's private function is not another's."""
    used: dict[str, set[int]] = {}
    private: list[tuple[int, str]] = []
    for i, (_, ast) in enumerate(units):
        for ext in ast.ext:
            decl = ext.decl if isinstance(ext, c_ast.FuncDef) else ext
            if not isinstance(decl, c_ast.Decl) or not isinstance(decl.type, c_ast.FuncDecl):
                continue
            used.setdefault(decl.name, set()).add(i)
            if "static" in (decl.storage or []):
                private.append((i, decl.name))
    stems = [os.path.basename(path) for path, _ in units]
    names: dict[tuple[str, str], str] = {}
    for i, name in dict.fromkeys(private):
        if len(used[name]) > 1:
            stem = stems[i] if stems.count(stems[i]) == 1 else f"{stems[i]}#{i + 1}"
            names[(units[i][0], name)] = f"{name}@{stem}"
    return names


def _braced_string(t: CType, init: c_ast.Node) -> c_ast.Node:
    """``{"abc"}`` for an array of characters is its string literal (C11 6.7.9p14)."""
    if isinstance(t, ArrayType) and isinstance(t.elem, IntType) and isinstance(init, c_ast.InitList) \
            and len(init.exprs) == 1 and isinstance(init.exprs[0], c_ast.Constant) \
            and init.exprs[0].type == "string":
        return init.exprs[0]
    return init
