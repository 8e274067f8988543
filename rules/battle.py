"""§6 バトル: entries, turns, moves, rest, attacks, the chip bag, damage, victory points,
knock-outs and counters, with skills driven by the card data.

Called by `engine`; every function here is pure (state in, state out, events appended).
Where the rulebook is silent the behaviour is a ruling in docs/RULINGS.md.
"""

from __future__ import annotations

from typing import Iterable, Optional

from . import rng as R
from .chance import pick_chip, roll
from .memo import Memo
from .actions import (Activate, ChooseArea, ChooseTarget, Decline, Declare, Done, Draw, EndTurn,
                      Move, Refusal, Rest, StartAttack, StartCounter, Stop, UseUnluck, refuse)
from .build import final_stats
from .cards import Skill, Stats
from .events import TraitUsed                      # §4 / RULINGS R2: a battle trait is used
from .events import (AreaChosen, AttackStarted, BagFilled, BattleStarted, ChipDrawn,
                     CounterDeclined, DamageDealt, DieRolled, DrawEnded, Entered, Event,
                     GameOver, KnockedOut, ManaPaid, Moved, PhaseStarted, Rested,
                     SkillActivated, SkillDeclared, SkillEnded, TargetChosen, TurnEnded,
                     TurnStarted, UnluckGained, UnluckUsed, VictoryPointsGained)
from .state import (CHANGE, Active, Attack, BattleState, Changers, GameState, Phase, SeatState,
                    Turn, changer, evolve)

Events = list[Event]

# Hot updates of the battle (issue 16): `changer`s, each written on first use.
_CH = Changers(attack=(BattleState, ("attack",)), turn=(BattleState, ("turn",)),
               next_turn=(BattleState, ("round", "attack", "turn")),
               queue=(BattleState, ("counter_queue",)),
               queue_attack=(BattleState, ("counter_queue", "attack")),
               after=(BattleState, ("attack", "countered", "blocked")),
               resolved=(BattleState, ("attack", "counter_queue", "countered", "blocked")),
               moves=(Turn, ("moves",)), rested=(Turn, ("rested",)),
               attacked=(Turn, ("attacked",)), area=(SeatState, ("area",)),
               stage=(Attack, ("stage",)),
               knocked_out=(SeatState, ("hp", "low", "knocked_out", "area")),
               hurt=(SeatState, ("hp", "low")), vp=(SeatState, ("vp",)),
               drawn=(Attack, ("bag", "drawn")))

MAX_HP = 6
VP_TO_WIN = 5
MAX_UNLUCK = 2
AREAS = 6
# §6 アタックカードの距離: distances of the attack area and of the crit area per range.
RANGE_AREA = {"short": (0, 1), "mid": (1, 2), "long": (2, 3)}
RANGE_CRIT = {"short": 1, "mid": 2, "long": 3}
POINT = {"0": 0, "1": 1, "2": 2}


def distance(a: int, b: int) -> int:
    """§6 フィールド: areas 1..6 in a ring; the shorter way round (0..3)."""
    d = abs(a - b) % AREAS
    return min(d, AREAS - d)


def step_area(area: int, step: int) -> int:
    return (area - 1 + step) % AREAS + 1


# ------------------------------------------------------------------------------- skills

def stats_of(state: GameState, seat: int) -> Stats:
    s = state.seats[seat]
    return final_stats(state.cards, s.race, s.equipped)


def series_active(state: GameState, seat: int, card: str) -> bool:
    """§5-4: a series card's own skills work only with 2+ equipped cards of its series."""
    series = state.cards.card(card).series
    if series is None:
        return True
    return sum(1 for c in state.seats[seat].equipped
               if state.cards.card(c).series == series) >= 2


def card_skills_of(state: GameState, seat: int, timings: Iterable[str]) -> list[tuple[str, Skill]]:
    """(card, skill) of the seat's equipped cards whose timing fits and whose requirements
    the final stats meet (§2 スキルの発動条件) — mana is checked separately."""
    timings = tuple(timings)
    s = state.seats[seat]
    # They depend on the build alone, fixed in the battle: memoised by value (issue 16).
    key = (state.cards, s.race, s.equipped, timings)
    got = _SKILLS.get(key)
    if got is None:
        stats = stats_of(state, seat)
        out = []
        for card in s.equipped:
            if not series_active(state, seat, card):
                continue
            for sk in state.cards.card(card).skills:
                if sk.timing in timings and sk.requires.met_by(stats):
                    out.append((card, sk))
        got = _SKILLS.put(key, tuple(out))
    return list(got)


_SKILLS: Memo = Memo(20_000)


def skills_of(state: GameState, seat: int, timings: Iterable[str]) -> list[tuple[str, Skill]]:
    """`card_skills_of`, and the seat's guild battle trait while unused, where its timing
    fits and its requirements are met (RULINGS R2), as (guild id, skill)."""
    timings = tuple(timings)
    out = card_skills_of(state, seat, timings)
    trait = battle_trait(state, seat)
    if trait is not None and trait.timing in timings and trait.requires.met_by(stats_of(state, seat)):
        out.append((state.seats[seat].guild, trait))
    return out


def battle_trait(state: GameState, seat: int) -> Optional[Skill]:
    """§4 「ギルド特性に「各バトル中1回」と記載されている場合、その使用回数はゲーム中1回です」
    (RULINGS R2): the seat's guild battle trait while it is unused — a skill declared like a
    card's, as (guild id, skill id), never applied by itself (§2 発動条件と消費魔力)."""
    s = state.seats[seat]
    return None if s.trait_used else state.cards.guild(s.guild).battle_skill


def _use_trait(state: GameState, seat: int, card: str, skill: str, events: Events) -> GameState:
    """A declared battle trait is used up for the rest of the game (RULINGS R2)."""
    if card != state.seats[seat].guild:
        return state
    events.append(TraitUsed(seat, card, skill))
    return state.with_seat(seat, trait_used=True)


def has_attack_cards(state: GameState, seat: int) -> bool:
    equipped = state.seats[seat].equipped
    got = _HAS_ATTACK.get((state.cards, equipped))
    if got is None:
        got = _HAS_ATTACK.put((state.cards, equipped), any(
            state.cards.card(c).is_attack for c in equipped))
    return got


