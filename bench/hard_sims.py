"""What the engine's speed gives the AI (issue 16 point 4), old engine against new:

    python bench/hard_sims.py [--quick] [--positions N] [--games N] [--budget 0.5]

1. `tactical simulate` / `tactical balance` speed: games/s of `tactical_tui.tools.simulate.
   play_one` (4 normal seats, the games `tactical balance` plays) on each engine.
2. The hard player's simulations per searched decision at its 0.5 s budget, over a fixed
   set of positions: seeded games of 4 normal players; at seat 0's battle decisions that
   the hard player searches, a `HardPlayer` (budget 0.5 s, its clock on) decides and its
   simulation count and time are recorded — the game then goes on with the normal
   player's choice, so both engines meet the same positions. Also printed: the longest
   decision against the budget (+10 % allowed).

Each engine (the commit BASE, checked out into a temporary folder, and the working tree)
runs in its own process; the parts alternate old, new, old, new. The hard player's clock
is wall time: on a loaded machine both engines lose alike, and the ratio is what counts.
`--quick`: a smaller run (about a minute).
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


def _cards(path: str):
    from rules import load_cards
    if path not in _CARDS:
        _CARDS[path] = load_cards(path)
    return _CARDS[path]


def simulate_games(seeds: list[int], cards_path: str) -> list[list]:
    """Run in an engine's process: `play_one` of 4 normal seats per seed; per game
    [cpu seconds, wall seconds, actions, winners]."""
    from tactical_tui.tools.simulate import play_one
    cards = _cards(cards_path)
    out = []
    for seed in seeds:
        t0, w0 = time.process_time(), time.perf_counter()
        r = play_one(("normal",) * 4, seed, cards)
        out.append([time.process_time() - t0, time.perf_counter() - w0, r.actions,
                    list(r.winners)])
    return out


def hard_positions(seed: int, count: int, budget: float, cards_path: str) -> list[list]:
    """Run in an engine's process: a seeded game of 4 normal players; at the first `count`
    searched decisions of seat 0 (from the 3rd on, every 2nd), a hard player decides.
    Per position [simulations, rounds, seconds, candidates, stopped]."""
    from ai.hard import HardPlayer
    from ai.normal import NormalPlayer
    from rules import Config, apply, new_game, observe, pending
    cards = _cards(cards_path)
    players = [NormalPlayer(cards, seed * 101 + i) for i in range(4)]
    hard = HardPlayer(cards, seed, budget)
    state, _ = new_game(Config(players=4), cards, seed)
    out: list[list] = []
    searched = 0
    while running(state) and len(out) < count:
        seat = pending(state).seats[0]
        obs = observe(state, seat)
        legal = obs.legal
        if seat == 0 and hard._searched(obs, legal):
            searched += 1
            if searched >= 3 and searched % 2 == 1:
                t = time.perf_counter()
                hard.choose(obs, legal)
                dt = time.perf_counter() - t
                st = hard.last_search or {}
                out.append([st.get("sims", 0), st.get("rounds", 0), dt,
                            st.get("candidates", len(legal)), st.get("stopped", "")])
        state, _ = apply(state, players[seat].choose(obs, legal))
    return out


def main(argv: list[str] | None = None) -> int:
    from _engines import BASE, OldAndNew, median

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--games", type=int, help="simulate games per engine and round (default 6)")
    p.add_argument("--positions", type=int, help="hard positions per game (default 4)")
    p.add_argument("--budget", type=float, default=0.5)
    p.add_argument("--base", default=BASE)
    args = p.parse_args(argv)
    rounds = 2 if args.quick else 3
    games = args.games or (3 if args.quick else 6)
    per_game = args.positions or (3 if args.quick else 4)
    hard_games = 2 if args.quick else 3
    sim = {"old": [], "new": []}
    hard = {"old": [], "new": []}
    same = True
    with OldAndNew(args.base) as (old, new):
        cards_path = str(old.root / "cards.toml")
        print(f"AI speed: old = {args.base}, new = working tree; alternated, {rounds} rounds")
        for r in range(rounds):
            seeds = [500 + r * games + g for g in range(games)]
            got = {}
            for name, engine in (("old", old), ("new", new)):
                got[name] = engine.call("hard_sims", "simulate_games", seeds, cards_path)
                sim[name] += got[name]
            same &= [x[2:] for x in got["old"]] == [x[2:] for x in got["new"]]
            for g in range(hard_games):
                seed = 900 + r * hard_games + g
                for name, engine in (("old", old), ("new", new)):
                    hard[name] += engine.call("hard_sims", "hard_positions", seed, per_game,
                                              args.budget, cards_path)
            print(f"  round {r + 1}/{rounds} done", file=sys.stderr)
    print()
    print("1. tactical simulate / balance (play_one, 4 normal seats)")
    for name in ("old", "new"):
        rows = sim[name]
        cpu = sum(x[0] for x in rows)
        wall = sum(x[1] for x in rows)
        acts = sum(x[2] for x in rows)
        print(f"   {name}: {len(rows)} games, {len(rows) / cpu:.2f} games/s (CPU; wall "
              f"{len(rows) / wall:.2f}), {acts / len(rows):.0f} actions/game")
    ratio = (sum(x[0] for x in sim["old"]) / sum(x[0] for x in sim["new"]))
    print(f"   ratio {ratio:.2f}x   same games: {'yes' if same else 'NO'}")
    print(f"2. hard player, {args.budget} s budget: simulations per searched decision")
    for name in ("old", "new"):
        rows = hard[name]
        sims = [x[0] for x in rows]
        secs = [x[2] for x in rows]
        over = sum(s > 1.1 * args.budget for s in secs)
        print(f"   {name}: {len(rows)} decisions, sims mean {sum(sims) / len(sims):.1f} "
              f"median {median(sims):.0f}; decision s median {median(secs):.3f} max "
              f"{max(secs):.3f}; over budget+10 %: {over}")
    pairs = [(a[0], b[0]) for a, b in zip(hard["old"], hard["new"])]
    ratios = [b / a for a, b in pairs if a]
    mean_ratio = sum(b for _, b in pairs) / max(1, sum(a for a, _ in pairs))
    print(f"   ratio of mean sims {mean_ratio:.2f}x (median per position {median(ratios):.2f}x)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
