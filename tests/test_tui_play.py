"""Found by playing whole games at 80×24 (issue 15 "not done until"): what the screens
told a player that the game then did otherwise."""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

from rules.cards import load_cards
from tactical_tui.i18n import t
from tactical_tui.screens import BattleScreen, BuildScreen

SHIPPED = load_cards()


def _fake(lang: str, equipped: tuple, phase: str = "build"):
    """The parts of a seat's view that BuildScreen.check_text / BattleScreen.info_text
    read: a Fairy (Int 5) with `equipped`."""
    me = NS(material=0, race="fairy", guild="white_wolf", confirmed=False, mana=5,
            trait_used=False, seat=0)
    obs = NS(seats=[me], phase=phase, materialized=(), equipped=equipped, race="fairy",
             pending=NS(kind="build", seats=(0,)), battle=None, seat=0)
    fake = NS(cards=SHIPPED, lang=lang, seat=0, obs=obs, tr=lambda key, **kw: t(key, lang, **kw))
    fake.violation_text = lambda v: BuildScreen.violation_text(fake, v)
    return fake, obs


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_a_series_card_alone_shows_its_skills_as_not_working(lang):
    """§5-4 シリーズ効果: Starfall (Stargazer series) equipped alone has no skills in the
    battle (rules.battle.series_active), so no Starfall attack is offered. The build check
    listed "Usable skills: Long Range, Meteor Shower" and the battle's build panel
    "✓Long Range ✓Meteor Shower" all the same; with a second Stargazer card they work."""
    fake, obs = _fake(lang, ("starfall",))
    starfall = SHIPPED.card("starfall")
    names = [sk.name.get(lang) for sk in starfall.skills]
    check = BuildScreen.check_text(fake, obs).plain
    usable = next(x for x in check.splitlines() if x.startswith(t("build.skills", lang)))
    assert not any(n in usable for n in names), usable
    series = t("build.series_off", lang, card=starfall.name.get(lang),
               series="星詠み" if lang == "ja" else "Stargazer", have=1)
    assert series in check
    info = BattleScreen.info_text(fake).plain
    row = next(x for x in info.splitlines() if starfall.name.get(lang) in x)
    assert "✓" not in row and all("✗" + n in row for n in names), row

    fake, obs = _fake(lang, ("starfall", "stargazer_robe#1"))
    check = BuildScreen.check_text(fake, obs).plain
    usable = next(x for x in check.splitlines() if x.startswith(t("build.skills", lang)))
    assert names[0] in usable and t("build.series_off", lang, card="", series="", have=0)[:6] not in check
    info = BattleScreen.info_text(fake).plain
    row = next(x for x in info.splitlines() if starfall.name.get(lang) in x)
    assert "✓" + names[0] in row, row
