"""Fit the hard player's build value (`ai.build_weights.BUILD_WEIGHTS`): a logistic model
of a seat's chance to win a game of normal players (one model per player count) from its
revealed build.

    python bench/fit_hard_build.py [--games 16000] [--players 4] [--seed 40000] [--jobs 2]
                                   [--l2 10] [--cache FILE] [--write]

Plays `--games` games of normal self-play (seeds `seed`..), and when the battle starts
records every seat's race and equipped cards and whether it went on to win (a share 1/k
for k winners). The features are `ai.buildvalue.build_features`; the model is fitted by
Newton's method with an L2 penalty (`--l2`, not on the bias) on the first 80 % of the
games. Printed: the log loss on the other 20 % against the base rate and against a
logistic fit of the normal player's own `build_score`, then how often the model and
`build_score` rank the winner first. With `--write` the model refitted on all games is
written to `ai/build_weights.py` for this player count (the other counts are kept).
Needs numpy: `pip install -e .[bench]` (only this script does).
"""

from __future__ import annotations

import argparse
import math
import pickle
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ai.buildvalue import build_features  # noqa: E402
from ai.evaluate import build_score  # noqa: E402
from ai.normal import NormalPlayer  # noqa: E402
from rules import Config, apply, new_game, observe, pending  # noqa: E402
from rules.cards import default_cards  # noqa: E402
from ai.selfplay import running  # noqa: E402 - a game given up after ROUND_CAP rounds

_CARDS = None


def game(args):
    """One self-play game: [(race, equipped card ids, win share)] per seat."""
    global _CARDS
    players, seed = args
    if _CARDS is None:
        _CARDS = default_cards()
    cards = _CARDS
    seats = [NormalPlayer(cards, seed * 101 + i) for i in range(players)]
    state, _ = new_game(Config(players=players), cards, seed)
    builds = None
    while running(state):
        if builds is None and state.phase == "battle":
            builds = [(s.race, tuple(cards.card(c).id for c in s.equipped)) for s in state.seats]
        s = pending(state).seats[0]
        obs = observe(state, s)
        state, _ = apply(state, seats[s].choose(obs, obs.legal))
    share = {w: 1 / len(state.winners) for w in state.winners}
    return [(race, eq, share.get(i, 0.0)) for i, (race, eq) in enumerate(builds)]


def fit(x, y, l2, iters=50):
    """Logistic regression by Newton's method; column 0 is the (unpenalised) bias."""
    w = np.zeros(x.shape[1])
    pen = np.full(x.shape[1], l2)
    pen[0] = 0.0
    for _ in range(iters):
        p = 1 / (1 + np.exp(-np.clip(x @ w, -30, 30)))
        g = x.T @ (p - y) + pen * w
        h = (x * (p * (1 - p))[:, None]).T @ x + np.diag(pen)
        step = np.linalg.solve(h, g)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def logloss(p, y):
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


def matrix(cards, samples, names=None):
    feats = [build_features(cards, race, eq) for race, eq, _ in samples]
    if names is None:
        names = sorted({k for f in feats for k in f})
    index = {k: i + 1 for i, k in enumerate(names)}
    x = np.zeros((len(samples), len(names) + 1))
    x[:, 0] = 1.0
    for r, f in enumerate(feats):
        for k, v in f.items():
            if k in index:
                x[r, index[k]] = v
    return x, names


def top_hits(scores, games, offset):
    """How often the highest score at a table belongs to a winner (share-weighted)."""
    hit = 0.0
    i = offset
    for g in games:
        s = scores[i:i + len(g)]
        best = int(np.argmax(s))
        hit += g[best][2]
        i += len(g)
    return hit / len(games)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=16000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=40000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--l2", type=float, default=10.0)
    ap.add_argument("--cache", default=None,
                    help="a pickle file to keep the games in, and to reuse them from if it exists")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    cards = default_cards()
    games = None
    if args.cache and Path(args.cache).exists():
        games = pickle.loads(Path(args.cache).read_bytes())
    if games is None:
        work = [(args.players, args.seed + g) for g in range(args.games)]
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            games = list(pool.map(game, work, chunksize=16))
        if args.cache:
            Path(args.cache).write_bytes(pickle.dumps(games))
    cut = int(0.8 * len(games))
    train = [s for g in games[:cut] for s in g]
    test = [s for g in games[cut:] for s in g]
    x, names = matrix(cards, train)
    y = np.array([s[2] for s in train])
    w = fit(x, y, args.l2)
    xt, _ = matrix(cards, test, names)
    yt = np.array([s[2] for s in test])
    pt = 1 / (1 + np.exp(-(xt @ w)))
    base = float(y.mean())
    sb = np.array([[1.0, build_score(cards, r, e)] for r, e, _ in train])
    wb = fit(sb, y, 0.0)
    sbt = np.array([[1.0, build_score(cards, r, e)] for r, e, _ in test])
    pb = 1 / (1 + np.exp(-(sbt @ wb)))
    print(f"{args.players} players, {len(games)} games of normal self-play, "
          f"{len(train)} + {len(test)} seats (train + test), {len(names)} features")
    print(f"  test log loss: base rate {logloss(np.full(len(yt), base), yt):.4f}, "
          f"build_score {logloss(pb, yt):.4f}, model {logloss(pt, yt):.4f}")
    print(f"  winner has the table's best score: build_score "
          f"{top_hits(sbt[:, 1], games[cut:], 0):.1%}, model {top_hits(xt @ w, games[cut:], 0):.1%} "
          f"(chance {1 / args.players:.0%})")
    if args.write:
        xa, names = matrix(cards, train + test)
        ya = np.array([s[2] for s in train + test])
        wa = fit(xa, ya, args.l2)
        write(args, len(games), {"bias": float(wa[0]),
                                 **{k: float(v) for k, v in zip(names, wa[1:])}})
        order = sorted(zip(names, wa[1:]), key=lambda t: t[1])
        print("  lowest:", ", ".join(f"{k} {v:+.2f}" for k, v in order[:8]))
        print("  highest:", ", ".join(f"{k} {v:+.2f}" for k, v in order[-8:]))


def write(args, games, weights):
    """Replace this player count's weights in ai/build_weights.py, keep the others."""
    from ai.build_weights import BUILD_WEIGHTS
    import ai.build_weights as module
    doc = module.__doc__.strip().splitlines()
    head = [line for line in doc if not line.startswith(f"{args.players} players:")]
    head.append(f"{args.players} players: {games} games of normal self-play, seeds "
                f"{args.seed}.., L2 {args.l2:g}.")
    table = dict(BUILD_WEIGHTS)
    table[args.players] = {k: v for k, v in weights.items() if k == "bias" or abs(v) >= 5e-5}
    lines = ['"""' + "\n".join(head[:1]), *head[1:], '"""', "",
             "BUILD_WEIGHTS: dict[int, dict[str, float]] = {"]
    for n in sorted(table):
        lines.append(f"    {n}: {{")
        lines += [f"        {k!r}: {v:.4f}," for k, v in table[n].items()]
        lines.append("    },")
    lines.append("}")
    (ROOT / "ai" / "build_weights.py").write_text("\n".join(lines) + "\n")
    print("written: ai/build_weights.py")


if __name__ == "__main__":
    main()
