"""§5-4 ビルド: race, equipment slots, material, the reveal (公開確認) and the processing
order (処理順)."""

from __future__ import annotations

from collections import Counter

import attrs
import pytest

from rules import IllegalAction, apply, legal_actions, observe, pending
from rules.engine import _seat_violations, in_violation
from rules.actions import Assign, ChooseRace, Confirm, Remove, Swap, Unconfirm
from rules.build import available_material, equip_cost, final_stats, violations
from rules.cards import Stats
from rules.events import (BuildConfirmed, BuildRevealed, CardMaterialized, CardRemoved,
                          DieRolled, OrderDecided)
from rules.state import Phase, Script

from conftest import (assert_cards_conserved, build_position, of_type, run, strings_in)

# start seat 0; guild material +1, +1, +2
GUILDS = ("iron_fist", "silver_owl", "red_lion")
RACES = {0: ("human", "elf"), 1: ("elf", "dwarf"), 2: ("catfolk", "giant")}


def refused(state, action, code=None):
    assert action not in legal_actions(state)
    snapshot = repr(state)
    with pytest.raises(IllegalAction) as info:
        apply(state, action)
    assert repr(state) == snapshot
    assert info.value.reason
    if code is not None:
        assert info.value.code == code, info.value.reason
    return info.value


def position(cards, hands=None, guilds=GUILDS, races=RACES, **config):
    hands = hands or {0: ("iron_helm#1", "leather_cap#1", "ring#1", "ring#2", "dagger"),
                      1: ("boots#1", "ring#3", "short_sword"),
                      2: ("ring#4", "amulet#1", "axe")}
    return build_position(cards, 3, hands=hands, races=races, guilds=guilds, **config)


def build(seat, race, equip=(), materialize=()):
    return ([ChooseRace(seat, race)] + [Assign(seat, c, "equip") for c in equip]
            + [Assign(seat, c, "materialize") for c in materialize])


def V(cards, equipped, available=99, race="human"):
    return tuple(v.code for v in violations(cards, race, tuple(equipped), available))


# ------------------------------------------------------------------------ race, material

def test_5_4_choose_one_of_two_race_candidates(cards):
    """§5-1/§5-4: 各プレイヤーは、ビルドフェーズで自分の候補から1枚を選びます."""
    state = position(cards)
    assert pending(state).kind == "build"
    assert pending(state).seats == (0, 1, 2)
    races = [a for a in legal_actions(state, 0) if isinstance(a, ChooseRace)]
    assert set(races) == {ChooseRace(0, "human"), ChooseRace(0, "elf")}
    refused(state, ChooseRace(0, "dwarf"), "bad_race")      # seat 1's candidate
    refused(state, ChooseRace(0, "orc"), "bad_race")        # dealt to nobody
    state, _ = apply(state, ChooseRace(0, "elf"))
    assert state.seats[0].race == "elf"
    # free to change until the build is declared final
    state, _ = apply(state, ChooseRace(0, "human"))
    assert state.seats[0].race == "human"


def test_5_4_the_cards_used_and_unused_lie_face_down_so_no_step_shows(cards):
    """§5-4: 各プレイヤーは、使用するカードと使用しないカードを分け、どちらも他のプレイヤー
    から見えないように伏せておきます. Another seat (or a spectator) sees the same before and
    after each of seat 0's hidden build steps — its hand's size counted with what it
    equips (before: the size fell with each card equipped) — until the reveal. A card
    materialized leaves the pile face up for the discard (R6): that, and only that, shows."""
    from rules.observe import observe_public
    state = position(cards)
    others = [lambda st: observe(st, 1), lambda st: observe(st, 2), observe_public]
    seen = [view(state) for view in others]
    assert seen[0].seats[0].hand_size == 5
    for action in build(0, "human", equip=("iron_helm#1", "ring#1", "dagger")) + \
            [Assign(0, "ring#1", "unused")]:
        state, events = apply(state, action)
        assert [view(state) for view in others] == seen, action
    assert observe(state, 0).seats[0].hand_size == 5          # (the same for the seat itself)
    assert len(state.seats[0].hand) == 3, state.seats[0].hand
    state, events = apply(state, Assign(0, "leather_cap#1", "materialize"))
    for view in others:
        seat0 = view(state).seats[0]
        assert seat0.hand_size == 4 and seat0.materialized == ("leather_cap#1",)
        assert seat0.equipped == () and seat0.race is None


