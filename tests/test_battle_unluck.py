"""§6 ダメージ (ミスチップ) and アンラック: a miss gives one unluck chip (never more than 2);
with 2 a seat may use them before drawing: no miss chip, at most 3 draws, both discarded."""

from __future__ import annotations

import pytest

from rules import legal_actions, pending
from rules.actions import Decline, Draw, StartCounter, Stop, UseUnluck
from rules.events import UnluckGained, UnluckUsed

from test_battle_positions import (attack, bag_of, bags, chips, damage, draw_end,  # noqa: F401
                                   finish_draw, of_type, position, run)


def club(unluck=0):
    """Seat 0 (Club: 1 1 1 1 0) attacks seat 1 in its own area (no crit chip)."""
    return position(3, {0: {"equip": ["club"], "area": 1, "unluck": unluck},
                        1: {"area": 1}})


@pytest.mark.parametrize("before,after", [(0, 1), (1, 2), (2, 2)])
def test_6_miss_gives_one_unluck_chip_at_most_two(chips, before, after):
    """§6 ダメージ: 「ミスチップを引いた攻撃者は、共用の置き場からアンラックチップを1枚受け取り
    …すでにアンラックチップを2枚持っている場合は受け取りません。」"""
    state = club(before)
    if before == 2:
        state, _ = attack(state, 0, "club", "club_range", 1)
        chips("miss")
        state, ev = run(state, Decline(0))
    else:
        chips("miss")
        state, ev = attack(state, 0, "club", "club_range", 1)
    assert state.seats[0].unluck == after
    gained = of_type(ev, UnluckGained)
    assert gained == ([UnluckGained(0, after)] if after > before else [])


def test_6_no_unluck_chip_without_a_miss(chips):
    """§6: only a miss chip gives unluck (a 0-damage stop does not)."""
    state = club()
    chips("0")
    state, ev = attack(state, 0, "club", "club_range", 1)
    state, ev2 = run(state, Stop(0))
    assert state.seats[0].unluck == 0 and not of_type(ev + ev2, UnluckGained)


@pytest.mark.parametrize("unluck,offered", [(2, True), (1, False), (0, False)])
def test_6_unluck_offered_with_two_chips_before_drawing(chips, unluck, offered):
    """§6 アンラック: 「アンラックチップを2枚持っているプレイヤーは、アタックまたはカウンターで
    バトルチップを引く前に、任意でアンラックを使用できます。」"""
    state = club(unluck)
    if not offered:
        chips("miss")
    state, ev = attack(state, 0, "club", "club_range", 1)
    if offered:
        assert pending(state).kind == "unluck"
        assert set(legal_actions(state)) == {UseUnluck(0), Decline(0)}
        assert not bags(ev)                     # nothing drawn before the choice
    else:
        assert bags(ev) and pending(state).kind != "unluck"


def test_6_using_unluck_no_miss_at_most_3_draws_chips_discarded(chips):
    """§6 アンラック: 「ミスチップをチップバッグへ入れません。」「引けるバトルチップは最大3枚
    です。3枚目に1以上のチップを引いた場合も、4枚目は引けません。」「自分が持つアンラック
    チップ2枚を破棄し」"""
    state = club(2)
    state, _ = attack(state, 0, "club", "club_range", 1)
    chips("1")
    state, ev = run(state, UseUnluck(0))
    assert UnluckUsed(0) in ev
    assert state.seats[0].unluck == 0
    assert bags(ev) == [bag_of("club", miss=False)]
    chips("1", "1")
    state, ev2 = run(state, Draw(0), Draw(0))
    assert draw_end(ev2).reason == "limit"
    assert damage(ev2) == {1: 3}
    assert pending(state).kind == "turn"


def test_6_declining_unluck_keeps_the_chips(chips):
    """§6 アンラック: 「使用せず、アンラックチップを保持しても構いません。」 — the bag has its
    miss chip and a 3rd chip ≥1 allows a 4th."""
    state = club(2)
    state, _ = attack(state, 0, "club", "club_range", 1)
    chips("1")
    state, ev = run(state, Decline(0))
    assert state.seats[0].unluck == 2
    assert bags(ev) == [bag_of("club")]
    chips("1", "1")
    state, _ = run(state, Draw(0), Draw(0))
    assert set(legal_actions(state)) == {Draw(0), Stop(0)}
    state, _ = finish_draw(state)


def test_6_unluck_in_a_counter(chips):
    """§6 アンラック: 「アタックまたはカウンターでバトルチップを引く前に」 — a counterer with
    2 unluck chips is asked too."""
    state = position(3, {0: {"equip": ["spear"], "area": 1},
                         1: {"equip": ["short_sword"], "area": 2, "unluck": 2}})
    chips("miss")
    state, _ = attack(state, 0, "spear", "spear_range", 1)
    state, _ = run(state, StartCounter(1, "short_sword", "short_sword_range"))
    assert pending(state).kind == "unluck" and pending(state).seats == (1,)
    chips("2")
    state, ev = run(state, UseUnluck(1))
    assert bags(ev) == [bag_of("short_sword", miss=False)]
    state, ev2 = run(state, Stop(1))
    assert damage(ev2) == {0: 2}
    assert state.seats[1].unluck == 0
