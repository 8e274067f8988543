"""Runs one TacticalApp under Pilot in its own process, for the tests of several
windows on one save folder (tests/test_sessions.py). Prints one JSON line.

    python tests/session_app.py LANG MODE [ARG] [HOLD_UNTIL_FILE]

MODE: `new` SEATS (start a game with these comma-separated seats), `resume` [PATH]
(`--resume`, the newest game or PATH), `continue` (the title's Continue list, first
row). With HOLD_UNTIL_FILE the app stays open (holding its game) until that file
exists; it writes HOLD_UNTIL_FILE + ".ready" once the game is running.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tactical_tui.app import TacticalApp  # noqa: E402


async def main(lang: str, mode: str, arg: str, hold: str) -> None:
    if mode == "new":
        app = TacticalApp(lang=lang, ai_delay=0.0, seed=5, seats=tuple(arg.split(",")))
    elif mode == "resume":
        app = TacticalApp(lang=lang, ai_delay=0.0, resume=arg)
    else:
        app = TacticalApp(lang=lang, ai_delay=0.0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.3)
        if mode == "continue":
            app.title_choice("continue")
            await pilot.pause(0.3)
            await pilot.press("enter")
            await pilot.pause(0.3)
        for _ in range(200):                      # until the AI seats wait for the human
            await pilot.pause(0.02)
            if app.table is None or not app.busy:
                break
        if hold:
            Path(hold + ".ready").write_text("ready")
            end = time.monotonic() + 60
            while not Path(hold).exists() and time.monotonic() < end:
                await pilot.pause(0.05)
        table = app.table
        out = {"notes": [n.message for n in app._notifications],
               "save": str(table.save_path) if table else None,
               "actions": len(table.history) if table else None,
               "screen": type(app.screen).__name__}
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    a = sys.argv[1:] + ["", ""]
    asyncio.run(main(a[0], a[1], a[2], a[3]))
