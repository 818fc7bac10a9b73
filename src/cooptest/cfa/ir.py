"""The control-flow automaton (CFA): the one IR every analysis of cooptest reads.

A program is a set of function CFAs. Locations are program counters; edges carry one
operation each (assume, assignment, declaration, call, return, nondet input, error call,
termination), as in CPAchecker. Expressions are side-effect free and fully typed: the
front end makes every implicit C conversion an explicit ``Cast``, so that the operands of
an arithmetic ``Binary`` already have the operation's type and an encoder never has to
know the promotion rules.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import AbstractSet, Iterator, Sequence

from cooptest.cfa.ctype import (ArrayType, CType, DataModel, Field, FunctionType, IntType, PointerType,
                               StructType, Types)

# ---------------------------------------------------------------------------- variables


@dataclass(eq=False)
class Variable:
    """A program variable. ``name`` is unique in the program (locals are qualified
    ``function::name``, shadowed ones get a suffix), ``source_name`` is what the C source
    says. Globals and static locals are zero-initialised; other locals start undefined.
    ``temporary``: made by the front end to hold a call's result or an operand, never
    named by the program (no invariant is worth stating about it)."""

    name: str
    source_name: str
    type: CType
    is_global: bool
    function: str | None = None
    line: int = 0
    address_taken: bool = False
    temporary: bool = False

    def __repr__(self) -> str:
        return self.name

    def __hash__(self) -> int:
        return id(self)


def in_memory(v: Variable) -> bool:
    """Whether ``v`` lives in memory (its address is taken, or it is an aggregate)
    rather than in a register: only then can a write through a pointer change it."""
    return v.address_taken or not v.type.is_scalar()


def in_register(v: Variable) -> bool:
    """Whether ``v`` is an integer or pointer scalar in a register: only an assignment
    naming it changes it (the places the value analysis and the Horn clauses follow)."""
    return isinstance(v.type, IntType | PointerType) and not in_memory(v)


# ---------------------------------------------------------------------------- expressions


@dataclass(frozen=True, eq=False)
class Expr:
    """A typed, side-effect-free C expression."""

    type: CType

    def children(self) -> tuple[Expr, ...]:
        return ()

    def walk(self) -> Iterator[Expr]:
        yield self
        for c in self.children():
            yield from c.walk()


@dataclass(frozen=True, eq=False)
class Const(Expr):
    """An integer or floating constant, already of its type (ints wrapped)."""

    value: int | float

    def __repr__(self) -> str:
        return repr(self.value)


@dataclass(frozen=True, eq=False)
class StringLit(Expr):
    """A string literal: an array of char (``type`` is ``char[n+1]``), bytes with the NUL."""

    type: ArrayType
    value: bytes

    def __repr__(self) -> str:
        return repr(self.value)


@dataclass(frozen=True, eq=False)
class Var(Expr):
    var: Variable

    def __repr__(self) -> str:
        return self.var.name


@dataclass(frozen=True, eq=False)
class FuncRef(Expr):
    """A function designator (decays to a function pointer)."""

    name: str

    def __repr__(self) -> str:
        return f"&{self.name}"


@dataclass(frozen=True, eq=False)
class Unary(Expr):
    """``-x`` and ``~x`` (operand already of the result type); ``!x`` (result int)."""

    op: str
    operand: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.operand,)

    def __repr__(self) -> str:
        return f"{self.op}({self.operand!r})"


ARITH_OPS = ("+", "-", "*", "/", "%", "&", "|", "^")
SHIFT_OPS = ("<<", ">>")
COMPARE_OPS = ("==", "!=", "<", "<=", ">", ">=")


@dataclass(frozen=True, eq=False)
class Binary(Expr):
    """A binary operation.

    - arithmetic ``ARITH_OPS``: both operands have the result type;
    - shifts: the left operand has the result type, the right is promoted separately;
    - comparisons: both operands have one common type, the result is ``int``;
    - pointer arithmetic: ``ptr + int``, ``ptr - int`` (scaled by the pointee size, result the
      pointer type) and ``ptr - ptr`` (result ptrdiff_t, in elements).
    """

    op: str
    left: Expr
    right: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)

    def __repr__(self) -> str:
        return f"({self.left!r} {self.op} {self.right!r})"


@dataclass(frozen=True, eq=False)
class Cast(Expr):
    """Conversion of ``operand`` to ``type`` (C11 6.3), explicit or implicit."""

    operand: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.operand,)

    def __repr__(self) -> str:
        return f"(({self.type}) {self.operand!r})"


@dataclass(frozen=True, eq=False)
class Deref(Expr):
    """``*pointer``; an lvalue."""

    pointer: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.pointer,)

    def __repr__(self) -> str:
        return f"*{self.pointer!r}"


@dataclass(frozen=True, eq=False)
class AddrOf(Expr):
    """``&lvalue`` (also the decay of an array to a pointer to its first element)."""

    operand: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.operand,)

    def __repr__(self) -> str:
        return f"&{self.operand!r}"


@dataclass(frozen=True, eq=False)
class Member(Expr):
    """``base.field`` on a struct/union lvalue (``p->f`` is ``Member(Deref(p), f)``)."""

    base: Expr
    field: str

    @property
    def struct(self) -> StructType:
        """The struct or union type of ``base``."""
        assert isinstance(self.base.type, StructType), self
        return self.base.type

    @property
    def member(self) -> Field:
        """The field of ``struct`` this member is."""
        return self.struct.field(self.field)

    def children(self) -> tuple[Expr, ...]:
        return (self.base,)

    def __repr__(self) -> str:
        return f"{self.base!r}.{self.field}"


@dataclass(frozen=True, eq=False)
class Index(Expr):
    """``base[index]`` where ``base`` is an array-typed lvalue (``p[i]`` on a pointer is
    ``Deref(p + i)``); ``index`` is promoted to an integer type."""

    base: Expr
    index: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.base, self.index)

    def __repr__(self) -> str:
        return f"{self.base!r}[{self.index!r}]"


@dataclass(frozen=True, eq=False)
class BitView(Expr):
    """The ``type``-sized bytes at byte ``offset`` of ``operand``'s object
    representation, read as a ``type``: what a union member reads after a store through
    another (``u.value = x; hi = u.parts.msw`` reads the high word of the double ``x``).
    Made by weakest preconditions (``analyses.wp``), never by the front end."""

    operand: Expr
    offset: int

    def children(self) -> tuple[Expr, ...]:
        return (self.operand,)

    def __repr__(self) -> str:
        return f"bits<{self.type}>({self.operand!r} @ {self.offset})"


def selectors(lvalue: Expr) -> tuple[Expr, list[Member | Index]]:
    """The lvalue's root (a variable, a dereference, a string) and the field and index
    selections from it outwards: ``s.a[2]`` is ``s`` with ``.a`` then ``[2]``."""
    chosen: list[Member | Index] = []
    while isinstance(lvalue, (Member, Index)):
        chosen.insert(0, lvalue)
        lvalue = lvalue.base
    return lvalue, chosen


def variables_of(e: Expr) -> set[Variable]:
    return {x.var for x in e.walk() if isinstance(x, Var)}


# ---------------------------------------------------------------------------- locations, edges


@dataclass(eq=False)
class Location:
    """A program counter of one function's CFA."""

    id: int
    function: str
    line: int = 0
    leaving: list[Edge] = field(default_factory=list)
    entering: list[Edge] = field(default_factory=list)
    is_loop_head: bool = False

    def __repr__(self) -> str:
        return f"L{self.id}"

    def __hash__(self) -> int:
        return self.id


