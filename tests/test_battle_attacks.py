"""§6 アタック: the attack card and its range skill, attack and crit areas, targets, the
chip bag (5 point chips + miss + crit chips + zero chips), defense skills, mana."""

from __future__ import annotations

import pytest

from rules import IllegalAction, apply, legal_actions, pending
from rules.actions import ChooseTarget, Declare, Done, StartAttack
from rules.events import ManaPaid

from test_battle_positions import (attack, bag_of, bags, chips, damage, finish_draw,  # noqa: F401
                                   of_type, position, run)

# §6 アタックカードの距離, for an attacker in area 1 (written out from the rulebook):
# 近距離 = the area itself and both neighbours, crit at distance 1; 中距離 = distance 1 and
# 2, crit at 2; 遠距離 = distance 2 and 3, crit at 3.
FROM_AREA_1 = {
    "short": ({6, 1, 2}, {6, 2}),
    "mid": ({5, 6, 2, 3}, {5, 3}),
    "long": ({3, 4, 5}, {4}),
}
WEAPON = {"short": ("short_sword", "short_sword_range"), "mid": ("spear", "spear_range"),
          "long": ("bow", "bow_range")}


def rotate(areas: set[int], to: int) -> set[int]:
    """The same areas seen from area `to` instead of area 1."""
    return {(x - 1 + to - 1) % 6 + 1 for x in areas}


@pytest.mark.parametrize("rng", ["short", "mid", "long"])
@pytest.mark.parametrize("here", range(1, 7))
def test_6_attack_area_and_crit_area_table(chips, rng, here):
    """§6 アタックカードの距離: 「近距離：自分がいる距離0のエリアと、その両脇にある距離1の2エリア
    …中距離：距離1の2エリアと距離2の2エリア…遠距離：距離2の2エリアと距離3の1エリア」;
    「近距離は距離1、中距離は距離2、遠距離は距離3をクリティカルエリアとします。」 A target in the
    crit area puts one crit chip in the bag; elsewhere none."""
    card, skill = WEAPON[rng]
    area, crit = (rotate(s, here) for s in FROM_AREA_1[rng])
    for there in range(1, 7):
        state = position(3, {0: {"equip": [card], "area": here}, 1: {"area": there}})
        start = StartAttack(0, card, skill)
        assert (start in legal_actions(state)) == (there in area), (here, there)
        if there not in area:
            continue
        state, _ = run(state, start)
        assert legal_actions(state) == [ChooseTarget(0, 1)]
        chips("miss")
        state, ev = run(state, ChooseTarget(0, 1))
        assert bags(ev) == [bag_of(card, *(["crit"] if there in crit else []))], (here, there)


def test_6_attack_only_range_skills_whose_requirements_are_met():
    """§6 アタック 2: 「選んだカードが持つアタックスキルのうち、発動条件を満たすものを1つ選び」;
    「能力値の発動条件は、すべての補正を反映した最終能力値で判定します。」 The Strong Bow's
    long range needs STR 5: a human has 3, with the Power Band (+2) 5."""
    mid = StartAttack(0, "strong_bow", "strong_bow_mid")
    long = StartAttack(0, "strong_bow", "strong_bow_long")
    bow = StartAttack(0, "strong_bow")     # the card alone, its range declared later (R22)
    weak = {0: {"equip": ["strong_bow"], "area": 1}}
    strong = {0: {"equip": ["strong_bow", "power_band"], "area": 1}}
    at2 = {1: {"area": 3}}
    at3 = {1: {"area": 4}}
    assert [a for a in legal_actions(position(3, {**weak, **at2}))
            if isinstance(a, StartAttack)] == [mid, bow]
    assert {a for a in legal_actions(position(3, {**strong, **at2}))
            if isinstance(a, StartAttack)} == {mid, long, bow}
    assert not [a for a in legal_actions(position(3, {**weak, **at3}))
                if isinstance(a, StartAttack)]
    assert [a for a in legal_actions(position(3, {**strong, **at3}))
            if isinstance(a, StartAttack)] == [long, bow]


def test_6_attack_range_skill_must_be_payable():
    """§6 魔力を消費するスキル: 「現在魔力が支払う魔力に満たないスキルは使用できません。」 The
    Lance's range skill costs 1 mana (and needs STR 4)."""
    base = {1: {"area": 2}}
    lance = StartAttack(0, "lance", "lance_range")
    ok = position(3, {0: {"equip": ["lance", "power_band"], "area": 1, "mana": 1}, **base})
    assert lance in legal_actions(ok)
    broke = position(3, {0: {"equip": ["lance", "power_band"], "area": 1, "mana": 0}, **base})
    assert lance not in legal_actions(broke)
    weak = position(3, {0: {"equip": ["lance"], "area": 1, "mana": 3}, **base})
    assert lance not in legal_actions(weak)


