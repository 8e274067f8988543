"""How fast the battle screen answers a key when the game is long (issue 16 point 5).

    python bench/tui_latency.py [--sessions 4] [--reps 6] [--lines 5000] [--lang en|ja]

A real game at the battle, in front of a human seat: 4 seats, seat 1 human, played by
the normal AI (seat 1 through `GameTable.hint`) from `--seed` until seat 1's first
battle turn with an attack among its choices, written as a save file and opened by
`TacticalApp(resume=...)` headless at 80×24 under Textual's Pilot (`App.run_test`).

Two kinds of session, each in a process of its own (its own heap, so that a long log's
garbage collection is the long session's), alternated (short, long, long, short, …):
the *short* log is that game's own log (its draft, bidding and build: about 150
lines); for the *long* log, the battle events of other seeded games of AI seats (made
by this parent process) are added to the table's log and published to the seat's view
the way the table publishes every action (`LiveTable._publish`: `Update` →
`SeatFeed.take` → the app's `_sync` → the battle screen), until the whole log (`l`)
holds `--lines` lines.

Each session presses, `--reps` times: ↓ and ↑ (the cursor in the action list), `d` (the
highlighted attack card's details) and Escape, `l` (the whole log) and Escape. A key's
time runs from the moment Pilot hands it to the driver (as a terminal's key arrives) to
the frame the app paints once it has handled the key: every frame is taken where
Textual hands the screen's `CompositorUpdate` to the terminal (`App._display`, called by
`Screen._compositor_refresh`; headless, the bench turns the update into the terminal's
bytes itself — `render_segments` — as a real terminal run does). Most keys take more
than one frame (a dialog is painted, then its contents once their size is known):
"next" is the first frame after the key, "last" the last one before the app goes quiet
(no frame for `--quiet` seconds) — the key fully handled; the CPU time is the process's
(`time.process_time`) from the key to that last frame, less at the mercy of other
processes on the machine than the wall time. The bench prints, per key, the median and
the 95th percentile (nearest rank) for each log and the ratio long/short.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from textual.app import App  # noqa: E402

FRAMES: list[float] = []          # perf_counter of every frame painted, in order
CPU: list[float] = []             # the process's CPU time (process_time) at each

_display = App._display


def _timed_display(self, screen, renderable) -> None:
    _display(self, screen, renderable)
    if renderable is not None and not self._batch_count:
        if self.is_headless and hasattr(renderable, "render_segments"):
            renderable.render_segments(self.console)     # what a terminal would be sent
        FRAMES.append(time.perf_counter())
        CPU.append(time.process_time())


App._display = _timed_display

KEYS = ("down", "up", "d", "close_details", "l", "close_log")


def battle_save(seed: int, cards, players: int = 4):
    """A save of a game at seat 0's first battle turn with an attack to choose (seat 0
    human, its decisions made by the normal AI's hint), or None for this seed."""
    from rules import Config
    from rules.actions import StartAttack
    from tactical_tui.table.live import GameTable, SeatSetup
    table = GameTable(Config(players=players, first_game=True),
                      (SeatSetup(True),) + tuple(SeatSetup(False, "normal") for _ in range(players - 1)),
                      seed, cards)
    while not table.over:
        if table.state.phase == "battle" and table.human_to_act() == 0 \
                and table.pending().kind == "turn":
            legal = table.observe(0).legal
            if any(isinstance(a, StartAttack) for a in legal) and len(legal) >= 3:
                return table.save_data()
        seat = table.ai_to_act()
        if seat is not None:
            table.submit_ai(seat, *table.ai_decide(seat))
        else:
            table.submit(table.hint(table.human_to_act())[0])
    return None


def battle_entries(seed: int, cards, players: int = 4) -> list:
    """The battle part of a whole game of AI seats: its log from the battle's start, the
    game-over event left out."""
    from rules import Config
    from rules import events as E
    from tactical_tui.table.live import GameTable, SeatSetup
    table = GameTable(Config(players=players), tuple(SeatSetup(False, "normal") for _ in range(players)),
                      seed, cards)
    start = None
    while not table.over:
        if start is None and table.state.phase == "battle":
            start = len(table.log)
        seat = table.ai_to_act()
        table.submit_ai(seat, *table.ai_decide(seat))
    return [e for e in table.log[start:] if not isinstance(e.event, E.GameOver)]


def log_lines(app) -> int:
    """The lines the whole log (`l`) shows the viewer now (as App.action_show_log)."""
    from tactical_tui.text.catalog import Describer
    d = Describer(app.cards, app.lang)
    return sum(1 for e in app.feeds[app.viewer].log if app.log_line(e, d))


