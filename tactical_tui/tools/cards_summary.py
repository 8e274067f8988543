"""`tactical cards --summary`: the count tables of docs/CARDS.md, generated from the card data.

docs/CARDS.md mixes hand-written prose (design intent; balance figures, which come from
`tactical balance` runs, not from the data) with tables that only restate `cards.toml`.
Those tables sit between marker comments::

    <!-- generated: NAME — tactical cards --summary --write docs/CARDS.md; do not edit by hand -->
    ...
    <!-- end generated: NAME -->

`summary_blocks` renders every block from a CardSet alone (pure, no I/O), so the document
cannot drift from the data: tests/test_cards_doc.py fails when a block in the document
differs from it. `rewrite` puts fresh blocks into a document and leaves every line outside
the markers as it was.

The counts the rulebook fixes (§4 setup: 10 races, 7 guilds; §5-3: bid values 1 to 5; §7:
115 defense cards = 70 initial + the standard set, 65 attack cards = 59 weapons + 6 magic,
20 in the initial set) are shown next to the data's own counts in the `rulebook` block;
tests/test_card_set.py is the test that holds the data to them.

Effect kinds, trait kinds, effect parameters and stats are counted generically (by
`effect.kind`, by the fields an Effect has), so new kinds and fields show up in the tables
instead of breaking them. Every name from the data is escaped as Markdown text (`md`): a
`|` cannot split a table cell, markup characters stay literal, control characters never
reach the document or the terminal.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections import Counter
from pathlib import Path
from typing import Callable, Iterable, Sequence

import attrs

from rules.cards import (EFFECT_KINDS, PARTS, RANGES, STATS, AttackCard, CardSet, DefenseCard,
                         Skill, Stats, Text)

from tactical_tui.text.cardtext import STAT_NAMES
from tactical_tui.text.safe import plain

COMMAND = "tactical cards --summary --write docs/CARDS.md"
START = "<!-- generated: {name} — " + COMMAND + "; do not edit by hand -->"
END = "<!-- end generated: {name} -->"
_START_RE = re.compile(r"^<!-- generated: ([a-z0-9-]+)\b.*-->[ \t]*$")
_END_RE = re.compile(r"^<!-- end generated: ([a-z0-9-]+) -->[ \t]*$")
_ANY_MARKER_RE = re.compile(r"^<!-- (end )?generated\b")

INITIAL, STANDARD = "Initial", "Standard (★)"


# --------------------------------------------------------------------------- Markdown text

_MD_SPECIAL = set("\\`*_[]<>|~#&!")


def md(text: object) -> str:
    """Data as literal Markdown text, safe inside a table cell.

    Control characters are shown as escapes (`one_line`), then ASCII punctuation that
    Markdown could read as markup (and `|`, which would split a cell) is
    backslash-escaped, so nothing from the data can act on a terminal, break a line or
    change the layout.
    """
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in one_line(text))


def one_line(text: object) -> str:
    """Text on one line with every control character shown as an escape (`\\x1b`, `\\n`,
    `\\u202e`): `safe.plain`, as tactical_tui's other outputs show them."""
    return plain(text)


def code(ident: str) -> str:
    """An id as a code span when it is plain (letters, digits, `_-.`), else escaped text."""
    return f"`{ident}`" if re.fullmatch(r"[A-Za-z0-9_.-]+", ident) else md(ident)


def both(name: Text) -> str:
    """Japanese and English name, as the document writes them: `距離 Range`."""
    return f"{md(name.ja)} {md(name.en)}"


def bold(text: str) -> str:
    return f"**{text}**"


def table(header: Sequence[str], align: str, rows: Iterable[Sequence[object]]) -> str:
    """A Markdown table; `align` has one letter per column, `l` or `r`. Cells are already
    Markdown (numbers become text)."""
    assert len(align) == len(header)
    rule = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule) + "|"]
    for row in rows:
        assert len(row) == len(header), (header, row)
        lines.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(lines)