def test_5_4_materialize_only_defense_cards(cards):
    """§5-4 マテリアル: 装備カードを捨てて獲得マテリアルを得る処理をマテリアル化 — defense cards
    carry material; attack cards have none and cannot be materialized."""
    state = position(cards)
    err = refused(state, Assign(0, "dagger", "materialize"), "attack_card_material")
    assert "attack" in err.reason
    state, _ = apply(state, Assign(0, "ring#1", "materialize"))
    assert state.seats[0].materialized == ("ring#1",)
    assert "ring#1" not in state.seats[0].hand
    assert Assign(0, "dagger", "equip") in legal_actions(state, 0)
    # an equipped attack card cannot be materialized either
    state, _ = apply(state, Assign(0, "dagger", "equip"))
    refused(state, Assign(0, "dagger", "materialize"), "attack_card_material")


def test_5_4_rematerializing_a_defense_card_is_not_called_an_attack_card(cards):
    """§5-4 / DESIGN "Legal actions": a refusal carries a reason the player can read — a
    materialized ring is not an attack card: it was materialized, for good (R6)."""
    state = position(cards)
    state, _ = apply(state, Assign(0, "ring#1", "materialize"))
    err = refused(state, Assign(0, "ring#1", "materialize"), "materialized_final")
    assert "attack" not in err.reason and "discard" in err.reason


@pytest.mark.parametrize("start", ["hand", "equipped"])
def test_5_4_materializing_is_a_public_discard_at_once_and_final(cards, start):
    """§5-4 マテリアル: 「装備カードを捨てて獲得マテリアルを得る処理をマテリアル化と呼びます。」
    「マテリアル化した装備カードは、表向きで装備カードの捨て山へ置きます。」「マテリアル化した
    カードは最終ビルドへ装備できません。」 (RULINGS R6): the card is in the public defense
    discard the moment it is materialized — every seat sees it there and in the seat's
    record — and it can never be equipped or taken back; the rest of the build stays
    hidden (「使用するカードと使用しないカードを分け、どちらも…伏せておきます」)."""
    state = position(cards)
    if start == "equipped":
        state, _ = apply(state, Assign(0, "ring#1", "equip"))
    state, events = apply(state, Assign(0, "ring#1", "materialize"))
    assert events == [CardMaterialized(0, "ring#1")] and not events[0].secret
    assert state.defense_discard == ("ring#1",)
    assert state.seats[0].materialized == ("ring#1",)
    assert "ring#1" not in state.seats[0].hand + state.seats[0].equipped
    for seat in (1, 2):
        obs = observe(state, seat)
        assert obs.defense_discard == ("ring#1",)
        assert obs.seats[0].materialized == ("ring#1",)
        assert obs.seats[0].equipped == ()            # the build itself stays hidden
    for to in ("equip", "unused", "materialize"):
        refused(state, Assign(0, "ring#1", to), "materialized_final")
    assert not [a for a in legal_actions(state, 0) if getattr(a, "card", None) == "ring#1"]
    assert available_material(cards, "iron_fist", state.seats[0].materialized) == 3 + 1
    assert_cards_conserved(state)


def test_5_4_assign_only_own_cards(cards):
    """§5-4: 自分の…取得した装備カード — another seat's card cannot go into a build."""
    state = position(cards)
    refused(state, Assign(0, "boots#1", "equip"), "card_not_owned")
    refused(state, Assign(0, "ring#9", "equip"))


# ----------------------------------------------------------------------- equip slots

def test_5_4_one_armor_per_part(cards):
    """§5-4 装備枠: 防具カードは、頭、胴、腕、脚の異なる部位だけを同時に装備できます."""
    assert V(cards, ["iron_helm#1", "leather_vest#1", "gloves#1", "boots#1"]) == ()
    assert V(cards, ["iron_helm#1", "leather_cap#1"]) == ("part",)
    (v,) = violations(cards, "human", ("iron_helm#1", "boots#1", "leather_cap#1"), 99)
    assert v.part == "head" and set(v.cards) == {"iron_helm#1", "leather_cap#1"}
    assert V(cards, ["boots#1", "greaves#1"]) == ("part",)


def test_5_4_accessories_unlimited(cards):
    """§5-4 / FAQ: アクセサリカードの装備枚数に上限はありません."""
    assert V(cards, ["ring#1", "amulet#1", "star_charm#1"]) == ()
    assert V(cards, ["ring#1", "amulet#1", "star_charm#1", "iron_helm#1", "chain_mail#1"]) == ()


def test_5_4_never_two_cards_of_one_name(cards):
    """§5-4 / FAQ: 同じ名前の装備カードは2枚以上同時に装備できません — even accessories, even with
    material to spare."""
    (v,) = violations(cards, "human", ("ring#1", "ring#2"), 99)
    assert v.code == "same_name" and set(v.cards) == {"ring#1", "ring#2"}
    assert V(cards, ["ring#1", "ring#2", "ring#3"]) == ("same_name",)
    assert "same_name" in V(cards, ["buckler#1", "buckler#2"])


