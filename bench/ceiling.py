"""The ceiling (issue 34): how often a player that sees everything wins against normal players.

    python bench/ceiling.py --who ceiling|lucky|normal|hard [--players 4] [--games 300]
                            [--seed 5000] [--jobs 2] [--log FILE] [--phases draft,...]

Bench-only: nothing here is importable from `tactical_tui`, `ai` or `rules`, and no table
(`tactical`, `tactical host`) can seat these players (tests/test_ceiling.py checks both).

`ceiling` — `CeilingPlayer` — sees the whole `GameState`: every hand, both decks' order,
the RNG state (so the order of the chips every later draw will take out of the bag, and
the dice) and the other players' own state (the seat a normal player aims at). At each of
its decisions in `--phases` (default: all — draft, bidding, build, reveal and battle) it
plays every legal action in the real state and the game on to its end with the normal
policy for every seat (its own later decisions included: `ai.hard.RolloutPlayer`, the
normal player's exact decisions) — each a single exact rollout, since nothing is left to
chance for it — and keeps the normal player's choice unless another action's rollout ends
better for it (win share 1, or 1/k shared, against 0). It tries the normal choice first and
stops at the first candidate that wins outright. So its win rate is the chance that *some*
single deviation from normal play, with normal play after it, wins the game from the
position — repeated at every decision. Once a rollout wins, the next decision's normal
choice wins too (same rollout), so it never loses a game it has seen itself win.

`lucky` — `LuckyPlayer` — "honest but lucky": the normal player plus the order of the
chips (the game's RNG state) and nothing else. In the battle it runs the same exact
rollouts, but from a state rebuilt from its own observation (`ai.hard.determinize`: the
public battle, its own cards, empty hands for the others) with the real RNG state, and
with fresh normal players for the other seats (it does not read their state). Before the
battle it is the normal player.

`normal`, `hard` — the same seat played by those levels on the same seeds (hard with
`--sims`, 28 as bench/ai_hard.py): the reference points on the same games.

`--chance stream` (the default) is the game's own chance: one RNG stream, each chip and
die the next number in it, so a decision that changes how many draws come before a later
one changes that later draw too. `--chance keyed` (bench-only, no change in `rules`):
each chance event takes its number from a hash of the game's seed and *where* the event
is — a key that no decision of a seat can move — so the same physical draw gets the same
number in two worlds that differ by an earlier decision, and different draws get
independent numbers (common random numbers, as the hard player's own search uses):

- a chip: (battle round, the seat whose turn it is, the attacking seat, attack or
  counter, chips already drawn in this attack). A seat attacks at most once in its turn
  and counters at most once per attack, so that names one draw. The chip is the bag's
  chip at that number's index: the same chip when the bag is the same (the bag still
  depends on the builds and the skills declared). A fixed number of draws (no decision
  between them) takes its later chips in sequence after the first;
- a die for entering or re-entering the field: (battle round, the seat whose turn starts);
- anything else (ties of the processing order, a deck reshuffled in the bidding): the
  phase and bid round of the step that causes it, then in sequence within that step.

Deck shuffles at `new_game` come before any decision and stay as they are. Everyone
plays under the same model (the game loop, the ceiling's and the lucky player's
rollouts); the hard player's own search is not touched (it never sees the key).

Prints the win rate of the focus seat (seats rotated: seat = game mod players) with its
95 % Wilson interval, the fair share, and where the ceiling's decisions departed from the
normal player's (per decision kind: decisions searched, departures, and the games it won
that had a departure of that kind). `--log FILE`: one JSON line per game, resumable.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai.hard import HardPlayer, RolloutPlayer, determinize  # noqa: E402
from ai.normal import NormalPlayer  # noqa: E402
from ai.selfplay import running  # noqa: E402 - a game given up after ROUND_CAP rounds
from rules import Config, apply, new_game, observe, pending  # noqa: E402
from rules import actions as A  # noqa: E402
from rules.battle import stages as _stages  # noqa: E402
from rules.battle import turns as _turns  # noqa: E402
from rules.cards import default_cards  # noqa: E402
from rules.state import CHANGE, Phase  # noqa: E402

PHASES = (Phase.DRAFT, Phase.BIDDING, Phase.BUILD, Phase.REVEAL, Phase.BATTLE)
CHANCES = ("stream", "keyed")


# ------------------------------------------------------------------ keyed chance

def chance_number(seed: int, *key) -> int:
    """The RNG state of one chance event: a hash of the game's seed and its key."""
    h = hashlib.blake2b(repr((seed,) + key).encode(), digest_size=8)
    return int.from_bytes(h.digest(), "little")


