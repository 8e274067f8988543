"""`tactical ladder`: seeded games among the AI levels, rated with a multiplayer rating.

Each game has 3, 4 or 5 seats (cycled through `--players`), filled from `--levels`
(every level once before any level twice, the levels chosen by the game's seed) and
rotated by the game's number, so no level keeps a seat. A game's result is a ranking:
its winners first (tied), every other seat after them (tied). The levels are rated by
openskill's Plackett-Luce model (the Weng-Lin Bayesian approximation for rankings of
many players), updated game by game in the order of the games — so the same seeds give
the same table whatever `--jobs` or a resumed `--log` did. A level that holds two seats
of one game is rated as two entrants from the same rating, and its two changes averaged.
A game given up unfinished after `ai.selfplay.ROUND_CAP` rounds has no ranking: it is
counted, not rated.

The hard player searches under a simulation cap (`--sims`, 28 as in bench/ai_hard.py)
with its clock off: the results then do not depend on the machine's speed or load.
"""

from __future__ import annotations

import json
import random
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Callable, Iterable, Optional, Sequence

from tactical_tui.text.safe import as_text

DEFAULT_LEVELS = ("random", "easy", "normal", "hard")
DEFAULT_PLAYERS = (3, 4, 5)
HARD_SIMS = 28          # bench/ai_hard.py's cap (docs/MEASURED.md: the hard player after the rule changes)

_CARDS = None


def schedule(games: int, seed: int, levels: Sequence[str],
             players: Sequence[int]) -> list[tuple[int, tuple[str, ...]]]:
    """(seed, seats) of each game: the seat count cycles through `players`; the levels
    are every level once (in a seeded random order) before any twice, then the seats
    are rotated by the game's number."""
    out = []
    for g in range(games):
        n = players[g % len(players)]
        rng = random.Random(f"ladder {seed} {g}")
        chosen: list[str] = []
        while len(chosen) < n:
            pool = list(levels)
            rng.shuffle(pool)
            chosen += pool[:n - len(chosen)]
        chosen.sort(key=levels.index)
        r = g % n
        out.append((seed + g, tuple(chosen[r:] + chosen[:r])))
    return out


def play(args) -> dict:
    """One game: {seed, seats, winners, reason, rounds}. `args`: (seats, seed, sims)."""
    global _CARDS
    seats, seed, sims = args
    from ai import make_player
    from ai.hard import HardPlayer
    from ai.selfplay import running
    from rules import Config, apply, new_game, observe, pending
    from rules.cards import default_cards
    if _CARDS is None:
        _CARDS = default_cards()
    cards = _CARDS
    players = [HardPlayer(cards, seed * 101 + i, None, sims) if lv == "hard" and sims
               else make_player(lv, seed * 101 + i, cards) for i, lv in enumerate(seats)]
    state, _ = new_game(Config(players=len(seats)), cards, seed)
    while running(state):               # or given up after ROUND_CAP rounds: unfinished
        s = pending(state).seats[0]
        obs = observe(state, s)
        state, _ = apply(state, players[s].choose(obs, obs.legal))
    return {"seed": seed, "seats": list(seats), "winners": list(state.winners),
            "reason": state.end_reason or "unfinished",
            "rounds": state.battle.round if state.battle else 0}


