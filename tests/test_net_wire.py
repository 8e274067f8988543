"""Issue 17 / docs/PROTOCOL.md "Update": the wire codec (tactical_tui/net/wire.py).

Every Update a live table publishes — to every seat and to a spectator, through whole
seeded games of 3, 4 and 5 seats with AI and human seats (the human seats choosing from
the observations they got over the wire, undoing now and then) — goes through JSON and
back equal. Wrong shapes, unknown keys and unknown types are refused with the field named.
"""

from __future__ import annotations

import asyncio
import json
import random

import attrs
import pytest

from ai.selfplay import running
from rules import Config
from rules.actions import Pass, Pick
from tactical_tui.net.wire import (EVENT_TYPES, WireError, action_from_wire, action_to_wire,
                                   update_from_wire, update_to_wire)
from tactical_tui.table.live import GameTable, LiveTable, SeatSetup


def _json(obj) -> object:
    return json.loads(json.dumps(obj, ensure_ascii=False, allow_nan=False))


async def _play(players: int, levels: tuple, seed: int) -> list:
    """A whole game; the Updates of every seat and a spectator, in order. Human seats
    (level "human") play random legal actions from their decoded observations and try
    an undo now and then."""
    seats = tuple(SeatSetup(True) if x == "human" else SeatSetup(False, x) for x in levels)
    game = GameTable(Config(players=players), seats, seed)
    errors: list = []
    live = LiveTable(game, ai_delay=0, on_error=errors.append)
    got: list = []
    latest: dict = {}

    def keep(update):
        got.append(update)
        back = update_from_wire(_json(update_to_wire(update)))
        assert back == update
        if update.seat is not None:
            latest[update.seat] = back

    for s in list(range(players)) + [None]:
        live.subscribe(s, callback=keep)
    live.start()
    rnd = random.Random(seed)
    humans = [i for i, x in enumerate(levels) if x == "human"]
    steps = 0
    while not game.over and running(game.state):
        steps += 1
        assert steps < 20000 and not errors, errors
        acted = False
        for s in humans:
            u = latest.get(s)
            if u is None or s not in u.turn.seats or not u.observation.legal:
                continue
            if rnd.random() < 0.05 and u.undo is None:
                live.undo(s)
            else:
                live.submit(s, rnd.choice(u.observation.legal))
            acted = True
            break
        await asyncio.sleep(0 if acted else 0.002)
    live.close()
    return got


GAMES = [
    (3, ("random", "easy", "normal"), 11),
    (4, ("human", "normal", "human", "easy"), 12),
    (5, ("easy", "human", "random", "random", "normal"), 13),
]


@pytest.mark.parametrize("players,levels,seed", GAMES)
def test_every_update_of_a_game_round_trips(players, levels, seed):
    got = asyncio.run(_play(players, levels, seed))
    seats = {u.seat for u in got}
    assert seats == set(range(players)) | {None}
    assert got[-1].over
    kinds = {type(e.event).__name__ for u in got for e in u.entries if e.event is not None}
    assert {"HandDealt", "BidsRevealed", "BuildRevealed", "GameOver"} <= kinds
    assert any(e.reason is not None for u in got for e in u.entries)      # AI reasons
    assert any(u.observation.battle is not None and u.observation.battle.attack is not None
               for u in got)
    if "human" in levels:            # undo allowed and refused (Refused on the wire), asked_at
        mine = [u for u in got if u.seat is not None and levels[u.seat] == "human"]
        assert any(u.undo is None for u in mine) and any(u.undo is not None for u in mine)
        assert any(u.asked_at is not None for u in mine)
    # the encoded form is JSON values only (no tuples left, no NaN)
    for u in got[:50]:
        text = json.dumps(update_to_wire(u), allow_nan=False)
        assert update_from_wire(json.loads(text)) == u


@pytest.fixture(scope="module")
def sample() -> dict:
    """One wire update from the battle (an attack in progress), as JSON values."""
    got = asyncio.run(_play(3, ("random", "random", "normal"), 5))
    u = next(u for u in got if u.seat is not None and u.observation.battle is not None
             and u.observation.battle.attack is not None and u.observation.legal)
    log = tuple(e for x in got if x.seat == u.seat for e in x.entries)   # reasons among them
    assert any(e.reason is not None for e in log)
    return _json(update_to_wire(attrs.evolve(u, entries=log)))


