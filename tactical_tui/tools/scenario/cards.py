"""The card data a scenario plays with: the shipped cards with the file's inline
``[[family]] [[series]] [[race]] [[guild]] [[defense]] [[attack]]`` cards merged in
(`card_set`), or the inline cards alone (``[scenario] cards = "inline"``,
`inline_cards_only`), with errors that point at the inline card's line."""

from __future__ import annotations

import json
import re
from typing import Any

from rules import CardDataError
from rules.cards import CardSet, default_cards, parse_cards

from tactical_tui.tools.scenario.format import CARD_SECTIONS, ScenarioError, error_at
from tactical_tui.tools.scenario.reader import Reader


def _toml(value: Any) -> str:
    """A value as TOML (inline form) — to hand inline cards to `parse_cards`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k), ensure_ascii=False)} = {_toml(v)}"
                               for k, v in value.items()) + "}"
    return json.dumps(str(value))


def _with_line(message: str, text: str) -> str:
    """Point a card-data message ("… inline cards: attack 'x', field …") at the line of
    that card's id in the scenario file."""
    m = re.search(r"inline cards: (\w+) '([^']*)'", message)
    if m:
        pat = re.compile(r'^\s*id\s*=\s*["\']' + re.escape(m.group(2)) + r'["\']\s*(#.*)?$')
        for i, line in enumerate(text.splitlines()):
            if pat.match(line):
                return message[:m.end()] + f" (line {i + 1})" + message[m.end():]
    return message


def inline_cards_only(head: "Reader") -> bool:
    """`[scenario] cards`: "shipped" (the default: the inline cards are merged with the
    shipped set) or "inline" (format v2: the inline cards are the whole card data, as an
    export of a game with other card data writes it)."""
    mode = head.get("cards", str, "shipped")
    if mode not in ("shipped", "inline"):
        raise head.error(f"must be \"shipped\" or \"inline\", not {mode!r}", "cards")
    return mode == "inline"


def card_set(path: str, raw: dict, text: str = "", inline_only: bool = False) -> CardSet:
    """The shipped cards with the scenario's inline cards merged in: an inline entry with
    the id of a shipped one of the same section replaces it. With `inline_only` the
    inline cards are the whole card data (nothing shipped is added)."""
    base = default_cards()
    inline = {name: raw.get(name, []) for name in CARD_SECTIONS}
    if not any(inline.values()) and not inline_only:
        return base
    ids = {name: {e.get("id") for e in entries if isinstance(e, dict)}
           for name, entries in inline.items()}

    def parse(sections: tuple[str, ...]) -> CardSet:
        lines: list[str] = []
        for name in sections:
            entries = list(inline[name])
            if name in ("family", "series") and not inline_only:   # let inline skills refer to shipped families
                shipped = base.families if name == "family" else base.series
                entries += [{"id": x.id, "name": {"ja": x.name.ja, "en": x.name.en}}
                            for x in shipped if x.id not in ids[name]]
            for entry in entries:
                lines.append(f"[[{name}]]")
                lines.extend(f"{json.dumps(str(k), ensure_ascii=False)} = {_toml(v)}"
                             for k, v in entry.items())
        try:
            return parse_cards("\n".join(lines) + "\n", source=f"{path}: inline cards")
        except CardDataError as exc:
            raise ScenarioError(_with_line(str(exc), text)) from None

    if inline_only:
        return parse(CARD_SECTIONS)

    # Attack cards are parsed apart from defense cards, so that an inline defense card and
    # an inline attack card may share a name (format v2: the same-name rule of §5-4 holds
    # "種類にかかわらず"); ids and skill ids must still be unique across both.
    first = parse(tuple(n for n in CARD_SECTIONS if n != "attack"))
    extra: Any = first
    if inline["attack"]:
        second = parse(("family", "series", "attack"))
        from types import SimpleNamespace
        extra = SimpleNamespace(**{a: getattr(first, a) for a in
                                   ("families", "series", "races", "guilds", "defense")},
                                attack=second.attack)
        skill_of: dict[str, str] = {g.battle_skill.id: g.id for g in first.guilds
                                    if g.battle_skill is not None}
        for c in first.defense + second.attack:
            kind = "attack" if c.is_attack else "defense"
            if any(c.id == x.id for x in (first.races + first.guilds + first.defense
                                          if c.is_attack else ())):
                raise error_at(path, f"inline attack {c.id!r}", "the id is also an inline card's; "
                                                                "use another id")
            for sk in c.skills:
                if sk.id in skill_of:
                    raise error_at(path, f"inline {kind} {c.id!r}",
                                   f"skill id {sk.id!r} is also a skill of {skill_of[sk.id]!r}; "
                                   "use another id")
                skill_of[sk.id] = c.id
    groups = {"family": "families", "series": "series", "race": "races", "guild": "guilds",
              "defense": "defense", "attack": "attack"}
    merged = {}
    for name, attr in groups.items():
        mine = tuple(x for x in getattr(extra, attr) if x.id in ids[name])
        kept = tuple(x for x in getattr(base, attr) if x.id not in ids[name])
        merged[attr] = kept + mine
        for x in mine:
            for other, oattr in groups.items():
                if other != name and any(y.id == x.id for y in getattr(base, oattr)):
                    raise error_at(path, f"inline {name} {x.id!r}",
                                   f"the id is a shipped {other}'s; use another id")
    kept_cards = [c for c in merged["defense"] + merged["attack"]
                  if c.id not in ids["defense"] | ids["attack"]]
    shipped_skills = {sk.id: c.id for c in kept_cards for sk in c.skills}
    shipped_skills.update({g.battle_skill.id: g.id for g in merged["guilds"]
                           if g.id not in ids["guild"] and g.battle_skill is not None})
    for g in extra.guilds:
        sk = g.battle_skill
        if sk is not None and sk.id in shipped_skills:
            raise error_at(path, f"inline guild {g.id!r}",
                           f"skill id {sk.id!r} is also a skill of shipped "
                           f"{shipped_skills[sk.id]!r}; use another id")
    shipped_names = {(lang, c.name.get(lang)): c.id for c in kept_cards for lang in ("ja", "en")}
    for c in extra.defense + extra.attack:
        kind = "attack" if c.is_attack else "defense"
        for sk in c.skills:
            if sk.id in shipped_skills:
                raise error_at(path, f"inline {kind} {c.id!r}",
                               f"skill id {sk.id!r} is also a skill of shipped card "
                               f"{shipped_skills[sk.id]!r}; use another id")
        for lang in ("ja", "en"):
            if (lang, c.name.get(lang)) in shipped_names:
                raise error_at(path, f"inline {kind} {c.id!r}",
                               f"name.{lang} {c.name.get(lang)!r} is also shipped card "
                               f"{shipped_names[(lang, c.name.get(lang))]!r}'s")
    return CardSet(source=f"{base.source} + {path}", **merged)
