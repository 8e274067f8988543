"""Why a battle action is refused (§6 throughout: アンラック, バトルチップを引く枚数, 手番,
移動, 休息, 継続スキル, 魔力を消費するスキル, アタック 1–5, アタックカードの距離, ターゲット
の選択, 複数スキル, 防御スキル, カウンター; §2 発動条件; §5-4 シリーズ効果; §4 / RULINGS R2
the guild's battle trait).

Each check mirrors a legal list (`turns.legal_turn`, `attack.legal_skills`,
`attack.legal_targets`, `attack.legal_defense`, `counters.legal_counter`) and `can_add`
/ `skills_of`, so the reason is the one that decided; tests/test_illegal_reasons.py
pins every code with a position and checks that no legal action is ever explained as
refused.

Imports `field`, `skills`, `attack` and `turns` (whose decision it is).
"""

from __future__ import annotations

from typing import Optional

from ..actions import (Activate, ChooseArea, ChooseTarget, Declare, Done, Draw, Move, Refusal,
                       Rest, StartAttack, StartCounter, Stop, UseUnluck, refuse)
from ..cards import Skill
from ..state import Attack, GameState, evolve
from .attack import (area_limit, attack_areas, area_seats, attack_skills, counter_distances,
                     countered, defense_process, defense_skills, defense_timings)
from .field import MAX_UNLUCK, RANGE_AREA, distance, in_range
from .skills import (TARGETING, blocking, cost_of, has_attack_cards, in_effect,
                     may_attack_after_move, min_cost, series_active, stats_of)
from .turns import pending_battle


def _fits_attack(sk: Skill, a: Attack) -> bool:
    """Targeting skills make no sense in a counter (its one target is the attacker)."""
    return not (a.counter and sk.effect.kind in TARGETING)


def explain_early(state: GameState, action: object) -> Optional[Refusal]:
    """Causes that hold whoever's decision it is: §6 アンラック (2 chips, before the
    draws) and §6 バトルチップを引く枚数 (only the attacker draws)."""
    b = state.battle
    s = action.seat  # type: ignore[attr-defined]
    name = type(action).__name__
    a = b.attack if b is not None else None
    if isinstance(action, UseUnluck):
        have = state.seats[s].unluck
        if have < MAX_UNLUCK:
            return refuse(state.cards, "unluck_not_enough", action=name, seat=s, have=have)
        if pending_battle(state) != ("unluck", (s,)):
            return refuse(state.cards, "unluck_not_now", action=name, seat=s)
    if isinstance(action, (Draw, Stop)):
        if a is None or a.stage != "draw" or pending_battle(state)[0] != "draw":
            return refuse(state.cards, "no_draw_now", action=name, seat=s)
        if s != a.attacker:
            return refuse(state.cards, "not_attacker", action=name, seat=s, attacker=a.attacker)
    return None


def explain(state: GameState, action: object, kind: str) -> Optional[Refusal]:
    """Why `action` of the seat whose decision `kind` it is is refused (§6), or None when
    the battle has nothing specific to say (the engine's generic reasons then apply)."""
    b = state.battle
    s = action.seat  # type: ignore[attr-defined]
    name = type(action).__name__
    cards = state.cards

    def no(code: str, **params: object) -> Refusal:
        return refuse(cards, code, action=name, seat=s, **params)

    if kind == "turn":
        t = b.turn
        if isinstance(action, (StartAttack, Move, Rest)) and not has_attack_cards(state, s):
            return no("no_attack_card_no_actions")
        if isinstance(action, (StartAttack, Move, Rest)) and (t.actions >= 2 or t.rested):
            return no("no_actions_left")
        if isinstance(action, StartAttack):
            if t.attacked:
                return no("already_attacked")
            if t.moves and not may_attack_after_move(state, s):
                return no("attack_after_move")
            return _start_problem(state, action, False, no)
        if isinstance(action, Move):
            # moves ≤ 2 needs no check of its own: 2 moves are 2 actions, the turn is over
            if action.step not in (1, -1):
                return no("bad_step", step=action.step)
        if isinstance(action, Rest) and t.actions:
            return no("rest_after_action", moves=t.moves, attacked=t.attacked)
        if isinstance(action, Activate):
            problem = _skill_problem(state, s, action.card, action.skill, ("turn",), "turn", no)
            if problem:
                return problem
            problem = _effect_problem(state, s, state.cards.skill(action.skill), no)
            if problem:
                return problem
            cost = cost_of(state, ((action.card, action.skill),), in_effect(state, s, "turn"))
            if cost > state.seats[s].mana:
                return no("not_enough_mana", skill=action.skill, cost=cost,
                          mana=state.seats[s].mana)
        return None
    a = b.attack
    if kind == "skills" and isinstance(action, Declare):
        timing = "counter" if a.counter else "attack"
        return _declare_problem(state, action, a.skills, (timing, "any"), timing,
                                state.seats[s].mana, a, no)
    if kind == "defense" and isinstance(action, Declare):
        mine = tuple((c, sk) for d, c, sk in a.defense if d == s)
        return _declare_problem(state, action, mine, defense_timings(a.counter),
                                defense_process(a.counter), state.seats[s].mana, None, no)
    if kind in ("skills", "defense") and isinstance(action, Done):
        declared = a.skills if kind == "skills" else \
            tuple((c, sk) for d, c, sk in a.defense if d == s)
        if kind == "skills" and a.range_skill is None:
            return no("range_skill_needed", card=a.card)
        process = defense_process(a.counter) if kind == "defense" else \
            "counter" if a.counter else "attack"
        cost = cost_of(state, declared,
                       in_effect(state, s, process, a.card if kind == "skills" else None))
        if cost > state.seats[s].mana:
            return no("declared_not_payable", cost=cost, mana=state.seats[s].mana)
        return None
    if kind == "targets":
        if isinstance(action, Declare) and s == a.attacker:
            timing = "counter" if a.counter else "attack"
            # mana is paid already; the set as declared is what any new skill must join
            return _declare_problem(state, action, a.skills, (timing, "any"), timing,
                                    None, a, no) or no("skills_closed", skill=action.skill)
        return _target_problem(state, action, a, no)
    if kind == "counter" and isinstance(action, StartCounter):
        return _start_problem(state, action, True, no)
    return None