def span(values: Iterable[int]) -> str:
    """`1–5` for a run of values, `1, 3` for a gap, `—` for none."""
    vs = sorted(set(values))
    if not vs:
        return "—"
    if len(vs) == 1:
        return str(vs[0])
    if vs == list(range(vs[0], vs[-1] + 1)):
        return f"{vs[0]}–{vs[-1]}"
    return ", ".join(str(v) for v in vs)


def _split(pairs: Iterable[tuple[DefenseCard | AttackCard, int]]) -> tuple[int, int]:
    """(initial, standard) sums of (card, number) pairs."""
    ini = std = 0
    for card, n in pairs:
        if card.star:
            std += n
        else:
            ini += n
    return ini, std


def _copies(cards: Iterable[DefenseCard | AttackCard]) -> list:
    return [(c, getattr(c, "copies", 1)) for c in cards]


def _count_row(label: str, cards: Sequence[DefenseCard | AttackCard], distinct: bool = False) -> list:
    ini, std = _split(_copies(cards))
    row: list = [label, ini, std, ini + std]
    if distinct:
        row.append(len(cards))
    return row


def _total_row(rows: list[list], width: int) -> list:
    """The bold Total row of count rows `[label, n, n, …]` of `width` cells."""
    return [bold("Total")] + [bold(str(sum(r[i] for r in rows))) for i in range(1, width)]


# --------------------------------------------------------------------------- card kinds

_HANDS = {1: "one-handed", 2: "two-handed"}


def kind_key(card: DefenseCard | AttackCard) -> tuple[int, int, str]:
    """Order of the type rows: armor by part, shields and weapons by hands, accessory, magic."""
    order = {"armor": 0, "shield": 1, "accessory": 2, "weapon": 3, "magic": 4}
    sub = PARTS.index(card.part) if getattr(card, "part", None) in PARTS else card.hands
    return order.get(card.type, 9), sub, card.type


def kind_label(card: DefenseCard | AttackCard) -> str:
    """The type row label: `Armor — head`, `Shield — one-handed`, `Magic (no hand slot)`."""
    if card.type == "armor":
        return f"Armor — {md(card.part)}"
    if card.type in ("shield", "weapon"):
        return f"{card.type.capitalize()} — {_HANDS.get(card.hands, f'{card.hands} hands')}"
    if card.type == "magic":
        return "Magic (no hand slot)"
    return md(card.type.capitalize())


def kind_short(card: DefenseCard | AttackCard) -> str:
    """A card's kind in a list: `head`, `one-handed shield`, `two-handed weapon`, `magic`."""
    if card.type == "armor":
        return md(card.part)
    if card.type in ("shield", "weapon"):
        return f"{_HANDS.get(card.hands, f'{card.hands}-handed')} {card.type}"
    return md(card.type)


def _by_kind(cards: Sequence[DefenseCard | AttackCard], distinct: bool) -> list[list]:
    groups: dict[tuple, list] = {}
    for c in sorted(cards, key=kind_key):
        groups.setdefault(kind_key(c), []).append(c)
    return [_count_row(kind_label(g[0]), g, distinct) for g in groups.values()]


def _ranges(card: AttackCard) -> tuple[str, ...]:
    found = {sk.effect.range for sk in card.skills if sk.effect.kind == "range"}
    return tuple(sorted(found, key=lambda r: (RANGES.index(r) if r in RANGES else 9, str(r))))


def _skills(cards: CardSet) -> list[tuple[DefenseCard | AttackCard, Skill]]:
    return [(c, sk) for c in cards.defense + cards.attack for sk in c.skills]


def needs(skill: Skill) -> dict[str, int]:
    """The stats a skill's requirement lists, with their values (§2 スキルの発動条件).

    `requires` is either a Requirements (only the listed stats, issue 13 point 1) or the
    older Stats of six values where 0 means "not listed"; both read the same here."""
    req = skill.requires
    listed = getattr(req, "listed", None)
    if listed is not None:
        return dict(listed)
    return {k: v for k, v in req.items() if v}


def meets(stats: Stats, skill: Skill) -> bool:
    """§2: the final stats meet every stat the skill lists (and nothing else)."""
    return all(stats[k] >= v for k, v in needs(skill).items())


