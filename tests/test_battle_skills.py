"""§6 魔力を消費するスキル / 継続スキル / 複数スキル and §5-4 シリーズ: skills driven by the card
data — requirements on final stats, mana costs and reductions, families, 併用不可, series,
crit-value changes and multi-area attacks (RULINGS R16, R21, R22, R24, R25). The
move-then-attack skill is in test_battle_turns.py, extra targets and the crit chip in
test_battle_attacks.py, zero chips and damage reduction there and in test_battle_damage.py,
fixed draws in test_battle_draw.py, counter skills in test_battle_counters.py."""

from __future__ import annotations

import pytest

from rules import IllegalAction, apply, legal_actions, pending
from rules.actions import ChooseArea, ChooseTarget, Declare, Done, StartAttack
from rules.events import ManaPaid, SkillDeclared

from test_battle_damage import strike
from test_battle_positions import (bag_of, bags, chips, damage, of_type,  # noqa: F401
                                   position, run)


def test_6_mana_reduction_floors_at_0_and_0_cost_skill_usable_at_0_mana(chips):
    """§6 魔力メーターの準備: 「現在魔力が0になった場合も、魔力軽減効果によって支払う魔力が0に
    なるスキルは使用できます。」; 「魔力軽減によって支払う魔力の下限は0です。」 Focus Rod at 0
    mana: Concentrate (0, reduces 2) makes Mana Burst (1) free — declared before or after
    it (RULINGS R22: the whole declared set is paid once); Chain (3) still costs 1."""
    start = position(3, {0: {"equip": ["focus_rod"], "area": 1, "mana": 0}, 1: {"area": 3}})
    start, _ = run(start, StartAttack(0, "focus_rod", "focus_rod_range"))
    focus = Declare(0, "focus_rod", "focus_rod_focus")
    burst = Declare(0, "focus_rod", "focus_rod_burst")
    assert set(legal_actions(start)) == {focus, burst, Done(0)}
    state, _ = run(start, focus)
    assert set(legal_actions(state)) == {burst, Done(0)}
    state, ev = run(state, burst)
    assert of_type(ev, ManaPaid) == [ManaPaid(0, 0, 0)]
    assert state.seats[0].mana == 0
    assert pending(state).kind == "targets"
    # the other order: Burst first (1 to pay, not payable yet: no Done), then Concentrate
    state, _ = run(start, burst)
    assert set(legal_actions(state)) == {focus}
    state, ev = run(state, focus)
    assert of_type(ev, ManaPaid) == [ManaPaid(0, 0, 0)]
    assert pending(state).kind == "targets"


def test_6_mana_reduction_lowers_the_cost_paid(chips):
    """§6 魔力を消費するスキル: 「現在魔力から魔力軽減効果を反映した支払う魔力を減らし」 —
    Chain (3) with Concentrate (−2) costs 1, whichever is declared first."""
    state = position(3, {0: {"equip": ["focus_rod"], "area": 1, "mana": 1}, 1: {"area": 3}})
    state, _ = run(state, StartAttack(0, "focus_rod", "focus_rod_range"))
    chain = Declare(0, "focus_rod", "focus_rod_chain")
    state, _ = run(state, chain)
    assert Done(0) not in legal_actions(state)         # 3 to pay, 1 held
    with pytest.raises(IllegalAction) as exc:
        apply(state, Done(0))
    assert exc.value.code == "declared_not_payable"
    state, _ = run(state, Declare(0, "focus_rod", "focus_rod_focus"))
    state, ev = run(state, Done(0))
    assert of_type(ev, ManaPaid) == [ManaPaid(0, 1, 0)]


def test_6_one_skill_per_family(chips):
    """§6 魔力を消費するスキル: 「同じ1回の処理で同じ系統のスキルを複数適用または使用することは
    できません。…異なる装備カードが持つスキル…も同様です。」 Keen Blade's crit skill and the
    Critical Charm's are both 会心."""
    state = position(3, {0: {"equip": ["keen_blade", "crit_charm"], "area": 1},
                         1: {"area": 2}})
    state, _ = run(state, StartAttack(0, "keen_blade", "keen_blade_range"))
    keen = Declare(0, "keen_blade", "keen_blade_crit")
    charm = Declare(0, "crit_charm#1", "charm_crit")
    assert set(legal_actions(state)) == {keen, charm, Done(0)}
    state, _ = run(state, charm)
    assert keen not in legal_actions(state)
    with pytest.raises(IllegalAction):
        apply(state, keen)
    assert state.battle.attack.skills == (("keen_blade", "keen_blade_range"),
                                          ("crit_charm#1", "charm_crit"))


def test_6_exclusive_skill_stands_alone():
    """§6: 「「併用不可」と記載されたスキルは、同じ1回のアタックまたはカウンターで、他のスキルと
    同時に使用できません。」 (RULINGS R16: the range skill excepted.)"""
    state = position(3, {0: {"equip": ["great_axe", "crit_charm"], "area": 1},
                         1: {"area": 2}})
    state, _ = run(state, StartAttack(0, "great_axe", "great_axe_range"))
    fury = Declare(0, "great_axe", "great_axe_fury")
    rend = Declare(0, "great_axe", "great_axe_rend")
    charm = Declare(0, "crit_charm#1", "charm_crit")
    assert set(legal_actions(state)) == {fury, rend, charm, Done(0)}
    alone, ev = run(state, fury)
    assert alone.battle.attack.skills == (("great_axe", "great_axe_range"),
                                          ("great_axe", "great_axe_fury"))
    assert pending(alone).kind == "targets"         # nothing else could be declared
    other, _ = run(state, rend)
    assert set(legal_actions(other)) == {charm, Done(0)}
    with pytest.raises(IllegalAction):
        apply(other, fury)


