"""The hard player's targets (AI issue), measured: hard vs 3 normal, seats rotated.

    python bench/ai_hard.py [--games 100] [--budget 0.5] [--players 4] [--seed 0] [--jobs 1]
                            [--baseline] [--sims N] [--set NAME=VALUE ...] [--kinds K,...]
                            [--planner]

Prints hard's win rate with its 95 % (Wilson) interval against the fair share (and, with
`--baseline`, against a normal player in the same seat of the same seeds), and the
hard player's decision times against its budget: searched battle decisions (mean, p50,
p99, max, and how many went over budget + 10 %) and all its decisions. Illegal actions:
`apply` raises on any, so a finished run means zero. Timings are only meaningful with
one game per free core (`--jobs` above the free cores inflates them).

`--sims N` caps the hard player's search at N rounds of simulations per decision and
turns its clock off: the results then do not depend on the machine's speed or load
(for tuning; the time figures are then not against a budget). `--set horizon=2` (or
MARGIN, Z, ...) sets an attribute of the hard player (with `--planner`, of the planner:
LOW, HIGH, CONTESTED, ...), for tuning. `--kinds turn,draw` searches only those decision
kinds (the others are the normal player's choice): what the search of each is worth. `--planner` puts the
hard player's planning alone in its seat (`ai.planner.PlanningPlayer`: draft, bids and
build by the learned build value, every battle decision the normal player's, no search).

`--log FILE` appends one JSON line per finished game (and per baseline game) and, when
started again with the same arguments, plays only the games not yet in it: a long run
that is stopped goes on where it was. The summary is printed from every game in the log
that belongs to this run (its arguments are recorded in each line).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai import make_player  # noqa: E402
from ai.hard import SEARCHED, HardPlayer  # noqa: E402
from ai.planner import PlanningPlayer  # noqa: E402
from rules import Config, apply, new_game, observe, pending  # noqa: E402
from rules.cards import default_cards  # noqa: E402
from tactical_tui.tools.simulate import rotations, wilson  # noqa: E402
from ai.selfplay import running  # noqa: E402 - a game given up after ROUND_CAP rounds

_CARDS = None


def play(args):
    """One game; returns (the focus seat's win share, searched decision times, all hard
    times, (simulations, rounds) per searched decision). The focus seat is hard's, or
    `focus`. `cap`: hard's simulation cap (no clock) or None (its clock, `budget`)."""
    global _CARDS
    levels, seed, budget, cap, tune, *focus = args
    if _CARDS is None:
        _CARDS = default_cards()
    cards = _CARDS
    players = [PlanningPlayer(cards, seed * 101 + i) if lv == "planner"
               else make_player(lv, seed * 101 + i, cards, budget=budget)
               if lv != "hard" or cap is None else HardPlayer(cards, seed * 101 + i, None, cap)
               for i, lv in enumerate(levels)]
    for p, lv in zip(players, levels):
        if lv in ("hard", "planner"):
            for name, value in tune:
                setattr(p, name, tuple(value.split(",")) if name == "searched" else value)
    state, _ = new_game(Config(players=len(levels)), cards, seed)
    searched, every, sims = [], [], []
    while running(state):
        s = pending(state).seats[0]
        obs = observe(state, s)
        t = time.perf_counter()
        action = players[s].choose(obs, obs.legal)
        dt = time.perf_counter() - t
        if levels[s] in ("hard", "planner"):
            every.append(dt)
            info = getattr(players[s], "last_search", None)
            if info is not None:
                searched.append(dt)
                sims.append((info["sims"], info["rounds"]))
        state, _ = apply(state, action)
    me = focus[0] if focus else next(i for i, lv in enumerate(levels) if lv != "normal")
    share = sum(1 / len(state.winners) for w in state.winners if w == me)
    return share, searched, every, sims


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * q))] if xs else 0.0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--budget", type=float, default=0.5)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--sims", type=int, default=None,
                   help="cap hard's search at this many rounds per decision, no clock")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="set a hard player attribute for tuning (horizon, MARGIN, Z, ...)")
    p.add_argument("--kinds", default=None, metavar="KIND,...",
                   help="search only these decision kinds (turn, skills, targets, defense, "
                        "unluck, draw, counter); the others are the normal player's choice")
    p.add_argument("--planner", action="store_true",
                   help="the planner alone (no battle search) in hard's seat")
    p.add_argument("--baseline", action="store_true",
                   help="also play the same seeds with a normal player in hard's seat")
    p.add_argument("--log", type=Path, default=None,
                   help="append each game to this JSON-lines file; skip games already in it")
    args = p.parse_args()
    seats = ("planner" if args.planner else "hard",) + ("normal",) * (args.players - 1)
    tune = tuple((k, float(v)) for k, v in (x.split("=", 1) for x in args.set))
    if args.kinds is not None:
        kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
        if not set(kinds) <= set(SEARCHED) or args.planner:
            p.error(f"--kinds: a comma-separated list of {', '.join(SEARCHED)} (not with --planner)")
        tune += (("searched", ",".join(kinds)),)
    work = [(lv, args.seed + g, args.budget, args.sims, tune)
            for g, lv in enumerate(rotations(seats, args.games))]
    # A game is named by what decides it: its seats, seed, clock or cap, and tuning.
    run = {"budget": args.budget, "sims": args.sims, "tune": [list(t) for t in tune]}
    jobs = [("main", w, w) for w in work]
    if args.baseline:
        jobs += [("baseline", w, (tuple("normal" for _ in w[0]), w[1], w[2], w[3], (),
                                  w[0].index(seats[0]))) for w in work]
    done_games = {}
    if args.log is not None and args.log.exists():
        for line in args.log.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a line cut by a stopped run
            done_games[(rec["kind"], tuple(rec["levels"]), rec["seed"], json.dumps(rec["run"]))] = rec

    def key(kind, w):
        return (kind, tuple(w[0]), w[1], json.dumps(run))

    todo = [(kind, w, a) for kind, w, a in jobs if key(kind, w) not in done_games]
    t0 = time.perf_counter()
    log = args.log.open("a", encoding="utf-8") if args.log is not None else None
    done = len(jobs) - len(todo)

    def record(kind, w, r):
        nonlocal done
        rec = {"kind": kind, "levels": list(w[0]), "seed": w[1], "run": run,
               "share": r[0], "searched": r[1], "every": r[2], "sims": r[3]}
        done_games[key(kind, w)] = rec
        if log is not None:
            log.write(json.dumps(rec) + "\n")
            log.flush()
        done += 1
        print(f"\r{done}/{len(jobs)} games", end="", file=sys.stderr, flush=True)

    try:
        if args.jobs > 1:
            with ProcessPoolExecutor(max_workers=args.jobs) as pool:
                for (kind, w, _), r in zip(todo, pool.map(play, [a for _, _, a in todo])):
                    record(kind, w, r)
        else:
            for kind, w, a in todo:
                record(kind, w, play(a))
    finally:
        if log is not None:
            log.close()
    print(file=sys.stderr)
    wall = time.perf_counter() - t0
    mine = [done_games[key("main", w)] for w in work]
    wins = sum(r["share"] for r in mine)
    searched = [t for r in mine for t in r["searched"]]
    every = [t for r in mine for t in r["every"]]
    sims = [tuple(x) for r in mine for x in r["sims"]]
    n = args.games
    lo, hi = wilson(wins, n)
    limit = args.budget * 1.1
    over = sum(1 for t in searched if t > limit)
    print(f"{seats[0]} + {args.players - 1} normal, {n} games (seats rotated, seeds {args.seed}.."
          f"{args.seed + n - 1}), "
          + (f"sims {args.sims} (no clock)" if args.sims else f"budget {args.budget:.3f} s")
          + "".join(f", {k}={v}" if isinstance(v, str) else f", {k}={v:g}" for k, v in tune)
          + f", jobs {args.jobs}, wall {wall:.0f} s"
          + (f" ({len(jobs) - len(todo)} games from {args.log})" if len(todo) < len(jobs) else ""))
    print(f"{seats[0]} wins {wins:.1f}/{n} = {wins / n:.1%} (95 % CI {lo:.1%}–{hi:.1%}); "
          f"fair share {1 / args.players:.1%}")
    if args.baseline:
        base = sum(done_games[key("baseline", w)]["share"] for w in work)
        blo, bhi = wilson(base, n)
        print(f"baseline: normal in hard's seat, same seeds: {base:.1f}/{n} = {base / n:.1%} "
              f"(95 % CI {blo:.1%}–{bhi:.1%})")
    if searched:
        ms = [1000 * t for t in searched]
        print(f"searched decisions: {len(ms)}, mean {sum(ms) / len(ms):.1f} ms, "
              f"p50 {pct(ms, 0.5):.1f} ms, p99 {pct(ms, 0.99):.1f} ms, max {max(ms):.1f} ms; "
              f"over budget + 10 % ({1000 * limit:.0f} ms): {over}; "
              f"simulations per decision: mean {sum(x for x, _ in sims) / len(sims):.0f}, "
              f"min {min(x for x, _ in sims)}; rounds: mean {sum(r for _, r in sims) / len(sims):.0f}, "
              f"p50 {pct([r for _, r in sims], 0.5)}")
    if every:
        print(f"all hard decisions: {len(every)}, p99 {1000 * pct(every, 0.99):.1f} ms, "
              f"max {1000 * max(every):.1f} ms")


if __name__ == "__main__":
    main()
