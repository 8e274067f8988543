"""§6 魔力メーターの準備 / 魔力を消費するスキル: a mana reduction counts at 0 mana, in attacks and
counters (issue 13 point 2, RULINGS R22).

「現在魔力が0になった場合も、魔力軽減効果によって支払う魔力が0になるスキルは使用できます。」 The
skills are declared and then paid (§6 アタック 3 「攻撃者が使用するその他のスキルを宣言し、魔力を
消費します」; カウンターの処理 1 「カウンター可能なアタックスキルを1つ選び、その他の使用するスキル
とともに宣言して魔力を消費します」), so what must be payable is the declared set: the Lance's
range skill (1 mana) with the Prayer Beads' reduction (0 mana, the others 1 less) costs 0.
The reduction and the range skill may be declared in either order: `StartAttack(card,
range)` then the reduction, or `StartAttack(card)` and both as declarations."""

from __future__ import annotations

import pytest

from rules import IllegalAction, apply, legal_actions, pending
from rules.actions import ChooseTarget, Decline, Declare, Done, StartAttack, StartCounter
from rules.events import ManaPaid, SkillDeclared
from rules.engine import refusal

from test_battle_positions import chips, of_type, position, run  # noqa: F401

LANCER = ["lance", "power_band"]                # Lance: mid range, 1 mana, needs STR 4
BEADS = "prayer_beads#1"
RANGE = Declare(0, "lance", "lance_range")
PRAY = Declare(0, BEADS, "beads_focus")


def lancer(mana=0, beads=True, **seat1):
    seat1 = {"equip": ["short_sword"], "area": 3, **seat1}
    return position(3, {0: {"equip": LANCER + (["prayer_beads"] if beads else []), "area": 1,
                            "mana": mana}, 1: seat1})


def test_6_zero_mana_attack_offered_with_a_reduction():
    """§6 魔力メーターの準備: at 0 mana the Lance attacks with the beads (both orders are
    offered); the targets are seat 1 at distance 2."""
    state = lancer()
    starts = {a for a in legal_actions(state) if isinstance(a, StartAttack)}
    assert starts == {StartAttack(0, "lance", "lance_range"), StartAttack(0, "lance")}


def test_6_zero_mana_range_first_then_reduction(chips):
    """Range skill first: it is declared though 1 mana is not there; Done waits for the
    reduction; then the set costs 0 and is paid at once."""
    state, ev = run(lancer(), StartAttack(0, "lance", "lance_range"))
    assert pending(state).kind == "skills"
    assert set(legal_actions(state)) == {PRAY}
    with pytest.raises(IllegalAction) as exc:
        apply(state, Done(0))
    assert exc.value.code == "declared_not_payable"
    assert dict(exc.value.params) == {"action": "Done", "seat": 0, "cost": 1, "mana": 0}
    state, ev = run(state, PRAY)
    assert of_type(ev, ManaPaid) == [ManaPaid(0, 0, 0)]
    assert pending(state).kind == "targets"
    assert state.battle.attack.skills == (("lance", "lance_range"), (BEADS, "beads_focus"))
    chips("1")
    state, ev = run(state, ChooseTarget(0, 1))
    assert pending(state).kind == "draw"


def test_6_zero_mana_reduction_first_then_range(chips):
    """The card alone, then the reduction, then the range skill: the same set, paid once."""
    state, ev = run(lancer(), StartAttack(0, "lance"))
    assert pending(state).kind == "skills" and state.battle.attack.range_skill is None
    assert set(legal_actions(state)) == {RANGE, PRAY}
    with pytest.raises(IllegalAction) as exc:
        apply(state, Done(0))
    assert exc.value.code == "range_skill_needed"
    state, ev = run(state, PRAY)
    assert set(legal_actions(state)) == {RANGE}
    assert not of_type(ev, ManaPaid)
    state, ev = run(state, RANGE)
    assert of_type(ev, SkillDeclared) == [SkillDeclared(0, "lance", "lance_range")]
    assert of_type(ev, ManaPaid) == [ManaPaid(0, 0, 0)]
    assert state.battle.attack.range_skill == "lance_range"
    assert pending(state).kind == "targets"


