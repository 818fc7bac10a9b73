"""Coverage-guided random testing at native speed: the baseline every smarter analysis
must beat, and a cheap first phase that takes the easy goals.

Each round either draws a fresh input vector or mutates a test of the corpus (the tests
that covered a new goal, as in AFL): values are mostly small (they pass typical guards),
some boundaries of the integer types, some from the full range, and some the constants
the program's conditions compare with (``dictionary``, as AFL++'s auto-dictionary and
libFuzzer's ``-dict`` give a fuzzer the tokens a parser looks for: ``c == '['`` is one
draw in 256 for a random byte). A run that stops because
the inputs ran out (the harness exits with code 1 after the program read them all)
makes vectors longer. Only native
replays through ``GoalBoard.submit`` cover goals; random testing never claims a
goal infeasible.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from cooptest.cfa.ir import COMPARE_OPS, AssumeEdge, Binary, Const, NondetEdge, Program
from cooptest.core.analysis import AnalysisState, Job, Outcome, finish
from cooptest.core.board_view import Board
from cooptest.core.registry import Settings
from cooptest.harness.executor import MAX_INPUTS, starved

BOUNDARIES = (0, 1, -1, 2, 127, 128, 255, 256, -128, 32767, -32768, 65535,
              2147483647, -2147483648, 4294967295)
FLOAT_KINDS = {"float", "double"}
MUTATE = 0.5  # probability of mutating a corpus test rather than drawing a fresh one
DICTIONARY = 0.2  # probability of a value from the program's comparisons (or one beside it)


@dataclass
class InputSource:
    """Draws input literals; floats only when the program reads floats (an integer
    reader aborts on ``1.5``, while a float reader accepts ``3``)."""

    rng: random.Random
    float_share: float = 0.0
    dictionary: tuple[int, ...] = ()

    def value(self) -> str:
        r = self.rng.random()
        if self.dictionary and self.rng.random() < DICTIONARY:
            return str(self.rng.choice(self.dictionary) + self.rng.choice((0, 0, -1, 1)))
        if self.float_share and self.rng.random() < self.float_share / 2:
            return repr(self.rng.choice([0.5, -0.5, 1e-7, 1e7, 3.25, -1e30]) if r < 0.5
                        else round(self.rng.uniform(-1000, 1000), 3))
        if r < 0.55:
            return str(self.rng.randint(-10, 10))
        if r < 0.8:
            return str(self.rng.choice(BOUNDARIES))
        if r < 0.9:
            return str(self.rng.randint(-1000, 1000))
        return str(self.rng.randint(-(2 ** 31), 2 ** 31 - 1))

    def vector(self, length: int) -> list[str]:
        return [self.value() for _ in range(length)]


def float_share(board: Board) -> float:
    """The share of the program's input reads that read a floating-point value."""
    kinds = [e.kind for e in board.program.edges() if isinstance(e, NondetEdge)]
    return sum(k in FLOAT_KINDS for k in kinds) / len(kinds) if kinds else 0.0


def dictionary(program: Program) -> tuple[int, ...]:
    """The integer constants the program's branch conditions compare with, other than
    the small values random testing draws often anyway."""
    found: set[int] = set()
    for e in program.edges():
        if isinstance(e, AssumeEdge) and e.branch is not None:
            for x in e.cond.walk():
                if isinstance(x, Binary) and x.op in COMPARE_OPS:
                    found.update(c.value for c in (x.left, x.right)
                                 if isinstance(c, Const) and isinstance(c.value, int) and abs(c.value) > 10)
    return tuple(sorted(found))


@dataclass
class RandomState(AnalysisState):
    """All random testing knows: its RNG (so that a state run again continues one
    random sequence), the corpus of tests that covered something new, the length of
    fresh vectors, and what it draws from (the program's, found by its first run)."""

    rng: random.Random = field(default_factory=random.Random)
    corpus: list[list[str]] = field(default_factory=list)
    length: int = 8  # inputs per fresh vector; doubles while runs end for lack of inputs
    float_share: float | None = None
    dictionary: tuple[int, ...] = ()


@dataclass
class RandomTesting:
    """Analysis "random": see the module docstring."""

    rng_seed: int = 0
    name: str = "random"

    def run(self, board: Board, job: Job) -> Outcome:
        state = job.state if isinstance(job.state, RandomState) else \
            RandomState(self.name, rng=random.Random(self.rng_seed))
        rng = state.rng
        if state.float_share is None:
            state.float_share, state.dictionary = float_share(board), dictionary(board.program)
        source = InputSource(rng, state.float_share, state.dictionary)
        state.corpus.extend(t.inputs for t in board.tests if t.inputs not in state.corpus)
        while not job.budget.expired() and board.has_open(job.goals):
            if state.corpus and rng.random() < MUTATE:
                inputs = mutate(rng.choice(state.corpus), source, state.length)
            else:
                inputs = source.vector(state.length)
            ex = board.submit(inputs, self.name)
            board.count("iterations")
            if ex.new:
                state.corpus.append(inputs)
            if starved(ex) and len(inputs) >= state.length \
                    and state.length < MAX_INPUTS:
                state.length *= 2
        return finish(board, job, state)


def mutate(parent: list[str], source: InputSource, length: int) -> list[str]:
    """A few positions of ``parent`` redrawn, and sometimes a longer tail."""
    child = list(parent)
    for _ in range(source.rng.randint(1, 3)):
        if child:
            child[source.rng.randrange(len(child))] = source.value()
    if source.rng.random() < 0.3 or len(child) < length // 2:
        child += source.vector(max(1, len(child)))
    return child[:MAX_INPUTS]


def from_settings(settings: Settings) -> RandomTesting:
    return RandomTesting(rng_seed=settings.seed)
