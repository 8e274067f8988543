"""What the processing order (§5-4 処理順) is worth in itself: normal self-play where each
game is played once per rotation of the order the engine decided, so every seat, with
the same build, plays the battle from every position.

    python bench/order_position.py [--games 500] [--players 4] [--seed 90000] [--jobs 2]

Four (three, five) normal players draft, bid and build as usual; at the battle's start
the order decided by final agility is rotated by 0, 1, ... places (this process wraps
`rules.battle.start_battle`, the rules are not changed), and the battle is played on.
The drafts, bids and builds are the same in every rotation (the players are
deterministic and the seed is the same), so a position's win share is compared on the
same builds and seats: what is left is the position. Printed: the battle round the games
as dealt end in, each position's win share with one standard error (over the seeds), and
the share by position in the games as dealt (no rotation), where a position also stands
for the builds that reach it.
"""

from __future__ import annotations

import argparse
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rules.engine as _engine  # noqa: E402
from ai import make_player  # noqa: E402
from rules import Config, apply, new_game, observe, pending  # noqa: E402
from rules.cards import default_cards  # noqa: E402
from rules.state import evolve  # noqa: E402
from ai.selfplay import running  # noqa: E402 - a game given up after ROUND_CAP rounds

_CARDS = None
_ROTATE = [0]
_START = _engine.B.start_battle


def _rotated_start(state, events):
    order = state.order
    k = _ROTATE[0] % len(order)
    return _START(evolve(state, order=order[k:] + order[:k]), events)


def play(args):
    """One game with the order rotated by `k`: the win share of each position, and the
    battle round the game ended in (0: the round of entries and initial turns)."""
    global _CARDS
    players, seed, k = args
    if _CARDS is None:
        _CARDS = default_cards()
        _engine.B.start_battle = _rotated_start
    _ROTATE[0] = k
    seats = [make_player("normal", seed * 101 + i, _CARDS) for i in range(players)]
    state, _ = new_game(Config(players=players), _CARDS, seed)
    while running(state):
        s = pending(state).seats[0]
        obs = observe(state, s)
        state, _ = apply(state, seats[s].choose(obs, obs.legal))
    shares = [1 / len(state.winners) if seat in state.winners else 0.0 for seat in state.order]
    return shares, state.battle.round if state.battle is not None else 0


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--games", type=int, default=500)
    p.add_argument("--players", type=int, default=4, choices=(3, 4, 5))
    p.add_argument("--seed", type=int, default=90000)
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args()
    n = args.players
    work = [(n, args.seed + g, k) for g in range(args.games) for k in range(n)]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(play, work, chunksize=20))
    shares = [r[0] for r in results]
    per_seed = [shares[g * n:(g + 1) * n] for g in range(args.games)]
    rounds = [results[g * n][1] for g in range(args.games)]
    print(f"{n} normal seats, {args.games} games x {n} rotations of the order "
          f"(seeds {args.seed}..{args.seed + args.games - 1}); the games as dealt end in "
          f"battle round {sum(rounds) / len(rounds):.2f} on average (0: the entries), "
          f"median {sorted(rounds)[len(rounds) // 2]}")
    for pos in range(n):
        xs = [sum(r[pos] for r in rots) / n for rots in per_seed]
        mean = sum(xs) / len(xs)
        se = math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1) / len(xs))
        dealt = sum(rots[0][pos] for rots in per_seed) / args.games
        print(f"position {pos + 1}: wins {mean:.1%} ± {se:.1%} (order rotated); "
              f"{dealt:.1%} in the games as dealt")


if __name__ == "__main__":
    main()