def test_6_zero_mana_no_reduction_no_attack():
    """Control: the Lance's range skill (1 mana) at 0 mana without a reduction is refused,
    in both shapes, with the mana as the reason."""
    state = lancer(beads=False)
    assert not [a for a in legal_actions(state) if isinstance(a, StartAttack)]
    for action in (StartAttack(0, "lance", "lance_range"), StartAttack(0, "lance")):
        with pytest.raises(IllegalAction) as exc:
            apply(state, action)
        assert exc.value.code == "not_enough_mana"
        assert exc.value.params["cost"] == 1 and exc.value.params["mana"] == 0
    # with 1 mana the same attack is fine and pays 1
    state, ev = run(lancer(mana=1, beads=False), StartAttack(0, "lance", "lance_range"))
    assert of_type(ev, ManaPaid) == [ManaPaid(0, 1, 0)]


def test_6_reduction_is_declared_not_automatic():
    """§6 「消費魔力0のスキルも自動的には適用せず」: with 1 mana the seat may also attack
    without the beads and pay 1."""
    state, _ = run(lancer(mana=1), StartAttack(0, "lance", "lance_range"))
    assert set(legal_actions(state)) == {PRAY, Done(0)}
    state, ev = run(state, Done(0))
    assert of_type(ev, ManaPaid) == [ManaPaid(0, 1, 0)]


def _attacked_lancer(chips, beads=True):
    """Seat 0 (Spear, area 1) attacks seat 1 (Lance + beads, 0 mana, area 3: distance 2,
    the Lance's mid crit area) and draws a miss."""
    equip = LANCER + (["prayer_beads"] if beads else [])
    state = position(3, {0: {"equip": ["spear"], "area": 1},
                         1: {"equip": equip, "area": 3, "mana": 0}})
    state, _ = run(state, StartAttack(0, "spear", "spear_range"))
    chips("miss")
    state, _ = run(state, ChooseTarget(0, 1))
    if pending(state).kind == "defense":
        state, _ = run(state, Done(1))
    return state


def test_6_zero_mana_counter_with_a_reduction(chips):
    """§6 カウンターの処理 1: the counter chance is there at 0 mana, and both orders work."""
    state = _attacked_lancer(chips)
    assert pending(state).kind == "counter" and pending(state).seats == (1,)
    assert set(legal_actions(state)) == {StartCounter(1, "lance", "lance_range"),
                                         StartCounter(1, "lance"), Decline(1)}
    pray = Declare(1, BEADS, "beads_focus")
    first, _ = run(state, StartCounter(1, "lance", "lance_range"))
    assert set(legal_actions(first)) == {pray}
    chips("1", "1")                                  # each counter draws its first chip
    first, ev = run(first, pray)
    assert of_type(ev, ManaPaid) == [ManaPaid(1, 0, 0)]
    later, _ = run(state, StartCounter(1, "lance"))
    later, _ = run(later, pray)
    later, ev = run(later, Declare(1, "lance", "lance_range"))
    assert of_type(ev, ManaPaid) == [ManaPaid(1, 0, 0)]
    assert later.battle.attack.counter and later.battle.attack.targets == (0,)
    assert later.battle.attack.range_skill == "lance_range"


def test_6_zero_mana_no_reduction_no_counter(chips):
    """Control: without the beads, no counter at 0 mana — the turn goes back to seat 0."""
    state = _attacked_lancer(chips, beads=False)
    assert pending(state).kind == "turn" and pending(state).seats == (0,)


def test_6_reduction_cannot_pay_everything():
    """§6 「現在魔力が支払う魔力に満たないスキルは使用できません」: the beads take 1 off each
    other skill; Chain-like costs above that stay. At 0 mana the Focus Rod's Chain (3) is
    refused even with Concentrate (−2) — the reason names the least it would cost (1)."""
    state = position(3, {0: {"equip": ["focus_rod"], "area": 1, "mana": 0}, 1: {"area": 3}})
    state, _ = run(state, StartAttack(0, "focus_rod", "focus_rod_range"))
    chain = Declare(0, "focus_rod", "focus_rod_chain")
    assert chain not in legal_actions(state)
    r = refusal(state, chain)
    assert r.code == "not_enough_mana" and r.params["cost"] == 1 and r.params["mana"] == 0
