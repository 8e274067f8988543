"""§6 バトルチップを引く枚数: the decision flow after each chip (判断フロー), the automatic
ends, the 3rd-chip continuation, unluck's limit and skills that fix the number of draws."""

from __future__ import annotations

import pytest

from rules import legal_actions, pending
from rules import battle as B
from rules.actions import Declare, Draw, Stop
from rules.events import ChipDrawn, DrawEnded

from test_battle_positions import (attack, chips, damage, draw_end, finish_draw,  # noqa: F401
                                   of_type, position, run)

ENDS = {"miss", "zero_after_point", "zero_third", "empty", "limit"}
ZERO_ENDS = {"zero_after_point", "zero_third"}

# (drawn so far, chips left in the bag?, unluck used?, fixed number of draws, outcome).
# An outcome is "choose" (the attacker continues or stops), "continue" (a fixed number of
# draws goes on by itself), or a set of acceptable reasons for an automatic end.
T = True
FLOW = [
    # ミスチップ → 合計をすべて失い…0ダメージで終了
    (("miss",), T, False, None, {"miss"}),
    (("2", "miss"), T, False, None, {"miss"}),
    (("0", "miss"), T, False, None, {"miss"}),
    (("1", "1", "1", "2", "miss"), T, False, None, {"miss"}),
    (("1", "miss"), False, False, None, {"miss"}),         # the last chip: still a miss
    (("1", "miss"), T, False, 3, {"miss"}),
    # 0チップ ─ すでに1以上のチップを引いている → 現在の合計で終了 (2枚目でも)
    (("1", "0"), T, False, None, {"zero_after_point"}),
    (("crit", "0"), T, False, None, {"zero_after_point"}),
    (("2", "1", "0"), T, False, None, ZERO_ENDS),
    (("0", "1", "0"), T, False, None, ZERO_ENDS),
    (("1", "1", "1", "2", "0"), T, False, None, ZERO_ENDS),
    # 0チップ ─ 今回が3枚目以降 → 現在の合計で終了 (1以上を引いていなくても)
    (("0", "0", "0"), T, False, None, {"zero_third"}),
    # 0チップ ─ 上記以外 (1枚目または2枚目, 1以上なし) → 続けるか終了するか選ぶ
    (("0",), T, False, None, "choose"),
    (("0", "0"), T, False, None, "choose"),
    # 1以上のチップ ─ 1枚目または2枚目 → 続けるか終了するか選ぶ
    (("1",), T, False, None, "choose"),
    (("2",), T, False, None, "choose"),
    (("crit",), T, False, None, "choose"),
    (("0", "1"), T, False, None, "choose"),
    (("1", "2"), T, False, None, "choose"),
    # 1以上のチップ ─ 3枚目以降 → さらに1枚引くか終了するか選ぶ
    (("1", "1", "1"), T, False, None, "choose"),
    (("0", "0", "2"), T, False, None, "choose"),
    (("1", "2", "1", "crit"), T, False, None, "choose"),
    (("1", "1", "1", "1", "2", "crit"), T, False, None, "choose"),
    # チップバッグが空になった場合 → そこまでの合計を維持して終了
    (("1",), False, False, None, {"empty"}),
    (("0",), False, False, None, {"empty"}),
    (("1", "1", "1", "2", "2"), False, False, None, {"empty"}),
    (("1", "0"), False, False, None, {"zero_after_point", "empty"}),
    # アンラック: 引けるバトルチップは最大3枚; 3枚目に1以上でも4枚目は引けない
    (("1", "1", "1"), T, True, None, {"limit"}),
    (("0", "0", "2"), T, True, None, {"limit"}),
    (("1", "1"), T, True, None, "choose"),
    (("0",), T, True, None, "choose"),
    (("0", "0"), T, True, None, "choose"),
    (("0", "0", "0"), T, True, None, ZERO_ENDS | {"limit"}),
    (("1", "1", "0"), T, True, None, ZERO_ENDS | {"limit"}),
    (("2",), False, True, None, {"empty"}),
    # 引く枚数を指定する効果: その指定を優先し、3枚目以降の追加は行いません (RULINGS R17)
    (("1",), T, False, 1, {"limit"}),
    (("0",), T, False, 1, {"limit"}),
    (("2",), T, False, 2, "continue"),
    (("0",), T, False, 2, "continue"),
    (("2", "1"), T, False, 2, {"limit"}),
    (("0", "0"), T, False, 3, "continue"),
    (("1", "1"), T, False, 3, "continue"),
    (("1", "1", "1"), T, False, 3, {"limit"}),
    (("1", "0"), T, False, 3, {"zero_after_point"}),
    (("0", "0", "0"), T, False, 3, ZERO_ENDS | {"limit"}),
    (("miss",), T, False, 3, {"miss"}),
    (("1",), False, False, 3, {"empty"}),
]