_HAS_ATTACK: Memo = Memo(20_000)


def cost_of(state: GameState, declared: Iterable[tuple[str, str]],
            effect: tuple[tuple[str, str], ...] = ()) -> int:
    """§6 魔力軽減: each skill's mana less the reductions of the *other* declared skills,
    floored at 0 — and of the seat's continuous skills in effect that apply to the
    process (`effect`: `in_effect`; those a declared skill of their family displaces do
    not, `applied`), which are paid already."""
    declared = list(declared)
    skills = [state.cards.skill(s) for _, s in declared]
    base = 0
    if effect:
        base = sum(state.cards.skill(x).effect.amount or 0
                   for _, x in applied(state, effect, declared)
                   if state.cards.skill(x).effect.kind == "mana_reduction")
    total = 0
    for i, sk in enumerate(skills):
        reduction = base + sum(o.effect.amount or 0 for j, o in enumerate(skills)
                               if j != i and o.effect.kind == "mana_reduction")
        total += max(0, sk.mana - reduction)
    return total


# §6 継続スキル 「カードが横向きの間、そのスキルは発動中です」: the processes of its owner a
# continuous skill in effect applies to, by its timing (§6 アタックとスキルの使用タイミング):
# a turn skill to all of them, an attack / counter / any skill to the owner's attacks /
# counters / both, a 被攻撃時 skill when the owner is a target (RULINGS R23).
_PROCESS_TIMINGS = {"attack": ("attack", "any", "turn"), "counter": ("counter", "any", "turn"),
                    "defend": ("defend", "turn"), "countered": ("defend", "countered", "turn"),
                    "turn": ("turn",)}


def in_effect(state: GameState, seat: int, process: str,
              card: Optional[str] = None) -> tuple[tuple[str, str], ...]:
    """(card, skill) of the seat's continuous skills in effect (cards sideways) that apply
    to a `process` of the seat — "attack", "counter", "defend" (a target of an attack),
    "countered" (the target of a counter) or "turn" (RULINGS R23). In an attack or
    counter made with attack card `card`, a skill printed on another attack card applies
    only if it is a turn skill (RULINGS R21: an attack card's skills belong to attacks
    made with it). Targeting skills do nothing in a counter, whose one target is the
    attacker (R24). A turn skill's crit value is its owner's as an attacker (its card
    text: 「引いたクリティカルチップを…として数える」), not as a target."""
    active = state.seats[seat].active
    if not active:
        return ()
    fits = _PROCESS_TIMINGS[process]
    skill = state.cards.skill
    out = []
    for a in active:
        sk = skill(a.skill)
        if sk.timing not in fits:
            continue
        if process == "counter" and sk.effect.kind in TARGETING:
            continue
        if process in ("defend", "countered") and sk.timing == "turn" \
                and sk.effect.kind == "crit_value":
            continue
        if card is not None and sk.timing != "turn" and a.card != card \
                and _is_attack_card(state, a.card):
            continue
        out.append((a.card, a.skill))
    return tuple(out)


def _is_attack_card(state: GameState, card: str) -> bool:
    """An equipped attack card (not a defense card, nor a guild's battle trait)."""
    try:
        return state.cards.card(card).is_attack
    except KeyError:                    # a guild id: its battle trait (RULINGS R2)
        return False


def _share_a_process(a: Skill, b: Skill) -> bool:
    """Could both skills apply to one process of their owner (their timings)?"""
    return any(a.timing in fits and b.timing in fits for fits in _PROCESS_TIMINGS.values())


