"""Untrusted programs: whatever a test starts dies with it, and its branch trace reaches
cooptest whatever the program does to its working directory or descriptors."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from cooptest.core.board import GoalBoard
from cooptest.frontend import load_program
from cooptest.harness.cgroups import alive, cgroup_roots, orphans, remove_orphans
from cooptest.harness.executor import Executor
from cooptest.task import load_task

BRANCHES = """
int main() { int x = __VERIFIER_nondet_int(); %s
  if (x > 0) { if (x == 5) return 1; return 2; } return 0; }
"""
HEAD = """extern int __VERIFIER_nondet_int(void);
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
"""
FORK = "if (fork() == 0) { close(0); close(1); close(2); %s sleep(30); _exit(0); }"
HOSTILE = {
    "fork-sleep": FORK % "",
    "fork-setsid": FORK % "setsid();",
    "daemon": FORK % "setsid(); if (fork() != 0) _exit(0);",
    "fork-keeps-stdout": "if (fork() == 0) { sleep(30); _exit(0); }",
    "unlink-trace": 'unlink("trace.bin");',
    "close-fds": "for (int fd = 3; fd < 1024; fd++) close(fd);",
    "own-trace": 'FILE *f = fopen("trace.bin", "w"); for (int i = 0; i < 99; i++) '
                 'fwrite(&i, 4, 1, f); fclose(f);',
    "mkdir-trace": 'mkdir("trace.bin", 0700);',
}


def running(binary: str) -> list[int]:
    """Processes (not zombies) running ``binary``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{pid}/exe").startswith(binary) and alive(int(pid)):
                found.append(int(pid))
        except OSError:
            continue
    return found


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_test_leaves_nothing_running_and_its_coverage_intact(tmp_path, name):
    path = tmp_path / f"{name}.c"
    source = HEAD + BRANCHES % HOSTILE[name]
    path.write_text(source)
    line = next(i for i, t in enumerate(source.splitlines(), 1) if "x > 0" in t)
    frontend = load_program(load_task(str(path)), str(tmp_path / "work"))
    put = GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "work")))
    started = time.monotonic()
    for x in ("5", "3", "0"):
        put.submit([x], "test")
    assert time.monotonic() - started < 3, "a run ends when its process exits"
    mine = {g.id for g in put.goals.values() if g.line == line}
    assert len(mine) == 4 and mine <= set(put.covered)
    assert running(put.executor.binary.path) == []


def test_a_fork_bomb_is_capped_and_leaves_nothing_running(tmp_path):
    """A test may start ``PROCESSES`` processes, a test of root's too (RLIMIT_NPROC does
    not bind root: ``cgroups.py``); the program sees the next fork fail. Its cgroups are
    gone once its executable is closed."""
    from cooptest.harness.runner import PROCESSES
    if os.getuid() == 0 and "pids" not in cgroup_roots():
        pytest.skip("root without a cgroup-v1 pids hierarchy: tests are not capped")
    put = board_of(tmp_path, f"""
      for (int i = 0; i < {2 * PROCESSES}; i++) {{
        pid_t p = fork(); if (p == 0) {{ pause(); _exit(0); }}
        if (p < 0)
          return 1;
      }}""")
    put.submit(["0"], "test")
    assert taken(put, "if (p < 0)"), "a fork failed"
    assert running(put.executor.binary.path) == []
    cgroups = put.executor.binary._cgroups
    put.executor.close()
    assert not any(os.path.exists(c) for c in cgroups)


def test_the_memory_of_all_processes_of_a_test_is_capped(tmp_path):
    """Each process of a test may map 2 GB (RLIMIT_AS); all of them together, for root,
    2 GB too (``cgroups.py``): one of three children touching 900 MB each is killed."""
    if "memory" not in cgroup_roots():
        pytest.skip("not root, or no cgroup-v1 memory hierarchy: only each process is capped")
    put = board_of(tmp_path, """
      int killed = 0, status;
      for (int i = 0; i < 3; i++)
        if (fork() == 0) { char *m = malloc(900 << 20); if (m) memset(m, 1, 900 << 20);
                           usleep(200000); _exit(0); }
      while (wait(&status) > 0) killed |= WIFSIGNALED(status);
      if (killed)
        return 1;""")
    put.executor.timeout = 20  # touching gigabytes takes seconds on a loaded machine
    put.submit(["0"], "test")
    assert taken(put, "if (killed)"), "a child was killed"


