"""Screenshots of report.html as a user meets it (issue 44): the examples, a kbfiltr dev
task whose every run crashes, one with open goals, and a program of several files, in
headless Chromium, with the machine's load while each run ran.

    python benchmarks/report_screenshots.py OUT [--label after] [--src DIR] [--budget 30]
                                                [--figures]

``--src`` runs another revision's cooptest (its ``src`` folder, e.g. one ``git archive``
unpacked): ``before`` and ``after`` pages of the same programs. Each program gets three
shots: the top of the page (summary, plot, functions, analyses), the source view showing
the lines with open goals, and the summary with the table of goals (proofs, why each open
goal is open) and the tests (where one crashes); ``--figures`` copies those of
``FIGURES`` to benchmarks/figures/ as ``report-LABEL-PROGRAM-SHOT.png``, in 256 colours
(a third of the size). OUT/LABEL/runs.json records each run's summary
line, wall time and the load average before and after it (a 2-core machine shared with
other work: a run's figures depend on it).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEV = REPO.parent / "shared" / "benchmarks" / "testcomp"
PROGRAMS = {
    "triangle": [str(REPO / "examples" / "triangle.c")],
    "guarded": [str(REPO / "examples" / "guarded.c")],
    "kbfiltr-1": [str(DEV / "ntdrivers" / "kbfiltr.i.cil-1.yml")],
    "kbfiltr-2": [str(DEV / "ntdrivers" / "kbfiltr.i.cil-2.yml")],
    "multifile": ["--compile-commands", str(REPO / "tests" / "data" / "multifile" / "compile_commands.json")],
}
CHROMIUM = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--hide-scrollbars"]
# Each shot: a copy of the page with what it shows alone (other sections hidden; a
# fragment's scroll leaves headless Chromium's shot blank) and the window's size.
ONLY = "<style>body > section:not({keep}) {{ display: none; }}</style>"
SHOTS = {
    "top": ("", "1280,1500"),  # summary, plot, functions, analyses
    "open": (ONLY.format(keep="#source") + "<script>document.querySelector("
             "'input[value=unknown]').click();</script>", "1280,1100"),  # the lines with open goals
    "goals": (ONLY.format(keep="#goals, #tests, #summary"), "1280,1500"),  # why open; crashes
}


FIGURES = {("triangle", "top"), ("guarded", "goals"), ("kbfiltr-1", "goals"), ("kbfiltr-2", "open"),
           ("kbfiltr-2", "goals"), ("multifile", "top"), ("multifile", "goals")}


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def shoot(page: Path, png: Path, added: str, size: str, profile: Path) -> None:
    copy = png.with_suffix(".html")
    copy.write_text(page.read_text().replace("</body>", added + "</body>", 1))
    subprocess.run([*CHROMIUM, f"--user-data-dir={profile}", f"--window-size={size}",
                    f"--screenshot={png}", copy.as_uri()],
                   capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL, check=True)
    copy.unlink()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--label", default="after")
    ap.add_argument("--src", type=Path, default=REPO / "src")
    ap.add_argument("--budget", default="30")
    ap.add_argument("--figures", action="store_true")
    ap.add_argument("--only", nargs="*", default=list(PROGRAMS))
    args = ap.parse_args()
    folder = args.out / args.label
    folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(args.src.resolve())}
    runs = {}
    for name in args.only:
        out = folder / name
        shutil.rmtree(out, ignore_errors=True)
        before, started = load(), time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "cooptest.cli", "generate", *PROGRAMS[name],
                               "--budget", args.budget, "--out", str(out), "--seed", "1", "--quiet"],
                              capture_output=True, text=True, env=env, cwd=REPO, timeout=600,
                              stdin=subprocess.DEVNULL)
        wall, after = round(time.monotonic() - started, 1), load()
        runs[name] = {"exit": proc.returncode, "wall_s": wall, "load_before": before,
                      "load_after": after, "said": proc.stderr.strip().splitlines()[-1:]}
        print(name, runs[name], flush=True)
        page = out / "report.html"
        if not page.exists():
            continue
        for shot, (added, size) in SHOTS.items():
            png = folder / f"report-{args.label}-{name}-{shot}.png"
            shoot(page, png, added, size, folder / "profile")
            if args.figures and (name, shot) in FIGURES:
                from PIL import Image
                shrunk = Image.open(png).convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE)
                shrunk.save(REPO / "benchmarks" / "figures" / png.name, optimize=True)
    (folder / "runs.json").write_text(json.dumps(runs, indent=1))


if __name__ == "__main__":
    main()
