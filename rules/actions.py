"""Actions: what a seat decides. Few types, with fields (DESIGN.md "Legal actions").

Every action names the seat that takes it. `legal_actions(state)` lists exactly the
actions `apply` accepts; anything else raises `IllegalAction` with a readable reason.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Literal, Mapping, Optional, Union, get_args, get_origin, get_type_hints

import attrs
from attrs import frozen


class IllegalAction(Exception):
    """An action `apply` refused. `code` is stable (one of `rules.engine.REFUSAL_CODES`,
    the key of a translation), `reason` a readable English sentence, `params` what a
    translation needs to say the same in another language: plain values only — seat
    numbers (from 0), card, skill, family, series and race ids, stat names, counts.

    The state given to `apply` is untouched.
    """

    def __init__(self, code: str, reason: str,
                 params: Optional[Mapping[str, object]] = None) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.params: Mapping[str, object] = MappingProxyType(dict(params or {}))


# Refusals -------------------------------------------------------------------------------
#
# Every code `explain_illegal` can give, with its English reason. The reason is built from
# the refusal's params; a translation (tactical_tui) builds its own text from the same
# params. Param names carry their kind, so any language can show them:
#   seat, target, attacker        a seat number (from 0)        waiting: a tuple of seats
#   card, bid_target              a card id or a physical copy id ("iron_helm#2")
#   skill, other_skill            a skill id                    family / series / race: ids
#   requires, have                {stat: value}                 timing, now: a skill timing
#   range                         short | mid | long            action, allowed: action names
#   decision                      a decision kind (rules.engine.Decision)
# and plain numbers (players, step, moves, cost, mana, distance, lo, hi, crit, area, ...).

REFUSALS: dict[str, str] = {
    # any phase
    "not_an_action": "{got} is not an action",
    "bad_field": "{action}: {field} must be {kind}, not {got}",
    "number_out_of_range": "{action}: {field} is out of range (a whole number from -2**63 to "
                           "2**63-1; this one has {bits} bits)",
    "bad_zone": "{action}: {field} must be equip, materialize or unused",
    "no_such_seat": "there is no seat {seat!r} in a {players}-player game",
    "game_over": "the game is over",
    "not_your_turn": "seat {seat} cannot act now: waiting for {decision} from seat {waiting}",
    "wrong_action": "{action} is not possible now: the {decision} decision takes {allowed}",
    "illegal": "{action} is not legal now",
    # §5-2 draft, §5-3 bidding, §5-4 build
    "not_a_target": "{bid_target} is not a target of this bid round",
    "card_not_in_hand": "{card} is not in seat {seat}'s hand",
    "attack_card_bid": "only defense cards have a bid value; attack cards cannot be bid",
    "card_not_owned": "{card} is not one of seat {seat}'s cards",
    "materialized_final": "{card} was materialized: it lies face up in the defense discard "
                          "and cannot come back (§5-4)",
    "no_change": "{card} is already {to}",
    "attack_card_material": "attack cards have no material and cannot be materialized",
    "no_race": "choose one of your two race candidates before confirming",
    "build_confirmed": "{action} is not legal now: seat {seat} has confirmed its build; take "
                       "the confirmation back (Unconfirm) to change it",
    "not_confirmed": "{action} is not legal now: seat {seat} has not confirmed its build",
    "builds_final": "{action} is not legal now: every seat has confirmed, and a build cannot "
                    "change after that, the reveal included",
    "swap_not_in_violation": "{card} is not found in violation: only a card that breaks a "
                             "build rule may be swapped for an unused card",
    "bad_card": "{card} cannot be chosen for {action} now",
    "bad_target": "{bid_target} is not a target nobody bid on this round",
    "bad_race": "{race} is not one of seat {seat}'s race candidates",
    # §6 手番 / 移動 / 休息 / 継続スキル
    "no_actions_left": "{action} is not legal now: seat {seat} has taken both actions of this "
                       "turn (at most 2, of which at most 2 moves and 1 attack)",
    "already_attacked": "{action} is not legal now: one attack a turn, and seat {seat} has attacked",
    "attack_after_move": "{action} is not legal now: no attack after a move in the same turn "
                         "(unless a move-then-attack skill is in effect)",
    "bad_step": "{action} is not legal now: a move is one step, +1 or -1 (not {step!r})",
    "rest_after_action": "{action} is not legal now: a rest must be the turn's only action, "
                         "and seat {seat} has moved or attacked",
    "skill_already_active": "{action} is not legal now: {skill} is already active",
    "same_family_in_effect": "{action} is not legal now: {other_skill}, a continuous skill of "
                             "the same family ({family}), is in effect (one skill per family)",
    "no_attack_card_no_actions": "{action} is not legal now: seat {seat} has no attack card "
                                 "equipped and can only end its turn (§6)",
    # §6 アタック 1-3 / 魔力を消費するスキル / カウンター: cards and skills
    "card_not_equipped": "{action} is not legal now: seat {seat} has not equipped {card}",
    "not_attack_card": "{action} is not legal now: {card} is not an attack card",
    "skill_not_on_card": "{action} is not legal now: {card} has no skill {skill}",
    "not_range_skill": "{action} is not legal now: {skill} is not a range skill; an attack or "
                       "counter begins with a range skill of the card",
    "one_range_skill": "{action} is not legal now: {skill} is a range skill, and the range was "
                       "chosen with the card (one range per attack or counter)",
    "series_inactive": "{action} is not legal now: {card}'s skills work only with 2 equipped "
                       "cards of the {series} series (seat {seat} has {have})",
    "requirements_not_met": "{action} is not legal now: {skill} requires {requires} "
                            "(seat {seat} has {have})",
    "wrong_timing": "{action} is not legal now: {skill} is used {timing}, not {now}",
    "not_enough_mana": "{action} is not legal now: {skill} would make the mana to pay {cost}, "
                       "and seat {seat} has {mana}",
    "already_declared": "{action} is not legal now: {skill} is already declared",
    "trait_used": "{action} is not legal now: {skill} is a guild trait usable once per game, "
                  "and seat {seat} has used it",
    "trait_not_own": "{action} is not legal now: {card} is not seat {seat}'s guild (a guild "
                     "trait is used by its own guild's seat)",
    "same_family": "{action} is not legal now: {skill} is of the {family} family, like the "
                   "declared {other_skill} (one skill per family)",
    "exclusive": "{action} is not legal now: {skill} and {other_skill} cannot be combined "
                 "(exclusive)",
    "targeting_in_counter": "{action} is not legal now: {skill} chooses targets, and a counter's "
                            "only target is the attacker",
    "skills_closed": "{action} is not legal now: the attacker's skills are declared before "
                     "the targets are chosen",
    "other_attack_card": "{action} is not legal now: {skill} is printed on {card}, another "
                         "attack card; an attack or counter uses the skills of its own card "
                         "(and of defense cards)",
    "range_skill_needed": "{action} is not legal now: declare one range skill of {card} first",
    "declared_not_payable": "{action} is not legal now: the declared skills cost {cost} mana "
                            "after reductions, and seat {seat} has {mana}",
    # §6 アタック 4 / ターゲットの選択 / 複数スキル
    "no_target_in_range": "{action} is not legal now: nobody can be targeted in the {range} "
                          "attack area of {skill}",
    "target_self": "{action} is not legal now: seat {seat} cannot target itself",
    "target_not_on_field": "{action} is not legal now: seat {target} is not on the field",
    "target_knocked_out": "{action} is not legal now: seat {target} is knocked out",
    "target_not_in_area": "{action} is not legal now: seat {target} is at distance {distance}, "
                          "outside the {range} attack area (distance {lo}-{hi})",
    "areas_not_targets": "{action} is not legal now: this attack chooses areas, not seats",
    "targets_not_areas": "{action} is not legal now: this attack chooses seats, not areas",
    "area_not_in_range": "{action} is not legal now: area {area} is outside the {range} "
                         "attack area (distance {lo}-{hi})",
    "area_already_chosen": "{action} is not legal now: area {area} is already chosen",
    "area_no_target": "{action} is not legal now: the last area must hold a target, and "
                      "nobody is in area {area}",
    "no_target_chosen": "{action} is not legal now: choose at least one target first",
    # §6 アンラック / バトルチップを引く枚数
    "unluck_not_enough": "{action} is not legal now: unluck needs 2 unluck chips "
                         "(seat {seat} has {have})",
    "unluck_not_now": "{action} is not legal now: unluck is used just before one's own "
                      "attack or counter draws its first chip",
    "not_attacker": "seat {seat} cannot act now: only the attacker (seat {attacker}) draws "
                    "chips, and {action} is the attacker's",
    "no_draw_now": "{action} is not legal now: no chips are being drawn",
    # §6 カウンター
    "counter_not_in_crit": "{action} is not legal now: the attacker (seat {target}) is at "
                           "distance {distance}, not in the critical area of {skill} "
                           "(distance {crit})",
}
REFUSAL_CODES: tuple[str, ...] = tuple(REFUSALS)

_CARD_KEYS = ("card", "bid_target")
_SKILL_KEYS = ("skill", "other_skill")
_KIND_EN = {"int": "a whole number (int)", "str": "text (str)"}
_TIMING_EN = {"attack": "on attack", "counter": "on counter", "any": "on attack or counter",
              "defend": "when attacked", "countered": "when countered",
              "turn": "in one's own turn"}


def _english(cards: object, params: Mapping[str, object]) -> dict[str, object]:
    """The params as the English reason shows them: names for ids (the id itself when the
    card set does not know it), stats as "str 5", seat tuples as "1, 2"."""
    def name(kind: str, value: object) -> object:
        try:
            return getattr(cards, kind)(value).name.en
        except (KeyError, AttributeError, TypeError):
            return value
    out: dict[str, object] = {}
    for key, value in params.items():
        if key in _CARD_KEYS:
            value = name("card", value)
        elif key in _SKILL_KEYS:
            value = name("skill", value)
        elif key in ("family", "race"):
            value = name(key, value)
        elif key == "series":
            value = next((s.name.en for s in getattr(cards, "series", ()) if s.id == value), value)
        elif key in ("requires", "have") and isinstance(value, Mapping):
            value = ", ".join(f"{k} {v}" for k, v in value.items())
        elif key == "waiting":
            value = ", ".join(str(x) for x in value) or "nobody"  # type: ignore[attr-defined]
        elif key == "allowed":
            value = " or ".join(value) or "nothing"  # type: ignore[arg-type]
        elif key in ("timing", "now"):
            value = _TIMING_EN.get(value, value)  # type: ignore[arg-type]
        elif key == "kind":
            value = _KIND_EN.get(value, value)  # type: ignore[arg-type]
        out[key] = value
    return out


@frozen
class Refusal:
    """Why an action is refused: a code of REFUSALS, its params, the English reason."""

    code: str
    reason: str
    params: Mapping[str, object]

    def error(self) -> IllegalAction:
        return IllegalAction(self.code, self.reason, self.params)


def refuse(cards: object, code: str, **params: object) -> Refusal:
    """A Refusal with its English reason built from `params` (names from `cards`)."""
    if code not in REFUSALS:
        raise ValueError(f"unknown refusal code {code!r}: add it to rules.actions.REFUSALS")
    return Refusal(code, REFUSALS[code].format(**_english(cards, params)),
                   MappingProxyType(dict(params)))


@frozen
class Pick:
    """§5-2 装備ドラフト: pick one card of the hand, face down."""

    seat: int
    card: str


@frozen
class PlaceBid:
    """§5-3 武器入札: put one defense card face down on one current target."""

    seat: int
    target: str
    card: str


@frozen
class Pass:
    """§5-3: pass for the rest of this bid round."""

    seat: int


@frozen
class UseAuction:
    """§5-3 金鷹《競売》: +1 to one of the seat's revealed bids (the bid card) that ties."""

    seat: int
    card: str


