"""`tactical simulate`: headless games between AI levels, with win rates and timings."""

from __future__ import annotations

import math
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from typing import Iterable, Optional

from attrs import frozen

from ai import make_player
from ai.selfplay import ROUND_CAP, running
from rules import Config, apply, new_game, observe, pending
from rules.cards import CardSet, default_cards

from tactical_tui.text.safe import as_text


@frozen
class GameResult:
    seats: tuple[str, ...]            # the level of each seat in this game
    winners: tuple[int, ...]
    reason: Optional[str]
    rounds: int
    actions: int
    times: tuple[tuple[str, float, int], ...]   # (level, seconds, decisions)
    builds: tuple[tuple[str, str, tuple[str, ...]], ...] = ()   # per seat: race, guild, cards


def play_one(levels: tuple[str, ...], seed: int, cards: Optional[CardSet] = None) -> GameResult:
    cards = cards or default_cards()
    players = [make_player(l, seed * 101 + i, cards) for i, l in enumerate(levels)]
    state, _ = new_game(Config(players=len(levels)), cards, seed)
    spent: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    actions = 0
    while running(state):               # or given up after ROUND_CAP rounds: unfinished
        seat = pending(state).seats[0]
        obs = observe(state, seat)
        t = time.perf_counter()
        action = players[seat].choose(obs, obs.legal)
        dt = time.perf_counter() - t
        spent[levels[seat]][0] += dt
        spent[levels[seat]][1] += 1
        state, _ = apply(state, action)
        actions += 1
    builds = tuple((s.race or "", s.guild, tuple(sorted({cards.card(c).id for c in s.equipped})))
                   for s in state.seats)
    return GameResult(levels, state.winners, state.end_reason or "unfinished",
                      state.battle.round if state.battle else 0, actions,
                      tuple((k, v[0], v[1]) for k, v in spent.items()), builds)


def rotations(seats: tuple[str, ...], games: int) -> Iterable[tuple[str, ...]]:
    """Seats rotated across games so no level keeps the same seat."""
    n = len(seats)
    for g in range(games):
        r = g % n
        yield seats[r:] + seats[:r]


