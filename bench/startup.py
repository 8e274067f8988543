"""How long `tactical` takes to show its first screen (issue 16 point 1).

    python bench/startup.py [--runs 7] [--quick] [--verify] [--no-bytecode] [--until refresh]

Starts, each in a fresh `python -c` subprocess, (a) a bare Textual app — a `Static` and
a `Footer` — and (b) TACTICAL's app as `tactical --lang en` builds it (`tactical_tui.cli`
imported, its arguments parsed, `TacticalApp(...)` with the shipped card data, as
`cli.main` does), both headless at 80×24, and stops
each one right after the first paint of its first screen: for TACTICAL, the first paint
of the title screen (the first `App._display` of a `TitleScreen` — the frame a terminal
would show). The two alternate (bare, tactical, bare, tactical, …) so that a machine's
changing load falls on both alike; the bench prints each run, then the medians of the
wall time from process start to exit (`time.perf_counter` around the subprocess), their
ratio, the CPU time (user + system: less at the mercy of other processes than the wall
time) and the peak RSS of each (the child's own rusage, from `os.wait4`).

`--quick` times `tactical --quick` instead, to the first paint of the draft screen: the
rules, the AI and the card data loaded and a game dealt (what the title screen defers).

`--verify` prints the first frame each child painted (the bench's check that it stops
at the title screen's first paint, with the menu on it).

The user folders (XDG_DATA_HOME, XDG_CACHE_HOME) point to a fresh temporary folder, so
the save and cache folders are found as in a real start and nothing of the user's is
touched. One untimed run of each comes first (byte code compiled, caches filled — like
every start of the game after the first).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The hook shared by both children: exit right after the first paint of a screen of the
# class named KIND (a Screen subclass, matched by name so that the hook imports nothing
# of the game), optionally printing that frame.
_HOOK = """
import sys
from textual.app import App
_orig = App._display
_done = []
def _display(self, screen, renderable):
    _orig(self, screen, renderable)
    if renderable is not None and not _done \
            and any(c.__name__ == KIND for c in type(screen).__mro__):
        _done.append(1)
        if VERIFY:
            print(type(screen).__name__)
            for strip in screen._compositor.render_strips():
                print(strip.text.rstrip())
        self.exit()
if UNTIL == "paint":
    App._display = _display
else:
    # --until refresh: the screen's mount asks to exit after its first refresh
    # (`call_after_refresh`: once the screen has no layout, repaint or widgets left to
    # do and is idle) — the other way the title screen's start was measured (issue 34)
    from textual.screen import Screen
    _mount = Screen._on_mount
    def _on_mount(self, event):
        _mount(self, event)
        if not _done and any(c.__name__ == KIND for c in type(self).__mro__):
            _done.append(1)
            self.call_after_refresh(self.app.exit)
    Screen._on_mount = _on_mount
"""

BARE = """
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Static
KIND = "Screen"
""" + _HOOK + """
class Bare(App):
    BINDINGS = [("ctrl+q", "quit", "Quit")]
    def compose(self) -> ComposeResult:
        yield Static("T A C T I C A L")
        yield Footer()
Bare().run(headless=True, size=(80, 24))
"""

TACTICAL = """
from tactical_tui import cli
args = cli._parser().parse_args(ARGV)
from tactical_tui.app import TacticalApp
""" + _HOOK + """
TacticalApp(lang=args.lang, ai_delay=args.ai_delay, quick=args.quick, seed=args.seed,
            resume=args.resume).run(headless=True, size=(80, 24))
