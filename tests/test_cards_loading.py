"""Card data (DESIGN.md "Card data"): bad data stops loading with one CardDataError whose
message names the file, the card id and the field — never a traceback."""

from __future__ import annotations

import re

import pytest

from rules.cards import CardDataError, CardSet, load_cards, parse_cards

from conftest import TEST_CARDS_PATH

SOURCE = "x.toml"

# Anchors: unique pieces of tests/data/test_cards.toml and what replaces them.
HELM = 'id = "iron_helm"\nname = { ja = "アイアンヘルム", en = "Iron Helm" }\ntype = "armor"\n' \
       'part = "head"\ncost = 2\nbid = 3\nmaterial = 2\ncopies = 4\n'
SPEAR_CHIPS = 'id = "spear"\nname = { ja = "spear", en = "Spear" }\ntype = "weapon"\nhands = 1\n' \
              'chips = [0, 0, 1, 2, 2]\n'
BOW_FAMILY = 'id = "bow_range"\nname = { ja = "遠距離", en = "Long" }\nfamily = "range"\n'
BOOTS = 'id = "boots"\nname = { ja = "ブーツ", en = "Boots" }\ntype = "armor"\npart = "legs"\n'
GREAVES_MAT = 'id = "greaves"\nname = { ja = "グリーヴ", en = "Greaves" }\ntype = "armor"\n' \
              'part = "legs"\ncost = 2\nbid = 5\nmaterial = 3\n'
AMULET_MODS = 'copies = 3\nstar = false\nmods = { int = 1 }\n'
HALBERD_HANDS = 'id = "halberd"\nname = { ja = "halberd", en = "Halberd" }\ntype = "weapon"\n' \
                'hands = 2\n'
CLOAK_STAR = 'id = "star_cloak"\nname = { ja = "スタークローク", en = "Star Cloak" }\n' \
             'type = "armor"\npart = "body"\ncost = 2\nbid = 5\nmaterial = 2\ncopies = 3\n' \
             'star = true\n'
ELF_NAME = 'id = "elf"\nname = { ja = "エルフ", en = "Elf" }\n'
AMETHYST_NO = 'id = "amethyst"\nnumber = 5\n'


