"""An ARG read as an automaton over CFA edges: Crabs' monitor and CoVeriTest's condition.

The states are the ARG's states that are not covered; an edge leads to the child along
it, and into a covered child, to the state covering it (what the covered state can do,
the covering one can do too), so the automaton is deterministic. Where the ARG has no
child the answer depends on what the ARG knows:

- the state was expanded completely (``ARGState.expanded``, not ``truncated``): the
  edge has no successor because the analysis proved it infeasible from everything the
  state stands for, or because an automaton it followed said nothing is left to find
  there: **no transition** (None);
- otherwise (frontier, removed by refinement and not recomputed yet, beyond the
  call-stack bound, an unresolved function pointer, stopped by the clock): **TOP**.

The ARG over-approximates every execution in its expanded part, so an execution never
leaves the monitor except along an edge no execution takes: the monitor is sound for
cutting paths and for proofs. The **condition** (conditional model checking) has, in
addition, no transition into a state that is *done*: its whole sub-ARG, following cover
edges, is expanded and untruncated and reaches no goal edge that is still open. Nothing
reachable from such a state is left to find; a goal edge reached there was decided
(covered or proven) before the condition was built, and goals never reopen. Which
goals are decided is the board's knowledge, not the ARG's: the condition is built with
the board it will be used with (no board: every goal edge counts as open, which is sound
with any board). Both are snapshots: the ARG may go on changing afterwards.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from cooptest.analyses.reachability.arg import ARGState, ReachabilityARG
from cooptest.cfa.ir import AssumeEdge, Edge, ErrorEdge, branch_goal_id, error_goal_id
from cooptest.core.automaton import TOP, State
from cooptest.core.board_view import Board


def goal_of(edge: Edge) -> str | None:
    """The goal an edge is the edge of (``Program.goals`` names them the same way)."""
    if isinstance(edge, AssumeEdge) and edge.branch is not None:
        return branch_goal_id(edge.branch, edge.positive)
    if isinstance(edge, ErrorEdge):
        return error_goal_id(edge.call_id)
    return None


def _covering(s: ARGState) -> ARGState:
    while s.covered_by is not None:
        s = s.covered_by
    return s


@dataclass
class ARGAutomaton:
    """An :class:`~cooptest.core.automaton.EdgeAutomaton` over a snapshot of an ARG."""

    name: str
    root: ARGState | None
    moves: dict[ARGState, dict[Edge, ARGState]] = field(default_factory=dict)
    closed: set[ARGState] = field(default_factory=set)  # expanded, untruncated
    done: set[ARGState] = field(default_factory=set)  # nothing left to find from here
    open_edges: set[Edge] = field(default_factory=set)  # goal edges still open (condition)

    def initial(self) -> State:
        return TOP if self.root is None else self.root

    def step(self, q: State, edge: Edge) -> State | None:
        if q == TOP:
            return TOP
        nxt = self.moves.get(q, {}).get(edge)  # type: ignore[call-overload]
        if nxt is None:
            return None if q in self.closed else TOP
        return None if nxt in self.done and edge not in self.open_edges else nxt


def _snapshot(arg: ReachabilityARG, name: str) -> ARGAutomaton:
    automaton = ARGAutomaton(name, _covering(arg.root) if arg.root is not None else None)
    for s in arg.states():
        if s.removed or s.covered_by is not None:
            continue
        automaton.moves[s] = {e: _covering(c) for e, c in s.children.items() if not c.removed}
        if s.expanded and not s.truncated:
            automaton.closed.add(s)
    return automaton


def monitor_from_arg(arg: ReachabilityARG, board: Board | None = None) -> ARGAutomaton:
    """Crabs' MonitorFromARG (module docstring). With ``board`` (as Crabs builds it),
    the monitor also has no transition into a state from which no open goal is
    reachable, as the condition: it steers concolic search towards the goals left.
    Without, only the edges the ARG proved infeasible are cut, and on loop_foo, the
    paper's own example, that cut nothing: every negation of ``x != 10`` is feasible;
    what the ARG knows is that after it ``foo`` is out of reach."""
    automaton = _snapshot(arg, f"monitor({arg.analysis})")
    return automaton if board is None else _without_done(automaton, board)


def condition_from_arg(arg: ReachabilityARG, board: Board | None = None) -> ARGAutomaton:
    """The condition of the ARG for runs on ``board`` (module docstring)."""
    return _without_done(_snapshot(arg, f"condition({arg.analysis})"), board)


def _without_done(automaton: ARGAutomaton, board: Board | None) -> ARGAutomaton:
    """``automaton`` with no transition into its done states for runs on ``board``."""
    decided = set(board.covered) | set(board.infeasible) if board is not None else set()
    automaton.open_edges = {e for moves in automaton.moves.values() for e in moves
                            if goal_of(e) is not None and goal_of(e) not in decided}
    done = {s for s in automaton.closed if not automaton.moves[s].keys() & automaton.open_edges}
    changed = True
    while changed:  # the greatest set closed under successors (loops may be done)
        changed = False
        for s in list(done):
            if any(t not in done for t in automaton.moves[s].values()):
                done.discard(s)
                changed = True
    automaton.done = done
    return automaton