def _kind_order(kind: str) -> tuple[int, str]:
    return (EFFECT_KINDS.index(kind) if kind in EFFECT_KINDS else len(EFFECT_KINDS), kind)


def effect_params(skill: Skill) -> str:
    """The parameters of a skill's effect, generically: every field but `kind` and `range`
    whose value is not its default. `1` for one number, `count 1; areas mid, long` for
    several."""
    e = skill.effect
    fields = []
    for a in attrs.fields(type(e)):
        v = getattr(e, a.name)
        default = a.default.factory() if isinstance(a.default, attrs.Factory) else a.default
        if a.name in ("kind", "range") or v is None or (default is not attrs.NOTHING and v == default):
            continue
        fields.append((a.name, v))
    if not fields:
        return ""
    if len(fields) == 1 and isinstance(fields[0][1], int) and not isinstance(fields[0][1], bool):
        return str(fields[0][1])

    def value(v: object) -> str:
        if isinstance(v, (tuple, list, frozenset, set)):
            return ", ".join(md(x) for x in v)
        return md(v)
    return "; ".join(f"{md(k)} {value(v)}" for k, v in fields)


# --------------------------------------------------------------------------- blocks

# §7 / §4 / §5-3: the counts the rulebook prints. tests/test_card_set.py holds the data to
# them; here they are only shown beside the data.
RULEBOOK = {
    "defense": 115, "defense_initial": 70, "attack": 65, "weapon": 59, "magic": 6,
    "attack_initial": 20, "races": 10, "guilds": 7, "bids": (1, 5),
}


def block_rulebook(cards: CardSet) -> str:
    d_ini, d_std = _split(_copies(cards.defense))
    types = Counter(c.type for c in cards.attack)
    bids = {c.bid for c in cards.defense}
    rb = RULEBOOK
    rows = [
        ["Defense cards, counting copies", "§7", rb["defense"], d_ini + d_std],
        ["… in the initial set", "§7", rb["defense_initial"], d_ini],
        ["… in the standard set (★)", f"§7 ({rb['defense']} − {rb['defense_initial']})", rb["defense"] - rb["defense_initial"], d_std],
        ["Attack cards, one copy each", "§7", rb["attack"], len(cards.attack)],
        ["… weapons", "§7", rb["weapon"], types.get("weapon", 0)],
        ["… magic", "§7", rb["magic"], types.get("magic", 0)],
        ["… in the initial set", "§7", rb["attack_initial"], sum(not c.star for c in cards.attack)],
        ["… in the standard set (★)", f"§7 ({rb['attack']} − {rb['attack_initial']})", rb["attack"] - rb["attack_initial"],
         sum(c.star for c in cards.attack)],
        ["Races", "§4", rb["races"], len(cards.races)],
        ["Guilds, numbered 1–7", "§4", rb["guilds"], len(cards.guilds)],
        ["Bid values", "§5-3", span(range(rb["bids"][0], rb["bids"][1] + 1)), span(bids)],
    ]
    return table(["Count", "Rule", "Rulebook", "cards.toml"], "llrr", rows)


