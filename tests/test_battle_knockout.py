"""§6 体力とノックアウト: HP 0 → the piece leaves the field and cannot be targeted; at the
start of that seat's next turn it rolls, re-enters that area with HP 6, and plays on
(FAQ: ノックアウトから復帰する手番には、通常どおりアクションを行えますか？ 行えます)."""

from __future__ import annotations

from rules import legal_actions, pending
from rules.actions import EndTurn, Move, Rest, StartAttack
from rules.events import DieRolled, Entered, KnockedOut, TurnStarted

from test_battle_positions import (attack, chips, dice, finish_draw, of_type,  # noqa: F401
                                   position, run, vp_gains)


def knock_out(chips, order=(0, 1, 2)):
    """Seat 0 knocks seat 1 (HP 2, in area 2) out with a Short Sword; seat 2 stands in
    area 2 too, with a Short Sword of its own."""
    state = position(3, {0: {"equip": ["short_sword"], "area": 1},
                         1: {"equip": ["short_sword"], "area": 2, "hp": 2},
                         2: {"equip": ["short_sword"], "area": 3}}, order=order)
    chips("2")
    state, ev = attack(state, 0, "short_sword", "short_sword_range", 1)
    state, ev2 = finish_draw(state)
    return state, ev + ev2


def test_6_knock_out_leaves_the_field(chips):
    """§6 体力とノックアウト: 「体力が0になったプレイヤーは…ノックアウトされ、フィールド上の
    自分のプレイヤーコマを直ちにフィールドから取り除きます。」"""
    state, ev = knock_out(chips)
    s = state.seats[1]
    assert s.hp == 0 and s.knocked_out and s.area is None
    assert KnockedOut(1, 0) in ev


def test_6_knocked_out_seat_cannot_be_targeted(chips):
    """§6 体力とノックアウト: 「ノックアウト中のプレイヤーはアタックのターゲットに選べません。」
    Seat 2 acts before seat 1's next turn; seat 1 is no longer a target for it."""
    state, _ = knock_out(chips, order=(0, 2, 1))
    state, _ = run(state, EndTurn(0))
    assert pending(state).seats == (2,)
    # seat 2 (area 3) would reach area 2 with its Short Sword, but nobody is there now
    assert not [a for a in legal_actions(state) if isinstance(a, StartAttack)]


def test_6_knocked_out_seat_reenters_at_its_next_turn_and_acts(chips, dice):
    """§6 体力とノックアウト: 「ノックアウト中のプレイヤーの次の手番が来たら、手番の開始時に6面
    サイコロを振り、出目と同じ番号のエリアへ自分のプレイヤーコマを再登場させます。その後、
    体力を6に戻してから通常どおりプレイを再開します。」"""
    state, _ = knock_out(chips)
    dice(3)
    state, ev = run(state, EndTurn(0))
    assert of_type(ev, TurnStarted)[-1].seat == 1
    assert DieRolled(1, 3, "reenter") in ev
    assert Entered(1, 3, True) in ev
    s = state.seats[1]
    assert s.area == 3 and s.hp == 6 and not s.knocked_out and not s.low
    assert pending(state).kind == "turn" and pending(state).seats == (1,)
    # a normal turn: it may attack seat 2 beside it, move or rest
    legal = set(legal_actions(state))
    assert {StartAttack(1, "short_sword", "short_sword_range"), Move(1, 1), Move(1, -1),
            Rest(1), EndTurn(1)} <= legal


def test_6_low_hp_vp_scored_again_after_reentry(chips, dice):
    """§6 体力による勝利点: 「キャラクターの体力が6に設定されたあと…初めて4以下になった場合」
    — re-entry sets HP to 6, so the next drop to 4 scores again."""
    state, ev = knock_out(chips)
    assert state.seats[0].vp == 2                 # HP 2 → 0: knock-out only
    dice(1)                                       # seat 1 re-enters beside seat 0
    state, _ = run(state, EndTurn(0))
    state, _ = run(state, EndTurn(1), EndTurn(2))
    assert pending(state).seats == (0,)
    chips("2")
    state, ev = attack(state, 0, "short_sword", "short_sword_range", 1)
    state, ev2 = finish_draw(state)
    assert state.seats[1].hp == 4
    assert vp_gains(ev + ev2) == [(0, 1, 1, "low")]
    assert state.seats[0].vp == 3
