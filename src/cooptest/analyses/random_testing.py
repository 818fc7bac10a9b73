"""Coverage-guided random testing at native speed: the baseline every smarter analysis
must beat, and a cheap first phase that takes the easy goals.

Each round either draws a fresh input vector or mutates a test of the corpus (the tests
that covered a new goal, as in AFL): values are mostly small (they pass typical guards),
some boundaries of the integer types, some from the full range. A run that stops because
the inputs ran out (the harness exits with code 1) makes vectors longer. Only native
replays through ``ProgramUnderTest.submit`` cover goals; random testing never claims a
goal infeasible.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from cooptest.analyses.interface import ARG, AnalysisResult, Budget, ProgramUnderTest
from cooptest.cfa.ir import NondetEdge

BOUNDARIES = (0, 1, -1, 2, 127, 128, 255, 256, -128, 32767, -32768, 65535,
              2147483647, -2147483648, 4294967295)
FLOAT_KINDS = {"float", "double"}
EXIT_NO_MORE_INPUTS = 1  # the nondet harness's exit code when inputs run out
MAX_LENGTH = 1 << 18  # enough for the 2 x 100000 reads of array benchmarks
MUTATE = 0.5  # probability of mutating a corpus test rather than drawing a fresh one


@dataclass
class InputSource:
    """Draws input literals; floats only when the program reads floats (an integer
    reader aborts on ``1.5``, while a float reader accepts ``3``)."""

    rng: random.Random
    float_share: float = 0.0

    def value(self) -> str:
        r = self.rng.random()
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


def float_share(put: ProgramUnderTest) -> float:
    """The share of the program's input reads that read a floating-point value."""
    kinds = [e.kind for e in put.program.edges() if isinstance(e, NondetEdge)]
    return sum(k in FLOAT_KINDS for k in kinds) / len(kinds) if kinds else 0.0


@dataclass
class RandomTesting:
    """Analysis "random": see the module docstring."""

    rng_seed: int = 0
    name: str = "random"
    length: int = 8  # inputs per fresh vector; doubles while runs end for lack of inputs
    corpus: list[list[str]] = field(default_factory=list)

    def run(self, program: ProgramUnderTest, goals: set[str], budget: Budget,
            arg: ARG | None = None, condition: object = None,
            precision: object = None) -> AnalysisResult:
        rng = random.Random(self.rng_seed)
        source = InputSource(rng, float_share(program))
        covered_before, tests_before = set(program.covered), len(program.tests)
        self.corpus.extend(t.inputs for t in program.tests if t.inputs not in self.corpus)
        while not budget.expired() and goals - program.covered.keys() - program.infeasible.keys():
            if self.corpus and rng.random() < MUTATE:
                inputs = self.mutate(rng.choice(self.corpus), source)
            else:
                inputs = source.vector(self.length)
            ex = program.submit(inputs, self.name)
            program.count("iterations")
            if ex.new:
                self.corpus.append(inputs)
            if (ex.exit_code == EXIT_NO_MORE_INPUTS and not ex.error_reached
                    and len(inputs) >= self.length and self.length < MAX_LENGTH):
                self.length *= 2
        return AnalysisResult(tests=program.tests[tests_before:],
                              covered=set(program.covered) - covered_before,
                              arg=ARG(self.name))

    def mutate(self, parent: list[str], source: InputSource) -> list[str]:
        """A few positions of ``parent`` redrawn, and sometimes a longer tail."""
        child = list(parent)
        for _ in range(source.rng.randint(1, 3)):
            if child:
                child[source.rng.randrange(len(child))] = source.value()
        if source.rng.random() < 0.3 or len(child) < self.length // 2:
            child += source.vector(max(1, len(child)))
        return child[:MAX_LENGTH]