def test_a_test_of_roots_holds_no_capability(tmp_path):
    """Root's tests drop every capability (``contain.c``): no rebooting the machine, no
    raising a hard limit; and none comes back with an execve (a shell started by the
    test, root's too, holds none)."""
    if os.getuid() != 0:
        pytest.skip("not root: tests hold no capability anyway")
    put = board_of(tmp_path, r"""
      char line[256]; int held = 0;
      FILE *f = fopen("/proc/self/status", "r");
      while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "Cap", 3) && strncmp(line, "CapBnd", 6)
            && strcmp(strchr(line, ':'), ":\t0000000000000000\n"))
          held = 1;
      struct rlimit core = {1, 1};
      if (setrlimit(RLIMIT_CORE, &core) == 0)
        held = 1;
      if (system("grep -q '^CapEff:.0000000000000000$' /proc/self/status") != 0)
        held = 1;
      if (held == 0)
        return 1;""")
    put.submit(["0"], "test")
    assert taken(put, "if (held == 0)"), "no capability in the test, nor after an execve"


def board_of(tmp_path, statements: str) -> GoalBoard:
    """The board of a program that runs ``statements`` after reading an input."""
    path = tmp_path / "prog.c"
    path.write_text(HEAD + "#include <stdlib.h>\n#include <string.h>\n#include <sys/resource.h>\n"
                    "#include <sys/wait.h>\n"
                    "int main() { int x = __VERIFIER_nondet_int();\n" + statements + "\n  return 0; }\n")
    frontend = load_program(load_task(str(path)), str(tmp_path / "work"))
    return GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "work")))


def taken(board: GoalBoard, condition: str) -> bool:
    """Whether a test took the true branch of the line holding ``condition`` (one
    without a negation, which the CFA may branch on with its outcomes swapped)."""
    with open(board.program.path) as f:
        line = next(i for i, t in enumerate(f.read().splitlines(), 1) if condition in t)
    true, = [g.id for g in board.goals.values() if g.line == line and g.id.endswith("T")]
    return true in board.covered


