"""An attack or counter from stage to stage (§6 アタック 1–13 / カウンターの処理 1–7): it
is started with a card and range skill, skills declared and paid (continuous ones turn
their cards sideways, §6 継続スキル), targets chosen (§6 ターゲットの選択, 複数スキル),
defense skills declared and paid in processing order (§6 防御スキル), unluck offered (§6
アンラック), the bag filled and the chips drawn (`chips`), the result resolved
(`damage`), and counters offered (`counters`). This module drives those below it.

`LEGAL` (decision kind -> its legal list) and `APPLY` (action class -> its `apply`) are
what the engine calls.

The highest of the battle's modules: imports every other one but `refusals`.
"""

from __future__ import annotations

from typing import Iterable

from ..actions import (Activate, ChooseArea, ChooseTarget, Decline, Declare, Done, Draw, EndTurn,
                       Move, Rest, StartAttack, StartCounter, Stop, UseUnluck)
from ..events import (AreaChosen, AttackStarted, ManaPaid, SkillActivated, SkillDeclared,
                      TargetChosen, UnluckUsed)
from ..state import CHANGE, Active, Attack, GameState, evolve
from .attack import (area_limit, area_seats, defense_order, defense_process, legal_defense,
                     legal_skills, legal_targets, target_limit)
from .base import CH, DONE, Events, prime, set_attack
from .chips import draw_chip, fill_bag, legal_draw, legal_unluck
from .counters import apply_counter_decline, legal_counter
from .damage import resolve
from .field import MAX_UNLUCK
from .skills import cost_of, in_effect, use_trait
from .turns import (apply_activate, apply_end_turn, apply_move, apply_rest, legal_turn,
                    pending_battle)


def apply_start_attack(state: GameState, a: StartAttack | StartCounter, events: Events) -> GameState:
    """§6 アタック 1–3 / カウンターの処理 1: the card and range skill are declared; other
    skills follow, and mana for all is paid when the declaration is done."""
    counter = isinstance(a, StartCounter)
    b = state.battle
    target = b.countered if counter else None
    events.append(AttackStarted(a.seat, a.card, a.skill, counter, target))
    atk = Attack(attacker=a.seat, counter=counter, card=a.card, range_skill=a.skill,
                 skills=((a.card, a.skill),) if a.skill is not None else ())
    if counter:
        atk = evolve(atk, targets=(target,))
        b = CH["queue_attack"](b, b.counter_queue[1:], atk)
    else:
        b = evolve(b, turn=CH["attacked"](b.turn, True), attack=atk)
    state = CHANGE["battle"](state, b)
    return _skills_stage(state, events)


def _skills_stage(state: GameState, events: Events) -> GameState:
    a = state.battle.attack
    if a.stage != "skills":           # (an attack begins in that stage)
        state = set_attack(state, stage="skills")
    legal = legal_skills(state, a.attacker)
    if legal == [DONE[a.attacker]]:  # nothing else to declare
        return _finish_skills(state, events)
    prime(state, "skills", a.attacker, legal)
    return state


def apply_declare(state: GameState, a: Declare, events: Events) -> GameState:
    atk = state.battle.attack
    events.append(SkillDeclared(a.seat, a.card, a.skill))
    state = use_trait(state, a.seat, a.card, a.skill, events)
    if atk.stage == "skills":
        changes: dict = {"skills": atk.skills + ((a.card, a.skill),)}
        if state.cards.skill(a.skill).effect.kind == "range":
            changes["range_skill"] = a.skill
        state = set_attack(state, **changes)
        legal = legal_skills(state, a.seat)
        if legal == [DONE[a.seat]]:
            return _finish_skills(state, events)
        prime(state, "skills", a.seat, legal)
        return state
    state = set_attack(state, defense=atk.defense + ((a.seat, a.card, a.skill),))
    if legal_defense(state, a.seat) == [DONE[a.seat]]:
        return _finish_defense(state, a.seat, events)
    return state


def apply_done(state: GameState, a: Done, events: Events) -> GameState:
    atk = state.battle.attack
    if atk.stage == "skills":
        return _finish_skills(state, events)
    if atk.stage == "targets":
        return _finish_targets(state, events)
    return _finish_defense(state, a.seat, events)


def _finish_skills(state: GameState, events: Events) -> GameState:
    """§6 アタック 3: pay the mana of every declared skill (after reductions); the
    continuous ones among them turn their cards sideways (`_continue`)."""
    atk = state.battle.attack
    paid = cost_of(state, atk.skills,
                   in_effect(state, atk.attacker, "counter" if atk.counter else "attack",
                             atk.card))
    s = state.seats[atk.attacker]
    state = state.with_seat(atk.attacker, mana=s.mana - paid)
    events.append(ManaPaid(atk.attacker, paid, s.mana - paid))
    state = _continue(state, atk.attacker, atk.skills, events)
    if atk.counter:
        return _defense_stage(state, events)
    state = set_attack(state, stage="targets")
    return state


