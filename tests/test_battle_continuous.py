"""§6 継続スキル and the family rule, for continuous skills (docs/RULINGS.md R23):

- 「カードが横向きの間、そのスキルは発動中です」: a continuous skill in effect applies to
  every process of its owner its timing fits — the attacker's attacks and counters too;
- 「効果文に記載された終了タイミングになったら、カードを縦向きに戻してスキルを解除します」:
  one declared when attacked lasts until its end timing, with no second payment;
- 「同じ1回の処理で同じ系統のスキルを複数適用または使用することはできません」: a skill in
  effect and a declared one of its family never both apply, and two continuous skills of
  one family are never in effect together;
- 「スキルは、条件を満たし、必要な魔力を消費できる限り任意で使用できます」: a continuous turn
  skill may be activated at any point of the owner's turn, after an attack too.

Cards: tests/data/battle_cards.toml (war_drum, war_horn, ward_cloak, brace_ring,
stone_charm)."""

from __future__ import annotations

from rules import explain_illegal, legal_actions, pending
from rules.actions import Activate, Declare, Done, EndTurn, Move, StartCounter
from rules.events import ManaPaid, SkillActivated, SkillEnded, TurnEnded
from rules.state import Active

from test_battle_positions import (attack, bag_of, bags, chips, damage, finish_draw,  # noqa: F401
                                   of_type, position, run)


def in_effect(state, seat):
    return {a.skill for a in state.seats[seat].active}


def defend(state, seat, *declares):
    """The target declares these skills, then Done if the engine still waits for it."""
    events: list = []
    for card, skill in declares:
        state, ev = run(state, Declare(seat, card, skill))
        events += ev
    if pending(state).kind == "defense" and pending(state).seats == (seat,):
        state, ev = run(state, Done(seat))
        events += ev
    return state, events


def counter_after_attack(chips, state, chip: str, counter_chip: str):
    """(`chips`: the fixture's script.) Seat 0 attacks seat 1 with the Short Sword (`chip`
    drawn, then Stop); seat 1
    counters with its Short Sword, the first counter chip being `counter_chip`. Returns
    the state and the counter's events, waiting at the counter's next decision."""
    chips(chip)
    state, _ = attack(state, 0, "short_sword", "short_sword_range", 1)
    state, _ = finish_draw(state)
    assert pending(state).kind == "counter"
    chips(counter_chip)
    state, ev = run(state, StartCounter(1, "short_sword", "short_sword_range"))
    if pending(state).kind == "skills":
        state, more = run(state, Done(1))
        ev += more
    return state, ev


def countered_and_defended(chips, state, card: str, skill: str):
    """Seat 0's attack is countered by seat 1 (a 2 drawn first): seat 0, the target of
    the counter, is asked, may declare `card`'s `skill`, and does; the counter's damage."""
    state, ev = counter_after_attack(chips, state, "1", "2")
    assert pending(state).kind == "defense" and pending(state).seats == (0,)
    assert Declare(0, card, skill) in legal_actions(state)
    state, more = defend(state, 0, (card, skill))
    state, more2 = finish_draw(state)
    return state, damage(ev + more + more2)


# ------------------------------------------------------------- item 3: the attacker

def test_6_continuous_crit_skill_works_for_the_attacker(chips):
    """§6 継続スキル: a continuous "+1 crit chip" turn skill, paid and in effect, puts its
    chip in the attacker's bag: 2 crit chips at a crit (1 automatic + 1), not 1."""
    state = position(3, {0: {"equip": ["short_sword", "war_drum"], "area": 1, "mana": 2},
                         1: {"equip": ["short_sword"], "area": 2}})
    state, ev = run(state, Activate(0, "war_drum#1", "drum_crit"))
    assert SkillActivated(0, "war_drum#1", "drum_crit", 1) in ev
    chips("1")
    state, ev = attack(state, 0, "short_sword", "short_sword_range", 1)
    assert bags(ev) == [bag_of("short_sword", "crit", "crit")]
    finish_draw(state)