def block_defense(cards: CardSet) -> str:
    d = cards.defense
    total = sum(c.copies for c in d)
    parts = [f"{total} counting copies, {len(d)} different cards.", ""]
    rows = _by_kind(d, distinct=True)
    parts.append(table(["Type", INITIAL, STANDARD, "Total", "Different cards"], "lrrrr",
                       rows + [_total_row(rows, 5)]))
    parts += ["", "By bid value (the table §7 announces, 入札価値別の枚数, but does not print), "
                  "counting copies; the last three columns are over all copies of that value:", ""]
    rows = []
    for b in sorted({c.bid for c in d}):
        cs = [c for c in d if c.bid == b]
        rows.append(_count_row(str(b), cs) + [
            sum(c.copies for c in cs if c.skills),
            span(c.material for c in cs),
            span(sum(c.mods.values) for c in cs)])
    tot = _total_row(rows, 5) + [bold(span(c.material for c in d)),
                                    bold(span(sum(c.mods.values) for c in d))]
    parts.append(table(["Bid value", INITIAL, STANDARD, "Total", "With a skill", "Material",
                        "Stat modifiers (sum)"], "rrrrrrr", rows + [tot]))
    parts += ["", "Equip cost and material, counting copies:", ""]
    ini = [c for c in d if not c.star]
    values = sorted({c.cost for c in d} | {c.material for c in d})
    rows = [[v, sum(c.copies for c in ini if c.cost == v), sum(c.copies for c in d if c.cost == v),
             sum(c.copies for c in ini if c.material == v), sum(c.copies for c in d if c.material == v)]
            for v in values]
    parts.append(table(["Value", "Equip cost: initial", "Equip cost: all", "Material: initial",
                        "Material: all"], "rrrrr", rows))

    def avg(cs: Sequence[DefenseCard], field: str) -> str:
        n = sum(c.copies for c in cs)
        return f"{sum(getattr(c, field) * c.copies for c in cs) / n:.2f}" if n else "—"
    parts += ["", f"Averages per copy: the initial set costs {avg(ini, 'cost')} to equip and yields "
                  f"{avg(ini, 'material')} material; the whole deck {avg(d, 'cost')} and "
                  f"{avg(d, 'material')}."]
    return "\n".join(parts)


def block_attack(cards: CardSet) -> str:
    a = cards.attack
    parts = [f"{len(a)} cards, one copy each.", ""]
    rows = _by_kind(a, distinct=False)
    parts.append(table(["Attack cards", INITIAL, STANDARD, "Total"], "lrrr", rows + [_total_row(rows, 4)]))
    parts.append("")
    combos: dict[tuple, list] = {}
    for c in sorted(a, key=lambda c: (len(_ranges(c)), [RANGES.index(r) if r in RANGES else 9
                                                        for r in _ranges(c)])):
        combos.setdefault(_ranges(c), []).append(c)
    rows = [_count_row(" + ".join(md(r) for r in k), v) for k, v in combos.items()]
    parts.append(table(["Range skills on the card", INITIAL, STANDARD, "Total"], "lrrr", rows))
    parts.append("")
    all_ranges = sorted({r for c in a for r in _ranges(c)},
                        key=lambda r: (RANGES.index(r) if r in RANGES else 9, str(r)))
    rows = [_count_row(md(r), [c for c in a if r in _ranges(c)]) for r in all_ranges]
    parts.append(table(["Cards with a range skill of", INITIAL, STANDARD, "Total"], "lrrr", rows))
    parts += ["", "Every card has five point chips. By their total:", ""]
    rows = []
    for t in sorted({sum(c.chips) for c in a}):
        cs = [c for c in a if sum(c.chips) == t]
        pats = Counter("-".join(str(x) for x in sorted(c.chips)) for c in cs)
        rows.append(_count_row(str(t), cs) + [", ".join(f"{p} ×{n}" for p, n in sorted(pats.items()))])
    parts.append(table(["Chip total", INITIAL, STANDARD, "Total", "Chips (cards)"], "rrrrl",
                       rows))
    return "\n".join(parts)


def _skill_name_list(entries: list[tuple[DefenseCard | AttackCard, Skill]]) -> str:
    """`防壁 Barrier (1) ×4, 剛壁 Bulwark (2) ×2`: distinct name + parameters, with the
    number of cards that carry it."""
    seen: dict[tuple, int] = {}
    for _card, sk in entries:
        key = (sk.name.ja, sk.name.en, effect_params(sk))
        seen[key] = seen.get(key, 0) + 1
    out = []
    for (ja, en, params), n in seen.items():
        text = f"{md(ja)} {md(en)}" + (f" ({params})" if params else "")
        out.append(text + (f" ×{n}" if n > 1 else ""))
    return ", ".join(out)


