"""What a program does that its CFA does not model, and so which proofs to refuse.

A proof of infeasibility says: no path of the CFA reaches the goal. That is a proof about
the program only if the CFA has every path of the native run. It has not when

* a function's address reaches the C library, which may call it at any time: an
  ``atexit`` handler, a signal handler run by ``raise``, a ``qsort`` comparator, a thread.
  The callback may also change any global, so no goal's proof can be trusted;
* control jumps non-locally (``setjmp``/``longjmp``, ``vfork``, ``*context``);
* a destructor runs after ``main`` (constructors are modelled: ``CFABuilder`` calls them
  before main), and so does whatever it calls;
* an asm statement runs, which the front end erases (``__asm__("...")``; the other
  forms it refuses): it may write any register or memory;
* gcc's -m32 build computes floating point on the x87 in more precision than the CFA
  (``excess_precision``: the goals after such a computation);
* gcc folds signed arithmetic as if it could not overflow (``x + 1 < 0`` is
  ``x < -1`` to it), where the CFA wraps (``overflow_folded``: the goals after a
  statement gcc folds so);
* ``reach_error()`` returns: the CFA ends the run at every call of it (an error-call
  goal), which is what every sv-benchmarks program's definition does (``abort()``,
  ``assert(0)``); one whose body can return lets the native run go on after the call.

``proof_blockers`` computes this once per program; ``GoalBoard.prove_infeasible``
asks it before it accepts any proof, so every proof method (value, predicate, mgp,
concolic exhaustion) is held to it alike. Blocked goals stay unknown, with the reason
in the report.
"""
from __future__ import annotations

import os
from typing import Iterable, Mapping, Sequence

from cooptest.cfa import libc_model
from cooptest.cfa.calls import address_taken, call_targets, callee_name, callees, expressions
from cooptest.harness.libc import called_behind_the_program
from cooptest.cfa.ctype import CType, DataModel, FloatType, IntType, PointerType
from cooptest.cfa.ir import (ERROR_FUNCTIONS, AssignEdge, Binary, CallEdge, Cast, Deref, Edge, Expr,
                             FunctionCFA, Location, Program, ProofBlockers, Unary, Var, branch_goal_id, error_goal_id, variables_of)
from cooptest.cfa.signed_overflow import may_overflow
from cooptest.cfa.library_globals import GETOPT_STATE, STREAMS, changes_getopt_state

USER_MAIN = "__cooptest_main"  # the program's main, renamed by the environment model
MODEL_PREFIX = "__cooptest_"  # the environment model's own functions (cooptest_io.h)


def proof_blockers(program: Program, destructors: Iterable[str], argv_given: bool = False,
                   erased_asm: Sequence[tuple[str | None, int | None]] = (),
                   narrowed: Sequence[tuple[str | None, int | None]] = (),
                   widened_constants: Sequence[tuple[str | None, int | None]] = (),
                   folds: Mapping[str, Sequence[tuple[str, int]] | None] | None = None) -> ProofBlockers:
    """Why proofs about (some) goals of ``program`` cannot be trusted; ``argv_given``:
    whether an option made the command line the program's input (``--args``,
    ``--sym-args``); ``erased_asm``: where the front end erased an asm statement of the
    program (``__asm__("...")``), which may write any register or memory; ``narrowed``:
    where the program names a float type wider than double, which the front end and
    cooptest's own build make double (``sizeof(__float128)`` 8, not 16);
    ``widened_constants``: where a floating constant gcc evaluates in long double is not
    exactly its value in its type (``CFABuilder._excess_precision_constants``);
    ``folds``: where gcc folds signed arithmetic as if it could not overflow, by unit
    (``overflow_folded``; None for a unit gcc did not say it of)."""
    blockers = ProofBlockers(everywhere=_callback(program) or _jump(program) or _returning_error(program)
                             or _asm(erased_asm) or _narrowed(narrowed)
                             or _widened(widened_constants) or _folds_unread(folds or {})
                             or (None if argv_given else argv_left_concrete(program))
                             or library_global(program) or libc_model.lent_buffer(program))
    after_main = {f for f in destructors if f in program.functions}
    for f in callees(program, after_main):
        blockers.functions[f] = "runs after main (destructor), which the CFA does not model"
    overflows = overflow_folded(program, [site for sites in (folds or {}).values() for site in sites or ()])
    sites = {**excess_precision(program), **overflows}
    blockers.sites = {site_key(edge): edge for edge in sites}
    blockers.overflow_sites = {site_key(edge): edge for edge in overflows}
    blockers.behind = _behind(program, sites)
    return blockers