@dataclass(eq=False)
class Edge:
    src: Location
    dst: Location
    line: int

    def __hash__(self) -> int:
        return id(self)


@dataclass(eq=False)
class BlankEdge(Edge):
    """No operation (gotos, joins, ``break``)."""

    label: str = ""

    def __repr__(self) -> str:
        return f"skip {self.label}".strip()


@dataclass(eq=False)
class AssumeEdge(Edge):
    """Control passes iff ``cond`` is nonzero (``positive``) or zero (not ``positive``).

    ``branch`` is the id of the :class:`BranchPoint` this edge belongs to; it is None for
    ``__VERIFIER_assume`` (one outgoing edge, not a decision)."""

    cond: Expr = None  # type: ignore[assignment]
    positive: bool = True
    branch: int | None = None

    def __repr__(self) -> str:
        return f"[{'' if self.positive else '!'}({self.cond!r})]"


@dataclass(eq=False)
class AssignEdge(Edge):
    """``lhs = rhs``; ``rhs`` already converted to the type of ``lhs``."""

    lhs: Expr = None  # type: ignore[assignment]
    rhs: Expr = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{self.lhs!r} = {self.rhs!r}"


@dataclass(eq=False)
class DeclEdge(Edge):
    """``var`` comes into existence: zero for globals and statics, undefined otherwise
    (an initialiser follows as AssignEdges)."""

    var: Variable = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"decl {self.var.name}: {self.var.type}"


@dataclass(eq=False)
class NondetEdge(Edge):
    """``lhs = __VERIFIER_nondet_<kind>()``: the next test input. ``lhs`` may be None
    when the value is discarded; the input is consumed all the same."""

    lhs: Expr | None = None
    kind: str = "int"
    value_type: CType = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{self.lhs!r} = nondet_{self.kind}()"