_KEYED: list = [None]                  # the game's seed while a keyed `step` runs
_ROLL, _DRAW_CHIP = _turns.roll, _stages.draw_chip


def _keyed_roll(state):
    """`rules.battle.turns.roll`: the die of a seat entering (or re-entering) the field."""
    seed = _KEYED[0]
    if seed is not None:
        b = state.battle
        state = CHANGE["rng"](state, chance_number(seed, "area", b.round, b.turn.seat))
    return _ROLL(state)


def _keyed_draw_chip(state, events):
    """`rules.battle.stages.draw_chip`: the next chip of the attack in progress."""
    seed = _KEYED[0]
    if seed is not None:
        b = state.battle
        a = b.attack
        state = CHANGE["rng"](state, chance_number(
            seed, "chip", b.round, b.turn.seat, a.attacker, a.counter, len(a.drawn)))
    return _DRAW_CHIP(state, events)


class keyed_chance:
    """While open, `step(state, action, seed)` plays under keyed chance (module doc); a
    plain `apply` (the hard player's search, any other caller) is untouched."""

    def __enter__(self):
        if _turns.roll is not _ROLL or _stages.draw_chip is not _DRAW_CHIP:
            raise RuntimeError("keyed chance is open already")
        _turns.roll, _stages.draw_chip = _keyed_roll, _keyed_draw_chip
        return self

    def __exit__(self, *exc):
        _turns.roll, _stages.draw_chip = _ROLL, _DRAW_CHIP
        _KEYED[0] = None


def step(state, action, seed=None):
    """`apply`, or under keyed chance (`seed` given, inside `keyed_chance`) `apply` with
    every chance event of the step keyed as the module doc says."""
    if seed is None:
        return apply(state, action)
    if _turns.roll is not _keyed_roll:
        raise RuntimeError("keyed chance is not open")
    if state.phase != Phase.BATTLE:
        b = state.bidding
        state = CHANGE["rng"](state, chance_number(
            seed, "step", state.phase, b.round if b is not None else None))
    _KEYED[0] = seed
    try:
        return apply(state, action)
    finally:
        _KEYED[0] = None


def _share(state, me) -> float:
    if state.phase != Phase.OVER or me not in state.winners:
        return 0.0                         # lost, or given up unfinished (ai.selfplay)
    return 1 / len(state.winners)


def _candidates(legal, prior):
    # StartAttack(card) / StartCounter(card) start the same attacks as the options naming
    # the range skill (RULINGS R22): not tried twice (as ai.hard does)
    return [prior] + [a for a in legal if a != prior and not (
        isinstance(a, (A.StartAttack, A.StartCounter)) and a.skill is None)]


class _Searcher:
    """Exact rollouts of each candidate from a full state; the normal choice unless
    another ends better."""

    def __init__(self, cards, seed, chance=None):
        self.cards = cards
        self.chance = chance                     # the game's seed under keyed chance
        self._normal = NormalPlayer(cards, seed)
        self._roll: list = []
        self.departures: Counter = Counter()     # decision kind -> departures
        self.searched: Counter = Counter()       # decision kind -> decisions searched
        self.rollouts = 0

    def _rollout(self, state, me, action, intended):
        players = self._roll
        for p, i in zip(players, intended):
            p._intended = i
        state, _ = step(state, action, self.chance)
        while running(state):
            seat = pending(state).seats[0]
            o = observe(state, seat)
            state, _ = step(state, players[seat].choose(o, o.legal), self.chance)
        self.rollouts += 1
        return _share(state, me)

    def _search(self, full, obs, legal, intended):
        me = obs.seat
        if len(self._roll) != len(obs.seats):
            self._roll = [RolloutPlayer(self.cards, i) for i in range(len(obs.seats))]
        prior = self._normal.choose(obs, legal)
        mine = getattr(self._normal, "_intended", None)
        intended = [mine if i == me else x for i, x in enumerate(intended)]
        kind = obs.pending.kind
        self.searched[kind] += 1
        best, value = prior, self._rollout(full, me, prior, intended)
        if value < 1.0:
            for a in _candidates(legal, prior)[1:]:
                v = self._rollout(full, me, a, intended)
                if v > value:
                    best, value = a, v
                    if v >= 1.0:
                        break
        if best != prior:
            self.departures[kind] += 1
            # keep the normal player's aim in step with the choice made (as ai.hard does)
            if isinstance(best, A.StartCounter):
                self._normal._intended = obs.battle.countered
            elif isinstance(best, A.StartAttack):
                self._normal._intended = None
        return best