def _asm(erased: Sequence[tuple[str | None, int | None]]) -> str | None:
    if not erased:
        return None
    file, line = erased[0]
    return f"an asm statement ({file}:{line}), which the CFA does not model, may change anything"


def _folds_unread(folds: Mapping[str, Sequence[tuple[str, int]] | None]) -> str | None:
    unread = next((unit for unit, sites in folds.items() if sites is None), None)
    if unread is None:
        return None
    return (f"gcc did not say where it folds signed arithmetic in {unread} (its GIMPLE could "
            "not be made), so no computation is known to be gcc's")


def _narrowed(where: Sequence[tuple[str | None, int | None]]) -> str | None:
    if not where:
        return None
    file, line = where[0]
    return (f"a __float128, _Float128 or _Float64x ({file}:{line}) is a double to cooptest and its "
            "build, wider to gcc's: no proof about its values holds")


CFA_MANTISSA = {32: 24, 64: 53, 80: 53, 128: 53}
"""The significand bits of a floating type as the analyses compute it (a long double
or a __float128 as a double)."""


def _widened(widened_constants: Sequence[tuple[str | None, int | None]]) -> str | None:
    """Why no proof holds when a floating constant is a long double to gcc and a number
    of its type to the CFA (``excess_precision``): where it flows is not tracked."""
    if not widened_constants:
        return None
    file, line = widened_constants[0]
    return (f"a floating constant ({file}:{line}) is a long double to gcc -m32 under a strict "
            "-std=, a number of its type to the CFA")


def excess_precision(program: Program) -> dict[Edge, str]:
    """The sites (``ProofBlockers.behind``), with their reasons, where gcc's -m32 build
    (-mfpmath=387, FLT_EVAL_METHOD 2) computes a floating value that the CFA computes
    otherwise. The x87 holds every intermediate result in 80 bits (64-bit
    significand, 15-bit exponent); the value is rounded to its type only when stored
    to memory. At -O0 gcc stores each variable after its statement, so a variable
    holds its type's value, and a comparison or conversion of values loaded from
    variables is exact in any precision. What differs from the CFA's IEEE arithmetic:

    * an arithmetic operation with a floating result: within one expression its
      result keeps 80 bits (``x * 10 / 10`` is ``x`` past DBL_MAX, not inf), and
      even stored at once it was rounded twice (to 64 bits, then to its type: a
      different double in halfway and subnormal cases);
    * a conversion to a floating type that may round (from an integer wider than
      the type's significand, or from a wider floating type): the GNU dialects'
      -fexcess-precision=fast need not round it within an expression
      (``(float)i == (double)i`` holds for i = 16777217); the whole right-hand side
      of an assignment or an argument is stored, so rounded, as the CFA does;
    * a long double: gcc's has 64 significant bits, the CFA's 53;
    * under a strict ISO ``-std=`` a floating constant not exactly its type's value
      (``0.1``, ``1e309``): gcc evaluates it in long double (``_widened``, which
      blocks every goal: the front end, which has the constant's text, records only
      where it is).

    A path to a goal that passes no such edge computes what gcc's does, so a goal is
    blocked only if it is such an edge's or some path leads to it from one (through
    calls, returns and loops: ``_behind``). Under LP64 gcc computes float and double
    with SSE, in their own precision, as the CFA does."""
    if program.data_model is not DataModel.ILP32:
        return {}
    sites: dict[Edge, str] = {}
    for name in sorted(callees(program, {program.entry})):
        f = program.functions[name]
        for edge in f.edges():
            stored = {id(e) for e in _stored(edge)}
            what = next((w for e in expressions(edge) for x in e.walk()
                         if (w := _wider_on_x87(x, id(x) in stored))), None)
            if what:
                sites[edge] = (f"{what} ({f.file or program.path}:{edge.line}) is computed in the x87's "
                               "80 bits by gcc -m32, in its type's by the CFA")
    return sites


