"""The state machine: `new_game`, `pending`, `legal_actions`, `apply`.

    >>> from rules import new_game, legal_actions, apply, Config
    >>> state, events = new_game(Config(players=3), seed=1)
    >>> state.phase
    'draft'
    >>> action = legal_actions(state)[0]
    >>> state2, events = apply(state, action)
    >>> state2 is not state
    True

`apply` accepts exactly the actions `legal_actions` lists and raises `IllegalAction`
with a readable reason for anything else; the state it was given never changes.
"""

from __future__ import annotations

from typing import Optional

from attrs import frozen

from . import battle as B
from . import rng as R
from .chance import roll
from .actions import (Action, Activate, Appraise, Assign, ChooseArea, ChooseRace,
                      ChooseTarget, Confirm, Decline, Declare, Done, Draw, EndTurn,
                      Move, Pass, Pay, Pick, PlaceBid, Refusal, Remove, Rest, StartAttack,
                      StartCounter, Stop, Swap, Unconfirm, UseAuction, UseUnluck, WELL_TYPED,
                      field_refusal, refuse)
from .bidding import TargetResult, auction_options, resolve_target
from .build import available_material, final_stats, violations
from .cards import CardSet, check_playable, default_cards
from .events import (Appraised, AuctionUsed, BidCardChosen, BidPlaced, BidRoundStarted,
                     BidsRevealed, BuildConfirmed, BuildRevealed, BuildStarted, CardAssigned,
                     CardMaterialized,
                     CardPicked, CardRemoved, CardsReturned, DeckReshuffled, DieRolled,
                     DraftEnded, Event, GuildsDealt, HandDealt, HandsPassed, OrderDecided,
                     Passed, PhaseStarted, RaceChosen, RacesDealt, RevealedBid,
                     StartSeatChosen, TargetsDiscarded, TargetsRevealed, TargetUnsold,
                     TargetWon)
from .state import (BID_ROUNDS, DRAFT_HAND_SIZE, BiddingState, Bid, Config, GameState, Phase,
                    SeatState, CHANGE, Changers, evolve)

Events = list[Event]


@frozen
class Decision:
    """Who must decide what next. `kind`: draft_pick | bid | auction | payment | appraisal |
    build | reveal_fix | turn | skills | targets | defense | unluck | draw | counter | over. Simultaneous decisions (draft, build) list every seat
    that still has to act.

    `optional`: seats that may act now but are not waited for — in the build, a seat that
    has confirmed may take its confirmation back (§5-4, docs/RULINGS.md R4). Players and
    the table ask only `seats`; `legal_actions` lists the actions of both."""

    kind: str
    seats: tuple[int, ...]
    optional: tuple[int, ...] = ()


# ------------------------------------------------------------------------- set-up §4, §5-1