def test_6_continuous_crit_skill_works_in_a_counter(chips):
    """§6 継続スキル / カウンター: the same skill in effect adds its chip to the owner's
    counter (a counter has no automatic crit chip: 1 crit chip, from the skill)."""
    state = position(3, {0: {"equip": ["short_sword"], "area": 1},
                         1: {"equip": ["short_sword", "war_drum"], "area": 2}})
    state = state.with_seat(1, active=(Active("war_drum#1", "drum_crit", "next_turn_start"),))
    state, ev = counter_after_attack(chips, state, "1", "1")
    assert bags(ev) == [bag_of("short_sword", "crit")]
    finish_draw(state)


# ------------------------------------------------------------- item 4: how long it lasts

def test_6_continuous_defense_skill_lasts_until_its_end_timing(chips):
    """§6 継続スキル: Ward (被攻撃時, −1 damage, until its owner's next turn), declared and
    paid when seat 1 is attacked, still reduces a second attack in the same round — with
    no second payment — and ends at the start of seat 1's turn."""
    state = position(3, {0: {"equip": ["spear"], "area": 1},
                         1: {"equip": ["short_sword", "ward_cloak"], "area": 3, "mana": 1},
                         2: {"equip": ["spear"], "area": 5}},
                     order=(0, 2, 1))
    chips("2")
    state, ev = attack(state, 0, "spear", "spear_range", 1)
    assert pending(state).kind == "defense"
    state, more = defend(state, 1, ("ward_cloak#1", "ward"))
    ev += more
    assert ManaPaid(1, 1, 0) in ev and SkillActivated(1, "ward_cloak#1", "ward", 0) in ev
    state, more = finish_draw(state)
    ev += more
    assert damage(ev) == {1: 1}
    if pending(state).kind == "counter":
        state, _ = run(state, *[a for a in legal_actions(state) if type(a).__name__ == "Decline"])
    state, _ = run(state, EndTurn(0))
    assert "ward" in in_effect(state, 1)
    # seat 2 attacks seat 1 in the same round: Ward still works, nothing is paid again
    chips("2")
    state, ev = attack(state, 2, "spear", "spear_range", 1)
    if pending(state).kind == "defense":
        assert Declare(1, "ward_cloak#1", "ward") not in legal_actions(state)
        state, more = run(state, Done(1))
        ev += more
    state, more = finish_draw(state)
    ev += more
    assert damage(ev) == {1: 1} and not [e for e in of_type(ev, ManaPaid) if e.seat == 1]
    if pending(state).kind == "counter":
        state, _ = run(state, *[a for a in legal_actions(state) if type(a).__name__ == "Decline"])
    state, ev = run(state, EndTurn(2))
    assert SkillEnded(1, "ward_cloak#1", "ward") in ev and not in_effect(state, 1)


# ------------------------------------------------------------ item 2: one per family

def test_6_skill_in_effect_and_declared_skill_of_its_family_do_not_both_apply(chips):
    """§6 同じ系統: Ward in effect (−1) and Hold Fast declared (−1, same family): one of
    them applies — damage 2 → 1, not 0. Declaring is the seat's choice of the one."""
    state = position(3, {0: {"equip": ["spear"], "area": 1},
                         1: {"equip": ["short_sword", "ward_cloak", "brace_ring"], "area": 3}})
    state = state.with_seat(1, active=(Active("ward_cloak#1", "ward", "next_turn_start"),))
    chips("2")
    state, ev = attack(state, 0, "spear", "spear_range", 1)
    assert Declare(1, "brace_ring#1", "ring_brace") in legal_actions(state)
    state, more = defend(state, 1, ("brace_ring#1", "ring_brace"))
    ev += more
    state, more = finish_draw(state)
    assert damage(ev + more) == {1: 1}


def test_6_skill_in_effect_alone_applies(chips):
    """Control: Ward in effect and nothing declared — damage 2 → 1."""
    state = position(3, {0: {"equip": ["spear"], "area": 1},
                         1: {"equip": ["short_sword", "ward_cloak"], "area": 3}})
    state = state.with_seat(1, active=(Active("ward_cloak#1", "ward", "next_turn_start"),))
    chips("2")
    state, ev = attack(state, 0, "spear", "spear_range", 1)
    if pending(state).kind == "defense":
        state, more = run(state, Done(1))
        ev += more
    state, more = finish_draw(state)
    assert damage(ev + more) == {1: 1}