def _refused(obj, where: str = None, code: str = None) -> WireError:
    with pytest.raises(WireError) as info:
        update_from_wire(obj)
    if where is not None:
        assert info.value.where == where, str(info.value)
    if code is not None:
        assert info.value.code == code, str(info.value)
    return info.value


def test_sample_decodes(sample):
    assert update_from_wire(sample).seat == sample["seat"] is not None


@pytest.mark.parametrize("garbage", [None, 1, "update", [], [1, 2], True, 1.5])
def test_garbage_is_refused(garbage):
    _refused(garbage, code="wrong_type")


def test_unknown_and_missing_keys_are_refused(sample):
    _refused({**sample, "state": {}}, "state", "unknown_field")
    _refused({**sample, "rng": 1}, "rng", "unknown_field")
    obs = dict(sample["observation"], deck=["x#1"])
    _refused({**sample, "observation": obs}, "observation.deck", "unknown_field")
    _refused({k: v for k, v in sample.items() if k != "version"}, code="missing")
    seats = [dict(sample["observation"]["seats"][0], hand=["a#1"])] + sample["observation"]["seats"][1:]
    _refused({**sample, "observation": dict(sample["observation"], seats=seats)},
             "observation.seats[0].hand", "unknown_field")


def test_wrong_types_are_refused(sample):
    _refused({**sample, "version": "3"}, "version", "wrong_type")
    _refused({**sample, "version": 3.0}, "version", "wrong_type")
    _refused({**sample, "reset": 1}, "reset", "wrong_type")
    _refused({**sample, "seat": True}, "seat", "wrong_type")
    _refused({**sample, "entries": {}}, "entries", "wrong_type")
    obs = dict(sample["observation"], hand="abc")
    _refused({**sample, "observation": obs}, "observation.hand", "wrong_type")
    turn = dict(sample["turn"], seats=[0, "1"])
    _refused({**sample, "turn": turn}, "turn.seats[1]", "wrong_type")
    cfg = dict(sample["observation"]["config"], players=9)
    _refused({**sample, "observation": dict(sample["observation"], config=cfg)},
             "observation.config.players", "not_one_of")


def test_unknown_types_are_refused(sample):
    entries = list(sample["entries"])
    i = next(i for i, e in enumerate(entries) if e["event"] is not None)
    bad = [dict(e) for e in entries]
    bad[i] = dict(bad[i], event=dict(bad[i]["event"], type="StateLeaked"))
    _refused({**sample, "entries": bad}, f"entries[{i}].event.type")
    bad[i] = dict(entries[i], event=dict(entries[i]["event"], secret=True))
    _refused({**sample, "entries": bad}, f"entries[{i}].event.secret", "unknown_field")
    legal = list(sample["observation"]["legal"])
    legal[0] = dict(legal[0], type="Cheat")
    _refused({**sample, "observation": dict(sample["observation"], legal=legal)},
             "observation.legal[0].type", "unknown_action")
    j = next(i for i, e in enumerate(entries) if e["reason"] is not None)
    bad = [dict(e) for e in entries]
    bad[j] = dict(bad[j], reason={"key": "x", "params": [["a", {"deep": object.__name__}]], "why": 1})
    _refused({**sample, "entries": bad}, f"entries[{j}].reason.why", "unknown_field")
    bad[j] = dict(bad[j], reason={"key": 3})
    _refused({**sample, "entries": bad}, f"entries[{j}].reason.key", "wrong_type")


def test_every_event_type_is_known():
    from rules import events as E
    assert "HandDealt" in EVENT_TYPES and "GameOver" in EVENT_TYPES
    assert E.Event not in EVENT_TYPES.values()
    assert len(set(EVENT_TYPES.values())) == len(EVENT_TYPES)


def test_actions_round_trip_and_refuse():
    for action in (Pick(0, "iron_helm#1"), Pass(2)):
        assert action_from_wire(_json(action_to_wire(action))) == action
    for bad, where in (({"type": "Pick", "seat": "0", "card": "x"}, "seat"),
                       ({"type": "Pick", "seat": 0, "card": "x", "more": 1}, "more"),
                       ({"type": "Nope"}, "type"), ({"seat": 0}, "type")):
        with pytest.raises(WireError) as info:
            action_from_wire(bad)
        assert info.value.where == where
    for bad in (None, [], "Pick", 3):
        with pytest.raises(WireError):
            action_from_wire(bad)
    with pytest.raises(WireError):
        action_to_wire({"type": "Pick"})