@dataclass(eq=False)
class CallEdge(Edge):
    """``lhs = callee(args)``: control goes to the callee's entry and comes back to
    ``dst``. ``callee`` is a function name, or an expression of pointer-to-function type.
    Calls to functions without a body (library functions) are CallEdges too;
    ``Program.functions`` tells which is which."""

    lhs: Expr | None = None
    callee: str | Expr = ""
    args: tuple[Expr, ...] = ()
    ftype: FunctionType | None = None

    def __repr__(self) -> str:
        lhs = f"{self.lhs!r} = " if self.lhs is not None else ""
        return f"{lhs}{self.callee!r}({', '.join(map(repr, self.args))})"


@dataclass(eq=False)
class ReturnEdge(Edge):
    """``return value`` to the function's exit; ``value`` converted to the return type."""

    value: Expr | None = None

    def __repr__(self) -> str:
        return f"return {self.value!r}"


ERROR_FUNCTIONS = ("reach_error", "__VERIFIER_error")
"""The functions whose calls are error-call goals (``ErrorEdge``)."""


@dataclass(eq=False)
class ErrorEdge(Edge):
    """A call of ``reach_error()`` / ``__VERIFIER_error()``: an error-call goal.
    ``dst`` is a sink location: the run stops here."""

    call_id: int = 0
    file: str = ""  # the source file of the call (a header's, if it is in one)

    def __repr__(self) -> str:
        return f"reach_error() #{self.call_id}"


@dataclass(eq=False)
class TerminateEdge(Edge):
    """``abort()``, ``exit(code)`` and friends; ``dst`` is a sink."""

    kind: str = "abort"
    code: Expr | None = None

    def __repr__(self) -> str:
        return f"{self.kind}({'' if self.code is None else repr(self.code)})"


# ---------------------------------------------------------------------------- CFA, program


@dataclass(eq=False)
class FunctionCFA:
    """The CFA of one function. ``exit`` is reached by every ``return``."""

    name: str
    type: FunctionType
    params: list[Variable]
    locals: list[Variable]
    entry: Location
    exit: Location
    locations: list[Location]
    line: int = 0
    file: str = ""  # the source file of the definition (a header's, if it is in one)

    def edges(self) -> Iterator[Edge]:
        for loc in self.locations:
            yield from loc.leaving

    def reachable(self) -> set[Location]:
        """The locations some path from the entry reaches: not the code the front end
        leaves after a ``return``, a ``reach_error()`` or an ``abort()``."""
        seen, todo = {self.entry}, [self.entry]
        while todo:
            for edge in todo.pop().leaving:
                if edge.dst not in seen:
                    seen.add(edge.dst)
                    todo.append(edge.dst)
        return seen

    def bind(self, args: Sequence[Expr]) -> list[tuple[Variable, Expr | None]]:
        """The value each parameter receives from a call with ``args``; None: unknown.

        A call through the callee's prototype passes arguments of the parameters' types
        (the front end converted them). A call without one (``int f();``) passes them
        merely promoted, and the callee reads its registers or stack slots as its own
        parameter types: an argument of the same width and class (integer or pointer)
        is read as the same bits, i.e. converted; any other mismatch (a ``long`` for an
        ``int``, an ``int`` for a ``double``) leaves that parameter unknown, and the
        following ones too, whose arguments no longer sit where the callee reads them
        (i386 stack slots, x86-64 register classes). A missing argument is unknown."""
        out: list[tuple[Variable, Expr | None]] = []
        aligned = True
        for k, param in enumerate(self.params):
            arg = args[k] if k < len(args) and aligned else None
            if arg is not None and arg.type != param.type:
                if _same_bits(arg.type, param.type):
                    arg = Cast(param.type, arg)
                else:
                    arg, aligned = None, False
            out.append((param, arg))
        return out


def _same_bits(a: CType, b: CType) -> bool:
    """Integers (but ``_Bool``, whose other values are invalid) and pointers of one width."""
    return all(isinstance(t, PointerType) or isinstance(t, IntType) and not t.is_bool
               for t in (a, b)) and a.bits == b.bits  # type: ignore[attr-defined]


@dataclass(frozen=True)
class BranchPoint:
    """A decision of the source: a location with a true and a false assume edge.

    ``kind`` says where it comes from: if, while, for, do, and (``&&``), or (``||``),
    cond (``?:``), case (one comparison of a switch), not (a bare ``!``)."""

    id: int
    function: str
    line: int
    kind: str
    true_edge: AssumeEdge
    false_edge: AssumeEdge
    file: str = ""  # the source file of the condition (a header's, if it is in one)
    text: str = ""  # the condition as C (``x > 5``, ``c == 3`` for a case): what a report names


@dataclass(frozen=True)
class Goal:
    """A test goal: one outcome of a branch point, or one call of reach_error.

    ``id`` is stable for a given program text: ``B<branch>T``/``B<branch>F``, ``E<call>``."""

    id: str
    kind: str  # "branch" | "error-call"
    line: int
    edge: Edge
    function: str
    file: str = ""
    condition: str = ""  # a branch goal's condition as C (its outcome is the id's T/F)

    def __hash__(self) -> int:
        return hash(self.id)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Goal) and other.id == self.id

    def __repr__(self) -> str:
        return self.id