def test_5_4_two_hand_slots(cards):
    """§5-4 手の装備枠: 各プレイヤーは、手の装備枠を2つ持ちます。片手武器と片手盾は…1つ、両手
    武器と両手盾は…2つ使用します / FAQ: 魔法カードは手の装備枠を使いません."""
    assert V(cards, ["dagger", "short_sword"]) == ()              # 1h + 1h weapons
    assert V(cards, ["dagger", "buckler#1"]) == ()                # 1h weapon + 1h shield
    assert V(cards, ["halberd"]) == ()                            # 2h weapon
    assert V(cards, ["tower_shield#1"]) == ()                     # 2h shield
    assert V(cards, ["halberd", "dagger"]) == ("hand_slots",)
    assert V(cards, ["halberd", "buckler#1"]) == ("hand_slots",)  # a shield counts
    assert V(cards, ["tower_shield#1", "dagger"]) == ("hand_slots",)
    assert V(cards, ["halberd", "long_bow"]) == ("hand_slots",)
    assert V(cards, ["dagger", "short_sword", "buckler#1"]) == ("hand_slots",)
    # magic takes no hand slot
    assert V(cards, ["halberd", "fire_bolt", "ice_lance"]) == ()
    assert V(cards, ["dagger", "buckler#1", "fire_bolt"]) == ()
    (v,) = violations(cards, "human", ("halberd", "dagger", "fire_bolt"), 99)
    assert (v.have, v.limit) == (3, 2)
    assert set(v.cards) == {"halberd", "dagger"}


def test_5_4_equip_cost_within_available_material(cards):
    """§5-4 マテリアル: 利用可能マテリアル（マテリアル化とギルド特性による追加分の合計）≧ 装備
    コスト（採用するディフェンスカードの合計）。アタックカードは装備コストを持たず."""
    assert available_material(cards, "iron_fist", ("ring#1", "greaves#1")) == 3 + 3 + 1
    assert available_material(cards, "black_stag", ()) == 3
    assert available_material(cards, "golden_hawk", ("ring#1",)) == 3
    equipped = ("iron_helm#1", "chain_mail#1", "halberd", "fire_bolt")   # 2 + 3 + 0 + 0
    assert equip_cost(cards, equipped) == 5
    assert V(cards, equipped, available=5) == ()
    (v,) = violations(cards, "human", equipped, 4)
    assert (v.code, v.have, v.limit) == ("material", 5, 4)
    # attack cards alone need no material
    assert V(cards, ["halberd", "fire_bolt", "ice_lance"], available=0) == ()
    assert V(cards, ["ring#1"], available=0) == ("material",)


def test_5_4_several_violations_reported_together(cards):
    """§5-4 公開確認: every broken rule is found."""
    codes = V(cards, ["ring#1", "ring#2", "iron_helm#1", "leather_cap#1", "halberd", "dagger"],
              available=0)
    assert set(codes) == {"same_name", "part", "hand_slots", "material"}
    assert V(cards, [], available=0, race=None) == ("no_race",)


def test_5_4_final_stats_race_plus_all_mods(cards):
    """§2 最終能力値 ＝ 種族カードの能力値 ＋ 装備中のカードによる能力値補正 / §5-4: 盾の防御補正
    は最終防御の計算に含めます."""
    stats = final_stats(cards, "human", ("tower_shield#1", "chain_mail#1", "ring#1", "dagger"))
    assert stats == Stats.of(mana=4, str=3, int=3, dex=3, def_=8, agi=2)
    assert final_stats(cards, "dwarf", ()) == cards.race("dwarf").stats
    assert final_stats(cards, "catfolk", ("buckler#1",))["def"] == 2 + 1
    assert final_stats(cards, "elf", ("boots#1", "gauntlets#1"))["agi"] == 3
    assert final_stats(cards, "elf", ("boots#1", "gauntlets#1"))["str"] == 3


# ------------------------------------------------------------------ hidden, confirm, lock

