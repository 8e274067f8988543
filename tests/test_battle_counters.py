"""§6 カウンター: a target for whom the attacker stands in the crit area of one of its
usable range skills may counter, one by one in processing order, with its own bag and no
automatic crit chip; VP the same way; possible after a 0-damage attack; never countered;
counter-blocking skills stop it."""

from __future__ import annotations

import pytest

from rules import IllegalAction, apply, legal_actions, pending
from rules.actions import Declare, Decline, Done, StartAttack, StartCounter, Stop
from rules.events import AttackStarted, CounterDeclined, TurnEnded

from test_battle_positions import (attack, bag_of, bags, chips, damage, finish_draw,  # noqa: F401
                                   position, run, vp_gains)

RANGE = {"short_sword": "short_sword_range", "keen_blade": "keen_blade_range",
         "sling": "sling_range", "spear": "spear_range", "bow": "bow_range",
         "counter_spear": "counter_spear_range", "strong_bow": "strong_bow_long",
         "lance": "lance_range"}
AREA_AT = {0: 1, 1: 2, 2: 3, 3: 4}       # attacker in area 1: the area at each distance


def attacked(chips, weapon, distance, *, attacker="spear", target_extra=(), **target):
    """Seat 0 attacks seat 1 (`weapon`, at `distance`) with `attacker`; the attack draws
    a miss (0 damage). Returns the state after the attack's draw."""
    state = position(3, {0: {"equip": [attacker], "area": 1},
                         1: {"equip": [weapon, *target_extra], "area": AREA_AT[distance],
                             **target}})
    chips("miss")
    state, ev = attack(state, 0, attacker, RANGE[attacker], 1)
    return state, ev


@pytest.mark.parametrize("attacker,weapon,distance,offered", [
    ("spear", "short_sword", 1, True),     # short: crit area at distance 1
    ("spear", "short_sword", 2, False),
    ("spear", "spear", 2, True),           # mid: crit area at distance 2
    ("spear", "spear", 1, False),
    ("spear", "bow", 2, False),            # long: crit area at distance 3 only
    ("bow", "bow", 3, True),
    ("bow", "spear", 3, False),
    ("short_sword", "short_sword", 0, False),   # distance 0 is no crit area
])
def test_6_counter_only_from_the_crit_area(chips, attacker, weapon, distance, offered):
    """§6 カウンター: 「アタックのターゲットから見て、アタックの攻撃者が自分の使用できる距離の
    クリティカルエリアにいる場合、任意でカウンターできます。」 (FAQ: どの距離からでもカウンター
    できますか？ できません。)"""
    state, _ = attacked(chips, weapon, distance, attacker=attacker)
    if offered:
        assert pending(state).kind == "counter" and pending(state).seats == (1,)
        assert set(legal_actions(state)) == {StartCounter(1, weapon, RANGE[weapon]),
                                             StartCounter(1, weapon), Decline(1)}
    else:
        assert pending(state).kind == "turn" and pending(state).seats == (0,)


def test_6_counter_needs_a_usable_range_skill(chips):
    """§6 カウンター: 「発動条件を満たすアタックカードのアタックスキルを基準に判定します。」 The
    Strong Bow's long range needs STR 5: only with the Power Band can seat 1 counter from
    distance 3."""
    state, _ = attacked(chips, "strong_bow", 3, attacker="bow")
    assert pending(state).kind == "turn"
    state, _ = attacked(chips, "strong_bow", 3, attacker="bow", target_extra=["power_band"])
    assert set(legal_actions(state)) == {StartCounter(1, "strong_bow", "strong_bow_long"),
                                         StartCounter(1, "strong_bow"), Decline(1)}


def test_6_counter_needs_a_range_skill_usable_in_a_counter(chips):
    """§6 アタックとスキルの使用タイミング: 「「アタック時」と記載されているスキルは、自分の手番の
    アタックアクションでだけ使用でき、カウンターでは使用できません。」 The Sling's long range
    is an attack-only skill: no counter from distance 3 with it (the Bow's can)."""
    state, _ = attacked(chips, "sling", 3, attacker="bow")
    assert pending(state).kind == "turn"
    state, _ = attacked(chips, "sling", 3, attacker="bow", target_extra=["bow"])
    assert set(legal_actions(state)) == {StartCounter(1, "bow", "bow_range"),
                                         StartCounter(1, "bow"), Decline(1)}


def test_6_counter_needs_the_mana_of_its_range_skill(chips):
    """§6 魔力を消費するスキル: the Lance's range skill costs 1 — without mana (and with no
    reduction to declare, see test_battle_mana.py) no counter."""
    state, _ = attacked(chips, "lance", 2, target_extra=["power_band"], mana=0)
    assert pending(state).kind == "turn"
    state, _ = attacked(chips, "lance", 2, target_extra=["power_band"], mana=1)
    assert StartCounter(1, "lance", "lance_range") in legal_actions(state)


