"""§2 スキルの発動条件 in battle: a skill checks exactly the stats it lists.

「最終能力値が必要値以上であれば、その条件を満たします。」「発動条件が記載されていないスキルは、
能力値による条件なしで使用できます。」 A negative final stat (Full Plate's agility −3 on a dwarf
of agility 2: −1) therefore blocks no skill that does not list that stat, while a listed
``agi = 0`` is a requirement like any other (issue 13 point 1)."""

from __future__ import annotations

import pytest

from rules import IllegalAction, apply, legal_actions, pending
from rules.actions import ChooseTarget, Declare, Done, StartAttack, StartCounter
from rules.build import final_stats
from rules.cards import Requirements, Stats, parse_cards

from test_battle_positions import BC, position, run
from test_battle_positions import chips  # noqa: F401  (fixture)

PLATED = ["full_plate"]          # def +2, agi −3


def test_2_requirements_hold_only_the_listed_stats():
    """§2: the TOML table is the list — nothing unlisted, a listed 0 kept."""
    cards = parse_cards(BC_TEXT_ONE_SKILL.format(req="requires = { def = 0, str = 4 }"))
    req = cards.skill("t_s").requires
    assert req == Requirements((("str", 4), ("def", 0)))
    assert req.as_dict() == {"str": 4, "def": 0}
    assert req.met_by(Stats.of(str=4, def_=0, agi=-5))
    assert not req.met_by(Stats.of(str=4, def_=-1))
    none = parse_cards(BC_TEXT_ONE_SKILL.format(req="")).skill("t_s").requires
    assert none == Requirements() and not none
    assert none.met_by(Stats.of(mana=-2, str=-1, int=-1, dex=-1, def_=-1, agi=-1))


def test_2_unlisted_requirement_is_no_requirement_with_a_negative_stat():
    """§2 「発動条件が記載されていないスキルは、能力値による条件なしで使用できます。」 A dwarf
    in Full Plate has final agility −1; the Short Sword's range skill and the Critical
    Charm's skill list no stat, so the seat attacks and declares the charm."""
    state = position(3, {0: {"race": "dwarf", "equip": ["short_sword", "crit_charm"] + PLATED,
                             "area": 1}, 1: {"area": 2}})
    assert final_stats(BC, "dwarf", state.seats[0].equipped)["agi"] == -1
    start = StartAttack(0, "short_sword", "short_sword_range")
    assert start in legal_actions(state)
    state, _ = run(state, start)
    assert Declare(0, "crit_charm#1", "charm_crit") in legal_actions(state)
    state, _ = run(state, Declare(0, "crit_charm#1", "charm_crit"))
    assert pending(state).kind == "targets"


def test_2_negative_stat_does_not_block_a_counter_or_a_defense(chips):
    """§2 the same in a counter and a defense: the plated dwarf (agility −1) is attacked
    from distance 2 with a Spear; it may declare Barrier (no stat listed) and counter with
    its own Spear (mid range, no stat listed)."""
    state = position(3, {0: {"equip": ["spear"], "area": 1},
                         1: {"race": "dwarf", "equip": ["spear", "barrier_shield"] + PLATED,
                             "area": 3}})
    assert final_stats(BC, "dwarf", state.seats[1].equipped)["agi"] == -1
    state, _ = run(state, StartAttack(0, "spear", "spear_range"))
    state, _ = run(state, ChooseTarget(0, 1))
    assert pending(state).kind == "defense"
    assert Declare(1, "barrier_shield#1", "barrier") in legal_actions(state)
    chips("miss")
    state, _ = run(state, Declare(1, "barrier_shield#1", "barrier"))
    assert StartCounter(1, "spear", "spear_range") in legal_actions(state)


