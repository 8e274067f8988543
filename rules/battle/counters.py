"""Counters (§6 カウンター, カウンターの処理, カウンターの制限 — both sections of that
name): who may counter — a target not knocked out with a range skill whose crit area
holds the attacker — one by one in processing order; the counter blocks of the attack;
and, when no counter is left, the attacker's turn going on (or ending, when the attacker
was knocked out). The legal list of the "counter" decision. A counter itself is made
like an attack (`stages`).

Imports `base`, `skills`, `attack` and `turns`.
"""

from __future__ import annotations

from ..actions import Decline
from ..events import CounterDeclined
from ..state import CHANGE, Attack, GameState
from .attack import attack_applied, starts
from .base import CH, DECLINE, Events
from .skills import effects
from .turns import after_action, end_turn


def _counter_options(state: GameState, seat: int) -> list:
    """§6 カウンター: a range skill the seat can use whose crit area holds the attacker."""
    ts = state.seats[state.battle.countered]
    if ts.knocked_out or ts.area is None:
        return []
    return starts(state, seat, True)


def legal_counter(state: GameState, seat: int) -> list:
    return _counter_options(state, seat) + [DECLINE[seat]]


def counter_blocked(state: GameState, atk: Attack, crit_targets: set[int]) -> set[int]:
    """§6 カウンターの制限: a counter block stops every target of the attack — 「スキルの効果文
    に適用するターゲットの指示がある場合は、その指示を優先します」: or only the targets it names,
    those with a crit (`targets = "crit"`) or those without (`"not_crit"`) (RULINGS R29)."""
    out: set[int] = set()
    for e in effects(state, attack_applied(state, atk), "counter_block"):
        if e.targets is None:
            out |= set(atk.targets)
        elif e.targets == "crit":
            out |= set(atk.targets) & crit_targets
        else:
            out |= set(atk.targets) - crit_targets
    return out


def next_counter(state: GameState, events: Events) -> GameState:
    """§6 カウンター: one by one in processing order, each target that can counter chooses;
    when none is left the attacker's turn goes on."""
    b = state.battle
    queue = b.counter_queue
    while queue and not _counter_options(state, queue[0]):
        queue = queue[1:]
    state = CHANGE["battle"](state, CH["queue"](b, queue))
    if queue:
        return state
    state = CHANGE["battle"](state, CH["after"](state.battle, None, None, False))
    turn_seat = state.battle.turn.seat
    if state.seats[turn_seat].knocked_out:
        return end_turn(state, "knocked_out", events)
    return after_action(state, events)


def apply_counter_decline(state: GameState, a: Decline, events: Events) -> GameState:
    events.append(CounterDeclined(a.seat))
    b = state.battle
    state = CHANGE["battle"](state, CH["queue"](b, b.counter_queue[1:]))
    return next_counter(state, events)
