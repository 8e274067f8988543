"""Why an action is refused (DESIGN.md "Legal actions are the contract"): `apply` raises
IllegalAction with a stable code, an English reason and params, and the battle (§6) names
its real cause — decided by the same checks as `rules.battle`'s legal_* functions.

- one position per §6 code where `apply` refuses an action with exactly that code;
- every code of `rules.actions.REFUSALS` has a position here (or is a pre-existing code
  of part 1, pinned in test_draft / test_bidding / test_build and scenarios/);
- random battles: no legal action is ever explained as refused, and no refused battle
  action falls back to the generic code;
- every code has a Japanese and an English text, and the texts show card and skill names
  in the player's language.
"""

from __future__ import annotations

import random
import re

import attrs
import pytest

from rules import REFUSAL_CODES, Config, IllegalAction, apply, legal_actions, new_game, pending
from rules import battle as B
from rules.actions import (REFUSALS, Activate, Assign, ChooseArea, ChooseTarget, Confirm, Declare,
                           Done, Draw, EndTurn, Move, Pick, Rest, StartAttack, StartCounter, Stop,
                           Swap, Unconfirm, UseUnluck, field_refusal, refuse)
from rules.cards import CardSet
from rules.engine import refusal
from rules.state import Attack, Phase
from tactical_tui.text.catalog import UI, refusal_params, refusal_text

from test_battle_positions import BC, copy_id, position, run

# Codes of part 1 (§5), older than the battle's own; their positions are in
# test_draft.py, test_bidding.py, test_build.py and scenarios/bidding, scenarios/build.
PART1_CODES = {"not_a_target", "card_not_in_hand", "attack_card_bid", "card_not_owned",
               "no_change", "attack_card_material", "materialized_final", "no_race", "bad_card", "bad_target",
               "bad_race"}


def refused(state, action) -> IllegalAction:
    """`action` is not listed, `apply` raises IllegalAction and leaves the state as it was.
    (An action with a field of the wrong type may compare equal to a listed one: 1.0 == 1.)"""
    if field_refusal(action) is None:
        assert action not in legal_actions(state)
    before = hash(state)
    with pytest.raises(IllegalAction) as info:
        apply(state, action)
    assert hash(state) == before
    exc = info.value
    assert exc.code in REFUSAL_CODES and exc.reason
    return exc


def with_turn(state, **turn):
    b = state.battle
    return attrs.evolve(state, battle=attrs.evolve(b, turn=attrs.evolve(b.turn, **turn)))


def with_attack(state, **fields):
    """An attack in progress (stage "skills" unless given), built directly."""
    b = state.battle
    return attrs.evolve(state, battle=attrs.evolve(b, attack=Attack(**fields)))


def duel(attacker_equip=("short_sword",), other_area=2, **seat0):
    """Seat 0 (area 1, human) to act; seat 1 in `other_area` with a Short Sword; seat 2
    not on the field."""
    return position(3, {0: {"equip": list(attacker_equip), "area": 1, **seat0},
                        1: {"equip": ["short_sword"], "area": other_area}})


def started(card: str, equip, **seat0):
    """Seat 0 has started an attack with `card`'s range skill."""
    state = duel(equip, **seat0)
    skill = next(sk.id for sk in BC.card(card).skills if sk.effect.kind == "range")
    state, _ = run(state, StartAttack(0, copy_id(card), skill))
    return state


def skills_stage(card: str, equip, **seat0):
    """Seat 0 has started an attack with `card` and is declaring skills."""
    state = started(card, equip, **seat0)
    assert pending(state).kind == "skills"
    return state


def targets_stage(card: str, equip, declare=()):
    """Seat 0 has started an attack with `card`, declared `declare`, and chooses targets."""
    state = started(card, equip)
    for c, s in declare:
        state, _ = run(state, Declare(0, copy_id(c), s))
    if pending(state).kind == "skills":
        state, _ = run(state, Done(0))
    assert pending(state).kind == "targets"
    return state


# ------------------------------------------------------------------ one position per code

def case_no_such_seat():
    return duel(), Move(7, 1)


def case_game_over():
    return attrs.evolve(duel(), phase=Phase.OVER), EndTurn(0)


def case_not_your_turn():
    return duel(), Move(1, 1)


def case_wrong_action():
    return duel(), Pick(0, "short_sword")


def case_no_actions_left():
    """§6 手番: at most 2 actions (a position after an attack and a move, built directly)."""
    return with_turn(duel(), moves=1, attacked=True), Move(0, 1)