def apply_choose_target(state: GameState, a: ChooseTarget, events: Events) -> GameState:
    atk = state.battle.attack
    events.append(TargetChosen(a.seat, a.target))
    state = set_attack(state, targets=atk.targets + (a.target,))
    if len(atk.targets) + 1 >= target_limit(state, atk):
        return _finish_targets(state, events)
    return state


def apply_choose_area(state: GameState, a: ChooseArea, events: Events) -> GameState:
    atk = state.battle.attack
    events.append(AreaChosen(a.seat, a.area))
    new = tuple(area_seats(state, atk, [a.area]))
    for t in new:
        events.append(TargetChosen(a.seat, t))
    state = set_attack(state, areas=atk.areas + (a.area,), targets=atk.targets + new)
    if len(atk.areas) + 1 >= area_limit(state, atk):
        return _finish_targets(state, events)
    return state


def _finish_targets(state: GameState, events: Events) -> GameState:
    return _defense_stage(state, events)


def _defense_stage(state: GameState, events: Events) -> GameState:
    """§6 アタック 5: targets declare defense skills and pay, in processing order."""
    atk = state.battle.attack
    done = atk.defenders_done
    for seat in defense_order(state, atk):
        if seat in done:
            continue
        legal = legal_defense(state, seat)      # it does not read defenders_done
        if legal != [DONE[seat]]:
            state = set_attack(state, stage="defense", defender=seat, defenders_done=done)
            prime(state, "defense", seat, legal)
            return state
        done += (seat,)
    if done != atk.defenders_done:
        state = set_attack(state, defenders_done=done)
    return _unluck_stage(state, events)


def _continue(state: GameState, seat: int, declared: Iterable[tuple[str, str]],
              events: Events) -> GameState:
    """§6 継続スキル 「継続スキルを発動したときは、そのスキルを持つカードを横向きにします。
    カードが横向きの間、そのスキルは発動中です」: a continuous skill declared in an attack,
    counter or defense stays in effect, once paid, until its end timing — a defense skill
    keeps reducing the next attack of the round with no second payment (RULINGS R23)."""
    cards = state.cards
    new = tuple(Active(c, x, cards.skill(x).continuous) for c, x in declared
                if cards.skill(x).continuous)
    if not new:
        return state
    for a in new:
        events.append(SkillActivated(seat, a.card, a.skill, 0))
    return state.with_seat(seat, active=state.seats[seat].active + new)


def _finish_defense(state: GameState, seat: int, events: Events) -> GameState:
    atk = state.battle.attack
    mine = tuple((c, s) for d, c, s in atk.defense if d == seat)
    paid = cost_of(state, mine, in_effect(state, seat, defense_process(atk.counter)))
    s = state.seats[seat]
    state = state.with_seat(seat, mana=s.mana - paid)
    if mine:
        events.append(ManaPaid(seat, paid, s.mana - paid))
    state = _continue(state, seat, mine, events)
    state = set_attack(state, defenders_done=atk.defenders_done + (seat,), defender=None)
    return _defense_stage(state, events)


def _unluck_stage(state: GameState, events: Events) -> GameState:
    atk = state.battle.attack
    if state.seats[atk.attacker].unluck >= MAX_UNLUCK:
        return set_attack(state, stage="unluck")
    return _draw(fill_bag(state, events), events)


def apply_unluck(state: GameState, a: UseUnluck | Decline, events: Events) -> GameState:
    """§6 アンラック: spend both chips — no miss chip, at most 3 draws."""
    if isinstance(a, UseUnluck):
        state = state.with_seat(a.seat, unluck=0)
        state = set_attack(state, unluck_used=True)
        events.append(UnluckUsed(a.seat))
    return _draw(fill_bag(state, events), events)


def _draw(state: GameState, events: Events) -> GameState:
    """§6 バトルチップを引く枚数: draw (`chips.draw_chip`) until the attacker decides or
    the drawing ends, which is then resolved (`damage.resolve`)."""
    state, end = draw_chip(state, events)
    if end == "choose":
        return state
    return resolve(state, end, events)


def apply_draw(state: GameState, a: Draw, events: Events) -> GameState:
    return _draw(state, events)


def apply_stop(state: GameState, a: Stop, events: Events) -> GameState:
    return resolve(state, "stop", events)


def apply_battle_decline(state: GameState, a: Decline, events: Events) -> GameState:
    kind, _ = pending_battle(state)
    if kind == "unluck":
        return apply_unluck(state, a, events)
    return apply_counter_decline(state, a, events)


APPLY = {
    Move: apply_move, Rest: apply_rest, EndTurn: apply_end_turn, Activate: apply_activate,
    StartAttack: apply_start_attack, StartCounter: apply_start_attack, Declare: apply_declare,
    Done: apply_done, ChooseTarget: apply_choose_target, ChooseArea: apply_choose_area,
    UseUnluck: apply_unluck, Draw: apply_draw, Stop: apply_stop,
}


LEGAL = {"turn": legal_turn, "skills": legal_skills, "targets": legal_targets,
         "defense": legal_defense, "unluck": legal_unluck, "draw": legal_draw,
         "counter": legal_counter}