def long_entries(data, cards, lang: str, lines: int, first_seed: int = 1000) -> list:
    """Battle events of other games of AI seats, enough that the saved game's whole log
    holds `lines` lines for seat 1 (counted as App.log_line shows them). Made here, in
    the parent process, so that the long session's process holds the log and nothing
    else of those games (their AI's caches)."""
    from rules.events import visible
    from tactical_tui.app import TacticalApp
    from tactical_tui.table.live import GameTable
    from tactical_tui.text.catalog import Describer
    app = TacticalApp(lang=lang, cards=cards, autosave=False)      # (not run: log_line)
    d = Describer(cards, lang)
    table = GameTable.from_save(data, cards, "bench")
    need = lines - sum(1 for e in table.log
                       if (e.event is None or visible(e.event, 0)) and app.log_line(e, d))
    extra: list = []
    seed = first_seed
    while need > 0:
        for e in battle_entries(seed, cards):
            if (e.event is None or visible(e.event, 0)) and app.log_line(e, d):
                if need == 0:
                    break
                need -= 1
            extra.append(e)
        seed += 1
    return extra


def lengthen(app, extra: list) -> None:
    """Add `extra` log entries to the table's log, published to the views as the table
    publishes an action's events (`LiveTable._publish`), in pieces."""
    live = app.live
    for i in range(0, len(extra), 40):
        chunk = extra[i:i + 40]
        live.game.log.extend(chunk)
        live._publish(chunk)


async def quiet(pilot, after: int, t0: float, wait: float, timeout: float = 20.0) -> None:
    """Until a frame after index `after` has been painted and none for `wait` seconds."""
    while True:
        await pilot.pause(0.01)
        now = time.perf_counter()
        if len(FRAMES) > after and now - FRAMES[-1] >= wait:
            return
        if now - t0 > timeout:
            raise SystemExit(f"no frame within {timeout} s of a key")


async def timed(pilot, key: str, wait: float) -> tuple[float, float, float]:
    """(seconds to the next frame, seconds to the last frame before quiet, CPU seconds
    to that last frame) of one key."""
    n = len(FRAMES)
    c0 = time.process_time()
    t0 = time.perf_counter()
    await pilot.press(key)
    await quiet(pilot, n, t0, wait)
    if os.environ.get("BENCH_TRACE"):
        print(key, " ".join(f"{(f - t0) * 1000:.0f}" for f in FRAMES[n:]))
    return FRAMES[n] - t0, FRAMES[-1] - t0, CPU[-1] - c0


async def battle_app(save_path: Path, lang: str, extra, stack, wait: float):
    """An app on the battle screen of the saved game, seat 1 to act (its log lengthened
    by the entries `extra`, if given), with its Pilot; the app runs until `stack` closes."""
    from tactical_tui.app import TacticalApp
    from tactical_tui.screens.battle import BattleScreen
    app = TacticalApp(lang=lang, ai_delay=0.0, resume=str(save_path), autosave=False)
    pilot = await stack.enter_async_context(app.run_test(size=(80, 24)))
    for _ in range(500):
        await pilot.pause(0.01)
        if isinstance(app.screen, BattleScreen) and app.screen.my_turn():
            break
    else:
        raise SystemExit("the battle screen did not come up")
    if extra:
        lengthen(app, extra)
    app.clear_notifications()
    await quiet(pilot, 0, time.perf_counter(), wait)
    return app, pilot


async def press_keys(app, pilot, wait: float, out: dict) -> None:
    """One press of each key on the battle screen, from the attack option (so that ↓,
    ↑ and `d` have something to do); the screen is left as it was found."""
    scr = app.screen
    actions = scr.query_one("#actions")
    attack = next(i for i, a in enumerate(scr._actions) if getattr(a, "card", None))
    if attack + 1 >= len(scr._actions):
        raise SystemExit("no option below the attack to move the cursor to")
    actions.highlighted = attack
    await quiet(pilot, 0, time.perf_counter(), wait)
    for key, name in (("down", "down"), ("up", "up"), ("d", "d"),
                      ("escape", "close_details"), ("l", "l"), ("escape", "close_log")):
        out[name].append(await timed(pilot, key, wait))
    if app.screen is not scr or actions.highlighted != attack:
        raise SystemExit("the keys did not leave the battle screen as they found it")


async def child(save_path: Path, lang: str, long: bool, reps: int, wait: float) -> dict:
    """One app (one log) in this process: its keys pressed `reps` times."""
    import pickle
    from contextlib import AsyncExitStack
    extra = None
    if long:                   # the bench's own file, written by the parent just before
        extra = pickle.loads((save_path.parent / "extra.pickle").read_bytes())
    out: dict = {k: [] for k in KEYS}
    async with AsyncExitStack() as stack:
        app, pilot = await battle_app(save_path, lang, extra, stack, wait)
        del extra
        size = log_lines(app)
        for _ in range(reps):
            await press_keys(app, pilot, wait, out)
    return {"lines": size, "keys": out}


