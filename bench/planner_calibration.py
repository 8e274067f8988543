"""How far the planner's build value believes in the builds it picks: the chance the
model (`ai.buildvalue`) gives each seat's build at the battle's start, against the share
of games that seat won — the planner's seat (rotated) and the normal players' seats apart.

    python bench/planner_calibration.py [--games 1000] [--players 4] [--seed 80000] [--jobs 2]

A model that picks the best of many builds by a noisy value overrates what it picks (the
winner's curse): the planner's mean modelled chance is then above its win share, while
the normal players' builds, picked by other means, come out about as the model says.
Printed per group: seats, mean modelled chance, win share, and both by tenths of the
modelled chance.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai import make_player  # noqa: E402
from ai.buildvalue import build_value  # noqa: E402
from ai.planner import PlanningPlayer  # noqa: E402
from rules import Config, apply, new_game, observe, pending  # noqa: E402
from rules.cards import default_cards  # noqa: E402
from ai.selfplay import running  # noqa: E402 - a game given up after ROUND_CAP rounds

_CARDS = None


def play(args):
    """One game, the planner at seat `seed % players`: [(planner?, modelled, share)]."""
    global _CARDS
    players, seed = args
    if _CARDS is None:
        _CARDS = default_cards()
    cards = _CARDS
    mine = seed % players
    seats = [PlanningPlayer(cards, seed * 101 + i) if i == mine
             else make_player("normal", seed * 101 + i, cards) for i in range(players)]
    state, _ = new_game(Config(players=players), cards, seed)
    builds = None
    while running(state):
        if builds is None and state.phase == "battle":
            builds = [(s.race, s.equipped) for s in state.seats]
        s = pending(state).seats[0]
        obs = observe(state, s)
        state, _ = apply(state, seats[s].choose(obs, obs.legal))
    share = {w: 1 / len(state.winners) for w in state.winners}
    return [(i == mine, build_value(cards, race, eq, players=players), share.get(i, 0.0))
            for i, (race, eq) in enumerate(builds)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=80000)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    work = [(args.players, args.seed + g) for g in range(args.games)]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        rows = [r for game in pool.map(play, work, chunksize=16) for r in game]
    print(f"planner + {args.players - 1} normal, {args.games} games "
          f"(seeds {args.seed}..{args.seed + args.games - 1}, planner's seat rotated)")
    for planner in (True, False):
        got = [(p, w) for who, p, w in rows if who == planner]
        tenths: dict[int, list] = {}
        for p, w in got:
            tenths.setdefault(min(int(p * 10), 9), []).append((p, w))
        print(f"{'planner' if planner else 'normal'}: {len(got)} seats, modelled "
              f"{sum(p for p, _ in got) / len(got):.1%}, won {sum(w for _, w in got) / len(got):.1%}")
        print("  by modelled chance: " + ", ".join(
            f"{k / 10:.1f}-{(k + 1) / 10:.1f}: {len(v)} seats won {sum(w for _, w in v) / len(v):.0%}"
            for k, v in sorted(tenths.items())))


if __name__ == "__main__":
    main()
