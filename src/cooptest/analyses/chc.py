"""Constrained Horn clauses of the CFA, solved by z3's Spacer: proofs across recursion.

Predicate CEGAR learns its predicates along one spurious path at a time, with a call
stack in every abstract state; a recursive function (``addition(m + 1, n - 1)``,
``sum(n - 1, m + 1)``) gives it paths without end and no summary to stop them. Encoding
the program as constrained Horn clauses (Bjørner, Gurfinkel, McMillan and Rybalchenko,
"Horn Clause Solvers for Program Verification") hands the whole problem to a solver that
infers loop invariants and procedure summaries together: Spacer (Komuravelli, Gurfinkel
and Chaki, CAV 2014), IC3/PDR over bit-vectors, part of z3. On ``sum_non_eq-2`` it finds
``sum(n, m) == n + m`` (modulo 2³²) in a quarter of a second.

The clauses (one relation per CFA location ``l`` of a function ``f``, over the values
``E`` of ``f``'s globals and parameters at its entry and the current values ``V`` of the
globals, parameters, locals and the return value; one summary per function):

- entry of ``main``: ``l_entry(E, V) <- V == E`` on globals and parameters;
- an edge ``l -> l'`` with transfer ``V' = t(V)``: ``l'(E, t(V)) <- l(E, V) && guard(V)``;
- a call ``x = g(a)`` from ``l`` to ``l'``:
  ``l'(E, V[globals := G', x := r]) <- l(E, V) && sum_g(V.globals, a(V), G', r)``, and
  where the encoding has calling contexts, ``g_entry(G, a(V), ...) <- l(E, V)`` (the
  callee runs from what its callers pass); without, every function's entry is a fact
  like ``main``'s (its summary then holds for any input);
- the exit of ``f``: ``sum_f(E, V.globals, V.return) <- f_exit(E, V)``;
- a goal (the assume edge of a branch outcome, a call of ``reach_error``) is the query
  ``l(E, V) && guard(V)``: unreachable (Spacer's ``unsat``) is the proof.

Soundness: the clauses must over-approximate every native run. Their variables are the
program's registers (``cfa.ir.in_register``: integer and pointer scalars whose address is
never taken), which only an assignment naming them changes; memory (arrays, structs, the
heap, variables whose address is taken) is not followed at all: every read of it is a
fresh unknown, a store to it changes no variable of the clauses, and so does any library
call (it has no register's address to write through), whose result is unknown. So are
floating-point values (a condition on them takes either outcome), addresses, an
uninitialised local, an input, and anything the clauses do not follow (an argument the
callee reads as another type): all this only adds behaviours. C operations are
``semantics``' (the one place every analysis reads them from); Spacer's bit-vector
reasoning is what a proof rests on. A native run that traps (division by zero, a null
dereference) or exhausts its stack has fewer behaviours. What stays outside: calls
through pointers (the callee could change any global) and a ``main`` called again (its
globals would be zeroed anew); there the analysis says why (``CHCState.why_not``) and
proves nothing. The board refuses proofs where the program does what the CFA does not
model (``cfa.proof_blockers``). This is the value analysis's model of memory
(``reachability.value``): a write out of an object's bounds, which C leaves undefined,
is assumed not to land on a register's stack slot.

A query is asked with a time limit of its own (``FIRST_LIMIT_MS``, doubled each time it
runs out, up to ``LAST_LIMIT_MS``); one the job's deadline interrupted instead is asked
again with the same limit by a later job, after the goals of that limit interrupted less
often:
CoVeriTest's rounds give Spacer two seconds each, and a goal that needs more would
otherwise take every round, the other goals none. Where Spacer answers ``sat`` with
calling contexts (or for a goal of ``main``) the goal has a derivation: it may be
reachable, and it is not asked again.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import z3

from cooptest.analyses import semantics as sem
from cooptest.analyses.transfer import EdgeTransfer
from cooptest.cfa.calls import callee_name, callees
from cooptest.cfa.ctype import CType, IntType, PointerType
from cooptest.cfa.ir import (AssignEdge, AssumeEdge, Binary, BlankEdge, CallEdge, Cast, Const,
                             DeclEdge, Edge, ErrorEdge, Expr, FunctionCFA, Location, NondetEdge,
                             Program, ReturnEdge, TerminateEdge, Unary, Var, Variable,
                             in_register)
from cooptest.core.analysis import AnalysisState, Job, Outcome, finish
from cooptest.core.board_view import Board
from cooptest.core.budget import Budget, DeadlineReached
from cooptest.core.registry import Settings

ORIGIN = "chc"
FIRST_LIMIT_MS = 1_000  # Spacer's proofs of the benchmarks' recursions take 0.2-0.9 s
LAST_LIMIT_MS = 64_000
SIMPLE_OPS = frozenset(("==", "!=", "<", "<=", ">", ">="))  # all a pointer operand may meet


class OutsideFragment(Exception):
    """The program does something the clauses do not follow: ``what``, at ``line``
    (that of the edge being encoded, if any)."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what
        self.line: int | None = None

    def __str__(self) -> str:
        return self.what if self.line is None else f"line {self.line}: {self.what}"


