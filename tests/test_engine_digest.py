"""Rules behaviour is identical across engine optimizations (issue 16 "Tests"): a fixed set
of seeded random games — every seat count, first game on and off, the reveal-swap variant
— is replayed through the public API (`new_game`, `legal_actions`, `apply`), and a digest
of every legal-action list along the way, every event, and the final state is compared
with the digests recorded from the engine of commit 9a887fc (before the speed work of
issue 16) in tests/data/engine_digests.json.

The canonical rendering (`canon`) writes attrs values field by field, leaving out fields
that hold their default, so a new field added with a default (a schema extension that
changes no behaviour) leaves the digests unchanged; anything that changes what happens —
another legal list, another event, another final state — changes them.

Re-recorded after issue 29 (materializing public and final, continuous skills, only 5 VP
ends a game): an intended change of rules behaviour.

Re-record (only after an intended change of rules behaviour or of cards.toml, and say
so in the commit):

    PYTHONPATH=. python tests/test_engine_digest.py --record
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

import attrs
import pytest

from ai.selfplay import running
from rules import Config, apply, legal_actions, new_game

DATA = Path(__file__).resolve().parent / "data" / "engine_digests.json"

# (players, first_game, reveal_swap, seed): 30 games, every seat count, both kinds of game.
GAMES: tuple[tuple[int, bool, bool, int], ...] = tuple(
    (players, seed % 3 == 0, seed % 4 == 1, seed)
    for players in (3, 4, 5) for seed in range(10))
MAX_ACTIONS = 20_000


def canon(value: object) -> str:
    """A canonical text of a rules value: attrs instances as Class(field=..., ...) with
    the fields that differ from their default, in field order; tuples, lists, dicts and
    plain values as their repr. The card set (a reference, not state) is left out."""
    if attrs.has(type(value)):
        parts = []
        for f in attrs.fields(type(value)):
            if f.name == "cards":
                continue
            v = getattr(value, f.name)
            default = f.default
            if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
                default = default.factory() if not default.takes_self else attrs.NOTHING
            if default is not attrs.NOTHING and v == default and type(v) is type(default):
                continue
            parts.append(f"{f.name}={canon(v)}")
        return f"{type(value).__name__}({', '.join(parts)})"
    if isinstance(value, (tuple, list)):
        inner = ", ".join(canon(v) for v in value)
        return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{canon(k)}: {canon(v)}" for k, v in value.items()) + "}"
    return repr(value)


def play(players: int, first_game: bool, reveal_swap: bool, seed: int) -> dict[str, object]:
    """One seeded random game: a random action among `legal_actions` (random.Random(seed))
    until the game is over (or given up as unfinished, `ai.selfplay`). Returns the digests of the legal lists, of the events and of
    the final state, and the number of actions."""
    config = Config(players=players, first_game=first_game, reveal_swap=reveal_swap)
    state, events = new_game(config, seed=seed)
    rnd = random.Random(seed)
    legal_h, events_h = hashlib.sha256(), hashlib.sha256()
    events_h.update(canon(events).encode())
    n = 0
    while running(state):               # or given up after ai.selfplay.ROUND_CAP rounds
        legal = legal_actions(state)
        legal_h.update(canon(legal).encode())
        action = rnd.choice(legal)
        state, events = apply(state, action)
        events_h.update(canon(events).encode())
        n += 1
        assert n < MAX_ACTIONS
    return {"actions": n, "legal": legal_h.hexdigest(), "events": events_h.hexdigest(),
            "final": hashlib.sha256(canon(state).encode()).hexdigest()}


def key(game: tuple[int, bool, bool, int]) -> str:
    players, first, swap, seed = game
    return f"{players}p seed {seed}{' first' if first else ''}{' swap' if swap else ''}"


def _recorded() -> dict[str, dict[str, object]]:
    return json.loads(DATA.read_text(encoding="utf-8"))


@pytest.mark.parametrize("game", GAMES, ids=key)
def test_same_game_as_recorded(game):
    """The legal lists, events and final state of a seeded random game are those recorded
    from the engine before the speed work (issue 16)."""
    expected = _recorded()[key(game)]
    assert play(*game) == expected


def test_digests_cover_every_seat_count_and_kind_of_game():
    recorded = _recorded()
    assert set(recorded) == {key(g) for g in GAMES}
    assert {g[0] for g in GAMES} == {3, 4, 5}
    assert {g[1] for g in GAMES} == {True, False} and {g[2] for g in GAMES} == {True, False}
    # the games reach the battle and end there, not in an early phase
    assert all(int(v["actions"]) > 100 for v in recorded.values())


def test_canon_leaves_out_defaults_only():
    from rules.state import Turn
    assert canon(Turn(seat=1)) == "Turn(seat=1)"
    assert canon(Turn(seat=1, moves=2)) == "Turn(seat=1, moves=2)"
    assert canon(Turn(seat=0)) != canon(Turn(seat=1))


def test_fast_evolve_is_attrs_evolve():
    """rules.state.evolve (issue 16) gives what attrs.evolve gives, and refuses what it
    refuses."""
    from rules.state import evolve
    state, _ = new_game(Config(players=3), seed=3)
    for value, changes in ((state, {"rng": 7, "phase": "build"}),
                           (state.seats[1], {"hp": 2, "equipped": ("x",)}),
                           (state.bidding, {"turn": 2}), (state.config, {"players": 5})):
        assert evolve(value, **changes) == attrs.evolve(value, **changes)
        assert evolve(value) == value and evolve(value) is not value
    with pytest.raises(TypeError):
        evolve(state, no_such_field=1)
    with pytest.raises(ValueError):          # the class's own checks still run
        evolve(state.config, players=7)


def test_shuffle_is_fisher_yates_with_below():
    """rules.rng.shuffle, with `below` written out (issue 16), draws as it did."""
    from rules import rng as R

    def by_below(state, items):
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j, state = R.below(state, i + 1)
            out[i], out[j] = out[j], out[i]
        return tuple(out), state

    for seed in range(200):
        state, items = R.seed_state(seed), list(range(seed % 97))
        assert R.shuffle(state, items) == by_below(state, items)


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: PYTHONPATH=. python tests/test_engine_digest.py --record")
    DATA.write_text(json.dumps({key(g): play(*g) for g in GAMES}, indent=1) + "\n",
                    encoding="utf-8")
    print(f"recorded {len(GAMES)} games into {DATA}")
