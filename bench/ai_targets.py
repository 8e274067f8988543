"""AI targets of the AI issue, measured (4 seats, seats rotated):

    python bench/ai_targets.py [--games 1000]

- normal vs 3 random: normal's win rate (target ≥ 90 %)
- normal vs 3 easy: normal's win rate (target ≥ 40 %; fair share 25 %)
- decision time per level: mean, p50, p99 and max on one core (target: normal p99 ≤ 20 ms)
- games per second: normal + 3 random, 4 normal, 4 random
- 4 normal seats: wall time for the games on one core (target 1,000 games ≤ 60 s)
- illegal actions: `apply` raises on any, so a finished run means zero
- unfinished games: given up after `ai.selfplay.ROUND_CAP` battle rounds (the rules end a
  game only at 5 VP, RULINGS R19); nobody's win
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
import sys

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai import make_player  # noqa: E402
from rules import Config, apply, new_game, observe, pending  # noqa: E402
from rules.cards import default_cards  # noqa: E402
from tactical_tui.tools.simulate import rotations, wilson  # noqa: E402
from ai.selfplay import running  # noqa: E402 - a game given up after ROUND_CAP rounds


def run(seats, games, seed=0):
    cards = default_cards()
    wins = {lv: 0.0 for lv in seats}
    wins["unfinished"] = 0               # given up after ROUND_CAP rounds: nobody's win
    times = {lv: [] for lv in seats}
    t0 = time.perf_counter()
    for g, levels in enumerate(rotations(tuple(seats), games)):
        players = [make_player(l, (seed + g) * 101 + i, cards) for i, l in enumerate(levels)]
        state, _ = new_game(Config(players=len(levels)), cards, seed + g)
        while running(state):
            s = pending(state).seats[0]
            obs = observe(state, s)
            t = time.perf_counter()
            a = players[s].choose(obs, obs.legal)
            times[levels[s]].append(time.perf_counter() - t)
            state, _ = apply(state, a)
        for w in state.winners:
            wins[levels[w]] += 1 / len(state.winners)
        if state.phase != "over":
            wins["unfinished"] += 1
    return wins, times, time.perf_counter() - t0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--games", type=int, default=1000)
    args = p.parse_args()
    n = args.games
    for seats, focus in ((["normal", "random", "random", "random"], "normal"),
                         (["normal", "easy", "easy", "easy"], "normal"),
                         (["normal"] * 4, None),
                         (["random"] * 4, None)):
        wins, times, wall = run(seats, n)
        line = f"{'+'.join(seats)}: {n} games in {wall:.1f} s ({n / wall:.0f} games/s)"
        if focus:
            lo, hi = wilson(wins[focus], n)
            line += f"; {focus} wins {wins[focus] / n:.1%} (95 % CI {lo:.1%}–{hi:.1%})"
        line += f"; unfinished {wins['unfinished']} (given up after ROUND_CAP rounds)"
        for level in dict.fromkeys(seats):
            ts = sorted(times[level])
            line += (f"\n  {level} decisions: {len(ts)}, mean {1000 * sum(ts) / len(ts):.3f} ms, "
                     f"p50 {1000 * ts[len(ts) // 2]:.3f} ms, p99 {1000 * ts[int(len(ts) * 0.99)]:.3f} ms, "
                     f"max {1000 * ts[-1]:.1f} ms")
        print(line, flush=True)

if __name__ == "__main__":
    main()
