"""An attack's declaration (§6 アタック 1–6) and a counter's (§6 カウンターの処理 1): which
attack card and range skill a seat may start with and which skills it may declare with
them (§6 アタックカードの距離, RULINGS R21 R22), the attack area and its targets (§6
ターゲットの選択, 複数スキル), the targets' defense skills (§6 防御スキル, 攻撃), the skills
that apply to the attack and to each target, and the targets a crit occurs for (§6
アタックカードの距離 クリティカルエリア, RULINGS R28). The legal lists of the "skills",
"targets" and "defense" decisions.

Imports `field`, `base` and `skills`.
"""

from __future__ import annotations

from typing import Iterable, Optional

from ..actions import ChooseArea, ChooseTarget, Declare, StartAttack, StartCounter
from ..cards import Skill
from ..memo import Memo
from ..state import Attack, GameState
from .base import DONE, memo_list
from .field import AREAS, RANGE_AREA, RANGE_CRIT, distance, in_range, targetable
from .skills import (TARGETING, applied, can_add, completable, cost_of, effect_block, effects,
                     in_effect, skills_of)

# Per seat, per target seat / area: the choice (actions are values: one object serves).
_CHOOSE_TARGET = tuple(tuple(ChooseTarget(seat, t) for t in range(5)) for seat in range(5))
_CHOOSE_AREA = tuple(tuple(ChooseArea(seat, x) for x in range(AREAS + 1)) for seat in range(5))


def _with_card(state: GameState, pool: Iterable[tuple[str, Skill]], card: str,
               counter: bool) -> list[tuple[str, Skill]]:
    """§6 魔力を消費するスキル 「そのカードによる1回のアタックまたはカウンターでは、発動条件を
    満たすスキルを任意で使用できます」: in an attack or counter made with attack card `card`,
    the skills of `card` itself and of the seat's defense cards — never those printed on
    another attack card (RULINGS R21). Targeting skills have nothing to do in a counter,
    whose one target is the attacker (RULINGS R24)."""
    return [(c, sk) for c, sk in pool
            if (c == card or not state.cards.card(c).is_attack)
            and not (counter and sk.effect.kind in TARGETING)]


def _range_fits(state: GameState, seat: int, card: str, sk: Skill, counter: bool) -> bool:
    """A range skill that can be used where the seats stand: an attack needs somebody in
    its attack area (§6 複数スキル 「ターゲットを1人も選べない場合はアタックできません」), a
    counter the attacker at a distance the card counters from (§6 カウンター)."""
    if counter:
        ts = state.seats[countered(state)]
        if ts.knocked_out or ts.area is None:
            return False
        return distance(state.seats[seat].area, ts.area) in counter_distances(state, card, sk)
    return bool(in_range(state, seat, sk.effect.range))


def counter_distances(state: GameState, card: str, sk: Skill) -> tuple[int, ...]:
    """§6 カウンター: the crit area of the range skill — or, §8 FAQ 「カードやスキルに別の
    記載がある場合は、その記載に従います」, the distances the card states (RULINGS R30)."""
    return state.cards.card(card).counter_distances or (RANGE_CRIT[sk.effect.range],)


def countered(state: GameState) -> int:
    """The seat a counter is (to be) made against: the target of the counter in progress,
    else the attacker whose attack is being answered."""
    a = state.battle.attack
    if a is not None and a.counter and a.stage != "done":
        return a.targets[0]
    return state.battle.countered


def attack_skills(state: GameState, seat: int, card: str, counter: bool,
                  pool: Optional[list[tuple[str, Skill]]] = None) -> list[tuple[str, Skill]]:
    """(card, skill) the seat may declare in an attack or counter made with `card`: timing,
    requirements and series (`skills_of`), the card rule (`_with_card`), and of the range
    skills only those that fit (`_range_fits`). Mana is checked with `completable`."""
    if pool is None:
        pool = skills_of(state, seat, ("counter" if counter else "attack", "any"))
    return [(c, sk) for c, sk in _with_card(state, pool, card, counter)
            if (sk.effect.kind != "range" or _range_fits(state, seat, c, sk, counter))
            and effect_block(state, seat, sk) is None]


def defense_timings(counter: bool) -> tuple[str, ...]:
    """§6 攻撃: the timings a target declares at — 被攻撃時 as the target of an attack or a
    counter, and 被カウンター時 too as the target of a counter (the attacker countered)."""
    return ("defend", "countered") if counter else ("defend",)


def defense_process(counter: bool) -> str:
    return "countered" if counter else "defend"


