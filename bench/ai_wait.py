"""How long the player waits for the AI seats in the battle (issue 32 point 16).

    python bench/ai_wait.py [--games 3] [--seed 1] [--ai hard,hard,hard] [--delay D]
                            [--turns 12] [--lang en]

A solo game at 80×24 under Textual's Pilot (`App.run_test`), seat 1 human, the other
seats the `--ai` levels, at the default settings (`settings.Settings().ai_delay`, the
pause after an AI action, unless `--delay`). The human seat is played by keys the way a
quick player plays: `H` (the normal AI's move for the seat, `TacticalApp.action_auto`)
the moment it is asked, Enter on every dialog (the bid and build results). No key skips
the AI (that is the player's choice; `--skip` presses it once per wait, to measure it).

A *wait* runs from the player's action that ends its battle turn (after it, the turn is
another seat's) to the moment its next battle turn asks it again (its view's update
says it is asked, no dialog open) — counted only when the battle went on in between
(no bidding round between the two turns). The bench prints every game's waits, then
the median, the 90th percentile (nearest rank) and the mean over all games.

Wall-clock figures, at the mercy of other work on the machine (docs/MEASURED.md quotes them
with the load they were taken under). `H` stands in for a player who answers at once:
its own thinking (the normal AI's hint) is not counted as waiting, as it comes after
the player's turn was asked.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


async def _game(seed: int, seats: tuple[str, ...], delay: float, turns: int, lang: str,
                skip: bool) -> list[float]:
    from textual.screen import ModalScreen
    from tactical_tui.app import TacticalApp
    from tactical_tui.settings import Store
    app = TacticalApp(lang=lang, ai_delay=delay, seed=seed, autosave=False, seats=seats,
                      store=Store())
    waits: list[float] = []
    async with app.run_test(size=(80, 24)) as pilot:
        ended_at = None            # when the player's last battle turn ended
        mine_before = False
        asked_at = None            # the table's version at the last answer
        for _ in range(2_000_000):
            await asyncio.sleep(0.002)
            if app.table is None:
                continue
            if app.table.over or len(waits) >= turns:
                await pilot.pause(0.5)       # (the screen that came with it, mounted)
                break
            feed = app.feeds.get(0)
            u = feed.latest if feed is not None else None
            if u is None:
                continue
            obs = u.observation
            battle = obs.phase == "battle" and obs.battle is not None
            mine = battle and obs.battle.turn.seat == 0
            if obs.phase != "battle":
                ended_at = None
            elif mine_before and not mine:
                ended_at = time.perf_counter()
                if skip and hasattr(app, "action_skip_ai"):
                    app.action_skip_ai()
            mine_before = mine
            modal = isinstance(app.screen, ModalScreen)
            if modal:
                await pilot.press("enter")
                continue
            moves = len(app.table.history)
            if feed.asked() and not app.busy and moves != asked_at:
                if mine and ended_at is not None:
                    waits.append(time.perf_counter() - ended_at)
                    ended_at = None
                asked_at = moves             # (a build is one question of many steps)
                await pilot.press("H")
    return waits


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--ai", default="hard,hard,hard")
    p.add_argument("--delay", type=float, default=None,
                   help="the AI pause (default: the settings' default)")
    p.add_argument("--turns", type=int, default=12, help="waits measured per game at most")
    p.add_argument("--lang", default="en")
    p.add_argument("--skip", action="store_true", help="press the skip key in every wait")
    args = p.parse_args(argv)
    from tactical_tui.settings import Settings
    delay = Settings().ai_delay if args.delay is None else args.delay
    seats = ("human",) + tuple(args.ai.split(","))
    print(f"seats {','.join(seats)}  AI pause {delay:.2f} s  games {args.games} "
          f"from seed {args.seed}{'  (skip key pressed)' if args.skip else ''}")
    every: list[float] = []
    for g in range(args.games):
        seed = args.seed + g
        t0 = time.perf_counter()
        waits = asyncio.run(_game(seed, seats, delay, args.turns, args.lang, args.skip))
        every += waits
        print(f"  seed {seed}: {len(waits)} waits  " + " ".join(f"{w:.1f}" for w in waits)
              + f"   ({time.perf_counter() - t0:.0f} s)", flush=True)
    if not every:
        print("no waits measured")
        return 1
    every.sort()
    p90 = every[max(0, math.ceil(0.9 * len(every)) - 1)]
    print(f"waits {len(every)}: median {statistics.median(every):.2f} s  "
          f"p90 {p90:.2f} s  mean {statistics.fmean(every):.2f} s  max {every[-1]:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
