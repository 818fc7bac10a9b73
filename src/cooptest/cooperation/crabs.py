"""Crabs (Daca, Gupta & Henzinger, VMCAI 2016): concolic testing steered by model
checking, through monitors made of ARGs.

Concolic testing has a local view: it negates one decision at a time and cannot know
that only one input pattern in 2^30 reaches a goal. Predicate CEGAR knows which paths
can, and says so in its ARG. Crabs alternates the two (Alg. 3):

    monitors := []
    while open goals and budget left:
        concolic testing on  program × monitor_1 × ... × monitor_k   for t_c
        coverage-driven predicate CEGAR on the open goals             for t_m
            (its ARG and predicates kept across rounds: tests from feasible
             counterexamples, proofs from a complete ARG)
        monitors += [MonitorFromARG(ARG)]

``MonitorFromARG`` reads the ARG as an automaton over CFA edges (``core.automaton``):
a path of the program that leaves it is infeasible by the ARG's proof, so concolic search
never negates into it; the frontier of a partial ARG stays permissive (TOP), so a
monitor never forbids a feasible path. Monitors of lazy abstraction need not refine each
other, hence the product with every earlier one. Each round starts a fresh execution
tree over the product, whose first paths are the tests already on the board.

Concolic testing runs *on the product program*, as in Alg. 3: the goals are lifted to
the product (each open goal has a copy on every product edge of its CFA edge; covering
one covers the goal), and CREST's CFG search measures its distances in the product
(``searchers.product.ProductDistances``): a way to a goal the ARG proved infeasible
does not count, where on the program's CFA it made a negation look close.

The testing share t_c / (t_c + t_m) is a parameter (the paper's default: about 80%).
Its concolic search is CREST's CFG search line for line (``crest-cfg``), as the paper
ran CREST's, unless ``--search`` names another (``registry.STRATEGIES``; ``cfg``, the
selection rule of our own, also measures in the product).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from cooptest.core.analysis import AnalysisState, Job, Outcome, finish
from cooptest.core.automaton import EdgeAutomaton, Product
from cooptest.core.board_view import Board, Labelled
from cooptest.core.registry import Settings, make_analysis

DEFAULT_SHARE = 0.8
ROUNDS = 5  # rounds the budget is split into (each at least MIN_ROUND seconds)
MIN_ROUND = 2.0


@dataclass
class CrabsState(AnalysisState):
    arg: AnalysisState | None = None  # the predicate analysis's ARG, kept across rounds
    monitors: list[EdgeAutomaton] = field(default_factory=list)
    round: int = 0


class Crabs:
    name = "crabs"

    def __init__(self, settings: Settings, testing_share: float = DEFAULT_SHARE,
                 monitors: bool = True) -> None:
        self.concolic = make_analysis("concolic", settings)
        self.predicate = make_analysis("predicate", settings)
        self.share = testing_share
        self.use_monitors = monitors  # off: plain alternation, the paper's baseline
        self.rounds = int(settings.extra.get("rounds") or ROUNDS)

    def run(self, board: Board, job: Job) -> Outcome:
        state = job.state if isinstance(job.state, CrabsState) else CrabsState(self.name)
        if self.share >= 1 or self.share <= 0:  # no alternation: one analysis alone
            alone = self.concolic if self.share >= 1 else self.predicate
            outcome = alone.run(board, replace(job, state=None))
            state.complete = outcome.state.complete
            return finish(board, job, state, interrupted=outcome.unfinished)
        length = max(MIN_ROUND, job.budget.remaining() / self.rounds)
        while board.has_open(job.goals) and not job.budget.expired():
            state.round += 1
            round_board = Labelled(board, f"round {state.round}")
            monitor = Product(tuple(state.monitors)) if state.monitors else None
            self.concolic.run(round_board, Job(board.open(job.goals),
                                               job.budget.child(self.share * length), monitor=monitor))
            if board.has_open(job.goals):
                outcome = self.predicate.run(round_board, Job(board.open(job.goals),
                                                              job.budget.child((1 - self.share) * length),
                                                              state=state.arg))
                state.arg = outcome.state
                if outcome.state.complete:
                    state.complete = True
                    break
                if self.use_monitors:
                    state.monitors.append(state.arg.monitor(board))  # type: ignore[attr-defined]
        return finish(board, job, state)


def from_settings(settings: Settings) -> Crabs:
    share = settings.extra.get("testing_share")
    return Crabs(settings, DEFAULT_SHARE if share is None else float(share),
                 monitors=not settings.extra.get("no_monitor"))