@dataclass
class CHCState(AnalysisState):
    """``why_not``: the program lies outside the fragment (nothing is asked).
    ``limits``: the time limit of each goal's next query; ``interruptions``: how often
    a deadline interrupted a goal's query (its limit then stays); ``answered``: Spacer's answer
    for each goal it decided (``unsat``, the proof, which the board may refuse; ``sat``,
    a derivation), not asked again; ``overflows``: its answer for each overflow site
    asked (``_rule_out_overflows``), not asked again. ``encodings``: the clauses built so far, with
    calling contexts or without (a job that goes on, as in CoVeriTest's rounds, does
    not build them again, and finishes a build a deadline interrupted)."""

    limits: dict[str, int] = field(default_factory=dict)
    interruptions: dict[str, int] = field(default_factory=dict)
    answered: dict[str, str] = field(default_factory=dict)
    overflows: dict[str, str] = field(default_factory=dict)  # overflow site -> Spacer's answer
    encodings: dict[bool, Clauses] = field(default_factory=dict, repr=False)


@dataclass
class Frame:
    """The variables of one function's relations: ``entry``, the values of the globals
    and parameters at its entry; ``current``, those of the globals, parameters, locals
    and the return value (``ret``, a variable of the encoding, None for ``void``)."""

    variables: list[Variable]
    globals: int  # how many of ``variables`` are globals (they come first)
    inputs: int  # how many are globals and parameters: what ``entry`` holds
    ret: Variable | None
    entry: list[z3.ExprRef]
    current: list[z3.ExprRef]

    def values(self) -> dict[Variable, z3.ExprRef]:
        return dict(zip(self.variables, self.current))

    def project(self, env: dict[Variable, z3.ExprRef]) -> list[z3.ExprRef]:
        return [env[v] for v in self.variables]

    @property
    def outputs(self) -> list[z3.ExprRef]:
        """What a call returns to its caller: the globals and the return value."""
        return self.current[:self.globals] + ([self.current[-1]] if self.ret is not None else [])