def copies_of(cards: CardSet, first_game: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The physical defense and attack cards of the decks (§4: first game = no star)."""
    got = _COPIES.get((cards, first_game))
    if got is None:
        defense = tuple(f"{c.id}#{k}" for c in cards.defense if not (first_game and c.star)
                        for k in range(1, c.copies + 1))
        attack = tuple(c.id for c in cards.attack if not (first_game and c.star))
        if len(_COPIES) >= 64:
            _COPIES.clear()
        got = _COPIES[(cards, first_game)] = (defense, attack)
    return got


_COPIES: dict[tuple[CardSet, bool], tuple[tuple[str, ...], tuple[str, ...]]] = {}


def new_game(config: Config = Config(), cards: Optional[CardSet] = None,
             seed: int = 0) -> tuple[GameState, Events]:
    """§4 セットアップ and §5-1 配布, then the deal of §5-2: guilds shuffled and dealt and
    revealed; the lowest guild number starts; races dealt one at a time clockwise from the
    start seat until each seat has 2; decks shuffled; 8 defense cards to each seat; the
    targets of bid rounds 1 and 2 revealed."""
    cards = cards or default_cards()
    n = config.players
    check_playable(cards, n, config.first_game)   # NotPlayable (a ValueError) naming what is short
    events: Events = []
    rs = R.seed_state(seed)
    guilds, rs = R.shuffle(rs, [g.id for g in cards.guilds])
    guilds = guilds[:n]
    events.append(GuildsDealt(guilds))
    start = min(range(n), key=lambda i: cards.guild(guilds[i]).number)
    events.append(StartSeatChosen(start, cards.guild(guilds[start]).number))
    races, rs = R.shuffle(rs, [r.id for r in cards.races])
    cands: list[list[str]] = [[] for _ in range(n)]
    for k in range(2 * n):
        cands[(start + k) % n].append(races[k])
    events.append(RacesDealt(tuple(tuple(c) for c in cands)))
    defense, attack = copies_of(cards, config.first_game)
    defense_deck, rs = R.shuffle(rs, defense)
    attack_deck, rs = R.shuffle(rs, attack)
    state = GameState(config=config, cards=cards, rng=rs, phase=Phase.DRAFT,
                      seats=tuple(SeatState(guild=guilds[i], race_candidates=tuple(cands[i]))
                                  for i in range(n)),
                      start_seat=start, defense_deck=defense_deck, attack_deck=attack_deck)
    for k in range(n):
        seat = (start + k) % n
        dealt, state = _draw(state, "defense", DRAFT_HAND_SIZE, events)
        state = state.with_seat(seat, hand=dealt)
        events.append(HandDealt(seat, dealt))
    per_round, rounds = BID_ROUNDS[n]
    first, state = _draw(state, "attack", per_round, events)
    events.append(TargetsRevealed(1, first))
    second: tuple[str, ...] = ()
    if rounds > 1:
        second, state = _draw(state, "attack", per_round, events)
        events.append(TargetsRevealed(2, second))
    bidding = BiddingState(round=0, leader=start, turn=start, current=first, upcoming=second,
                           passed=(False,) * n)
    state = evolve(state, bidding=bidding)
    events.append(PhaseStarted(Phase.DRAFT))
    return state, events


def _draw(state: GameState, deck: str, count: int, events: Events
          ) -> tuple[tuple[str, ...], GameState]:
    """Take `count` cards from the top of a deck. §7 デッキがなくなった場合: an empty deck is
    replaced by its shuffled discard pile. Fewer cards come back only if both are empty."""
    pile = getattr(state, f"{deck}_deck")
    discard = getattr(state, f"{deck}_discard")
    rs = state.rng
    out: list[str] = []
    while len(out) < count:
        if not pile:
            if not discard:
                break
            pile, rs = R.shuffle(rs, discard)
            events.append(DeckReshuffled(deck, len(pile)))
            discard = ()
        out.append(pile[0])
        pile = pile[1:]
    state = evolve(state, rng=rs, **{f"{deck}_deck": pile, f"{deck}_discard": discard})
    return tuple(out), state


# ---------------------------------------------------------------------- pending decision

def pending(state: GameState) -> Decision:
    """Who must decide what next (DESIGN.md "One pending decision")."""
    return _memo(state)[1]


# Memo of what is derived from one state object (issue 16): its pending decision and the
# legal actions of each seat, kept for the few states most recently asked about — the
# usual caller asks `legal_actions(state)` (or `observe`) and then `apply(state, ...)`.
# Keyed by identity: an entry holds its state, so the id cannot be reused while it is
# kept, and a state never changes, so what is derived from it stays true.
_MEMO: dict[int, tuple[GameState, Decision, dict]] = {}
_MEMO_SIZE = 32


def _memo(state: GameState) -> tuple[GameState, Decision, dict]:
    m = _MEMO.get(id(state))
    if m is None or m[0] is not state:
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.clear()
        m = _MEMO[id(state)] = (state, _pending(state), {})
        primed = B.PRIMED.pop(id(state), None)      # a list `apply` has worked out already
        if primed is not None and primed[0] is state and primed[1] == m[1].kind \
                and primed[2] in m[1].seats:
            m[2][primed[2]] = tuple(primed[3])
    return m


def _pending(state: GameState) -> Decision:
    phase = state.phase
    if phase == Phase.BUILD:
        # Decisions are values: one object per set of confirmed seats (issue 16).
        confirmed = tuple([s.confirmed for s in state.seats])
        got = _BUILD_DECISIONS.get(confirmed)
        if got is None:
            n = len(confirmed)
            if len(_BUILD_DECISIONS) >= 256:
                _BUILD_DECISIONS.clear()
            got = _BUILD_DECISIONS[confirmed] = Decision(
                "build", tuple([i for i in range(n) if not confirmed[i]]),
                tuple([i for i in range(n) if confirmed[i]]))
        return got
    if phase == Phase.BATTLE:
        return _decision(B.pending_battle(state))
    if phase == Phase.DRAFT:
        return _decision(("draft_pick", tuple([i for i, s in enumerate(state.seats)
                                               if s.draft_choice is None])))
    if phase == Phase.BIDDING:
        b = state.bidding
        assert b is not None
        if b.step == "bid":
            return _decision(("bid", (b.turn,)))
        if b.step == "auction":
            return Decision("auction", _auction_seats(state))
        if b.step == "payment":
            res = _next_payment(state)
            assert res is not None
            return Decision("payment", (res.winner,))
        if b.step == "appraisal":
            return Decision("appraisal", _trait_seats(state, "appraisal"))
    if phase == Phase.REVEAL:
        assert state.reveal_seat is not None
        return Decision("reveal_fix", (state.reveal_seat,))
    return Decision("over", ())


def _decision(kind_seats: tuple[str, tuple[int, ...]]) -> Decision:
    """The Decision (kind, seats): decisions are values, one object serves every state."""
    got = _DECISIONS.get(kind_seats)
    if got is None:
        if len(_DECISIONS) >= 1024:
            _DECISIONS.clear()
        got = _DECISIONS[kind_seats] = Decision(*kind_seats)
    return got


_DECISIONS: dict[tuple[str, tuple[int, ...]], Decision] = {}
_BUILD_DECISIONS: dict[tuple[bool, ...], Decision] = {}


def _trait_seats(state: GameState, kind: str) -> tuple[int, ...]:
    return tuple(i for i, s in enumerate(state.seats)
                 if state.cards.guild(s.guild).trait.kind == kind)


def _auction_seats(state: GameState) -> tuple[int, ...]:
    b = state.bidding
    return tuple(i for i in _trait_seats(state, "auction")
                 if not state.seats[i].auction_used and auction_options(b.bids, i))


# -------------------------------------------------------------------------- legal actions

def legal_actions(state: GameState, seat: Optional[int] = None) -> list[Action]:
    """Exactly the actions `apply` accepts now (of one seat, if given)."""
    m = _MEMO.get(id(state))            # `_memo`, its usual case inlined (issue 16)
    if m is None or m[0] is not state:
        m = _memo(state)
    decision, per_seat = m[1], m[2]
    legal = _LEGAL[decision.kind]
    if seat is None and len(decision.seats) == 1 and not decision.optional:
        s = decision.seats[0]           # one seat decides: its list
        got = per_seat.get(s)
        if got is None:
            got = per_seat[s] = tuple(legal(state, s))
        return list(got)
    seats = decision.seats + decision.optional
    if seat is not None:
        seats = tuple(s for s in seats if s == seat)
    out: list[Action] = []
    for s in seats:
        got = per_seat.get(s)           # `_seat_legal`, inlined: once per seat and action
        if got is None:
            got = per_seat[s] = tuple(legal(state, s))
        out.extend(got)
    return out


def _seat_legal(state: GameState, decision: Decision, per_seat: dict, s: int) -> tuple:
    """The legal actions of seat `s` (one of the decision's seats), memoised per state."""
    got = per_seat.get(s)
    if got is None:
        got = per_seat[s] = tuple(_LEGAL[decision.kind](state, s))
    return got


def _legal_draft(state: GameState, s: int) -> tuple[Action, ...]:
    """A Pick of each card of the seat's hand. A pick changes one seat's draft choice: the
    other seats' hands are the same objects in the next state, and their lists are asked
    again — memoised by the hand's identity (an entry holds it, so its id is not reused
    while kept; a tuple never changes)."""
    hand = state.seats[s].hand
    got = _DRAFT_LISTS.get(id(hand))
    if got is not None and got[0] is hand and got[1] == s:
        return got[2]
    if len(_DRAFT_LISTS) >= 256:
        _DRAFT_LISTS.clear()
    out = tuple(_draft_list(state, s))
    _DRAFT_LISTS[id(hand)] = (hand, s, out)
    return out


_DRAFT_LISTS: dict[int, tuple[tuple[str, ...], int, tuple[Action, ...]]] = {}


def _draft_list(state: GameState, s: int) -> list[Action]:
    made = _PICKS.get(s)
    if made is None or len(made) >= 5_000:
        made = _PICKS[s] = {}
    out: list[Action] = []
    for c in state.seats[s].hand:
        a = made.get(c)                 # actions are values: one object serves every list
        if a is None:
            a = made[c] = Pick(s, c)
        out.append(a)
    return out


_PICKS: dict[int, dict[str, Pick]] = {}


def _bid_cards(state: GameState, s: int) -> tuple[str, ...]:
    """§5-3: bids use defense cards (the bid value is printed on defense cards only)."""
    card = state.cards.card
    return tuple([c for c in state.seats[s].hand if not card(c).is_attack])


def _legal_bid(state: GameState, s: int) -> list[Action]:
    b = state.bidding
    cards = _bid_cards(state, s)
    made = _BIDS.get(s)
    if made is None or len(made) >= 500:
        made = _BIDS[s] = {}
    out: list[Action] = []
    for t in b.current:
        on = made.get(t)                # actions are values: one object serves every list
        if on is None:
            on = made[t] = {}
        for c in cards:
            a = on.get(c)
            if a is None:
                a = on[c] = PlaceBid(s, t, c)
            out.append(a)
    out.append(_PASS[s] if s < len(_PASS) else Pass(s))
    return out


_PASS = tuple(Pass(s) for s in range(5))


_BIDS: dict[int, dict[str, dict[str, PlaceBid]]] = {}


def _legal_auction(state: GameState, s: int) -> list[Action]:
    return [UseAuction(s, b.card) for b in auction_options(state.bidding.bids, s)] + [Decline(s)]


def _legal_payment(state: GameState, s: int) -> list[Action]:
    res = _next_payment(state)
    return [Pay(s, res.target, c) for c in res.candidates]


def _legal_appraisal(state: GameState, s: int) -> list[Action]:
    return [Appraise(s, t) for t in _untouched(state)] + [Decline(s)]


def _legal_build(state: GameState, s: int) -> tuple[Action, ...]:
    seat = state.seats[s]
    if seat.confirmed:
        # §5-4 全員が最終ビルドの確定を宣言するまでは、自由に付け外しできます (R4)
        return (_UNCONFIRM[s] if s < len(_UNCONFIRM) else Unconfirm(s),)
    # A build step changes one seat's build: the other seats keep their SeatState, and
    # their lists are asked again unchanged — memoised by that object (an entry holds it,
    # so its id is not reused while kept; a SeatState never changes) (issue 16).
    got = _BUILD_MEMO.get(id(seat))
    if got is not None and got[0] is seat and got[1] is state.cards and got[2] == s:
        return got[3]
    if len(_BUILD_MEMO) >= 256:
        _BUILD_MEMO.clear()
    out = tuple(_build_list(state.cards, s, seat))
    _BUILD_MEMO[id(seat)] = (seat, state.cards, s, out)
    return out


_BUILD_MEMO: dict[int, tuple[SeatState, CardSet, int, tuple[Action, ...]]] = {}


def _build_list(cards: CardSet, s: int, seat: SeatState) -> list[Action]:
    """ChooseRace, then per card of the hand Assign to equip (and to materialize, a
    defense card), per equipped card Assign to unused, per equipped defense card Assign
    to materialize; Confirm. A materialized card is in the discard pile for good (§5-4
    「マテリアル化した装備カードは、表向きで装備カードの捨て山へ置きます」, RULINGS R6)."""
    made = _MADE.get((cards, s))
    if made is None:
        if len(_MADE) >= 64:
            _MADE.clear()
        made = _MADE[(cards, s)] = {}
    try:
        out: list[Action] = [made[("race", r)] for r in seat.race_candidates if r != seat.race]
        for c in seat.hand:
            out += made[c][0]
        out += [made[c][1] for c in seat.equipped]
        for c in seat.equipped:
            out += made[c][2]
    except KeyError:            # first time for a card or race: make its actions, again
        for r in seat.race_candidates:
            made.setdefault(("race", r), ChooseRace(s, r))
        for c in seat.hand + seat.equipped:
            if c not in made:
                equip, unused = Assign(s, c, "equip"), Assign(s, c, "unused")
                if cards.card(c).is_attack:
                    made[c] = ((equip,), unused, ())
                else:
                    mat = Assign(s, c, "materialize")
                    made[c] = ((equip, mat), unused, (mat,))
        return _build_list(cards, s, seat)
    if seat.race is not None:
        out.append(_CONFIRM[s] if s < len(_CONFIRM) else Confirm(s))
    return out


# Per card set and seat: the seat's build actions, made once (actions are values, so one
# object serves every list): per race candidate its ChooseRace; per card (from the hand,
# to unused, equipped to materialize).
_MADE: dict[tuple[CardSet, int], dict[str, object]] = {}
_CONFIRM = tuple(Confirm(s) for s in range(5))
_UNCONFIRM = tuple(Unconfirm(s) for s in range(5))


def _legal_reveal(state: GameState, s: int) -> list[Action]:
    seat = state.seats[s]
    out: list[Action] = [Remove(s, c) for c in seat.equipped]
    if state.config.reveal_swap:
        out.extend(Swap(s, c, r) for c in in_violation(state, s) for r in seat.hand)
    return out


def in_violation(state: GameState, seat: int) -> tuple[str, ...]:
    """§5-4 公開確認 「ルール違反が見つかったカード」 (docs/RULINGS.md R7): the equipped cards
    named by a violation of the seat's build now, in the build's order — both (all) cards
    of one name, the armor cards of a doubly worn part, every card using a hand slot when
    more than two are used, every equipped card with an equip cost when the cost exceeds
    the available material."""
    named = {c for v in _seat_violations(state, seat) for c in v.cards}
    return tuple(c for c in state.seats[seat].equipped if c in named)


_LEGAL = {
    "draft_pick": _legal_draft, "bid": _legal_bid, "auction": _legal_auction,
    "payment": _legal_payment, "appraisal": _legal_appraisal, "build": _legal_build,
    "reveal_fix": _legal_reveal, "over": lambda st, s: [], **B.LEGAL,
}


# ----------------------------------------------------------------------------------- apply

def apply(state: GameState, action: Action) -> tuple[GameState, Events]:
    """Apply one action; returns the new state and the events it caused."""
    well_typed = WELL_TYPED.get(type(action))  # `field_refusal`'s check, made on first use
    if well_typed is None or not well_typed(action):
        bad = field_refusal(action)
        if bad is not None:     # before the legal list: 0.0 and False compare equal to 0
            raise bad.error()
    if not _is_legal(state, action):
        raise refusal(state, action).error()
    events: Events = []
    kind = type(action)
    new = _APPLY[kind](state, action, events)
    if kind is Assign or kind is ChooseRace:
        _carry_build(state, new, action.seat)
    return new, events


def _carry_build(state: GameState, new: GameState, s: int) -> None:
    """After a build step of seat `s` (§5-4 Assign or ChooseRace: nobody's confirmation
    changes), the new state's pending decision is the old one and every other seat's
    legal list is unchanged (`_legal_build` reads that seat alone): the memo of the new
    state starts with them (issue 16)."""
    m = _MEMO.get(id(state))
    if m is None or m[0] is not state:
        return
    per_seat = m[2].copy()
    per_seat.pop(s, None)
    if len(_MEMO) >= _MEMO_SIZE:
        _MEMO.clear()
    _MEMO[id(new)] = (new, m[1], per_seat)


def _is_legal(state: GameState, action: Action) -> bool:
    """`action in legal_actions(state)`, decided without listing every seat's actions:
    the action's seat must be one the decision lists, and the action one of that seat's
    — checked directly for the big lists (draft, bid, build) and the two-way choices,
    else found in the seat's list (memoised). `field_refusal` has passed: the fields have
    their exact types, so == below is what list membership would compare."""
    m = _MEMO.get(id(state))
    if m is None or m[0] is not state:
        m = _memo(state)
    decision = m[1]
    s = action.seat
    if s not in decision.seats and s not in decision.optional:
        return False
    check = _CHECK.get(decision.kind)
    if check is not None:
        return check(state, s, action)
    listed = m[2].get(s)                # `_seat_legal`, inlined
    if listed is None:
        listed = _seat_legal(state, decision, m[2], s)
    for a in listed:                # usually the very object listed: no __eq__ calls
        if a is action:
            return True
    return action in listed


def _check_draft(state: GameState, s: int, a: Action) -> bool:
    return type(a) is Pick and a.card in state.seats[s].hand        # `_legal_draft`


def _check_bid(state: GameState, s: int, a: Action) -> bool:
    """`_legal_bid`: a defense card of the hand on a current target, or a pass."""
    if type(a) is Pass:
        return True
    return type(a) is PlaceBid and a.target in state.bidding.current \
        and a.card in state.seats[s].hand and not state.cards.card(a.card).is_attack


def _check_build(state: GameState, s: int, a: Action) -> bool:
    """`_legal_build`, case by case."""
    seat = state.seats[s]
    kind = type(a)
    if seat.confirmed:
        return kind is Unconfirm
    if kind is Assign:
        c, to = a.card, a.to
        if to == "equip":
            return c in seat.hand
        if to == "materialize":
            return (c in seat.hand or c in seat.equipped) and not state.cards.card(c).is_attack
        return c in seat.equipped                                    # "unused"
    if kind is ChooseRace:
        return a.race in seat.race_candidates and a.race != seat.race
    if kind is Confirm:
        return seat.race is not None
    return False


_CHECK = {
    "draft_pick": _check_draft, "bid": _check_bid, "build": _check_build,
    "draw": lambda st, s, a: type(a) is Draw or type(a) is Stop,          # B.legal_draw
    "unluck": lambda st, s, a: type(a) is UseUnluck or type(a) is Decline,  # B.legal_unluck
    "over": lambda st, s, a: False,
}


def explain_illegal(state: GameState, action: object) -> tuple[str, str]:
    """Why `action` is not legal now: (code, English reason). See `refusal` for the params."""
    r = refusal(state, action)
    return r.code, r.reason


def refusal(state: GameState, action: object) -> Refusal:
    """Why `action` is not legal now: a `Refusal` (code of `REFUSAL_CODES`, English reason,
    params for a translation). The battle's own causes (§6) come from `battle.explain`."""
    bad = field_refusal(action)
    if bad is not None:
        return bad
    decision = pending(state)
    s = getattr(action, "seat", None)
    name = type(action).__name__
    cards = state.cards

    def no(code: str, **params: object) -> Refusal:
        return refuse(cards, code, **params)

    if not isinstance(s, int) or not 0 <= s < state.players:
        return no("no_such_seat", seat=s, players=state.players)
    if decision.kind == "over":
        return no("game_over")
    if isinstance(action, _BUILD_ACTIONS) or (decision.kind == "build" and s in decision.optional):
        why = _build_lock(state, action, decision)
        if why is not None:
            return why
    if state.phase == Phase.BATTLE:
        early = B.explain_early(state, action)
        if early is not None:
            return early
    if s not in decision.seats:
        return no("not_your_turn", seat=s, decision=decision.kind, waiting=decision.seats)
    if state.phase == Phase.BATTLE:
        why = B.explain(state, action, decision.kind)
        if why is not None:
            return why
    seat = state.seats[s]
    card = getattr(action, "card", None)
    expected = _EXPECTED.get(decision.kind, ())
    if not isinstance(action, expected):
        return no("wrong_action", action=name, decision=decision.kind,
                  allowed=tuple(t.__name__ for t in expected))
    if decision.kind == "bid" and isinstance(action, PlaceBid):
        if action.target not in state.bidding.current:
            return no("not_a_target", bid_target=action.target)
        if card not in seat.hand:
            return no("card_not_in_hand", card=card, seat=s)
        return no("attack_card_bid", card=card)
    if decision.kind == "build" and isinstance(action, Assign):
        if card in seat.materialized:           # §5-4: it lies face up in the discard (R6)
            return no("materialized_final", card=card, seat=s)
        if card not in seat.hand + seat.equipped:
            return no("card_not_owned", card=card, seat=s)
        zone = "equip" if card in seat.equipped else "unused"
        if zone == action.to:
            return no("no_change", card=card, to=action.to)
        if action.to == "materialize":
            return no("attack_card_material", card=card)
        return no("no_change", card=card, to=action.to)
    if decision.kind == "build" and isinstance(action, Confirm):
        return no("no_race", seat=s)
    if isinstance(action, Swap) and state.config.reveal_swap and card in seat.equipped \
            and action.replacement in seat.hand and card not in in_violation(state, s):
        return no("swap_not_in_violation", card=card, seat=s)
    if isinstance(action, (Pick, Remove, Swap, Pay, UseAuction)):
        return no("bad_card", card=card, action=name)
    if isinstance(action, (Appraise,)):
        return no("bad_target", bid_target=action.target)
    if isinstance(action, ChooseRace):
        return no("bad_race", race=action.race, seat=s)
    return no("illegal", action=name)


def _build_lock(state: GameState, action: object, decision: Decision) -> Optional[Refusal]:
    """§5-4 / §8 FAQ (R4): a confirmed seat changes nothing until it takes its confirmation
    back; nobody can once every seat has confirmed (the reveal and the battle)."""
    s = action.seat  # type: ignore[attr-defined]
    name = type(action).__name__
    if decision.kind == "build" and s in decision.optional:
        if isinstance(action, Unconfirm):
            return None                                  # legal
        return refuse(state.cards, "build_confirmed", action=name, seat=s)
    if decision.kind == "build" and isinstance(action, Unconfirm):
        return refuse(state.cards, "not_confirmed", action=name, seat=s)
    if state.phase in (Phase.REVEAL, Phase.BATTLE):
        return refuse(state.cards, "builds_final", action=name, seat=s)
    return None


# What changes a build before the reveal (§5-4 ビルド).
_BUILD_ACTIONS = (ChooseRace, Assign, Confirm, Unconfirm)


_EXPECTED: dict[str, tuple[type, ...]] = {
    "draft_pick": (Pick,), "bid": (PlaceBid, Pass), "auction": (UseAuction, Decline),
    "payment": (Pay,), "appraisal": (Appraise, Decline),
    "build": (ChooseRace, Assign, Confirm, Unconfirm), "reveal_fix": (Remove, Swap),
    "turn": (Move, Rest, EndTurn, Activate, StartAttack), "skills": (Declare, Done),
    "targets": (ChooseTarget, ChooseArea, Done), "defense": (Declare, Done),
    "unluck": (UseUnluck, Decline), "draw": (Draw, Stop), "counter": (StartCounter, Decline),
}


# ------------------------------------------------------------------------------ §5-2 draft

def _apply_pick(state: GameState, a: Pick, events: Events) -> GameState:
    """§5-2 カードの選択: each seat picks one card face down; when all have, the hands
    pass clockwise. The last card of a hand is taken automatically."""
    state = state.with_seat(a.seat, draft_choice=a.card)
    events.append(CardPicked(a.seat, a.card))
    if any(s.draft_choice is None for s in state.seats):
        return state
    n = state.players
    left = [_without(s.hand, s.draft_choice) for s in state.seats]
    # Hands pass clockwise: seat i receives the hand of seat i-1.
    state = CHANGE["seats"](state, tuple([
        _CH["pick"](s, s.picks + (s.draft_choice,), None, left[(i - 1) % n])
        for i, s in enumerate(state.seats)]))
    remaining = len(state.seats[0].hand)
    events.append(HandsPassed(remaining))
    if remaining == 1:
        for i, s in enumerate(state.seats):
            events.append(CardPicked(i, s.hand[0], auto=True))
            state = state.with_seat(i, picks=s.picks + s.hand, hand=())
        remaining = 0
    if remaining == 0:
        for i, s in enumerate(state.seats):
            state = state.with_seat(i, hand=s.picks, picks=())
        events.append(DraftEnded())
        state = evolve(state, phase=Phase.BIDDING)
        events.append(PhaseStarted(Phase.BIDDING))
        b = state.bidding
        events.append(BidRoundStarted(1, b.leader, b.current, b.upcoming))
    return state


# ---------------------------------------------------------------------------- §5-3 bidding

def _next_turn(state: GameState) -> GameState:
    b = state.bidding
    n = state.players
    for k in range(1, n + 1):
        s = (b.turn + k) % n
        if not b.passed[s]:
            return CHANGE["bidding"](state, _CH["turn"](b, s))
    return state


def _apply_bid(state: GameState, a: PlaceBid, events: Events) -> GameState:
    """§5-3 入札ラウンド: one face-down card on one target; at most 2 bids a round, the
    2nd bid passes automatically; both may go on one target."""
    b = state.bidding
    s = a.seat
    seats = list(state.seats)
    seats[s] = _CH["hand"](seats[s], _without(seats[s].hand, a.card))
    value = state.cards.card(a.card).bid
    bids = b.bids + (Bid(s, a.target, a.card, value),)
    events.append(BidPlaced(s, a.target))
    events.append(BidCardChosen(s, a.target, a.card))
    passed = b.passed
    for x in b.bids:
        if x.seat == s:                 # this is the seat's 2nd bid
            passed = _set(passed, s, True)
            events.append(Passed(s, auto=True))
            break
    turn = _next_bidder(b.turn, passed)
    if turn is not None:                # `_after_bid_turn` and `_next_turn`, in one copy
        return CHANGE["seats_bidding"](state, tuple(seats),
                                       _CH["bid_turn"](b, bids, passed, turn))
    b = _CH["bids_passed"](b, bids, passed)
    return _after_bid_turn(CHANGE["seats_bidding"](state, tuple(seats), b), events)


def _next_bidder(turn: int, passed: tuple[bool, ...]) -> Optional[int]:
    """The next seat clockwise from `turn` that has not passed (`turn` itself last); None
    when every seat has (`_next_turn`)."""
    n = len(passed)
    for k in range(1, n + 1):
        s = (turn + k) % n
        if not passed[s]:
            return s
    return None


def _apply_pass(state: GameState, a: Pass, events: Events) -> GameState:
    """§5-3: a pass is final for this bid round."""
    b = state.bidding
    events.append(Passed(a.seat))
    passed = _set(b.passed, a.seat, True)
    turn = _next_bidder(b.turn, passed)
    if turn is not None:                # `_after_bid_turn` and `_next_turn`, in one copy
        return CHANGE["bidding"](state, _CH["passed_turn"](b, passed, turn))
    b = _CH["passed"](b, passed)
    return _after_bid_turn(CHANGE["bidding"](state, b), events)


def _after_bid_turn(state: GameState, events: Events) -> GameState:
    b = state.bidding
    if not all(b.passed):
        return _next_turn(state)
    # §5-3 入札結果: all passed — every bid card is revealed together.
    events.append(BidsRevealed(b.round + 1, tuple(RevealedBid(x.seat, x.target, x.card, x.value)
                                                  for x in b.bids)))
    state = evolve(state, bidding=evolve(b, step="auction"))
    if _auction_seats(state):
        return state
    return _resolve(state, events)


def _apply_auction(state: GameState, a: UseAuction, events: Events) -> GameState:
    """§5-3 金鷹《競売》: once per game, before resolution, +1 (5 → 6) to one of the owner's
    bids that ties another player's bid on the same target."""
    b = state.bidding
    bids = tuple(evolve(x, value=x.value + 1) if (x.seat == a.seat and x.card == a.card)
                 else x for x in b.bids)
    boosted = next(x for x in bids if x.card == a.card)
    events.append(AuctionUsed(a.seat, boosted.target, a.card, boosted.value))
    state = state.with_seat(a.seat, auction_used=True)
    state = evolve(state, bidding=evolve(b, bids=bids))
    return _resolve(state, events)


def _apply_decline(state: GameState, a: Decline, events: Events) -> GameState:
    if state.phase == Phase.BATTLE:
        return B.apply_battle_decline(state, a, events)
    b = state.bidding
    if b.step == "auction":
        return _resolve(state, events)
    # appraisal declined
    return _end_round(state, events)


def _results(state: GameState) -> list[TargetResult]:
    b = state.bidding
    return [resolve_target(t, b.bids) for t in b.current]


def _next_payment(state: GameState, results: Optional[list[TargetResult]] = None
                  ) -> Optional[TargetResult]:
    """The next won target whose winner must choose between different equal-value cards
    (`results`: `_results(state)`, when worked out already)."""
    chosen = {t for t, _ in state.bidding.payments}
    for res in _results(state) if results is None else results:
        if res.winner is not None and res.target not in chosen and \
                len({state.cards.card(c).id for c in res.candidates}) > 1:
            return res
    return None


def _apply_pay(state: GameState, a: Pay, events: Events) -> GameState:
    b = state.bidding
    state = evolve(state, bidding=evolve(b, payments=b.payments + ((a.target, a.card),)))
    return _resolve(state, events)


def _resolve(state: GameState, events: Events) -> GameState:
    """§5-3 入札結果: per target the highest single bidder wins and pays exactly one card
    of the deciding value (their choice among different ones) to the defense discard;
    every other bid card returns to its owner's hand."""
    b = state.bidding
    results = _results(state)
    if _next_payment(state, results) is not None:
        return evolve(state, bidding=evolve(b, step="payment"))
    chosen = dict(b.payments)
    paid: set[str] = set()
    won: set[str] = set()
    untouched: list[str] = []
    # the hands and the discard pile as they change, the state copied once at the end
    hands = [s.hand for s in state.seats]
    discard = state.defense_discard
    for res in results:
        if res.winner is None:
            events.append(TargetUnsold(res.target, res.reason))
            if res.reason == "no_bids":
                untouched.append(res.target)
            continue
        card = chosen.get(res.target, res.candidates[0])
        paid.add(card)
        won.add(res.target)
        hands[res.winner] += (res.target,)
        discard += (card,)
        events.append(TargetWon(res.winner, res.target, res.value, card))
    for i in range(state.players):
        back = tuple(x.card for x in b.bids if x.seat == i and x.card not in paid)
        if back:
            hands[i] += back
            events.append(CardsReturned(i, back))
    seats = tuple([s if s.hand is h else _CH["hand"](s, h) for s, h in zip(state.seats, hands)])
    current = tuple(t for t in b.current if t not in won)
    tied = tuple(t for t in current if t not in untouched)
    b = evolve(b, bids=(), payments=(), current=current, tied=tied, step="appraisal")
    state = evolve(state, seats=seats, defense_discard=discard, bidding=b)
    _, rounds = BID_ROUNDS[state.players]
    if b.round == rounds - 1 and untouched and _trait_seats(state, "appraisal"):
        return state
    return _end_round(state, events)


def _untouched(state: GameState) -> tuple[str, ...]:
    """Last-round targets nobody bid on; those left unsold by a tie are not offered."""
    b = state.bidding
    return tuple(t for t in b.current if t not in b.tied)


def _apply_appraise(state: GameState, a: Appraise, events: Events) -> GameState:
    """§5-3 紫晶《鑑定》: after the last round's resolution, take one target nobody bid on."""
    b = state.bidding
    s = state.seats[a.seat]
    state = state.with_seat(a.seat, hand=s.hand + (a.target,))
    events.append(Appraised(a.seat, a.target))
    state = evolve(state, bidding=evolve(b, current=tuple(
        t for t in b.current if t != a.target)))
    return _end_round(state, events)


def _end_round(state: GameState, events: Events) -> GameState:
    """§5-3: targets not won go to the attack discard; the next round's targets become
    current and the round after that is revealed; the next leader is clockwise."""
    b = state.bidding
    if b.current:
        events.append(TargetsDiscarded(b.current))
        state = evolve(state, attack_discard=state.attack_discard + b.current)
    per_round, rounds = BID_ROUNDS[state.players]
    r = b.round + 1
    if r >= rounds:
        state = evolve(state, bidding=None, phase=Phase.BUILD)
        events.append(PhaseStarted(Phase.BUILD))
        events.append(BuildStarted())
        return state
    upcoming: tuple[str, ...] = ()
    if r + 1 < rounds:
        upcoming, state = _draw(state, "attack", per_round, events)
        events.append(TargetsRevealed(r + 2, upcoming))
    leader = (b.leader + 1) % state.players
    nb = BiddingState(round=r, leader=leader, turn=leader, current=b.upcoming, upcoming=upcoming,
                      passed=(False,) * state.players)
    events.append(BidRoundStarted(r + 1, leader, nb.current, upcoming))
    return evolve(state, bidding=nb)


def _set(t: tuple, i: int, v: object) -> tuple:
    return t[:i] + (v,) + t[i + 1:]


# ------------------------------------------------------------------------------ §5-4 build

def _apply_race(state: GameState, a: ChooseRace, events: Events) -> GameState:
    events.append(RaceChosen(a.seat, a.race))
    return state.with_seat(a.seat, race=a.race)


def _apply_assign(state: GameState, a: Assign, events: Events) -> GameState:
    """§5-4: move a card between unused (the hand) and equipped — hidden until every seat
    has confirmed (「使用するカードと使用しないカードを分け、どちらも…伏せておきます」) — or
    materialize it: 「装備カードを捨てて獲得マテリアルを得る処理をマテリアル化と呼びます。
    …マテリアル化した装備カードは、表向きで装備カードの捨て山へ置きます。」 The card goes face
    up to the defense discard at once, where every seat sees it (event `CardMaterialized`),
    and never comes back (RULINGS R6)."""
    i = a.seat
    s = state.seats[i]
    c = a.card
    hand, equipped, materialized = s.hand, s.equipped, s.materialized
    if a.to == "materialize":
        seats = list(state.seats)
        seats[i] = _CH["zones"](s, _without(hand, c), _without(equipped, c), materialized + (c,))
        events.append(CardMaterialized(i, c))
        return evolve(state, seats=tuple(seats), defense_discard=state.defense_discard + (c,))
    if c in hand:                   # `_without` of each zone, written out (issue 16)
        k = hand.index(c)
        hand = hand[:k] + hand[k + 1:]
    if c in equipped:
        k = equipped.index(c)
        equipped = equipped[:k] + equipped[k + 1:]
    to = a.to
    if to == "unused":
        hand += (c,)
    else:
        equipped += (c,)
    got = _ASSIGNED.get(id(a))          # events are values: one per action object
    if got is None or got[0] is not a:
        if len(_ASSIGNED) >= 5_000:
            _ASSIGNED.clear()
        got = _ASSIGNED[id(a)] = (a, CardAssigned(i, c, to))
    events.append(got[1])
    seats = list(state.seats)
    seats[i] = _CH["zones"](s, hand, equipped, materialized)
    return CHANGE["seats"](state, tuple(seats))


# Per Assign object (the engine's own, listed again and again): (it, its event). Keyed by
# identity; an entry holds its action, so the id is not reused while it is kept.
_ASSIGNED: dict[int, tuple[Assign, CardAssigned]] = {}
# Hot updates (issue 16): `changer`s, each written on first use.
_CH = Changers(zones=(SeatState, ("hand", "equipped", "materialized")),
               hand=(SeatState, ("hand",)), turn=(BiddingState, ("turn",)),
               bids=(BiddingState, ("bids",)), bids_passed=(BiddingState, ("bids", "passed")),
               passed=(BiddingState, ("passed",)),
               bid_turn=(BiddingState, ("bids", "passed", "turn")),
               passed_turn=(BiddingState, ("passed", "turn")),
               pick=(SeatState, ("picks", "draft_choice", "hand")))


def _without(t: tuple, c: str) -> tuple:
    """`t` less the first `c` in it (all of `t` when there is none)."""
    if c not in t:
        return t
    i = t.index(c)
    return t[:i] + t[i + 1:]


def _apply_confirm(state: GameState, a: Confirm, events: Events) -> GameState:
    """§5-4: declare the build final. Until every seat has, a seat that confirmed may take
    it back (`Unconfirm`, docs/RULINGS.md R4); when every seat has confirmed, the builds are
    revealed in seat order from the start seat and can no longer change."""
    state = state.with_seat(a.seat, confirmed=True)
    events.append(BuildConfirmed(a.seat))
    if not all(s.confirmed for s in state.seats):
        return state
    state = evolve(state, phase=Phase.REVEAL)
    events.append(PhaseStarted(Phase.REVEAL))
    return _reveal_from(state, state.start_seat, 0, events)


def _apply_unconfirm(state: GameState, a: Unconfirm, events: Events) -> GameState:
    """§5-4 全員が最終ビルドの確定を宣言するまでは、自由に付け外しできます (R4): a confirmed
    seat takes its declaration back and edits again. Public, like the declaration; the
    build itself stays hidden."""
    events.append(BuildConfirmed(a.seat, confirmed=False))
    return state.with_seat(a.seat, confirmed=False)


def _seat_violations(state: GameState, i: int):
    s = state.seats[i]
    return violations(state.cards, s.race, s.equipped, available_of(state, i))


def available_of(state: GameState, seat: int) -> int:
    """§5-4 利用可能マテリアル of a seat: from its materialized cards (public, in the
    defense discard since they were materialized); fixed at the reveal."""
    s = state.seats[seat]
    if s.revealed:
        return s.material
    return available_material(state.cards, s.guild, s.materialized)


def _reveal_from(state: GameState, seat: int, done: int, events: Events) -> GameState:
    """§5-4 公開確認: reveal builds one by one clockwise from the start seat; a seat whose
    build breaks a rule removes cards of its choice until it is legal. (Materialized cards
    are in the defense discard already: they went there when materialized.)"""
    n = state.players
    while done < n:
        s = state.seats[seat]
        if not s.revealed:
            v = _seat_violations(state, seat)
            events.append(BuildRevealed(seat, s.race, s.equipped, s.materialized,
                                        tuple(x.code for x in v)))
            state = state.with_seat(seat, revealed=True, material=available_of(state, seat))
        if _seat_violations(state, seat):
            return evolve(state, reveal_seat=seat)
        seat = (seat + 1) % n
        done += 1
    return _decide_order(evolve(state, reveal_seat=None), events)


def _apply_remove(state: GameState, a: Remove | Swap, events: Events) -> GameState:
    """§5-4 公開確認: a removed card goes to its discard pile, with no replacement — or, in
    the first-game variant, an unused card takes the place of a card found in violation,
    and that card goes back among the unused cards (docs/RULINGS.md R7)."""
    s = state.seats[a.seat]
    equipped = tuple(c for c in s.equipped if c != a.card)
    replacement = getattr(a, "replacement", None)
    if replacement is not None:
        equipped += (replacement,)
        hand = tuple(c for c in s.hand if c != replacement) + (a.card,)
        state = state.with_seat(a.seat, equipped=equipped, hand=hand)
    else:
        state = state.with_seat(a.seat, equipped=equipped)
        pile = "attack_discard" if state.cards.card(a.card).is_attack else "defense_discard"
        state = evolve(state, **{pile: getattr(state, pile) + (a.card,)})
    events.append(CardRemoved(a.seat, a.card, replacement))
    if _seat_violations(state, a.seat):
        return state
    done = (a.seat - state.start_seat) % state.players + 1
    return _reveal_from(state, (a.seat + 1) % state.players, done, events)


def _decide_order(state: GameState, events: Events) -> GameState:
    """§5-4 処理順: by final agility, high to low; ties are settled by die rolls among the
    tied seats only, re-rolled among equal rolls until settled."""
    agi = {i: final_stats(state.cards, s.race, s.equipped)["agi"]
           for i, s in enumerate(state.seats)}
    order: list[int] = []
    for value in sorted(set(agi.values()), reverse=True):
        group = [i for i in range(state.players) if agi[i] == value]
        ranked, state = _settle_ties(state, group, events)
        order.extend(ranked)
    events.append(OrderDecided(tuple(order)))
    state = evolve(state, order=tuple(order), phase=Phase.BATTLE)
    events.append(PhaseStarted(Phase.BATTLE))
    return B.start_battle(state, events)


def _settle_ties(state: GameState, group: list[int], events: Events
                 ) -> tuple[list[int], GameState]:
    if len(group) == 1:
        return group, state
    rolls: dict[int, int] = {}
    for seat in group:
        rolls[seat], state = roll(state)
        events.append(DieRolled(seat, rolls[seat], "order"))
    out: list[int] = []
    for value in sorted(set(rolls.values()), reverse=True):
        sub = [s for s in group if rolls[s] == value]
        ranked, state = _settle_ties(state, sub, events)
        out.extend(ranked)
    return out, state


_APPLY = {
    Pick: _apply_pick, PlaceBid: _apply_bid, Pass: _apply_pass, UseAuction: _apply_auction,
    Decline: _apply_decline, Pay: _apply_pay, Appraise: _apply_appraise,
    ChooseRace: _apply_race, Assign: _apply_assign, Confirm: _apply_confirm,
    Unconfirm: _apply_unconfirm,
    Remove: _apply_remove, Swap: _apply_remove, **B.APPLY,
}
