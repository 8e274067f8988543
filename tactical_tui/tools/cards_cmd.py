"""`tactical cards`: the card set as tables (rich), in Japanese or English."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tactical_tui.text.safe import as_text, plain

if TYPE_CHECKING:            # the `tactical` command imports TYPES for its parser: the
    from rich.console import Console   # rules and the tables only when cards are printed
    from rich.table import Table

    from rules.cards import CardSet

TYPES = ("race", "guild", "family", "defense", "attack")

HEAD = {
    "race": {"ja": "種族", "en": "Races"},
    "guild": {"ja": "ギルド", "en": "Guilds"},
    "family": {"ja": "スキル系統一覧", "en": "Skill families"},
    "defense": {"ja": "ディフェンスカード", "en": "Defense cards"},
    "attack": {"ja": "アタックカード", "en": "Attack cards"},
    "name": {"ja": "名前", "en": "Name"},
    "no": {"ja": "番号", "en": "No."},
    "trait": {"ja": "ギルド特性", "en": "Trait"},
    "rule": {"ja": "ルール", "en": "Rule"},
    "card": {"ja": "カード", "en": "Card"},
    "skills": {"ja": "スキル", "en": "Skills"},
    "copies": {"ja": "枚数", "en": "Copies"},
    "set": {"ja": "セット", "en": "Set"},
    "initial": {"ja": "初期", "en": "initial"},
    "trait.auction": {"ja": "同額入札があるとき、武器入札中1回だけ自分の入札価値を1増やす（最大6）",
                      "en": "Once per game, when one of your bids ties another player's, raise it by 1 (up to 6)"},
    "trait.appraisal": {"ja": "最後の入札ラウンドの後、誰も入札しなかった入札対象カードを1枚獲得できる",
                        "en": "After the last bid round, you may take one target nobody bid on"},
    "trait.material": {"ja": "利用可能マテリアル+{n}", "en": "+{n} available material"},
}


def h(key: str, lang: str, **kw: object) -> str:
    return HEAD[key][lang].format(**kw)


def card_tables(cards: CardSet, lang: str, types: tuple[str, ...] = TYPES,
                initial: bool = False) -> list[Table]:
    from rich.table import Table
    from rich.text import Text

    from tactical_tui.text.cardtext import STAT_NAMES, card_summary, skill_text
    out: list[Table] = []
    if "race" in types:
        t = Table(title=h("race", lang))
        t.add_column(h("name", lang))
        for s in STAT_NAMES[lang].values():
            t.add_column(s, justify="right")
        for r in cards.races:
            t.add_row(as_text(r.name.get(lang)), *(str(v) for _, v in r.stats.items()))
        out.append(t)
    if "guild" in types:
        t = Table(title=h("guild", lang))
        for col in ("no", "name", "trait"):
            t.add_column(h(col, lang), overflow="fold" if col == "trait" else "ellipsis")
        for g in sorted(cards.guilds, key=lambda g: g.number):
            from tactical_tui.text.cardtext import battle_trait_text
            what = battle_trait_text(cards, g.trait, lang) if g.trait.kind == "battle" else \
                h("trait." + g.trait.kind, lang, n=g.trait.amount)
            t.add_row(str(g.number), as_text(g.name.get(lang)),
                      as_text(f"《{g.trait.name.get(lang)}》 " + what))
        out.append(t)
    if "family" in types:
        t = Table(title=h("family", lang))
        t.add_column(h("name", lang))
        t.add_column(h("rule", lang), overflow="fold")
        for f in cards.families:
            t.add_row(as_text(f.name.get(lang)), as_text(f.rule.get(lang) if f.rule else ""))
        out.append(t)
    for kind in ("defense", "attack"):
        if kind not in types:
            continue
        t = Table(title=h(kind, lang), show_lines=True)
        t.add_column(h("card", lang), overflow="fold")
        t.add_column(h("skills", lang), overflow="fold")
        if kind == "defense":
            t.add_column(h("copies", lang), justify="right")
        t.add_column(h("set", lang))
        for c in getattr(cards, kind):
            if initial and c.star:
                continue
            text = card_summary(cards, c, lang)
            row = [Text.assemble((plain(c.name.get(lang)), "bold"), "\n", plain(text)),
                   Text("\n".join(plain(skill_text(cards, s, lang)) for s in c.skills))]
            if kind == "defense":
                row.append(str(c.copies))
            row.append("★" if c.star else h("initial", lang))
            t.add_row(*row)
        out.append(t)
    return out


def print_cards(cards: CardSet, lang: str, types: tuple[str, ...], initial: bool,
                console: Console | None = None) -> None:
    if console is None:
        from rich.console import Console
        console = Console()
    for table in card_tables(cards, lang, types, initial):
        console.print(table)