class Clauses(EdgeTransfer["_Rule", None]):
    """The Horn clauses of a program in the fragment (module docstring) in a Spacer
    context; ``build`` encodes the edges, ``query(edge)`` then asks whether a run can
    take one.

    ``contexts``: a function runs from what its calls pass (precise, needed where a goal
    inside a function depends on its caller, as ``__VERIFIER_assert``'s do), or from any
    values at all (each summary then holds for every input: Spacer finds ``sum``'s at
    once where the contexts take it more than 5 s; for a goal outside ``main`` a
    derivation then proves nothing)."""

    def __init__(self, program: Program, contexts: bool) -> None:
        self.program = program
        self.contexts = contexts
        names = callees(program, {program.entry})
        if program.entry in {callee_name(e) for f in names for e in program.functions[f].edges()
                             if isinstance(e, CallEdge)}:
            raise OutsideFragment(f"{program.entry} is called again")
        self.functions = [program.functions[n] for n in sorted(names)]
        self.globals = [v for v in program.globals if in_register(v)]
        self.fp = z3.Fixedpoint()
        self.fp.set(engine="spacer")
        self._fresh = itertools.count()
        self._bound: list[z3.ExprRef] = []  # the fresh variables of the edge being encoded
        self.frames = {f.name: self._frame(f) for f in self.functions}
        self.at: dict[Location, z3.FuncDeclRef] = {}
        self.summary: dict[str, z3.FuncDeclRef] = {}
        for f in self.functions:
            frame = self.frames[f.name]
            sorts = [x.sort() for x in frame.entry + frame.current]
            for loc in f.locations:
                self.at[loc] = self._relation(f"{f.name}@{loc.id}", sorts)
            self.summary[f.name] = self._relation(
                f"sum:{f.name}", [x.sort() for x in frame.entry + frame.outputs])
        for f in [program.main] if contexts else self.functions:
            self._bound = []
            self._enter(f, self.frames[f.name].entry, [], self.frames[f.name])
        for f in self.functions:
            frame = self.frames[f.name]
            self._bound = []
            self._rule(frame, _apply(self.summary[f.name], frame.entry + frame.outputs),
                       [self._state(f.exit, frame.entry, frame.current)])
        self.pending = [(f, edge) for f in self.functions for edge in f.edges()]
        self.built = 0  # edges of ``pending`` encoded: a build the deadline interrupted goes on here

    def build(self, budget: Budget) -> Clauses:
        """Encode the edges not encoded yet; ``DeadlineReached`` where ``budget`` ends
        first (a build of the largest programs of the fragment takes a second; the next
        call goes on from there)."""
        while self.built < len(self.pending):
            if budget.expired():
                raise DeadlineReached
            f, edge = self.pending[self.built]
            try:
                self._edge(f, edge)
            except OutsideFragment as e:
                e.line = edge.line
                raise
            self.built += 1
        return self

    def query(self, edge: Edge, limit_ms: int) -> z3.CheckSatResult:
        """Whether a run can take ``edge``: ``sat`` (a derivation), ``unsat`` (never),
        ``unknown`` (not decided within ``limit_ms``)."""
        frame = self.frames[edge.src.function]
        self._bound = []
        return self._ask(edge, [self._guard(edge, frame.values())] if isinstance(edge, AssumeEdge) else [],
                         limit_ms)

    def overflows(self, edge: Edge, limit_ms: int) -> z3.CheckSatResult:
        """Whether a run can reach ``edge`` with one of its signed operations leaving
        its type (``signed_overflow``): ``unsat`` proves none does; ``unknown`` also
        where an operation is not judged (``semantics.overflows``)."""
        env = self.frames[edge.src.function].values()
        self._bound = []  # the unknowns the terms below make (a read of memory)
        conditions = sem.edge_overflows(edge, lambda e: self._term(e, env))
        if conditions is None:
            return z3.unknown
        return self._ask(edge, [z3.Or(conditions)], limit_ms) if conditions else z3.unsat

    def _ask(self, edge: Edge, conditions: list[z3.BoolRef], limit_ms: int) -> z3.CheckSatResult:
        """Whether a run reaches ``edge``'s source with ``conditions`` holding there, in
        Spacer's answer within ``limit_ms`` (the query is a fresh nullary relation).
        The rule is quantified over the unknowns made since ``_bound`` was emptied: the
        caller empties it before it makes ``conditions``."""
        frame = self.frames[edge.src.function]
        goal = self._relation(f"goal{next(self._fresh)}", [])
        self._rule(frame, goal(), [self._state(edge.src, frame.entry, frame.current), *conditions])
        self.fp.set(timeout=max(1, limit_ms))
        try:
            return self.fp.query(goal())
        except z3.Z3Exception:  # Spacer reports its time limit as "canceled"
            return z3.unknown

    def invariant(self, location: Location) -> tuple[int, str] | None:
        """After an ``unsat`` answer, the invariant Spacer found at ``location`` (the
        definition its answer gives that location's relation), over the frame's
        variables (its own without the function's prefix; ``n@entry``: the value on
        entry), with the line it holds at: the evidence of the proof, where a sentence
        would ask to be taken on trust. Where a goal's location is itself unreachable its
        invariant is a contradiction, which says nothing; the evidence is then the
        invariant before it, stepping back over single entering edges to the branch that
        excludes it. None if the answer does not define it."""
        frame = self.frames[location.function]
        names = [z3.Const(str(x).rsplit("!", 1)[0], x.sort()) for x in frame.entry + frame.current]
        answer = self.fp.get_answer()
        definitions = {}
        for q in answer.children() if z3.is_and(answer) else [answer]:
            if not z3.is_quantifier(q) or q.num_vars() != len(names):
                continue
            body = q.body()  # relation(vars) == definition; Var(0) is the last bound
            if z3.is_eq(body) and z3.is_app(body.arg(0)):
                definitions[body.arg(0).decl()] = body.arg(1)
        seen: set[Location] = set()
        while location not in seen and self.at.get(location) in definitions:
            seen.add(location)
            shown = z3.simplify(z3.substitute_vars(definitions[self.at[location]], *reversed(names)))
            if z3.Solver().check(shown) != z3.unsat or len(location.entering) != 1:
                return location.line, " ".join(str(shown).split()).replace(f"{location.function}::", "")
            location = location.entering[0].src
        return None

    def _frame(self, f: FunctionCFA) -> Frame:
        ret = None
        if _scalar(f.type.ret):  # any other result is unknown to the caller
            ret = Variable(f"{f.name}::return", "return", f.type.ret, False, f.name)
        inputs = self.globals + [p for p in f.params if in_register(p)]
        variables = inputs + [v for v in f.locals if in_register(v)] + ([ret] if ret is not None else [])
        return Frame(variables, len(self.globals), len(inputs), ret,
                     [self._var(f"{v.name}@entry", v) for v in inputs],
                     [self._var(v.name, v) for v in variables])

    def _var(self, name: str, v: Variable | CType) -> z3.ExprRef:
        """A fresh variable of the clauses (universally quantified in the rules of the
        edge being encoded)."""
        x = z3.Const(f"{name}!{next(self._fresh)}", sem.sort_of(v.type if isinstance(v, Variable) else v))
        self._bound.append(x)
        return x

    def _relation(self, name: str, sorts: list[z3.SortRef]) -> z3.FuncDeclRef:
        r = z3.Function(name, *sorts, z3.BoolSort())
        self.fp.register_relation(r)
        return r

    def _state(self, loc: Location, entry: list[z3.ExprRef], values: list[z3.ExprRef]) -> z3.BoolRef:
        return _apply(self.at[loc], entry + values)

    def _rule(self, frame: Frame, head: z3.BoolRef, body: list[z3.BoolRef]) -> None:
        """``head <- body``, for all values of ``frame``'s variables and of the fresh
        ones of the edge being encoded. Quantified here, over just these: z3's
        ``Fixedpoint.rule`` quantifies every rule over every variable ever declared,
        which made building quadratic (aim-200: 1,400 rules over 1,100 variables,
        45 s)."""
        bound = frame.entry + frame.current + self._bound
        formula = z3.Implies(z3.And(body), head) if body else head
        if bound:  # z3 refuses a quantifier without variables
            array = (z3.Ast * len(bound))(*(x.as_ast() for x in bound))
            formula = z3.QuantifierRef(z3.Z3_mk_forall_const(
                formula.ctx_ref(), 0, len(bound), array, 0, None, formula.as_ast()), formula.ctx)
        self.fp.add_rule(formula)

    def _enter(self, f: FunctionCFA, inputs: list[z3.ExprRef], body: list[z3.BoolRef],
               caller: Frame) -> None:
        """``f`` runs from ``inputs`` (its globals and parameters, over ``caller``'s
        variables) where ``body`` holds; its locals and return value are unknown."""
        frame = self.frames[f.name]
        rest = [self._var(v.name, v) for v in frame.variables[frame.inputs:]]
        self._rule(caller, self._state(f.entry, inputs, [*inputs, *rest]), body)

    def _guard(self, edge: AssumeEdge, env: dict[Variable, z3.ExprRef]) -> z3.BoolRef:
        if not _scalar(edge.cond.type):
            return z3.BoolVal(True)  # a floating-point condition: either outcome
        holds = sem.truth(self._term(edge.cond, env), edge.cond.type)
        return holds if edge.positive else z3.Not(holds)

    def _term(self, e: Expr, env: dict[Variable, z3.ExprRef]) -> z3.ExprRef:
        """The value of ``e`` (an integer or a pointer) over the register values
        ``env``: a fresh unknown for each part that reads memory (a variable in memory,
        ``*p``, ``a[i]``, ``s.f``), takes an address or computes with floats."""
        value: z3.ExprRef | None = None
        if isinstance(e, Const) and _scalar(e.type):
            value = sem.const(int(e.value), e.type)
        elif isinstance(e, Var):
            value = env.get(e.var)  # None: the variable lives in memory
        elif isinstance(e, Cast) and _scalar(e.operand.type):
            value = sem.cast(self._term(e.operand, env), e.operand.type, e.type)
        elif isinstance(e, Unary) and isinstance(e.operand.type, IntType):
            value = sem.unary(e.op, self._term(e.operand, env), e.operand.type, e.type)
        elif isinstance(e, Binary) and _scalar(e.left.type) and _scalar(e.right.type) \
                and (isinstance(e.left.type, IntType) and isinstance(e.right.type, IntType)
                     or e.op in SIMPLE_OPS):
            try:
                value = sem.binary(e.op, self._term(e.left, env), self._term(e.right, env),
                                   e.left.type, e.right.type, e.type)
            except ValueError:
                pass
        return value if value is not None else self._var("unknown", e.type)

    def _edge(self, f: FunctionCFA, edge: Edge) -> None:
        if isinstance(edge, (ErrorEdge, TerminateEdge)):
            return  # the run stops there
        frame = self.frames[f.name]
        self._bound = []
        rule = _Rule(frame, frame.values(), [self._state(edge.src, frame.entry, frame.current)])
        self.transfer(rule, edge)
        self._rule(frame, self._state(edge.dst, frame.entry, frame.project(rule.env)), rule.body)

    # the cases of the one edge transfer (``analyses.transfer``): each adds to the rule
    # of its edge, over the registers' values after it (``env``)

    def assume(self, s: _Rule, edge: AssumeEdge) -> None:
        s.body.append(self._guard(edge, s.env))

    def assign(self, s: _Rule, edge: AssignEdge) -> None:
        if (x := _register(edge.lhs)) is not None:  # a store to memory changes no register
            s.env[x] = self._term(edge.rhs, s.env)

    def declare(self, s: _Rule, edge: DeclEdge, zero: bool) -> None:
        if in_register(var := edge.var):
            s.env[var] = sem.const(0, var.type) if zero else self._var("unknown", var)

    def nondet(self, s: _Rule, edge: NondetEdge) -> None:
        if (x := _register(edge.lhs)) is not None:
            s.env[x] = sem.cast(self._var("input", edge.value_type), edge.value_type, x.type)

    def leave(self, s: _Rule, edge: ReturnEdge) -> None:
        if edge.value is not None and s.frame.ret is not None:
            s.env[s.frame.ret] = self._term(edge.value, s.env)

    def enter(self, s: _Rule, edge: CallEdge, body: FunctionCFA,
              bindings: list[tuple[Variable, Expr | None]]) -> None:
        """``lhs = callee(args)`` through the callee's summary."""
        frame, env = self.frames[body.name], s.env
        inputs = [env[g] for g in self.globals] + [
            self._term(a, env) if a is not None else self._var("argument", p)
            for p, a in bindings if in_register(p)]
        if self.contexts:
            self._enter(body, inputs, list(s.body), s.frame)
        outputs = [self._var(v.name, v) for v in self.globals] + (
            [self._var("result", frame.ret)] if frame.ret is not None else [])
        s.body.append(_apply(self.summary[body.name], inputs + outputs))
        env.update(zip(self.globals, outputs))
        if (x := _register(edge.lhs)) is not None:
            env[x] = sem.cast(outputs[-1], frame.ret.type, x.type) if frame.ret is not None \
                else self._var("unknown", x)

    def outside(self, s: _Rule, edge: CallEdge, name: str | None) -> None:
        """A function without a body: its result is unknown (it has no address of ours
        to write through)."""
        if name is None:
            raise OutsideFragment("a call through a pointer")
        if (x := _register(edge.lhs)) is not None:
            s.env[x] = self._var("unknown", x)

    def blank(self, s: _Rule, edge: Edge) -> None:
        if not isinstance(edge, BlankEdge):
            raise OutsideFragment(type(edge).__name__)