"""


def run_child(code: str, env: dict) -> tuple[float, float, float, str]:
    """(seconds from start to exit, CPU seconds, peak RSS in MiB, standard output) of one
    child. The
    output goes to temporary files and the child is reaped with `os.wait4`, which gives
    that child's own resource usage (RUSAGE_CHILDREN would be the largest of all)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", code], env=env, cwd=ROOT,
                                stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise SystemExit(f"child failed ({proc.returncode}):\n{err.read()}")
        return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.read()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7, help="runs of each (alternated)")
    ap.add_argument("--lang", default="en", choices=("ja", "en"))
    ap.add_argument("--verify", action="store_true", help="print the first frame of each")
    ap.add_argument("--quick", action="store_true",
                    help="time `tactical --quick` to the first paint of the draft screen (a "
                         "game dealt: rules, AI, card data) instead of the title screen")
    ap.add_argument("--until", choices=("paint", "refresh"), default="paint",
                    help="stop after the first screen's first paint (default) or after its "
                         "first refresh (the callbacks run once it is idle after mounting)")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="keep PYTHONDONTWRITEBYTECODE as it is in the environment (default: "
                         "byte code cached, as in an installed or once-run TACTICAL)")
    args = ap.parse_args()
    # the user folders (platformdirs: XDG_DATA_HOME, XDG_CACHE_HOME) point to a fresh
    # temporary folder: found the way a real start finds them, and nothing of the user's
    # is touched
    home = tempfile.mkdtemp(prefix="tactical-bench-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TACTICAL_")}
    env.update(PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               XDG_DATA_HOME=os.path.join(home, "data"), XDG_CACHE_HOME=os.path.join(home, "cache"))
    if not args.no_bytecode:
        # a started TACTICAL has its byte code: pip compiles it at install, and a checkout
        # writes __pycache__ on the first run. PYTHONDONTWRITEBYTECODE (set in some
        # sandboxes) would compile every module of the checkout at every start; the
        # bench keeps its byte code in its temporary folder instead (for both children).
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = os.path.join(home, "pycache")
    argv = ["--lang", args.lang] + (["--quick", "--seed", "1"] if args.quick else [])
    kind = "DraftScreen" if args.quick else "TitleScreen"
    flags = (f"VERIFY = {bool(args.verify)}\nARGV = {argv!r}\nKIND = {kind!r}\n"
             f"UNTIL = {args.until!r}\n")
    codes = {"bare": flags + BARE, "tactical": flags + TACTICAL}
    # one untimed start of each first: byte-code compiled, the card cache filled
    for name in codes:
        run_child(codes[name], env)
    times: dict[str, list[float]] = {"bare": [], "tactical": []}
    cpu: dict[str, list[float]] = {"bare": [], "tactical": []}
    rss: dict[str, list[float]] = {"bare": [], "tactical": []}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    for i in range(args.runs):
        for name in ("bare", "tactical"):
            t, c, m, out = run_child(codes[name], env)
            times[name].append(t)
            cpu[name].append(c)
            rss[name].append(m)
            print(f"run {i + 1:2} {name:8} {t * 1000:7.0f} ms  (CPU {c * 1000:4.0f} ms)  "
                  f"{m:5.1f} MiB", flush=True)
            if args.verify and i == 0:
                print(out)
    shutil.rmtree(home, ignore_errors=True)
    end_load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    b, tac = statistics.median(times["bare"]), statistics.median(times["tactical"])
    cb, ct = statistics.median(cpu["bare"]), statistics.median(cpu["tactical"])
    cached = "no byte code cache" if "PYTHONDONTWRITEBYTECODE" in env else "byte code cached"
    print(f"\nmedians of {args.runs} alternated runs to the first {args.until}, {cached} "
          f"(load average {load:.2f} → {end_load:.2f}):")
    print(f"  bare Textual app  {b * 1000:6.0f} ms  (CPU {cb * 1000:4.0f} ms)  "
          f"peak RSS {statistics.median(rss['bare']):5.1f} MiB")
    print(f"  tactical          {tac * 1000:6.0f} ms  (CPU {ct * 1000:4.0f} ms)  "
          f"peak RSS {statistics.median(rss['tactical']):5.1f} MiB")
    print(f"  ratio             {tac / b:6.2f}×   (CPU {ct / cb:.2f}×)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