def case_already_attacked():
    """§6 手番: one attack a turn (選択例: アタック、移動 — never two attacks)."""
    return with_turn(duel(), attacked=True), StartAttack(0, "short_sword", "short_sword_range")


def case_attack_after_move():
    """§6 手番: 手番中、移動後にアタックはできません (the target is still in range)."""
    state, _ = run(duel(), Move(0, 1))
    return state, StartAttack(0, "short_sword", "short_sword_range")


def case_bad_step():
    """§6 移動: one step to an adjacent area."""
    return duel(), Move(0, 2)


def case_rest_after_action():
    """§6 手番: 移動またはアタックを行った後に休息することもできません."""
    state, _ = run(duel(), Move(0, 1))
    return state, Rest(0)


def case_same_family_in_effect():
    """§6 同じ系統 / 継続スキル (R23): a continuous skill of a family in effect keeps a second
    continuous skill of that family from being activated."""
    state, _ = run(duel(("short_sword", "war_horn", "war_drum"), mana=2),
                   Activate(0, "war_horn#1", "horn_crit"))
    return state, Activate(0, "war_drum#1", "drum_crit")


def case_no_attack_card_no_actions():
    """§6 アタックカードを装備していない場合: 「移動、アタック、休息を行わず、その場に留まったまま
    手番を終了します」."""
    return duel(("plate_mail",)), Move(0, 1)


def case_skill_already_active():
    """§6 継続スキル: active until its end timing; it is not activated twice."""
    state, _ = run(duel(("short_sword", "dash_boots")), Activate(0, "dash_boots#1", "dash"))
    return state, Activate(0, "dash_boots#1", "dash")


def case_card_not_equipped():
    """§6 アタック 1: 装備しているアタックカード1枚を選びます."""
    return duel(), StartAttack(0, "spear", "spear_range")


def case_not_attack_card():
    """§6 アタック 1: an attack card, not a defense card."""
    return duel(("short_sword", "barrier_shield")), StartAttack(0, "barrier_shield#1", "barrier")


def case_skill_not_on_card():
    return duel(), StartAttack(0, "short_sword", "spear_range")


def case_not_range_skill():
    """§6 アタック 2: the attack starts with one of the card's range skills."""
    return duel(("twin_blade",)), StartAttack(0, "twin_blade", "twin_blade_sweep")


def case_one_range_skill():
    """§6 アタックカードの距離: 1回の処理で選べる距離は1つです (Strong Bow: mid, then long)."""
    state = started("strong_bow", ("strong_bow", "power_band"))
    return state, Declare(0, "strong_bow", "strong_bow_long")


def case_other_attack_card():
    """§6 魔力を消費するスキル: そのカードによる1回のアタック…では (RULINGS R21): the Mace's
    Stagger is not declared in a Twin Blade attack."""
    state = skills_stage("twin_blade", ("twin_blade", "mace"))
    return state, Declare(0, "mace", "mace_stagger")


def _trait_duel():
    """Seat 0 (Black Stag: the battle trait Battle Cry, tests/test_battle_trait.py) has
    started an attack with the Short Sword."""
    from test_battle_trait import TC
    state = attrs.evolve(duel(), cards=TC)
    holder = next((i for i, x in enumerate(state.seats) if x.guild == "black_stag"), None)
    if holder is not None:
        state = state.with_seat(holder, guild=state.seats[0].guild)
    state = state.with_seat(0, guild="black_stag")
    state, _ = run(state, StartAttack(0, "short_sword", "short_sword_range"))
    return state


def case_trait_used():
    """§4 「各バトル中1回」 = once per game (RULINGS R2): used, it is gone."""
    return _trait_duel().with_seat(0, trait_used=True), Declare(0, "black_stag", "battle_cry")


def case_trait_not_own():
    """RULINGS R2: a guild trait is its own guild's seat's."""
    state = _trait_duel()
    other = next(g.id for g in state.cards.guilds if g.id not in {s.guild for s in state.seats}
                 and g.battle_skill is not None)
    return state, Declare(0, other, state.cards.guild(other).battle_skill.id)


def case_series_inactive():
    """§5-4 シリーズ効果: a series card's skills need 2 equipped cards of its series."""
    state = skills_stage("twin_blade", ("twin_blade", "moon_amulet"))
    return state, Declare(0, "moon_amulet#1", "moon_hush")