def block_families(cards: CardSet) -> str:
    skills = _skills(cards)
    rows = []
    counts = []
    for f in cards.families:
        mine = [(c, sk) for c, sk in skills if sk.family == f.id]
        kinds: dict[str, set] = {}
        for sk in [sk for _c, sk in mine] + [sk for _g, sk in _trait_skills(cards)
                                             if sk.family == f.id]:
            kinds.setdefault(sk.effect.kind, set()).add(sk.timing)
        kind_text = ", ".join(f"{code(k)} ({', '.join(sorted(t))})"
                              for k, t in sorted(kinds.items(), key=lambda kv: _kind_order(kv[0])))
        traits = [f"{md(sk.name.ja)} {md(sk.name.en)} (trait of {md(g.name.en)})"
                  for g, sk in _trait_skills(cards) if sk.family == f.id]
        listed = ", ".join(x for x in [_skill_name_list(mine)] + traits if x)
        rows.append([code(f.id), both(f.name), kind_text or "—",
                     md(f.rule.en) if f.rule else "", listed or "—"])
        ini, std = _split([(c, 1) for c, _ in mine])
        counts.append([both(f.name), ini, std, ini + std,
                       span(sk.mana for _, sk in mine), sum(sk.exclusive for _, sk in mine)])
    parts = [table(["id", "Family", "Effect kind (timing)", "Rule", "Skills (× different cards)"], "lllll", rows)]
    parts += ["", "Skills by family, one per card that carries it (copies not counted):", ""]
    parts.append(table(["Family", INITIAL, STANDARD, "Total", "Mana", "Exclusive"], "lrrrrr",
                       counts + [_total_row(counts, 4) + [
                           bold(span(sk.mana for _, sk in skills)),
                           bold(str(sum(sk.exclusive for _, sk in skills)))]]))
    exclusive: dict[tuple, list[str]] = {}
    for c, sk in skills:
        if sk.exclusive:
            exclusive.setdefault((sk.name.ja, sk.name.en), []).append(md(c.name.en))
    if exclusive:
        parts += ["", "Exclusive skills (併用不可): " + "; ".join(
            f"{md(ja)} {md(en)} ({', '.join(names)})" for (ja, en), names in exclusive.items()) + "."]
    parts += ["", "Skill requirements by stat (skills that ask for the stat; copies not counted):", ""]
    rows = []
    for stat in STATS:
        asking = [(c, sk) for c, sk in skills if stat in needs(sk)]
        if not asking:
            continue
        rows.append([STAT_NAMES["en"].get(stat, md(stat)),
                     sum(c.is_attack for c, _ in asking), sum(not c.is_attack for c, _ in asking),
                     span(needs(sk)[stat] for _, sk in asking)])
    rows.append(["(none)", sum(c.is_attack and not needs(sk) for c, sk in skills),
                 sum(not c.is_attack and not needs(sk) for c, sk in skills), "—"])
    parts.append(table(["Stat", "Skills on attack cards", "Skills on defense cards", "Values"],
                       "lrrr", rows))
    return "\n".join(parts)


def block_series(cards: CardSet) -> str:
    rows = []
    for s in cards.series:
        cs = [c for c in cards.defense + cards.attack if c.series == s.id]
        ini, std = _split([(c, 1) for c in cs])
        rows.append([code(s.id), both(s.name),
                     ", ".join(f"{md(c.name.en)} ({kind_short(c)})" for c in cs) or "—", ini, std])
    return table(["id", "Series", "Cards", INITIAL, STANDARD], "lllrr", rows)