def applied(state: GameState, effect: tuple[tuple[str, str], ...],
            declared: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """§6 魔力を消費するスキル 「同じ1回の処理で同じ系統のスキルを複数適用または使用すること
    はできません。同じ系統の複数のスキルが条件を満たす場合、その中から1つを選び、ほかの同系統
    のスキルは適用または使用しません」: the skills that apply to one process — the declared
    ones, and the continuous skills in effect (`effect`) whose family no declared skill
    has (a skill declared in the process is the seat's choice over one in effect of its
    family; R27's combining skills excepted). RULINGS R23."""
    declared = tuple(declared)
    if not effect:
        return declared
    skill = state.cards.skill
    mine = [skill(x) for _, x in declared]
    out = list(declared)
    for c, x in effect:
        sk = skill(x)
        if any(d.id == sk.id or (d.family == sk.family and not (d.combines or sk.combines))
               for d in mine):
            continue
        out.append((c, x))
    return tuple(out)


def effect_block(state: GameState, seat: int, sk: Skill) -> Optional[str]:
    """Why `sk` cannot be used by `seat` while its continuous skills are in effect, or
    None: the skill itself is in effect (its card is sideways: 「効果文に記載された終了タイミング
    になったら、カードを縦向きに戻してスキルを解除します」 — no second use before then), or `sk`
    is continuous and a continuous skill of its family is in effect with a timing that
    shares a process with it (they would apply side by side in every later process of
    the seat they share; RULINGS R23)."""
    return _blocking(state, seat, sk)[0]


def _blocking(state: GameState, seat: int, sk: Skill) -> tuple[Optional[str], Optional[str]]:
    """(`effect_block`'s code, the skill in effect that blocks), or (None, None)."""
    active = state.seats[seat].active
    if not active:
        return None, None
    skill = state.cards.skill
    for a in active:
        other = skill(a.skill)
        if a.skill == sk.id:
            return "skill_already_active", a.skill
        if sk.continuous and other.family == sk.family and not (other.combines or sk.combines) \
                and _share_a_process(other, sk):
            return "same_family_in_effect", a.skill
    return None, None


def compatible(state: GameState, declared: Iterable[tuple[str, str]], skill: Skill) -> bool:
    """§6 魔力を消費するスキル: may `skill` join the declared skills of one process? Not
    twice; one skill per family (「同じ1回の処理で同じ系統のスキルを複数…使用することはでき
    ません」); one range skill (§6 アタックカードの距離 「1回の処理で選べる距離は1つです」);
    併用不可 skills stand alone (the range skill does not count, RULINGS R16). Mana is
    checked apart (`completable`)."""
    cards = state.cards
    declared = [cards.skill(s) for _, s in declared]
    if any(d.id == skill.id for d in declared):
        return False
    if any(d.family == skill.family and not (d.combines or skill.combines) for d in declared):
        return False                    # 併用が明記されている場合は、その記載に従います (R27)
    others = [d for d in declared if d.effect.kind != "range"]
    if skill.exclusive and others:
        return False
    if skill.effect.kind == "range":
        return not any(d.effect.kind == "range" for d in declared)
    return not any(d.exclusive for d in declared)


def completable(state: GameState, declared: tuple[tuple[str, str], ...],
                options: Iterable[tuple[str, Skill]], budget: int, need_range: bool,
                effect: tuple[tuple[str, str], ...] = ()) -> bool:
    """Can the declared skills still become a set the seat may use — with one range skill
    (an attack or counter; `need_range`) and a mana to pay, after reductions, of at most
    `budget` — by declaring more of `options`? §6: 「現在魔力が0になった場合も、魔力軽減
    効果によって支払う魔力が0になるスキルは使用できます」 and the skills are declared before
    the mana is paid (アタック 3 「…スキルを宣言し、魔力を消費します」), so what counts is
    the whole set, not the order of declaring (RULINGS R22). Only a range skill and mana
    reductions can make a set complete or cheaper, so only they are tried."""
    return min_cost(state, declared, options, need_range, effect) <= budget


def min_cost(state: GameState, declared: tuple[tuple[str, str], ...],
             options: Iterable[tuple[str, Skill]], need_range: bool,
             effect: tuple[tuple[str, str], ...] = ()) -> float:
    """The least mana any usable completion of `declared` by `options` would pay (see
    `completable`); infinity when there is none (no range skill can join)."""
    cards = state.cards
    declared = tuple(declared)
    extra = [(c, sk) for c, sk in options if (c, sk.id) not in declared
             and (sk.effect.kind == "mana_reduction" or (need_range and sk.effect.kind == "range"))]
    best = [float("inf")]

    def search(decl: tuple[tuple[str, str], ...], start: int) -> None:
        if not need_range or any(cards.skill(x).effect.kind == "range" for _, x in decl):
            best[0] = min(best[0], cost_of(state, decl, effect))
            if best[0] == 0:
                return
        for j in range(start, len(extra)):
            c, sk = extra[j]
            if compatible(state, decl, sk):
                search(decl + ((c, sk.id),), j + 1)
                if best[0] == 0:
                    return

    search(declared, 0)
    return best[0]


def can_add(state: GameState, seat: int, declared: tuple[tuple[str, str], ...],
            card: str, skill: Skill, budget: int,
            options: Iterable[tuple[str, Skill]] = (), need_range: bool = False,
            effect: tuple[tuple[str, str], ...] = ()) -> bool:
    """§6: `skill` may join the declared skills (`compatible`), and the set can still be
    completed and paid (`completable`, with the other declarable `options` and the
    continuous skills in `effect`)."""
    return compatible(state, declared, skill) and completable(
        state, declared + ((card, skill.id),), options, budget, need_range, effect)


def _effects(state: GameState, declared: Iterable[tuple[str, str]], kind: str) -> tuple:
    """The effects of kind `kind` of the declared (card, skill) pairs, in order; memoised
    by value (issue 16)."""
    if type(declared) is not tuple:
        declared = tuple(declared)
    key = (state.cards, declared, kind)
    got = _EFFECTS.get(key)
    if got is None:
        skill = state.cards.skill
        got = _EFFECTS.put(key, tuple([e for e in [skill(s).effect for _, s in declared]
                                       if e.kind == kind]))
    return got


_EFFECTS: Memo = Memo(20_000)


def _active_effects(state: GameState, seat: int, kind: str) -> list:
    return [state.cards.skill(a.skill).effect for a in state.seats[seat].active
            if state.cards.skill(a.skill).effect.kind == kind]


# ------------------------------------------------------------------------ battle flow

def start_battle(state: GameState, events: Events) -> GameState:
    """§6 バトルの準備: HP 6, current mana = final mana; then in processing order each seat
    rolls, enters and takes its initial turn."""
    for i in range(state.players):
        mana = stats_of(state, i)["mana"]
        state = state.with_seat(i, hp=MAX_HP, mana=max(0, mana), low=False)
    events.append(BattleStarted(state.order))
    battle = BattleState(round=0, turn=Turn(state.order[0]))
    state = evolve(state, battle=battle)
    return _begin_turn(state, state.order[0], events, fresh=True)


def _begin_turn(state: GameState, seat: int, events: Events, fresh: bool = False) -> GameState:
    """Start `seat`'s turn: its continuous skills that end at its next turn's start end
    (§6 継続スキル), entry (round 0) or re-entry after a knock-out, then wait for its
    decision. With no attack card equipped: §6 アタックカードを装備していない場合 「移動、
    アタック、休息を行わず、その場に留まったまま手番を終了します」 — the turn ends by itself,
    unless a continuous turn skill (no action, RULINGS R23) can be activated, or nobody at
    the table has an attack card: then ending the turn is the seat's one decision, so a
    battle nobody can win still waits for its players instead of turning for ever inside
    `apply` (RULINGS R19)."""
    b = state.battle
    if not fresh:                   # `fresh`: the battle already holds Turn(seat)
        state = CHANGE["battle"](state, _CH["turn"](b, _TURN[seat]))
    s = state.seats[seat]
    ending = tuple(a for a in s.active if a.until == "next_turn_start") if s.active else ()
    if ending:
        for a in ending:
            events.append(SkillEnded(seat, a.card, a.skill))
        state = state.with_seat(seat, active=tuple(a for a in s.active if a not in ending))
    events.append(TurnStarted(seat, b.round))
    if not s.entered or s.knocked_out:
        area, state = roll(state)
        reenter = s.knocked_out
        events.append(DieRolled(seat, area, "reenter" if reenter else "enter"))
        state = state.with_seat(
            seat, area=area, entered=True, knocked_out=False, hp=MAX_HP, low=False)
        events.append(Entered(seat, area, reenter))
    if not has_attack_cards(state, seat) and not _activations(state, seat) \
            and any(has_attack_cards(state, i) for i in range(state.players)):
        return _end_turn(state, "no_attack_cards", events)
    return state


def _end_turn(state: GameState, reason: str, events: Events) -> GameState:
    """The turn ends: every continuous skill that lasts until the end of the turn ends —
    the turn seat's, and one a target declared in this turn (§6 継続スキル 「効果文に記載
    された終了タイミングになったら、カードを縦向きに戻してスキルを解除します」) — and the
    next seat in processing order begins. Only 5 VP ends the game (§6 「誰かが勝利点チップ
    を5枚獲得するまで、ラウンドを繰り返します」, RULINGS R19)."""
    b = state.battle
    seat = b.turn.seat
    for i, s in enumerate(state.seats):
        if not s.active:
            continue
        ending = tuple(a for a in s.active if a.until == "turn_end")
        for a in ending:
            events.append(SkillEnded(i, a.card, a.skill))
        if ending:
            state = state.with_seat(i, active=tuple(a for a in s.active if a not in ending))
    events.append(TurnEnded(seat, reason))
    idx = state.order.index(seat) + 1
    rnd = b.round
    if idx >= len(state.order):
        idx, rnd = 0, rnd + 1
    state = CHANGE["battle"](state, _CH["next_turn"](b, rnd, None, _TURN[state.order[idx]]))
    return _begin_turn(state, state.order[idx], events, fresh=True)


def _game_over(state: GameState, winners: tuple[int, ...], reason: str,
               events: Events) -> GameState:
    """§6 バトルの終了: a seat holds 5 VP — the one end the rulebook has."""
    events.append(GameOver(winners, reason))
    events.append(PhaseStarted(Phase.OVER))
    if state.battle is not None:   # nothing is in progress any more
        state = evolve(state, battle=evolve(state.battle, attack=None,
                                                        counter_queue=(), countered=None))
    return evolve(state, phase=Phase.OVER, winners=winners, end_reason=reason)


# ------------------------------------------------------------------------------ pending

def pending_battle(state: GameState) -> tuple[str, tuple[int, ...]]:
    b = state.battle
    a = b.attack
    if b.counter_queue and (a is None or a.stage == "done"):
        return "counter", (b.counter_queue[0],)
    if a is None:
        return "turn", (b.turn.seat,)
    if a.stage == "defense":
        return "defense", (a.defender,)
    return a.stage, (a.attacker,)


# ---------------------------------------------------------------------- legal actions

def _targetable(state: GameState, attacker: int) -> list[int]:
    """Entered, not knocked-out seats other than the attacker (§6 登場と初期手番)."""
    return [i for i, s in enumerate(state.seats)
            if i != attacker and s.entered and not s.knocked_out and s.area is not None]


def _in_range(state: GameState, attacker: int, rng_: str) -> list[int]:
    lo, hi = RANGE_AREA[rng_]
    here = state.seats[attacker].area
    return [i for i in _targetable(state, attacker)
            if lo <= distance(here, state.seats[i].area) <= hi]


TARGETING = ("extra_targets", "multi_area", "counter_block")


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
        ts = state.seats[_countered(state)]
        if ts.knocked_out or ts.area is None:
            return False
        return distance(state.seats[seat].area, ts.area) in counter_distances(state, card, sk)
    return bool(_in_range(state, seat, sk.effect.range))


def counter_distances(state: GameState, card: str, sk: Skill) -> tuple[int, ...]:
    """§6 カウンター: the crit area of the range skill — or, §8 FAQ 「カードやスキルに別の
    記載がある場合は、その記載に従います」, the distances the card states (RULINGS R30)."""
    return state.cards.card(card).counter_distances or (RANGE_CRIT[sk.effect.range],)


def _countered(state: GameState) -> int:
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


def _starts(state: GameState, seat: int, counter: bool) -> list:
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
           counter, _where(state, seat, counter))
    return _memo_list(_STARTS, key, _starts_of, state, seat, counter)