def test_5_4_builds_hidden_until_all_confirmed(cards):
    """§5-4: 使用するカードと使用しないカードを分け、どちらも他のプレイヤーから見えないように伏せて
    おきます。全員が確定を宣言した後に最終ビルドを公開します."""
    state = position(cards)
    state, events = run(state, *build(0, "elf", equip=("iron_helm#1", "dagger"),
                                      materialize=("ring#1",)))
    assert all(e.secret for e in events if not isinstance(e, CardMaterialized))
    secret = {"iron_helm#1", "dagger", "ring#2", "leather_cap#1", "elf"}   # ring#1: public
    for step in range(3):
        for i in (1, 2):
            obs = observe(state, i)
            assert obs.seats[0].race is None and obs.seats[0].equipped == ()
            assert obs.seats[0].material == 0
            assert not strings_in(obs) & (secret - {"elf"})
        own = observe(state, 0)
        assert own.race == "elf" and own.equipped == ("iron_helm#1", "dagger")
        assert own.materialized == ("ring#1",)
        if step == 0:
            state, _ = apply(state, Confirm(0))
            assert observe(state, 1).seats[0].confirmed      # the declaration is public
        elif step == 1:
            state, _ = run(state, ChooseRace(1, "dwarf"), Confirm(1))
    state, _ = run(state, ChooseRace(2, "giant"), Confirm(2))
    for i in (1, 2):
        view = observe(state, i).seats[0]
        assert view.race == "elf" and view.equipped == ("iron_helm#1", "dagger")
        assert view.material == 3 + 1


def test_5_4_confirm_needs_a_race(cards):
    """§5-4: 自分の種族カード候補と…組み合わせ — a build without a race cannot be declared."""
    state = position(cards)
    assert Confirm(0) not in legal_actions(state, 0)
    refused(state, Confirm(0), "no_race")
    state, _ = apply(state, ChooseRace(0, "human"))
    assert Confirm(0) in legal_actions(state, 0)


def test_5_4_confirmed_seat_may_take_it_back_until_everyone_confirmed(cards):
    """§5-4: 全員が最終ビルドの確定を宣言するまでは、自由に付け外しできます (docs/RULINGS.md R4):
    a confirmed seat changes nothing while confirmed, but may take the confirmation back
    (`Unconfirm`) and edit again while another seat has not confirmed."""
    state = position(cards)
    state, events = run(state, *build(0, "human", equip=("dagger", "iron_helm#1")), Confirm(0))
    assert BuildConfirmed(0) in events
    d = pending(state)
    assert (d.seats, d.optional) == ((1, 2), (0,))       # not waited for, but may act
    assert legal_actions(state, 0) == [Unconfirm(0)]
    assert Unconfirm(0) in legal_actions(state)
    assert not [a for a in legal_actions(state) if isinstance(a, Unconfirm) and a.seat != 0]
    # while confirmed, nothing changes
    for action in (Assign(0, "dagger", "unused"), Assign(0, "ring#1", "equip"),
                   ChooseRace(0, "elf"), Confirm(0)):
        assert "Unconfirm" in refused(state, action, "build_confirmed").reason
    refused(state, Unconfirm(1), "not_confirmed")        # seat 1 has nothing to take back
    # take it back: the build is as it was, and editable again
    state, events = apply(state, Unconfirm(0))
    assert events == [BuildConfirmed(0, confirmed=False)]
    assert not state.seats[0].confirmed
    assert state.seats[0].equipped == ("dagger", "iron_helm#1") and state.seats[0].race == "human"
    assert pending(state).seats == (0, 1, 2) and pending(state).optional == ()
    refused(state, Unconfirm(0), "not_confirmed")
    state, _ = run(state, Assign(0, "iron_helm#1", "unused"), Assign(0, "leather_cap#1", "equip"),
                   ChooseRace(0, "elf"), Confirm(0))
    # a seat that confirms after another took its confirmation back may take its own back too
    state, _ = run(state, ChooseRace(1, "dwarf"), Confirm(1), Unconfirm(1), Confirm(1))
    state, events = run(state, ChooseRace(2, "giant"), Confirm(2))
    (r0,) = [e for e in of_type(events, BuildRevealed) if e.seat == 0]
    assert (r0.race, r0.equipped) == ("elf", ("dagger", "leather_cap#1"))


def test_5_4_taking_a_confirmation_back_shows_others_only_that(cards):
    """§5-4: 使用するカードと使用しないカードを分け、どちらも他のプレイヤーから見えないように伏せて
    おきます — the declaration and its withdrawal are public, the build stays hidden."""
    state = position(cards)
    state, _ = run(state, *build(0, "elf", equip=("iron_helm#1", "dagger"),
                                 materialize=("ring#1",)), Confirm(0))
    state, events = apply(state, Unconfirm(0))
    assert all(not e.secret for e in events)             # everyone learns it, and only it
    assert not strings_in(events)                        # no card, no race
    secret = {"iron_helm#1", "dagger", "ring#2", "leather_cap#1", "elf"}   # ring#1: public
    for i in (1, 2):
        obs = observe(state, i)
        assert not obs.seats[0].confirmed
        assert obs.seats[0].race is None and obs.seats[0].equipped == ()
        assert not strings_in(obs) & (secret - {"elf"})
        assert obs.legal and not [a for a in obs.legal if a.seat != i]
    assert observe(state, 0).legal and Unconfirm(0) not in observe(state, 0).legal
    state, _ = apply(state, Confirm(0))
    assert observe(state, 1).seats[0].confirmed
    assert observe(state, 0).legal == (Unconfirm(0),)


