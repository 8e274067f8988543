"""The chip bag and the draws (§6 アタック 6–8 / カウンターの処理 2–4): what goes in the
bag — the card's point chips, the miss chip, crit chips (§6 アタックカードの距離) and the
targets' zero chips (§6 防御スキル) — drawing one chip at a time by the rulebook's decision
flow (§6 バトルチップを引く枚数, 判断フロー), the running total (§6 ダメージ), and unluck
(§6 アンラック). The legal lists of the "unluck" and "draw" decisions.

Imports `base`, `skills` and `attack`.
"""

from __future__ import annotations

from typing import Iterable, Optional

from .. import rng as R
from ..actions import Draw, Stop, UseUnluck
from ..chance import pick_chip
from ..events import BagFilled, ChipDrawn
from ..state import CHANGE, Attack, GameState
from .attack import attack_applied, critical_targets, defense_applied
from .base import CH, DECLINE, Events, set_attack
from .skills import effects

# §6 ダメージ: the value of each point chip (a crit chip counts 2 unless a skill says
# otherwise: `damage`).
POINT = {"0": 0, "1": 1, "2": 2}
# Actions are values: one object per seat (Config: at most 5 seats) serves every list.
_DRAW, _STOP, _USE_UNLUCK = (tuple(cls(seat) for seat in range(5))
                             for cls in (Draw, Stop, UseUnluck))


def fill_bag(state: GameState, events: Events) -> GameState:
    """§6 アタック 6–7 / 防御スキル: the card's 5 point chips + 1 miss chip (none with
    unluck) + crit chips + zero chips (the largest count any one target adds). The
    drawing is the caller's (`stages`: then `draw_chip`)."""
    atk = state.battle.attack
    card = state.cards.card(atk.card)
    bag = [str(c) for c in card.chips]
    if not atk.unluck_used:
        bag.append("miss")
    extra = sum(e.count for e in effects(state, attack_applied(state, atk), "add_crit_chips"))
    if atk.counter:
        crits = extra
    else:
        crits = (1 + extra) if critical_targets(state, atk) else 0
    bag += ["crit"] * crits
    zeros = max([sum(e.count for e in effects(state, defense_applied(state, atk, t), "add_zero_chips"))
                 for t in set(atk.targets)] + [0])
    bag += ["0"] * zeros
    bag_t = tuple(sorted(bag))
    events.append(BagFilled(atk.attacker, bag_t))
    return set_attack(state, stage="draw", bag=bag_t)


def _draw_limit(state: GameState, atk: Attack) -> Optional[int]:
    fixed = effects(state, attack_applied(state, atk), "fixed_draws")
    return fixed[0].count if fixed else None


def running_total(drawn: Iterable[str]) -> int:
    """The attacker's running total (crit counted 2; a miss loses everything)."""
    drawn = list(drawn)
    if "miss" in drawn:
        return 0
    return sum(2 if c == "crit" else POINT[c] for c in drawn)


def draw_chip(state: GameState, events: Events) -> tuple[GameState, str]:
    """§6 バトルチップを引く枚数 — one chip, then the decision flow of the rulebook
    (`draw_outcome`): more chips while a fixed number of draws goes on. Returns the state
    and the outcome of the last chip — "choose" (the attacker's decision), or why the
    drawing ended, which the caller resolves (`damage.resolve`)."""
    while True:
        atk = state.battle.attack
        if state.script.chips:
            i, state = pick_chip(state, atk.bag)
            rs = state.rng
        else:                           # `pick_chip`, its RNG draw set with the chip below
            i, rs = R.below(state.rng, len(atk.bag))
        chip = atk.bag[i]
        bag = atk.bag[:i] + atk.bag[i + 1:]
        drawn = atk.drawn + (chip,)
        b = state.battle
        state = CHANGE["rng_battle"](state, rs, CH["attack"](b, CH["drawn"](atk, bag, drawn)))
        events.append(ChipDrawn(atk.attacker, chip, running_total(drawn)))
        end = draw_outcome(drawn, bool(bag), atk.unluck_used, _draw_limit(state, atk))
        if end != "continue":
            return state, end


def draw_outcome(drawn: tuple[str, ...], bag_left: bool, unluck: bool,
                 fixed: Optional[int]) -> str:
    """The rulebook's decision flow after a chip is drawn. Returns "choose" (continue or
    stop is the attacker's choice), "continue" (a fixed number of draws goes on), or why
    the drawing ended: miss | zero_after_point | zero_third | empty | limit.

    §6 判断フロー: a miss ends it (total lost); a 0 after any chip ≥1 ends it; a 0 as the
    3rd or later chip ends it; an empty bag ends it; a 0 as the 1st or 2nd with nothing
    ≥1 yet is a choice; a ≥1 chip as the 1st or 2nd is a choice, as the 3rd or later a
    choice of one more draw. Unluck: at most 3 draws. A fixed number of draws: exactly
    that many, no choice, no continuation (the automatic ends still apply).
    """
    chip = drawn[-1]
    k = len(drawn)
    if chip == "miss":
        return "miss"
    if chip == "0":
        if any(c != "0" for c in drawn[:-1]):
            return "zero_after_point"
        if k >= 3:
            return "zero_third"
    if not bag_left:
        return "empty"
    if fixed is not None:
        return "continue" if k < fixed else "limit"
    if unluck and k >= 3:
        return "limit"
    return "choose"


def legal_unluck(state: GameState, seat: int) -> list:
    return [_USE_UNLUCK[seat], DECLINE[seat]]


def legal_draw(state: GameState, seat: int) -> list:
    return [_DRAW[seat], _STOP[seat]]
