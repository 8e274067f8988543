"""How long resuming a saved game takes (issue 14 point 9: resume and undo do not re-think).

    python bench/resume.py [--seed 5] [--budget 0.05] [--repeat 5]

Plays two 5-seat games (one human seat played by the hint, three hard AI seats, one
normal), saves them — one played to the end, one stopped in the middle of the battle —
and times what Continue does with each save: read the file and rebuild the position
(`saves.read` + `GameTable.from_save`). The hard seats think with `--budget` seconds per
battle decision while the games are made (0.5 s in the app; a smaller budget only makes
the bench quicker to set up — the saves have the same shape, and a resume never runs a
search at all: the bench counts the AI decisions asked during the resumes, which must be 0).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai import make_player  # noqa: E402
from ai.base import RandomPlayer  # noqa: E402
from ai.hard import HardPlayer  # noqa: E402
from ai.normal import NormalPlayer  # noqa: E402
from rules import Config  # noqa: E402
from tactical_tui.table.saves import read, to_json, write_atomic  # noqa: E402
from tactical_tui.table.live import GameTable, SeatSetup  # noqa: E402

SEATS = (SeatSetup(True), SeatSetup(False, "hard"), SeatSetup(False, "hard"),
         SeatSetup(False, "hard"), SeatSetup(False, "normal"))


def play(seed: int, budget: float, stop_in_battle: bool) -> GameTable:
    table = GameTable(Config(players=5), SEATS, seed)
    for i, s in enumerate(SEATS):
        if s.level == "hard" and not s.human:
            table.players[i] = make_player("hard", seed * 101 + i, table.cards, budget=budget)
    battle_actions = 0
    while not table.over:
        if table.state.phase == "battle":
            battle_actions += 1
            if stop_in_battle and battle_actions > 60:
                break
        ai, human = table.ai_to_act(), table.human_to_act()
        if ai is not None and (human is None or table.state.phase in ("draft", "build")):
            table.submit_ai(ai, *table.ai_decide(ai))
        else:
            table.submit(table.hint(human)[0])
    return table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--budget", type=float, default=0.05)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    asked = [0]
    for cls in (RandomPlayer, NormalPlayer, HardPlayer):
        for name in ("choose", "choose_explained"):
            if hasattr(cls, name):
                original = getattr(cls, name)

                def counted(self, *a, _f=original, **k):
                    asked[0] += 1
                    return _f(self, *a, **k)
                setattr(cls, name, counted)

    folder = Path(tempfile.mkdtemp(prefix="tactical-bench-"))
    print(f"resume of a saved 5-seat game (3 hard seats, 1 normal, 1 human), best of {args.repeat}")
    for label, stop in (("played to the end", False), ("mid-battle", True)):
        t0 = time.perf_counter()
        table = play(args.seed, args.budget, stop)
        made = time.perf_counter() - t0
        path = folder / f"{'end' if not stop else 'mid'}.json"
        write_atomic(path, to_json(table.save_data()))
        asked[0] = 0
        best = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            again = GameTable.from_save(read(path), table.cards, str(path))
            best = min(best, time.perf_counter() - t0)
        assert again.state == table.state and again.history == table.history
        reasons = sum(1 for e in again.log if e.reason is not None)
        print(f"  {label:18} {len(table.history):4} actions, {path.stat().st_size // 1024:3} KB, "
              f"{reasons:3} AI reasons in the log: resume {best * 1000:6.1f} ms "
              f"(AI decisions asked: {asked[0]}; the game took {made:.0f} s to play)")


if __name__ == "__main__":
    main()