class CeilingPlayer(_Searcher):
    """Sees the whole game state and the other players' state (see the module doc)."""

    level = "ceiling"

    def __init__(self, cards, seed, phases=PHASES, chance=None):
        super().__init__(cards, seed, chance)
        self.phases = tuple(phases)

    def choose_seeing(self, state, seat, players):
        obs = observe(state, seat)
        legal = list(obs.legal)
        if len(legal) == 1:
            return legal[0]
        if state.phase not in self.phases:
            return self._normal.choose(obs, legal)
        intended = [getattr(p, "_intended", None) for p in players]
        return self._search(state, obs, legal, intended)


class LuckyPlayer(_Searcher):
    """The normal player plus the order of the chips (the RNG state) only."""

    level = "lucky"

    def __init__(self, cards, seed, chance=None):
        super().__init__(cards, seed, chance)
        self._base = {}

    def choose_seeing(self, state, seat, players):
        obs = observe(state, seat)                # what an honest seat knows ...
        legal = list(obs.legal)
        if len(legal) == 1:
            return legal[0]
        if obs.phase != Phase.BATTLE:
            return self._normal.choose(obs, legal)
        if obs.config not in self._base:
            self._base[obs.config], _ = new_game(obs.config, self.cards, 0)
        # ... plus the real RNG state (under keyed chance: the game's seed, `self.chance`):
        # the chips and dice to come, nothing else
        known = determinize(obs, self.cards, state.rng, self._base[obs.config])
        return self._search(known, obs, legal, [None] * len(obs.seats))


_CARDS = None


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


def play_game(players, state, keyed=None):
    """The game from `state` to its end (or ROUND_CAP); `keyed`: the seed of keyed chance."""
    while running(state):
        s = pending(state).seats[0]
        p = players[s]
        if hasattr(p, "choose_seeing"):
            action = p.choose_seeing(state, s, players)
        else:
            obs = observe(state, s)
            action = p.choose(obs, obs.legal)
        state, _ = step(state, action, keyed)
    return state


def play(args):
    """One game: (focus seat's win share, departures by kind, searched by kind, rollouts,
    rounds, reason)."""
    global _CARDS
    who, n, seed, focus, sims, phases, *rest = args
    chance = rest[0] if rest else "stream"
    if _CARDS is None:
        _CARDS = default_cards()
    cards = _CARDS
    keyed = seed if chance == "keyed" else None
    players = [NormalPlayer(cards, seed * 101 + i) for i in range(n)]
    if who == "ceiling":
        players[focus] = CeilingPlayer(cards, seed * 101 + focus, phases, keyed)
    elif who == "lucky":
        players[focus] = LuckyPlayer(cards, seed * 101 + focus, keyed)
    elif who == "hard":
        players[focus] = HardPlayer(cards, seed * 101 + focus, None, sims)
    with (keyed_chance() if keyed is not None else _nothing()):
        state = play_game(players, new_game(Config(players=n), cards, seed)[0], keyed)
    p = players[focus]
    mine = isinstance(p, _Searcher)
    return {"share": _share(state, focus),
            "departures": dict(p.departures) if mine else {},
            "searched": dict(p.searched) if mine else {},
            "rollouts": p.rollouts if mine else 0,
            "rounds": state.battle.round if state.battle else 0,
            "reason": state.end_reason or "unfinished"}