def test_5_4_after_everyone_confirmed_nothing_changes(cards):
    """§5-4 確定後は、公開確認中を含め、そのバトルが終了するまで構成を変更できません / §8 FAQ
    (R4): once every seat has confirmed — in the reveal and in the battle — nobody can take
    a confirmation back or edit a build."""
    state = position(cards)
    # seat 0: two head armors, found at the reveal
    state, _ = run(state, *build(0, "human", equip=("iron_helm#1", "leather_cap#1", "dagger"),
                                 materialize=("ring#1",)), Confirm(0))
    state, _ = confirm_all(state, {1: ("elf", ("short_sword",), ()),
                                   2: ("giant", ("axe",), ())})
    assert state.phase == Phase.REVEAL and pending(state).optional == ()
    assert not [a for a in legal_actions(state) if isinstance(a, Unconfirm)]
    for seat in (0, 1, 2):
        refused(state, Unconfirm(seat), "builds_final")
    refused(state, Assign(0, "leather_cap#1", "unused"), "builds_final")
    refused(state, Assign(1, "ring#3", "equip"), "builds_final")
    refused(state, ChooseRace(0, "elf"), "builds_final")
    state, _ = apply(state, Remove(0, "leather_cap#1"))
    assert state.phase == Phase.BATTLE
    refused(state, Unconfirm(0), "builds_final")
    refused(state, Assign(1, "ring#3", "equip"), "builds_final")


# ------------------------------------------------------------------------- the reveal

def confirm_all(state, builds):
    actions = []
    for seat, (race, equip, mat) in builds.items():
        actions += build(seat, race, equip, mat) + [Confirm(seat)]
    return run(state, *actions)


def test_5_4_reveal_in_seat_order_from_start_seat(cards):
    """§5-4 公開確認: 全員が最終ビルドを確定した後、スタートプレイヤーから時計回りに1人ずつ公開
    します."""
    state = position(cards, guilds=("red_lion", "blue_wolf", "iron_fist"))   # start: seat 2
    assert state.start_seat == 2
    # confirmed in another order than the reveal's
    state, events = confirm_all(state, {1: ("elf", ("short_sword",), ()),
                                        0: ("human", ("dagger",), ()),
                                        2: ("giant", ("axe",), ())})
    revealed = of_type(events, BuildRevealed)
    assert [e.seat for e in revealed] == [2, 0, 1]
    assert revealed[1] == BuildRevealed(0, "human", ("dagger",), (), ())
    assert state.phase in (Phase.BATTLE, Phase.OVER)
    assert all(s.revealed for s in state.seats)


def test_5_4_materialized_cards_are_in_the_discard_before_the_reveal(cards):
    """§5-4: マテリアル化した装備カードは、表向きで装備カードの捨て山へ置きます — at once, not
    at the reveal (RULINGS R6); the available material is fixed at the reveal."""
    state = position(cards)
    state, _ = run(state, *build(0, "human", equip=("iron_helm#1", "dagger"),
                                 materialize=("ring#1", "leather_cap#1")))
    assert Counter(state.defense_discard) == Counter(["ring#1", "leather_cap#1"])
    state, _ = confirm_all(state, {1: ("elf", (), ()), 2: ("giant", (), ())})
    assert state.phase == Phase.BUILD
    state, events = apply(state, Confirm(0))
    assert Counter(state.defense_discard) == Counter(["ring#1", "leather_cap#1"])   # once
    s0 = state.seats[0]
    assert set(s0.materialized) == {"ring#1", "leather_cap#1"} and s0.material == 3 + 1 + 1
    assert s0.equipped == ("iron_helm#1", "dagger")
    assert ("ring#2",) == s0.hand      # unused cards stay with the seat
    (r0,) = [e for e in of_type(events, BuildRevealed) if e.seat == 0]
    assert set(r0.materialized) == {"ring#1", "leather_cap#1"} and r0.violations == ()
    assert_cards_conserved(state)


