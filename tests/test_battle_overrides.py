"""The rulebook's override clauses, expressed in card data (issue 13 point 7, RULINGS
R27–R30). Each clause says a card's or skill's own text wins over a general rule:

- §6 「効果文にほかの同系統のスキルとの併用が明記されている場合は、その記載に従います」 —
  `combines = true` on a skill;
- §6 「スキルにクリティカルを発生させる効果がある場合も、その効果の条件を満たすとクリティカルが
  発生します」 — effect `cause_crit` (at distance `value`, or any);
- §6 カウンターの制限 「スキルの効果文に適用するターゲットの指示がある場合は、その指示を優先
  します」 — `counter_block` with `targets = "crit" | "not_crit"`;
- §8 FAQ 「カードやスキルに別の記載がある場合は、その記載に従います」 — an attack card's
  `counter_distances`.
"""

from __future__ import annotations

import pytest

from rules import legal_actions, pending
from rules.actions import ChooseTarget, Decline, Declare, StartAttack, StartCounter
from rules.cards import CardDataError, parse_cards
from rules.engine import refusal
from tactical_tui.text.cardtext import card_summary, skill_text

from test_battle_positions import (BC, attack, bag_of, bags, chips, damage,  # noqa: F401
                                   finish_draw, position, run)


def test_6_combines_with_its_family(chips):
    """R27: the Twin Charm's Double Aim (会心, 「併用」 stated) joins the Critical Charm's Take
    Aim (会心): two extra crit chips. Control: two plain 会心 skills still exclude each
    other (Keen Blade's Critical Blow and Take Aim)."""
    state = position(3, {0: {"equip": ["short_sword", "crit_charm", "twin_charm"], "area": 1},
                         1: {"area": 2}})
    state, _ = run(state, StartAttack(0, "short_sword", "short_sword_range"),
                   Declare(0, "crit_charm#1", "charm_crit"))
    assert Declare(0, "twin_charm#1", "twin_aim") in legal_actions(state)
    chips("miss")
    state, ev = run(state, Declare(0, "twin_charm#1", "twin_aim"), ChooseTarget(0, 1))
    assert bags(ev) == [bag_of("short_sword", "crit", "crit", "crit")]
    plain = position(3, {0: {"equip": ["keen_blade", "crit_charm"], "area": 1}, 1: {"area": 2}})
    plain, _ = run(plain, StartAttack(0, "keen_blade", "keen_blade_range"),
                   Declare(0, "crit_charm#1", "charm_crit"))
    assert refusal(plain, Declare(0, "keen_blade", "keen_blade_crit")).code == "same_family"


def test_6_skill_causes_a_crit(chips):
    """R28: the Hunter Bow (long: crit area distance 3) with Hunter's Eye (a crit also at
    distance 2): a target at distance 2 gets the crit chip and takes 2 for it; without the
    skill it gets none."""
    base = {0: {"equip": ["hunter_bow"], "area": 1}, 1: {"area": 3}}
    chips("crit", "0")
    state, ev = attack(position(3, base), 0, "hunter_bow", "hunter_bow_range", 1,
                       declare=[("hunter_bow", "hunter_mark")])
    assert bags(ev) == [bag_of("hunter_bow", "crit")]
    state, ev = finish_draw(state, draws=1)              # crit, then a 0 ends it
    assert damage(ev) == {1: 2}
    chips("miss")
    state, ev = attack(position(3, base), 0, "hunter_bow", "hunter_bow_range", 1)
    assert bags(ev) == [bag_of("hunter_bow")]


def test_6_counter_block_names_its_targets(chips):
    """R29: the Net Spear's Pinning Net blocks the counters of the targets with a crit only.
    Mid range from area 1: seat 1 at distance 2 (crit) cannot counter, seat 2 at distance 1
    (no crit) still may."""
    state = position(3, {0: {"equip": ["net_spear"], "area": 1},
                         1: {"equip": ["spear"], "area": 3},
                         2: {"equip": ["short_sword"], "area": 2}})
    chips("miss")
    state, ev = run(state, StartAttack(0, "net_spear", "net_spear_range"),
                    Declare(0, "net_spear", "net_pin"), ChooseTarget(0, 1))
    assert pending(state).kind == "turn"                 # seat 1 (crit) is blocked
    state = position(3, {0: {"equip": ["net_spear"], "area": 1},
                         1: {"equip": ["spear"], "area": 3},
                         2: {"equip": ["short_sword"], "area": 2}})
    chips("miss")
    state, _ = run(state, StartAttack(0, "net_spear", "net_spear_range"),
                   Declare(0, "net_spear", "net_pin"), ChooseTarget(0, 2))
    assert pending(state).kind == "counter" and pending(state).seats == (2,)


def test_6_card_states_its_counter_distances(chips):
    """R30: the Parrying Dagger (short range: crit area distance 1) counters from distance 0
    or 1, as the card says; a plain Short Sword does not counter from distance 0."""
    def hit(weapon):
        state = position(3, {0: {"equip": ["short_sword"], "area": 1},
                             1: {"equip": [weapon], "area": 1}})
        chips("miss")
        state, _ = attack(state, 0, "short_sword", "short_sword_range", 1)
        return state
    state = hit("parry_dagger")
    assert set(legal_actions(state)) == {StartCounter(1, "parry_dagger", "parry_dagger_range"),
                                         StartCounter(1, "parry_dagger"), Decline(1)}
    state = hit("short_sword")
    assert pending(state).kind == "turn"


def test_7_card_text_describes_every_override_field():
    """tactical_tui/text/cardtext.py says each new field in Japanese and English."""
    aim = BC.skill("twin_aim")
    assert "同系統のスキルと併用可" in skill_text(BC, aim, "ja")
    assert "combines with its family" in skill_text(BC, aim, "en")
    mark = BC.skill("hunter_mark")
    assert "距離2のターゲットにもクリティカルが発生する" in skill_text(BC, mark, "ja")
    assert "critical also occurs for targets at distance 2" in skill_text(BC, mark, "en")
    pin = BC.skill("net_pin")
    assert "クリティカルが発生したターゲットはカウンターできない" in skill_text(BC, pin, "ja")
    assert "for whom a critical occurs cannot counter" in skill_text(BC, pin, "en")
    dagger = BC.card("parry_dagger")
    assert "カウンターは距離0・1から" in card_summary(BC, dagger, "ja")
    assert "counters from distance 0, 1" in card_summary(BC, dagger, "en")


@pytest.mark.parametrize("bad,message", [
    ('effect = { kind = "range", range = "short" }\ncombines = true', "range skill cannot combine"),
    ('effect = { kind = "range", range = "short", targets = "crit" }', "only a counter_block"),
])
def test_7_override_fields_are_checked_at_load(bad, message):
    text = ('[[family]]\nid = "range"\nname = { ja = "距離", en = "Range" }\n'
            '[[attack]]\nid = "t"\nname = { ja = "t", en = "t" }\ntype = "magic"\n'
            'chips = [0, 1, 1, 2, 2]\nstar = false\n'
            '[[attack.skills]]\nid = "t_r"\nname = { ja = "r", en = "r" }\nfamily = "range"\n'
            + bad + "\n")
    with pytest.raises(CardDataError, match=message):
        parse_cards(text)