def main():
    from tactical_tui.tools.simulate import wilson

    p = argparse.ArgumentParser()
    p.add_argument("--who", choices=("ceiling", "lucky", "normal", "hard"), default="ceiling")
    p.add_argument("--players", type=int, choices=(3, 4, 5), default=4)
    p.add_argument("--games", type=int, default=300)
    p.add_argument("--seed", type=int, default=5000)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--sims", type=int, default=28, help="hard's simulation cap (--who hard)")
    p.add_argument("--phases", default=",".join(PHASES),
                   help="the ceiling searches its decisions in these phases only")
    p.add_argument("--chance", choices=CHANCES, default="stream",
                   help="stream: the game's own RNG stream; keyed: each chip and die "
                        "from a hash of the seed and where it is drawn (module doc)")
    p.add_argument("--log", type=Path, default=None)
    args = p.parse_args()
    phases = tuple(x.strip() for x in args.phases.split(",") if x.strip())
    if not set(phases) <= set(PHASES):
        p.error(f"--phases: a comma-separated list of {', '.join(PHASES)}")
    run = {"who": args.who, "players": args.players,
           "sims": args.sims if args.who == "hard" else None,
           "phases": list(phases) if args.who == "ceiling" else None}
    extra = ()
    if args.chance != "stream":            # a stream run's log lines stay as they were
        run["chance"] = args.chance
        extra = (args.chance,)
    work = [(args.who, args.players, args.seed + g, g % args.players, args.sims, phases)
            + extra for g in range(args.games)]
    done = {}
    if args.log is not None and args.log.exists():
        for line in args.log.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
                done[(rec["seed"], json.dumps(rec["run"]))] = rec
            except (ValueError, KeyError):
                continue                   # a line cut by a stopped run
    key = json.dumps(run)
    todo = [w for w in work if (w[2], key) not in done]
    log = args.log.open("a", encoding="utf-8") if args.log is not None else None
    t0 = time.perf_counter()
    count = len(work) - len(todo)

    def record(w, r):
        nonlocal count
        rec = {"seed": w[2], "run": run, **r}
        done[(w[2], key)] = rec
        if log is not None:
            log.write(json.dumps(rec) + "\n")
            log.flush()
        count += 1
        print(f"\r{count}/{len(work)} games", end="", file=sys.stderr, flush=True)

    try:
        if args.jobs > 1 and todo:
            with ProcessPoolExecutor(max_workers=args.jobs) as pool:
                for w, r in zip(todo, pool.map(play, todo)):
                    record(w, r)
        else:
            for w in todo:
                record(w, play(w))
    finally:
        if log is not None:
            log.close()
    print(file=sys.stderr)
    recs = [done[(w[2], key)] for w in work]
    n = len(recs)
    wins = sum(r["share"] for r in recs)
    lo, hi = wilson(wins, n)
    print(f"{args.who} + {args.players - 1} normal, {n} games (seeds {args.seed}.."
          f"{args.seed + n - 1}, its seat the game's number mod {args.players})"
          + (f", phases {','.join(phases)}" if args.who == "ceiling" else "")
          + (f", sims {args.sims}" if args.who == "hard" else "")
          + (f", chance {args.chance}" if args.chance != "stream" else "")
          + f", wall {time.perf_counter() - t0:.0f} s"
          + (f" ({n - len(todo)} games from {args.log})" if len(todo) < n else ""))
    print(f"{args.who} wins {wins:.1f}/{n} = {wins / n:.1%} (95 % CI {lo:.1%}–{hi:.1%}); "
          f"fair share {1 / args.players:.1%}; unfinished "
          f"{sum(1 for r in recs if r['reason'] == 'unfinished')}")
    if args.who in ("ceiling", "lucky"):
        kinds = sorted({k for r in recs for k in r["searched"]})
        print(f"rollouts per game: {sum(r['rollouts'] for r in recs) / n:.0f}")
        for k in kinds:
            s = sum(r["searched"].get(k, 0) for r in recs)
            d = sum(r["departures"].get(k, 0) for r in recs)
            won = sum(r["share"] for r in recs if r["departures"].get(k))
            print(f"  {k:>12}: {s} decisions searched, {d} departures from normal; "
                  f"{won:.1f} of its wins had one")
        plain = sum(r["share"] for r in recs if not r["departures"])
        print(f"  wins with no departure at all: {plain:.1f}")


if __name__ == "__main__":
    main()
