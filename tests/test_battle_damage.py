"""§6 ダメージ, 体力とノックアウト, 体力による勝利点, 複数のターゲットへのアタック: damage is the
sum of the chips (crit 2), a miss makes it 0, reductions and HP floor at 0; VP are judged
once per target seat on what it took."""

from __future__ import annotations

import pytest

from rules import pending
from rules.actions import Declare, Done
from rules.events import DamageDealt

from test_battle_positions import (attack, chips, damage, finish_draw, of_type,  # noqa: F401
                                   position, run, vp_gains)


def strike(chips, draws, *, hp=6, low=None, target_area=2, equip=("short_sword",),
           target_equip=(), declare=(), defend=(), vp=0):
    """Seat 0 (area 1) attacks seat 1 (Short Sword 0 0 1 2 2; area 2 = crit area) drawing
    `draws` in order and then stopping if it may. Returns (state, events)."""
    seat1 = {"area": target_area, "hp": hp, "equip": list(target_equip)}
    if low is not None:
        seat1["low"] = low
    state = position(3, {0: {"equip": list(equip), "area": 1, "vp": vp}, 1: seat1})
    chips(*draws)
    card = equip[0]
    state, ev = attack(state, 0, card, f"{card}_range", 1, declare=declare)
    for c, s in defend:
        state, e = run(state, Declare(1, f"{c}#1", s))
        ev += e
    if pending(state).kind == "defense":
        state, e = run(state, Done(1))
        ev += e
    state, e = finish_draw(state, draws=len(draws) - 1)
    return state, ev + e


def test_6_damage_is_the_sum_crit_counts_2(chips):
    """§6 ダメージ: 「引いた各ポイントチップの値を合計し…クリティカルチップを引いた場合は、通常
    2として合計します。」"""
    state, ev = strike(chips, ["crit", "1", "2"])
    assert damage(ev) == {1: 5}
    assert state.seats[1].hp == 1


def test_6_miss_means_0_damage_and_no_vp(chips):
    """§6 体力による勝利点: 「ミスチップによってダメージが0になった場合は獲得しません。」"""
    state, ev = strike(chips, ["2", "2", "miss"])
    assert damage(ev) == {1: 0}
    assert state.seats[1].hp == 6 and state.seats[0].vp == 0 and not vp_gains(ev)


def test_6_hp_never_below_0(chips):
    """§6 体力とノックアウト: 「体力は0未満になりません。」"""
    state, ev = strike(chips, ["2", "2"], hp=1)
    assert of_type(ev, DamageDealt) == [DamageDealt(0, 1, 4, 0)]
    assert state.seats[1].hp == 0


# (hp before, low before, chips, hp after, VP gained, reason)
VP_TABLE = [
    (6, False, ["2"], 4, 1, "low"),                     # 6 → 4: first time ≤ 4
    (6, False, ["1"], 5, 0, None),                      # 6 → 5: nothing
    (5, False, ["1"], 4, 1, "low"),                     # 「体力5から体力4以下になった場合も獲得」
    (4, True, ["1"], 3, 0, None),                       # 「すでに体力4以下…獲得しません」
    (3, True, ["2", "1"], 0, 2, "knockout"),            # knock-out only
    (6, False, ["2", "2", "crit"], 0, 3, "low_knockout"),  # 6 → 0 at once: 1 + 2
    (5, False, ["2", "2", "1"], 0, 3, "low_knockout"),  # 「体力5以上のターゲットを1回で…合計3枚」
    (2, True, ["2", "2"], 0, 2, "knockout"),            # overkill: still 2
]


@pytest.mark.parametrize("hp,low,draws,hp_after,gained,reason", VP_TABLE)
def test_6_victory_points_for_hp(chips, hp, low, draws, hp_after, gained, reason):
    """§6 体力による勝利点: 「キャラクターの体力が6に設定されたあと…初めて4以下になった場合…
    勝利点チップを1枚…ノックアウトさせた攻撃者は…2枚…体力5以上のターゲットを1回のアタック
    …でノックアウトさせた場合は…合計3枚」"""
    state, ev = strike(chips, draws, hp=hp, low=low)
    assert state.seats[1].hp == hp_after
    assert state.seats[0].vp == gained
    assert vp_gains(ev) == ([(0, 1, gained, reason)] if gained else [])


def test_6_low_vp_only_once_until_hp_is_set_to_6_again(chips):
    """§6 体力による勝利点: the second hit below 4 in a row scores nothing (the seat has
    been ≤ 4 since its HP was set to 6)."""
    state, ev = strike(chips, ["2"])
    assert state.seats[1].hp == 4 and state.seats[0].vp == 1
    state = position(3, {0: {"equip": ["short_sword"], "area": 1},
                         1: {"area": 2, "hp": state.seats[1].hp, "low": state.seats[1].low}})
    chips("1")
    state, ev = attack(state, 0, "short_sword", "short_sword_range", 1)
    state, _ = finish_draw(state)
    assert state.seats[1].hp == 3 and state.seats[0].vp == 0