def test_2_a_listed_zero_requirement_still_checks():
    """§2 「最終能力値が必要値以上であれば、その条件を満たします。」 Nimble Step lists agility 0:
    final agility −1 (plated dwarf) does not meet it, final agility 2 (dwarf) does."""
    step = Declare(0, "nimble_anklet#1", "nimble_step")
    plated = position(3, {0: {"race": "dwarf", "equip": ["short_sword", "nimble_anklet"] + PLATED,
                              "area": 1}, 1: {"area": 2}})
    plated, _ = run(plated, StartAttack(0, "short_sword", "short_sword_range"))
    assert step not in legal_actions(plated)
    with pytest.raises(IllegalAction) as exc:
        apply(plated, step)
    assert exc.value.code == "requirements_not_met"
    assert dict(exc.value.params["requires"]) == {"agi": 0}
    assert dict(exc.value.params["have"]) == {"agi": -1}
    light = position(3, {0: {"race": "dwarf", "equip": ["short_sword", "nimble_anklet"],
                             "area": 1}, 1: {"area": 2}})
    light, _ = run(light, StartAttack(0, "short_sword", "short_sword_range"))
    assert set(legal_actions(light)) == {step, Done(0)}


def test_2_a_requirement_the_seat_does_not_meet_is_still_refused():
    """Control, §2 「どちらか一方だけを満たしていても使用できません」: Keen Blade's Critical
    Blow lists dexterity 3; an orc (dexterity 2) is refused, with the reason."""
    state = position(3, {0: {"race": "orc", "equip": ["keen_blade"], "area": 1}, 1: {"area": 2}})
    state, _ = run(state, StartAttack(0, "keen_blade", "keen_blade_range"))
    blow = Declare(0, "keen_blade", "keen_blade_crit")
    assert blow not in legal_actions(state)
    with pytest.raises(IllegalAction) as exc:
        apply(state, blow)
    assert exc.value.code == "requirements_not_met"
    assert dict(exc.value.params["requires"]) == {"dex": 3}




BC_TEXT_ONE_SKILL = """
[[family]]
id = "range"
name = {{ ja = "距離", en = "Range" }}

[[attack]]
id = "t_a"
name = {{ ja = "試験", en = "Test" }}
type = "magic"
chips = [0, 1, 1, 2, 2]
star = false
[[attack.skills]]
id = "t_s"
name = {{ ja = "近距離", en = "Short" }}
family = "range"
effect = {{ kind = "range", range = "short" }}
{req}
"""


def test_2_card_text_shows_exactly_the_listed_requirements():
    """tactical_tui/text/cardtext.py says what the rules check: a listed agility 0 is shown, an
    unlisted stat never, no list at all is "no requirement"."""
    from tactical_tui.text.cardtext import requires_text, skill_text
    step = BC.skill("nimble_step")
    assert requires_text(step.requires, "ja") == "敏捷0"
    assert requires_text(step.requires, "en") == "Ag 0"     # the lists' spelling (issue 32)
    assert "敏捷0" in skill_text(BC, step, "ja") and "Ag 0" in skill_text(BC, step, "en")
    assert requires_text(BC.skill("short_sword_range").requires, "ja") == "条件なし"
    assert requires_text(BC.skill("short_sword_range").requires, "en") == "no requirement"
    assert requires_text(Requirements.of(str=5, dex=5), "ja") == "腕力5・器用5"


def test_2_ai_features_ignore_unlisted_stats():
    """The AI's build features read requirements the same way: with final agility −1 the
    Short Sword (no stat listed) has no requirement gap and full attack power, and the
    build value sees its range."""
    from ai.buildvalue import build_features
    from ai.evaluate import attack_power, requirement_gaps
    equipped = ("short_sword", "full_plate#1")
    stats = final_stats(BC, "dwarf", equipped)
    assert stats["agi"] == -1
    assert requirement_gaps(BC, ["short_sword"], stats) == {}
    assert attack_power(BC.card("short_sword"), stats) > 0
    assert requirement_gaps(BC, ["strong_bow"], Stats.of(str=3, agi=-1)) == {}   # mid: none
    assert requirement_gaps(BC, ["keen_blade"], Stats.of(agi=-1)) == {}
    f = build_features(BC, "dwarf", equipped)
    assert f["usable attacks"] == 1.0 and f["no attack"] == 0.0 and f["range:short"] == 1.0
