"""Explicit evaluations the heuristic players use: what a card, an attack card or a whole
build is worth to a seat, computed from public card data and the seat's own knowledge."""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from typing import Iterable, Optional

from rules.build import final_stats, violations
from rules.cards import AttackCard, CardSet, DefenseCard, Skill, Stats

from .chips import expected_damage

# How much a usable skill of each effect kind is worth (in "expected damage" units).
SKILL_WEIGHT = {
    "add_zero_chips": 0.9, "add_crit_chips": 0.6, "crit_value": 0.4, "extra_targets": 1.2,
    "multi_area": 0.8, "damage_reduction": 0.9, "mana_reduction": 0.3,
    "move_then_attack": 0.6, "fixed_draws": 0.1, "counter_block": 0.5, "range": 0.0,
    "cause_crit": 0.6,
}
STAT_WEIGHT = {"mana": 0.35, "str": 0.12, "int": 0.12, "dex": 0.12, "def": 0.12, "agi": 0.2}


def race_stats(cards: CardSet, race: str) -> Stats:
    return cards.race(race).stats


def range_skills(card: AttackCard) -> list[Skill]:
    return [s for s in card.skills if s.effect.kind == "range"]


@lru_cache(maxsize=None)
def card_damage(chips: tuple[int, ...]) -> float:
    """Expected damage of a card's bag, half the time with a crit chip."""
    return (expected_damage(chips, 0) + expected_damage(chips, 1)) / 2


def attack_power(card: AttackCard, stats: Stats, series_ok: bool = True) -> float:
    """What an attack card is worth with these final stats: 0 if none of its range skills
    can be used; more for more usable ranges and usable extra skills."""
    if not series_ok:
        return 0.0
    usable = [s for s in range_skills(card) if s.requires.met_by(stats)]
    if not usable:
        return 0.0
    value = card_damage(tuple(card.chips)) + 0.25 * (len({s.effect.range for s in usable}) - 1)
    value += sum(SKILL_WEIGHT[s.effect.kind] for s in card.skills
                 if s.effect.kind != "range" and s.requires.met_by(stats)) * 0.5
    return value


def skill_value(cards: CardSet, skills: Iterable[Skill], stats: Stats) -> float:
    return sum(SKILL_WEIGHT[s.effect.kind] for s in skills if s.requires.met_by(stats)
               and s.effect.kind != "range")


def stat_value(mods: Stats) -> float:
    return sum(STAT_WEIGHT[k] * v for k, v in mods.items())


def defense_equip_value(cards: CardSet, card: DefenseCard, stats: Stats) -> float:
    """A defense card's worth equipped (its skills usable with `stats`, its modifiers)."""
    return _equip_value(cards, card, stats)


@lru_cache(maxsize=65536)
def _equip_value(cards: CardSet, card: DefenseCard, stats: Stats) -> float:
    return stat_value(card.mods) + skill_value(cards, card.skills, stats + card.mods) * 0.6


def draft_value(cards: CardSet, card: DefenseCard, races: Iterable[str], targets_bid: int) -> dict:
    """Value of a defense card in the draft for each use: equip (best race), material,
    bid (more when good bid targets are visible)."""
    equip = max(defense_equip_value(cards, card, race_stats(cards, r)) - 0.3 * card.cost
                for r in races)
    material = 0.45 * card.material
    bid = (0.25 * card.bid + (0.4 if card.bid >= 4 else 0.0)) * (1.0 if targets_bid else 0.5)
    return {"equip": equip, "material": material, "bid": bid}


def keep_value(cards: CardSet, card: DefenseCard, races: Iterable[str]) -> float:
    """What losing this card (paying it in a bid) costs the build."""
    v = draft_value(cards, card, races, 0)
    return max(v["equip"], v["material"])


def reachable_mods(cards: CardSet, owned_defense: Iterable[str]) -> Stats:
    """Per stat, the largest modifier one owned defense card could add (what a build
    could plausibly reach)."""
    best = {k: 0 for k in STAT_KEYS}
    for c in owned_defense:
        for k, v in cards.card(c).mods.items():
            best[k] = max(best[k], v)
    return Stats.of(**{("def_" if k == "def" else k): v for k, v in best.items()})


STAT_KEYS = ("mana", "str", "int", "dex", "def", "agi")


def target_value(cards: CardSet, card: AttackCard, races: Iterable[str],
                 owned_attack: Iterable[str], owned_defense: Iterable[str] = ()) -> float:
    """What winning a bid target is worth: its power for the best race candidate with the
    modifiers the seat's own cards could add, less if the seat already owns a usable
    attack card or its hands would not fit."""
    extra = reachable_mods(cards, owned_defense)
    # a series card's skills (its range skills too) work only with another card of its
    # series equipped (§5-4)
    mates = [c for c in list(owned_attack) + list(owned_defense) if cards.card(c).series == card.series]
    series_ok = card.series is None or bool(mates)
    best = max(attack_power(card, race_stats(cards, r) + extra, series_ok) for r in races)
    owned = [cards.card(c) for c in owned_attack]
    if owned:
        best_owned = max(max(attack_power(o, race_stats(cards, r)) for r in races) for o in owned)
        if best_owned > 0:
            best *= 0.45 if best <= best_owned else 0.7
        if card.type == "weapon" and any(o.type == "weapon" and o.hands == 2 for o in owned) \
                and card.hands == 2:
            best *= 0.6
    return best


