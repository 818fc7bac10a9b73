"""Coverage-driven CEGAR: the goals are the specification, every goal edge a target.

The CPA algorithm (``cpa.explore``) stops at each state reached through the edge of an
open goal. Its ARG path is executed symbolically (``refinement.check_path``):

- feasible: the model is a test; it counts only once the native replay of
  ``GoalBoard.submit`` passes through the goal (the replay also covers every other
  goal on its path: they are no longer targets). A replay that misses the goal means the
  symbolic model was imprecise: the goal becomes *unknown* for this analysis;
- spurious: the analysis refines its precision and names a pivot state; the subtree
  under it is removed and its parent re-explored (lazy abstraction);
- no refinement progress, or z3 gives up: unknown.

Exploration always continues past a target, so the ARG stays an over-approximation of
every execution. When the frontier is empty (and nothing made the ARG incomplete) a goal
whose edge no ARG state was reached by is infeasible: the proof is the complete ARG.
"""
from __future__ import annotations

from cooptest.analyses.reachability.arg import ARGState, ReachabilityARG
from cooptest.analyses.reachability.cpa import (AutomatonCPA, CallStackBound, CompositeCPA,
                                                ControlFlow, DataCPA, explore)
from cooptest.analyses.reachability.refinement import (FEASIBLE, PATH_CHECK_CAP, SPURIOUS, PathCheck,
                                                       check_path)
from cooptest.cfa.ir import Edge, Program
from cooptest.core.analysis import Job, Outcome, finish
from cooptest.core.board_view import Board
from cooptest.core.budget import Budget, DeadlineReached