def test_6_counter_is_optional(chips):
    """§6 カウンター: 「カウンターできる場合でも…カウンターを行わないことを選べます。」"""
    state, _ = attacked(chips, "short_sword", 1)
    state, ev = run(state, Decline(1))
    assert CounterDeclined(1) in ev
    assert pending(state).kind == "turn" and pending(state).seats == (0,)


def test_6_counter_after_a_zero_damage_attack(chips):
    """§8 FAQ: 「ダメージが0だった場合もカウンターできますか？ できます。」 (the attack drew a
    miss)."""
    state, ev = attacked(chips, "short_sword", 1)
    assert damage(ev) == {1: 0}
    assert pending(state).kind == "counter"


def test_6_counter_bag_has_no_automatic_crit_chip(chips):
    """§6 カウンターの処理 2–3: 「カウンターでは通常のクリティカルチップを入れません。」「選んだ
    カード記載の5個のポイントチップと、ミスチップ1個をカウンター用チップバッグへ入れます。」
    The attacker is in the counterer's crit area, yet no crit chip."""
    state, _ = attacked(chips, "short_sword", 1)
    chips("2")
    state, ev = run(state, StartCounter(1, "short_sword", "short_sword_range"))
    assert AttackStarted(1, "short_sword", "short_sword_range", True, 0) in ev
    assert bags(ev) == [bag_of("short_sword")]
    state, ev2 = run(state, Stop(1))
    assert damage(ev2) == {0: 2}
    assert state.seats[0].hp == 4


def test_6_counter_crit_chips_from_a_skill(chips):
    """§6 カウンターの処理 2: 「カードまたはスキルによるクリティカルチップの追加がある場合だけ、
    その枚数をカウンター用チップバッグへ入れます。」 Counter Spear's Riposte (counter only):
    2 crit chips; a crit drawn counts 2."""
    state, _ = attacked(chips, "counter_spear", 2)
    state, _ = run(state, StartCounter(1, "counter_spear", "counter_spear_range"))
    riposte = Declare(1, "counter_spear", "counter_spear_riposte")
    assert set(legal_actions(state)) == {riposte, Done(1)}
    chips("crit")
    state, ev = run(state, riposte)
    assert bags(ev) == [bag_of("counter_spear", "crit", "crit")]
    state, ev2 = run(state, Stop(1))
    assert damage(ev2) == {0: 2}


def test_6_counter_only_skill_not_in_an_attack(chips):
    """§6 アタックとスキルの使用タイミング: 「「カウンター時」と記載されているスキルは、
    カウンターでだけ使用でき、アタックでは使用できません。」"""
    state = position(3, {0: {"equip": ["counter_spear"], "area": 1}, 1: {"area": 3}})
    state, _ = run(state, StartAttack(0, "counter_spear", "counter_spear_range"))
    assert pending(state).kind == "targets"
    assert not [a for a in legal_actions(state) if isinstance(a, Declare)]


def test_6_attack_only_skill_not_in_a_counter(chips):
    """§6 アタックとスキルの使用タイミング: 「効果文に「アタック時」と記載されているスキルは、
    自分の手番のアタックアクションでだけ使用でき、カウンターでは使用できません。」 Keen Blade's
    Critical Blow (attack only) is not offered to a counterer."""
    state, _ = attacked(chips, "keen_blade", 1, target_extra=["crit_charm"])
    chips("miss")
    state, ev = run(state, StartCounter(1, "keen_blade", "keen_blade_range"))
    # no skill could be declared, so the counter went straight on to its draw
    assert bags(ev) == [bag_of("keen_blade")]
    assert pending(state).kind == "turn" and pending(state).seats == (0,)


def test_6_counter_scores_vp_the_same_way(chips):
    """§6 カウンターの処理 6: 「ターゲットの体力が6に設定されたあと、カウンターによって初めて
    体力4以下になった場合、攻撃者は勝利点チップを1枚獲得します。」"""
    state, _ = attacked(chips, "short_sword", 1)
    chips("2", "1")
    state, ev = run(state, StartCounter(1, "short_sword", "short_sword_range"))
    state, ev2 = finish_draw(state, draws=1)
    assert state.seats[0].hp == 3
    assert vp_gains(ev + ev2) == [(1, 0, 1, "low")]
    assert state.seats[1].vp == 1


def test_6_counter_is_never_countered(chips):
    """§6 カウンターの制限: 「カウンターに対してカウンターは行いません。」 Both hold spears at
    distance 2, each in the other's crit area: after the counter the attacker's turn goes
    on."""
    state, _ = attacked(chips, "spear", 2)
    chips("1")
    state, _ = run(state, StartCounter(1, "spear", "spear_range"))
    state, ev = run(state, Stop(1))
    assert damage(ev) == {0: 1}
    assert pending(state).kind == "turn" and pending(state).seats == (0,)
    assert not [a for a in legal_actions(state) if isinstance(a, StartCounter)]


