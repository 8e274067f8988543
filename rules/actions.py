"""Actions: what a seat decides. Few types, with fields (DESIGN.md "Legal actions").

Every action names the seat that takes it. `legal_actions(state)` lists exactly the
actions `apply` accepts; anything else raises `IllegalAction` with a readable reason.
"""

from __future__ import annotations

from typing import Literal, Optional

from attrs import frozen


class IllegalAction(Exception):
    """An action `apply` refused. `code` is stable (for translations), `reason` readable.

    The state given to `apply` is untouched.
    """

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


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


@frozen
class Assign:
    """§5-4 ビルド: put a card of the hand into the build as equipped, materialized or unused."""

    seat: int
    card: str
    to: Literal["equip", "materialize", "unused"]


@frozen
class Confirm:
    """§5-4: declare the build final."""

    seat: int


@frozen
class Remove:
    """§5-4 公開確認: the owner of an illegal build removes an equipped card (to the discard)."""

    seat: int
    card: str


@frozen
class Swap:
    """§5-4 公開確認 (first-game variant): replace an equipped card by an unused one."""

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
    """§6 アタック 1–2: an equipped attack card and one of its range skills."""

    seat: int
    card: str
    skill: str


@frozen
class StartCounter:
    """§6 カウンター: counter the attacker with an attack card and a range skill whose
    crit area holds the attacker."""

    seat: int
    card: str
    skill: str


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
          | Confirm | Remove | Swap | Move | Rest | EndTurn | Activate | StartAttack | StartCounter
          | Declare | Done | ChooseTarget | ChooseArea | UseUnluck | Draw | Stop)

ACTION_TYPES: tuple[type, ...] = (Pick, PlaceBid, Pass, UseAuction, Pay, Appraise, Decline,
                                  ChooseRace, Assign, Confirm, Remove, Swap, Move, Rest, EndTurn,
                                  Activate, StartAttack, StartCounter, Declare, Done,
                                  ChooseTarget, ChooseArea, UseUnluck, Draw, Stop)


def seat_of(action: object) -> Optional[int]:
    return getattr(action, "seat", None)
