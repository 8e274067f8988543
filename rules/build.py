"""§5-4 ビルド: equip slots, material, final stats and the legality of a build.

Pure functions of the card set and a seat's build; the engine and the screens both use
them, so the live check a player sees is the check the reveal applies.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Optional

from attrs import frozen

from .cards import CardSet, Stats
from .memo import Memo

HAND_SLOTS = 2


@frozen
class Violation:
    """One broken build rule. `code`: no_race | same_name | part | hand_slots | material.
    `cards`: the cards involved; `have` / `limit`: the numbers compared."""

    code: str
    cards: tuple[str, ...] = ()
    part: Optional[str] = None
    have: int = 0
    limit: int = 0

    def describe(self, cards: CardSet) -> str:
        """A plain English reason (screens translate by `code`)."""
        names = ", ".join(cards.card(c).name.en for c in self.cards)
        if self.code == "no_race":
            return "choose one of your two race candidates"
        if self.code == "same_name":
            return f"two cards of the same name are equipped: {names}"
        if self.code == "part":
            return f"two armor cards for the {self.part}: {names}"
        if self.code == "hand_slots":
            return f"{self.have} hand slots used, only {self.limit} exist: {names}"
        if self.code == "material":
            return f"equip cost {self.have} exceeds available material {self.limit}"
        return self.code


def final_stats(cards: CardSet, race: Optional[str], equipped: Iterable[str]) -> Stats:
    """§2 最終能力値 = race stats + every equipped card's modifiers (a shield's included)."""
    key = (cards, race, equipped)
    if type(equipped) is tuple:     # memoised by value (issue 16): a build's stats never change
        got = _STATS.get(key)
        if got is not None:
            return got
    total = cards.race(race).stats if race else Stats()
    for c in equipped:
        total = total + cards.card(c).mods
    if type(equipped) is tuple:
        _STATS.put(key, total)
    return total


_STATS: Memo = Memo(20_000)


def equip_cost(cards: CardSet, equipped: Iterable[str]) -> int:
    """§5-4 マテリアル: the equipped defense cards' costs; attack cards cost nothing."""
    return sum(cards.card(c).cost for c in equipped)


def available_material(cards: CardSet, guild: str, materialized: Iterable[str]) -> int:
    """§5-4 利用可能マテリアル = materialized cards' material + the guild's extra."""
    return sum(cards.card(c).material for c in materialized) + cards.guild(guild).material_bonus


def hand_slots_used(cards: CardSet, equipped: Iterable[str]) -> int:
    """§5-4 手の装備枠: weapons and shields use 1 or 2 slots, magic none."""
    return sum(cards.card(c).hands for c in equipped)


def violations(cards: CardSet, race: Optional[str], equipped: tuple[str, ...],
               available: int) -> tuple[Violation, ...]:
    """Every rule of §5-4 装備枠 / 手の装備枠 / マテリアル the build breaks (empty = legal)."""
    if race is not None and _legal_at_a_glance(cards, equipped, available):
        return ()
    out: list[Violation] = []
    if race is None:
        out.append(Violation("no_race"))
    # §5-4: 同じ名前の装備カードは、種類にかかわらず2枚以上同時に装備できません — by the
    # printed name (Japanese or English), not the id: a defense and an attack card may share it.
    groups: list[tuple[set, list[str]]] = []
    for c in equipped:
        card = cards.card(c)
        names = {("ja", card.name.ja), ("en", card.name.en), ("id", card.id)}
        group = next((g for g in groups if g[0] & names), None)
        if group is None:
            groups.append((names, [c]))
        else:
            group[0].update(names)
            group[1].append(c)
    for _, group in groups:
        if len(group) > 1:
            out.append(Violation("same_name", tuple(group)))
    parts: dict[str, list[str]] = {}
    for c in equipped:
        card = cards.card(c)
        if card.type == "armor":
            parts.setdefault(card.part, []).append(c)
    for part, group in parts.items():
        if len(group) > 1:
            out.append(Violation("part", tuple(group), part=part))
    slots = hand_slots_used(cards, equipped)
    if slots > HAND_SLOTS:
        out.append(Violation("hand_slots", tuple(c for c in equipped if cards.card(c).hands),
                             have=slots, limit=HAND_SLOTS))
    cost, avail = equip_cost(cards, equipped), available
    if cost > avail:
        out.append(Violation("material", tuple(c for c in equipped if cards.card(c).cost),
                             have=cost, limit=avail))
    return tuple(out)


def _legal_at_a_glance(cards: CardSet, equipped: Iterable[str], available: int) -> bool:
    """No rule below is broken (issue 16: the AI tries many builds): no name shared by two
    cards (two cards share a group of `violations` exactly when they share a name), no
    armor part worn twice, at most HAND_SLOTS hand slots, the cost within `available`."""
    names: set = set()
    parts: set = set()
    slots = cost = count = 0
    for c in equipped:
        info = _INFO.get((cards, c))
        if info is None:
            card = cards.card(c)
            info = _INFO.put((cards, c), (
                (("ja", card.name.ja), ("en", card.name.en), ("id", card.id)),
                card.part if card.type == "armor" else None, card.hands, card.cost))
        keys, part, hands, c_cost = info
        names.update(keys)
        count += 1
        if part is not None:
            if part in parts:
                return False
            parts.add(part)
        slots += hands
        cost += c_cost
    return len(names) == 3 * count and slots <= HAND_SLOTS and cost <= available


# Per card set and copy id: (name keys, armor part or None, hand slots, equip cost).
_INFO: Memo = Memo(20_000)


def name_counts(cards: CardSet, equipped: Iterable[str]) -> Counter:
    return Counter(cards.card(c).id for c in equipped)