def helpers_of(marker: str) -> list[int]:
    """Live processes whose command line names ``marker`` (cooptest and its forks)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read() and alive(int(pid)):
                    found.append(int(pid))
        except OSError:
            continue
    return found


@pytest.mark.parametrize("strategy", ["random", "auto"])
def test_a_sigkilled_cooptest_leaves_no_test_and_no_helper_running(tmp_path, strategy):
    """Neither the tests nor cooptest's own helpers (lane workers of the portfolio, the
    builder of the coverage meter) outlive a SIGKILLed run. (The tests are built in the
    run's folder, in OUT: ``core.lifetime``.)"""
    path = tmp_path / "sleepy.c"
    path.write_text(HEAD + BRANCHES % (FORK % "setsid();" + " sleep(2);"))
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    out = str(tmp_path / "out")
    proc = subprocess.Popen([sys.executable, "-m", "cooptest.cli", "generate", str(path),
                             "--budget", "20", "--out", out, "--quiet",
                             "--strategy", strategy], env={**os.environ, "TMPDIR": str(tmp)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not running(out) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert running(out), "a test was started"
    assert len(helpers_of(out)) > 1, "cooptest forked its helpers"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    time.sleep(0.5)
    assert running(out) == []
    assert helpers_of(out) == []
    if cgroup_roots():  # root: the run's cgroups are left, with no process
        assert orphans(), "the test that was started had a cgroup"
        remove_orphans()  # as the next cooptest does
        assert orphans() == []


def test_the_tests_of_a_killed_worker_are_reaped(tmp_path):
    """At the deadline cooptest kills its workers (the lanes, the coverage meter), maybe
    while a test runs: the test and what it started die with the worker, and are left
    to cooptest, their subreaper, which reaps them (``kill_strays``, at the end of a
    run). Their zombies would otherwise hold the test's cgroups (for root) until init
    reaped them, after cooptest."""
    import multiprocessing
    from cooptest.harness.runner import kill_strays
    put = board_of(tmp_path, "for (int i = 0; i < 10; i++) if (fork() == 0) { pause(); _exit(0); } sleep(30);")
    put.executor.run(["1"])  # cooptest (here: pytest) is now the tests' subreaper
    worker = multiprocessing.get_context("fork").Process(target=put.executor.run, args=(["0"],))
    worker.start()
    deadline = time.monotonic() + 10
    while len(running(put.executor.binary.path)) < 11 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(running(put.executor.binary.path)) == 11, "the test and its ten children run"
    worker.kill()
    worker.join()
    time.sleep(0.2)
    assert present(put.executor.binary.path), "their zombies wait for a reaper"
    kill_strays()
    assert not present(put.executor.binary.path)


def present(binary: str) -> list[int]:
    """Processes of ``binary``, zombies included (known by their name)."""
    name = os.path.basename(binary)[:15]
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().split("(", 1)[1].rsplit(")", 1)[0] == name:
                    found.append(int(pid))
        except (OSError, IndexError):
            continue
    return found


def test_a_run_ends_by_the_budget_and_a_cut_run_covers_nothing(tmp_path):
    """A test that runs for seconds cannot carry an analysis past its budget; what a run
    cut short did is not coverage (TestCov would not count it either)."""
    from cooptest.core.budget import Budget
    path = tmp_path / "slow.c"
    path.write_text(HEAD + "int main() { int x = __VERIFIER_nondet_int();\n"
                    "  if (x > 0) sleep(2);\n  if (x == 5) return 1;\n  return 0; }\n")
    frontend = load_program(load_task(str(path)), str(tmp_path / "work"))
    executor = Executor(frontend, str(tmp_path / "work"))
    executor.budget = Budget.seconds(0.5)
    started = time.monotonic()
    cut = executor.run(["5"])
    assert time.monotonic() - started < 1.5
    assert cut.timed_out and not cut.covered
    executor.budget = Budget.seconds(10)
    full = executor.run(["5"])
    assert not full.timed_out and len(full.covered) == 2


ESCAPES = {  # what a test tries outside its directory -> (C statements, Landlock ABI needed or
    # None: the seccomp filter)
    "create-a-file": ('FILE *f = fopen("OUTSIDE/new", "w"); if (f) { fputs("x", f); fclose(f); }', 1),
    "overwrite-a-file": ('FILE *f = fopen("OUTSIDE/kept", "w"); if (f) fclose(f);', 1),
    "remove-a-file": ('unlink("OUTSIDE/kept");', 1),
    "rename-a-file": ('rename("OUTSIDE/kept", "mine");', 2),
    "make-a-directory": ('mkdir("OUTSIDE/dir", 0700);', 1),
    "connect-tcp": ('int s = socket(AF_INET, SOCK_STREAM, 0); struct sockaddr_in a = {0}; '
                    'a.sin_family = AF_INET; a.sin_port = htons(PORT); '
                    'a.sin_addr.s_addr = htonl(0x7f000001); connect(s, (void *)&a, sizeof a);', 4),
    "signal-a-process": ("kill(VICTIM, SIGKILL);", 6),
    # no socket at all (seccomp): Landlock leaves UDP and named unix sockets open
    "send-udp": ('int s = socket(AF_INET, SOCK_DGRAM, 0); struct sockaddr_in a = {0}; '
                 'a.sin_family = AF_INET; a.sin_port = htons(UDP); '
                 'a.sin_addr.s_addr = htonl(0x7f000001); sendto(s, "x", 1, 0, (void *)&a, sizeof a);', None),
    # i386's socket(2) through int 0x80 from a 64-bit test: the stub's bytes are
    # push rbx; mov eax, 359; mov ebx, edi; mov ecx, esi; int 0x80; pop rbx; ret
    "socket-through-int-0x80": ('static const unsigned char stub[] = {0x53, 0xb8, 0x67, 0x01, 0, 0, '
                                '0x89, 0xfb, 0x89, 0xf1, 0xcd, 0x80, 0x5b, 0xc3}; '
                                'void *page = mmap(0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, '
                                'MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); memcpy(page, stub, sizeof stub); '
                                'int s = ((int (*)(int, int, int))page)(AF_INET, SOCK_DGRAM, 0); '
                                'struct sockaddr_in a = {0}; a.sin_family = AF_INET; '
                                'a.sin_port = htons(UDP); a.sin_addr.s_addr = htonl(0x7f000001); '
                                'sendto(s, "x", 1, 0, (void *)&a, sizeof a);', None),
    "connect-unix": ('int s = socket(AF_UNIX, SOCK_STREAM, 0); struct sockaddr_un a = {0}; '
                     'a.sun_family = AF_UNIX; strcpy(a.sun_path, "SERVICE"); '
                     'connect(s, (void *)&a, sizeof a);', None),
}


@pytest.mark.parametrize("model", ["LP64", "ILP32"])
@pytest.mark.parametrize("name", sorted(ESCAPES))
def test_a_test_changes_nothing_outside_its_directory(tmp_path, name, model):
    """The program under test is untrusted: it may do anything in its working directory
    and nothing outside (``contain.c``), in a 64-bit build or a 32-bit one (whose
    system calls are numbered otherwise); and its own goals are still covered."""
    import socket
    from cooptest.harness.runner import landlock_abi, seccomp_filters
    statements, abi = ESCAPES[name]
    if abi is None and not seccomp_filters():
        pytest.skip("no seccomp filter here (not x86, or a kernel without seccomp)")
    if abi is not None and landlock_abi() < abi:
        pytest.skip(f"the kernel's Landlock ABI {landlock_abi()} is older than {abi}")
    if name == "socket-through-int-0x80" and model == "ILP32":
        pytest.skip("the stub is x86-64 code; a 32-bit test's own socket(2) is send-udp's")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "kept").write_text("mine")
    listener = socket.create_server(("127.0.0.1", 0))
    datagrams = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    datagrams.bind(("127.0.0.1", 0))
    service = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    service.bind(str(tmp_path / "service"))
    service.listen()
    for s in (listener, datagrams, service):
        s.setblocking(False)
    victim = subprocess.Popen(["sleep", "30"])
    try:
        code = (statements.replace("OUTSIDE", str(outside))
                .replace("PORT", str(listener.getsockname()[1]))
                .replace("UDP", str(datagrams.getsockname()[1]))
                .replace("SERVICE", str(tmp_path / "service")).replace("VICTIM", str(victim.pid)))
        path = tmp_path / f"{name}.c"
        path.write_text(HEAD + "#include <signal.h>\n#include <string.h>\n#include <arpa/inet.h>\n"
                        "#include <sys/mman.h>\n#include <sys/socket.h>\n#include <sys/un.h>\n"
                        + BRANCHES % ("if (x > 0) { " + code + " }"))
        task = tmp_path / "task.yml"
        task.write_text(f"format_version: '2.0'\ninput_files: '{path.name}'\n"
                        f"options:\n  language: C\n  data_model: {model}\n")
        frontend = load_program(load_task(str(task)), str(tmp_path / "work"))
        put = GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "work")))
        for x in ("5", "3", "0"):
            put.submit([x], "test")
        assert sorted(p.name for p in outside.iterdir()) == ["kept"]
        assert (outside / "kept").read_text() == "mine"
        for unreached in (listener.accept, service.accept, lambda: datagrams.recv(1)):
            with pytest.raises(BlockingIOError):
                unreached()
        assert victim.poll() is None, "the process outside was not signalled"
        line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if "x == 5" in t)
        assert {g.id for g in put.goals.values() if g.line == line} <= set(put.covered)
    finally:
        victim.kill()
        victim.wait()
        for s in (listener, datagrams, service):
            s.close()


