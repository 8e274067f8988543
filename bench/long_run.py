"""The long run of the rules' invariants: many seeded games with random legal actions.

    python bench/long_run.py [--games 10000] [--jobs 2]

After every action: HP in 0..6, mana in 0..final mana, VP never decreasing, unluck ≤ 2,
every physical card in exactly one place, legal actions until the game is over; at the
end a save → load round trip replays to the same state. Prints games/s, the longest
game and how many games were given up unfinished (`ai.selfplay.ROUND_CAP`).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules import Config, apply, legal_actions, new_game  # noqa: E402
from rules.build import final_stats  # noqa: E402
from rules.engine import copies_of  # noqa: E402
from ai.selfplay import running  # noqa: E402 - a game given up after ROUND_CAP rounds

MAX_ACTIONS = 20000


def places(state) -> Counter:
    c = Counter(state.defense_deck + state.attack_deck + state.defense_discard + state.attack_discard)
    for s in state.seats:
        c.update(s.hand + s.picks + s.equipped)   # materialized: a record; the card lies
                                                  # in the defense discard (RULINGS R6)
    if state.bidding is not None:
        c.update(state.bidding.current + state.bidding.upcoming)
        c.update(b.card for b in state.bidding.bids)
    return c


def one(seed: int) -> tuple[int, int]:
    rnd = random.Random(seed)
    players = 3 + seed % 3
    config = Config(players=players, first_game=seed % 4 == 0)
    state, _ = new_game(config, seed=seed)
    defense, attack = copies_of(state.cards, config.first_game)
    every = Counter(defense + attack)
    vp = [0] * players
    actions = []
    while running(state):
        legal = legal_actions(state)
        assert legal, f"seed {seed}: no legal action in {state.phase}"
        a = legal[rnd.randrange(len(legal))]
        state, _ = apply(state, a)
        actions.append(a)
        assert len(actions) <= MAX_ACTIONS, f"seed {seed}: too long"
        assert places(state) == every, f"seed {seed}: cards not conserved"
        for i, s in enumerate(state.seats):
            assert 0 <= s.hp <= 6 and 0 <= s.unluck <= 2 and s.vp >= vp[i]
            if s.revealed:
                assert 0 <= s.mana <= max(0, final_stats(state.cards, s.race, s.equipped)["mana"])
            vp[i] = s.vp
    again, _ = new_game(config, seed=seed)
    for a in actions:
        again, _ = apply(again, a)
    assert again == state, f"seed {seed}: replay differs"
    return len(actions), state.battle.round if state.battle else 0, state.phase != "over"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--games", type=int, default=10000)
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args()
    t = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(one, range(args.games), chunksize=50))
    dt = time.perf_counter() - t
    longest = max(r[0] for r in results)
    print(f"{args.games} games, all invariants held; {args.games / dt:.1f} games/s with "
          f"{args.jobs} processes; longest game {longest} actions "
          f"(limit {MAX_ACTIONS}), mean battle rounds {sum(r[1] for r in results) / len(results):.1f}; "
          f"{sum(r[2] for r in results)} given up unfinished after ROUND_CAP rounds (the rules "
          f"end a game only at 5 VP)")


if __name__ == "__main__":
    main()