def case_requirements_not_met():
    """§6 魔力を消費するスキル: 発動条件は最終能力値で判定 (Long needs str 5; human 3)."""
    state = duel(("strong_bow",), other_area=3)
    return state, StartAttack(0, "strong_bow", "strong_bow_long")


def case_wrong_timing():
    """§6 アタックとスキルの使用タイミング: a "when attacked" skill is not the attacker's."""
    state = skills_stage("twin_blade", ("twin_blade", "barrier_shield"))
    return state, Declare(0, "barrier_shield#1", "barrier")


def case_not_enough_mana():
    """§6 魔力を消費するスキル: 現在魔力が支払う魔力に満たないスキルは使用できません
    (Chain costs 3, at least 1 with Concentrate; 0 mana)."""
    state = skills_stage("focus_rod", ("focus_rod",), mana=0)
    return state, Declare(0, "focus_rod", "focus_rod_chain")


def case_range_skill_needed():
    """§6 アタック 2 / RULINGS R22: an attack begun with the card alone needs one of its
    range skills declared before the declaring is done."""
    state, _ = run(duel(), StartAttack(0, "short_sword"))
    return state, Done(0)


def case_declared_not_payable():
    """§6 魔力を消費するスキル / RULINGS R22: the declared set is paid once; the Lance's
    range skill (1) at 0 mana waits for the beads' reduction."""
    state, _ = run(duel(("lance", "power_band", "prayer_beads"), other_area=3, mana=0),
                   StartAttack(0, "lance", "lance_range"))
    return state, Done(0)


def case_already_declared():
    state, _ = run(skills_stage("focus_rod", ("focus_rod",)), Declare(0, "focus_rod", "focus_rod_focus"))
    return state, Declare(0, "focus_rod", "focus_rod_focus")


def case_same_family():
    """§6 魔力を消費するスキル: 同じ1回の処理で同じ系統のスキルを複数…使用することはできません."""
    state = skills_stage("focus_rod", ("focus_rod", "crit_charm"))
    state, _ = run(state, Declare(0, "focus_rod", "focus_rod_burst"))
    return state, Declare(0, "crit_charm#1", "charm_crit")


def case_exclusive():
    """§6: 「併用不可」と記載されたスキルは…他のスキルと同時に使用できません."""
    state = skills_stage("great_axe", ("great_axe",))
    state, _ = run(state, Declare(0, "great_axe", "great_axe_rend"))
    if pending(state).kind == "skills":
        state, _ = run(state, Done(0))
    return state, Declare(0, "great_axe", "great_axe_fury")


def case_targeting_in_counter():
    """§6 カウンター: the counter's one target is the attacker, so an extra-targets skill
    (here made usable "on attack or counter") has nothing to do."""
    cards = _cards_with_sweep_any()
    state = attrs.evolve(position(3, {0: {"equip": ["short_sword"], "area": 1},
                                      1: {"equip": ["twin_blade"], "area": 2}}), cards=cards)
    state = with_attack(state, attacker=1, counter=True, card="twin_blade",
                        range_skill="twin_blade_range", stage="skills",
                        skills=(("twin_blade", "twin_blade_range"),), targets=(0,))
    assert pending(state).kind == "skills" and pending(state).seats == (1,)
    return state, Declare(1, "twin_blade", "twin_blade_sweep")


def case_skills_closed():
    """§6 アタック 3–4: the attacker's skills are declared before the targets are chosen."""
    state = targets_stage("focus_rod", ("focus_rod",))
    return state, Declare(0, "focus_rod", "focus_rod_focus")


def case_no_target_in_range():
    """§6 複数スキル: ターゲットを1人も選べない場合はアタックできません."""
    return duel(other_area=4), StartAttack(0, "short_sword", "short_sword_range")


def case_target_self():
    return targets_stage("short_sword", ("short_sword",)), ChooseTarget(0, 0)


def case_target_not_on_field():
    """§6 登場と初期手番: まだ登場していないプレイヤーは、アタックと移動の対象になりません."""
    return targets_stage("short_sword", ("short_sword",)), ChooseTarget(0, 2)


def case_target_knocked_out():
    """§6 体力とノックアウト: ノックアウト中のプレイヤーはアタックのターゲットに選べません."""
    state = position(3, {0: {"equip": ["short_sword"], "area": 1},
                         1: {"equip": ["short_sword"], "area": 2},
                         2: {"equip": ["short_sword"], "knocked_out": True, "hp": 0}})
    state, _ = run(state, StartAttack(0, "short_sword", "short_sword_range"))
    return state, ChooseTarget(0, 2)