def _effect_problem(state: GameState, seat: int, sk: Skill, no) -> Optional[Refusal]:
    """`effect_block`, with the skill in effect that blocks."""
    why, other = blocking(state, seat, sk)
    if why is None:
        return None
    return no(why, skill=sk.id, other_skill=other, family=sk.family)


def _skill_problem(state: GameState, seat: int, card: str, skill: str,
                   timings: tuple[str, ...], now: str, no) -> Optional[Refusal]:
    """`skills_of`: an equipped card, its own skill, the series active (§5-4 シリーズ効果),
    the timing (§6 アタックとスキルの使用タイミング) and the requirements (§2 発動条件) —
    or the seat's own guild battle trait, unused (RULINGS R2)."""
    guild = state.seats[seat].guild
    if card == guild:
        sk = state.cards.guild(guild).battle_skill
        if sk is None or sk.id != skill:
            return no("skill_not_on_card", card=card, skill=skill)
        if state.seats[seat].trait_used:
            return no("trait_used", skill=skill)
    elif any(g.id == card for g in state.cards.guilds):
        return no("trait_not_own", card=card)
    elif card not in state.seats[seat].equipped:
        return no("card_not_equipped", card=card)
    else:
        c = state.cards.card(card)
        sk = next((x for x in c.skills if x.id == skill), None)
        if sk is None:
            return no("skill_not_on_card", card=card, skill=skill)
    if card != guild and not series_active(state, seat, card):
        have = sum(1 for e in state.seats[seat].equipped
                   if state.cards.card(e).series == c.series)
        return no("series_inactive", card=card, skill=skill, series=c.series, have=have)
    if sk.timing not in timings:
        return no("wrong_timing", skill=skill, timing=sk.timing, now=now)
    stats = stats_of(state, seat)
    if not sk.requires.met_by(stats):
        need = sk.requires.as_dict()
        return no("requirements_not_met", skill=skill, requires=need,
                  have={k: stats[k] for k in need})
    return None


def _start_problem(state: GameState, action, counter: bool, no) -> Optional[Refusal]:
    """`starts`: §6 アタック 1–2 / カウンターの処理 1 — an equipped attack card and one of
    its range skills the seat meets, that fits where the seats stand, and with which a
    payable set of skills exists (reductions included, RULINGS R22). The card alone
    (`skill` None) is refused for the reason of its first range skill when none works."""
    s = action.seat
    timing = "counter" if counter else "attack"
    if action.card in state.seats[s].equipped and not state.cards.card(action.card).is_attack:
        return no("not_attack_card", card=action.card)
    if action.skill is None:
        if action.card not in state.seats[s].equipped:
            return no("card_not_equipped", card=action.card)
        problems = [_start_problem(state, evolve(action, skill=sk.id), counter, no)
                    for sk in state.cards.card(action.card).skills if sk.effect.kind == "range"]
        return None if None in problems else problems[0]
    problem = _skill_problem(state, s, action.card, action.skill, (timing, "any"), timing, no)
    if problem:
        return problem
    sk = state.cards.skill(action.skill)
    if sk.effect.kind != "range":
        return no("not_range_skill", card=action.card, skill=action.skill)
    problem = _range_problem(state, s, action.card, sk, counter, no)
    if problem:
        return problem
    opts = attack_skills(state, s, action.card, counter)
    cost = min_cost(state, ((action.card, sk.id),), opts, True,
                    in_effect(state, s, timing, action.card))
    if cost > state.seats[s].mana:
        return no("not_enough_mana", skill=sk.id, cost=cost, mana=state.seats[s].mana)
    return None


