"""`observe(state, seat)`: what one seat may know (DESIGN.md "Hidden information").

A seat sees its own hand, picks and build; public cards (guilds, race candidates, bid
targets, discard piles); for other seats only counts — hand size, picks made, and which
targets their face-down bids lie on — until bids are revealed (§5-3) and builds are
revealed (§5-4 公開確認). During the build a hand's size counts every card behind the
seat's screen, used or not (§5-4: 「使用するカードと使用しないカードを分け、どちらも他の
プレイヤーから見えないように伏せておきます」): a build step shows nobody anything. Deck order is never visible. In the battle everything on the
table is public (HP, mana, VP, unluck, areas, the attack in progress and the chip bag's
contents); only the cards left unused in a hand stay hidden.
"""

from __future__ import annotations

from typing import Optional

import attrs
from attrs import frozen

from .engine import Decision, legal_actions, pending
from .state import BattleState, Bid, Config, GameState, Phase


@frozen
class SeatView:
    """Public facts about one seat."""

    seat: int
    guild: str
    race_candidates: tuple[str, ...]
    hand_size: int
    picks_made: int
    face_down_bids: tuple[str, ...]    # targets of this round's face-down bids
    passed: bool
    confirmed: bool
    auction_used: bool
    race: Optional[str] = None         # after the reveal
    equipped: tuple[str, ...] = ()     # after the reveal
    material: int = 0                  # after the reveal
    # §5-4 マテリアル化: face up in the defense discard from the moment it is done (R6)
    materialized: tuple[str, ...] = ()
    # §6 battle — all public
    hp: int = 6
    mana: int = 0
    vp: int = 0
    unluck: int = 0
    area: Optional[int] = None
    entered: bool = False
    knocked_out: bool = False
    low: bool = False                  # HP has been 4 or less since last set to 6
    active: tuple = ()
    trait_used: bool = False           # §4 / RULINGS R2: the battle trait, once per game


@frozen
class Observation:
    seat: int
    config: Config
    phase: str
    start_seat: int
    seats: tuple[SeatView, ...]
    hand: tuple[str, ...]
    picks: tuple[str, ...]
    draft_choice: Optional[str]
    race: Optional[str]
    equipped: tuple[str, ...]
    materialized: tuple[str, ...]
    bid_round: Optional[int]           # 0-based
    leader: Optional[int]
    bid_step: Optional[str]
    targets: tuple[str, ...]
    upcoming: tuple[str, ...]
    revealed_bids: tuple[Bid, ...]     # all bids with values, once revealed
    defense_deck_size: int
    attack_deck_size: int
    defense_discard: tuple[str, ...]
    attack_discard: tuple[str, ...]
    order: tuple[int, ...]
    battle: Optional[BattleState]      # the battle is public: turn, attack, bag, drawn chips
    winners: tuple[int, ...]
    end_reason: Optional[str]
    pending: Decision
    legal: tuple                       # this seat's legal actions


_VIEWS: dict[int, tuple[object, tuple, SeatView]] = {}


def observe(state: GameState, seat: int) -> Observation:
    b = state.bidding
    bidding_now = state.phase == Phase.BIDDING and b is not None
    revealed = bidding_now and b.step != "bid"
    views = []
    for i, s in enumerate(state.seats):
        face_down = tuple(x.target for x in b.bids if x.seat == i) if bidding_now else ()
        passed = bool(bidding_now and b.passed[i])
        # A seat's view depends on its SeatState and these two facts alone: memoised by
        # that object (kept in the entry, so its id is not reused; it never changes) —
        # the seats an action leaves alone keep their SeatState (issue 16).
        got = _VIEWS.get(id(s))
        if got is not None and got[0] is s and got[1] == (i, face_down, passed):
            views.append(got[2])
            continue
        if len(_VIEWS) >= 256:
            _VIEWS.clear()
        show = s.revealed
        views.append(SeatView(
            seat=i, guild=s.guild, race_candidates=s.race_candidates,
            # §5-4: the cards used and unused both lie face down until the reveal, so the
            # build's hidden steps (equip, unequip) never change what others count; a
            # materialized card lies face up in the discard (RULINGS R6)
            hand_size=len(s.hand) + (0 if show else len(s.equipped)),
            picks_made=len(s.picks) + (s.draft_choice is not None),
            face_down_bids=face_down, passed=passed,
            confirmed=s.confirmed, auction_used=s.auction_used,
            race=s.race if show else None, equipped=s.equipped if show else (),
            materialized=s.materialized, trait_used=s.trait_used,
            material=s.material if show else 0, hp=s.hp, mana=s.mana, vp=s.vp,
            unluck=s.unluck, area=s.area, entered=s.entered, knocked_out=s.knocked_out,
            low=s.low, active=s.active))
        _VIEWS[id(s)] = (s, (i, face_down, passed), views[-1])
    me = state.seats[seat]
    return Observation(
        seat=seat, config=state.config, phase=state.phase, start_seat=state.start_seat,
        seats=tuple(views), hand=me.hand, picks=me.picks, draft_choice=me.draft_choice,
        race=me.race, equipped=me.equipped, materialized=me.materialized,
        bid_round=b.round if b is not None else None,
        leader=b.leader if b is not None else None,
        bid_step=b.step if bidding_now else None,
        targets=b.current if b is not None else (), upcoming=b.upcoming if b is not None else (),
        revealed_bids=b.bids if revealed else (),
        defense_deck_size=len(state.defense_deck), attack_deck_size=len(state.attack_deck),
        defense_discard=state.defense_discard, attack_discard=state.attack_discard,
        order=state.order, battle=state.battle, winners=state.winners,
        end_reason=state.end_reason, pending=pending(state), legal=tuple(legal_actions(state, seat)))


def observe_public(state: GameState) -> Observation:
    """What a spectator may know: every seat's public facts (`SeatView`), the targets,
    discards and the battle — no seat's hand, picks or unrevealed build, no legal
    actions. `seat` is None."""
    return attrs.evolve(observe(state, 0), seat=None, hand=(), picks=(), draft_choice=None,
                        race=None, equipped=(), materialized=(), legal=())
