"""The engine's speed work (issue 16) changes nothing a caller can see.

- Memos by value and by identity (pending decisions, legal lists per seat and per build,
  attack starts, turn, skills and defense lists, skill effects, events of build steps):
  a random game played with every memo kept from the games before gives, action by
  action, the legal lists, events and states of the same game played with every memo
  emptied before each call — on the shipped cards and on card data whose guilds have a
  battle trait (the memo keys must hold the trait: RULINGS R2).
- Fast copies (`rules.state.evolve`, `changer`): the value attrs.evolve makes, of the very
  class, frozen, and usable as a weak reference like any attrs instance.
- `CardSet`: hashed by identity (in C), `card()` memoised without caching what is missing.
"""

from __future__ import annotations

import random
import weakref

import attrs
import pytest

from ai.selfplay import running
from rules import Config, apply, default_cards, legal_actions, new_game
from rules import battle as B
from rules.battle.attack import _DEFENSE_LISTS, _SKILL_LISTS, _STARTS
from rules.battle.skills import _EFFECTS, _FACTS, _SKILLS
from rules.battle.turns import _TURN_LISTS
from rules import build as BU
from rules import engine as E
from rules.state import _FAST, Active, Attack, SeatState, changer, evolve

import test_battle_trait as TRAIT


def forget() -> None:
    """Empty every memo of the engine: what is asked next is worked out afresh."""
    for memo in (E._MEMO, E._BUILD_MEMO, E._DRAFT_LISTS, E._ASSIGNED, E._DECISIONS,
                 E._BUILD_DECISIONS, _STARTS, _SKILL_LISTS, _DEFENSE_LISTS, _TURN_LISTS, _EFFECTS,
                 _SKILLS, _FACTS, B.PRIMED, BU._STATS):
        memo.clear()


def play(cards, players: int, seed: int, fresh: bool) -> list:
    """A seeded random game: per action (legal list, action, events), and the final state.
    `fresh`: every memo emptied before each call of the API."""
    state, events = new_game(Config(players=players, first_game=seed % 2 == 0), cards, seed)
    rnd = random.Random(seed)
    out: list = [events]
    while running(state):
        if fresh:
            forget()
        legal = legal_actions(state)
        action = rnd.choice(legal)
        if fresh:
            forget()
        state, events = apply(state, action)
        out.append((legal, action, events))
        assert len(out) < 20_000
    return out + [state]


GAMES = [("shipped", 3, 11), ("shipped", 4, 12), ("shipped", 5, 13),
         ("traits", 3, 1), ("traits", 3, 2), ("traits", 3, 5)]


@pytest.mark.parametrize("kind,players,seed", GAMES)
def test_memos_give_what_is_worked_out_afresh(kind, players, seed):
    cards = default_cards() if kind == "shipped" else TRAIT.TC
    for warm in range(3):               # memos full of other games' values
        play(cards, players, 1000 + warm, fresh=False)
    kept = play(cards, players, seed, fresh=False)
    again = play(cards, players, seed, fresh=True)
    assert len(kept) == len(again)
    for k, (a, b) in enumerate(zip(kept, again)):
        assert a == b, f"step {k}"


def test_trait_games_use_a_trait():
    """The trait games above reach a battle in which a guild's battle trait is used (so
    their memo keys are tried with `trait_used` both ways)."""
    used = 0
    for _, players, seed in [g for g in GAMES if g[0] == "traits"]:
        final = play(TRAIT.TC, players, seed, fresh=False)[-1]
        used += sum(s.trait_used for s in final.seats)
    assert used


def _values():
    """One instance of each class of rules.state that `evolve` copies fast."""
    state, _ = new_game(Config(players=4), seed=7)
    rnd = random.Random(7)
    found = {type(state): state, type(state.script): state.script}
    while running(state):
        state, _ = apply(state, rnd.choice(legal_actions(state)))
        for v in (state, state.seats[0], state.bidding, state.battle):
            if v is not None:
                found.setdefault(type(v), v)
        if state.bidding is not None:
            for bid in state.bidding.bids:
                found.setdefault(type(bid), bid)
        if state.battle is not None:
            found.setdefault(type(state.battle.turn), state.battle.turn)
            if state.battle.attack is not None:
                found.setdefault(type(state.battle.attack), state.battle.attack)
    # not always met in one game: made by hand
    found.setdefault(Attack, Attack(attacker=0, counter=False, card="short_sword",
                                    range_skill="short_sword_near", targets=(1,)))
    found.setdefault(Active, Active("short_sword", "short_sword_near", "turn_end"))
    return found


def test_fast_copies_are_frozen_instances_of_their_class():
    found = _values()
    assert set(found) == set(_FAST)
    for cls, value in found.items():
        name = attrs.fields(cls)[-1].name
        changes = {name: getattr(value, name)}
        copy = evolve(value, **changes)
        assert type(copy) is cls and copy == attrs.evolve(value, **changes)
        assert hash(copy) == hash(value) and copy is not value
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            setattr(copy, name, None)
        assert weakref.ref(copy)() is copy


def test_changer_is_evolve_of_its_fields():
    seat = new_game(Config(players=3), seed=2)[0].seats[1]
    change = changer(SeatState, ("hp", "area"))
    got = change(seat, 3, 5)
    assert type(got) is SeatState and got == attrs.evolve(seat, hp=3, area=5)
    assert got.hand is seat.hand            # the fields not changed are the same objects
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        got.hp = 1


def test_card_set_hash_and_card_lookup():
    cards = default_cards()
    assert hash(cards) == object.__hash__(cards)
    card = cards.defense[0]
    assert cards.card(f"{card.id}#1") is card and cards.card(card.id) is card
    for _ in range(2):                       # a missing id is not remembered
        with pytest.raises(KeyError):
            cards.card("no_such_card#1")
    with pytest.raises(AttributeError):      # as before: not a str
        cards.card(12)