def test_6_series_skill_needs_two_cards_of_the_series():
    """§5-4 装備の能力値補正とスキル: 「シリーズ効果を持つカードがもともと持つスキルは、同じ名前
    のシリーズカードを2枚以上装備している場合にのみ発動します。」"""
    hush = Declare(0, "moon_amulet#1", "moon_hush")
    one = position(3, {0: {"equip": ["short_sword", "moon_amulet"], "area": 1},
                       1: {"area": 2}})
    one, _ = run(one, StartAttack(0, "short_sword", "short_sword_range"))
    assert pending(one).kind == "targets" and hush not in legal_actions(one)
    two = position(3, {0: {"equip": ["short_sword", "moon_amulet", "moon_ring"], "area": 1},
                       1: {"area": 2}})
    two, _ = run(two, StartAttack(0, "short_sword", "short_sword_range"))
    assert set(legal_actions(two)) == {hush, Done(0)}


def test_6_skill_requirements_on_final_stats():
    """§6: 「スキルに発動条件が記載されている場合は、そのすべてを満たす必要があります。」 Keen
    Blade's crit skill needs DEX 3: an orc (DEX 2) cannot declare it."""
    state = position(3, {0: {"race": "orc", "equip": ["keen_blade"], "area": 1},
                         1: {"area": 2}})
    state, _ = run(state, StartAttack(0, "keen_blade", "keen_blade_range"))
    assert pending(state).kind == "targets"
    assert not [a for a in legal_actions(state) if isinstance(a, Declare)]


def test_6_zero_cost_skill_is_declared_not_automatic(chips):
    """§8 FAQ: 「消費魔力0のスキルは自動的に適用されますか？ 適用されません。」 Not declaring the
    Critical Charm (cost 0) leaves its chip out."""
    state = position(3, {0: {"equip": ["short_sword", "crit_charm"], "area": 1},
                         1: {"area": 2}})
    state, ev = run(state, StartAttack(0, "short_sword", "short_sword_range"))
    assert Declare(0, "crit_charm#1", "charm_crit") in legal_actions(state)
    chips("miss")
    state, ev = attack_rest(state)
    assert bags(ev) == [bag_of("short_sword", "crit")]
    assert not of_type(ev, SkillDeclared)


def attack_rest(state):
    state, ev = run(state, Done(0))
    state, ev2 = run(state, ChooseTarget(0, 1))
    return state, ev + ev2


def test_6_crit_value_changed_by_the_attacker(chips):
    """§6: 「カードまたはスキルにクリティカルチップの…変更が記載されている場合は、その記載に
    従います。」 Assassin Dagger's Vital Strike: a crit chip counts 3."""
    state, ev = strike(chips, ["crit", "1"], equip=("assassin_dagger",),
                       declare=[("assassin_dagger", "assassin_dagger_vital")])
    assert damage(ev) == {1: 4}


def test_6_crit_value_changed_by_the_target(chips):
    """§6 防御スキル: 「クリティカルチップの値を変更するなど、ターゲットごとに結果が変わる防御
    効果は、対象となるターゲットにだけ個別に適用します。」 Parry: a crit counts 1 (RULINGS R25:
    over the attacker's 3)."""
    state, ev = strike(chips, ["crit", "1"], target_equip=["parry_gloves"],
                       defend=[("parry_gloves", "parry")])
    assert damage(ev) == {1: 2}
    state, ev = strike(chips, ["crit", "1"], equip=("assassin_dagger",),
                       declare=[("assassin_dagger", "assassin_dagger_vital")],
                       target_equip=["parry_gloves"], defend=[("parry_gloves", "parry")])
    assert damage(ev) == {1: 2}


def test_6_multi_area_targets_everyone_in_the_chosen_areas(chips):
    """§6 複数スキル: 「複数のエリアを選ぶ効果では、プレイヤーがいないエリアも選べます。」 —
    War Fan (mid range, two areas): every other seat in the chosen areas is a target."""
    state = position(4, {0: {"equip": ["war_fan"], "area": 1}, 1: {"area": 3},
                         2: {"area": 5}, 3: {"area": 3}})
    state, _ = run(state, StartAttack(0, "war_fan", "war_fan_range"),
                   Declare(0, "war_fan", "war_fan_gust"))
    assert set(legal_actions(state)) == {ChooseArea(0, x) for x in (2, 3, 5, 6)}
    state, _ = run(state, ChooseArea(0, 3))
    assert state.battle.attack.targets == (1, 3)
    assert set(legal_actions(state)) == {ChooseArea(0, 2), ChooseArea(0, 5), ChooseArea(0, 6),
                                         Done(0)}
    chips("miss")
    state, ev = run(state, ChooseArea(0, 5))
    assert damage(ev) == {1: 0, 2: 0, 3: 0}
    # areas 3 and 5 are at distance 2, the mid crit area: one crit chip
    assert bags(ev) == [bag_of("war_fan", "crit")]


def test_6_multi_area_empty_area_allowed_but_a_target_needed():
    """§6 複数スキル: an empty area may be chosen; 「ターゲットを1人も選べない場合はアタックでき
    ません。」 (RULINGS R24: the last area must leave a target)."""
    state = position(3, {0: {"equip": ["war_fan"], "area": 1}, 1: {"area": 3}})
    state, _ = run(state, StartAttack(0, "war_fan", "war_fan_range"),
                   Declare(0, "war_fan", "war_fan_gust"), ChooseArea(0, 2))
    assert state.battle.attack.targets == ()
    assert set(legal_actions(state)) == {ChooseArea(0, 3)}
