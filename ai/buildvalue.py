"""A learned value of a build, for the hard player's build, bidding and draft decisions.

`build_features` describes a build (race + equipped cards) by what the battle (§6) uses:
the final stats (§2), which attack ranges it can use (short / mid / long), how many attack
cards are usable, the best usable card's expected damage, and one indicator per card that
is equipped *and working* (series complete, §5-4; for an attack card, at least one range
skill whose requirements the final stats meet). A card equipped but not working counts
only in "idle cards".

`build_value` is the logistic model `BUILD_WEIGHTS` over those features: the chance that
a seat with this build wins a game of normal players, fitted per player count by
`bench/fit_hard_build.py` on normal self-play (the builds every seat revealed, and who
won). Features without a weight (a card added to `cards.toml` after the fit) count 0.
"""

from __future__ import annotations

import math
from typing import Iterable, Optional

from rules.build import final_stats
from rules.cards import STATS, CardSet
from rules.memo import Memo

from .evaluate import card_damage
from .build_weights import BUILD_WEIGHTS

RANGES = ("short", "mid", "long")

_CACHE: Memo = Memo(50_000)


def build_features(cards: CardSet, race: str, equipped: Iterable[str]) -> dict[str, float]:
    """The sparse feature dict of a build (see the module docstring)."""
    equipped = tuple(equipped)
    key = (id(cards), race, tuple(sorted(equipped)))
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is cards:
        return hit[1]
    stats = final_stats(cards, race, equipped)
    f: dict[str, float] = {"race:" + race: 1.0}
    for name, v in zip(STATS, stats.values):
        f["stat:" + name] = float(v)
    series_count: dict[str, int] = {}
    for c in equipped:
        s = cards.card(c).series
        if s is not None:
            series_count[s] = series_count.get(s, 0) + 1
    ranges: set[str] = set()
    usable = 0
    best_damage = 0.0
    idle = 0
    for c in equipped:
        card = cards.card(c)
        works = card.series is None or series_count.get(card.series, 0) >= 2
        if works and card.is_attack:
            got = {sk.effect.range for sk in card.skills
                   if sk.effect.kind == "range" and sk.timing in ("attack", "any")
                   and sk.requires.met_by(stats)}
            if got:
                ranges |= got
                usable += 1
                best_damage = max(best_damage, card_damage(tuple(card.chips)))
            else:
                works = False
        if works:
            f["card:" + card.id] = f.get("card:" + card.id, 0.0) + 1.0
        else:
            idle += 1
    for r in RANGES:
        if r in ranges:
            f["range:" + r] = 1.0
    f["ranges"] = float(len(ranges))
    f["usable attacks"] = float(usable)
    f["no attack"] = 1.0 if not usable else 0.0
    f["best damage"] = best_damage
    f["idle cards"] = float(idle)
    _CACHE.put(key, (cards, f))
    return f


def weights_for(players: int) -> dict[str, float]:
    """The fitted weights for a player count (3, 4 or 5: each has its own fit)."""
    return BUILD_WEIGHTS[players]


def build_logit(cards: CardSet, race: str, equipped: Iterable[str],
                weights: Optional[dict[str, float]] = None, players: int = 4) -> float:
    """The model's log-odds to win with this build (`weights`, or those fitted for
    `players`)."""
    w = weights_for(players) if weights is None else weights
    f = build_features(cards, race, equipped)
    return w.get("bias", 0.0) + sum(w.get(k, 0.0) * v for k, v in f.items())


def build_value(cards: CardSet, race: str, equipped: Iterable[str],
                weights: Optional[dict[str, float]] = None, players: int = 4) -> float:
    """The model's chance to win with this build (0..1)."""
    z = build_logit(cards, race, equipped, weights, players)
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