def _range_problem(state: GameState, seat: int, card: str, sk: Skill, counter: bool,
                   no) -> Optional[Refusal]:
    """`_range_fits`: §6 複数スキル 「ターゲットを1人も選べない場合はアタックできません」 /
    §6 カウンター (the attacker in the crit area of the range)."""
    rng_ = sk.effect.range
    if counter:
        target = countered(state)
        d = distance(state.seats[seat].area, state.seats[target].area)
        allowed = counter_distances(state, card, sk)
        if d not in allowed:
            return no("counter_not_in_crit", skill=sk.id, target=target, distance=d,
                      crit=allowed[0] if len(allowed) == 1 else "/".join(map(str, allowed)))
    elif not in_range(state, seat, rng_):
        return no("no_target_in_range", skill=sk.id, range=rng_)
    return None


def _declare_problem(state: GameState, action: Declare, declared: tuple[tuple[str, str], ...],
                     timings: tuple[str, ...], now: str, budget: Optional[int],
                     atk: Optional[Attack], no) -> Optional[Refusal]:
    """`legal_skills` / `legal_defense` and `can_add`: §6 魔力を消費するスキル (one skill
    per family, 併用不可, the whole set payable)."""
    s = action.seat
    cards = state.cards
    if atk is not None and action.card != atk.card and action.card in state.seats[s].equipped \
            and cards.card(action.card).is_attack \
            and any(x.id == action.skill for x in cards.card(action.card).skills):
        return no("other_attack_card", card=action.card, skill=action.skill)
    problem = _skill_problem(state, s, action.card, action.skill, timings, now, no)
    if problem:
        return problem
    sk = cards.skill(action.skill)
    problem = _effect_problem(state, s, sk, no)
    if problem:
        return problem
    if atk is not None:
        if sk.effect.kind == "range":
            if atk.range_skill is not None:
                return no("one_range_skill", skill=sk.id)
            if budget is not None:       # still declaring: the range must fit
                problem = _range_problem(state, s, action.card, sk, atk.counter, no)
                if problem:
                    return problem
        if not _fits_attack(sk, atk):
            return no("targeting_in_counter", skill=sk.id)
    if any(x == sk.id for _, x in declared):
        return no("already_declared", skill=sk.id)
    same = next((x for _, x in declared if cards.skill(x).family == sk.family
                 and not (cards.skill(x).combines or sk.combines)), None)
    if same is not None:
        return no("same_family", skill=sk.id, family=sk.family, other_skill=same)
    others = [x for _, x in declared if cards.skill(x).effect.kind != "range"]
    if sk.exclusive and others:
        return no("exclusive", skill=sk.id, other_skill=others[0])
    if sk.effect.kind != "range":
        lone = next((x for _, x in declared if cards.skill(x).exclusive), None)
        if lone is not None:
            return no("exclusive", skill=sk.id, other_skill=lone)
    if budget is not None:
        opts = attack_skills(state, s, atk.card, atk.counter) if atk is not None \
            else defense_skills(state, s)
        process = defense_process(state.battle.attack.counter) if atk is None else \
            "counter" if atk.counter else "attack"
        cost = min_cost(state, declared + ((action.card, sk.id),), opts, atk is not None,
                        in_effect(state, s, process, atk.card if atk is not None else None))
        if cost > budget:
            return no("not_enough_mana", skill=sk.id, cost=cost, mana=budget)
    return None


def _target_problem(state: GameState, action: object, a: Attack, no) -> Optional[Refusal]:
    """`legal_targets`: §6 アタック 4 / ターゲットの選択 / 複数スキル."""
    rng_ = state.cards.skill(a.range_skill).effect.range
    lo, hi = RANGE_AREA[rng_]
    areas = area_limit(state, a)
    if isinstance(action, ChooseTarget):
        if areas:
            return no("areas_not_targets")
        t = action.target
        if t == a.attacker:
            return no("target_self")
        if not isinstance(t, int) or not 0 <= t < state.players or not state.seats[t].entered:
            return no("target_not_on_field", target=t)
        if state.seats[t].knocked_out or state.seats[t].area is None:
            return no("target_knocked_out", target=t)
        d = distance(state.seats[a.attacker].area, state.seats[t].area)
        if not lo <= d <= hi:
            return no("target_not_in_area", target=t, distance=d, range=rng_, lo=lo, hi=hi)
    if isinstance(action, ChooseArea):
        if not areas:
            return no("targets_not_areas")
        if action.area not in attack_areas(state, a):
            return no("area_not_in_range", area=action.area, range=rng_, lo=lo, hi=hi)
        if action.area in a.areas:
            return no("area_already_chosen", area=action.area)
        last = len(a.areas) == areas - 1
        if last and not a.targets and not area_seats(state, a, [action.area]):
            return no("area_no_target", area=action.area)
        return None
    if isinstance(action, Done) and not a.targets:
        return no("no_target_chosen")
    return None