@frozen
class Pay:
    """§5-3 入札結果: choose which of the equal deciding bid cards to pay for `target`."""

    seat: int
    target: str
    card: str


@frozen
class Appraise:
    """§5-3 紫晶《鑑定》: take a last-round target nobody bid on."""

    seat: int
    target: str


@frozen
class Decline:
    """Decline an optional choice (《競売》, 《鑑定》, ...)."""

    seat: int


@frozen
class ChooseRace:
    """§5-4 ビルド: choose one of the two race candidates."""

    seat: int
    race: str


Zone = Literal["equip", "materialize", "unused"]


@frozen
class Assign:
    """§5-4 ビルド: put a card of the hand into the build as equipped, materialized or unused."""

    seat: int
    card: str
    to: Zone


@frozen
class Confirm:
    """§5-4: declare the build final."""

    seat: int


@frozen
class Unconfirm:
    """§5-4 全員が最終ビルドの確定を宣言するまでは、自由に付け外しできます: take one's
    confirmation back while another seat has not confirmed (docs/RULINGS.md R4)."""

    seat: int


@frozen
class Remove:
    """§5-4 公開確認: the owner of an illegal build removes an equipped card (to the discard)."""

    seat: int
    card: str


@frozen
class Swap:
    """§5-4 公開確認 (first-game variant): replace an equipped card found in violation by an
    unused one; the card taken out becomes unused (docs/RULINGS.md R7)."""

    seat: int
    card: str
    replacement: str


