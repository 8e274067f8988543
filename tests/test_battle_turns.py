"""§6 手番 / 休息 / 継続スキル: at most 2 actions — moves ≤ 2, attack ≤ 1, rest alone; no
attack after a move unless a move-then-attack skill is in effect (which changes no count);
attack then move is fine; a turn may end with no action."""

from __future__ import annotations

import pytest

from rules import IllegalAction, apply, legal_actions, pending
from rules.actions import Activate, EndTurn, Move, Rest, StartAttack
from rules.events import Rested, SkillActivated, SkillEnded, TurnEnded

from test_battle_positions import attack, chips, finish_draw, position, run  # noqa: F401

SWORD = StartAttack(0, "short_sword", "short_sword_range")


def turn_position(**seat0):
    """Seat 0 (Short Sword, area 1) to act; seat 1 beside it in area 1; seat 2 far away.
    Seats 1 and 2 hold bows, whose crit area (distance 3) never holds seat 0 here, so
    nobody counters."""
    s0 = {"equip": ["short_sword"], "area": 1}
    s0.update(seat0)
    return position(3, {0: s0, 1: {"equip": ["bow"], "area": 1},
                        2: {"equip": ["bow"], "area": 4}})


def test_6_turn_first_action_choices():
    """§6 手番: 「移動、アタック、休息から最大2回のアクション」; 「アクションを行わずに手番を
    終了することもできます。」"""
    state = turn_position()
    assert set(legal_actions(state)) == {SWORD, StartAttack(0, "short_sword"), Move(0, 1),
                                         Move(0, -1), Rest(0), EndTurn(0)}


def test_6_turn_at_most_two_moves_then_the_turn_ends():
    """§6 手番: 移動2回まで; 最大2回のアクション — after 「移動、移動」 the turn is over."""
    state = turn_position()
    state, _ = run(state, Move(0, +1))
    assert set(legal_actions(state)) == {Move(0, 1), Move(0, -1), EndTurn(0)}
    state, ev = run(state, Move(0, +1))
    assert TurnEnded(0, "actions") in ev
    assert pending(state).seats == (1,)
    assert state.seats[0].area == 3


def test_6_turn_no_attack_after_a_move():
    """§6 手番: 「手番中、移動後にアタックはできません。」 — seat 1 is still in range after
    the move, yet no attack is offered and one is refused."""
    state = turn_position()
    state, _ = run(state, Move(0, +1))
    assert state.seats[0].area == 2 and state.seats[1].area == 1
    assert not [a for a in legal_actions(state) if isinstance(a, StartAttack)]
    with pytest.raises(IllegalAction):
        apply(state, SWORD)


def test_6_turn_attack_then_move(chips):
    """§6 手番: 「アタック後に移動することはできます。」 (選択例 「アタック、移動」); no
    second attack and no rest after it; the move is the second action and ends the turn."""
    state = turn_position()
    chips("1")
    state, _ = attack(state, 0, "short_sword", "short_sword_range", 1)
    state, _ = finish_draw(state)
    assert pending(state).kind == "turn" and pending(state).seats == (0,)
    assert set(legal_actions(state)) == {Move(0, 1), Move(0, -1), EndTurn(0)}
    with pytest.raises(IllegalAction):
        apply(state, SWORD)
    state, ev = run(state, Move(0, -1))
    assert state.seats[0].area == 6
    assert TurnEnded(0, "actions") in ev
    assert pending(state).seats == (1,)


def test_6_turn_attack_alone_may_end_the_turn(chips):
    """§6 選択例 「アタック」: after an attack the turn may end without a move."""
    state = turn_position()
    chips("miss")
    state, _ = attack(state, 0, "short_sword", "short_sword_range", 1)
    state, ev = run(state, EndTurn(0))
    assert TurnEnded(0, "end") in ev and pending(state).seats == (1,)


def test_6_rest_recovers_one_mana_and_ends_the_turn():
    """§6 休息: 「現在魔力を1回復して手番を終了します。」"""
    state = turn_position(mana=1)
    state, ev = run(state, Rest(0))
    assert state.seats[0].mana == 2
    assert Rested(0, 2) in ev and TurnEnded(0, "rest") in ev
    assert pending(state).seats == (1,)