_STARTS: Memo = Memo(20_000)


def _memo_list(memo: Memo, key: tuple, make, *args) -> list:
    """`make(*args)`, a list, memoised in `memo` by `key` — the values it depends on
    (issue 16; at most 20,000 entries, the oldest forgotten first)."""
    got = memo.get(key)
    if got is None:
        got = memo.put(key, tuple(make(*args)))
    return list(got)


def _where(state: GameState, seat: int, counter: bool):
    """What `_range_fits` reads of where the seats stand (the seat on the field): for a
    counter, the distance to the seat countered (None when it is off the field); for an
    attack, per range of RANGE_AREA whether somebody is in its attack area."""
    here = state.seats[seat].area
    if counter:
        ts = state.seats[_countered(state)]
        return None if ts.knocked_out or ts.area is None else distance(here, ts.area)
    mask = 0                        # bit d set: a target at distance d (0..3)
    for i, t in enumerate(state.seats):
        if i != seat and t.entered and not t.knocked_out and t.area is not None:
            d = (here - t.area) % AREAS                 # `distance`, written out
            mask |= 1 << (AREAS - d if d > AREAS - d else d)
    return _REACH[mask]


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


def _may_attack_after_move(state: GameState, seat: int) -> bool:
    return bool(_active_effects(state, seat, "move_then_attack"))


def legal_turn(state: GameState, seat: int) -> list:
    """§6 手番: up to 2 actions — moves ≤ 2, one attack, rest alone; no attack after a move
    unless a move-then-attack skill is in effect.

    It depends on the turn so far, the seat's build, guild trait, mana and continuous
    skills in effect, and where the seats stand as far as the attack starts read it
    (`_where`): memoised by those values (issue 16)."""
    t = state.battle.turn
    s = state.seats[seat]
    if s.area is None:
        return _legal_turn(state, seat)
    key = (state.cards, seat, s.race, s.equipped, s.guild, s.trait_used, s.mana, s.active,
           t.moves, t.attacked, t.rested, _where(state, seat, False))
    return _memo_list(_TURN_LISTS, key, _legal_turn, state, seat)


_TURN_LISTS: Memo = Memo(20_000)