# §6 battle ---------------------------------------------------------------------------

@frozen
class Move:
    """§6 移動: one step to an adjacent area; `step` is +1 or -1 round the ring."""

    seat: int
    step: int


@frozen
class Rest:
    """§6 休息: recover 1 mana (never above final mana) and end the turn."""

    seat: int


@frozen
class EndTurn:
    seat: int


@frozen
class Activate:
    """§6 継続スキル: declare a continuous skill of one's own turn (e.g. move-then-attack)."""

    seat: int
    card: str
    skill: str


@frozen
class StartAttack:
    """§6 アタック 1–2: an equipped attack card and one of its range skills — or the card
    alone (`skill` None), the range skill then declared with the others (RULINGS R22)."""

    seat: int
    card: str
    skill: Optional[str] = None


@frozen
class StartCounter:
    """§6 カウンター: counter the attacker with an attack card and a range skill whose
    crit area holds the attacker — or the card alone, as `StartAttack`."""

    seat: int
    card: str
    skill: Optional[str] = None


@frozen
class Declare:
    """§6 アタック 3 / 5: declare one more skill (the attacker's, or a target's defense)."""

    seat: int
    card: str
    skill: str


@frozen
class Done:
    """Finish declaring skills, or choosing targets."""

    seat: int


@frozen
class ChooseTarget:
    """§6 ターゲットの選択: a seat in the attack area (again, with extra targets)."""

    seat: int
    target: int