def defense_skills(state: GameState, seat: int) -> list[tuple[str, Skill]]:
    """(card, skill) the seat may declare as the target of the attack or counter in
    progress (被攻撃時, and 被カウンター時 in a counter), not blocked by its continuous skills
    in effect (`effect_block`)."""
    counter = state.battle.attack.counter
    return [(c, sk) for c, sk in skills_of(state, seat, defense_timings(counter))
            if effect_block(state, seat, sk) is None]


def starts(state: GameState, seat: int, counter: bool) -> list:
    """§6 アタック 1–2 / カウンターの処理 1: per equipped attack card, each range skill with
    which a usable, payable set of skills exists — `StartAttack(card, range)`, the range
    declared first — and, if there is one, the card alone — `StartAttack(card)`, the range
    skill then declared among the others, in any order (RULINGS R22).

    They depend only on the seat's build and mana and on the distances that decide which
    range skills fit (`_range_fits`): memoised by those values (issue 16)."""
    s = state.seats[seat]
    if s.area is None:
        return _starts_of(state, seat, counter)
    key = (state.cards, seat, s.race, s.equipped, s.guild, s.trait_used, s.mana, s.active,
           counter, where(state, seat, counter))
    return memo_list(_STARTS, key, _starts_of, state, seat, counter)


_STARTS: Memo = Memo(20_000)


def where(state: GameState, seat: int, counter: bool):
    """What `_range_fits` reads of where the seats stand (the seat on the field): for a
    counter, the distance to the seat countered (None when it is off the field); for an
    attack, per range of RANGE_AREA whether somebody is in its attack area."""
    here = state.seats[seat].area
    if counter:
        ts = state.seats[countered(state)]
        return None if ts.knocked_out or ts.area is None else distance(here, ts.area)
    mask = 0                        # bit d set: a target at distance d (0..3)
    for i, t in enumerate(state.seats):
        if i != seat and t.entered and not t.knocked_out and t.area is not None:
            mask |= _BIT[(here - t.area) % AREAS]       # `distance`, by a table
    return _REACH[mask]


# Per (a - b) % AREAS: the bit of `distance(a, b)`.
_BIT = tuple(1 << min(d, AREAS - d) for d in range(AREAS))


# Per mask of the distances (0..3) at which targets stand: per range of RANGE_AREA, is
# one of them in its attack area.
_REACH = tuple(tuple(any(lo <= d <= hi for d in range(4) if mask >> d & 1)
                     for lo, hi in RANGE_AREA.values()) for mask in range(16))


def _starts_of(state: GameState, seat: int, counter: bool) -> list:
    pool = skills_of(state, seat, ("counter" if counter else "attack", "any"))
    mana = state.seats[seat].mana
    cls = StartCounter if counter else StartAttack
    out: list = []
    for c in state.seats[seat].equipped:
        if not state.cards.card(c).is_attack:
            continue
        fx = in_effect(state, seat, "counter" if counter else "attack", c)
        opts = attack_skills(state, seat, c, counter, pool)
        found = [cls(seat, c, sk.id) for c2, sk in opts
                 if c2 == c and sk.effect.kind == "range"
                 and completable(state, ((c, sk.id),), opts, mana, True, fx)]
        if found:
            out += found + [cls(seat, c)]
    return out


def legal_skills(state: GameState, seat: int) -> list:
    """§6 アタック 2–3 / カウンターの処理 1: declare skills of the attack's card and of
    defense cards (the range skill too, if the attack began with the card alone) while a
    usable set stays reachable; Done once a range skill is declared and the whole set is
    payable — the mana of all is then paid at once.

    It depends on the seat's build, guild trait and mana, the attack's card and declared
    skills, and where the seats stand as far as `_range_fits` reads it (`where`):
    memoised by those values (issue 16)."""
    a = state.battle.attack
    s = state.seats[seat]
    if s.area is None:
        return _legal_skills(state, seat)
    key = (state.cards, seat, s.race, s.equipped, s.guild, s.trait_used, s.mana, s.active,
           a.card, a.counter, a.skills, a.range_skill, where(state, seat, a.counter))
    return memo_list(_SKILL_LISTS, key, _legal_skills, state, seat)


_SKILL_LISTS: Memo = Memo(20_000)


def _legal_skills(state: GameState, seat: int) -> list:
    a = state.battle.attack
    opts = attack_skills(state, seat, a.card, a.counter)
    budget = state.seats[seat].mana
    fx = in_effect(state, seat, "counter" if a.counter else "attack", a.card)
    out: list = [Declare(seat, c, sk.id) for c, sk in opts
                 if can_add(state, seat, a.skills, c, sk, budget, opts, True, fx)]
    if a.range_skill is not None and cost_of(state, a.skills, fx) <= budget:
        out.append(DONE[seat])
    return out