@pytest.mark.parametrize("drawn,bag_left,unluck,fixed,outcome", FLOW)
def test_6_draw_decision_flow_table(drawn, bag_left, unluck, fixed, outcome):
    """§6 判断フロー:
    チップを1枚引く ├─ ミスチップ → 合計をすべて失い…0ダメージで終了
                   ├─ 0チップ ├─ すでに1以上のチップを引いている → 現在の合計で終了
                   │         ├─ 今回が3枚目以降 → 現在の合計で終了
                   │         └─ 上記以外 → 続けるか終了するか選ぶ
                   └─ 1以上のチップ ├─ 1枚目または2枚目 → 続けるか終了するか選ぶ
                                   └─ 3枚目以降 → さらに1枚引くか終了するか選ぶ
    plus 「チップバッグが空になった場合」, アンラック (最大3枚) and 引く枚数を指定する効果."""
    got = B.draw_outcome(tuple(drawn), bag_left, unluck, fixed)
    if isinstance(outcome, str):
        assert got == outcome
    else:
        assert got in outcome


def test_6_draw_flow_reasons_are_known():
    """Every automatic end the engine reports is one of the rulebook's."""
    for drawn, bag_left, unluck, fixed, _ in FLOW:
        got = B.draw_outcome(tuple(drawn), bag_left, unluck, fixed)
        assert got in ENDS | {"choose", "continue"}


# ------------------------------------------------------------------- through apply

def club(there=1, **target):
    """Seat 0 attacks seat 1 with the Club (chips 1 1 1 1 0; seat 1 in the same area, so
    no crit chip): the bag is 0 1 1 1 1 miss."""
    return position(3, {0: {"equip": ["club"], "area": 1},
                        1: {"area": there, **target}})


def test_6_draw_first_chip_then_choose_and_stop_keeps_the_total(chips):
    """§6 基本手順: 「チップを1枚引くたびに…現在の合計で終了するか、続けて引くかを選べます。」
    §6 ダメージ: 「引いた各ポイントチップの値を合計し、その合計と同じダメージ」"""
    state = club()
    chips("1")
    state, ev = attack(state, 0, "club", "club_range", 1)
    assert pending(state).kind == "draw"
    assert set(legal_actions(state)) == {Draw(0), Stop(0)}
    chips("1")
    state, ev2 = run(state, Draw(0))
    state, ev3 = run(state, Stop(0))
    ev += ev2 + ev3
    assert [e.total for e in of_type(ev, ChipDrawn)] == [1, 2]
    assert draw_end(ev) == DrawEnded(0, "stop", 2)
    assert damage(ev) == {1: 2}
    assert state.seats[1].hp == 4


def test_6_draw_miss_loses_everything(chips):
    """§6 ダメージ: 「ミスチップを引いた場合は直ちにチップを引く処理を終了し…それまでに合計した
    数値をすべて失って、与えるダメージが0になります。」 (FAQ: 残りません)"""
    state = club()
    chips("1", "1", "miss")
    state, ev = attack(state, 0, "club", "club_range", 1)
    state, ev2 = finish_draw(state, draws=2)
    ev += ev2
    assert draw_end(ev).reason == "miss"
    assert damage(ev) == {1: 0}
    assert state.seats[1].hp == 6