@frozen
class ChooseArea:
    """§6 複数スキル: an area of the attack area (multi-area attacks)."""

    seat: int
    area: int


@frozen
class UseUnluck:
    """§6 アンラック: before drawing, spend 2 unluck chips (no miss chip, at most 3 draws)."""

    seat: int


@frozen
class Draw:
    """§6 バトルチップを引く枚数: draw another chip."""

    seat: int


@frozen
class Stop:
    """§6: stop drawing and keep the current total."""

    seat: int


Action = (Pick | PlaceBid | Pass | UseAuction | Pay | Appraise | Decline | ChooseRace | Assign
          | Confirm | Unconfirm | Remove | Swap | Move | Rest | EndTurn | Activate | StartAttack | StartCounter
          | Declare | Done | ChooseTarget | ChooseArea | UseUnluck | Draw | Stop)

ACTION_TYPES: tuple[type, ...] = (Pick, PlaceBid, Pass, UseAuction, Pay, Appraise, Decline,
                                  ChooseRace, Assign, Confirm, Unconfirm, Remove, Swap, Move, Rest,
                                  EndTurn, Activate, StartAttack, StartCounter, Declare, Done,
                                  ChooseTarget, ChooseArea, UseUnluck, Draw, Stop)

# Field types ----------------------------------------------------------------------------
#
# Python compares 0.0 and False equal to 0, so `Pick(0.0, c)` would pass a check against
# the legal list and then fail inside `apply` (or be saved and never load again). `apply`
# first checks every field's exact type here: a constant cost per action, whatever the
# length of the legal list. Numbers are whole numbers (`int`, never `bool`) within 64 bits.

INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1


def _kinds(cls: type) -> tuple[tuple[str, object, bool], ...]:
    """(field, kind, optional) per field of an action class: kind int | str | a tuple of
    allowed strings (a Literal); optional when the field may also be None (Optional[...])."""
    hints = get_type_hints(cls)
    out = []
    for f in attrs.fields(cls):
        hint, optional = hints[f.name], False
        if get_origin(hint) is Union:
            args = [a for a in get_args(hint) if a is not type(None)]
            optional, hint = True, args[0]
        out.append((f.name, get_args(hint) if get_origin(hint) is Literal else hint, optional))
    return tuple(out)


FIELD_KINDS: dict[type, tuple[tuple[str, object, bool], ...]] = {t: _kinds(t) for t in ACTION_TYPES}


def field_refusal(action: object) -> Optional[Refusal]:
    """Why `action` is not an action of well-typed fields (None when it is): its class is
    one of ACTION_TYPES exactly, every int field holds an `int` (not a bool, a float or an
    int subclass) within 64 bits, every str field a `str`, and `Assign.to` one of its zones."""
    ok = WELL_TYPED.get(type(action))
    if ok is None and type(action) in FIELD_KINDS:
        ok = WELL_TYPED[type(action)] = _well_typed(type(action))
    if ok is not None and ok(action):
        return None
    kinds = FIELD_KINDS.get(type(action))
    if kinds is None:
        return refuse(None, "not_an_action", got=type(action).__name__)
    for name, kind, optional in kinds:
        value = getattr(action, name)
        what = type(action).__name__
        if value is None and optional:
            continue
        if type(value) is not (int if kind is int else str):
            return refuse(None, "bad_field", action=what, field=name,
                          kind="int" if kind is int else "str", got=type(value).__name__)
        if kind is int and not INT_MIN <= value <= INT_MAX:
            return refuse(None, "number_out_of_range", action=what, field=name,
                          bits=value.bit_length())
        if kind is not int and kind is not str and value not in kind:  # type: ignore[operator]
            return refuse(None, "bad_zone", action=what, field=name)
    return None


# The same checks as one expression per action class, made on first use (issue 16: one
# call per `apply`); only when it fails is the loop above run, for the reason.
WELL_TYPED: dict[type, object] = {}


def _well_typed(cls: type):
    tests = []
    for name, kind, optional in FIELD_KINDS[cls]:
        if kind is int:
            test = f"(type(a.{name}) is int and {INT_MIN} <= a.{name} <= {INT_MAX})"
        elif kind is str:
            test = f"type(a.{name}) is str"
        else:
            test = f"(type(a.{name}) is str and a.{name} in {tuple(kind)!r})"
        tests.append(f"(a.{name} is None or {test})" if optional else test)
    namespace: dict = {}
    exec(f"def ok(a):\n    return {' and '.join(tests) or 'True'}\n", namespace)  # noqa: S102
    return namespace["ok"]


def seat_of(action: object) -> Optional[int]:
    return getattr(action, "seat", None)