def _legal_turn(state: GameState, seat: int) -> list:
    t = state.battle.turn
    s = state.seats[seat]
    out: list = []
    taken = t.actions
    if taken < 2 and not t.rested and has_attack_cards(state, seat):
        if not t.attacked and (t.moves == 0 or _may_attack_after_move(state, seat)):
            out += _starts(state, seat, False)
        if t.moves < 2:
            out += _MOVES[seat]
        if taken == 0:
            out.append(_REST[seat])
    out += _activations(state, seat)
    out.append(_END_TURN[seat])
    return out


def _activations(state: GameState, seat: int) -> list:
    """§6 「スキルは、条件を満たし、必要な魔力を消費できる限り任意で使用できます」: the
    continuous turn skills the seat can activate now — at any point of its own turn, before
    or after its actions (RULINGS R23) — not in effect yet, no continuous skill of their
    family in effect (`effect_block`), payable."""
    s = state.seats[seat]
    fx = in_effect(state, seat, "turn")
    return [Activate(seat, c, sk.id) for c, sk in skills_of(state, seat, ("turn",))
            if effect_block(state, seat, sk) is None
            and cost_of(state, ((c, sk.id),), fx) <= s.mana]


# Per seat, per target seat / area: the choice (actions are values: one object serves).
_CHOOSE_TARGET = tuple(tuple(ChooseTarget(seat, t) for t in range(5)) for seat in range(5))
_CHOOSE_AREA = tuple(tuple(ChooseArea(seat, x) for x in range(AREAS + 1)) for seat in range(5))
# A turn just begun, per seat: values, one object serves every state (issue 16).
_TURN = tuple(Turn(seat) for seat in range(5))

# Actions are values: one object per seat (Config: at most 5 seats) serves every list.
_MOVES = tuple((Move(seat, +1), Move(seat, -1)) for seat in range(5))
_REST, _END_TURN, _DONE, _DRAW, _STOP, _USE_UNLUCK, _DECLINE = (
    tuple(cls(seat) for seat in range(5))
    for cls in (Rest, EndTurn, Done, Draw, Stop, UseUnluck, Decline))


def legal_skills(state: GameState, seat: int) -> list:
    """§6 アタック 2–3 / カウンターの処理 1: declare skills of the attack's card and of
    defense cards (the range skill too, if the attack began with the card alone) while a
    usable set stays reachable; Done once a range skill is declared and the whole set is
    payable — the mana of all is then paid at once.

    It depends on the seat's build, guild trait and mana, the attack's card and declared
    skills, and where the seats stand as far as `_range_fits` reads it (`_where`):
    memoised by those values (issue 16)."""
    a = state.battle.attack
    s = state.seats[seat]
    if s.area is None:
        return _legal_skills(state, seat)
    key = (state.cards, seat, s.race, s.equipped, s.guild, s.trait_used, s.mana, s.active,
           a.card, a.counter, a.skills, a.range_skill, _where(state, seat, a.counter))
    return _memo_list(_SKILL_LISTS, key, _legal_skills, state, seat)


_SKILL_LISTS: Memo = Memo(20_000)


def _legal_skills(state: GameState, seat: int) -> list:
    a = state.battle.attack
    opts = attack_skills(state, seat, a.card, a.counter)
    budget = state.seats[seat].mana
    fx = in_effect(state, seat, "counter" if a.counter else "attack", a.card)
    out: list = [Declare(seat, c, sk.id) for c, sk in opts
                 if can_add(state, seat, a.skills, c, sk, budget, opts, True, fx)]
    if a.range_skill is not None and cost_of(state, a.skills, fx) <= budget:
        out.append(_DONE[seat])
    return out


def _fits_attack(sk: Skill, a: Attack) -> bool:
    """Targeting skills make no sense in a counter (its one target is the attacker)."""
    return not (a.counter and sk.effect.kind in TARGETING)


def attack_applied(state: GameState, a: Attack) -> tuple[tuple[str, str], ...]:
    """The attacker's skills that apply to this attack or counter: the declared ones and
    its continuous skills in effect that fit (`applied`; §6 継続スキル, RULINGS R23)."""
    if not state.seats[a.attacker].active:
        return a.skills
    fx = in_effect(state, a.attacker, "counter" if a.counter else "attack", a.card)
    return applied(state, fx, a.skills)


def _target_limit(state: GameState, a: Attack) -> int:
    return 1 + sum(e.count for e in _effects(state, attack_applied(state, a), "extra_targets"))


def _area_limit(state: GameState, a: Attack) -> int:
    return sum(e.count for e in _effects(state, attack_applied(state, a), "multi_area"))


def _attack_areas(state: GameState, a: Attack) -> list[int]:
    lo, hi = RANGE_AREA[state.cards.skill(a.range_skill).effect.range]
    here = state.seats[a.attacker].area
    return [x for x in range(1, AREAS + 1) if lo <= distance(here, x) <= hi]


def _area_seats(state: GameState, a: Attack, areas: Iterable[int]) -> list[int]:
    areas = set(areas)
    return [i for i in _targetable(state, a.attacker) if state.seats[i].area in areas]


def legal_targets(state: GameState, seat: int) -> list:
    """§6 ターゲットの選択 / 複数スキル."""
    a = state.battle.attack
    if _area_limit(state, a):
        out: list = []
        last = len(a.areas) == _area_limit(state, a) - 1
        for x in _attack_areas(state, a):
            if x in a.areas:
                continue
            if last and not a.targets and not _area_seats(state, a, [x]):
                continue  # the last area must leave at least one target
            out.append(_CHOOSE_AREA[seat][x])
    else:
        rng_ = state.cards.skill(a.range_skill).effect.range
        out = [_CHOOSE_TARGET[seat][t] for t in _in_range(state, seat, rng_)]
    if a.targets:
        out.append(_DONE[seat])
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
    return _memo_list(_DEFENSE_LISTS, key, _legal_defense, state, seat, mine)


_DEFENSE_LISTS: Memo = Memo(20_000)


def _legal_defense(state: GameState, seat: int, mine: tuple) -> list:
    budget = state.seats[seat].mana
    opts = defense_skills(state, seat)
    fx = in_effect(state, seat, defense_process(state.battle.attack.counter))
    out: list = [Declare(seat, c, sk.id) for c, sk in opts
                 if can_add(state, seat, mine, c, sk, budget, opts, False, fx)]
    if cost_of(state, mine, fx) <= budget:
        out.append(_DONE[seat])
    return out


