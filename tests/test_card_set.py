"""The shipped card set (cards.toml) against rulebook §4 / §7 and the card-set issue."""

from __future__ import annotations

from collections import Counter

import pytest

from rules import Config, new_game
from rules.build import violations
from rules.cards import EFFECT_KINDS, default_cards
from rules.engine import copies_of
from tactical_tui.text.cardtext import effect_text, skill_text


@pytest.fixture(scope="module")
def cards():
    return default_cards()


def test_7_counts(cards):
    """§7: 10 races, 7 guilds; 115 defense cards (70 initial, 45 standard); 65 attack
    cards: 59 weapons and 6 magic, 20 of them in the initial set."""
    assert len(cards.races) == 10
    assert sorted(g.number for g in cards.guilds) == list(range(1, 8))
    assert sum(c.copies for c in cards.defense) == 115
    assert sum(c.copies for c in cards.defense if not c.star) == 70
    assert sum(c.copies for c in cards.defense if c.star) == 45
    assert len(cards.attack) == 65
    assert Counter(c.type for c in cards.attack) == {"weapon": 59, "magic": 6}
    assert sum(not c.star for c in cards.attack) == 20


def test_7_kinds_of_defense(cards):
    """§2: armor for each part, one- and two-handed shields, accessories."""
    parts = {c.part for c in cards.defense if c.type == "armor"}
    assert parts == {"head", "body", "arms", "legs"}
    assert {c.hands for c in cards.defense if c.type == "shield"} == {1, 2}
    assert any(c.type == "accessory" for c in cards.defense)
    assert {c.hands for c in cards.attack if c.type == "weapon"} == {1, 2}


def test_every_bid_value_present(cards):
    """§5-3: bid values 1..5, every one present in the deck."""
    assert {c.bid for c in cards.defense} == {1, 2, 3, 4, 5}


def test_ids_unique_and_references_resolve(cards):
    ids = [x.id for group in (cards.families, cards.series, cards.races, cards.guilds,
                              cards.defense, cards.attack) for x in group]
    assert len(ids) == len(set(ids))
    fams = {f.id for f in cards.families}
    series = {s.id for s in cards.series}
    for c in cards.defense + cards.attack:
        assert c.series is None or c.series in series
        for sk in c.skills:
            assert sk.family in fams


# Effect kinds the rules support that the shipped set does not use yet: cause_crit
# (RULINGS R28) came with issue 13 point 7, whose cards wait for a balance re-run; it is
# pinned with tests/data/battle_cards.toml and inline scenario cards.
NOT_YET_SHIPPED = {"cause_crit"}


def test_every_effect_kind_and_family_used(cards):
    skills = [sk for c in cards.defense + cards.attack for sk in c.skills]
    assert {sk.effect.kind for sk in skills} == set(EFFECT_KINDS) - NOT_YET_SHIPPED
    assert {sk.family for sk in skills} == {f.id for f in cards.families}
    for s in cards.series:
        assert sum(1 for c in cards.defense + cards.attack if c.series == s.id) >= 2
    assert any(sk.continuous for sk in skills)
    assert any(c.series for c in cards.defense + cards.attack)


def test_both_languages(cards):
    for group in (cards.families, cards.series, cards.races, cards.guilds, cards.defense,
                  cards.attack):
        for x in group:
            assert x.name.ja.strip() and x.name.en.strip()
    for c in cards.defense + cards.attack:
        for sk in c.skills:
            for lang in ("ja", "en"):
                assert sk.name.get(lang).strip()
                assert skill_text(cards, sk, lang).strip()


def test_rules_text_follows_effect_data(cards):
    """The skill text is generated from the effect, so the numbers in it are the numbers
    the rules use."""
    for c in cards.defense + cards.attack:
        for sk in c.skills:
            e = sk.effect
            for lang in ("ja", "en"):
                text = effect_text(e, sk.timing, lang)
                for n in (e.count, e.amount, e.value):
                    if n is not None:
                        assert str(n) in text, (sk.id, lang, text)


def test_4_first_game_deals_only_initial_cards(cards):
    """§4: the first game uses only cards without the star mark; races as usual."""
    defense, attack = copies_of(cards, first_game=True)
    assert len(defense) == 70 and len(attack) == 20
    state, _ = new_game(Config(players=5, first_game=True), cards, seed=3)
    on_table = state.defense_deck + state.attack_deck + sum((s.hand for s in state.seats), ())
    on_table += state.bidding.current + state.bidding.upcoming
    assert all(not cards.card(c).star for c in on_table)
    assert len({r for s in state.seats for r in s.race_candidates}) == 10


def test_every_race_has_an_initial_build(cards):
    """Every race can make a legal build with an initial-set attack card whose range skill
    its stats (race + that build) meet, with no material at all."""
    for race in cards.races:
        ok = False
        for a in cards.attack:
            if a.star:
                continue
            build = (a.id,)
            from rules.build import final_stats
            stats = final_stats(cards, race.id, build)
            if not violations(cards, race.id, build, 0) and any(
                    sk.effect.kind == "range" and sk.requires.met_by(stats) and a.series is None
                    for sk in a.skills):
                ok = True
                break
        assert ok, race.id