def block_races(cards: CardSet) -> str:
    races = cards.races
    rows = [[code(r.id), both(r.name), *(v for _, v in r.stats.items()), sum(r.stats.values)]
            for r in races]
    parts = [table(["id", "Race", *(STAT_NAMES["en"][s] for s in STATS), "Sum"],
                   "ll" + "r" * (len(STATS) + 1), rows)]
    sums = {sum(r.stats.values) for r in races}
    values = [v for r in races for v in r.stats.values]
    lines = len({r.stats.values for r in races})
    sum_text = (f"every race's {len(STATS)} stats sum to {sums.pop()}" if len(sums) == 1
                else f"stat sums run {span(sums)}")
    parts += ["", f"From the data: {sum_text}; each stat is {span(values) if values else '—'}; "
                  f"{lines} different stat lines among {len(races)} races."]
    parts += ["", "Initial-set attack cards each race can attack with on its bare stats (a range "
                  "skill whose requirement the race meets), by range:", ""]
    initial = [c for c in cards.attack if not c.star and c.series is None]
    all_ranges = sorted({r for c in initial for r in _ranges(c)},
                        key=lambda r: (RANGES.index(r) if r in RANGES else 9, str(r)))
    rows = []
    for r in races:
        row: list = [both(r.name)]
        for rng in all_ranges:
            row.append(sum(any(sk.effect.kind == "range" and sk.effect.range == rng
                               and meets(r.stats, sk) for sk in c.skills) for c in initial))
        rows.append(row)
    parts.append(table(["Race", *(md(x) for x in all_ranges)], "l" + "r" * len(all_ranges), rows))
    short = [f"{row[0]} ({md(rng)})" for row in rows
             for rng, n in zip(all_ranges, row[1:]) if n == 0]
    parts += ["", "Races without such a card at some range: "
                  + ("; ".join(short) if short else "none") + "."]
    return "\n".join(parts)


def _trait_skills(cards: CardSet) -> list[tuple[object, Skill]]:
    """(guild, skill) of every battle trait (§4, RULINGS R2): skills no card carries."""
    return [(g, g.trait.skill) for g in sorted(cards.guilds, key=lambda g: g.number)
            if g.trait.kind == "battle" and g.trait.skill is not None]


def _trait_skill_text(skill: Skill) -> str:
    """A battle trait's skill in one cell: name, effect, timing, mana, family."""
    params = effect_params(skill)
    return (f"{md(skill.name.ja)} {md(skill.name.en)}: {code(skill.effect.kind)}"
            + (f" {params}" if params else "")
            + f" ({code(skill.timing)}, mana {skill.mana}, family {code(skill.family)})")


def block_guilds(cards: CardSet) -> str:
    rows = [[g.number, code(g.id), both(g.name), both(g.trait.name), code(g.trait.kind),
             f"+{g.material_bonus}" if g.material_bonus else "—",
             _trait_skill_text(g.trait.skill) if g.trait.kind == "battle" and g.trait.skill
             else "—"]
            for g in sorted(cards.guilds, key=lambda g: g.number)]
    return table(["No.", "id", "Guild", "Trait", "Trait kind", "Material", "Battle skill"],
                 "rllllll", rows)


def block_first_game(cards: CardSet) -> str:
    ini_a = [c for c in cards.attack if not c.star]
    ini_cards = [c for c in cards.defense + cards.attack if not c.star]
    ranges = [sk for c in ini_a for sk in c.skills if sk.effect.kind == "range"]
    free = sum(any(sk.effect.kind == "range" and not needs(sk) for sk in c.skills)
               for c in ini_a)
    used = {sk.family for c in ini_cards for sk in c.skills}
    missing = [both(f.name) for f in cards.families if f.id not in used]
    rows = [
        ["Attack cards", len(ini_a)],
        ["… with a range skill that has no requirement", free],
        ["Highest requirement of a range skill",
         max((v for sk in ranges for v in needs(sk).values()), default="—")],
        ["Range skills asking for two or more stats",
         sum(len(needs(sk)) >= 2 for sk in ranges)],
        ["Range skills with a mana cost", sum(sk.mana > 0 for sk in ranges)],
        ["Cards with two or more skills besides range skills",
         sum(sum(sk.effect.kind != "range" for sk in c.skills) >= 2 for c in ini_cards)],
        ["Series cards", sum(c.series is not None for c in ini_cards)],
    ]
    parts = [table(["In the initial set", "Count"], "lr", rows)]
    parts += ["", "Families with no skill in the initial set: "
                  + (", ".join(missing) if missing else "none") + "."]
    return "\n".join(parts)


