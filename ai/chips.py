"""The draw-or-stop decision, solved exactly (like optimal Pig).

The bag's contents are public, so the value of every continuation can be enumerated:
`decide(bag, drawn, unluck, fixed, utility)` compares the utility of stopping now with
the expected utility of drawing on under the best policy, following the rulebook's
decision flow (`rules.battle.draw_outcome`).

A utility maps the chips drawn (point sum and number of crit chips) to a value — e.g.
expected victory points against the targets, or plain damage.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Callable, Optional

from rules.battle import draw_outcome

Utility = Callable[[int, int], float]     # (point sum, crit chips) -> value
POINTS = {"0": 0, "1": 1, "2": 2, "crit": 0, "miss": 0}


def _synthetic(k: int, any_pos: bool, last: str) -> tuple[str, ...]:
    """A drawn sequence with the same flow-relevant facts (count, any chip ≥1 before the
    last, the last chip)."""
    if k == 1:
        return (last,)
    prefix = ("1",) + ("0",) * (k - 2) if any_pos else ("0",) * (k - 1)
    return prefix + (last,)


class Solver:
    """Memoised optimal values for one utility."""

    def __init__(self, utility: Utility, unluck: bool = False, fixed: Optional[int] = None,
                 miss_value: Optional[float] = None) -> None:
        self.u = utility
        self.unluck = unluck
        self.fixed = fixed
        self.miss_value = utility(0, 0) if miss_value is None else miss_value
        # A plain dict, not `lru_cache` over a bound method: that made every solver a
        # reference cycle, garbage only the cyclic collector frees (issue 16: thousands
        # of them per searched decision of the hard player, collected within its budget).
        self._memo: dict = {}

    def _after(self, bag: tuple[str, ...], k: int, pts: int, crits: int, any_pos: bool,
               chip: str) -> float:
        """Expected utility just after `chip` was drawn (bag already without it)."""
        if chip == "miss":
            return self.miss_value
        npts, ncrits = pts + POINTS[chip], crits + (chip == "crit")
        outcome = draw_outcome(_synthetic(k, any_pos, chip), bool(bag), self.unluck, self.fixed)
        pos = any_pos or chip not in ("0",)
        if outcome == "choose":
            return self._value(bag, k, npts, ncrits, pos)
        if outcome == "continue":
            return self.draw_value(bag, k, npts, ncrits, pos)
        return self.u(npts, ncrits)

    def draw_value(self, bag: tuple[str, ...], k: int, pts: int, crits: int, any_pos: bool) -> float:
        """Expected utility of drawing one more chip (k chips drawn so far)."""
        if not bag:
            return self.u(pts, crits)
        counts = Counter(bag)
        total = len(bag)
        value = 0.0
        for chip, n in counts.items():
            rest = list(bag)
            rest.remove(chip)
            value += n / total * self._after(tuple(rest), k + 1, pts, crits, any_pos, chip)
        return value

    def _value(self, bag: tuple[str, ...], k: int, pts: int, crits: int,
               any_pos: bool) -> float:
        """The value at a choice point: the better of stopping and drawing on (memoised)."""
        key = (bag, k, pts, crits, any_pos)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = max(self.u(pts, crits),
                                        self.draw_value(bag, k, pts, crits, any_pos))
        return got

    def should_draw(self, bag: tuple[str, ...], drawn: tuple[str, ...]) -> tuple[bool, float, float]:
        """(draw?, value of stopping, value of drawing) at a choice point."""
        pts = sum(POINTS[c] for c in drawn)
        crits = sum(1 for c in drawn if c == "crit")
        any_pos = any(c != "0" for c in drawn)
        stop = self.u(pts, crits)
        go = self.draw_value(tuple(sorted(bag)), len(drawn), pts, crits, any_pos)
        return go > stop + 1e-12, stop, go

    def start_value(self, bag: tuple[str, ...]) -> float:
        """Expected utility of an attack with this bag, played optimally."""
        return self.draw_value(tuple(sorted(bag)), 0, 0, 0, False)


def damage_utility(crit_value: int = 2, reduction: int = 0) -> Utility:
    return lambda pts, crits: max(0, pts + crits * crit_value - reduction)


@lru_cache(maxsize=4096)
def expected_damage(chips: tuple[int, ...], crits: int = 0, miss: bool = True) -> float:
    """Expected damage of an attack card's bag under the damage-maximising policy."""
    bag = tuple(sorted([str(c) for c in chips] + ["crit"] * crits + (["miss"] if miss else [])))
    return Solver(damage_utility()).start_value(bag)
