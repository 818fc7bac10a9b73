"""Coverage-driven CEGAR: the goals are the specification, every goal edge a target.

The CPA algorithm (``cpa.explore``) stops at each state reached through the edge of an
open goal. Its ARG path is replayed symbolically (``refinement.check_path``):

- feasible: the model is a test; it counts only once the native replay of
  ``ProgramUnderTest.submit`` passes through the goal (the replay also covers every other
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

from typing import Any

from cooptest.analyses.interface import AnalysisResult, Budget, ProgramUnderTest
from cooptest.analyses.reachability.arg import ARGState, ReachabilityARG
from cooptest.analyses.reachability.cpa import CPA, CallStackBound, explore
from cooptest.analyses.reachability.refinement import FEASIBLE, SPURIOUS, PathCheck, check_path
from cooptest.cfa.ir import Edge, Program


class CEGARAnalysis:
    """An analysis (the ``Analysis`` protocol) made of a CPA and a refinement.

    Subclasses give ``cpa`` and ``refine``. ``max_refinements`` bounds the refinements
    spent on one goal: an analysis whose refinements keep unrolling a loop gives the
    goal up as unknown instead of spending the whole budget on it."""

    name = "cegar"

    def __init__(self, max_depth: int = 12, max_recursion: int = 3,
                 max_refinements: int = 60) -> None:
        self.bound = CallStackBound(max_depth, max_recursion)
        self.max_refinements = max_refinements

    def cpa(self, program: Program) -> CPA:
        raise NotImplementedError

    def refine(self, program: Program, arg: ReachabilityARG, path: list[ARGState],
               check: PathCheck) -> ARGState | None:
        """Strengthen ``arg.precision`` so that ``path`` is not found again and return
        the first state of it that must be recomputed; None if nothing was learned."""
        raise NotImplementedError

    def run(self, program: ProgramUnderTest, goals: set[str], budget: Budget,
            arg: ReachabilityARG | None = None, condition: Any = None,
            precision: Any = None) -> AnalysisResult:
        cpa = self.cpa(program.program)
        if arg is None or precision is not None:
            arg = ReachabilityARG(self.name, precision if precision is not None else cpa.initial_precision())
        if condition is not None:
            arg.condition = condition
        result = AnalysisResult(arg=arg)
        edges = {program.goals[g].edge: g for g in goals if g in program.goals}
        open_goals = set(edges.values()) - set(program.covered) - set(program.infeasible) - arg.unknown
        refinements: dict[str, int] = {}

        def is_target(edge: Edge) -> bool:
            return edges.get(edge) in open_goals

        pending = [s for s in arg.states() if s.edge is not None and is_target(s.edge) and not s.checked]
        while open_goals and not budget.expired():
            target = pending.pop() if pending else explore(program.program, cpa, arg, budget,
                                                           is_target, self.bound)
            if target is None:
                break
            if target.removed or target.checked:
                continue
            target.checked = True
            goal = edges[target.edge]  # type: ignore[index]
            if goal not in open_goals:
                continue
            path = target.path()
            check = check_path(program.program, [s.edge for s in path[1:]], budget)  # type: ignore[misc]
            if check.status == FEASIBLE:
                ex = program.submit(check.inputs, origin=self.name)
                if ex.new:
                    test = program.tests[-1]
                    result.tests.append(test)
                    arg.test_coverage.append((test, set(ex.new), set(ex.covered)))
                result.covered |= ex.new
                open_goals -= ex.covered
                if goal not in ex.covered:
                    self._give_up(arg, goal, open_goals)
            elif check.status == SPURIOUS and refinements.get(goal, 0) < self.max_refinements:
                refinements[goal] = refinements.get(goal, 0) + 1
                pivot = self.refine(program.program, arg, path, check)
                if pivot is None:
                    self._give_up(arg, goal, open_goals)
                else:
                    arg.refinements += 1
                    arg.remove_subtree(pivot)
            else:
                self._give_up(arg, goal, open_goals)
        self._conclude(program, goals, arg, result)
        return result

    @staticmethod
    def _give_up(arg: ReachabilityARG, goal: str, open_goals: set[str]) -> None:
        arg.unknown.add(goal)
        open_goals.discard(goal)

    def _conclude(self, program: ProgramUnderTest, goals: set[str], arg: ReachabilityARG,
                  result: AnalysisResult) -> None:
        """A complete ARG proves every goal edge it never reached infeasible."""
        arg.complete = arg.root is not None and arg.frontier_size() == 0 and not arg.incomplete
        if not arg.complete:
            return
        reached = {s.edge for s in arg.states()}
        proof = f"{self.name}: complete ARG"
        for g in sorted(goals):
            if g in program.goals and g not in program.covered and program.goals[g].edge not in reached:
                if program.prove_infeasible(g, proof):
                    result.infeasible[g] = proof
