"""What an attack or counter does once the drawing ends (§6 アタック 9–12 / カウンターの処理
5–6): the damage to each target — point chips, crit chips as their skills count them, the
targets' reductions (§6 ダメージ, 複数のターゲットへのアタック) — the unluck chip of a miss
(§6 ダメージ, アンラック), HP and knock-outs (§6 体力とノックアウト), victory points once
per target seat (§6 体力による勝利点), the end of the game at 5 VP (§6 バトルの終了), then
the counters (§6 カウンター).

Imports `field`, `base`, `skills`, `attack`, `turns`, `chips` and `counters`.
"""

from __future__ import annotations

from ..events import DamageDealt, DrawEnded, KnockedOut, UnluckGained, VictoryPointsGained
from ..state import CHANGE, Attack, GameState
from .attack import attack_applied, critical_targets, defense_applied, defense_order
from .base import CH, Events
from .chips import POINT, running_total
from .counters import counter_blocked, next_counter
from .field import MAX_UNLUCK, VP_TO_WIN
from .skills import effects
from .turns import game_over


def _damage_for(state: GameState, atk: Attack, target: int, crit_targets: set[int]) -> int:
    """§6 ダメージ for one target: point chips + crit chips (2, or as a skill changes it —
    0 for a target outside the crit area, RULINGS), less the target's reductions."""
    if "miss" in atk.drawn:
        return 0
    crit_value = 2
    att = effects(state, attack_applied(state, atk), "crit_value")
    if att:
        crit_value = att[0].value
    mine = defense_applied(state, atk, target)
    dv = effects(state, mine, "crit_value")
    if dv:
        crit_value = dv[0].value
    if not atk.counter and target not in crit_targets:
        crit_value = 0
    total = sum(crit_value if c == "crit" else POINT[c] for c in atk.drawn)
    reduction = sum(e.amount for e in effects(state, mine, "damage_reduction"))
    return max(0, total - reduction)


def resolve(state: GameState, reason: str, events: Events) -> GameState:
    """§6 アタック 9–12: damage to each target (as often as chosen), VP once per target
    seat on what it took, knock-outs, then counters; the game ends at 5 VP."""
    atk = state.battle.attack
    events.append(DrawEnded(atk.attacker, reason, running_total(atk.drawn)))
    if reason == "miss":
        s = state.seats[atk.attacker]
        if s.unluck < MAX_UNLUCK:
            state = state.with_seat(atk.attacker, unluck=s.unluck + 1)
            events.append(UnluckGained(atk.attacker, s.unluck + 1))
    crit_targets = critical_targets(state, atk)
    attacker = atk.attacker
    seats = list(state.seats)       # changed as the damage goes; the state copied once
    for t in defense_order(state, atk):
        times = atk.targets.count(t)
        per_hit = _damage_for(state, atk, t, crit_targets)    # reads no seat it changes
        taken = per_hit * times
        s = seats[t]
        hp = max(0, s.hp - taken)
        events.append(DamageDealt(attacker, t, taken, hp))
        gained = 0
        low = s.low
        if taken > 0:
            if not s.low and hp <= 4:
                gained += 1
                low = True
            if hp == 0:
                gained += 2
        if hp == 0:
            seats[t] = CH["knocked_out"](s, hp, low, True, None)
            events.append(KnockedOut(t, attacker))
        elif hp != s.hp or low != s.low:
            seats[t] = CH["hurt"](s, hp, low)
        if gained:
            vp = seats[attacker].vp + gained
            seats[attacker] = CH["vp"](seats[attacker], vp)
            kind = {1: "low", 2: "knockout", 3: "low_knockout"}[gained]
            events.append(VictoryPointsGained(attacker, t, gained, kind, vp))
    state = CHANGE["seats"](state, tuple(seats))
    if state.seats[attacker].vp >= VP_TO_WIN:      # §6 アタック 12 — after all damage
        return game_over(state, (attacker,), "vp", events)
    b = state.battle
    done = CH["stage"](atk, "done")
    if not atk.counter:
        stopped = counter_blocked(state, atk, crit_targets)
        blocked = bool(stopped)
        queue = tuple(t for t in defense_order(state, atk)
                      if not state.seats[t].knocked_out and t not in stopped)
        b = CH["resolved"](b, done, queue, attacker, blocked)
    else:
        b = CH["attack"](b, done)
    state = CHANGE["battle"](state, b)
    return next_counter(state, events)