BLOCKS: dict[str, Callable[[CardSet], str]] = {
    "rulebook": block_rulebook,
    "defense": block_defense,
    "attack": block_attack,
    "families": block_families,
    "series": block_series,
    "races": block_races,
    "guilds": block_guilds,
    "first-game": block_first_game,
}


def summary_blocks(cards: CardSet) -> dict[str, str]:
    """Every generated block of docs/CARDS.md, by name, as Markdown (no markers)."""
    return {name: make(cards) for name, make in BLOCKS.items()}


def wrap(name: str, body: str) -> str:
    return "\n".join([START.format(name=name), "", body, "", END.format(name=name)])


def render_summary(cards: CardSet) -> str:
    """All blocks with their markers, ready to paste into the document."""
    return "\n\n".join(wrap(n, b) for n, b in summary_blocks(cards).items()) + "\n"


# --------------------------------------------------------------------------- the document

MESSAGES = {
    "unterminated": {"en": "line {line}: block {name!r} has no end marker ({end})",
                     "ja": "{line}行目: ブロック {name!r} に終わりの印 ({end}) がありません"},
    "stray_end": {"en": "line {line}: end marker of {name!r} without its start",
                  "ja": "{line}行目: {name!r} の終わりの印に対応する始まりがありません"},
    "nested": {"en": "line {line}: a marker inside block {name!r}",
               "ja": "{line}行目: ブロック {name!r} の中に印があります"},
    "bad_marker": {"en": "line {line}: not a generated-block marker: {text}",
                   "ja": "{line}行目: 生成ブロックの印として読めません: {text}"},
    "duplicate": {"en": "line {line}: block {name!r} appears twice",
                  "ja": "{line}行目: ブロック {name!r} が2回あります"},
    "unknown": {"en": "line {line}: unknown block {name!r} (blocks: {known})",
                "ja": "{line}行目: 不明なブロック {name!r} (ブロック: {known})"},
    "missing": {"en": "block(s) missing: {names}; add the markers ({start} … {end}) where each belongs",
                "ja": "ブロックがありません: {names}。それぞれの場所に印 ({start} … {end}) を置いてください"},
    "written": {"en": "{path}: {n} generated block(s) rewritten from the card data",
                "ja": "{path}: 生成ブロック{n}個をカードデータから書き直しました"},
    "current": {"en": "{path}: the generated blocks already match the card data",
                "ja": "{path}: 生成ブロックはカードデータと一致しています"},
    "stale": {"en": "{path}: generated block(s) out of date with the card data: {names}; "
                    "fix with: tactical cards --summary --write {path}",
              "ja": "{path}: 生成ブロックがカードデータと食い違っています: {names}。"
                    "直すには: tactical cards --summary --write {path}"},
    "read": {"en": "{path}: cannot read: {why}", "ja": "{path}: 読めません: {why}"},
    "write": {"en": "{path}: cannot write: {why}", "ja": "{path}: 書けません: {why}"},
}


class BlockError(ValueError):
    """A document whose markers cannot be read; the message says where."""

    def __init__(self, key: str, **kw: object) -> None:
        self.key, self.kw = key, kw
        super().__init__(self.message("en"))

    def message(self, lang: str) -> str:
        return MESSAGES[self.key][lang].format(**self.kw)


def parse_blocks(text: str) -> dict[str, tuple[int, int, str]]:
    """The generated blocks of a document: name -> (first line, end line, body), lines
    counted from 0. Raises BlockError for a marker that is malformed, unpaired, nested or
    repeated, or names a block the generator does not have."""
    lines = text.split("\n")
    found: dict[str, tuple[int, int, str]] = {}
    open_name, open_at = None, 0
    for i, line in enumerate(lines):
        if not _ANY_MARKER_RE.match(line):
            continue
        start, end = _START_RE.match(line), _END_RE.match(line)
        if not (start or end):
            raise BlockError("bad_marker", line=i + 1, text=one_line(line[:80]))
        if start:
            if open_name is not None:
                raise BlockError("nested", line=i + 1, name=open_name)
            name = start.group(1)
            if name not in BLOCKS:
                raise BlockError("unknown", line=i + 1, name=name, known=", ".join(BLOCKS))
            if name in found:
                raise BlockError("duplicate", line=i + 1, name=name)
            open_name, open_at = name, i
        else:
            name = end.group(1)
            if open_name != name:
                if open_name is not None:
                    raise BlockError("nested", line=i + 1, name=open_name)
                raise BlockError("stray_end", line=i + 1, name=name)
            found[name] = (open_at, i, "\n".join(lines[open_at + 1:i]).strip("\n"))
            open_name = None
    if open_name is not None:
        raise BlockError("unterminated", line=open_at + 1, name=open_name,
                         end=END.format(name=open_name))
    return found