def test_6_draw_zero_after_a_point_chip_ends_it(chips):
    """§6 自動的に終了する場合: 「1以上のチップを1枚以上引いた後に0チップを引いた場合：そこまで
    の合計を維持して終了します。0チップが2枚目の場合も終了します。」"""
    state = club()
    chips("1", "0")
    state, ev = attack(state, 0, "club", "club_range", 1)
    state, ev2 = run(state, Draw(0))
    ev += ev2
    assert draw_end(ev).reason == "zero_after_point"
    assert damage(ev) == {1: 1}
    assert pending(state).kind == "turn"


def test_6_draw_zero_as_first_chip_is_a_choice(chips):
    """§6: 「まだ1以上のチップを引いていない状態で、1枚目または2枚目に0チップを引いた場合だけ
    は、自動的に終了しません。続けて引くか、0ダメージで終了するかを選べます。」"""
    state = club()
    chips("0")
    state, ev = attack(state, 0, "club", "club_range", 1)
    assert set(legal_actions(state)) == {Draw(0), Stop(0)}
    state, ev2 = run(state, Stop(0))
    assert damage(ev2) == {1: 0}
    assert draw_end(ev2) == DrawEnded(0, "stop", 0)


def test_6_draw_zero_as_third_chip_ends_it(chips):
    """§6: 「3枚目以降に0チップを引いた場合：それまでに1以上のチップを引いていない場合も、
    そこまでの合計を維持して終了します。」 (Short Sword 0 0 1 2 2 + 《防壁》's 0.)"""
    state = position(3, {0: {"equip": ["short_sword"], "area": 1},
                         1: {"equip": ["barrier_shield"], "area": 1}})
    state, _ = attack(state, 0, "short_sword", "short_sword_range", 1)
    chips("0")
    state, ev = run(state, Declare(1, "barrier_shield#1", "barrier"))
    chips("0", "0")
    state, ev2 = run(state, Draw(0))
    assert pending(state).kind == "draw"
    state, ev3 = run(state, Draw(0))
    assert draw_end(ev3).reason == "zero_third"
    assert pending(state).kind == "turn"


def test_6_draw_point_chip_as_third_allows_a_fourth_and_on(chips):
    """§6 3枚目以降の成功継続: 「3枚目に1以上のチップを引いた場合は、4枚目を引けます。4枚目以降
    も、直前に1以上のチップを引いた場合は、さらに1枚引けます。」"""
    state = club()
    chips("1", "1", "1", "1")
    state, ev = attack(state, 0, "club", "club_range", 1)
    state, ev2 = run(state, Draw(0), Draw(0))
    assert set(legal_actions(state)) == {Draw(0), Stop(0)}
    state, ev3 = run(state, Draw(0))
    assert set(legal_actions(state)) == {Draw(0), Stop(0)}
    state, ev4 = run(state, Stop(0))
    assert damage(ev4) == {1: 4}


def test_6_fixed_draws_one_chip_no_choice(chips):
    """§6 引く枚数を指定する効果: 「「バトルチップを1枚だけ引く」など引く枚数を指定している
    場合は、その指定を優先し」 — Rapier's Flash: one chip, no Draw/Stop choice."""
    state = position(3, {0: {"equip": ["rapier"], "area": 1}, 1: {"area": 1}})
    chips("2")
    state, ev = attack(state, 0, "rapier", "rapier_range", 1,
                       declare=[("rapier", "rapier_flash")])
    assert draw_end(ev) == DrawEnded(0, "limit", 2)
    assert damage(ev) == {1: 2}
    assert pending(state).kind == "turn"


def test_6_fixed_draws_even_after_a_zero_first(chips):
    """§6 引く枚数を指定する効果: with one fixed draw, a first 0 is not a choice either."""
    state = position(3, {0: {"equip": ["rapier"], "area": 1}, 1: {"area": 1}})
    chips("0")
    state, ev = attack(state, 0, "rapier", "rapier_range", 1,
                       declare=[("rapier", "rapier_flash")])
    assert len(of_type(ev, ChipDrawn)) == 1
    assert damage(ev) == {1: 0}
    assert pending(state).kind == "turn"