def legal_unluck(state: GameState, seat: int) -> list:
    return [_USE_UNLUCK[seat], _DECLINE[seat]]


def legal_draw(state: GameState, seat: int) -> list:
    return [_DRAW[seat], _STOP[seat]]


def _counter_options(state: GameState, seat: int) -> list:
    """§6 カウンター: a range skill the seat can use whose crit area holds the attacker."""
    ts = state.seats[state.battle.countered]
    if ts.knocked_out or ts.area is None:
        return []
    return _starts(state, seat, True)


def legal_counter(state: GameState, seat: int) -> list:
    return _counter_options(state, seat) + [_DECLINE[seat]]


LEGAL = {"turn": legal_turn, "skills": legal_skills, "targets": legal_targets,
         "defense": legal_defense, "unluck": legal_unluck, "draw": legal_draw,
         "counter": legal_counter}


# ------------------------------------------------------------------------ explanations
#
# Why a battle action is refused. Each check mirrors a legal_* function above (and
# `can_add` / `skills_of` / `_range_skills`), so the reason is the one that decided;
# tests/test_illegal_reasons.py pins every code with a position and checks that no
# legal action is ever explained as refused.

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
            if t.moves and not _may_attack_after_move(state, s):
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
    why, other = _blocking(state, seat, sk)
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
    """`_starts`: §6 アタック 1–2 / カウンターの処理 1 — an equipped attack card and one of
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
        target = _countered(state)
        d = distance(state.seats[seat].area, state.seats[target].area)
        allowed = counter_distances(state, card, sk)
        if d not in allowed:
            return no("counter_not_in_crit", skill=sk.id, target=target, distance=d,
                      crit=allowed[0] if len(allowed) == 1 else "/".join(map(str, allowed)))
    elif not _in_range(state, seat, rng_):
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
    areas = _area_limit(state, a)
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
        if action.area not in _attack_areas(state, a):
            return no("area_not_in_range", area=action.area, range=rng_, lo=lo, hi=hi)
        if action.area in a.areas:
            return no("area_already_chosen", area=action.area)
        last = len(a.areas) == areas - 1
        if last and not a.targets and not _area_seats(state, a, [action.area]):
            return no("area_no_target", area=action.area)
        return None
    if isinstance(action, Done) and not a.targets:
        return no("no_target_chosen")
    return None


# ------------------------------------------------------------------------------- apply

def apply_move(state: GameState, a: Move, events: Events) -> GameState:
    """§6 移動: one step left or right; occupied areas are fine."""
    s = state.seats[a.seat]
    to = step_area(s.area, a.step)
    events.append(Moved(a.seat, s.area, to))
    seats = list(state.seats)
    seats[a.seat] = _CH["area"](s, to)
    b = state.battle
    state = CHANGE["seats_battle"](state, tuple(seats),
                                   _CH["turn"](b, _CH["moves"](b.turn, b.turn.moves + 1)))
    return _after_action(state, events)


def apply_rest(state: GameState, a: Rest, events: Events) -> GameState:
    """§6 休息: +1 mana up to final mana, and the turn ends."""
    s = state.seats[a.seat]
    mana = min(s.mana + 1, max(0, stats_of(state, a.seat)["mana"]))
    state = state.with_seat(a.seat, mana=mana)
    events.append(Rested(a.seat, mana))
    b = state.battle
    state = CHANGE["battle"](state, _CH["turn"](b, _CH["rested"](b.turn, True)))
    return _end_turn(state, "rest", events)


def apply_end_turn(state: GameState, a: EndTurn, events: Events) -> GameState:
    return _end_turn(state, "end" if has_attack_cards(state, a.seat) else "no_attack_cards",
                     events)


def apply_activate(state: GameState, a: Activate, events: Events) -> GameState:
    """§6 継続スキル: pay, turn the card sideways until the skill's end timing."""
    sk = state.cards.skill(a.skill)
    s = state.seats[a.seat]
    paid = cost_of(state, ((a.card, a.skill),), in_effect(state, a.seat, "turn"))
    state = state.with_seat(a.seat, mana=s.mana - paid,
                            active=s.active + (Active(a.card, a.skill, sk.continuous or "turn_end"),))
    events.append(SkillActivated(a.seat, a.card, a.skill, paid))
    state = _use_trait(state, a.seat, a.card, a.skill, events)
    return _after_action(state, events)


def _after_action(state: GameState, events: Events) -> GameState:
    """A turn with 2 actions done ends by itself — unless a continuous turn skill can still
    be activated, which the seat may do at any point of its turn (RULINGS R23)."""
    t = state.battle.turn
    if t.actions >= 2 and not _activations(state, t.seat):
        return _end_turn(state, "actions", events)
    return state


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
        b = _CH["queue_attack"](b, b.counter_queue[1:], atk)
    else:
        b = evolve(b, turn=_CH["attacked"](b.turn, True), attack=atk)
    state = CHANGE["battle"](state, b)
    return _skills_stage(state, events)


def _set_attack(state: GameState, **changes) -> GameState:
    b = state.battle
    key = tuple(changes)                # a `changer` per set of fields changed
    change = _ATTACK_CHANGERS.get(key)
    if change is None:
        change = _ATTACK_CHANGERS[key] = changer(Attack, key)
    return CHANGE["battle"](state, _CH["attack"](b, change(b.attack, *changes.values())))


_ATTACK_CHANGERS: dict[tuple[str, ...], object] = {}


def _skills_stage(state: GameState, events: Events) -> GameState:
    a = state.battle.attack
    if a.stage != "skills":           # (an attack begins in that stage)
        state = _set_attack(state, stage="skills")
    legal = legal_skills(state, a.attacker)
    if legal == [_DONE[a.attacker]]:  # nothing else to declare
        return _finish_skills(state, events)
    _prime(state, "skills", a.attacker, legal)
    return state


# Legal lists worked out for the very state an `apply` returns (issue 16): the engine's
# memo of that state takes them instead of working them out again. Keyed by identity; an
# entry holds its state, and the engine checks the decision's kind and seat.
PRIMED: dict[int, tuple[GameState, str, int, list]] = {}


