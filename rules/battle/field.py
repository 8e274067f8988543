"""§6 フィールド and the battle's numbers: the six areas in a ring and their distances,
the attack area and crit area of each range (§6 アタックカードの距離), who stands on the
field to be targeted (§6 登場と初期手番, 体力とノックアウト), and the limits of §6
(体力とノックアウト: HP 6; バトルの目的: 5 VP; アンラック: 2 unluck chips).

The lowest of the battle's modules: it imports none of them.
"""

from __future__ import annotations

from ..state import GameState

MAX_HP = 6
VP_TO_WIN = 5
MAX_UNLUCK = 2
AREAS = 6
# §6 アタックカードの距離: distances of the attack area and of the crit area per range.
RANGE_AREA = {"short": (0, 1), "mid": (1, 2), "long": (2, 3)}
RANGE_CRIT = {"short": 1, "mid": 2, "long": 3}


def distance(a: int, b: int) -> int:
    """§6 フィールド: areas 1..6 in a ring; the shorter way round (0..3)."""
    d = abs(a - b) % AREAS
    return min(d, AREAS - d)


def step_area(area: int, step: int) -> int:
    return (area - 1 + step) % AREAS + 1


def targetable(state: GameState, attacker: int) -> list[int]:
    """Entered, not knocked-out seats other than the attacker (§6 登場と初期手番)."""
    return [i for i, s in enumerate(state.seats)
            if i != attacker and s.entered and not s.knocked_out and s.area is not None]


def in_range(state: GameState, attacker: int, rng_: str) -> list[int]:
    lo, hi = RANGE_AREA[rng_]
    here = state.seats[attacker].area
    return [i for i in targetable(state, attacker)
            if lo <= distance(here, state.seats[i].area) <= hi]