PRLIMIT = r"""
  struct { unsigned long long cur, max; } mine, lowered;
  if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, &mine) == 0 &&
      syscall(SYS_prlimit64, getpid(), RLIMIT_NOFILE, &mine, 0) == 0)
    x = x + 1; /* MINE */
  lowered.cur = mine.cur - 1;
  lowered.max = mine.max;
  if (syscall(SYS_prlimit64, getppid(), RLIMIT_NOFILE, &lowered, 0) == 0)
    x = x + 2; /* PARENT'S */
"""


@pytest.mark.parametrize("model", ["LP64", "ILP32"])
def test_a_test_cannot_change_the_limits_of_cooptest(tmp_path, model):
    """prlimit(2) on its parent (cooptest, of the same user) lowered cooptest's own
    RLIMIT_NOFILE (to 5, in the probe: the run ended at once, with no test). The seccomp
    filter of ``contain.c`` denies it for any pid but 0 and the test's own, in a 64-bit
    build and a 32-bit one (prlimit64 is 302 there, 340 here); the test's own limits
    stay its to change. Here the parent is this process, which the test tries to lower
    by one file descriptor."""
    import resource
    from cooptest.harness.runner import seccomp_filters
    if not seccomp_filters():
        pytest.skip("no seccomp filter here (not x86, or a kernel without seccomp)")
    path = tmp_path / "prlimit.c"
    path.write_text(HEAD + "#include <sys/resource.h>\n#include <sys/syscall.h>\n"
                    + BRANCHES % PRLIMIT)
    task = tmp_path / "task.yml"
    task.write_text(f"format_version: '2.0'\ninput_files: '{path.name}'\n"
                    f"options:\n  language: C\n  data_model: {model}\n")
    frontend = load_program(load_task(str(task)), str(tmp_path / "work"))
    put = GoalBoard(frontend.program, Executor(frontend, str(tmp_path / "work")))
    before = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        put.submit(["0"], "test")
        assert resource.getrlimit(resource.RLIMIT_NOFILE) == before, "the test changed ours"
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, before)  # what a test lowered, back
    assert not taken(put, "SYS_prlimit64, getppid()"), "prlimit64 on the parent succeeded"
    assert taken(put, "SYS_prlimit64, getpid()"), "its own limits are the test's"
