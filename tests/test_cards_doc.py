"""docs/CARDS.md cannot drift from cards.toml (issue 13, point 8).

The count tables of the document are generated (`tactical cards --summary`) between
marker comments; these tests fail when the document and the data disagree, and show that
they would fail for a change in the data. The counts §7 fixes are held to the data by
tests/test_card_set.py (test_7_counts, test_every_bid_value_present), not here.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import attrs
import pytest

from rules.cards import CardSet, Family, Skill, Stats, Text, default_cards
from tactical_tui.tools.cards_summary import (BLOCKS, END, START, BlockError, md, parse_blocks,
                                              render_summary, rewrite, stale_blocks, summary_blocks)
from tactical_tui.cli import main

DOC = Path(__file__).resolve().parent.parent / "docs" / "CARDS.md"
FIX = "tactical cards --summary --write docs/CARDS.md"
GROUPS = ("families", "series", "races", "guilds", "defense", "attack")


@pytest.fixture(scope="module")
def cards():
    return default_cards()


def rebuild(cards: CardSet, **changes) -> CardSet:
    """A new CardSet (its own lookups) with some groups replaced."""
    return CardSet(**{g: tuple(changes.get(g, getattr(cards, g))) for g in GROUPS})


def replace_card(cards: CardSet, card_id: str, **changes) -> CardSet:
    group = "attack" if cards.card(card_id).is_attack else "defense"
    new = [attrs.evolve(c, **changes) if c.id == card_id else c for c in getattr(cards, group)]
    return rebuild(cards, **{group: new})


def cells(line: str) -> int:
    """Cells of a Markdown table row: `|` not escaped by a backslash split them."""
    return len(re.findall(r"(?<!\\)\|", line)) - 1


def test_cards_md_generated_blocks_match_the_data(cards):
    text = DOC.read_text(encoding="utf-8")
    stale = stale_blocks(text, cards)
    assert not stale, (f"docs/CARDS.md: the generated block(s) {', '.join(stale)} differ from "
                       f"cards.toml. Run `{FIX}` and commit the result.")
    assert set(parse_blocks(text)) == set(BLOCKS)


def test_no_data_count_left_in_a_heading(cards):
    """The figures that used to sit in headings (`Defense cards (115 counting copies, …)`)
    are inside the generated blocks now; a heading with a number in it is hand-written
    drift waiting to happen."""
    text = DOC.read_text(encoding="utf-8")
    balance = text.index("## Balance (measured)")  # measured figures, hand-written on purpose
    for line in text[:balance].splitlines():
        if line.startswith("#"):
            assert not re.search(r"\d", line), line


def _shield_two_handed(cards):
    return replace_card(cards, "tower_shield", hands=2)


def _chips(cards):
    return replace_card(cards, "short_sword", chips=(1, 1, 1, 2, 2))


def _race(cards):
    races = [attrs.evolve(r, stats=Stats.of(mana=4, str=3, int=3, dex=3, def_=3, agi=2))
             if r.id == "human" else r for r in cards.races]
    return rebuild(cards, races=races)


def _guild(cards):
    guilds = [attrs.evolve(g, trait=attrs.evolve(g.trait, amount=4)) if g.id == "azure_sea" else g
              for g in cards.guilds]
    return rebuild(cards, guilds=guilds)


def _series(cards):
    return replace_card(cards, "gale_cloak", series=None)


def _exclusive(cards):
    card = cards.card("iron_helm")
    skills = tuple(attrs.evolve(s, exclusive=True) for s in card.skills)
    return replace_card(cards, "iron_helm", skills=skills)


def _copies(cards):
    return replace_card(cards, "leather_cap", copies=3)


def _initial_range_mana(cards):
    card = cards.card("short_sword")
    return replace_card(cards, "short_sword", skills=tuple(attrs.evolve(s, mana=1) for s in card.skills))


@pytest.mark.parametrize("change, block, shows", [
    (_shield_two_handed, "defense", "| Shield — two-handed | 2 | 1 | 3 | 2 |"),
    (_chips, "attack", "| 7 | 2 | 4 | 6 |"),
    (_race, "races", "| `human` | ヒューマン Human | 4 | 3 | 3 | 3 | 3 | 2 | 18 |"),
    (_guild, "guilds", "| 宝物庫 Treasury | `material` | +4 |"),
    (_series, "series", "Gale Boots (legs), Gale Bow"),
    (_exclusive, "families", "防壁 Barrier (Iron Helm)"),
    (_copies, "rulebook", "| Defense cards, counting copies | §7 | 115 | 116 |"),
    (_initial_range_mana, "first-game", "| Range skills with a mana cost | 1 |"),
], ids=lambda x: x if isinstance(x, str) else getattr(x, "__name__", ""))
def test_a_change_in_the_data_makes_the_document_stale(cards, change, block, shows):
    """Generate from a modified CardSet and compare with the document: the test above
    would fail, naming the block that changed."""
    changed = change(cards)
    text = DOC.read_text(encoding="utf-8")
    stale = stale_blocks(text, changed)
    assert block in stale
    assert shows in summary_blocks(changed)[block]
    assert shows not in summary_blocks(cards)[block]
    assert not stale_blocks(rewrite(text, changed), changed)


def test_rulebook_figures_stay_while_the_data_moves(cards):
    """The rulebook column is §7's, the data column the data's: a missing card shows as a
    disagreement in the table (tests/test_card_set.py is what fails on it)."""
    fewer = rebuild(cards, attack=cards.attack[1:])
    text = summary_blocks(fewer)["rulebook"]
    assert "| Attack cards, one copy each | §7 | 65 | 64 |" in text
    assert "| Bid values | §5-3 | 1–5 | 1–5 |" in text


def test_rewrite_keeps_every_hand_written_line(cards):
    blocks = "\n\n".join(f"prose before {n}\n{START.format(name=n)}\nstale {n} | x |\n{END.format(name=n)}"
                         for n in BLOCKS)
    text = "# Title\n\nIntro 115 words.\n\n" + blocks + "\n\nThe end.\n"
    new = rewrite(text, cards)
    fresh = summary_blocks(cards)
    for n in BLOCKS:
        assert fresh[n] in new and f"stale {n}" not in new
    outside = [ln for ln in text.split("\n") if not ln.startswith(("stale", "<!--"))]
    kept = [ln for ln in new.split("\n")]
    for ln in outside:
        assert ln in kept
    assert new.endswith("\n\nThe end.\n") and new.startswith("# Title\n\nIntro 115 words.\n")
    assert rewrite(new, cards) == new
    assert not stale_blocks(new, cards)


def test_the_document_is_rewritten_to_itself(cards):
    text = DOC.read_text(encoding="utf-8")
    broken = text.replace("| Armor — head | 11 |", "| Armor — head | 12 |")
    assert broken != text and stale_blocks(broken, cards) == ["defense"]
    assert rewrite(broken, cards) == text


@pytest.mark.parametrize("doc, key", [
    ("<!-- generated: defense -->\nx\n", "unterminated"),
    ("x\n<!-- end generated: defense -->\n", "stray_end"),
    ("<!-- generated: defense -->\n<!-- generated: attack -->\n<!-- end generated: attack -->\n"
     "<!-- end generated: defense -->\n", "nested"),
    ("<!-- generated: defense -->\n<!-- end generated: attack -->\n", "nested"),
    ("<!-- generated: defense -->\n<!-- end generated: defense -->\n"
     "<!-- generated: defense -->\n<!-- end generated: defense -->\n", "duplicate"),
    ("<!-- generated: shields -->\n<!-- end generated: shields -->\n", "unknown"),
    ("<!-- generated defense -->\n", "bad_marker"),
    ("<!-- generated: defense -->\n<!-- end generated: defense -->\n", "missing"),
])
def test_broken_markers_are_refused_with_a_clear_message(cards, doc, key):
    with pytest.raises(BlockError) as info:
        rewrite(doc, cards)
    assert info.value.key == key
    for lang in ("ja", "en"):
        assert info.value.message(lang).strip()
    if key != "missing":
        assert "line" in info.value.message("en")


NASTY = "Pipe|Blade *bold* [link](x) <b>`code`\x1b[31m\nnext"


def test_names_from_the_data_are_markdown_text(cards):
    """A card, skill or series name with `|`, markup or control characters cannot break a
    table or reach the terminal."""
    assert md("a|b") == "a\\|b"
    assert md("x\x1b[2J\ny\u202e") == r"x\\x1b\[2J\\ny\\u202e"  # shown, never acted on
    nasty = Text(ja=NASTY, en=NASTY)
    card = cards.card("gale_cloak")
    skills = tuple(attrs.evolve(s, name=nasty, exclusive=True) for s in card.skills)
    changed = replace_card(cards, "gale_cloak", name=nasty, skills=skills)
    series = tuple(attrs.evolve(s, name=nasty) if s.id == "gale" else s for s in changed.series)
    changed = rebuild(changed, series=series,
                      races=[attrs.evolve(changed.races[0], name=nasty, id="a|b")] + list(changed.races[1:]))
    out = render_summary(changed)
    assert "\x1b" not in out and "Pipe\\|Blade" in out
    assert "a\\|b" in out  # an id that is not plain is text, not a code span
    for block in summary_blocks(changed).values():
        header = None
        for line in block.split("\n"):
            if line.startswith("|"):
                header = header if header is not None else cells(line)
                assert cells(line) == header, line
            else:
                header = None
            assert not line.startswith("next")  # the line break in the name became a space


@attrs.frozen
class NewEffect:
    """An effect of a kind and with a field the card schema does not have (yet)."""

    kind: str
    count: int | None = None
    areas: tuple = ()
    distance: int = 0          # left at their defaults: not shown
    combines: bool = False


def test_unknown_effect_kinds_and_fields_are_counted(cards):
    """`battle` may add effect kinds and fields: the generator counts by `effect.kind` and
    shows whatever parameters an effect has (those not at their default), without knowing
    them."""
    skill = Skill(id="test_swap", name=Text(ja="入替", en="Swap"), family="swap",
                  effect=NewEffect(kind="swap_places", count=2, areas=("mid", "long")),
                  timing="attack")
    card = cards.card("short_sword")
    changed = replace_card(cards, "short_sword", skills=card.skills + (skill,))
    changed = rebuild(changed, families=changed.families + (
        Family(id="swap", name=Text(ja="入替", en="Swap")),))
    fam = summary_blocks(changed)["families"]
    assert "| `swap` | 入替 Swap | `swap_places` (attack) |  | 入替 Swap (count 2; areas mid, long) |" in fam
    assert "| 入替 Swap | 1 | 0 | 1 | 0 | 0 |" in fam
    assert "| (none) | 35 |" in fam  # one more attack-card skill without requirement


def test_cli_summary_check_and_write(tmp_path, capsys):
    main(["cards", "--summary"])
    out = capsys.readouterr().out
    for n in BLOCKS:
        assert START.format(name=n) in out and END.format(name=n) in out

    doc = tmp_path / "CARDS.md"
    shutil.copy(DOC, doc)
    assert main(["cards", "--lang", "en", "--summary", "--check", str(doc)]) == 0
    good = doc.read_text(encoding="utf-8")
    doc.write_text(good.replace("| Armor — head | 11 |", "| Armor — head | 99 |"), encoding="utf-8")
    capsys.readouterr()
    assert main(["cards", "--lang", "en", "--summary", "--check", str(doc)]) == 1
    err = capsys.readouterr().err
    assert "defense" in err and "tactical cards --summary --write" in err
    assert main(["cards", "--lang", "ja", "--summary", "--check", str(doc)]) == 1
    assert "直すには" in capsys.readouterr().err
    assert main(["cards", "--lang", "en", "--summary", "--write", str(doc)]) == 0
    assert "1 generated block(s) rewritten" in capsys.readouterr().out
    assert doc.read_text(encoding="utf-8") == good
    assert main(["cards", "--lang", "en", "--summary", "--write", str(doc)]) == 0
    assert "already match" in capsys.readouterr().out

    broken = good.replace(END.format(name="first-game"), "")  # the last block
    doc.write_text(broken, encoding="utf-8")
    assert main(["cards", "--lang", "en", "--summary", "--write", str(doc)]) == 2
    assert "no end marker" in capsys.readouterr().err
    assert doc.read_text(encoding="utf-8") == broken  # a broken document is left alone
    assert main(["cards", "--lang", "en", "--summary", "--check", str(tmp_path / "none.md")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".cards-summary-")]


def test_a_card_file_without_cards_still_renders(tmp_path, capsys):
    """`--cards` may name any file: one with no cards at all gives empty tables, no crash."""
    empty = tmp_path / "empty.toml"
    empty.write_text("", encoding="utf-8")
    assert main(["cards", "--summary", "--cards", str(empty)]) == 0
    out = capsys.readouterr().out
    assert "| **Total** | **0** | **0** | **0** | **0** |" in out
    assert "0 counting copies, 0 different cards." in out


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_tactical_cards_fits_80_columns_without_cutting_text(cards, lang):
    """`tactical cards` (the rich tables) at 80 columns: no line wider than 80 cells and no
    text cut off with `…` (the guild traits used to be, in Japanese)."""
    import io

    from rich.cells import cell_len
    from rich.console import Console

    from tactical_tui.tools.cards_cmd import TYPES, print_cards, h
    buf = io.StringIO()
    print_cards(cards, lang, TYPES, False, Console(file=buf, width=80, color_system=None))
    out = buf.getvalue()
    assert max(cell_len(line) for line in out.splitlines()) <= 80
    assert "…" not in out
    squeezed = re.sub(r"[\s│]+", "", out)
    assert re.sub(r"\s+", "", h("trait.auction", lang)) in squeezed
