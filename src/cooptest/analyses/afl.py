"""Grey-box fuzzing by AFL++, the field's fuzzer, as one of cooptest's analyses.

FuSeBMC seeds its fuzzer with the tests its bounded model checker found; here AFL++ is
seeded with the board's tests, and every entry AFL++ adds to its queue (and every crash
it saves) comes back as a test: the byte harness's translator (``harness.byte_harness``)
turns the entry's bytes into the literals the program read from them, and
``GoalBoard.submit`` runs those natively, so that a goal is covered only by cooptest's
own replay, never by the fuzzer's word. Where the fuzzer wins is speed: its fork server
runs thousands of executions a second where a run of cooptest's costs a spawn, and its
CmpLog stage (``-c 0`` on a CmpLog build) copies a magic value a comparison holds into
the input, which random testing never draws.

The program's fuzzed build is linked with ``contain.c`` like every test: the fork
server confines itself before AFL++ starts it (its working directory an empty folder of
its own, not the queue's), and dies with afl-fuzz, which dies with cooptest. A run
where AFL++ cannot start (every seed hangs, the build does not compile with clang)
hands the rest of its budget to random testing, and says why.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

from cooptest.analyses.random_testing import RandomTesting
from cooptest.core.analysis import AnalysisState, Job, Outcome, finish
from cooptest.core.board_view import Board
from cooptest.core.registry import Settings
from cooptest.errors import ToolMissing, UserError
from cooptest.harness import byte_harness
from cooptest.harness.byte_harness import ByteBuilds, afl_compiler, decode, encode
from cooptest.harness.cgroups import new_cgroups, remove_cgroup
from cooptest.harness.nondet import needed_functions
from cooptest.harness.runner import ADDRESS_SPACE, PROCESSES, kill_strays, test_environment

INSTALL = "apt-get install -y afl++"
POLL = 0.2  # seconds between looks at the queue when nothing new came
EXEC_LIMIT_MS = 1000  # a fuzzer's execution beyond is a hang ("+": such seeds are skipped)
STARTUP = 10.0  # seconds afl-fuzz may take to calibrate its seeds before it must show its queue
# The seeds when the board has no test yet: zeros (the smallest values) and printable
# text (a program that reads characters parses words, not zeros)
FIRST_SEEDS = (bytes(64), bytes(range(ord(" "), ord(" ") + 64)))
PR_SET_PDEATHSIG = 1
# For a shared, containerised machine: no CPU binding (other lanes and programs run
# there), no questions about the core pattern or the CPU governor, no screen.
FUZZER_ENV = {"AFL_NO_UI": "1", "AFL_SKIP_CPUFREQ": "1", "AFL_NO_AFFINITY": "1",
              "AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES": "1", "AFL_SKIP_CRASHES": "1",
              "AFL_FAST_CAL": "1", "AFL_NO_WARN_INSTABILITY": "1", "AFL_QUIET": "1"}


def fuzzer_missing() -> str | None:
    """Why AFL++ cannot run here, or None when it can."""
    return None if afl_compiler() else f"afl-fuzz or afl-clang-fast not found; run: {INSTALL}"


@dataclass
class FuzzingState(AnalysisState):
    """The builds (made once), the queue entries already replayed, and the fuzzer's
    executions over every run."""

    builds: ByteBuilds | None = None
    replayed: set[str] = field(default_factory=set)
    executions: int = 0
    fuzzing_seconds: float = 0.0
    fallback: RandomTesting | None = None  # where AFL++ could not run


@dataclass
class AFLFuzzing:
    """Analysis "afl": see the module docstring. ``executions`` bounds each run of
    afl-fuzz (its ``-E``), for runs bound by work rather than time. Without ``cmplog``
    it runs no CmpLog stage: an instance beside another, as AFL++'s guide to several
    cores runs most of them (the stage's executions go to mutations instead)."""

    seed: int = 0
    executions: int | None = None
    name: str = "afl"
    cmplog: bool = True

    def prepare(self, board: Board) -> None:
        """The builds, made now (``byte_harness.build`` keeps them for the run); a build
        that fails fails again in ``run``, which says why and fuzzes randomly instead."""
        with contextlib.suppress(UserError):
            _build(board)

    def run(self, board: Board, job: Job) -> Outcome:
        state = job.state if isinstance(job.state, FuzzingState) else FuzzingState(self.name)
        if state.fallback is None and state.why_not is None:
            try:
                state.builds = state.builds or _build(board)
                self._fuzz(board, job, state)
            except UserError as e:
                state.why_not = f"AFL++ could not run ({e}); random testing instead"
        if state.why_not is not None and not job.budget.expired():
            state.fallback = state.fallback or RandomTesting(self.seed, self.name)
            state.fallback.run(board, job)
        return finish(board, job, state)

    def _fuzz(self, board: Board, job: Job, state: FuzzingState) -> None:
        assert state.builds is not None
        work = tempfile.mkdtemp(prefix="afl-", dir=_folder(board))
        seeds, out, scratch = (os.path.join(work, d) for d in ("seeds", "out", "scratch"))
        for d in (seeds, scratch):
            os.makedirs(d)
        _write_seeds(board, state.builds, seeds)
        cgroups = new_cgroups({"pids": PROCESSES, "memory": ADDRESS_SPACE})
        command = ["afl-fuzz", "-i", seeds, "-o", out, "-t", f"{EXEC_LIMIT_MS}+",
                   "-m", str(ADDRESS_SPACE >> 20), "-s", str(self.seed),
                   *(["-c", "0"] if self.cmplog else []),
                   *(["-E", str(self.executions)] if self.executions else []),
                   "--", state.builds.fuzzed]
        env = {**test_environment(), **FUZZER_ENV, "COOPTEST_CGROUPS": ":".join(cgroups)}
        env.pop("COOPTEST_WRITABLE", None)
        with open(os.path.join(work, "afl-fuzz.log"), "wb") as log:
            # $$ is afl-fuzz's pid once sh execs it: the fork server contain.c checks
            # its parent against it
            fuzzer = subprocess.Popen(["/bin/sh", "-c", 'COOPTEST_PARENT=$$ exec "$@"', "sh", *command],
                                      cwd=scratch, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                      stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
        started = time.monotonic()
        queues = [os.path.join(out, "default", d) for d in ("queue", "crashes")]
        failed = False  # afl-fuzz ended, or made no queue in STARTUP seconds
        try:
            while board.has_open(job.goals) and not job.budget.expired():
                alive = fuzzer.poll() is None
                if not self._harvest(board, job, state, queues) and alive:
                    failed = time.monotonic() - started > STARTUP and not os.path.isdir(queues[0])
                    if failed:
                        break
                    time.sleep(POLL)
                elif not alive:
                    self._harvest(board, job, state, queues)  # what it wrote as it ended
                    failed = not os.path.isdir(queues[0])
                    break
        finally:
            _stop(fuzzer)
            for cgroup in cgroups:
                remove_cgroup(cgroup)
        state.fuzzing_seconds += time.monotonic() - started
        ran = _executions(os.path.join(out, "default", "fuzzer_stats"))
        state.executions += ran
        board.count("fuzzer executions", ran)
        if failed:
            with open(os.path.join(work, "afl-fuzz.log"), errors="replace") as f:
                said = [ln.strip() for ln in f if "PROGRAM ABORT" in ln or "[-]" in ln]
            raise UserError(said[-1] if said else "afl-fuzz made no queue")
        shutil.rmtree(work, ignore_errors=True)

    def _harvest(self, board: Board, job: Job, state: FuzzingState, queues: list[str]) -> bool:
        """Replay the entries not replayed yet; whether there were any."""
        assert state.builds is not None
        fresh = [os.path.join(q, n) for q in queues if os.path.isdir(q)
                 for n in sorted(os.listdir(q)) if n.startswith("id:")]
        fresh = [p for p in fresh if p not in state.replayed]
        for path in fresh:
            if job.budget.expired() or not board.has_open(job.goals):
                break
            state.replayed.add(path)
            with open(path, "rb") as f:
                data = f.read()
            inputs = decode(state.builds.translator, data, board.executor.timeout)
            if inputs is not None:
                board.submit(inputs, self.name)
                board.count("fuzzer entries replayed")
        return bool(fresh)


def _folder(board: Board) -> str:
    """Where the builds and the fuzzer's folders go: beside the board's build."""
    return os.path.dirname(board.executor.binary.path)


def _build(board: Board) -> ByteBuilds:
    compiler = afl_compiler()
    if compiler is None:
        raise ToolMissing(fuzzer_missing() or INSTALL)
    sources = board.executor.preprocessed
    text = ""
    for path in sources:
        with open(path, errors="replace") as f:
            text += f.read()
    return byte_harness.build(sources, board.executor.dialects, needed_functions(text),
                              board.executor.binary.data_model,
                              os.path.join(_folder(board), "afl-build"), compiler)


def _write_seeds(board: Board, builds: ByteBuilds, folder: str) -> None:
    """The board's tests in the byte harness's layout, each once; ``FIRST_SEEDS`` if
    there are none."""
    encoded = (encode(builds.translator, t.inputs, board.executor.timeout) for t in board.tests)
    seeds = {s for s in encoded if s} or set(FIRST_SEEDS)
    for i, data in enumerate(sorted(seeds)):
        with open(os.path.join(folder, f"seed-{i}"), "wb") as f:
            f.write(data)


def _die_with_parent() -> None:
    """afl-fuzz dies with the process that started it (it is no test: contain.c is not
    in it)."""
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _stop(fuzzer: subprocess.Popen) -> None:
    """afl-fuzz ends its fork server and its run on SIGTERM; SIGKILL if it does not."""
    if fuzzer.poll() is None:
        fuzzer.terminate()
        try:
            fuzzer.wait(2)
        except subprocess.TimeoutExpired:
            fuzzer.kill()
            fuzzer.wait()
    kill_strays()


def _executions(stats: str) -> int:
    """``execs_done`` of afl-fuzz's ``fuzzer_stats`` (0 when it wrote none)."""
    try:
        with open(stats) as f:
            fields = {k.strip(): v.strip() for k, v in (ln.split(":", 1) for ln in f if ":" in ln)}
        return int(fields.get("execs_done", "0"))
    except (OSError, ValueError):
        return 0


def from_settings(settings: Settings) -> AFLFuzzing:
    missing = fuzzer_missing()
    if missing is not None:
        raise ToolMissing(missing)
    executions = settings.extra.get("fuzzer_executions")
    return AFLFuzzing(settings.seed, int(executions) if executions else None,
                      cmplog=settings.extra.get("cmplog", True))
