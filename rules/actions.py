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


Action = (Pick | PlaceBid | Pass | UseAuction | Pay | Appraise | Decline | ChooseRace | Assign
          | Confirm | Remove | Swap)

ACTION_TYPES: tuple[type, ...] = (Pick, PlaceBid, Pass, UseAuction, Pay, Appraise, Decline,
                                  ChooseRace, Assign, Confirm, Remove, Swap)


def seat_of(action: object) -> Optional[int]:
    return getattr(action, "seat", None)
