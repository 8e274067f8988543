"""Memory kept for undo and replay of a whole game (issue 16 point 5: under 20 MB).

    python bench/history_memory.py [--seeds 3] [--players 5]

Plays whole games of AI seats (normal) through `GameTable` — the object the app keeps
for a game: the state, every action, the AI notes, the events of each action and the log
— and measures with `tracemalloc` what the table still holds after the game (everything
allocated while playing and still alive once the game is over, the AI seats' memory
included), and the size of its save file. The largest of `--seeds` games is the figure.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules import Config  # noqa: E402
from rules.cards import default_cards  # noqa: E402
from tactical_tui.table.saves import to_json  # noqa: E402
from tactical_tui.table.live import GameTable, SeatSetup  # noqa: E402


def play(players: int, seed: int, cards) -> tuple[GameTable, int]:
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    table = GameTable(Config(players=players), tuple(SeatSetup(False, "normal")
                                                     for _ in range(players)), seed, cards)
    while not table.over:
        seat = table.ai_to_act()
        table.submit_ai(seat, *table.ai_decide(seat))
    gc.collect()
    return table, tracemalloc.get_traced_memory()[0] - before


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--first-seed", type=int, default=1)
    args = ap.parse_args()
    cards = default_cards()
    tracemalloc.start()
    worst = 0
    print(f"memory a finished {args.players}-seat game keeps (GameTable: state, actions, "
          f"AI notes, events, log; AI seats included)")
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        table, kept = play(args.players, seed, cards)
        size = len(to_json(table.save_data()).encode())
        worst = max(worst, kept)
        print(f"  seed {seed}: {len(table.history):5} actions, {len(table.log):5} log entries, "
              f"kept {kept / 2**20:6.2f} MiB, save file {size / 1024:6.1f} KiB")
        del table
    print(f"largest: {worst / 2**20:.2f} MiB (goal: under 20 MB)")


if __name__ == "__main__":
    main()