class CEGARAnalysis:
    """An analysis (the ``Analysis`` protocol) made of a data CPA and a refinement.

    Subclasses give ``cpa`` and ``refine``. ``max_refinements`` bounds the refinements
    spent on one goal: an analysis whose refinements keep unrolling a loop gives the
    goal up as unknown instead of spending the whole budget on it.

    A job's ``condition`` and ``monitor`` become automaton components of the composite
    CPA when the ARG is created (a resumed ARG keeps its own). Neither weakens a proof
    by a complete ARG: both automata have no transition only where their analysis proved
    that nothing open is left to find (``core.automaton``; a monitor: the edge is
    infeasible; a condition: the part entered was explored completely and every goal in
    it was decided when the condition was built). A goal still open cannot be reachable
    through such a part, whose goal edges were all decided already (goals never
    reopen), so every goal edge the complete ARG did not reach is infeasible. An
    automaton from an analysis that does not keep that rule would make proofs unsound:
    only automata built by ``automata.py`` (or as carefully) may be given."""

    name = "cegar"

    def __init__(self, max_depth: int = 12, max_recursion: int = 3,
                 max_refinements: int = 60) -> None:
        self.bound = CallStackBound(max_depth, max_recursion)
        self.max_refinements = max_refinements

    def cpa(self, program: Program) -> DataCPA:
        raise NotImplementedError

    def refine(self, program: Program, arg: ReachabilityARG, path: list[ARGState],
               check: PathCheck) -> ARGState | None:
        """Strengthen ``arg.precision`` so that ``path`` is not found again and return
        the first state of it that must be recomputed; None if nothing was learned."""
        raise NotImplementedError

    def state(self, program: Program, job: Job) -> tuple[CompositeCPA, ReachabilityARG]:
        """The composite CPA and the ARG of a job: the job's ARG continued, or a new one
        (with the job's precision, condition and monitor)."""
        data = self.cpa(program)
        if isinstance(job.state, ReachabilityARG) and job.precision is None:
            arg = job.state
        else:
            guides = tuple((role, a) for role, a in (("condition", job.condition),
                                                      ("monitor", job.monitor)) if a is not None)
            arg = ReachabilityARG(self.name, precision=job.precision if job.precision is not None
                                  else data.initial_precision(), guides=guides)
        automata = tuple(AutomatonCPA(a, role) for role, a in arg.guides)
        return CompositeCPA(ControlFlow(program, self.bound), data, automata), arg

    def run(self, board: Board, job: Job) -> Outcome:
        """Test generation, the outer algorithm: CEGAR for one target after the other;
        a feasible counterexample is a test for the board, a complete ARG a proof."""
        cpa, arg = self.state(board.program, job)
        budget = job.budget
        edges = {board.goals[g].edge: g for g in job.goals if g in board.goals}
        open_goals = set(board.open(edges.values())) - arg.unknown

        def is_target(edge: Edge) -> bool:
            return edges.get(edge) in open_goals

        pending = [s for s in arg.states() if s.edge is not None and is_target(s.edge) and not s.checked]
        interrupted = False
        while open_goals and not budget.expired():
            try:
                target = pending.pop() if pending else explore(cpa, arg, budget, is_target)
                if target is None:
                    break
                if target.removed or target.checked:
                    continue
                goal = edges[target.edge]  # type: ignore[index]
                if goal not in open_goals:
                    continue
                verdict = self._cegar(board.program, arg, target, goal, budget)
            except DeadlineReached:
                interrupted = True  # the clock, not the program, stopped a step: the next run redoes it
                break
            if isinstance(verdict, str):
                self._give_up(board, arg, goal, open_goals, verdict)
            elif verdict.status == FEASIBLE:
                ex = board.submit(verdict.inputs, origin=self.name)
                open_goals -= ex.covered
                if goal not in ex.covered:
                    self._give_up(board, arg, goal, open_goals,
                                  "the test of its counterexample did not reach it natively "
                                  "(its model of the path is imprecise)")
        self._conclude(board, job.goals, arg)
        return finish(board, job, arg, interrupted)

    def _cegar(self, program: Program, arg: ReachabilityARG, target: ARGState, goal: str,
               budget: Budget) -> PathCheck | str:
        """One CEGAR step on a target: its path checked, refined away if spurious.
        The feasible check, or the spurious one that was refined; else why there is no
        verdict and no refinement (the goal is given up)."""
        path = target.path()
        check = check_path(program, [s.edge for s in path[1:]], budget)  # type: ignore[misc]
        target.checked = True
        if check.status == FEASIBLE:
            return check
        if check.status != SPURIOUS:
            return ("its symbolic check of the path to it was imprecise" if check.imprecise
                    else f"z3 answered unknown on the path to it at its {PATH_CHECK_CAP:g}-s limit")
        if arg.refinements_of.get(goal, 0) >= self.max_refinements:
            return f"it gave up after {self.max_refinements} refinements of the paths to it"
        arg.refinements_of[goal] = arg.refinements_of.get(goal, 0) + 1
        pivot = self.refine(program, arg, path, check)
        if pivot is None:
            return "its refinement found nothing new to exclude a spurious path to it"
        arg.refinements += 1
        arg.remove_subtree(pivot)
        return check

    @staticmethod
    def _give_up(board: Board, arg: ReachabilityARG, goal: str, open_goals: set[str],
                 why: str) -> None:
        """Stop targeting ``goal`` for good, and say why on the board."""
        arg.unknown.add(goal)
        open_goals.discard(goal)
        board.give_up((goal,), arg.analysis, why)

    def _conclude(self, board: Board, goals: frozenset[str], arg: ReachabilityARG) -> None:
        """A complete ARG proves every goal edge it never reached infeasible (the
        class docstring says why a condition or monitor does not change that)."""
        arg.complete = arg.root is not None and arg.frontier_size() == 0 and not arg.incomplete
        if not arg.complete:
            return
        reached = {s.edge for s in arg.states()}
        evidence = f"{self.name}: complete ARG of {arg.size()} states, {arg.precision.evidence()}"
        for g in sorted(board.open(goals)):
            if board.goals[g].edge not in reached:
                board.prove_infeasible(g, evidence)