def overflow_folded(program: Program, folds: Iterable[tuple[str, int]]) -> dict[Edge, str]:
    """The *overflow sites*, with their reasons: where gcc's build may compute a
    statement otherwise than the CFA because signed arithmetic overflows. ``folds`` are
    the statements gcc folds as if it could not (``frontend.folding``, by file and
    line), and of their edges those with an operation that may overflow by its
    operands' types (``signed_overflow``) are where the CFA's value may not be gcc's.
    The block of a goal behind them lifts once a prover shows that no run of the CFA
    overflows at any site before it (``GoalBoard.prove_no_overflow``): then the first
    overflow of a run of gcc's build, which follows the CFA up to there, cannot be at a
    site either.

    A fold's line with no edge of the CFA on it (a condition continued on a later line
    than its statement's) stands for every edge of the innermost function around it."""
    at: dict[tuple[str, int], list[tuple[FunctionCFA, Edge]]] = {}
    spans: dict[str, list[tuple[int, int, FunctionCFA]]] = {}
    for f in program.functions.values():
        file = os.path.normpath(f.file or program.path)
        edges = list(f.edges())
        for edge in edges:
            at.setdefault((file, edge.line), []).append((f, edge))
        if lines := [edge.line for edge in edges if edge.line]:
            spans.setdefault(file, []).append((min(lines), max(lines), f))
    sites: dict[Edge, str] = {}
    for file, line in folds:
        file = os.path.normpath(file)
        found = at.get((file, line))
        if not found:  # the innermost function around it (main's CFA starts with the globals)
            around = min(((last - first, f.name, f) for first, last, f in spans.get(file, [])
                          if first <= line <= last), default=None)
            found = [(around[2], edge) for edge in around[2].edges()] if around else []
        for _, edge in found:
            if any(may_overflow(e) for e in expressions(edge)):
                sites[edge] = (f"gcc folds signed arithmetic at {file}:{line} as if it could not "
                               "overflow; the CFA wraps it")
    return sites


def site_key(edge: Edge) -> str:
    """An edge's name that holds in every process of a run: its source's id and its
    place among the source's leaving edges."""
    return f"{edge.src.id}.{edge.src.leaving.index(edge)}"


def _behind(program: Program, sites: dict[Edge, str]) -> dict[str, tuple[str, frozenset[str]]]:
    """The goals of the edges ``sites`` and of every edge some path reaches from them,
    each with the reason of a site before it and every site before it (by ``site_key``;
    goals behind the same sites share one set: a RERS program's thousands of goals lie
    behind a few sets of hundreds of sites). A proof whose
    argument reads none of a goal's sites holds as it is (``ProofBlockers.reason``'s
    ``reads``: e.g. backward reachability's, whose weakest preconditions hold for any
    state, over edges none of which is a site)."""
    if not sites:
        return {}
    order = list(sites)
    after = _after(program, [edge.dst for edge in order])
    goals: list[tuple[str, Edge]] = [(branch_goal_id(bp.id, outcome), edge)
                                     for bp in program.branch_points.values()
                                     for outcome, edge in ((True, bp.true_edge), (False, bp.false_edge))]
    goals += [(error_goal_id(call), edge) for call, edge in program.error_calls.items()]
    index = {edge: i for i, edge in enumerate(order)}
    keys = [site_key(edge) for edge in order]
    named: dict[int, frozenset[str]] = {}
    out: dict[str, tuple[str, frozenset[str]]] = {}
    for goal, edge in goals:
        mask = after.get(edge.src.id, 0) | (1 << index[edge] if edge in index else 0)
        if mask:  # the reason: the goal's own edge's, else the first site's before it
            first = index[edge] if edge in index else (mask & -mask).bit_length() - 1
            if mask not in named:
                named[mask] = frozenset(keys[i] for i in range(mask.bit_length()) if mask >> i & 1)
            out[goal] = (sites[order[first]], named[mask])
    return out


