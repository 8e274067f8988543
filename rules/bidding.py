"""§5-3 入札結果: sealed-bid resolution as pure functions (used by the engine and tests)."""

from __future__ import annotations

from typing import Iterable, Optional

from attrs import frozen

from .state import Bid


@frozen
class TargetResult:
    """The result for one target: `winner` and the deciding `value`, or unsold (`reason`
    "tie" when bids existed but no value had a single bidder, "no_bids" when untouched).
    `candidates`: the winner's bid cards of the deciding value (one is paid)."""

    target: str
    winner: Optional[int] = None
    value: Optional[int] = None
    candidates: tuple[str, ...] = ()
    reason: str = "won"


def resolve_target(target: str, bids: Iterable[Bid]) -> TargetResult:
    """§5-3 入札結果 1–5: from the highest value down, the first value bid by exactly one
    player wins. A player with several bids of one value counts once; tied players drop
    out at that value only (their own lower bids still count)."""
    on = [b for b in bids if b.target == target]
    if not on:
        return TargetResult(target, reason="no_bids")
    for value in sorted({b.value for b in on}, reverse=True):
        players = {b.seat for b in on if b.value == value}
        if len(players) == 1:
            (winner,) = players
            cands = tuple(b.card for b in on if b.value == value)
            return TargetResult(target, winner, value, cands)
    return TargetResult(target, reason="tie")


def auction_options(bids: Iterable[Bid], seat: int) -> tuple[Bid, ...]:
    """§5-3 金鷹《競売》: the seat's bids whose value equals another player's bid on the
    same target (those it may raise by 1)."""
    bids = tuple(bids)
    return tuple(b for b in bids if b.seat == seat and any(
        o.seat != seat and o.target == b.target and o.value == b.value for o in bids))