def _require_all(found: dict) -> None:
    missing = [n for n in BLOCKS if n not in found]
    if missing:
        raise BlockError("missing", names=", ".join(missing), start=START.format(name="NAME"),
                         end=END.format(name="NAME"))


def stale_blocks(text: str, cards: CardSet) -> list[str]:
    """Names of the blocks whose body in the document differs from the data's.
    Raises BlockError if the markers are broken or a block is missing."""
    found = parse_blocks(text)
    _require_all(found)
    fresh = summary_blocks(cards)
    return [n for n in BLOCKS if found[n][2] != fresh[n]]


def rewrite(text: str, cards: CardSet) -> str:
    """The document with every generated block (markers included) made fresh from the data;
    every line outside the blocks stays as it was."""
    found = parse_blocks(text)
    _require_all(found)
    fresh = summary_blocks(cards)
    lines = text.split("\n")
    for name, (first, last, _body) in sorted(found.items(), key=lambda kv: -kv[1][0]):
        lines[first:last + 1] = wrap(name, fresh[name]).split("\n")
    return "\n".join(lines)


def _changed_blocks(text: str, cards: CardSet) -> list[str]:
    """Names of the blocks `rewrite` changes (body or marker lines)."""
    lines = text.split("\n")
    fresh = summary_blocks(cards)
    return [n for n, (first, last, _b) in parse_blocks(text).items()
            if lines[first:last + 1] != wrap(n, fresh[n]).split("\n")]


# --------------------------------------------------------------------------- the command

def _say(key: str, lang: str, **kw: object) -> str:
    return MESSAGES[key][lang].format(**kw)


def summary_cli(cards: CardSet, lang: str, write: str | None = None, check: str | None = None,
                out=None, err=None) -> int:
    """`tactical cards --summary [--write FILE | --check FILE]`.

    Without a file: print every block with its markers (plain text, no rich markup).
    --write: rewrite the blocks of FILE in place (nothing else in it changes; a broken
    document is left untouched). --check: exit 1 when FILE's blocks differ from the data.
    Exit 2 for a file that cannot be read or written, or whose markers are broken.
    """
    import sys
    out = out or sys.stdout
    err = err or sys.stderr
    path_arg = write or check
    if path_arg is None:
        out.write(render_summary(cards))
        return 0
    path = Path(path_arg)
    shown = one_line(path_arg)
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or str(exc)
        print(_say("read", lang, path=shown, why=one_line(why)), file=err)
        return 2
    try:
        stale = stale_blocks(text, cards)
        new = rewrite(text, cards)
        changed = _changed_blocks(text, cards)
    except BlockError as exc:
        print(f"{shown}: {exc.message(lang)}", file=err)
        return 2
    if check is not None:
        if stale:
            print(_say("stale", lang, path=shown, names=", ".join(stale)), file=err)
            return 1
        print(_say("current", lang, path=shown), file=out)
        return 0
    if new == text:
        print(_say("current", lang, path=shown), file=out)
        return 0
    try:
        fd, tmp = tempfile.mkstemp(prefix=".cards-summary-", dir=str(path.parent) or ".")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(new)
            os.chmod(tmp, path.stat().st_mode & 0o777)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        print(_say("write", lang, path=shown, why=one_line(exc.strerror or str(exc))), file=err)
        return 2
    print(_say("written", lang, path=shown, n=len(changed)), file=out)
    return 0