def _after(program: Program, starts: list[Location]) -> dict[int, int]:
    """The ids of the locations some path from ``starts`` reaches, each with the set of
    starts (bit i: ``starts[i]``) it is reached from: along edges, into every function a
    call may enter, and from a function's exit back to every call of it (more than the
    paths that return where they came from: a superset). The sets flow once over the
    graph's strongly connected components in topological order: a RERS program's
    hundreds of sites re-walked its loops once per site, 4 s of its loading."""
    import networkx as nx  # 0.26 s to import: paid by programs with sites only

    addressed = address_taken(program)
    graph: nx.DiGraph[int] = nx.DiGraph()
    return_sites: dict[str, list[int]] = {}
    for f in program.functions.values():
        graph.add_nodes_from(loc.id for loc in f.locations)
    for edge in program.edges():
        graph.add_edge(edge.src.id, edge.dst.id)
        if isinstance(edge, CallEdge):
            for t in call_targets(program, edge, addressed):
                graph.add_edge(edge.src.id, program.functions[t].entry.id)
                return_sites.setdefault(t, []).append(edge.dst.id)
    for name, f in program.functions.items():
        graph.add_edges_from((f.exit.id, site) for site in return_sites.get(name, ()))
    dag = nx.condensation(graph)
    component = dag.graph["mapping"]
    masks: dict[int, int] = {}
    for i, loc in enumerate(starts):
        masks[component[loc.id]] = masks.get(component[loc.id], 0) | 1 << i
    for c in nx.topological_sort(dag):
        if mask := masks.get(c, 0):
            for d in dag.successors(c):
                masks[d] = masks.get(d, 0) | mask
    return {loc: masks[c] for loc, c in component.items() if masks.get(c)}


def _stored(edge: Edge) -> Iterable[Expr]:
    """The expressions ``edge`` stores to memory as they are: an assignment's
    right-hand side, a call's arguments (a long double's stays wider than the CFA's)."""
    if isinstance(edge, AssignEdge):
        yield edge.rhs
    elif isinstance(edge, CallEdge):
        yield from edge.args


def _wider_on_x87(e: Expr, stored: bool) -> str | None:
    """What about ``e`` gcc's x87 code computes in more precision than the CFA."""
    if not isinstance(e.type, FloatType):
        return None
    if e.type.bits > 64 and isinstance(e, (Binary, Cast, Unary)):
        return f"a {e.type} operation"
    if isinstance(e, Binary) and e.op in ("+", "-", "*", "/"):
        return f"floating arithmetic ({e.op})"
    if isinstance(e, Cast) and not stored:
        source = e.operand.type
        mantissa = CFA_MANTISSA[e.type.bits]
        if isinstance(source, IntType) and source.bits - source.signed > mantissa \
                or isinstance(source, FloatType) and source.bits > e.type.bits:
            return f"a conversion from {source} to {e.type}"
    return None


def interposed(program: Program, internal: set[str]) -> dict[str, str]:
    """The functions the program defines under a name that is called without the
    program calling it (``harness.libc``: its own ``strlen``, which the nondet harness
    calls; ``malloc``, which glibc calls; ``memcpy``, which gcc calls for a struct
    copy), and what they call: the linker makes those calls the program's, and the CFA
    has none of them, so no proof about their goals holds."""
    behind = called_behind_the_program(program.data_model)
    own = {f for f in program.functions if f not in internal and f in behind}
    return {f: f"{f}() may be called by the C library, the harness or gcc's own code "
               f"(the program defines {', '.join(sorted(own))})"
            for f in callees(program, own)} if own else {}


def argv_left_concrete(program: Program) -> str | None:
    """Why no proof holds when ``main`` reads its parameters but nothing made them
    inputs: every run had the one command line ``argc == 1``, so a goal behind
    ``argc > 1`` looks unreachable while the program the user runs reaches it."""
    main = program.functions.get(USER_MAIN) or program.main
    read = set().union(*(variables_of(e) for edge in main.edges() for e in expressions(edge)))
    if not read & set(main.params):
        return None
    return ("main() reads argc/argv, which no option made inputs (every run had argc = 1); "
            "give --args or --sym-args")


