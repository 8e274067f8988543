"""§6 アタックカードを装備していない場合: such a seat enters like everyone and never acts,
also after a knock-out; a seat with magic cards (no weapon) acts normally."""

from __future__ import annotations

import attrs

from rules import legal_actions, pending
from rules import battle as B
from rules.actions import EndTurn, Move, Rest, StartAttack
from rules.events import DieRolled, Entered, TurnEnded

from test_battle_positions import dice, of_type, position, run  # noqa: F401


def test_6_no_attack_cards_enters_and_ends_its_turn(dice):
    """§6: 「アタックカードを1枚も装備していないプレイヤーも、通常どおり6面サイコロを振り、出目と
    同じ番号のエリアへプレイヤーコマを置きます。」「配置後の初期手番と、それ以降の手番では
    アクションを行えません。」"""
    state = position(3, {0: {"equip": ["barrier_shield"]}, 1: {"equip": ["short_sword"]},
                         2: {"equip": ["spear"]}})
    state = attrs.evolve(state, battle=None)
    dice(2, 5)
    events: list = []
    state = B.start_battle(state, events)
    assert DieRolled(0, 2, "enter") in events and Entered(0, 2, False) in events
    assert TurnEnded(0, "no_attack_cards") in events
    assert state.seats[0].area == 2
    assert Entered(1, 5, False) in events
    assert pending(state).kind == "turn" and pending(state).seats == (1,)


def test_6_no_attack_cards_never_acts_in_later_rounds():
    """§6: 「移動、アタック、休息を行わず、その場に留まったまま手番を終了します。」"""
    state = position(3, {0: {"equip": ["short_sword"], "area": 1},
                         1: {"equip": ["plate_mail"], "area": 4},
                         2: {"equip": ["spear"], "area": 6}})
    state, ev = run(state, EndTurn(0))
    assert TurnEnded(1, "no_attack_cards") in ev
    assert state.seats[1].area == 4
    assert pending(state).seats == (2,)


def test_6_no_attack_cards_reenters_after_a_knock_out_and_does_nothing(dice):
    """§6: 「体力が0になった場合は、通常どおりノックアウトの処理を行います。次の自分の手番の
    開始時に…再登場させて体力を6に戻しますが、アクションは行わず、その場で手番を終了します。」
    (FAQ: ただし、アタックカードを1枚も装備していないプレイヤーは、再登場後にアクションを行わず)"""
    state = position(3, {0: {"equip": ["short_sword"], "area": 1},
                         1: {"equip": ["plate_mail"], "hp": 0, "knocked_out": True},
                         2: {"equip": ["spear"], "area": 6}})
    dice(3)
    state, ev = run(state, EndTurn(0))
    assert DieRolled(1, 3, "reenter") in ev and Entered(1, 3, True) in ev
    assert state.seats[1].hp == 6 and state.seats[1].area == 3
    assert TurnEnded(1, "no_attack_cards") in ev
    assert pending(state).seats == (2,)


def test_6_magic_only_seat_acts_normally():
    """§6: 「魔法カードを1枚以上装備している場合は、武器カードを装備していなくても通常どおり
    行動できます。」"""
    state = position(3, {0: {"equip": ["short_sword"], "area": 1},
                         1: {"equip": ["fire_bolt"], "area": 3},
                         2: {"equip": ["spear"], "area": 6}})
    state, ev = run(state, EndTurn(0))
    assert not of_type(ev, TurnEnded)[1:]
    assert pending(state).seats == (1,)
    assert {StartAttack(1, "fire_bolt", "fire_bolt_range"), StartAttack(1, "fire_bolt"),
            Move(1, 1), Move(1, -1), Rest(1), EndTurn(1)} == set(legal_actions(state))
