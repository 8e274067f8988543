"""Typed events that `apply` yields. The battle log, replays and tests read these; the
rules core never formats text for a screen.

Events marked `secret` carry information only their `seat` may see (a hand, a pick, a
face-down bid's card, a build before the reveal); `visible(event, seat)` says who may.
"""

from __future__ import annotations

from typing import ClassVar, Optional

from attrs import frozen


@frozen
class Event:
    secret: ClassVar[bool] = False


def visible(event: Event, seat: Optional[int]) -> bool:
    """May `seat` see this event? (`None` = an observer who sees everything.)"""
    return seat is None or not event.secret or getattr(event, "seat", None) == seat


# §5-1 -----------------------------------------------------------------------------
@frozen
class GuildsDealt(Event):
    guilds: tuple[str, ...]           # per seat


@frozen
class StartSeatChosen(Event):
    seat: int
    number: int                       # the lowest guild number


@frozen
class RacesDealt(Event):
    candidates: tuple[tuple[str, ...], ...]   # per seat


@frozen
class DeckReshuffled(Event):
    deck: str                          # "defense" | "attack"
    count: int


# §5-2 -----------------------------------------------------------------------------
@frozen
class HandDealt(Event):
    secret: ClassVar[bool] = True
    seat: int
    cards: tuple[str, ...]


@frozen
class TargetsRevealed(Event):
    round: int                         # 1-based bid round
    targets: tuple[str, ...]


@frozen
class CardPicked(Event):
    secret: ClassVar[bool] = True
    seat: int
    card: str
    auto: bool = False


@frozen
class HandsPassed(Event):
    remaining: int                     # cards left in each hand


@frozen
class DraftEnded(Event):
    pass


# §5-3 -----------------------------------------------------------------------------
@frozen
class BidRoundStarted(Event):
    round: int                         # 1-based
    leader: int
    targets: tuple[str, ...]
    upcoming: tuple[str, ...]


@frozen
class BidPlaced(Event):
    """A face-down bid: everyone sees the seat and the target, not the card."""

    seat: int
    target: str


@frozen
class BidCardChosen(Event):
    secret: ClassVar[bool] = True
    seat: int
    target: str
    card: str


@frozen
class Passed(Event):
    seat: int
    auto: bool = False                 # the 2nd bid passes automatically


@frozen
class RevealedBid:
    seat: int
    target: str
    card: str
    value: int


@frozen
class BidsRevealed(Event):
    round: int
    bids: tuple[RevealedBid, ...]


@frozen
class AuctionUsed(Event):
    seat: int
    target: str
    card: str
    value: int                         # the new value (at most 6)


@frozen
class TargetWon(Event):
    seat: int
    target: str
    value: int                         # the deciding value
    paid: str                          # the card paid to the defense discard


@frozen
class TargetUnsold(Event):
    target: str
    reason: str                        # "tie" | "no_bids"


@frozen
class CardsReturned(Event):
    seat: int
    cards: tuple[str, ...]


@frozen
class Appraised(Event):
    seat: int
    target: str


@frozen
class TargetsDiscarded(Event):
    targets: tuple[str, ...]


# §5-4 -----------------------------------------------------------------------------
@frozen
class BuildStarted(Event):
    pass


@frozen
class RaceChosen(Event):
    secret: ClassVar[bool] = True
    seat: int
    race: str


@frozen
class CardAssigned(Event):
    secret: ClassVar[bool] = True
    seat: int
    card: str
    to: str


@frozen
class CardMaterialized(Event):
    """§5-4 マテリアル化: the card lies face up in the defense discard from now on —
    public, as the discard is (RULINGS R6)."""
    seat: int
    card: str


@frozen
class BuildConfirmed(Event):
    seat: int
    confirmed: bool = True             # False: the seat changed its build again


@frozen
class BuildRevealed(Event):
    seat: int
    race: str
    equipped: tuple[str, ...]
    materialized: tuple[str, ...]
    violations: tuple[str, ...]        # violation codes, empty when legal


@frozen
class CardRemoved(Event):
    seat: int
    card: str
    replacement: Optional[str] = None


@frozen
class DieRolled(Event):
    seat: int
    value: int
    reason: str                        # "order" | "enter" | "reenter"


@frozen
class OrderDecided(Event):
    order: tuple[int, ...]             # seats, first to act first


@frozen
class PhaseStarted(Event):
    phase: str


# §6 battle --------------------------------------------------------------------------
@frozen
class BattleStarted(Event):
    order: tuple[int, ...]


@frozen
class Entered(Event):
    seat: int
    area: int
    reenter: bool = False


@frozen
class TurnStarted(Event):
    seat: int
    round: int


@frozen
class TurnEnded(Event):
    seat: int
    reason: str = "end"                 # end | rest | actions | no_attack_cards | knocked_out


@frozen
class Moved(Event):
    seat: int
    from_area: int
    to_area: int


@frozen
class Rested(Event):
    seat: int
    mana: int


@frozen
class SkillActivated(Event):
    seat: int
    card: str
    skill: str
    mana_paid: int


@frozen
class SkillEnded(Event):
    seat: int
    card: str
    skill: str


@frozen
class AttackStarted(Event):
    seat: int
    card: str
    skill: str
    counter: bool = False
    target: Optional[int] = None        # a counter's target


@frozen
class SkillDeclared(Event):
    seat: int
    card: str
    skill: str


@frozen
class TraitUsed(Event):
    """§4 / RULINGS R2: the seat's guild battle trait (`skill`, of guild `guild`) was
    declared — once per game, so it is gone for the rest of the game."""
    seat: int
    guild: str
    skill: str


@frozen
class ManaPaid(Event):
    seat: int
    amount: int
    mana: int                           # current mana after paying


@frozen
class TargetChosen(Event):
    seat: int
    target: int


@frozen
class AreaChosen(Event):
    seat: int
    area: int


@frozen
class UnluckUsed(Event):
    seat: int


@frozen
class BagFilled(Event):
    seat: int
    chips: tuple[str, ...]              # sorted contents: "0" "1" "2" "crit" "miss"


@frozen
class ChipDrawn(Event):
    seat: int
    chip: str
    total: int                          # the running total (crit counted 2)


@frozen
class DrawEnded(Event):
    seat: int
    reason: str                         # stop | miss | zero_after_point | zero_third | empty | limit
    total: int


@frozen
class UnluckGained(Event):
    seat: int
    unluck: int


@frozen
class DamageDealt(Event):
    seat: int                           # the attacker
    target: int
    amount: int
    hp: int                             # the target's HP after


@frozen
class VictoryPointsGained(Event):
    seat: int
    target: int
    amount: int
    reason: str                         # low | knockout | low_knockout
    vp: int                             # the seat's total after


@frozen
class KnockedOut(Event):
    seat: int
    by: int


@frozen
class CounterDeclined(Event):
    seat: int


@frozen
class GameOver(Event):
    winners: tuple[int, ...]
    reason: str                         # "vp" (a table: "agreement", RULINGS R19)