def test_5_4_violating_build_removes_cards_until_legal(cards):
    """§5-4 公開確認: ルール違反が見つかった場合は、残ったビルドがすべてのルールを満たすまで、
    違反したプレイヤーがカードを選んで外します。外したカードは対応する捨て山へ置き、代わりのカードは
    採用できません."""
    hands = {0: ("iron_helm#1", "leather_cap#1", "ring#1", "ring#2", "greaves#1", "halberd",
                 "dagger"),
             1: ("boots#1", "short_sword"), 2: ("ring#4", "axe")}
    state = position(cards, hands=hands)
    # two helmets, two rings, 2h + 1h weapons; cost 2+1+1+1 = 5 > 3 (greaves) + 1
    state, _ = run(state, *build(0, "human",
                                 equip=("iron_helm#1", "leather_cap#1", "ring#1", "ring#2",
                                        "halberd", "dagger"),
                                 materialize=("greaves#1",)), Confirm(0))
    state, events = confirm_all(state, {1: ("elf", ("short_sword",), ()),
                                        2: ("giant", ("axe",), ())})
    assert state.phase == Phase.REVEAL
    (r0,) = of_type(events, BuildRevealed)          # seats 1 and 2 wait their turn
    assert r0.seat == 0
    assert set(r0.violations) == {"part", "same_name", "hand_slots", "material"}
    assert pending(state).kind == "reveal_fix" and pending(state).seats == (0,)
    assert set(legal_actions(state)) == {Remove(0, c) for c in state.seats[0].equipped}
    assert observe(state, 1).seats[2].equipped == ()   # seat 2 not revealed yet
    refused(state, Remove(1, "short_sword"), "not_your_turn")
    refused(state, Swap(0, "ring#2", "ring#1"))        # no replacement in the normal game
    # remove one helmet: still illegal
    state, events = apply(state, Remove(0, "leather_cap#1"))
    assert CardRemoved(0, "leather_cap#1") in events
    assert "leather_cap#1" in state.defense_discard
    assert state.phase == Phase.REVEAL and pending(state).seats == (0,)
    state, _ = apply(state, Remove(0, "ring#2"))
    assert state.phase == Phase.REVEAL
    state, events = apply(state, Remove(0, "halberd"))
    assert "halberd" in state.attack_discard            # an attack card to the attack discard
    assert "halberd" not in state.seats[0].hand
    # legal now: the reveal goes on with seats 1 and 2
    assert [e.seat for e in of_type(events, BuildRevealed)] == [1, 2]
    assert state.phase in (Phase.BATTLE, Phase.OVER)
    assert state.seats[0].equipped == ("iron_helm#1", "ring#1", "dagger")
    assert_cards_conserved(state)


def reveal_of(cards, equip, hand_extra=(), materialize=(), race="human"):
    """Seat 0 confirms `equip` (+ `materialize`), the others a legal build; the reveal
    begins with seat 0 (start seat) in the first-game variant."""
    hands = {0: tuple(equip) + tuple(hand_extra) + tuple(materialize),
             1: ("short_sword",), 2: ("axe",)}
    state = position(cards, hands=hands, reveal_swap=True)
    state, _ = run(state, *build(0, race, equip, materialize), Confirm(0))
    state, _ = confirm_all(state, {1: ("elf", ("short_sword",), ()), 2: ("giant", ("axe",), ())})
    return state


def swappable(state, seat=0):
    return {a.card for a in legal_actions(state) if isinstance(a, Swap) and a.seat == seat}


def test_5_4_reveal_swap_only_the_card_found_in_violation(cards):
    """§5-4 公開確認: 初めて遊ぶプレイヤーがいる場合は…公開確認でルール違反が見つかったカードを、
    使用しないカードと入れ替えることを認めても構いません (R7): only a card found in violation is
    swapped, for any unused card, and it goes back among the unused cards."""
    state = reveal_of(cards, ("iron_helm#1", "leather_cap#1", "dagger"), hand_extra=("ring#2",),
                      materialize=("ring#1",))
    assert pending(state).kind == "reveal_fix"
    legal = set(legal_actions(state))
    assert {a for a in legal if isinstance(a, Swap)} == {
        Swap(0, "iron_helm#1", "ring#2"), Swap(0, "leather_cap#1", "ring#2")}
    assert {Remove(0, c) for c in ("iron_helm#1", "leather_cap#1", "dagger")} <= legal
    # control: the dagger breaks no rule and cannot be swapped
    err = refused(state, Swap(0, "dagger", "ring#2"), "swap_not_in_violation")
    assert "violation" in err.reason
    refused(state, Swap(0, "leather_cap#1", "short_sword"), "bad_card")  # not seat 0's card
    discard = state.defense_discard
    state, events = apply(state, Swap(0, "leather_cap#1", "ring#2"))
    assert CardRemoved(0, "leather_cap#1", "ring#2") in events
    assert set(state.seats[0].equipped) == {"iron_helm#1", "dagger", "ring#2"}
    assert state.seats[0].hand == ("leather_cap#1",)          # back among the unused cards
    assert state.defense_discard == discard                   # nothing discarded by a swap
    assert state.phase in (Phase.BATTLE, Phase.OVER)
    assert_cards_conserved(state)


