"""The skills of a battle (§6 魔力を消費するスキル, 継続スキル, アタックとスキルの使用
タイミング): which skills a seat may use — the equipped cards' skills whose timing fits and
whose requirements the final stats meet (§2 発動条件), the series rule (§5-4 シリーズ効果),
the guild's battle trait once per game (§4, RULINGS R2) — which may be declared together
(one per family, 併用不可), what they cost after mana reductions (§6 魔力軽減), the
continuous skills in effect and what they apply to (RULINGS R23), the turn skills that
can be activated, and the move-then-attack effect (§6 手番).

Imports `base` only (of the battle's modules).
"""

from __future__ import annotations

from typing import Iterable, Optional

from ..actions import Activate
from ..build import final_stats
from ..cards import Skill, Stats
from ..events import TraitUsed                      # §4 / RULINGS R2: a battle trait is used
from ..memo import Memo
from ..state import GameState
from .base import Events

# Targeting skills: what they do has no place in a counter, whose one target is the
# attacker (RULINGS R24).
TARGETING = ("extra_targets", "multi_area", "counter_block")


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


def use_trait(state: GameState, seat: int, card: str, skill: str, events: Events) -> GameState:
    """A declared battle trait is used up for the rest of the game (RULINGS R2)."""
    if card != state.seats[seat].guild:
        return state
    events.append(TraitUsed(seat, card, skill))
    return state.with_seat(seat, trait_used=True)


def has_attack_cards(state: GameState, seat: int) -> bool:
    equipped = state.seats[seat].equipped
    got = _FACTS.get(id(equipped))      # `_facts`, its usual case inlined
    if got is not None and got[0] is equipped and got[1] is state.cards:
        return got[2][0]
    return _facts(state.cards, equipped)[0]


def _facts(cards, equipped: tuple[str, ...]) -> tuple[bool, bool]:
    """Of an equipped set: (an attack card among them, a skill of "turn" timing printed on
    one of them — whatever its requirements and series). A build does not change in the
    battle, where these are asked at every turn: memoised by the identity of the tuple
    (an entry holds it, so its id is not reused while kept) and of the card set."""
    got = _FACTS.get(id(equipped))
    if got is not None and got[0] is equipped and got[1] is cards:
        return got[2]
    card = cards.card
    facts = (any(card(c).is_attack for c in equipped),
             any(sk.timing == "turn" for c in equipped for sk in card(c).skills))
    if len(_FACTS) >= 4096:
        _FACTS.clear()
    _FACTS[id(equipped)] = (equipped, cards, facts)
    return facts


_FACTS: dict[int, tuple[tuple[str, ...], object, tuple[bool, bool]]] = {}


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
    return blocking(state, seat, sk)[0]


def blocking(state: GameState, seat: int, sk: Skill) -> tuple[Optional[str], Optional[str]]:
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
    declared = tuple(declared)
    extra = [(c, sk) for c, sk in options if (c, sk.id) not in declared
             and (sk.effect.kind == "mana_reduction" or (need_range and sk.effect.kind == "range"))]
    best = [float("inf")]
    _search(state, extra, need_range, effect, declared, 0, best)
    return best[0]


def _search(state: GameState, extra: list[tuple[str, Skill]], need_range: bool,
            effect: tuple[tuple[str, str], ...], decl: tuple[tuple[str, str], ...],
            start: int, best: list[float]) -> None:
    """`min_cost`'s search, depth first: the declared skills `decl`, completed by the
    compatible `extra` from `start` on; the least cost so far in `best[0]`. A function of
    the module, not a closure: a recursive closure is a reference cycle (it holds its own
    cell), which kept every state it saw alive until the cyclic collector ran."""
    skill = state.cards.skill
    if not need_range or any(skill(x).effect.kind == "range" for _, x in decl):
        best[0] = min(best[0], cost_of(state, decl, effect))
        if best[0] == 0:
            return
    for j in range(start, len(extra)):
        c, sk = extra[j]
        if compatible(state, decl, sk):
            _search(state, extra, need_range, effect, decl + ((c, sk.id),), j + 1, best)
            if best[0] == 0:
                return


def can_add(state: GameState, seat: int, declared: tuple[tuple[str, str], ...],
            card: str, skill: Skill, budget: int,
            options: Iterable[tuple[str, Skill]] = (), need_range: bool = False,
            effect: tuple[tuple[str, str], ...] = ()) -> bool:
    """§6: `skill` may join the declared skills (`compatible`), and the set can still be
    completed and paid (`completable`, with the other declarable `options` and the
    continuous skills in `effect`)."""
    return compatible(state, declared, skill) and completable(
        state, declared + ((card, skill.id),), options, budget, need_range, effect)


def effects(state: GameState, declared: Iterable[tuple[str, str]], kind: str) -> tuple:
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


def may_attack_after_move(state: GameState, seat: int) -> bool:
    return bool(_active_effects(state, seat, "move_then_attack"))


def activations(state: GameState, seat: int) -> list:
    """§6 「スキルは、条件を満たし、必要な魔力を消費できる限り任意で使用できます」: the
    continuous turn skills the seat can activate now — at any point of its own turn, before
    or after its actions (RULINGS R23) — not in effect yet, no continuous skill of their
    family in effect (`effect_block`), payable."""
    s = state.seats[seat]
    if not _facts(state.cards, s.equipped)[1]:     # no turn skill printed on the build:
        trait = battle_trait(state, seat)           # only the guild's could be activated
        if trait is None or trait.timing != "turn":
            return []
    fx = in_effect(state, seat, "turn")
    return [Activate(seat, c, sk.id) for c, sk in skills_of(state, seat, ("turn",))
            if effect_block(state, seat, sk) is None
            and cost_of(state, ((c, sk.id),), fx) <= s.mana]