def variant(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"anchor not unique in the test cards: {old!r}"
    return text.replace(old, new)


# (case, anchor, replacement, card id, field named in the message)
BROKEN = [
    ("missing_field", HELM, HELM.replace("cost = 2\n", ""), "iron_helm", "cost"),
    ("misspelt_required_field", HELM, HELM.replace("cost = 2", "cots = 2"), "iron_helm",
     "cost"),
    ("misspelt_optional_field", AMULET_MODS, AMULET_MODS.replace("mods =", "mod ="), "amulet",
     "mod"),
    ("string_for_cost", HELM, HELM.replace("cost = 2", 'cost = "2"'), "iron_helm", "cost"),
    ("bid_value_0", HELM, HELM.replace("bid = 3", "bid = 0"), "iron_helm", "bid"),
    ("bid_value_6", HELM, HELM.replace("bid = 3", "bid = 6"), "iron_helm", "bid"),
    ("four_point_chips", SPEAR_CHIPS, SPEAR_CHIPS.replace("[0, 0, 1, 2, 2]", "[0, 0, 1, 2]"),
     "spear", "chips"),
    ("six_point_chips", SPEAR_CHIPS,
     SPEAR_CHIPS.replace("[0, 0, 1, 2, 2]", "[0, 0, 1, 2, 2, 1]"), "spear", "chips"),
    ("chip_3", SPEAR_CHIPS, SPEAR_CHIPS.replace("[0, 0, 1, 2, 2]", "[0, 0, 1, 2, 3]"),
     "spear", "chips"),
    ("chip_as_string", SPEAR_CHIPS, SPEAR_CHIPS.replace("[0, 0, 1, 2, 2]", '[0, 0, 1, 2, "2"]'),
     "spear", "chips"),
    ("unknown_family", BOW_FAMILY, BOW_FAMILY.replace('"range"', '"rnage"'), "bow", "family"),
    ("unknown_part", BOOTS, BOOTS.replace('"legs"', '"feet"'), "boots", "part"),
    ("duplicate_id", BOOTS, BOOTS.replace('"boots"', '"gloves"'), "gloves", "id"),
    ("unknown_stat_in_mods", AMULET_MODS, AMULET_MODS.replace("int = 1", "luck = 1"), "amulet",
     "mods"),
    ("bool_for_int", GREAVES_MAT, GREAVES_MAT.replace("material = 3", "material = true"),
     "greaves", "material"),
    ("bool_for_int_stat", AMULET_MODS, AMULET_MODS.replace("int = 1", "int = true"), "amulet",
     "mods"),
    ("string_for_hands", HALBERD_HANDS, HALBERD_HANDS.replace("hands = 2", 'hands = "two"'),
     "halberd", "hands"),
    ("string_for_bool", CLOAK_STAR, CLOAK_STAR.replace("star = true", 'star = "yes"'),
     "star_cloak", "star"),
    ("missing_translation", ELF_NAME, ELF_NAME.replace(', en = "Elf"', ""), "elf", "name"),
    ("guild_number_out_of_range", AMETHYST_NO, AMETHYST_NO.replace("5", "9"), "amethyst",
     "number"),
]


BROKEN = [c if hasattr(c, "marks") else pytest.param(*c, id=c[0]) for c in BROKEN]


def no_chained_traceback(exc: BaseException) -> bool:
    """Raised `from None` or outside any handler: nothing chained is printed with it."""
    return exc.__cause__ is None and (exc.__context__ is None or exc.__suppress_context__)


@pytest.mark.parametrize("case,old,new,card_id,field", BROKEN)
def test_cards_broken_data_names_file_card_and_field(cards_text, case, old, new, card_id,
                                                     field):
    """DESIGN.md Card data: bad data stops loading with one message naming the file, the
    card id and the field."""
    text = variant(cards_text, old, new)
    with pytest.raises(CardDataError) as info:
        parse_cards(text, source=SOURCE)
    msg = str(info.value)
    assert type(info.value) is CardDataError
    assert msg.startswith(SOURCE + ":"), msg
    assert f"'{card_id}'" in msg, msg
    assert re.search(rf"\b{re.escape(field)}\b", msg), f"field {field!r} not named: {msg}"
    assert "\n" not in msg, "one line"
    assert "Traceback" not in msg
    assert no_chained_traceback(info.value)


def test_cards_bad_toml_syntax(cards_text):
    """DESIGN.md Card data: a file that is not TOML names the file and the line."""
    text = variant(cards_text, 'id = "gloves"', 'id = "gloves')
    with pytest.raises(CardDataError) as info:
        parse_cards(text, source=SOURCE)
    msg = str(info.value)
    assert msg.startswith(SOURCE + ":") and "TOML" in msg
    assert re.search(r"line \d+", msg)
    assert "\n" not in msg
    assert no_chained_traceback(info.value)


def test_cards_unknown_section(cards_text):
    """DESIGN.md Card data: an unknown [[section]] is named."""
    with pytest.raises(CardDataError) as info:
        parse_cards(cards_text + '\n[[weapon]]\nid = "club2"\n', source=SOURCE)
    assert str(info.value).startswith(SOURCE + ":") and "weapon" in str(info.value)


def test_cards_at_least_twelve_broken_variants():
    """The brief: at least 12 distinct broken variants are checked."""
    assert len(BROKEN) >= 12
    assert len({c.values[0] for c in BROKEN}) == len(BROKEN)


def test_cards_test_set_loads(cards):
    """The test card set loads: 10 races, 7 guilds numbered 1..7, traits where expected."""
    assert isinstance(cards, CardSet)
    assert len(cards.races) == 10 and len(cards.guilds) == 7
    assert sorted(g.number for g in cards.guilds) == list(range(1, 8))
    assert cards.guild("golden_hawk").number == 3
    assert cards.guild("golden_hawk").trait.kind == "auction"
    assert cards.guild("amethyst").number == 5
    assert cards.guild("amethyst").trait.kind == "appraisal"
    assert all(1 <= c.bid <= 5 for c in cards.defense)
    assert all(len(c.chips) == 5 for c in cards.attack)
    assert cards.card("iron_helm#3").id == "iron_helm"
    assert cards.card("dagger").is_attack and not cards.card("ring#1").is_attack


def test_cards_parse_equals_load(cards, cards_text):
    """parse_cards and load_cards read the same data."""
    assert parse_cards(cards_text, source="same.toml") == cards


def test_cards_load_names_the_path_of_a_broken_file(tmp_path, cards_text):
    """load_cards: the message names the file that was read."""
    path = tmp_path / "broken_cards.toml"
    path.write_text(variant(cards_text, HELM, HELM.replace("bid = 3", "bid = 0")),
                    encoding="utf-8")
    with pytest.raises(CardDataError) as info:
        load_cards(path)
    assert str(path) in str(info.value) and "'iron_helm'" in str(info.value)


def test_cards_missing_or_non_utf8_file(tmp_path):
    """load_cards: a missing or undecodable file is a CardDataError naming it, not an
    OSError/UnicodeDecodeError traceback."""
    missing = tmp_path / "nope.toml"
    with pytest.raises(CardDataError) as info:
        load_cards(missing)
    assert str(missing) in str(info.value)
    bad = tmp_path / "latin1.toml"
    bad.write_bytes("[[race]]\nid = \"caf\xe9\"\n".encode("latin-1"))
    with pytest.raises(CardDataError) as info:
        load_cards(bad)
    assert str(bad) in str(info.value) and "\n" not in str(info.value)


def test_cards_path_constant_points_at_test_set():
    assert TEST_CARDS_PATH.name == "test_cards.toml" and TEST_CARDS_PATH.is_file()