def test_6_nothing_on_zero_damage(chips):
    """§6 体力による勝利点: no damage, no VP; the target's HP and low mark are unchanged."""
    state, ev = strike(chips, ["0"])
    assert damage(ev) == {1: 0}
    assert state.seats[1].hp == 6 and not state.seats[1].low and not vp_gains(ev)


def test_6_damage_reduction_per_target(chips):
    """§6: 「効果によってアタックのターゲット1人当たりのダメージを減らす場合も、0ダメージまで
    減らして処理を終えます。」 Plate Mail's Brace: −2."""
    state, ev = strike(chips, ["2", "1"], target_equip=["plate_mail"],
                       defend=[("plate_mail", "brace")])
    assert damage(ev) == {1: 1}
    assert state.seats[1].hp == 5


def test_6_damage_reduction_floors_at_0_no_vp(chips):
    """§6: 「ダメージは0未満になりません。」 — 1 damage less 2 is 0: no HP lost, no VP."""
    state, ev = strike(chips, ["1"], hp=5, target_equip=["plate_mail"],
                       defend=[("plate_mail", "brace")])
    assert damage(ev) == {1: 0}
    assert state.seats[1].hp == 5 and state.seats[0].vp == 0


# ------------------------------------------------------------ several targets, one seat

def sweep(chips, draws, targets, hp=6):
    """Twin Blade with Sweep (one extra target): seats 1 and 2 beside seat 0 (area 1)."""
    state = position(3, {0: {"equip": ["twin_blade"], "area": 1},
                         1: {"area": 1, "hp": hp}, 2: {"area": 1}})
    chips(*draws)
    state, ev = attack(state, 0, "twin_blade", "twin_blade_range", *targets,
                       declare=[("twin_blade", "twin_blade_sweep")])
    state, e = finish_draw(state, draws=len(draws) - 1)
    return state, ev + e


def test_6_same_seat_chosen_twice_takes_the_damage_twice_vp_once(chips):
    """§6 複数のターゲットへのアタック (the rulebook's example): 「同じプレイヤーを2回選び、決定
    したダメージが2の場合、そのプレイヤーは合計4ダメージを受けます。」 RULINGS R18: VP judged
    once on the total: 6 → 2 is 1 VP."""
    state, ev = sweep(chips, ["2"], (1, 1))
    assert damage(ev) == {1: 4}
    assert state.seats[1].hp == 2
    assert vp_gains(ev) == [(0, 1, 1, "low")]
    assert state.seats[0].vp == 1


def test_6_same_seat_chosen_twice_knocked_out_3_vp(chips):
    """§6 複数のターゲットへのアタック: 「この合計ダメージによってそのプレイヤーを体力6から
    ノックアウトさせた場合…合計3枚です。」 — 3 × 2 from HP 6."""
    state, ev = sweep(chips, ["2", "1"], (1, 1))
    assert damage(ev) == {1: 6}
    assert state.seats[1].hp == 0 and state.seats[1].knocked_out
    assert vp_gains(ev) == [(0, 1, 3, "low_knockout")]
    assert state.seats[0].vp == 3


def test_6_vp_per_target_seat(chips):
    """§6 体力による勝利点: 「複数のターゲットが条件を満たした場合は、条件を満たしたターゲット
    ごとに勝利点チップを獲得します。」"""
    state, ev = sweep(chips, ["2"], (1, 2))
    assert damage(ev) == {1: 2, 2: 2}
    assert sorted(vp_gains(ev)) == [(0, 1, 1, "low"), (0, 2, 1, "low")]
    assert state.seats[0].vp == 2


def test_6_defense_effects_apply_to_their_own_target_only(chips):
    """§6 防御スキル: 「各ターゲットの防御スキルは、それぞれ適用します。」「クリティカルチップの
    値を変更するなど、ターゲットごとに結果が変わる防御効果は、対象となるターゲットにだけ個別に
    適用します。」 One draw (crit + 1 = 3): seat 1's Brace (−2) → 1; seat 2's Parry (crit 1)
    → 2."""
    state = position(3, {0: {"equip": ["twin_blade"], "area": 1},
                         1: {"equip": ["plate_mail"], "area": 2},
                         2: {"equip": ["parry_gloves"], "area": 2}})
    state, ev = attack(state, 0, "twin_blade", "twin_blade_range", 1, 2,
                       declare=[("twin_blade", "twin_blade_sweep")])
    state, e = run(state, Declare(1, "plate_mail#1", "brace"))
    ev += e
    chips("crit", "1")
    state, e = run(state, Declare(2, "parry_gloves#1", "parry"))
    ev += e
    state, e = finish_draw(state, draws=1)
    assert damage(ev + e) == {1: 1, 2: 2}


def test_6_zero_cost_defense_skill_must_be_declared(chips):
    """§6: 「消費魔力0のスキルも自動的には適用せず、使用する場合は宣言します。」 — without
    declaring Brace the target takes the full damage."""
    state, ev = strike(chips, ["2", "1"], target_equip=["plate_mail"],
                       defend=[])
    assert damage(ev) == {1: 3}