@dataclass
class _Rule:
    """The rule of one edge under construction: the frame of its function, the values
    of the frame's registers after the edge, and the body's conditions."""

    frame: Frame
    env: dict[Variable, z3.ExprRef]
    body: list[z3.BoolRef]


def _apply(relation: z3.FuncDeclRef, args: list[z3.ExprRef]) -> z3.BoolRef:
    """``relation(*args)`` through z3's C API: ``FuncDeclRef.__call__`` converts and
    checks each argument in Python, half of the building time of a program with
    hundreds of variables (the arguments here are of the relation's sorts already)."""
    array = (z3.Ast * len(args))(*(a.as_ast() for a in args))
    return z3.BoolRef(z3.Z3_mk_app(relation.ctx_ref(), relation.as_ast(), len(args), array), relation.ctx)


def _register(lhs: Expr | None) -> Variable | None:
    """The register an assignment to ``lhs`` writes, None for a store to memory."""
    return lhs.var if isinstance(lhs, Var) and in_register(lhs.var) else None


def _scalar(t: CType) -> bool:
    """An integer or a pointer: what the clauses compute with (bit-vectors)."""
    return isinstance(t, (IntType, PointerType))


class CHCAnalysis:
    """Proves goals unreachable with Spacer on the program's Horn clauses (module
    docstring). Each goal is asked of the encoding without contexts first (fast; for a
    goal in ``main`` as precise as the other), then, outside ``main``, with contexts."""

    name = ORIGIN

    def run(self, board: Board, job: Job) -> Outcome:
        state = job.state if isinstance(job.state, CHCState) else CHCState(self.name)
        if state.why_not is not None:
            return finish(board, job, state)
        program = board.program

        def encoding(contexts: bool) -> Clauses:
            if contexts not in state.encodings:
                state.encodings[contexts] = Clauses(program, contexts)
            return state.encodings[contexts].build(job.budget)
        try:
            scope = {f.name for f in encoding(False).functions}
        except OutsideFragment as e:
            state.why_not = str(e)
            return finish(board, job, state)
        except DeadlineReached:
            return finish(board, job, state, interrupted=True)
        interrupted = not self._rule_out_overflows(board, job, state, encoding(False), scope)
        while not interrupted and not job.budget.expired():
            asked = [g for g in board.open(job.goals) if board.goals[g].function in scope
                     and g not in state.answered and state.limits.get(g, FIRST_LIMIT_MS) <= LAST_LIMIT_MS]
            if not asked:
                break
            g = min(asked, key=lambda g: (state.limits.get(g, FIRST_LIMIT_MS),
                                          state.interruptions.get(g, 0), g))
            goal = board.goals[g]
            limit = state.limits.get(g, FIRST_LIMIT_MS)
            for contexts in (False,) if goal.function == program.entry else (False, True):
                try:
                    clauses = encoding(contexts)
                except DeadlineReached:
                    interrupted = True
                    break
                left_ms = int(job.budget.remaining() * 1000)
                answer = clauses.query(goal.edge, min(limit, left_ms))
                if answer == z3.unsat:
                    how = ", with calling contexts" if contexts else ""
                    shown = clauses.invariant(goal.edge.src)
                    board.prove_infeasible(g, f"{ORIGIN}: Spacer found invariants and summaries "
                                              f"of the program's Horn clauses that exclude it{how}"
                                           + (f"; the invariant at line {shown[0]}: {shown[1]}"
                                              if shown else ""))
                    state.answered[g] = "unsat"
                    break
                if answer == z3.sat and (contexts or goal.function == program.entry):
                    state.answered[g] = "sat"
                    board.give_up((g,), self.name, "Spacer found a derivation of it in the Horn "
                                                   "clauses: no proof (no test has reached it yet)")
                    break
                if answer == z3.unknown and left_ms < limit:
                    interrupted = True  # by the deadline: asked again with this limit
                    state.interruptions[g] = state.interruptions.get(g, 0) + 1
                    break
            else:
                state.limits[g] = 2 * limit
                more = "" if 2 * limit <= LAST_LIMIT_MS else ", its last"
                board.give_up((g,), self.name, f"Spacer answered unknown at its {limit / 1000:g}-s limit{more}")
        return finish(board, job, state, interrupted)

    def _rule_out_overflows(self, board: Board, job: Job, state: CHCState, clauses: Clauses,
                            scope: set[str]) -> bool:
        """Prove, where Spacer can within ``FIRST_LIMIT_MS``, that no run overflows at
        the overflow sites before the job's open goals (``ProofBlockers.behind``): their
        proofs are trusted only then. False if the deadline came first."""
        blockers = board.program.proof_blockers
        needed = {site for g in board.open(job.goals) if g in blockers.behind
                  for site in blockers.behind[g][1] if site in blockers.overflow_sites}
        for site in sorted(needed - board.no_overflow.keys() - state.overflows.keys()):
            edge = blockers.overflow_sites[site]
            if edge.src.function not in scope:
                continue
            left_ms = int(job.budget.remaining() * 1000)
            if left_ms <= 0:
                return False
            state.overflows[site] = str(answer := clauses.overflows(edge, min(FIRST_LIMIT_MS, left_ms)))
            if answer == z3.unsat:
                board.prove_no_overflow(site, f"{ORIGIN}: Spacer found invariants that exclude a "
                                              f"signed overflow at line {edge.line}")
        return True


def from_settings(settings: Settings) -> CHCAnalysis:
    return CHCAnalysis()
