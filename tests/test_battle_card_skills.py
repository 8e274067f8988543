"""§6 魔力を消費するスキル: an attack card's skills belong to attacks made with that card
(issue 13 point 4, RULINGS R21).

「そのカードによる1回のアタックまたはカウンターでは、発動条件を満たすスキルを任意で使用できます。」
Attacking or countering with attack card X, the skills printed on another equipped attack
card Y cannot be declared; skills of defense cards (armor, shields, accessories) with a
fitting timing still can."""

from __future__ import annotations

import pytest

from rules import IllegalAction, apply, legal_actions, pending
from rules.actions import ChooseTarget, Decline, Declare, Done, StartAttack, StartCounter
from rules.engine import refusal
from tactical_tui.text.catalog import refusal_text

from test_battle_positions import BC, chips, position, run  # noqa: F401

SWEEP = Declare(0, "twin_blade", "twin_blade_sweep")      # Twin Blade: extra target
STAGGER = Declare(0, "mace", "mace_stagger")              # Mace: counter block
CHARM = Declare(0, "crit_charm#1", "charm_crit")          # an accessory: crit chip


def two_weapons():
    return position(3, {0: {"equip": ["twin_blade", "mace", "crit_charm"], "area": 1},
                        1: {"area": 2}, 2: {"area": 6}})


def test_6_attack_declares_only_its_own_cards_skills_and_defense_cards():
    """With the Twin Blade, its Sweep and the charm's skill are offered, the Mace's Stagger
    is not; with the Mace, the other way round for the weapons."""
    state, _ = run(two_weapons(), StartAttack(0, "twin_blade", "twin_blade_range"))
    assert set(legal_actions(state)) == {SWEEP, CHARM, Done(0)}
    state, _ = run(two_weapons(), StartAttack(0, "mace", "mace_range"))
    assert set(legal_actions(state)) == {STAGGER, CHARM, Done(0)}


def test_6_another_attack_cards_skill_is_refused_with_its_reason():
    """Control: Stagger in a Twin Blade attack is refused (code other_attack_card, ja/en
    texts name the skill and the card); the charm's skill is accepted."""
    state, _ = run(two_weapons(), StartAttack(0, "twin_blade", "twin_blade_range"))
    with pytest.raises(IllegalAction) as exc:
        apply(state, STAGGER)
    assert exc.value.code == "other_attack_card"
    assert dict(exc.value.params) == {"action": "Declare", "seat": 0, "card": "mace",
                                      "skill": "mace_stagger"}
    assert "メイス" in refusal_text(BC, exc.value.code, exc.value.params, "ja")
    assert "Stagger" in refusal_text(BC, exc.value.code, exc.value.params, "en")
    state, _ = run(state, CHARM)
    assert state.battle.attack.skills[-1] == ("crit_charm#1", "charm_crit")


def test_6_card_alone_cannot_take_another_cards_range_skill():
    """An attack begun with the card alone declares a range skill of that card only."""
    state, _ = run(two_weapons(), StartAttack(0, "twin_blade"))
    assert Declare(0, "mace", "mace_range") not in legal_actions(state)
    assert refusal(state, Declare(0, "mace", "mace_range")).code == "other_attack_card"
    assert Declare(0, "twin_blade", "twin_blade_range") in legal_actions(state)


def test_6_counter_uses_only_its_own_cards_skills(chips):
    """In a counter with the Short Sword, the Counter Spear's Riposte (a counter skill of
    another attack card) is refused; countering with the Counter Spear, it is offered."""
    state = position(3, {0: {"equip": ["spear"], "area": 1},
                         1: {"equip": ["short_sword", "counter_spear"], "area": 2}})
    state, _ = run(state, StartAttack(0, "spear", "spear_range"))
    chips("miss")
    state, _ = run(state, ChooseTarget(0, 1))
    assert pending(state).kind == "counter"
    riposte = Declare(1, "counter_spear", "counter_spear_riposte")
    chips("miss")
    sword, ev = run(state, StartCounter(1, "short_sword", "short_sword_range"))
    # nothing to declare with the sword: the counter went straight on to its bag (a miss)
    assert not [e for e in ev if type(e).__name__ == "SkillDeclared"]
    assert pending(sword).kind == "turn" and pending(sword).seats == (0,)
    state = position(3, {0: {"equip": ["spear"], "area": 1},
                         1: {"equip": ["short_sword", "counter_spear"], "area": 3}})
    state, _ = run(state, StartAttack(0, "spear", "spear_range"))
    chips("miss")
    state, _ = run(state, ChooseTarget(0, 1))
    spear, _ = run(state, StartCounter(1, "counter_spear", "counter_spear_range"))
    assert set(legal_actions(spear)) == {riposte, Done(1)}
    assert Decline(1) in legal_actions(state)