def test_6_knocked_out_target_does_not_counter(chips):
    """§6 アタック 11: 「ノックアウトされなかったターゲットがカウンターできる場合は」"""
    state = position(3, {0: {"equip": ["spear"], "area": 1},
                         1: {"equip": ["short_sword"], "area": 2, "hp": 1}})
    chips("1")
    state, ev = attack(state, 0, "spear", "spear_range", 1)
    state, _ = finish_draw(state)
    assert state.seats[1].knocked_out
    assert pending(state).kind == "turn" and pending(state).seats == (0,)


def two_counterers(order=(0, 1, 2), block=False, **seat0):
    """Seat 0 (Twin Blade + the two Moon cards, whose Hush blocks counters; area 1)
    attacks seats 1 and 2 (Short Swords, area 2: the attacker is in their crit area). The
    block is on a defense card: an attack card's skills work only in attacks made with
    that card (RULINGS R21)."""
    s0 = {"equip": ["twin_blade", "moon_amulet", "moon_ring"], "area": 1}
    s0.update(seat0)
    return position(3, {0: s0, 1: {"equip": ["short_sword"], "area": 2},
                        2: {"equip": ["short_sword"], "area": 2}}, order=order)


def test_6_counter_block_stops_every_target(chips):
    """§6 カウンターの制限 (attack side): 「カウンターを阻害するスキルの条件を満たした場合、原則
    として、そのアタックのすべてのターゲットがカウンターできません。」"""
    state = two_counterers()
    chips("miss")
    state, ev = attack(state, 0, "twin_blade", "twin_blade_range", 1, 2,
                       declare=[("twin_blade", "twin_blade_sweep"), ("moon_amulet", "moon_hush")])
    assert pending(state).kind == "turn" and pending(state).seats == (0,)
    # without the block both could have countered
    state = two_counterers()
    chips("miss")
    state, ev = attack(state, 0, "twin_blade", "twin_blade_range", 1, 2,
                       declare=[("twin_blade", "twin_blade_sweep")])
    assert pending(state).kind == "counter"


def test_6_counters_one_by_one_in_processing_order(chips):
    """§6 カウンター: 「複数のプレイヤーがカウンターする場合は、処理順チップの番号が小さい
    プレイヤーから順に1人ずつカウンターします。」 Processing order 0, 2, 1."""
    state = two_counterers(order=(0, 2, 1))
    chips("miss")
    state, _ = attack(state, 0, "twin_blade", "twin_blade_range", 1, 2,
                      declare=[("twin_blade", "twin_blade_sweep")])
    assert pending(state).kind == "counter" and pending(state).seats == (2,)
    with pytest.raises(IllegalAction):
        apply(state, StartCounter(1, "short_sword", "short_sword_range"))
    chips("1")
    state, _ = run(state, StartCounter(2, "short_sword", "short_sword_range"), Stop(2))
    assert pending(state).kind == "counter" and pending(state).seats == (1,)
    chips("1")
    state, ev = run(state, StartCounter(1, "short_sword", "short_sword_range"), Stop(1))
    assert state.seats[0].hp == 4
    # the second counter is the one that first brings the attacker to 4
    assert vp_gains(ev) == [(1, 0, 1, "low")]
    assert pending(state).kind == "turn" and pending(state).seats == (0,)


def test_6_defense_skills_against_a_counter(chips):
    """§6 「ターゲットが攻撃を受けるタイミングを「被攻撃時」と呼びます」 (攻撃 = アタックと
    カウンター); RULINGS R15: the counter's target may declare its defense skills."""
    state = position(3, {0: {"equip": ["spear", "barrier_shield"], "area": 1},
                         1: {"equip": ["short_sword"], "area": 2}})
    chips("miss")
    state, _ = attack(state, 0, "spear", "spear_range", 1)
    state, _ = run(state, StartCounter(1, "short_sword", "short_sword_range"))
    assert pending(state).kind == "defense" and pending(state).seats == (0,)
    chips("miss")
    state, ev = run(state, Declare(0, "barrier_shield#1", "barrier"))
    assert bags(ev) == [bag_of("short_sword", "0")]


def test_6_attacker_knocked_out_by_a_counter(chips):
    """§6 カウンター / RULINGS R20: an attacker knocked out by a counter leaves the field,
    the other counters lapse (no target) and its turn ends."""
    state = two_counterers(hp=1)
    chips("miss")
    state, _ = attack(state, 0, "twin_blade", "twin_blade_range", 1, 2,
                      declare=[("twin_blade", "twin_blade_sweep")])
    chips("1")
    state, ev = run(state, StartCounter(1, "short_sword", "short_sword_range"), Stop(1))
    assert state.seats[0].knocked_out and state.seats[0].area is None
    assert vp_gains(ev) == [(1, 0, 2, "knockout")]
    assert TurnEnded(0, "knocked_out") in ev
    assert pending(state).kind == "turn" and pending(state).seats == (1,)