def _prime(state: GameState, kind: str, seat: int, legal: list) -> None:
    if len(PRIMED) >= 64:
        PRIMED.clear()
    PRIMED[id(state)] = (state, kind, seat, legal)


def apply_declare(state: GameState, a: Declare, events: Events) -> GameState:
    atk = state.battle.attack
    events.append(SkillDeclared(a.seat, a.card, a.skill))
    state = _use_trait(state, a.seat, a.card, a.skill, events)
    if atk.stage == "skills":
        changes: dict = {"skills": atk.skills + ((a.card, a.skill),)}
        if state.cards.skill(a.skill).effect.kind == "range":
            changes["range_skill"] = a.skill
        state = _set_attack(state, **changes)
        legal = legal_skills(state, a.seat)
        if legal == [_DONE[a.seat]]:
            return _finish_skills(state, events)
        _prime(state, "skills", a.seat, legal)
        return state
    state = _set_attack(state, defense=atk.defense + ((a.seat, a.card, a.skill),))
    if legal_defense(state, a.seat) == [_DONE[a.seat]]:
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
    state = _set_attack(state, stage="targets")
    return state


def apply_choose_target(state: GameState, a: ChooseTarget, events: Events) -> GameState:
    atk = state.battle.attack
    events.append(TargetChosen(a.seat, a.target))
    state = _set_attack(state, targets=atk.targets + (a.target,))
    if len(atk.targets) + 1 >= _target_limit(state, atk):
        return _finish_targets(state, events)
    return state


def apply_choose_area(state: GameState, a: ChooseArea, events: Events) -> GameState:
    atk = state.battle.attack
    events.append(AreaChosen(a.seat, a.area))
    new = tuple(_area_seats(state, atk, [a.area]))
    for t in new:
        events.append(TargetChosen(a.seat, t))
    state = _set_attack(state, areas=atk.areas + (a.area,), targets=atk.targets + new)
    if len(atk.areas) + 1 >= _area_limit(state, atk):
        return _finish_targets(state, events)
    return state


def _finish_targets(state: GameState, events: Events) -> GameState:
    return _defense_stage(state, events)


def _defense_order(state: GameState, atk: Attack) -> list[int]:
    seats = set(atk.targets)
    return [s for s in state.order if s in seats]


def _defense_stage(state: GameState, events: Events) -> GameState:
    """§6 アタック 5: targets declare defense skills and pay, in processing order."""
    atk = state.battle.attack
    done = atk.defenders_done
    for seat in _defense_order(state, atk):
        if seat in done:
            continue
        legal = legal_defense(state, seat)      # it does not read defenders_done
        if legal != [_DONE[seat]]:
            state = _set_attack(state, stage="defense", defender=seat, defenders_done=done)
            _prime(state, "defense", seat, legal)
            return state
        done += (seat,)
    if done != atk.defenders_done:
        state = _set_attack(state, defenders_done=done)
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
    state = _set_attack(state, defenders_done=atk.defenders_done + (seat,), defender=None)
    return _defense_stage(state, events)


def _unluck_stage(state: GameState, events: Events) -> GameState:
    atk = state.battle.attack
    if state.seats[atk.attacker].unluck >= MAX_UNLUCK:
        return _set_attack(state, stage="unluck")
    return _fill_bag(state, events)


def apply_unluck(state: GameState, a: UseUnluck | Decline, events: Events) -> GameState:
    """§6 アンラック: spend both chips — no miss chip, at most 3 draws."""
    if isinstance(a, UseUnluck):
        state = state.with_seat(a.seat, unluck=0)
        state = _set_attack(state, unluck_used=True)
        events.append(UnluckUsed(a.seat))
    return _fill_bag(state, events)


def _crit_targets(state: GameState, atk: Attack) -> set[int]:
    """Targets for whom a crit occurs: in the crit area of the range skill (an attack;
    a counter has no automatic crit)."""
    if atk.counter:
        return set()
    crit = RANGE_CRIT[state.cards.skill(atk.range_skill).effect.range]
    here = state.seats[atk.attacker].area
    # §6 「スキルにクリティカルを発生させる効果がある場合も、その効果の条件を満たすと
    # クリティカルが発生します」 (RULINGS R28): cause_crit at its distance (or any)
    caused = [e.value for e in _effects(state, attack_applied(state, atk), "cause_crit")]
    return {t for t in atk.targets
            if (d := distance(here, state.seats[t].area)) == crit
            or any(v is None or v == d for v in caused)}


def _defense_skills(state: GameState, atk: Attack, seat: int) -> tuple[tuple[str, str], ...]:
    """A target's skills that apply to this attack or counter (被攻撃時): the declared
    ones and its continuous skills in effect that fit (`applied`, RULINGS R23)."""
    declared = tuple([(c, s) for d, c, s in atk.defense if d == seat])
    return applied(state, in_effect(state, seat, defense_process(atk.counter)), declared)


def _fill_bag(state: GameState, events: Events) -> GameState:
    """§6 アタック 6–7 / 防御スキル: the card's 5 point chips + 1 miss chip (none with
    unluck) + crit chips + zero chips (the largest count any one target adds)."""
    atk = state.battle.attack
    card = state.cards.card(atk.card)
    bag = [str(c) for c in card.chips]
    if not atk.unluck_used:
        bag.append("miss")
    extra = sum(e.count for e in _effects(state, attack_applied(state, atk), "add_crit_chips"))
    if atk.counter:
        crits = extra
    else:
        crits = (1 + extra) if _crit_targets(state, atk) else 0
    bag += ["crit"] * crits
    zeros = max([sum(e.count for e in _effects(state, _defense_skills(state, atk, t), "add_zero_chips"))
                 for t in set(atk.targets)] + [0])
    bag += ["0"] * zeros
    bag_t = tuple(sorted(bag))
    events.append(BagFilled(atk.attacker, bag_t))
    state = _set_attack(state, stage="draw", bag=bag_t)
    return _draw_chip(state, events)


def _draw_limit(state: GameState, atk: Attack) -> Optional[int]:
    fixed = _effects(state, attack_applied(state, atk), "fixed_draws")
    return fixed[0].count if fixed else None