# --------------------------------------------------------------------------- builds

def build_score(cards: CardSet, race: str, equipped: tuple[str, ...]) -> float:
    """The explicit evaluation of a build: its best attack, a second range, usable skills,
    mana for skills and agility for the processing order."""
    stats = final_stats(cards, race, equipped)
    attack_values = []
    ranges = set()
    for c in equipped:
        card = cards.card(c)
        if card.is_attack:
            ok = series_ok(cards, c, equipped)
            attack_values.append(attack_power(card, stats, ok))
            if ok:
                ranges |= {s.effect.range for s in range_skills(card) if s.requires.met_by(stats)}
    attack_values.sort(reverse=True)
    if not attack_values or attack_values[0] <= 0:
        score = -10.0
    else:
        score = attack_values[0] * 2 + sum(attack_values[1:2]) * 0.5 + 0.3 * (len(ranges) - 1)
    for c in equipped:
        card = cards.card(c)
        if not card.is_attack and series_ok(cards, c, equipped):
            score += skill_value(cards, card.skills, stats) * 0.6
    score += 0.25 * min(stats["mana"], 6) + 0.12 * stats["agi"]
    return score


def requirement_gaps(cards: CardSet, attack: Iterable[str], stats: Stats) -> dict[str, int]:
    """Per stat, how far the stats fall short of the easiest range skill of each attack
    card (0 where one is already usable)."""
    gaps: dict[str, int] = {}
    for c in attack:
        card = cards.card(c)
        options = []
        for sk in range_skills(card):
            short = {k: need - stats[k] for k, need in sk.requires.items() if need > stats[k]}
            options.append((sum(short.values()), short))
        if not options:
            continue
        total, short = min(options, key=lambda x: x[0])
        for k, v in short.items():
            gaps[k] = max(gaps.get(k, 0), v)
    return gaps


def gap_bonus(mods: Stats, gaps: dict[str, int]) -> float:
    """Worth of a card's modifiers for closing those gaps."""
    return 1.5 * sum(min(max(mods[k], 0), v) for k, v in gaps.items())


def series_ok(cards: CardSet, c: str, equipped: tuple[str, ...]) -> bool:
    s = cards.card(c).series
    return s is None or sum(1 for x in equipped if cards.card(x).series == s) >= 2


def best_build(cards: CardSet, races: Iterable[str], owned: tuple[str, ...],
               guild_bonus: int, score_fn=build_score
               ) -> tuple[float, str, tuple[str, ...], tuple[str, ...]]:
    """Search the legal builds: (score, race, equipped, materialized), by `score_fn`
    (race, equipped) — the normal player's `build_score` unless given.

    For each race and each fitting set of hand items (weapons and shields, ≤ 2 slots),
    the other defense cards are split between materialize and equip: cards sorted by how
    much more they are worth equipped than materialized, each prefix materialized, the
    rest equipped greedily by value per cost within the material budget."""
    attack = [c for c in owned if cards.card(c).is_attack]
    magic = tuple(c for c in attack if cards.card(c).type == "magic")
    hand_items = [c for c in owned if cards.card(c).hands]
    rest = [c for c in owned if not cards.card(c).is_attack and not cards.card(c).hands]
    best: Optional[tuple[float, str, tuple[str, ...], tuple[str, ...]]] = None
    combos: list[tuple[str, ...]] = [()]
    for k in (1, 2):
        for combo in combinations(hand_items, k):
            if sum(cards.card(c).hands for c in combo) <= 2 and \
                    len({cards.card(c).id for c in combo}) == len(combo):
                combos.append(combo)
    for race in races:
        stats0 = race_stats(cards, race)
        for combo in combos:
            base = tuple(dict.fromkeys(magic + combo))
            free = [c for c in hand_items if c not in combo and not cards.card(c).is_attack]
            pool = rest + free
            gaps = requirement_gaps(cards, base, stats0)
            worth = {c: defense_equip_value(cards, cards.card(c), stats0)
                     + gap_bonus(cards.card(c).mods, gaps) for c in pool}
            gain = sorted(pool, key=lambda c: worth[c] - 0.45 * cards.card(c).material)
            for m in range(0, len(gain) + 1):
                mat = tuple(gain[:m])
                budget = sum(cards.card(c).material for c in mat) + guild_bonus
                equip = list(base)
                cost = sum(cards.card(c).cost for c in base)
                if cost > budget:
                    continue
                cands = sorted(gain[m:], key=lambda c: -(worth[c] + 0.05) / (cards.card(c).cost + 1))
                for c in cands:
                    card = cards.card(c)
                    if worth[c] <= 0:
                        continue
                    if cost + card.cost > budget:
                        continue
                    trial = tuple(equip + [c])
                    if violations(cards, race, trial, budget):
                        continue
                    equip.append(c)
                    cost += card.cost
                eq = tuple(equip)
                if violations(cards, race, eq, budget):
                    continue
                score = score_fn(cards, race, eq)
                if best is None or score > best[0]:
                    best = (score, race, eq, mat)
    assert best is not None
    return best
