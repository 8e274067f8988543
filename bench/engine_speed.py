"""The rules engine's speed at random legal play (issue 16 points 2 and 3).

    python bench/engine_speed.py [--quick] [--rounds N] [--games N] [--base COMMIT]

Plays the same seeded games — a random action among `legal_actions` (a seeded
`random.Random`), `apply`, until the game is over, from `new_game` — on the engine of the
commit before the speed work (BASE, checked out into a temporary folder) and on the
working tree's, each in its own process, alternated in one run (old, new, old, new, ...)
so that the load of a shared machine hits both alike. Both play with the card data of
BASE, so the games are the same: the bench checks that both engines end every game in
the same state (its RNG, winners and number of actions).

Prints actions/s of each engine (CPU time of its process, which load disturbs less than
wall time), their ratio (with the median of the per-batch ratios), and per seat count
(3, 4, 5) the actions per game, ms per game and µs per action of each — a game's cost
should grow with its number of actions, not faster: the µs per action of the shorter and
the longer half of the games (by actions) are printed too.

`--quick`: 2 rounds of 4 games per seat count (some seconds); default 4 rounds of 12.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

_CARDS: dict[str, object] = {}


def running(state, cap: int = 60) -> bool:
    """Go on playing: not over, and not past `cap` battle rounds (ai.selfplay.ROUND_CAP:
    the rules end a game only at 5 VP, RULINGS R19). Written here, not imported: this
    bench runs engines of older commits too, which have no ai.selfplay."""
    battle = getattr(state, "battle", None)
    return state.phase != "over" and not (battle is not None and battle.round > cap)


def play_games(specs: list[list], cards_path: str) -> list[list]:
    """Run in an engine's process: play each (players, seed) game; per game
    [actions, cpu seconds, wall seconds, check] where check sums up the final state."""
    import random

    from rules import Config, apply, legal_actions, load_cards, new_game
    cards = _CARDS.get(cards_path)
    if cards is None:
        cards = _CARDS[cards_path] = load_cards(cards_path)
    out = []
    for players, seed in specs:
        config = Config(players=players, first_game=seed % 3 == 0)
        rnd = random.Random(seed)
        t0, w0 = time.process_time(), time.perf_counter()
        state, _ = new_game(config, cards, seed)
        n = 0
        while running(state):
            state, _ = apply(state, rnd.choice(legal_actions(state)))
            n += 1
        cpu, wall = time.process_time() - t0, time.perf_counter() - w0
        out.append([n, cpu, wall, f"{state.rng}:{state.winners}:{state.end_reason}:{n}"])
    return out


def main(argv: list[str] | None = None) -> int:
    from _engines import BASE, OldAndNew, median

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="2 rounds of 4 games per seat count")
    p.add_argument("--rounds", type=int, help="alternations of old and new (default 4)")
    p.add_argument("--games", type=int, help="games per seat count and round (default 12)")
    p.add_argument("--base", default=BASE, help=f"the old engine's commit (default {BASE})")
    args = p.parse_args(argv)
    rounds = args.rounds or (2 if args.quick else 4)
    games = args.games or (4 if args.quick else 12)
    seat_counts = (3, 4, 5)
    # per engine, per seat count: [(actions, cpu)] per game
    results: dict[str, dict[int, list[tuple[int, float]]]] = {"old": {}, "new": {}}
    batch_ratios: list[float] = []
    mismatches = 0
    started = time.perf_counter()
    with OldAndNew(args.base) as (old, new):
        cards_path = str(old.root / "cards.toml")
        print(f"engine speed: old = {args.base}, new = working tree; {rounds} rounds x "
              f"{games} games x {len(seat_counts)} seat counts per engine, alternated")
        for r in range(rounds):
            for players in seat_counts:
                specs = [[players, 1000 * players + r * games + g] for g in range(games)]
                got = {}
                for name, engine in (("old", old), ("new", new)):
                    got[name] = engine.call("engine_speed", "play_games", specs, cards_path)
                    results[name].setdefault(players, []).extend(
                        (n, cpu) for n, cpu, _wall, _check in got[name])
                mismatches += sum(a[3] != b[3] for a, b in zip(got["old"], got["new"]))
                rate = {k: sum(x[0] for x in v) / max(1e-9, sum(x[1] for x in v))
                        for k, v in got.items()}
                batch_ratios.append(rate["new"] / rate["old"])
            print(f"  round {r + 1}/{rounds} done", file=sys.stderr)
    print()
    print(f"{'seats':>5} {'games':>5} {'actions/game':>12} {'old ms/game':>11} "
          f"{'new ms/game':>11} {'old µs/act':>10} {'new µs/act':>10} {'ratio':>6}  "
          f"new µs/act short|long half")
    for players in seat_counts:
        o, nw = results["old"][players], results["new"][players]
        acts = sum(x[0] for x in o) / len(o)
        o_ms, n_ms = (1000 * sum(x[1] for x in v) / len(v) for v in (o, nw))
        o_us, n_us = (1e6 * sum(x[1] for x in v) / sum(x[0] for x in v) for v in (o, nw))
        by_len = sorted(nw)
        half = len(by_len) // 2
        short, long_ = by_len[:half], by_len[half:]
        s_us, l_us = (1e6 * sum(x[1] for x in v) / max(1, sum(x[0] for x in v))
                      for v in (short, long_))
        print(f"{players:>5} {len(o):>5} {acts:>12.0f} {o_ms:>11.1f} {n_ms:>11.1f} "
              f"{o_us:>10.1f} {n_us:>10.1f} {o_us / n_us:>5.2f}x  {s_us:.1f} | {l_us:.1f}")
    total = {k: (sum(x[0] for v in d.values() for x in v), sum(x[1] for v in d.values() for x in v))
             for k, d in results.items()}
    rate = {k: a / c for k, (a, c) in total.items()}
    print()
    print(f"old: {rate['old']:,.0f} actions/s   new: {rate['new']:,.0f} actions/s   "
          f"ratio {rate['new'] / rate['old']:.2f}x (median of {len(batch_ratios)} batches "
          f"{median(batch_ratios):.2f}x)")
    print(f"same final states: {'yes' if not mismatches else f'NO — {mismatches} games differ'}"
          f"   ({time.perf_counter() - started:.0f} s in all)")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
