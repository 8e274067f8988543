"""Fit the hard player's leaf value (`ai.hard.VALUE`): a logistic model of a seat's
chance to win a game of normal players, from the public battle facts at a turn start.

    python bench/fit_hard_value.py [--games 1500] [--players 4] [--seed 20000] [--jobs 2]

Plays `--games` games of normal self-play (seeds `seed`..), and at the start of every
battle turn (the moment the hard player's simulations stop at) records, for every seat,
the features of `ai.hard.features` and whether that seat went on to win (a share 1/k for
k winners). The samples are grouped by their (discrete) feature vectors and the logistic
model fitted by Newton's method (L2 penalty `--l2`) on the first 80 % of the games; the
log loss and Brier score on the other 20 % are printed against a VP-only table (the win
rate by own VP and the best other seat's, both capped at 4, measured on the same 80 %),
then the model refitted on all games is printed, ready to paste into `ai.hard.VALUE`.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai.hard import FEATURES, features  # noqa: E402
from ai.normal import NormalPlayer  # noqa: E402
from rules import Config, apply, new_game, observe, pending  # noqa: E402
from rules.cards import default_cards  # noqa: E402
from ai.selfplay import running  # noqa: E402 - a game given up after ROUND_CAP rounds

_CARDS = None


def game(args):
    """One self-play game: [(feature vector, win share)] for every seat at every turn
    start, and the VP pairs (mine, best other's) for the table comparison."""
    global _CARDS
    players, seed = args
    if _CARDS is None:
        _CARDS = default_cards()
    cards = _CARDS
    seats = [NormalPlayer(cards, seed * 101 + i) for i in range(players)]
    state, _ = new_game(Config(players=players), cards, seed)
    points = []
    last = None
    while running(state):
        if state.phase == "battle":
            b = state.battle
            mark = (b.round, b.turn.seat)
            if mark != last:
                last = mark
                for me in range(players):
                    mine = state.seats[me].vp
                    best = max(s.vp for i, s in enumerate(state.seats) if i != me)
                    points.append((me, features(state, me), (mine, best)))
        s = pending(state).seats[0]
        obs = observe(state, s)
        state, _ = apply(state, seats[s].choose(obs, obs.legal))
    share = {w: 1 / len(state.winners) for w in state.winners}
    return [(f, share.get(me, 0.0), vp) for me, f, vp in points]


def fit(groups, l2, iters=30):
    """Newton's method on grouped samples: groups maps a feature tuple to [n, wins]."""
    k = len(FEATURES) + 1
    w = [0.0] * k
    rows = [((1.0,) + f, n, y) for f, (n, y) in groups.items()]
    for _ in range(iters):
        g = [0.0] * k
        h = [[0.0] * k for _ in range(k)]
        for x, n, y in rows:
            z = sum(a * b for a, b in zip(w, x))
            p = 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
            r = n * p - y
            s = n * p * (1 - p)
            for i in range(k):
                g[i] += r * x[i]
                si = s * x[i]
                hi = h[i]
                for j in range(i, k):
                    hi[j] += si * x[j]
        for i in range(k):
            for j in range(i):
                h[i][j] = h[j][i]
            if i:
                g[i] += l2 * w[i]
                h[i][i] += l2
        step = _solve(h, g)
        w = [a - b for a, b in zip(w, step)]
        if max(abs(s) for s in step) < 1e-7:
            break
    return w


def _solve(a, b):
    """Gaussian elimination with partial pivoting (a small dense system)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for j in range(c, n + 1):
                m[r][j] -= f * m[c][j]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][j] * x[j] for j in range(r + 1, n))) / m[r][r]
    return x


def score(samples, predict):
    """(log loss, Brier score) of `predict` on (features, share, vp) samples."""
    ll = br = 0.0
    for f, y, vp in samples:
        p = min(1 - 1e-6, max(1e-6, predict(f, vp)))
        ll -= y * math.log(p) + (1 - y) * math.log(1 - p)
        br += (p - y) ** 2
    return ll / len(samples), br / len(samples)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=1500)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=20000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--l2", type=float, default=1.0)
    args = ap.parse_args()
    work = [(args.players, args.seed + g) for g in range(args.games)]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        games = list(pool.map(game, work, chunksize=4))
    cut = int(0.8 * len(games))

    def grouped(gs):
        groups = defaultdict(lambda: [0, 0.0])
        for g in gs:
            for f, y, _ in g:
                groups[f][0] += 1
                groups[f][1] += y
        return groups

    train = grouped(games[:cut])
    test = [s for g in games[cut:] for s in g]
    w = fit(train, args.l2)
    table = defaultdict(lambda: [0, 0.0])
    for g in games[:cut]:
        for _, y, (mine, best) in g:
            cell = table[min(mine, 4), min(best, 4)]
            cell[0] += 1
            cell[1] += y

    def vp_table(_f, vp):
        n, won = table.get((min(vp[0], 4), min(vp[1], 4)), (0, 0.0))
        return (won + 1 / args.players) / (n + 1)

    def model(f, _vp):
        z = w[0] + sum(a * b for a, b in zip(w[1:], f))
        return 1 / (1 + math.exp(-z))

    print(f"{args.players} players, {args.games} games of normal self-play (seeds "
          f"{args.seed}..{args.seed + args.games - 1}), "
          f"{sum(len(g) for g in games)} samples; test: the last 20 % of the games")
    print("  VP table: log loss %.4f, Brier %.4f" % score(test, vp_table))
    print("  model:    log loss %.4f, Brier %.4f" % score(test, model))
    w = fit(grouped(games), args.l2)
    print("refitted on all games:")
    print(f"    {args.players}: ({w[0]:.3f},  # bias")
    for name, c in zip(FEATURES, w[1:]):
        print(f"        {c:.3f},  # {name}")
    print("    ),")


if __name__ == "__main__":
    main()