def library_global(program: Program) -> str | None:
    """Why no proof holds when the program reads a variable the C library defines
    (``optind``, ``stdout``, ``environ``, ``signgam``): the library sets it before
    ``main`` and changes it in calls (``getopt``), where a prover knows only what the
    front end gives it at the start (``cfa.library_globals``: the streams, and getopt's
    state while no getopt function may run). A read that is only the direct argument
    of a library call (``fprintf(stderr, ...)``) is harmless: the call's result is
    unknown to every prover anyway. A read through a stream (a FILE's fields, glibc's
    own) blocks too.

    The environment model's code compares streams with stdin and passes environ on as
    envp, which is harmless; but its getopt_long reads getopt's variables as the
    program does, and blocks as the program's reads do where a getopt of the C library
    may change them (a program calling getopt too)."""
    if not program.library_globals:
        return None
    model = USER_MAIN in program.functions  # the environment model's: its main is the entry
    reachable = sorted(callees(program, {program.entry}))
    known = set(program.library_state)
    if any(changes_getopt_state(f) for f in _external_calls(program)):
        known -= GETOPT_STATE.keys()
    streams = {v.type.target for v in program.globals
               if v.name in STREAMS and v.name in known and isinstance(v.type, PointerType)}
    unknown_getopt = (GETOPT_STATE.keys() & program.library_globals) - known
    for name in reachable:
        own = modelled(name) or (model and name == program.entry)
        if own and not unknown_getopt:
            continue
        for edge in program.functions[name].edges():
            harmless: set[int] = set()
            if isinstance(edge, CallEdge) and (callee_name(edge) not in program.functions
                                               or modelled(callee_name(edge) or "")):
                harmless = {id(a) for a in edge.args if isinstance(a, Var)}
            for e in expressions(edge):
                if id(e) in harmless:
                    continue
                through = None if own else _through_stream(e, streams)
                if through is not None:
                    return (f"line {edge.line}: {through} reads a FILE object, glibc's own, "
                            "which no prover models")
                read = {v for v in variables_of(e) if v.name in program.library_globals
                        and v.name not in known and (not own or v.name in unknown_getopt)}
                if read:
                    v = min(read, key=lambda v: v.name)
                    return (f"line {edge.line}: {v.source_name} is the C library's (set before main and "
                            "changed by its calls), which no prover models")
    return None


def _through_stream(e: Expr, streams: set[CType]) -> str | None:
    """How ``e`` reads a FILE object: a dereference of a pointer to one, or such a
    pointer converted to another pointer type (and read through that)."""
    for x in e.walk():
        if isinstance(x, Deref) and isinstance(x.pointer.type, PointerType) \
                and x.pointer.type.target in streams:
            return "a dereference of a FILE pointer"
        if isinstance(x, Cast) and isinstance(x.type, PointerType) and x.type.target not in streams \
                and isinstance(x.operand.type, PointerType) and x.operand.type.target in streams:
            return "a FILE pointer converted to another pointer"
    return None


def modelled(name: str) -> bool:
    """Whether ``name`` is a function of the environment model (``cooptest_io.h``)."""
    return name.startswith(MODEL_PREFIX) and name != USER_MAIN


def _external_calls(program: Program) -> dict[str, None]:
    """Library functions the program calls or takes the address of, in order."""
    out: dict[str, None] = {}
    for edge in program.edges():
        if isinstance(edge, CallEdge) and isinstance(edge.callee, str):
            out[edge.callee] = None
    out.update(dict.fromkeys(sorted(address_taken(program))))
    return {f: None for f in out if f not in program.functions}


def _callback(program: Program) -> str | None:
    own = sorted(f for f in address_taken(program) if f in program.functions)
    if not own:
        return None
    library = [f for f in _external_calls(program) if libc_model.calls_back(f)]
    if not library:
        return None
    return (f"the address of {own[0]}() may reach {library[0]}(), which can call it back; "
            "calls from the C library are not modelled")


def _jump(program: Program) -> str | None:
    jumps = [f for f in _external_calls(program) if libc_model.function(f).jumps]
    return f"{jumps[0]}(): non-local jumps are not modelled" if jumps else None


def _returning_error(program: Program) -> str | None:
    for name in ERROR_FUNCTIONS:
        f = program.functions.get(name)
        if f is not None and f.exit in f.reachable():
            return f"{name}() may return, where the CFA ends the run at its calls"
    return None