def case_target_not_in_area():
    """§6 アタック 4: 選んだ距離のアタックエリアにいる…プレイヤーから (distance 3, short)."""
    state = position(3, {0: {"equip": ["short_sword"], "area": 1},
                         1: {"equip": ["short_sword"], "area": 2},
                         2: {"equip": ["short_sword"], "area": 4}})
    state, _ = run(state, StartAttack(0, "short_sword", "short_sword_range"))
    return state, ChooseTarget(0, 2)


def _war_fan_areas():
    """§6 複数スキル: Gust chooses 2 areas of the mid attack area (areas 2, 3, 5, 6 from 1)."""
    return targets_stage("war_fan", ("war_fan",), declare=[("war_fan", "war_fan_gust")])


def case_areas_not_targets():
    return _war_fan_areas(), ChooseTarget(0, 1)


def case_targets_not_areas():
    return targets_stage("short_sword", ("short_sword",)), ChooseArea(0, 2)


def case_area_not_in_range():
    return _war_fan_areas(), ChooseArea(0, 4)          # distance 3


def case_area_already_chosen():
    state, _ = run(_war_fan_areas(), ChooseArea(0, 2))
    return state, ChooseArea(0, 2)


def case_area_no_target():
    """§6 複数スキル: プレイヤーがいないエリアも選べます — but not if nobody is chosen at all."""
    state, _ = run(_war_fan_areas(), ChooseArea(0, 3))
    return state, ChooseArea(0, 5)


def case_no_target_chosen():
    """§6 ターゲットの選択: one target at least."""
    return targets_stage("short_sword", ("short_sword",)), Done(0)


def case_unluck_not_enough():
    """§6 アンラック: アンラックチップを2枚持っているプレイヤーは…."""
    return duel(unluck=1), UseUnluck(0)


def case_unluck_not_now():
    """§6 アンラック: …アタックまたはカウンターでバトルチップを引く前に."""
    return duel(unluck=2), UseUnluck(0)


def _drawing():
    """Seat 0's attack on seat 1, one chip drawn, the choice to draw on (built directly)."""
    return with_attack(duel(), attacker=0, counter=False, card="short_sword",
                       range_skill="short_sword_range", stage="draw", targets=(1,),
                       skills=(("short_sword", "short_sword_range"),),
                       bag=("0", "1", "2", "2", "miss"), drawn=("0",))


def case_not_attacker():
    """§6 アタック 8: the attacker draws the chips."""
    state = _drawing()
    assert pending(state).kind == "draw"
    return state, Stop(1)


def case_no_draw_now():
    return duel(), Draw(0)


def case_counter_not_in_crit():
    """§6 カウンター: アタックの攻撃者が自分の使用できる距離のクリティカルエリアにいる場合
    (the attacker is at distance 1: Short counters, Mid — critical area 2 — does not)."""
    state = position(3, {0: {"equip": ["short_sword"], "area": 1},
                         1: {"equip": ["short_sword", "spear"], "area": 2}})
    b = state.battle
    state = attrs.evolve(state, battle=attrs.evolve(b, counter_queue=(1,), countered=0))
    assert pending(state).kind == "counter"
    return state, StartCounter(1, "spear", "spear_range")


# §5-4 ビルド / 公開確認 (R4, R7), with the build test cards and positions of test_build.py

def _build_cards() -> CardSet:
    from conftest import TEST_CARDS_PATH
    from rules.cards import load_cards
    return load_cards(TEST_CARDS_PATH)


def _confirmed():
    """Seat 0 has confirmed its build; seats 1 and 2 are building."""
    import test_build as TB
    state = TB.position(_build_cards())
    state, _ = run(state, *TB.build(0, "human", equip=("dagger",)), Confirm(0))
    return state


def case_build_confirmed():
    return _confirmed(), Assign(0, "iron_helm#1", "equip")


def case_not_confirmed():
    return _confirmed(), Unconfirm(1)


def case_builds_final():
    import test_build as TB
    state = TB.reveal_of(_build_cards(), ("iron_helm#1", "leather_cap#1", "dagger"))
    assert state.phase == Phase.REVEAL
    return state, Unconfirm(1)


def case_swap_not_in_violation():
    import test_build as TB
    state = TB.reveal_of(_build_cards(), ("iron_helm#1", "leather_cap#1", "boots#1"),
                         hand_extra=("ring#2",), materialize=("greaves#1", "ring#3"))
    return state, Swap(0, "boots#1", "ring#2")