def running_total(drawn: Iterable[str]) -> int:
    """The attacker's running total (crit counted 2; a miss loses everything)."""
    drawn = list(drawn)
    if "miss" in drawn:
        return 0
    return sum(2 if c == "crit" else POINT[c] for c in drawn)


def _draw_chip(state: GameState, events: Events) -> GameState:
    """§6 バトルチップを引く枚数 — one chip, then the decision flow of the rulebook."""
    atk = state.battle.attack
    if state.script.chips:
        i, state = pick_chip(state, atk.bag)
        rs = state.rng
    else:                               # `pick_chip`, its RNG draw set with the chip below
        i, rs = R.below(state.rng, len(atk.bag))
    chip = atk.bag[i]
    bag = atk.bag[:i] + atk.bag[i + 1:]
    drawn = atk.drawn + (chip,)
    b = state.battle
    state = CHANGE["rng_battle"](state, rs, _CH["attack"](b, _CH["drawn"](atk, bag, drawn)))
    events.append(ChipDrawn(atk.attacker, chip, running_total(drawn)))
    end = draw_outcome(drawn, bool(bag), atk.unluck_used, _draw_limit(state, atk))
    if end == "choose":
        return state
    if end == "continue":
        return _draw_chip(state, events)
    return _resolve(state, end, events)


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


def apply_draw(state: GameState, a: Draw, events: Events) -> GameState:
    return _draw_chip(state, events)


def apply_stop(state: GameState, a: Stop, events: Events) -> GameState:
    return _resolve(state, "stop", events)


def _damage_for(state: GameState, atk: Attack, target: int, crit_targets: set[int]) -> int:
    """§6 ダメージ for one target: point chips + crit chips (2, or as a skill changes it —
    0 for a target outside the crit area, RULINGS), less the target's reductions."""
    if "miss" in atk.drawn:
        return 0
    crit_value = 2
    att = _effects(state, attack_applied(state, atk), "crit_value")
    if att:
        crit_value = att[0].value
    mine = _defense_skills(state, atk, target)
    dv = _effects(state, mine, "crit_value")
    if dv:
        crit_value = dv[0].value
    if not atk.counter and target not in crit_targets:
        crit_value = 0
    total = sum(crit_value if c == "crit" else POINT[c] for c in atk.drawn)
    reduction = sum(e.amount for e in _effects(state, mine, "damage_reduction"))
    return max(0, total - reduction)


def _resolve(state: GameState, reason: str, events: Events) -> GameState:
    """§6 アタック 9–12: damage to each target (as often as chosen), VP once per target
    seat on what it took, knock-outs, then counters; the game ends at 5 VP."""
    atk = state.battle.attack
    events.append(DrawEnded(atk.attacker, reason, running_total(atk.drawn)))
    if reason == "miss":
        s = state.seats[atk.attacker]
        if s.unluck < MAX_UNLUCK:
            state = state.with_seat(atk.attacker, unluck=s.unluck + 1)
            events.append(UnluckGained(atk.attacker, s.unluck + 1))
    crit_targets = _crit_targets(state, atk)
    attacker = atk.attacker
    seats = list(state.seats)       # changed as the damage goes; the state copied once
    for t in _defense_order(state, atk):
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
            seats[t] = _CH["knocked_out"](s, hp, low, True, None)
            events.append(KnockedOut(t, attacker))
        elif hp != s.hp or low != s.low:
            seats[t] = _CH["hurt"](s, hp, low)
        if gained:
            vp = seats[attacker].vp + gained
            seats[attacker] = _CH["vp"](seats[attacker], vp)
            kind = {1: "low", 2: "knockout", 3: "low_knockout"}[gained]
            events.append(VictoryPointsGained(attacker, t, gained, kind, vp))
    state = CHANGE["seats"](state, tuple(seats))
    if state.seats[attacker].vp >= VP_TO_WIN:      # §6 アタック 12 — after all damage
        return _game_over(state, (attacker,), "vp", events)
    b = state.battle
    done = _CH["stage"](atk, "done")
    if not atk.counter:
        stopped = _counter_blocked(state, atk, crit_targets)
        blocked = bool(stopped)
        queue = tuple(t for t in _defense_order(state, atk)
                      if not state.seats[t].knocked_out and t not in stopped)
        b = _CH["resolved"](b, done, queue, attacker, blocked)
    else:
        b = _CH["attack"](b, done)
    state = CHANGE["battle"](state, b)
    return _next_counter(state, events)


def _counter_blocked(state: GameState, atk: Attack, crit_targets: set[int]) -> set[int]:
    """§6 カウンターの制限: a counter block stops every target of the attack — 「スキルの効果文
    に適用するターゲットの指示がある場合は、その指示を優先します」: or only the targets it names,
    those with a crit (`targets = "crit"`) or those without (`"not_crit"`) (RULINGS R29)."""
    out: set[int] = set()
    for e in _effects(state, attack_applied(state, atk), "counter_block"):
        if e.targets is None:
            out |= set(atk.targets)
        elif e.targets == "crit":
            out |= set(atk.targets) & crit_targets
        else:
            out |= set(atk.targets) - crit_targets
    return out


def _next_counter(state: GameState, events: Events) -> GameState:
    """§6 カウンター: one by one in processing order, each target that can counter chooses;
    when none is left the attacker's turn goes on."""
    b = state.battle
    queue = b.counter_queue
    while queue and not _counter_options(state, queue[0]):
        queue = queue[1:]
    state = CHANGE["battle"](state, _CH["queue"](b, queue))
    if queue:
        return state
    state = CHANGE["battle"](state, _CH["after"](state.battle, None, None, False))
    turn_seat = state.battle.turn.seat
    if state.seats[turn_seat].knocked_out:
        return _end_turn(state, "knocked_out", events)
    return _after_action(state, events)


def apply_counter_decline(state: GameState, a: Decline, events: Events) -> GameState:
    events.append(CounterDeclined(a.seat))
    b = state.battle
    state = CHANGE["battle"](state, _CH["queue"](b, b.counter_queue[1:]))
    return _next_counter(state, events)


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