def branch_goal_id(branch: int, outcome: bool) -> str:
    return f"B{branch}{'T' if outcome else 'F'}"


def error_goal_id(call_id: int) -> str:
    return f"E{call_id}"


@dataclass
class ProofBlockers:
    """Why proofs about some goals cannot be trusted: the program does something its CFA
    does not model (see ``cfa/proof_blockers.py``). ``everywhere`` blocks every goal (e.g. a
    callback from the C library may change any global at any time); ``functions`` the
    goals of those functions (e.g. destructors, which run after main); ``behind`` the
    goals some path reaches from a *site*, an edge where gcc's build may compute
    otherwise than the CFA (x87 precision, folds of signed arithmetic), each with the
    reason of a site before it and every site before it (by ``site_key``)."""

    everywhere: str | None = None
    functions: dict[str, str] = field(default_factory=dict)
    behind: dict[str, tuple[str, frozenset[str]]] = field(default_factory=dict)
    sites: dict[str, Edge] = field(default_factory=dict)
    # the sites where gcc folds signed arithmetic as if it could not overflow: a proof
    # that no run of the CFA overflows there lifts them (``proof_blockers.overflow_folded``)
    overflow_sites: dict[str, Edge] = field(default_factory=dict)

    def reason(self, goal: Goal, no_overflow: AbstractSet[str] = frozenset(),
               reads: AbstractSet[str] | None = None) -> str | None:
        """Why a proof of ``goal`` cannot hold, None if it can; ``no_overflow``: the
        overflow sites a prover has shown no run of the CFA overflows at; ``reads``: the
        sites the proof's argument reads, where a prover knows them (None: any site
        before the goal may matter). A proof that reads no site holds in gcc's build
        whatever gcc computes there."""
        if (why := self.everywhere or self.functions.get(goal.function)):
            return why
        if (blocked := self.behind.get(goal.id)) is None:
            return None
        why, before = blocked
        return why if not (before if reads is None else before & reads) <= no_overflow else None


@dataclass(eq=False)
class Program:
    """A whole C program as CFAs. ``functions`` holds those with a body; the entry
    function's CFA begins with the declarations and initialisers of all globals."""

    path: str
    data_model: DataModel
    types: Types
    globals: list[Variable]
    functions: dict[str, FunctionCFA]
    branch_points: dict[int, BranchPoint]
    error_calls: dict[int, ErrorEdge]
    declared_functions: dict[str, FunctionType]
    entry: str = "main"
    source_lines: int = 0
    proof_blockers: ProofBlockers = field(default_factory=ProofBlockers)
    files: list[str] = field(default_factory=list)  # the translation units, in link order
    system_files: frozenset[str] = frozenset()  # headers gcc marks as the system's: no goals
    unemitted: frozenset[str] = frozenset()  # static inline functions nothing refers to: no code
    library_globals: frozenset[str] = frozenset()  # declared extern, defined by no unit: the C library's
    library_state: frozenset[str] = frozenset()  # of those, given glibc's values at the start (cfa.library_globals)

    @property
    def main(self) -> FunctionCFA:
        return self.functions[self.entry]

    def locations(self) -> Iterator[Location]:
        for f in self.functions.values():
            yield from f.locations

    def edges(self) -> Iterator[Edge]:
        for f in self.functions.values():
            yield from f.edges()

    def first_call(self, function: str) -> int | None:
        """The first line that calls ``function`` (a call of an error function is an
        ``ErrorEdge``), if one does."""
        lines = [e.line for e in self.edges() if isinstance(e, CallEdge) and e.callee == function]
        if function in ERROR_FUNCTIONS:
            lines += [e.line for e in self.error_calls.values()]
        return min(lines, default=None)

    def goals(self) -> list[Goal]:
        """Every branch goal and error-call goal, in source order. The code of system
        headers (an inline function of the C library) has none, nor has a ``static
        inline`` function nothing refers to: gcc emits no code for it, so no run and no
        gcov count can see it."""
        out: list[Goal] = []
        for bp in sorted(self.branch_points.values(), key=lambda b: b.id):
            if bp.file in self.system_files or bp.function in self.unemitted:
                continue
            for outcome, edge in ((True, bp.true_edge), (False, bp.false_edge)):
                out.append(Goal(branch_goal_id(bp.id, outcome), "branch", bp.line, edge, bp.function,
                                bp.file, bp.text))
        for cid, call in sorted(self.error_calls.items()):
            out.append(Goal(error_goal_id(cid), "error-call", call.line, call, call.src.function,
                            call.file))
        return out