# Typed actions (issue 14): a field of the wrong type is refused before the legal list.

def case_not_an_action():
    return duel(), "Move(0, 1)"


def case_bad_field():
    return duel(), Move(0, 1.0)


def case_number_out_of_range():
    return duel(), Move(0, 10 ** 5000)


def case_bad_zone():
    return _confirmed(), Assign(1, "boots#1", "wear")


def _cards_with_sweep_any() -> CardSet:
    """The battle test cards with Twin Blade's Sweep usable on attack or counter."""
    def fix(card):
        if card.id != "twin_blade":
            return card
        return attrs.evolve(card, skills=tuple(
            attrs.evolve(sk, timing="any") if sk.id == "twin_blade_sweep" else sk
            for sk in card.skills))
    return CardSet(families=BC.families, series=BC.series, races=BC.races, guilds=BC.guilds,
                   defense=BC.defense, attack=tuple(fix(c) for c in BC.attack))


CASES = {name[len("case_"):]: fn for name, fn in sorted(globals().items())
         if name.startswith("case_") and callable(fn)}


@pytest.mark.parametrize("code", sorted(CASES))
def test_refusal_code(code):
    """apply refuses the action of the position with exactly this code, an English reason
    built from the params, and the params its translations need."""
    state, action = CASES[code]()
    exc = refused(state, action)
    assert exc.code == code, f"{code}: refused as {exc.code}: {exc.reason}"
    assert exc.reason == refuse(state.cards, code, **exc.params).reason
    assert refusal(state, action).params == exc.params
    for lang in ("ja", "en"):
        text = refusal_text(state.cards, exc.code, exc.params, lang)
        assert "?" not in text and "{" not in text, text


def test_every_code_has_a_position():
    """A new code needs a position in this file (part 1's codes are pinned elsewhere; the
    generic "illegal" is the fallback, see the next test)."""
    assert set(REFUSAL_CODES) - set(CASES) - PART1_CODES == {"illegal"}
    assert not set(CASES) - set(REFUSAL_CODES)


def test_generic_fallback(monkeypatch):
    """Without a battle explanation the engine still refuses, with the generic code."""
    state, action = case_attack_after_move()
    monkeypatch.setattr(B, "explain", lambda *a: None)
    exc = refused(state, action)
    assert (exc.code, exc.reason) == ("illegal", "StartAttack is not legal now")


def test_old_reason_texts_still_match():
    """Scenario files match `reason_contains` against the English reason: the §6 reasons
    keep saying "<Action> is not legal now" (scenarios/battle/rest.toml,
    faq-no-attack-after-move.toml)."""
    for code in ("rest_after_action", "attack_after_move", "target_knocked_out"):
        state, action = CASES[code]()
        assert f"{type(action).__name__} is not legal now" in refused(state, action).reason


def test_reason_names_cards_and_skills():
    state, action = case_exclusive()
    exc = refused(state, action)
    assert exc.params["skill"] == "great_axe_fury" and exc.params["other_skill"] == "great_axe_rend"
    assert "All Out" in exc.reason and "Rend" in exc.reason
    state, action = case_requirements_not_met()
    exc = refused(state, action)
    assert exc.params["requires"] == {"str": 5} and exc.params["have"] == {"str": 3}


def test_refused_counter_with_the_crit_range_is_legal():
    """The counter_not_in_crit position is right next to a legal counter (Short)."""
    state, _ = case_counter_not_in_crit()
    assert StartCounter(1, "short_sword", "short_sword_range") in legal_actions(state)


# ----------------------------------------------------------------------- translations

def test_every_code_has_japanese_and_english_text():
    """Every code of rules.actions.REFUSALS has a text in both languages in the TUI
    catalog, using only params that the English reason uses too (or, for §6, the seat
    every battle refusal carries)."""
    keys = {k[len("illegal."):] for k in UI if k.startswith("illegal.")}
    assert keys == set(REFUSAL_CODES)
    for code in REFUSAL_CODES:
        texts = UI[f"illegal.{code}"]
        assert set(texts) == {"ja", "en"} and all(texts.values()), code
        assert re.search(r"[ぁ-んァ-ヶ一-龯]", texts["ja"]), f"{code}: no Japanese"
        english = set(re.findall(r"{(\w+)", REFUSALS[code]))
        if REFUSALS[code].startswith("{action} is not legal now"):
            english |= {"seat"}            # every §6 refusal carries the acting seat
        for lang in ("ja", "en"):
            used = set(re.findall(r"{(\w+)", texts[lang]))
            assert used <= english, f"{code} ({lang}) uses {used - english}"