def attack_applied(state: GameState, a: Attack) -> tuple[tuple[str, str], ...]:
    """The attacker's skills that apply to this attack or counter: the declared ones and
    its continuous skills in effect that fit (`applied`; §6 継続スキル, RULINGS R23)."""
    if not state.seats[a.attacker].active:
        return a.skills
    fx = in_effect(state, a.attacker, "counter" if a.counter else "attack", a.card)
    return applied(state, fx, a.skills)


def target_limit(state: GameState, a: Attack) -> int:
    return 1 + sum(e.count for e in effects(state, attack_applied(state, a), "extra_targets"))


def area_limit(state: GameState, a: Attack) -> int:
    return sum(e.count for e in effects(state, attack_applied(state, a), "multi_area"))


def attack_areas(state: GameState, a: Attack) -> list[int]:
    lo, hi = RANGE_AREA[state.cards.skill(a.range_skill).effect.range]
    here = state.seats[a.attacker].area
    return [x for x in range(1, AREAS + 1) if lo <= distance(here, x) <= hi]


def area_seats(state: GameState, a: Attack, areas: Iterable[int]) -> list[int]:
    areas = set(areas)
    return [i for i in targetable(state, a.attacker) if state.seats[i].area in areas]


def legal_targets(state: GameState, seat: int) -> list:
    """§6 ターゲットの選択 / 複数スキル."""
    a = state.battle.attack
    if area_limit(state, a):
        out: list = []
        last = len(a.areas) == area_limit(state, a) - 1
        for x in attack_areas(state, a):
            if x in a.areas:
                continue
            if last and not a.targets and not area_seats(state, a, [x]):
                continue  # the last area must leave at least one target
            out.append(_CHOOSE_AREA[seat][x])
    else:
        rng_ = state.cards.skill(a.range_skill).effect.range
        out = [_CHOOSE_TARGET[seat][t] for t in in_range(state, seat, rng_)]
    if a.targets:
        out.append(DONE[seat])
    return out


def legal_defense(state: GameState, seat: int) -> list:
    """§6 防御スキル: a target declares skills of "when attacked" timing. It depends on the
    seat's build, guild trait and mana and on what it has declared: memoised by those
    values (issue 16)."""
    a = state.battle.attack
    mine = tuple([(c, s) for d, c, s in a.defense if d == seat])
    s = state.seats[seat]
    key = (state.cards, seat, s.race, s.equipped, s.guild, s.trait_used, s.mana, s.active, mine,
           a.counter)
    return memo_list(_DEFENSE_LISTS, key, _legal_defense, state, seat, mine)


_DEFENSE_LISTS: Memo = Memo(20_000)


def _legal_defense(state: GameState, seat: int, mine: tuple) -> list:
    budget = state.seats[seat].mana
    opts = defense_skills(state, seat)
    fx = in_effect(state, seat, defense_process(state.battle.attack.counter))
    out: list = [Declare(seat, c, sk.id) for c, sk in opts
                 if can_add(state, seat, mine, c, sk, budget, opts, False, fx)]
    if cost_of(state, mine, fx) <= budget:
        out.append(DONE[seat])
    return out


def defense_order(state: GameState, atk: Attack) -> list[int]:
    seats = set(atk.targets)
    return [s for s in state.order if s in seats]


def critical_targets(state: GameState, atk: Attack) -> set[int]:
    """Targets for whom a crit occurs: in the crit area of the range skill (an attack;
    a counter has no automatic crit)."""
    if atk.counter:
        return set()
    crit = RANGE_CRIT[state.cards.skill(atk.range_skill).effect.range]
    here = state.seats[atk.attacker].area
    # §6 「スキルにクリティカルを発生させる効果がある場合も、その効果の条件を満たすと
    # クリティカルが発生します」 (RULINGS R28): cause_crit at its distance (or any)
    caused = [e.value for e in effects(state, attack_applied(state, atk), "cause_crit")]
    return {t for t in atk.targets
            if (d := distance(here, state.seats[t].area)) == crit
            or any(v is None or v == d for v in caused)}


def defense_applied(state: GameState, atk: Attack, seat: int) -> tuple[tuple[str, str], ...]:
    """A target's skills that apply to this attack or counter (被攻撃時): the declared
    ones and its continuous skills in effect that fit (`applied`, RULINGS R23)."""
    declared = tuple([(c, s) for d, c, s in atk.defense if d == seat])
    return applied(state, in_effect(state, seat, defense_process(atk.counter)), declared)