def test_6_targets_are_entered_not_knocked_out_other_seats_in_the_area(chips):
    """§6 アタック 4: 「選んだ距離のアタックエリアにいる攻撃者以外のプレイヤー」; 体力と
    ノックアウト: 「ノックアウト中のプレイヤーはアタックのターゲットに選べません。」; 登場と
    初期手番: 「まだ登場していないプレイヤーは、アタック…の対象になりません。」"""
    state = position(5, {0: {"equip": ["short_sword"], "area": 1},
                         1: {"area": 2},
                         2: {"hp": 0, "knocked_out": True},
                         3: {},                       # not entered yet
                         4: {"area": 1}})
    state, _ = run(state, StartAttack(0, "short_sword", "short_sword_range"))
    assert set(legal_actions(state)) == {ChooseTarget(0, 1), ChooseTarget(0, 4)}
    for t in (0, 2, 3):
        with pytest.raises(IllegalAction):
            apply(state, ChooseTarget(0, t))


def test_6_no_attack_without_a_target():
    """§6 複数スキル: 「ターゲットを1人も選べない場合はアタックできません。」"""
    state = position(3, {0: {"equip": ["short_sword"], "area": 1}, 1: {"area": 4},
                         2: {"hp": 0, "knocked_out": True}})
    assert not [a for a in legal_actions(state) if isinstance(a, StartAttack)]


@pytest.mark.parametrize("there,crit", [(2, True), (1, False)])
def test_6_attack_bag_is_five_point_chips_miss_and_crit(chips, there, crit):
    """§6 アタック 6–7: 「クリティカルが発生した場合は、通常、クリティカルチップ1枚をアタック用
    チップバッグへ入れます。」「選んだカード記載の5個のポイントチップと、ミスチップ1個」"""
    state = position(3, {0: {"equip": ["short_sword"], "area": 1}, 1: {"area": there}})
    chips("miss")
    state, ev = attack(state, 0, "short_sword", "short_sword_range", 1)
    expected = ("0", "0", "1", "2", "2") + (("crit",) if crit else ()) + ("miss",)
    assert bags(ev) == [expected]


@pytest.mark.parametrize("there,crits", [(2, 2), (1, 0)])
@pytest.mark.parametrize("skill", [("keen_blade", "keen_blade_crit"),
                                   ("crit_charm", "charm_crit")])
def test_6_add_crit_chips_on_a_crit(chips, skill, there, crits):
    """§6 アタック 6: 「カードまたはスキルによる追加や枚数変更も反映します。」 An add-crit
    skill adds its chip when a crit occurs (target in the crit area), none otherwise."""
    state = position(3, {0: {"equip": ["keen_blade", "crit_charm"], "area": 1},
                         1: {"area": there}})
    chips("miss")
    state, ev = attack(state, 0, "keen_blade", "keen_blade_range", 1, declare=[skill])
    assert bags(ev) == [bag_of("keen_blade", *["crit"] * crits)]


def guarded_position(order=(0, 1, 2), mana=3):
    """Twin Blade (one extra target) against two targets at distance 0: seat 1 with the
    《防壁》 shield (1 zero chip), seat 2 with the 《剛壁》 shield (2 zero chips)."""
    return position(3, {0: {"equip": ["twin_blade"], "area": 1},
                        1: {"equip": ["barrier_shield"], "area": 1, "mana": mana},
                        2: {"equip": ["bulwark_shield"], "area": 1, "mana": mana}},
                    order=order)


SWEEP = [("twin_blade", "twin_blade_sweep")]


def test_6_defense_skills_declared_in_processing_order_and_paid(chips):
    """§6 アタック 5: 「ターゲットが、処理順に使用する防御スキルを宣言し、魔力を消費します。」
    Processing order 0, 2, 1: seat 2 declares first, then seat 1."""
    state = guarded_position(order=(0, 2, 1))
    state, ev = attack(state, 0, "twin_blade", "twin_blade_range", 1, 2, declare=SWEEP)
    assert pending(state).kind == "defense" and pending(state).seats == (2,)
    assert set(legal_actions(state)) == {Declare(2, "bulwark_shield#1", "bulwark"), Done(2)}
    state, ev2 = run(state, Declare(2, "bulwark_shield#1", "bulwark"))
    assert pending(state).kind == "defense" and pending(state).seats == (1,)
    chips("miss")
    state, ev3 = run(state, Declare(1, "barrier_shield#1", "barrier"))
    paid = of_type(ev + ev2 + ev3, ManaPaid)
    assert paid == [ManaPaid(0, 1, 2), ManaPaid(2, 1, 2), ManaPaid(1, 1, 2)]
    assert [s.mana for s in state.seats] == [2, 2, 2]


def test_6_zero_chips_of_several_targets_largest_not_sum(chips):
    """§6 防御スキル (the rulebook's example): 「あるターゲットが《防壁》で0チップ1枚、別の
    ターゲットが《剛壁》で0チップ2枚を追加する場合、チップバッグへ入れる0チップは合計3枚では
    なく、最大値の2枚です。」"""
    state = guarded_position()
    state, _ = attack(state, 0, "twin_blade", "twin_blade_range", 1, 2, declare=SWEEP)
    state, _ = run(state, Declare(1, "barrier_shield#1", "barrier"))
    chips("miss")
    state, ev = run(state, Declare(2, "bulwark_shield#1", "bulwark"))
    assert bags(ev) == [bag_of("twin_blade", "0", "0")]