@pytest.mark.parametrize("code", sorted(CASES))
def test_japanese_text_of_each_position(code):
    """The Japanese text of each position is Japanese, differs from the English one, and
    shows no raw id of a card or skill."""
    state, action = CASES[code]()
    exc = refused(state, action)
    ja = refusal_text(state.cards, exc.code, exc.params, "ja")
    en = refusal_text(state.cards, exc.code, exc.params, "en")
    assert ja != en and re.search(r"[ぁ-んァ-ヶ一-龯]", ja)
    for key in ("card", "skill", "other_skill"):
        if key in exc.params:
            raw = str(exc.params[key])
            assert raw not in ja and raw not in en, f"{code}: raw id {raw} shown"


def test_names_in_the_players_language():
    """Card and skill names, seats (from 1), stats and ranges in the player's language."""
    state, action = case_exclusive()
    exc = refused(state, action)
    assert refusal_text(BC, exc.code, exc.params, "ja") == \
        "《渾身》と《叩き割り》は同時に使えません（併用不可）"
    assert refusal_text(BC, exc.code, exc.params, "en") == \
        "All Out and Rend cannot be combined (exclusive)"
    state, action = case_requirements_not_met()
    exc = refused(state, action)
    assert refusal_text(BC, exc.code, exc.params, "ja") == \
        "《遠距離》の発動条件は腕力5です（最終能力値 腕力3）"
    state, action = case_target_not_in_area()
    exc = refused(state, action)
    assert refusal_text(BC, exc.code, exc.params, "ja") == \
        "席3は距離3にいて、近距離のアタックエリア（距離0〜1）の外です"
    assert refusal_params(BC, {"card": "no_such_card"}, "ja") == {"card": "no_such_card"}


# ------------------------------------------------------------- random battles (§6 all)

def _candidates(state) -> list:
    """Battle actions of every seat that a player might try now."""
    out: list = []
    for s in range(state.players):
        out += [Move(s, 1), Move(s, -1), Rest(s), EndTurn(s), Done(s), UseUnluck(s), Draw(s),
                Stop(s)]
        out += [ChooseTarget(s, t) for t in range(state.players)]
        out += [ChooseArea(s, x) for x in range(1, 7)]
        for c in state.seats[s].equipped:
            out += [StartAttack(s, c), StartCounter(s, c)]
            for sk in state.cards.card(c).skills:
                out += [StartAttack(s, c, sk.id), StartCounter(s, c, sk.id),
                        Declare(s, c, sk.id), Activate(s, c, sk.id)]
    return out


def _random_battle(seed: int, players: int):
    """A random game of the battle test cards up to its battle (random legal actions; in
    the build every seat equips what it can, so the battles have skills to refuse)."""
    rnd = random.Random(seed)
    state, _ = new_game(Config(players=players), BC, seed)
    while state.phase not in (Phase.BATTLE, Phase.OVER):
        legal = legal_actions(state)
        if state.phase == Phase.BUILD:
            equip = [a for a in legal if getattr(a, "to", None) == "equip"]
            conf = [a for a in legal if isinstance(a, Confirm)]
            action = rnd.choice(equip) if equip and rnd.random() < 0.8 else \
                (conf[0] if conf else rnd.choice(legal))
        else:
            action = rnd.choice(legal)
        state, _ = apply(state, action)
    return rnd, state


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_battles_explanations_agree_with_legal_actions(seed):
    """At every step of random battles: the battle's explanations never refuse a legal
    action, and every refused candidate gets a specific code, never the generic one."""
    rnd, state = _random_battle(seed, 3 + seed % 3)
    steps = 0
    codes: set[str] = set()
    while state.phase == Phase.BATTLE and steps < 150:
        legal = legal_actions(state)
        kind = pending(state).kind
        listed = set(legal)
        for a in _candidates(state):
            if a in listed:
                assert B.explain_early(state, a) is None, a
                if a.seat in pending(state).seats:
                    assert B.explain(state, a, kind) is None, a
            else:
                r = refusal(state, a)
                assert r.code != "illegal", f"{a} in {kind}: generic refusal"
                codes.add(r.code)
        state, _ = apply(state, rnd.choice(legal))
        steps += 1
    assert steps > 10 and len(codes) > 8