def test_6_rest_never_above_final_mana():
    """§6 魔力メーターの準備: 「現在魔力は最終魔力を超えて回復しません。」 (human: final mana 3;
    with the Mana Ring 4)."""
    state = turn_position(mana=3)
    state, _ = run(state, Rest(0))
    assert state.seats[0].mana == 3
    state = turn_position(equip=["short_sword", "mana_ring"], mana=3)
    state, _ = run(state, Rest(0))
    assert state.seats[0].mana == 4


def test_6_rest_only_as_the_only_action(chips):
    """§6 休息: 「休息した手番では移動もアタックもできません。移動またはアタックを行った後に
    休息することもできません。」"""
    state = turn_position(mana=0)
    moved, _ = run(state, Move(0, +1))
    assert Rest(0) not in legal_actions(moved)
    with pytest.raises(IllegalAction):
        apply(moved, Rest(0))
    chips("1")
    attacked, _ = attack(state, 0, "short_sword", "short_sword_range", 1)
    attacked, _ = finish_draw(attacked)
    assert pending(attacked).seats == (0,)
    assert Rest(0) not in legal_actions(attacked)
    # and a rest ends the turn, so nothing can follow it
    rested, _ = run(state, Rest(0))
    assert pending(rested).seats == (1,)


def test_6_turn_may_end_with_no_action():
    """§6 手番: 「アクションを行わずに手番を終了することもできます。」 (選択例 「何もしない」)."""
    state = turn_position(mana=2)
    after, ev = run(state, EndTurn(0))
    assert TurnEnded(0, "end") in ev
    assert pending(after).seats == (1,)
    assert after.seats[0].area == 1 and after.seats[0].mana == 2


def dash_position():
    return position(3, {0: {"equip": ["short_sword", "dash_boots"], "area": 6, "mana": 3},
                        1: {"equip": ["bow"], "area": 2}, 2: {"equip": ["bow"], "area": 4}})


def test_6_move_then_attack_skill_allows_an_attack_after_a_move(chips):
    """§6 手番: 「移動後もアタックできる効果を持つスキルを適用している場合は、手番中、移動後も
    アタックできます。」 §6 継続スキル: the card is turned sideways (in effect) until its end
    timing, and the skill's mana is paid."""
    state = dash_position()
    act = Activate(0, "dash_boots#1", "dash")
    assert act in legal_actions(state)
    state, ev = run(state, act)
    assert SkillActivated(0, "dash_boots#1", "dash", 1) in ev
    assert state.seats[0].mana == 2
    assert [a.skill for a in state.seats[0].active] == ["dash"]
    state, _ = run(state, Move(0, +1))          # 6 → 1, seat 1 (area 2) now at distance 1
    assert SWORD in legal_actions(state)
    chips("1")
    state, ev = attack(state, 0, "short_sword", "short_sword_range", 1)
    state, ev2 = finish_draw(state)
    ev += ev2
    # 「移動後もアタックできる効果だけでは、1手番に行えるアクション数…は変更されません」:
    # move + attack are the two actions, so the turn is over; the skill ends with it.
    assert TurnEnded(0, "actions") in ev
    assert SkillEnded(0, "dash_boots#1", "dash") in ev
    assert state.seats[0].active == ()
    assert pending(state).seats == (1,)


def test_6_move_then_attack_changes_no_count():
    """§6 手番: 「移動後もアタックできる効果だけでは、1手番に行えるアクション数、移動回数、
    アタック回数は変更されません。」 — two moves still end the turn."""
    state = dash_position()
    state, _ = run(state, Activate(0, "dash_boots#1", "dash"), Move(0, +1))
    state, ev = run(state, Move(0, +1))
    assert TurnEnded(0, "actions") in ev
    assert pending(state).seats == (1,)


def test_6_move_then_attack_ends_at_turn_end():
    """§6 継続スキル: 「効果文に記載された終了タイミングになったら…スキルを解除します。」
    (end timing: turn end) — next turn, a move again forbids the attack."""
    state = dash_position()
    state, ev = run(state, Activate(0, "dash_boots#1", "dash"), EndTurn(0))
    assert SkillEnded(0, "dash_boots#1", "dash") in ev
    assert state.seats[0].active == ()
    state, _ = run(state, EndTurn(1), EndTurn(2))
    assert pending(state).seats == (0,) and state.battle.round == 2
    state, _ = run(state, Move(0, +1))
    assert SWORD not in legal_actions(state)