def test_6_zero_chips_of_one_barrier(chips):
    """§6 防御スキル: 《防壁》 alone puts 1 zero chip in."""
    state = guarded_position()
    state, _ = attack(state, 0, "twin_blade", "twin_blade_range", 1, 2, declare=SWEEP)
    state, _ = run(state, Declare(1, "barrier_shield#1", "barrier"))
    chips("miss")
    state, ev = run(state, Done(2))
    assert bags(ev) == [bag_of("twin_blade", "0")]


def test_6_zero_chips_of_a_seat_chosen_twice_count_once(chips):
    """§6 防御スキル: 「同じプレイヤーを複数回ターゲットに選んだ場合も、そのプレイヤーの防御系
    スキルによる0チップは1回分だけ比較します。」"""
    state = guarded_position()
    state, _ = attack(state, 0, "twin_blade", "twin_blade_range", 2, 2, declare=SWEEP)
    assert state.battle.attack.targets == (2, 2)
    chips("miss")
    state, ev = run(state, Declare(2, "bulwark_shield#1", "bulwark"))
    assert bags(ev) == [bag_of("twin_blade", "0", "0")]
    assert of_type(ev, ManaPaid) == [ManaPaid(2, 1, 2)]


def test_6_defense_skill_needs_the_mana(chips):
    """§6 魔力を消費するスキル: 「現在魔力が支払う魔力に満たないスキルは使用できません。」 A
    target with 0 mana is not asked; the bag has no zero chip."""
    state = guarded_position(mana=0)
    chips("miss")
    state, ev = attack(state, 0, "twin_blade", "twin_blade_range", 1, 2, declare=SWEEP)
    assert bags(ev) == [bag_of("twin_blade")]
    assert [s.mana for s in state.seats[1:]] == [0, 0]


def test_6_mana_spent_stays_spent(chips):
    """§6 魔力を消費するスキル: 「効果の発生条件に合わないバトルチップを引いた場合も、消費した
    魔力は戻しません。」 — a miss refunds nothing, to the attacker or the target."""
    state = position(3, {0: {"equip": ["keen_blade"], "area": 1},
                         1: {"equip": ["barrier_shield"], "area": 2}})
    state, _ = attack(state, 0, "keen_blade", "keen_blade_range", 1,
                      declare=[("keen_blade", "keen_blade_crit")])
    chips("miss")
    state, ev = run(state, Declare(1, "barrier_shield#1", "barrier"))
    assert damage(ev) == {1: 0}
    assert state.seats[0].mana == 2 and state.seats[1].mana == 2
    assert pending(state).kind == "turn"


# ---------------------------------------------------------------- several targets

def test_6_extra_target_one_crit_chip_counted_per_target(chips):
    """§6 複数のターゲットへのアタック: 「バトルチップを引く処理は1回だけ…その1回の処理で引いた
    すべてのバトルチップの結果を、選択したターゲットごとに適用します。」 RULINGS R13/R14:
    one crit chip however many targets are in the crit area; it counts 2 for a target in
    the crit area and 0 for the others."""
    state = position(3, {0: {"equip": ["twin_blade"], "area": 1},
                         1: {"area": 2}, 2: {"area": 1}})
    chips("crit", "2")
    state, ev = attack(state, 0, "twin_blade", "twin_blade_range", 1, 2, declare=SWEEP)
    state, ev2 = finish_draw(state, draws=1)
    ev += ev2
    assert bags(ev) == [bag_of("twin_blade", "crit")]
    assert damage(ev) == {1: 4, 2: 2}


def test_6_two_targets_in_the_crit_area_still_one_crit_chip(chips):
    """RULINGS R13: at most one automatic crit chip per attack."""
    state = position(3, {0: {"equip": ["twin_blade"], "area": 1},
                         1: {"area": 2}, 2: {"area": 6}})
    chips("miss")
    state, ev = attack(state, 0, "twin_blade", "twin_blade_range", 1, 2, declare=SWEEP)
    assert bags(ev) == [bag_of("twin_blade", "crit")]


def test_6_extra_targets_may_be_fewer(chips):
    """§6 複数スキル: 「ターゲットを複数回選べる効果では、効果に記載された回数まで選ばずに
    アタックすることもできます。」"""
    state = position(3, {0: {"equip": ["twin_blade"], "area": 1}, 1: {"area": 2}})
    state, _ = run(state, StartAttack(0, "twin_blade", "twin_blade_range"),
                   Declare(0, "twin_blade", "twin_blade_sweep"), ChooseTarget(0, 1))
    assert set(legal_actions(state)) == {ChooseTarget(0, 1), Done(0)}
    chips("miss")
    state, ev = run(state, Done(0))
    assert damage(ev) == {1: 0}
