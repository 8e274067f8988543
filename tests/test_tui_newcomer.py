"""A newcomer's first game (issue 32): what the screens say is whole, one spelling, and
says what it means — the reveal check's empty lists, the stats' abbreviations, the card a
hint names, the AI's reasons, text at 80×24."""

from __future__ import annotations

import pytest

from rules import events as E
from rules.cards import default_cards
from tactical_tui.text import Describer

CARDS = default_cards()


@pytest.mark.parametrize("lang, none", [("en", "none"), ("ja", "なし")])
def test_the_reveal_check_says_none_for_an_empty_list(lang, none):
    """Point 10: a build that materialized nothing (or equipped nothing) says so in both
    languages; in Japanese the list was blank (「装備  / マテリアル化  — 違反なし」)."""
    d = Describer(CARDS, lang)
    line = d.describe(E.BuildRevealed(seat=0, race=CARDS.races[0].id, equipped=(),
                                      materialized=(), violations=()))
    equipped, materialized = {"en": ("equipped", "materialized"),
                              "ja": ("装備", "マテリアル化")}[lang]
    assert f"{equipped} {none} / {materialized} {none} — " in line, line