def run_child(args, save: Path, kind: str) -> dict:
    """A session in a fresh process (its own heap: a long game's garbage collection is
    its own), its figures read back as JSON."""
    import json
    import subprocess
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", kind, "--save", str(save),
           "--reps", str(args.reps), "--lang", args.lang, "--quiet", str(args.quiet)]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"the {kind} session failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def p95(xs: list[float]) -> float:
    s = sorted(xs)
    return s[max(0, math.ceil(0.95 * len(s)) - 1)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=4, help="sessions of each log (alternated)")
    ap.add_argument("--reps", type=int, default=6, help="presses of each key per session")
    ap.add_argument("--lines", type=int, default=5000, help="lines of the long log")
    ap.add_argument("--lang", default="en", choices=("ja", "en"))
    ap.add_argument("--seed", type=int, default=1, help="first seed tried for the game")
    ap.add_argument("--quiet", type=float, default=0.15,
                    help="seconds without a frame after which a key counts as handled")
    ap.add_argument("--child", choices=("short", "long"), help=argparse.SUPPRESS)
    ap.add_argument("--save", help=argparse.SUPPRESS)
    args = ap.parse_args()
    os.environ.setdefault("TACTICAL_SAVE_DIR", tempfile.mkdtemp(prefix="tactical-bench-"))
    if args.child:
        import json
        print(json.dumps(asyncio.run(child(Path(args.save), args.lang, args.child == "long",
                                           args.reps, args.quiet))))
        return 0
    from tactical_tui.table.cardcache import default_cards
    from tactical_tui.table.saves import to_json
    cards = default_cards()
    seed = args.seed
    data = battle_save(seed, cards)
    while data is None:
        seed += 1
        data = battle_save(seed, cards)
    folder = Path(tempfile.mkdtemp(prefix="tactical-bench-"))
    save = folder / "battle.json"
    save.write_text(to_json(data), encoding="utf-8")
    import pickle
    (folder / "extra.pickle").write_bytes(pickle.dumps(long_entries(data, cards, args.lang, args.lines)))
    load0 = os.getloadavg()[0]
    wall0 = time.perf_counter()
    results = {kind: {k: [] for k in KEYS} for kind in ("short", "long")}
    sizes: dict = {}
    for r in range(args.sessions):
        for kind in (("short", "long") if r % 2 == 0 else ("long", "short")):
            got = run_child(args, save, kind)
            sizes[kind] = got["lines"]
            for k in KEYS:
                results[kind][k] += got["keys"][k]
            med = statistics.median(x[1] for k in KEYS for x in got["keys"][k])
            print(f"session {r + 1} {kind:5} ({got['lines']:5} log lines): median of every key "
                  f"{med * 1000:6.1f} ms", flush=True)
    wall = time.perf_counter() - wall0
    load1 = os.getloadavg()[0]
    for f in folder.iterdir():
        f.unlink()
    folder.rmdir()
    n = args.sessions * args.reps
    print(f"\nbattle screen of a {args.lang} game (seed {seed}) at 80×24, {n} presses of each "
          f"key on each log ({args.sessions} alternated sessions of each, one process each); "
          f"load average {load0:.2f} → {load1:.2f} ({os.cpu_count()} cores), {wall:.0f} s")
    print(f"short log: {sizes['short']} lines; long log: {sizes['long']} lines")
    for col, what in ((1, "key press → last frame (the key handled), wall ms"),
                      (2, "key press → last frame, CPU ms of the process"),
                      (0, "key press → next frame, wall ms")):
        print(f"\n{what}:")
        print(f"  {'key':14} {'short med':>9} {'p95':>7} {'long med':>9} {'p95':>7}"
              f" {'ratio med':>9} {'p95':>6}")
        for k in KEYS:
            sh = [x[col] * 1000 for x in results["short"][k]]
            lg = [x[col] * 1000 for x in results["long"][k]]
            ms, ml = statistics.median(sh), statistics.median(lg)
            print(f"  {k:14} {ms:9.1f} {p95(sh):7.1f} {ml:9.1f} {p95(lg):7.1f}"
                  f" {ml / ms:8.2f}× {p95(lg) / p95(sh):5.2f}×")
    print(f"\ncommand: python bench/tui_latency.py --sessions {args.sessions} --reps {args.reps} "
          f"--lines {args.lines} --lang {args.lang}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
