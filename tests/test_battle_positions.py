"""Positions and scripted chance for the §6 バトル tests, and checks of the battle test cards.

The other `test_battle_*.py` modules import from here:

- `BC`: the battle test card set `tests/data/battle_cards.toml` (every skill effect kind).
- `position(...)`: a battle position built directly from `new_game` (phase "battle").
- fixtures `chips` and `dice`: script the chip drawn from the bag and the die rolled. A
  scripted chip is looked up by value in the bag the engine is drawing from, so a test
  says "the attacker draws a 2", never an index; a test fails if the engine draws more
  chips or rolls more dice than scripted, or if any scripted one is left unused.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Iterable, Optional

import attrs
import pytest

from rules import Config, apply, legal_actions, new_game, pending
from rules import battle as B
from rules import rng as RNG
from rules.actions import ChooseTarget, Declare, Done, Draw, StartAttack, Stop
from rules.build import final_stats
from rules.cards import EFFECT_KINDS, TIMINGS, load_cards
from rules.events import BagFilled, ChipDrawn, DamageDealt, DrawEnded, VictoryPointsGained
from rules.state import BattleState, GameState, Phase, Turn

BATTLE_CARDS_PATH = Path(__file__).resolve().parent / "data" / "battle_cards.toml"
BC = load_cards(BATTLE_CARDS_PATH)


# ------------------------------------------------------------------------------ positions

def copy_id(card: str) -> str:
    """The physical card for a card id: defense cards have copies (``id#1``), attack cards
    are single (their id)."""
    return card if BC.card(card).is_attack else f"{card}#1"


def position(players: int = 3, seats: Optional[dict[int, dict]] = None, *,
             order: Optional[Iterable[int]] = None, turn: Optional[int] = None,
             round: int = 1, seed: int = 0) -> GameState:
    """A §6 battle position: `seats[i]` may give race (default human), equip (card ids),
    hp (6), mana (default: the final mana), area (None = not on the field), entered
    (default: area is not None or knocked_out), knocked_out, vp, unluck, low (default
    hp <= 4).
    It is `turn`'s turn (default: the first seat of `order`), no action taken yet."""
    seats = seats or {}
    state, _ = new_game(Config(players=players), BC, seed)
    order = tuple(order if order is not None else range(players))
    turn = order[0] if turn is None else turn
    for i in range(players):
        spec = dict(seats.get(i, {}))
        race = spec.pop("race", "human")
        equipped = tuple(copy_id(c) for c in spec.pop("equip", ()))
        hp = spec.pop("hp", 6)
        knocked_out = spec.pop("knocked_out", False)
        area = spec.pop("area", None)
        entered = spec.pop("entered", area is not None or knocked_out)
        mana = spec.pop("mana", max(0, final_stats(BC, race, equipped)["mana"]))
        low = spec.pop("low", hp <= 4)
        vp = spec.pop("vp", 0)
        unluck = spec.pop("unluck", 0)
        assert not spec, f"unknown seat fields {sorted(spec)}"
        state = state.with_seat(i, hand=(), picks=(), draft_choice=None, race=race,
                                equipped=equipped, materialized=(), confirmed=True,
                                revealed=True, hp=hp, mana=mana, vp=vp, unluck=unluck,
                                area=area, entered=entered, knocked_out=knocked_out, low=low)
    return attrs.evolve(state, phase=Phase.BATTLE, bidding=None, order=order,
                        battle=BattleState(round=round, turn=Turn(turn)))


def run(state: GameState, *actions) -> tuple[GameState, list]:
    """Apply actions in order (each must be legal); the final state and all events."""
    events: list = []
    for a in actions:
        assert a in legal_actions(state), f"{a} is not legal; legal: {legal_actions(state)}"
        state, ev = apply(state, a)
        events.extend(ev)
    return state, events


def of_type(events: Iterable[object], kind: type) -> list:
    return [e for e in events if isinstance(e, kind)]


def one(events: Iterable[object], kind: type):
    found = of_type(events, kind)
    assert len(found) == 1, f"expected one {kind.__name__}, got {found}"
    return found[0]


def bags(events) -> list[tuple[str, ...]]:
    return [e.chips for e in of_type(events, BagFilled)]


def drawn(events) -> list[str]:
    return [e.chip for e in of_type(events, ChipDrawn)]


def damage(events) -> dict[int, int]:
    """target seat -> damage taken in these events (summed)."""
    out: Counter = Counter()
    for e in of_type(events, DamageDealt):
        out[e.target] += e.amount
    return dict(out)


def vp_gains(events) -> list[tuple[int, int, int, str]]:
    """(attacker, target, amount, reason) of every VictoryPointsGained."""
    return [(e.seat, e.target, e.amount, e.reason) for e in of_type(events, VictoryPointsGained)]


def draw_end(events) -> DrawEnded:
    return one(events, DrawEnded)


def bag_of(card: str, *extra: str, miss: bool = True) -> tuple[str, ...]:
    """The bag the rules put in: the card's 5 point chips, the miss chip, and `extra`."""
    chips = [str(c) for c in BC.card(card).chips] + (["miss"] if miss else []) + list(extra)
    return tuple(sorted(chips))


def attack(state: GameState, seat: int, card: str, skill: str, *targets: int,
           declare: Iterable[tuple[str, str]] = ()) -> tuple[GameState, list]:
    """StartAttack, declare skills (card, skill), then choose `targets` (Done if the
    attack could take more). Stops wherever the engine waits next (defense, unluck,
    draw, ...)."""
    state, events = run(state, StartAttack(seat, copy_id(card), skill))
    for c, s in declare:
        state, ev = run(state, Declare(seat, copy_id(c), s))
        events += ev
    if pending(state).kind == "skills":
        state, ev = run(state, Done(seat))
        events += ev
    for t in targets:
        state, ev = run(state, ChooseTarget(seat, t))
        events += ev
    if pending(state).kind == "targets":
        state, ev = run(state, Done(seat))
        events += ev
    return state, events


def finish_draw(state: GameState, draws: int = 0, stop: bool = True) -> tuple[GameState, list]:
    """`draws` more Draw actions, then Stop if the drawing is still waiting."""
    events: list = []
    for _ in range(draws):
        seat = pending(state).seats[0]
        state, ev = run(state, Draw(seat))
        events += ev
    if stop and pending(state).kind == "draw":
        state, ev = run(state, Stop(pending(state).seats[0]))
        events += ev
    return state, events


# ------------------------------------------------------------------------ scripted chance

_REAL_BELOW = RNG.below


def _bag_being_drawn(n: int) -> Optional[tuple[str, ...]]:
    """The bag of the attack whose chip the engine is drawing: the nearest GameState up
    the engine's stack with an attack in its draw stage and `n` chips in the bag (None
    when the random number is not for a chip draw, e.g. a shuffle in `new_game`)."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("rules."):
        for value in frame.f_locals.values():
            if isinstance(value, GameState) and value.battle is not None:
                atk = value.battle.attack
                if atk is not None and atk.stage == "draw" and len(atk.bag) == n:
                    return atk.bag
        frame = frame.f_back
    return None


class ChipScript:
    def __init__(self) -> None:
        self.queue: list[str] = []

    def __call__(self, *chips: str) -> None:
        self.queue.extend(chips)

    def below(self, rs: int, n: int) -> tuple[int, int]:
        bag = _bag_being_drawn(n)
        if bag is None:
            return _REAL_BELOW(rs, n)
        assert self.queue, f"a chip was drawn but none is scripted (bag {bag})"
        want = self.queue.pop(0)
        assert want in bag, f"scripted chip {want!r} is not in the bag {bag}"
        return bag.index(want), rs + 1


class DieScript:
    def __init__(self) -> None:
        self.queue: list[int] = []

    def __call__(self, *rolls: int) -> None:
        self.queue.extend(rolls)

    def die(self, rs: int) -> tuple[int, int]:
        assert self.queue, "a die was rolled but no roll is scripted"
        return self.queue.pop(0), rs + 1


@pytest.fixture
def chips(monkeypatch):
    """chips("2", "crit", ...): the chips the next draws take, in order."""
    script = ChipScript()
    monkeypatch.setattr(RNG, "below", script.below)
    yield script
    assert not script.queue, f"scripted chips never drawn: {script.queue}"


@pytest.fixture
def dice(monkeypatch):
    """dice(3, 5, ...): the next die rolls, in order."""
    script = DieScript()
    monkeypatch.setattr(RNG, "die", script.die)
    yield script
    assert not script.queue, f"scripted die rolls never used: {script.queue}"


# ------------------------------------------------------------------- the test card set

def test_battle_cards_cover_every_effect_kind_and_timing():
    """rules/cards.py EFFECT_KINDS / TIMINGS: the battle test cards use every one, so
    each effect of §6 スキル can be pinned with them."""
    skills = [sk for c in BC.defense + BC.attack for sk in c.skills]
    assert {sk.effect.kind for sk in skills} == set(EFFECT_KINDS)
    assert {sk.timing for sk in skills} == set(TIMINGS)
    assert any(sk.exclusive for sk in skills)
    assert any(sk.continuous == "turn_end" for sk in skills)
    assert sum(1 for c in BC.defense + BC.attack if c.series == "moon") == 2


def test_position_helper_builds_a_battle_turn():
    """The position helper gives what §6 バトルの準備 sets: HP 6, current mana = final
    mana (human 3 + Mana Ring 1), the turn seat waiting for its first action."""
    state = position(3, {0: {"equip": ["short_sword", "mana_ring"], "area": 1},
                         1: {"area": 2}}, order=(2, 0, 1))
    assert state.seats[0].mana == 4 and state.seats[0].hp == 6
    assert state.seats[0].entered and not state.seats[2].entered
    assert pending(state).kind == "turn" and pending(state).seats == (2,)