@pytest.mark.parametrize("equip, extra, found", [
    # same name: both rings
    (("ring#1", "ring#2", "dagger"), ("amulet#1",), {"ring#1", "ring#2"}),
    # one part twice: both head armors, not the boots
    (("iron_helm#1", "leather_cap#1", "boots#1"), ("ring#1",), {"iron_helm#1", "leather_cap#1"}),
    # more than 2 hand slots: the weapons and the shield, not the magic
    (("halberd", "dagger", "fire_bolt"), ("buckler#1",), {"halberd", "dagger"}),
    (("dagger", "mace", "buckler#1", "fire_bolt"), ("ring#1",), {"dagger", "mace", "buckler#1"}),
    # cost 2 + 3 over material 0 + 1: the cards with an equip cost, not the weapon
    (("iron_helm#1", "chain_mail#1", "dagger"), ("ring#1",), {"iron_helm#1", "chain_mail#1"}),
], ids=["same_name", "part", "hand_slots", "hand_slots_shield", "material"])
def test_5_4_reveal_swap_card_found_in_violation_per_rule(cards, equip, extra, found):
    """§5-4 公開確認 (R7) 「ルール違反が見つかったカード」 for each rule of 装備枠 / 手の装備枠 /
    マテリアル: the cards the broken rule names (engine.in_violation)."""
    material = () if "chain_mail#1" in equip else ("greaves#1", "ring#3")   # 3 + 3 + 1
    state = reveal_of(cards, equip, hand_extra=extra, materialize=material)
    assert pending(state).kind == "reveal_fix" and pending(state).seats == (0,)
    assert len(_seat_violations(state, 0)) == 1
    assert set(in_violation(state, 0)) == found
    assert swappable(state) == found
    for c in set(equip) - found:
        refused(state, Swap(0, c, extra[0]), "swap_not_in_violation")


def test_5_4_reveal_swap_until_legal_and_swapped_out_cards_are_unused(cards):
    """§5-4 公開確認 (R7): a swap that leaves the build illegal keeps the owner fixing it;
    what is found in violation is judged on the build as it is now, and a card swapped
    out is an unused card like the others."""
    # cost 2 + 3 = 5 > 0 + 1; unused: a ring (cost 1) and greaves (cost 1)
    state = reveal_of(cards, ("iron_helm#1", "chain_mail#1", "dagger"),
                      hand_extra=("ring#1", "greaves#1"))
    state, _ = apply(state, Swap(0, "chain_mail#1", "ring#1"))     # cost 2 + 1 = 3 > 1
    assert state.phase == Phase.REVEAL and pending(state).seats == (0,)
    assert set(state.seats[0].hand) == {"chain_mail#1", "greaves#1"}
    assert swappable(state) == {"iron_helm#1", "ring#1"}
    assert {a.replacement for a in legal_actions(state) if isinstance(a, Swap)} == \
        {"chain_mail#1", "greaves#1"}
    state, _ = apply(state, Remove(0, "iron_helm#1"))              # cost 1 = 1: legal
    assert state.phase in (Phase.BATTLE, Phase.OVER)
    assert "iron_helm#1" in state.defense_discard                  # a removal still discards
    assert set(state.seats[0].hand) == {"chain_mail#1", "greaves#1"}
    assert_cards_conserved(state)


def test_5_4_no_swap_without_the_variant(cards):
    """§5-4 公開確認: 代わりのカードは採用できません — by default only Remove is offered."""
    state = position(cards)
    state, _ = run(state, *build(0, "human", equip=("iron_helm#1", "leather_cap#1"),
                                 materialize=("ring#1",)), Confirm(0))
    state, _ = confirm_all(state, {1: ("elf", (), ()), 2: ("giant", (), ())})
    assert pending(state).kind == "reveal_fix"
    assert not [a for a in legal_actions(state) if isinstance(a, Swap)]


def test_5_4_material_violation_found_at_reveal(cards):
    """§5-4 公開確認: 利用可能マテリアル・装備コスト are checked; exactly enough is legal."""
    hands = {0: ("amulet#1", "iron_helm#1", "dagger"), 1: ("chain_mail#1", "ring#3"),
             2: ("ring#4",)}
    state = position(cards, hands=hands)
    # seat 0: cost 2 + 2 = 4 > 0 + 1 → illegal; seat 1: cost 3 ≤ 3 + 1 → legal
    state, _ = run(state, *build(0, "human", equip=("amulet#1", "iron_helm#1", "dagger")),
                   Confirm(0))
    state, events = confirm_all(state, {1: ("elf", ("chain_mail#1",), ("ring#3",)),
                                        2: ("giant", (), ())})
    (r0,) = of_type(events, BuildRevealed)
    assert r0.violations == ("material",)
    state, _ = apply(state, Remove(0, "amulet#1"))
    assert state.phase == Phase.REVEAL       # 2 > 1 still
    state, events = apply(state, Remove(0, "iron_helm#1"))
    revealed = {e.seat: e for e in of_type(events, BuildRevealed)}
    assert revealed[1].violations == ()
    assert state.seats[0].equipped == ("dagger",)
    assert state.phase in (Phase.BATTLE, Phase.OVER)