def test_6_two_continuous_skills_of_one_family_are_never_in_effect_together(chips):
    """§6 同じ系統: with Command (critical, continuous) in effect, Rally (critical,
    continuous) cannot be activated — it would apply beside it in every later process;
    the bag gets one skill's chip, not two."""
    state = position(3, {0: {"equip": ["short_sword", "war_drum", "war_horn"], "area": 1,
                             "mana": 2},
                         1: {"equip": ["short_sword"], "area": 2}})
    state, _ = run(state, Activate(0, "war_horn#1", "horn_crit"))
    assert Activate(0, "war_drum#1", "drum_crit") not in legal_actions(state)
    assert explain_illegal(state, Activate(0, "war_drum#1", "drum_crit"))[0] == \
        "same_family_in_effect"
    chips("1")
    state, ev = attack(state, 0, "short_sword", "short_sword_range", 1)
    assert bags(ev) == [bag_of("short_sword", "crit", "crit")]
    finish_draw(state)


# ---------------------------------------------------- item 6: any time in one's turn

def test_6_continuous_turn_skill_may_be_activated_after_the_attack(chips):
    """§6 「スキルは、条件を満たし、必要な魔力を消費できる限り任意で使用できます」: Stone Skin
    (a defensive turn skill) switched on after an attack, and after attack + move (the
    turn waits for it instead of ending by itself)."""
    state = position(3, {0: {"equip": ["short_sword", "stone_charm"], "area": 1, "mana": 1},
                         1: {"equip": ["spear"], "area": 4}, 2: {"equip": ["spear"], "area": 2}})
    chips("1")
    state, _ = attack(state, 0, "short_sword", "short_sword_range", 2)
    state, _ = finish_draw(state)
    while pending(state).kind == "counter":
        state, _ = run(state, *[a for a in legal_actions(state) if type(a).__name__ == "Decline"])
    assert Activate(0, "stone_charm#1", "stone_skin") in legal_actions(state)
    state, ev = run(state, Move(0, 1))          # the second action: the turn waits
    assert not of_type(ev, TurnEnded) and pending(state).seats == (0,)
    assert set(legal_actions(state)) == {Activate(0, "stone_charm#1", "stone_skin"), EndTurn(0)}
    state, ev = run(state, Activate(0, "stone_charm#1", "stone_skin"))
    assert "stone_skin" in in_effect(state, 0)
    assert TurnEnded(0, "actions") in ev        # nothing left: now the turn ends


# ------------------------------------------------ the 被カウンター時 timing (format)

def test_6_countered_timing_only_against_a_counter(chips):
    """§6 「自分のアタックに対してカウンターが行われるタイミングを「被カウンター時」と呼び
    ます」: a 被カウンター時 skill is declared by the attacker when its attack is countered
    (−1: 2 → 1), and is not offered when that seat is the target of an attack."""
    state = position(3, {0: {"equip": ["short_sword", "riposte_mail"], "area": 1},
                         1: {"equip": ["short_sword"], "area": 2}})
    state, dealt = countered_and_defended(chips, state, "riposte_mail#1", "riposte_guard")
    assert dealt == {0: 1}
    # the same seat as the target of an attack: not offered (no defense decision at all)
    state = position(3, {0: {"equip": ["short_sword"], "area": 1},
                         1: {"equip": ["short_sword", "riposte_mail"], "area": 2}})
    chips("2")
    state, ev = attack(state, 0, "short_sword", "short_sword_range", 1)
    assert pending(state).kind != "defense"
    assert explain_illegal(state, Declare(1, "riposte_mail#1", "riposte_guard"))[0] != "illegal"
    finish_draw(state)


# ------------------------------------------------------- whose side, which card (review)