def _play(args):
    levels, seed = args
    return play_one(levels, seed)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a win rate."""
    if n == 0:
        return 0.0, 0.0
    p = wins / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def worker_count(jobs: int, games: int) -> int:
    """The processes a run of `games` games really uses for `--jobs jobs`: never more than
    the games, nor than the cores (`--jobs 100000` started a process each)."""
    import os
    return max(1, min(jobs, games, os.cpu_count() or 1))


def simulate(games: int, seats: tuple[str, ...], seed: int = 0, jobs: int = 1,
             progress=None) -> list[GameResult]:
    jobs = worker_count(jobs, games)
    work = [(lv, seed + g) for g, lv in enumerate(rotations(seats, games))]
    results: list[GameResult] = []
    if jobs <= 1:
        for w in work:
            results.append(_play(w))
            if progress:
                progress()
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for r in pool.map(_play, work, chunksize=max(1, games // (jobs * 8))):
                results.append(r)
                if progress:
                    progress()
    return results


def summarize(results: list[GameResult], seats: tuple[str, ...]) -> dict:
    levels = sorted(set(seats))
    wins: dict[str, float] = defaultdict(float)
    plays: dict[str, int] = defaultdict(int)
    times: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for r in results:
        for i, lv in enumerate(r.seats):
            plays[lv] += 1
        for w in r.winners:
            wins[r.seats[w]] += 1 / len(r.winners)
        for lv, t, n in r.times:
            times[lv][0] += t
            times[lv][1] += n
    games = len(results)
    out = {"games": games, "levels": {}, "rounds": sum(r.rounds for r in results) / max(1, games),
           "actions": sum(r.actions for r in results) / max(1, games),
           "reasons": dict(sorted(_count(r.reason for r in results).items()))}
    for lv in levels:
        seats_of = seats.count(lv)
        n = games * seats_of
        rate = wins[lv] / n if n else 0.0
        lo, hi = wilson(wins[lv], n)
        t, k = times[lv]
        out["levels"][lv] = {"seats": seats_of, "win_rate": rate, "ci": (lo, hi),
                             "fair": 1 / len(seats), "ms_per_decision": 1000 * t / k if k else 0.0}
    return out


def _count(items):
    c: dict = defaultdict(int)
    for x in items:
        c[x] += 1
    return c


def run_cli(games: int, players: Optional[int], seats_arg: str, seed: int, jobs: int) -> int:
    """`tactical simulate`: a progress bar, then win rates with 95 % intervals, game
    length and decision time per level."""
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from ai.base import LEVELS

    console = Console()
    seats = tuple(x.strip() for x in seats_arg.split(",") if x.strip())
    bad = [x for x in seats if x not in LEVELS]
    if bad or not 3 <= len(seats) <= 5:
        console.print(as_text(f"--seats: 3 to 5 of {', '.join(LEVELS)} (got {seats_arg!r})"))
        return 2
    if players is not None and players != len(seats):
        console.print(f"--players {players} but --seats names {len(seats)} seats")
        return 2
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("games", total=games)
        results = simulate(games, seats, seed, jobs, progress=lambda: progress.advance(task))
    summary = summarize(results, seats)
    table = Table(title=f"{games} games, seats {', '.join(seats)} (rotated)")
    for col in ("level", "seats", "win rate", "95 % interval", "fair share", "ms / decision"):
        table.add_column(col, justify="right")
    for lv, row in summary["levels"].items():
        lo, hi = row["ci"]
        table.add_row(lv, str(row["seats"]), f"{row['win_rate']:.1%}", f"{lo:.1%}–{hi:.1%}",
                      f"{row['fair']:.1%}", f"{row['ms_per_decision']:.2f}")
    console.print(table)
    console.print(f"mean length: {summary['rounds']:.1f} battle rounds, {summary['actions']:.0f} "
                  f"actions; endings: {summary['reasons']}")
    return 0


def balance(results: list[GameResult]) -> dict[str, list[tuple[str, int, float, float]]]:
    """Win rate by race, guild and card (when equipped): (id, plays, wins, ratio to the
    fair share 1/players)."""
    out: dict[str, dict[str, list[float]]] = {"race": {}, "guild": {}, "card": {}}
    for r in results:
        n = len(r.seats)
        for i, (race, guild, cards) in enumerate(r.builds):
            share = (1 / len(r.winners)) if i in r.winners else 0.0
            for kind, key in [("race", race), ("guild", guild)] + [("card", c) for c in cards]:
                if not key:
                    continue
                row = out[kind].setdefault(key, [0, 0.0, 0.0])
                row[0] += 1
                row[1] += share
                row[2] += 1 / n
    return {kind: sorted(((k, int(v[0]), v[1], (v[1] / v[2]) if v[2] else 0.0)
                          for k, v in rows.items()), key=lambda x: -x[1])
            for kind, rows in out.items()}


def run_balance_cli(games: int, players: int, seed: int, jobs: int, csv_path: Optional[str],
                    min_plays: int, lang: str) -> int:
    """`tactical balance`: normal AI seats; win rate by race, guild and equipped card, as
    tables and optionally CSV."""
    import csv

    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    console = Console()
    if csv_path:
        from tactical_tui.tools.scenario import ExportError, writable_target
        try:                                # said now, not after the games
            writable_target(csv_path)
        except ExportError as exc:
            console.print(as_text(exc.text(lang)))
            return 2
    cards = default_cards()
    seats = ("normal",) * players
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("games", total=games)
        results = simulate(games, seats, seed, jobs, progress=lambda: progress.advance(task))
    table = balance(results)
    name = {"race": lambda k: cards.race(k).name.get(lang), "guild": lambda k: cards.guild(k).name.get(lang),
            "card": lambda k: cards.card(k).name.get(lang)}
    for kind, rows in table.items():
        t = Table(title=f"{kind} — {games} games, {players} normal seats (fair share {1 / players:.0%})")
        for col in ("id", "name", "plays", "wins", "win rate", "× fair"):
            t.add_column(col, justify="right" if col not in ("id", "name") else "left")
        for key, plays, wins, ratio in rows:
            if plays < min_plays:
                continue
            flag = "" if 0.5 <= ratio <= 1.5 else " !"
            t.add_row(as_text(key), as_text(name[kind](key)), str(plays), f"{wins:.1f}", f"{wins / plays:.1%}",
                      f"{ratio:.2f}{flag}")
        console.print(t)
    # the rules end a game only at 5 VP (RULINGS R19): a game past ROUND_CAP counts for nobody
    unfinished = sum(1 for r in results if r.reason == "unfinished")
    console.print(f"games given up unfinished after {ROUND_CAP} rounds: {unfinished} of {games}")
    if csv_path:
        import io

        from tactical_tui.tools.scenario import ExportError, write_new_file
        buf = io.StringIO(newline="")
        w = csv.writer(buf)
        w.writerow(["kind", "id", "plays", "wins", "win_rate", "ratio_to_fair"])
        for kind, rows in table.items():
            for key, plays, wins, ratio in rows:
                w.writerow([kind, key, plays, f"{wins:.2f}", f"{wins / plays:.4f}", f"{ratio:.3f}"])
        try:                                # whole or not at all; never into a pipe or device
            write_new_file(csv_path, buf.getvalue(), overwrite=True)
        except ExportError as exc:
            console.print(as_text(exc.text(lang)))
            return 1
        console.print(as_text(f"CSV: {csv_path}"))
    return 0