# -------------------------------------------------------------------- processing order

def order_dice(events):
    return [(e.seat, e.value) for e in of_type(events, DieRolled) if e.reason == "order"]


def test_5_4_processing_order_by_final_agility(cards):
    """§5-4: 公開された最終敏捷が高いプレイヤーから順に処理順チップを受け取ります — final agility,
    equipment included."""
    hands = {0: ("chain_mail#1", "ring#1", "dagger"), 1: ("boots#1", "ring#2"), 2: ("ring#3",)}
    state = position(cards, hands=hands)
    # seat 0 human 3 − 1 = 2; seat 1 elf 2 + 1 = 3; seat 2 catfolk 5
    state, events = confirm_all(state, {0: ("human", ("chain_mail#1", "dagger"), ("ring#1",)),
                                        1: ("elf", ("boots#1",), ()),
                                        2: ("catfolk", (), ())})
    assert of_type(events, OrderDecided) == [OrderDecided((2, 1, 0))]
    assert state.order == (2, 1, 0)
    assert order_dice(events) == []
    assert state.phase == Phase.BATTLE


def test_5_4_agility_tie_settled_by_dice_among_tied_only(cards):
    """§5-4: 最終敏捷が同じプレイヤーが6面サイコロを振り、出目が大きいプレイヤーを先にする — only
    the tied seats roll."""
    state = position(cards, races={0: ("catfolk", "elf"), 1: ("human", "elf"),
                                   2: ("lizardman", "elf")})
    state = attrs.evolve(state, script=Script(dice=(2, 6)))
    # seat 0: agility 5; seats 1, 2: agility 3
    state, events = confirm_all(state, {0: ("catfolk", ("dagger",), ()),
                                        1: ("human", ("short_sword",), ()),
                                        2: ("lizardman", ("axe",), ())})
    assert order_dice(events) == [(1, 2), (2, 6)]
    assert state.order == (0, 2, 1)


def test_5_4_agility_tie_rerolled_until_settled(cards):
    """§5-4: 同じ出目のプレイヤーだけで、決まるまで振り直す."""
    state = position(cards, races={0: ("human", "elf"), 1: ("human", "elf"),
                                   2: ("lizardman", "elf")})
    # all three at agility 3: rolls 4, 4, 1 → seat 2 last; seats 0, 1 re-roll 5, 5 then 2, 3
    state = attrs.evolve(state, script=Script(dice=(4, 4, 1, 5, 5, 2, 3)))
    state, events = confirm_all(state, {0: ("human", ("dagger",), ()),
                                        1: ("human", ("short_sword",), ()),
                                        2: ("lizardman", ("axe",), ())})
    assert order_dice(events) == [(0, 4), (1, 4), (2, 1), (0, 5), (1, 5), (0, 2), (1, 3)]
    assert state.order == (1, 0, 2)


@pytest.mark.parametrize("seed", range(20))
def test_5_4_agility_tie_order_follows_rolls(cards, seed):
    """§5-4 処理順 with the state's RNG: whatever the dice, the order sorts by agility, then
    by the tied seats' last distinguishing rolls, high first."""
    state = position(cards, races={0: ("human", "elf"), 1: ("human", "elf"),
                                   2: ("lizardman", "elf")}, seed=seed)
    state, events = confirm_all(state, {0: ("human", ("dagger",), ()),
                                        1: ("human", ("short_sword",), ()),
                                        2: ("lizardman", ("axe",), ())})
    rolls = order_dice(events)
    assert [s for s, _ in rolls[:3]] == [0, 1, 2]
    assert all(1 <= v <= 6 for _, v in rolls)

    def rank(group, rolls):
        """Replay the rolls: group members roll in seat order; equal rolls re-roll."""
        if len(group) == 1:
            return group, rolls
        got = dict(rolls[:len(group)])
        assert sorted(got) == sorted(group), "only the tied seats roll"
        rolls = rolls[len(group):]
        out = []
        for value in sorted(set(got.values()), reverse=True):
            sub, rolls = rank([s for s in group if got[s] == value], rolls)
            out += sub
        return out, rolls

    expected, left = rank([0, 1, 2], rolls)
    assert left == []
    assert list(state.order) == expected
