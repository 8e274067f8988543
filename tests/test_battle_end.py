"""§6 バトルの終了: the game ends the moment a seat holds 5 VP, even in the middle of a
counter sequence — and nothing else ends it (docs/RULINGS.md R19: no round limit, no
end for want of attack cards)."""

from __future__ import annotations

import attrs
import pytest

from rules import legal_actions, pending
from rules import battle as B
from rules.actions import EndTurn, Move, Rest, StartCounter, Stop
from rules.events import GameOver
from rules.state import Phase

from test_battle_positions import attack, chips, dice, finish_draw, position, run  # noqa: F401


def assert_over(state, winners, reason):
    assert state.phase == Phase.OVER
    assert state.winners == winners and state.end_reason == reason
    assert pending(state).kind == "over"
    assert legal_actions(state) == []


def test_6_five_vp_ends_the_game_at_once(chips):
    """§6 バトルの終了: 「アタックまたはカウンターによって勝利点チップを合計5枚獲得したプレイヤー
    がゲームに勝利し、その時点でバトルとゲームを終了します。」 — no counter follows (seat 1
    could have countered from area 2)."""
    state = position(3, {0: {"equip": ["spear"], "area": 1, "vp": 4},
                         1: {"equip": ["short_sword"], "area": 2}})
    chips("2")
    state, ev = attack(state, 0, "spear", "spear_range", 1)
    state, ev2 = finish_draw(state)
    assert state.seats[0].vp == 5
    assert GameOver((0,), "vp") in ev + ev2
    assert_over(state, (0,), "vp")


def test_6_five_vp_by_a_counter_ends_the_counter_sequence(chips):
    """§6 アタック 12 / バトルの終了: the first counterer reaches 5 VP; the second never
    counters (RULINGS R26)."""
    state = position(3, {0: {"equip": ["twin_blade"], "area": 1},
                         1: {"equip": ["short_sword"], "area": 2, "vp": 4},
                         2: {"equip": ["short_sword"], "area": 2}})
    chips("miss")
    state, _ = attack(state, 0, "twin_blade", "twin_blade_range", 1, 2,
                      declare=[("twin_blade", "twin_blade_sweep")])
    assert pending(state).kind == "counter" and pending(state).seats == (1,)
    chips("2")
    state, ev = run(state, StartCounter(1, "short_sword", "short_sword_range"), Stop(1))
    assert state.seats[1].vp == 5
    assert_over(state, (1,), "vp")


def test_6_more_than_five_vp_at_once_also_ends_it(chips):
    """§6 バトルの終了: 3 VP on top of 3 is 6 — still the end (5 or more)."""
    state = position(3, {0: {"equip": ["short_sword"], "area": 1, "vp": 3},
                         1: {"area": 2}})
    chips("2", "2", "crit")
    state, _ = attack(state, 0, "short_sword", "short_sword_range", 1)
    state, _ = finish_draw(state, draws=2)
    assert state.seats[0].vp == 6
    assert_over(state, (0,), "vp")


def last_turn_of_round(round, vps):
    n = len(vps)
    return position(n, {i: {"equip": ["short_sword"], "area": i + 1, "vp": v}
                        for i, v in enumerate(vps)},
                    order=tuple(range(n)), turn=n - 1, round=round)


@pytest.mark.parametrize("vps", [(2, 3, 3), (1, 0, 0), (0, 0, 0)])
@pytest.mark.parametrize("round", [60, 61, 500])
def test_6_only_five_vp_ends_the_game(vps, round):
    """§6 「誰かが勝利点チップを5枚獲得するまで、ラウンドを繰り返します。」 (RULINGS R19): no
    round ends the battle — round 60 (the former safety limit), 61 and 500 go on to the
    next round, whatever the VP."""
    state = last_turn_of_round(round, vps)
    assert pending(state).seats == (2,)
    state, ev = run(state, EndTurn(2))
    assert not any(isinstance(e, GameOver) for e in ev)
    assert state.phase == Phase.BATTLE and state.battle.round == round + 1
    assert pending(state).kind == "turn" and pending(state).seats == (0,)


@pytest.mark.parametrize("ending", ["rest", "moves"])
def test_6_whatever_ends_a_late_turn_the_battle_goes_on(ending):
    """RULINGS R19: the last turn of a round ends by a rest or by two moves, and the next
    round begins (formerly round 60 ended the game here)."""
    state = last_turn_of_round(60, (0, 2, 1))
    actions = [Rest(2)] if ending == "rest" else [Move(2, 1), Move(2, 1)]
    state, _ = run(state, *actions)
    assert state.phase == Phase.BATTLE and state.battle.round == 61


def test_6_no_attack_cards_at_all_still_enter_and_take_turns(dice):
    """§6 アタックカードを装備していない場合 「アタックカードを1枚も装備していないプレイヤー
    も、通常どおり6面サイコロを振り、出目と同じ番号のエリアへプレイヤーコマを置きます」
    (RULINGS R19): with nobody holding an attack card the battle still starts — each seat
    rolls, enters, and its one choice is to end its turn; nothing ends the game."""
    state = position(3, {0: {"equip": ["plate_mail"]}, 1: {"equip": ["barrier_shield"]},
                         2: {}})
    state = attrs.evolve(state, battle=None)
    events: list = []
    dice(1, 2, 3)
    state = B.start_battle(state, events)
    assert not any(isinstance(e, GameOver) for e in events)
    assert state.phase == Phase.BATTLE
    for _ in range(7):                  # two rounds and more: only EndTurn, ever
        seat = pending(state).seats[0]
        assert legal_actions(state) == [EndTurn(seat)]
        state, ev = run(state, EndTurn(seat))
        assert not any(isinstance(e, GameOver) for e in ev)
    assert state.battle.round >= 2 and all(s.entered for s in state.seats)


def test_6_one_attack_card_is_enough_to_play(dice):
    """One attack card at the table: its holder plays; the others' turns end by themselves
    (§6 アタックカードを装備していない場合)."""
    state = position(3, {0: {"equip": ["plate_mail"]}, 1: {"equip": ["fire_bolt"]}, 2: {}})
    state = attrs.evolve(state, battle=None)
    dice(1, 2)
    state = B.start_battle(state, [])
    assert state.phase == Phase.BATTLE
    assert pending(state).kind == "turn" and pending(state).seats == (1,)