def test_6_a_turn_skills_crit_value_is_its_owners_as_attacker_only(chips):
    """RULINGS R23: a turn skill's crit value ("a drawn crit chip counts 3", its card text)
    works in its owner's attacks — not against its owner when it is the target."""
    state = position(3, {0: {"equip": ["short_sword"], "area": 1},
                         1: {"equip": ["short_sword", "hawk_charm"], "area": 2}})
    state = state.with_seat(1, active=(Active("hawk_charm#1", "hawk_focus", "next_turn_start"),))
    chips("crit")
    state, ev = attack(state, 0, "short_sword", "short_sword_range", 1)
    state, more = finish_draw(state)
    assert damage(ev + more) == {1: 2}                  # not 3
    # as the attacker (its counter, from distance 1: no automatic crit; a crit chip
    # would need a skill), and in its own attack: 3
    state = position(3, {0: {"equip": ["short_sword", "hawk_charm"], "area": 1},
                         1: {"equip": ["short_sword"], "area": 2}})
    state = state.with_seat(0, active=(Active("hawk_charm#1", "hawk_focus", "next_turn_start"),))
    chips("crit")
    state, ev = attack(state, 0, "short_sword", "short_sword_range", 1)
    state, more = finish_draw(state)
    assert damage(ev + more) == {1: 3}


def test_6_a_continuous_skill_of_an_attack_card_stays_with_that_cards_attacks(chips):
    """RULINGS R21 / R23: Storm Stance (Storm Blade's, in effect) adds its crit chip to a
    counter made with the Storm Blade — not to one made with the Short Sword."""
    for card, skill, crits in (("short_sword", "short_sword_range", ()),
                               ("storm_blade", "storm_blade_range", ("crit",))):
        state = position(3, {0: {"equip": ["short_sword"], "area": 1},
                             1: {"equip": [card, "storm_blade"] if card != "storm_blade"
                                 else ["storm_blade"], "area": 2}})
        state = state.with_seat(1, active=(Active("storm_blade", "storm_focus", "next_turn_start"),))
        chips("1")
        state, _ = attack(state, 0, "short_sword", "short_sword_range", 1)
        state, _ = finish_draw(state)
        chips("1")
        state, ev = run(state, StartCounter(1, card, skill))
        if pending(state).kind == "skills":
            state, more = run(state, Done(1))
            ev += more
        assert bags(ev) == [bag_of(card, *crits)], card
        finish_draw(state)


def test_6_continuous_skills_of_one_family_that_share_no_process_may_both_be_in_effect(chips):
    """RULINGS R23: Standard (critical, アタック時) in effect does not keep Banner Guard
    (critical, 被カウンター時) from being declared: they never apply to one process."""
    state = position(3, {0: {"equip": ["short_sword", "guard_banner", "war_banner"], "area": 1},
                         1: {"equip": ["short_sword"], "area": 2}})
    state = state.with_seat(0, active=(Active("war_banner#1", "banner_rally", "next_turn_start"),))
    state, dealt = countered_and_defended(chips, state, "guard_banner#1", "banner_guard")
    assert dealt == {0: 1}
    assert {a.skill for a in state.seats[0].active} == {"banner_rally", "banner_guard"}


def test_6_an_exclusive_skill_excludes_skills_declared_not_those_in_effect(chips):
    """RULINGS R23 / R16: 「「併用不可」と記載されたスキルは…他のスキルと同時に使用できません」
    speaks of skills used, where the family rule says 「適用または使用」: All Out (exclusive)
    declared while Hawk Eye (a turn skill of another family: crits count 3) is in effect —
    Hawk Eye still applies."""
    state = position(3, {0: {"equip": ["great_axe", "hawk_charm"], "area": 1,
                             "race": "orc"},
                         1: {"equip": ["short_sword"], "area": 2}})
    state = state.with_seat(0, active=(Active("hawk_charm#1", "hawk_focus", "next_turn_start"),))
    chips("crit")
    state, ev = attack(state, 0, "great_axe", "great_axe_range", 1,
                       declare=[("great_axe", "great_axe_fury")])
    state, more = finish_draw(state)
    assert bags(ev)[0].count("crit") == 1 + 2              # automatic + All Out
    assert damage(ev + more) == {1: 3}         # the crit counts 3: Hawk Eye still applies