def rate(results: Iterable[dict], levels: Sequence[str]) -> dict:
    """Ratings (openskill Plackett-Luce), win shares, games and the head-to-head matrix
    from `results` in game order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {lv: model.rating(name=lv) for lv in levels}
    games = defaultdict(int)            # seats held (a level twice in a game: 2)
    wins = defaultdict(float)           # win share summed over its seats
    fair = defaultdict(float)           # the fair share summed over its seats
    h2h = defaultdict(lambda: [0.0, 0])  # (a, b): a's wins over b, decided games
    rated = unfinished = 0
    for r in results:
        seats, winners = r["seats"], r["winners"]
        if not winners:
            unfinished += 1
            continue
        rated += 1
        n = len(seats)
        share = [1 / len(winners) if i in winners else 0.0 for i in range(n)]
        for lv, sh in zip(seats, share):
            games[lv] += 1
            wins[lv] += sh
            fair[lv] += 1 / n
        for i, a in enumerate(seats):
            for j, b in enumerate(seats):
                if a != b and (share[i] or share[j]):
                    cell = h2h[a, b]
                    cell[0] += share[i] / (share[i] + share[j])
                    cell[1] += 1
        teams = [[model.rating(mu=ratings[lv].mu, sigma=ratings[lv].sigma, name=lv)]
                 for lv in seats]
        new = model.rate(teams, ranks=[1 if i in winners else 2 for i in range(n)])
        moved = defaultdict(list)
        for lv, team in zip(seats, new):
            moved[lv].append((team[0].mu, team[0].sigma))
        for lv, xs in moved.items():
            ratings[lv].mu = sum(m for m, _ in xs) / len(xs)
            ratings[lv].sigma = sum(s for _, s in xs) / len(xs)
    rows = []
    for lv in levels:
        rt = ratings[lv]
        rows.append({"level": lv, "mu": rt.mu, "sigma": rt.sigma, "games": games[lv],
                     "wins": wins[lv], "fair": fair[lv]})
    rows.sort(key=lambda x: (-x["mu"], x["level"]))
    matrix = {(a, b): (c[0] / c[1] if c[1] else None, c[1]) for (a, b), c in h2h.items()}
    return {"rows": rows, "matrix": matrix, "rated": rated, "unfinished": unfinished}


def _key(seed: int, seats: Sequence[str], sims: Optional[int]) -> str:
    return json.dumps([seed, list(seats), sims])


def run(games: int, seed: int, levels: Sequence[str], players: Sequence[int], jobs: int = 1,
        sims: Optional[int] = HARD_SIMS, log: Optional[Path] = None,
        progress: Optional[Callable[[], None]] = None) -> list[dict]:
    """Play (or read back from `log`) the games of the schedule; their results in game
    order. With `log`, each finished game is appended as one JSON line, and a game
    already there (same seed, seats and hard's cap) is not played again."""
    from tactical_tui.tools.simulate import worker_count

    plan = schedule(games, seed, levels, players)
    done: dict[str, dict] = {}
    if log is not None and log.exists():
        for line in log.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
                done[_key(rec["seed"], rec["seats"], rec["sims"])] = rec
            except (ValueError, KeyError, TypeError):
                continue                # a line cut by a stopped run
    todo = [(seats, s, sims) for s, seats in plan if _key(s, seats, sims) not in done]
    for _ in range(len(plan) - len(todo)):
        if progress:
            progress()
    out = log.open("a", encoding="utf-8") if log is not None else None

    def record(r):
        r["sims"] = sims
        done[_key(r["seed"], r["seats"], sims)] = r
        if out is not None:
            out.write(json.dumps(r) + "\n")
            out.flush()
        if progress:
            progress()

    try:
        jobs = worker_count(jobs, max(1, len(todo)))
        if jobs > 1:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                for r in pool.map(play, todo):
                    record(r)
        else:
            for w in todo:
                record(play(w))
    finally:
        if out is not None:
            out.close()
    return [done[_key(s, seats, sims)] for s, seats in plan]


def table_lines(summary: dict, levels: Sequence[str]) -> tuple:
    """The ratings table and the head-to-head matrix as rich Tables."""
    from rich.table import Table

    ratings = Table(title=f"{summary['rated']} rated games"
                    + (f", {summary['unfinished']} given up unfinished" if summary["unfinished"] else ""))
    for col in ("level", "rating", "± 2σ", "win rate", "fair share", "× fair", "games"):
        ratings.add_column(col, justify="left" if col == "level" else "right")
    for row in summary["rows"]:
        g = row["games"]
        ratings.add_row(as_text(row["level"]), f"{row['mu']:.1f}", f"{2 * row['sigma']:.1f}",
                        f"{row['wins'] / g:.1%}" if g else "–",
                        f"{row['fair'] / g:.1%}" if g else "–",
                        f"{row['wins'] / row['fair']:.2f}" if row["fair"] else "–", str(g))
    order = [r["level"] for r in summary["rows"]]
    matrix = Table(title="head to head: the row's share of the games one of the two won")
    matrix.add_column("")
    for b in order:
        matrix.add_column(as_text(b), justify="right")
    for a in order:
        cells = []
        for b in order:
            rate, n = summary["matrix"].get((a, b), (None, 0))
            cells.append("" if a == b else "–" if rate is None else f"{rate:.0%} ({n})")
        matrix.add_row(as_text(a), *cells)
    return ratings, matrix


def run_cli(games: int, seed: int, levels_arg: str, players_arg: str, jobs: int,
            sims: int, log: Optional[str]) -> int:
    """`tactical ladder`: a progress bar, then the ratings highest first and the
    head-to-head matrix."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from ai.base import LEVELS

    console = Console()
    levels = tuple(dict.fromkeys(x.strip() for x in levels_arg.split(",") if x.strip()))
    if len(levels) < 2 or any(x not in LEVELS for x in levels):
        console.print(as_text(f"--levels: two or more of {', '.join(LEVELS)} (got {levels_arg!r})"))
        return 2
    try:
        players = tuple(int(x) for x in players_arg.split(",") if x.strip())
    except ValueError:
        players = ()
    if not players or any(not 3 <= n <= 5 for n in players):
        console.print(as_text(f"--players: seat counts 3 to 5, comma-separated (got {players_arg!r})"))
        return 2
    if not 0 <= sims <= 10_000:
        console.print(f"--sims: 0 to 10,000 (got {sims})")
        return 2
    t0 = time.perf_counter()
    with Progress(TextColumn("games"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=console, transient=True) as progress:
        task = progress.add_task("games", total=games)
        results = run(games, seed, levels, players, jobs, sims or None,
                      Path(log) if log else None, progress=lambda: progress.advance(task))
    summary = rate(results, levels)
    ratings, matrix = table_lines(summary, levels)
    console.print(as_text(
        f"{games} games, seeds {seed}..{seed + games - 1}, seats {','.join(map(str, players))} "
        f"(rotated), levels {', '.join(levels)}"
        + ("" if "hard" not in levels else
           f"; hard: {sims} simulations per decision (no clock)" if sims else "; hard: its 0.5 s clock")
        + f"; {time.perf_counter() - t0:.0f} s"))
    console.print(ratings)
    console.print(matrix)
    console.print("rating: openskill Plackett-Luce μ (start 25); ± 2σ its uncertainty")
    return 0
