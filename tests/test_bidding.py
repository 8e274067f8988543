"""§5-3 武器入札 and the FAQ (§8 武器入札)."""

from __future__ import annotations

from collections import Counter

import attrs
import pytest

from rules import IllegalAction, apply, legal_actions, observe, pending
from rules.actions import Appraise, Decline, Pass, Pay, Pick, PlaceBid, UseAuction
from rules.bidding import TargetResult, auction_options, resolve_target
from rules.events import (Appraised, AuctionUsed, BidPlaced, BidRoundStarted, BidsRevealed,
                          CardsReturned, DeckReshuffled, Passed, PhaseStarted, RevealedBid,
                          TargetsDiscarded, TargetsRevealed, TargetUnsold, TargetWon)
from rules.state import BID_ROUNDS, Bid, Phase

from conftest import (assert_cards_conserved, bidding_position, game, of_type, run,
                      strings_in)

SS = "short_sword"
TARGETS3 = (SS, "dagger", "axe", "mace")          # a 3-player round: 4 targets
GH = ("golden_hawk", "red_lion", "blue_wolf")     # golden hawk (3) starts: seat 0
AM = ("amethyst", "blue_wolf", "black_stag")      # amethyst (5) starts: seat 0


def B(seat, value, card="x", target=SS):
    return Bid(seat, target, card, value)


def refused(state, action, code=None):
    """`action` is not listed, `apply` raises IllegalAction, and the state is unchanged."""
    assert action not in legal_actions(state)
    snapshot = repr(state)
    copy = attrs.evolve(state)
    with pytest.raises(IllegalAction) as info:
        apply(state, action)
    assert state == copy and repr(state) == snapshot
    assert info.value.reason
    if code is not None:
        assert info.value.code == code, info.value.reason
    return info.value


def all_pass(state):
    """Every seat passes in turn (and a 《鑑定》 owner declines): one bid round ends."""
    events = []
    r = state.bidding.round
    while state.phase == Phase.BIDDING and state.bidding.round == r and \
            pending(state).kind in ("bid", "appraisal"):
        seat = pending(state).seats[0]
        action = Pass(seat) if pending(state).kind == "bid" else Decline(seat)
        state, ev = apply(state, action)
        events.extend(ev)
    return state, events


def draft_through(state):
    while state.phase == Phase.DRAFT:
        for i, s in enumerate(state.seats):
            if s.draft_choice is None and s.hand:
                state, _ = apply(state, Pick(i, s.hand[0]))
    return state


# ----------------------------------------------------------------- the rulebook's example

def test_5_3_rulebook_example_resolve_target():
    """§5-3 入札例: ショートソード — A 5 and 3, B 5, C 2. The 5s tie and drop out; A's 3 is
    the next highest single bid: A wins and pays the 3-card."""
    bids = [Bid(0, SS, "greaves#1", 5), Bid(0, SS, "iron_helm#1", 3),
            Bid(1, SS, "greaves#2", 5), Bid(2, SS, "boots#1", 2)]
    res = resolve_target(SS, bids)
    assert res == TargetResult(SS, winner=0, value=3, candidates=("iron_helm#1",))
    # the order of the bids does not matter
    assert resolve_target(SS, list(reversed(bids))) == res


def test_5_3_rulebook_example_through_the_engine(cards):
    """§5-3 入札例 with real cards: A wins ショートソード and pays the value-3 card to the
    defense discard; the value-5 cards go back to A's and B's hands."""
    state = bidding_position(cards, 3, hands={0: ("greaves#1", "iron_helm#1", "ring#1"),
                                              1: ("greaves#2", "ring#2"),
                                              2: ("boots#1", "ring#3")},
                             current=TARGETS3, leader=0)
    assert_cards_conserved(state)
    state, events = run(state,
                        PlaceBid(0, SS, "greaves#1"), PlaceBid(1, SS, "greaves#2"),
                        PlaceBid(2, SS, "boots#1"), PlaceBid(0, SS, "iron_helm#1"),
                        Pass(1), Pass(2))
    (revealed,) = of_type(events, BidsRevealed)
    assert Counter(revealed.bids) == Counter([
        RevealedBid(0, SS, "greaves#1", 5), RevealedBid(1, SS, "greaves#2", 5),
        RevealedBid(2, SS, "boots#1", 2), RevealedBid(0, SS, "iron_helm#1", 3)])
    assert of_type(events, TargetWon) == [TargetWon(0, SS, 3, "iron_helm#1")]
    returned = {e.seat: e.cards for e in of_type(events, CardsReturned)}
    assert returned == {0: ("greaves#1",), 1: ("greaves#2",), 2: ("boots#1",)}
    assert Counter(state.seats[0].hand) == Counter(["ring#1", "greaves#1", SS])
    assert Counter(state.seats[1].hand) == Counter(["ring#2", "greaves#2"])
    assert Counter(state.seats[2].hand) == Counter(["ring#3", "boots#1"])
    assert state.defense_discard == ("iron_helm#1",)
    assert_cards_conserved(state)


# ------------------------------------------------------------- rounds, targets, leaders

@pytest.mark.parametrize("players,per_round,rounds", [(3, 4, 3), (4, 3, 4), (5, 3, 5)])
@pytest.mark.parametrize("seed", range(3))
def test_5_3_rounds_and_targets_per_player_count(cards, players, per_round, rounds, seed):
    """§5-3 / quick reference: 3人：4枚×3ラウンド／4人：3枚×4ラウンド／5人：3枚×5ラウンド.
    入札ラウンド数はプレイ人数と同じため、各プレイヤーは1回ずつ…開始プレイヤーになります."""
    assert BID_ROUNDS[players] == (per_round, rounds)
    state = draft_through(game(cards, players, seed))
    events = []
    while state.phase == Phase.BIDDING:
        state, ev = all_pass(state)
        events.extend(ev)
    started = of_type(events, BidRoundStarted)
    revealed = of_type(events, TargetsRevealed)
    assert [e.round for e in started] == list(range(2, rounds + 1))   # round 1: at draft end
    assert all(len(e.targets) == per_round for e in started)
    assert [e.round for e in revealed] == list(range(3, rounds + 1))
    assert all(len(e.targets) == per_round for e in revealed)
    assert state.phase == Phase.BUILD
    assert_cards_conserved(state)


@pytest.mark.parametrize("players", (3, 4, 5))
def test_5_3_leader_rotates_clockwise_from_start_seat(cards, players):
    """§5-3: 第1入札ラウンドはスタートプレイヤーを開始プレイヤーとします。第2入札ラウンド以降
    は、直前の入札ラウンドの開始プレイヤーから時計回りの次のプレイヤー."""
    for seed in range(4):
        state = game(cards, players, seed)
        start = state.start_seat
        leaders = []
        # round 1 starts when the draft ends
        state = draft_through(state)
        while state.phase == Phase.BIDDING:
            b = state.bidding
            leaders.append(b.leader)
            assert pending(state).seats == (b.leader,), "the leader acts first"
            state, _ = all_pass(state)
        assert leaders == [(start + r) % players for r in range(players)]
        assert sorted(leaders) == list(range(players))


@pytest.mark.parametrize("players", (3, 4, 5))
def test_5_3_turn_order_clockwise_from_leader(cards, players):
    """§5-3: その入札ラウンドの開始プレイヤーから時計回りに…入札／パス."""
    for seed in range(3):
        state = draft_through(game(cards, players, seed))
        while state.phase == Phase.BIDDING:
            leader, r = state.bidding.leader, state.bidding.round
            order = []
            while state.phase == Phase.BIDDING and state.bidding.round == r and \
                    pending(state).kind == "bid":
                (seat,) = pending(state).seats
                order.append(seat)
                state, _ = apply(state, Pass(seat))
            assert order == [(leader + k) % players for k in range(players)]
            if state.phase == Phase.BIDDING and pending(state).kind == "appraisal":
                state, _ = apply(state, Decline(pending(state).seats[0]))


def test_5_3_current_and_next_targets_visible_then_refilled(cards):
    """§5-3: 現在の入札ラウンドと次の入札ラウンドの入札対象カードは区別し、どちらも公開…入札結果の
    処理が終わったら、…次の入札ラウンドの入札対象カードを現在の入札対象カードとします。その後、
    さらに次の入札ラウンドがある場合は…アタックデッキから公開します."""
    state = draft_through(game(cards, 4, 8))
    seen_rounds = []
    while state.phase == Phase.BIDDING:
        b = state.bidding
        obs = [observe(state, i) for i in range(4)]
        for o in obs:
            assert o.targets == b.current and o.upcoming == b.upcoming
            # the round after next is still face down in the deck
            assert not strings_in(o) & set(state.attack_deck)
        seen_rounds.append((b.current, b.upcoming))
        before_upcoming = b.upcoming
        state, events = all_pass(state)
        kinds = [type(e) for e in events]
        if state.phase == Phase.BIDDING:
            assert state.bidding.current == before_upcoming
            r = state.bidding.round          # 0-based round now current
            if r + 1 < 4:
                (rev,) = of_type(events, TargetsRevealed)
                assert rev.round == r + 2 and rev.targets == state.bidding.upcoming
                # revealed only after the previous round's result
                assert kinds.index(TargetUnsold) < kinds.index(TargetsRevealed)
                assert kinds.index(TargetsDiscarded) < kinds.index(TargetsRevealed)
            else:
                assert state.bidding.upcoming == ()
                assert not of_type(events, TargetsRevealed)
    assert len(seen_rounds) == 4
    all_targets = [t for cur, _ in seen_rounds for t in cur]
    assert len(all_targets) == len(set(all_targets)) == 12


# ------------------------------------------------------------------------- bid or pass

def three_seats(cards, **kw):
    hands = kw.pop("hands", {0: ("greaves#1", "iron_helm#1", "ring#1"),
                             1: ("greaves#2", "iron_helm#2", "ring#2"),
                             2: ("boots#1", "leather_vest#1", "ring#3")})
    return bidding_position(cards, 3, hands=hands, current=TARGETS3, leader=0, **kw)


def test_5_3_bid_is_face_down(cards):
    """§5-3: 装備カード1枚を伏せて置く — others see that a bid lies on a target, not the card."""
    state = three_seats(cards)
    state, events = apply(state, PlaceBid(0, "axe", "iron_helm#1"))
    assert BidPlaced(0, "axe") in events
    for i in (1, 2):
        obs = observe(state, i)
        assert obs.seats[0].face_down_bids == ("axe",)
        assert obs.revealed_bids == ()
        assert "iron_helm#1" not in strings_in(obs)
    assert "iron_helm#1" not in state.seats[0].hand
    # all pass: every bid card is revealed at once
    state, events = run(state, Pass(1), Pass(2), Pass(0))
    (rev,) = of_type(events, BidsRevealed)
    assert rev.bids == (RevealedBid(0, "axe", "iron_helm#1", 3),)


def test_5_3_at_most_two_bids_second_passes_automatically(cards):
    """§5-3: 各プレイヤーは、1入札ラウンドにつき最大2回まで入札できます。2回目の入札を行った
    プレイヤーは、自動的にパスします."""
    state = three_seats(cards)
    state, ev1 = apply(state, PlaceBid(0, SS, "greaves#1"))
    assert not of_type(ev1, Passed)
    state, _ = run(state, Pass(1), PlaceBid(2, "axe", "boots#1"))
    assert pending(state).seats == (0,)
    state, ev2 = apply(state, PlaceBid(0, "axe", "iron_helm#1"))
    assert Passed(0, auto=True) in ev2
    assert state.bidding.passed[0]
    assert observe(state, 2).seats[0].passed
    # seat 0 is skipped: seat 2 is the only one left
    assert pending(state).seats == (2,)
    refused(state, PlaceBid(0, "dagger", "ring#1"), "not_your_turn")
    state, _ = apply(state, Pass(2))
    assert state.bidding.round == 1          # the round ended


def test_5_3_pass_is_final_for_the_round(cards):
    """§5-3 / FAQ: 一度パスすると、その入札ラウンドには復帰できません。次の入札ラウンドでは
    再び入札できます."""
    state = three_seats(cards)
    state, events = apply(state, Pass(0))
    assert Passed(0, auto=False) in events
    state, _ = apply(state, PlaceBid(1, SS, "iron_helm#2"))
    state, _ = apply(state, PlaceBid(2, SS, "boots#1"))
    # seat 0 passed: the turn skips it
    assert pending(state).seats == (1,)
    refused(state, PlaceBid(0, SS, "greaves#1"), "not_your_turn")
    refused(state, Pass(0), "not_your_turn")
    state, _ = run(state, Pass(1), Pass(2))
    # next round: seat 0 may bid again (seat 1 leads, seat 0 acts third)
    assert state.bidding.round == 1 and state.bidding.leader == 1
    state, _ = run(state, Pass(1), Pass(2))
    target = state.bidding.current[0]
    assert PlaceBid(0, target, "greaves#1") in legal_actions(state)
    state, _ = apply(state, PlaceBid(0, target, "greaves#1"))
    assert state.bidding.bids == (Bid(0, target, "greaves#1", 5),)


def test_5_3_both_bids_on_one_target_allowed(cards):
    """FAQ: 1入札ラウンドにつき最大2回まで入札でき、同じ入札対象カードへ2回入札することもできます."""
    state = three_seats(cards)
    state, _ = run(state, PlaceBid(0, SS, "ring#1"), Pass(1), Pass(2))
    assert PlaceBid(0, SS, "greaves#1") in legal_actions(state)
    state, events = apply(state, PlaceBid(0, SS, "greaves#1"))
    assert [x.target for x in of_type(events, BidsRevealed)[0].bids] == [SS, SS]
    assert of_type(events, TargetWon) == [TargetWon(0, SS, 5, "greaves#1")]
    assert "ring#1" in state.seats[0].hand


def test_5_3_one_card_per_bid_values_never_summed(cards):
    """FAQ: 1回の入札には装備カード1枚を使い、そのカードの入札価値だけで判定します — A's 3 and
    2 on one target do not make 5: B's single 4 wins."""
    state = bidding_position(cards, 3, hands={0: ("iron_helm#1", "boots#1"),
                                              1: ("chain_mail#1",), 2: ("ring#1",)},
                             current=TARGETS3, leader=0)
    # the action carries exactly one card
    assert [f.name for f in attrs.fields(PlaceBid)] == ["seat", "target", "card"]
    state, events = run(state, PlaceBid(0, SS, "iron_helm#1"), PlaceBid(1, SS, "chain_mail#1"),
                        Pass(2), PlaceBid(0, SS, "boots#1"), Pass(1))
    assert [(x.card, x.value) for x in of_type(events, BidsRevealed)[0].bids] == [
        ("iron_helm#1", 3), ("chain_mail#1", 4), ("boots#1", 2)]
    assert of_type(events, TargetWon) == [TargetWon(1, SS, 4, "chain_mail#1")]


def test_5_3_attack_cards_cannot_be_bid(cards):
    """§5-3: 装備カードに記載された入札価値を使って — only defense cards have a bid value; an
    attack card won earlier cannot be bid."""
    state = bidding_position(cards, 3, hands={0: ("dagger", "ring#1"), 1: ("ring#2",),
                                              2: ("ring#3",)},
                             current=(SS, "axe", "mace", "spear"), leader=0)
    assert not [a for a in legal_actions(state) if getattr(a, "card", None) == "dagger"]
    err = refused(state, PlaceBid(0, SS, "dagger"), "attack_card_bid")
    assert "attack" in err.reason
    assert PlaceBid(0, SS, "ring#1") in legal_actions(state)


def test_5_3_bid_needs_own_card_and_current_target(cards):
    """§5-3: 入札対象カード1枚を選び、装備カード1枚を伏せて置く — a card of the hand, a target
    of this round (not the next round's)."""
    state = three_seats(cards)
    refused(state, PlaceBid(0, SS, "greaves#2"), "card_not_in_hand")
    refused(state, PlaceBid(0, state.bidding.upcoming[0], "greaves#1"), "not_a_target")
    refused(state, PlaceBid(1, SS, "greaves#2"), "not_your_turn")
    refused(state, PlaceBid(7, SS, "greaves#2"), "no_such_seat")


# ------------------------------------------------------------------------ resolution

def test_5_3_player_with_two_equal_bids_counts_once():
    """§5-3 入札結果: 同じプレイヤーが同じ入札価値の装備カードを複数枚出していても、1人と数えます."""
    res = resolve_target(SS, [B(0, 3, "iron_helm#1"), B(0, 3, "gauntlets#1"), B(1, 2)])
    assert res.winner == 0 and res.value == 3
    assert set(res.candidates) == {"iron_helm#1", "gauntlets#1"}
    assert resolve_target(SS, [B(0, 3), B(0, 3), B(1, 3)]).reason == "tie"


def test_5_3_player_with_two_equal_bids_counts_once_engine(cards):
    """§5-3 入札結果: two copies of one card from one seat are one bidder; one copy is paid."""
    state = bidding_position(cards, 3, hands={0: ("iron_helm#1", "iron_helm#2"),
                                              1: ("boots#1",), 2: ()},
                             current=TARGETS3, leader=0)
    state, events = run(state, PlaceBid(0, SS, "iron_helm#1"), PlaceBid(1, SS, "boots#1"),
                        Pass(2), PlaceBid(0, SS, "iron_helm#2"), Pass(1))
    (won,) = of_type(events, TargetWon)
    assert (won.seat, won.target, won.value) == (0, SS, 3)
    assert won.paid in ("iron_helm#1", "iron_helm#2")
    other = ({"iron_helm#1", "iron_helm#2"} - {won.paid}).pop()
    assert state.defense_discard == (won.paid,)
    assert Counter(state.seats[0].hand) == Counter([other, SS])
    assert state.seats[1].hand == ("boots#1",)


def test_5_3_tied_players_lower_bids_still_count():
    """§5-3 入札結果 3–4: 同額入札者を取得対象から外し…次に高い入札価値で同じ判定 — only the
    tied value is dropped; the tied players' lower bids still count."""
    assert resolve_target(SS, [B(0, 5), B(1, 5), B(0, 3), B(2, 2)]) == \
        TargetResult(SS, 0, 3, ("x",))
    res = resolve_target(SS, [B(0, 5), B(1, 5), B(0, 4), B(2, 4), B(1, 3)])
    assert (res.winner, res.value) == (1, 3)


def test_5_3_highest_tie_not_necessarily_unsold():
    """FAQ: 最も高い入札価値が同額だった場合…必ずしも未落札にはなりません — the next lower
    value with a single bidder wins."""
    res = resolve_target(SS, [B(0, 5), B(1, 5), B(2, 4)])
    assert (res.winner, res.value, res.reason) == (2, 4, "won")
    res = resolve_target(SS, [B(0, 5), B(1, 5), B(2, 5), B(1, 1)])
    assert (res.winner, res.value) == (1, 1)


def test_5_3_no_single_bidder_unsold_tie_or_no_bids():
    """§5-3 入札結果 5: 単独入札者が見つからなかった入札対象カードは、未落札 — "tie" when bids
    existed, "no_bids" when nobody bid."""
    assert resolve_target(SS, [B(0, 5), B(1, 5)]) == TargetResult(SS, reason="tie")
    assert resolve_target(SS, [B(0, 5), B(1, 5), B(0, 2), B(1, 2)]).reason == "tie"
    assert resolve_target(SS, []) == TargetResult(SS, reason="no_bids")
    # bids on other targets do not count
    assert resolve_target(SS, [B(0, 5, target="axe")]).reason == "no_bids"


def test_5_3_unsold_reasons_in_engine_and_discarded(cards):
    """§5-3: 獲得されなかった入札対象カードをすべてアタックデッキの捨て山へ置きます."""
    state = three_seats(cards)
    state, events = run(state, PlaceBid(0, SS, "greaves#1"), PlaceBid(1, SS, "greaves#2"),
                        PlaceBid(2, "axe", "boots#1"), Pass(0), Pass(1), Pass(2))
    unsold = {e.target: e.reason for e in of_type(events, TargetUnsold)}
    assert unsold == {SS: "tie", "dagger": "no_bids", "mace": "no_bids"}
    assert of_type(events, TargetWon) == [TargetWon(2, "axe", 2, "boots#1")]
    (disc,) = of_type(events, TargetsDiscarded)
    assert set(disc.targets) == {SS, "dagger", "mace"}
    assert set(state.attack_discard) == {SS, "dagger", "mace"}
    assert "axe" in state.seats[2].hand
    # both tied cards are back
    assert "greaves#1" in state.seats[0].hand and "greaves#2" in state.seats[1].hand
    assert_cards_conserved(state)


def test_5_3_winner_pays_one_card_others_return(cards):
    """§5-3 / FAQ: 落札者が支払う、落札判定に使われた装備カード1枚だけを捨て山へ置き、それ以外の
    装備カードはすべて元の手札へ戻します (the winner's extra bid included)."""
    state = three_seats(cards)
    state, events = run(state, PlaceBid(0, SS, "greaves#1"), PlaceBid(1, SS, "iron_helm#2"),
                        PlaceBid(2, SS, "boots#1"), PlaceBid(0, SS, "ring#1"),
                        PlaceBid(1, SS, "ring#2"), PlaceBid(2, "axe", "leather_vest#1"))
    assert of_type(events, TargetWon) == [TargetWon(0, SS, 5, "greaves#1"),
                                          TargetWon(2, "axe", 2, "leather_vest#1")]
    assert Counter(state.defense_discard) == Counter(["greaves#1", "leather_vest#1"])
    assert Counter(state.seats[0].hand) == Counter(["iron_helm#1", "ring#1", SS])
    assert Counter(state.seats[1].hand) == Counter(["greaves#2", "iron_helm#2", "ring#2"])
    assert Counter(state.seats[2].hand) == Counter(["boots#1", "ring#3", "axe"])
    assert_cards_conserved(state)


def test_5_3_one_seat_wins_several_targets_paying_each(cards):
    """FAQ: 1回の入札ラウンドで複数の入札対象カードを獲得できます…落札した入札対象カードごとに、
    落札判定に使われた装備カード1枚を支払います."""
    state = three_seats(cards)
    state, events = run(state, PlaceBid(0, SS, "iron_helm#1"), Pass(1), Pass(2),
                        PlaceBid(0, "mace", "ring#1"))
    assert Counter(of_type(events, TargetWon)) == Counter(
        [TargetWon(0, SS, 3, "iron_helm#1"), TargetWon(0, "mace", 1, "ring#1")])
    assert Counter(state.defense_discard) == Counter(["iron_helm#1", "ring#1"])
    assert Counter(state.seats[0].hand) == Counter(["greaves#1", SS, "mace"])


def test_5_3_payment_choice_between_different_equal_cards(cards):
    """§5-3: 同じ入札価値のカードを複数枚使っていた場合は、その中から支払う1枚を選びます."""
    state = bidding_position(cards, 3, hands={0: ("iron_helm#1", "gauntlets#1", "ring#1"),
                                              1: ("boots#1",), 2: ("ring#2",)},
                             current=TARGETS3, leader=0)
    state, events = run(state, PlaceBid(0, SS, "iron_helm#1"), PlaceBid(1, SS, "boots#1"),
                        Pass(2), PlaceBid(0, SS, "gauntlets#1"), Pass(1))
    assert not of_type(events, TargetWon)
    d = pending(state)
    assert (d.kind, d.seats) == ("payment", (0,))
    assert set(legal_actions(state)) == {Pay(0, SS, "iron_helm#1"), Pay(0, SS, "gauntlets#1")}
    refused(state, Pay(1, SS, "boots#1"), "not_your_turn")
    refused(state, Pay(0, SS, "ring#1"), "bad_card")
    refused(state, Pass(0))
    state, events = apply(state, Pay(0, SS, "gauntlets#1"))
    assert of_type(events, TargetWon) == [TargetWon(0, SS, 3, "gauntlets#1")]
    assert state.defense_discard == ("gauntlets#1",)
    assert Counter(state.seats[0].hand) == Counter(["ring#1", "iron_helm#1", SS])
    assert state.seats[1].hand == ("boots#1",)
    assert state.bidding.round == 1
    assert_cards_conserved(state)


# ---------------------------------------------------------------- 金鷹《競売》 (Golden Hawk)

def gh_position(cards, hands, **kw):
    return bidding_position(cards, 3, hands=hands, current=TARGETS3, guilds=GH, leader=0,
                            **kw)


def test_5_3_auction_offered_only_on_a_tie_with_another_player(cards):
    """§5-3 金鷹《競売》: 同じ入札対象カードに対して、自分とほかのプレイヤーが同じ入札価値で入札
    していた場合 — no tie with another player, no offer (its own two equal bids are no tie)."""
    state = gh_position(cards, {0: ("iron_helm#1", "gauntlets#1"), 1: ("boots#1",),
                                2: ("iron_helm#2",)})
    # seat 0's two 3s on SS; seat 2's 3 is on another target
    s, events = run(state, PlaceBid(0, SS, "iron_helm#1"), PlaceBid(1, SS, "boots#1"),
                    PlaceBid(2, "axe", "iron_helm#2"), PlaceBid(0, SS, "gauntlets#1"),
                    Pass(1), Pass(2))
    assert not of_type(events, AuctionUsed)
    assert pending(s).kind == "payment"         # iron_helm or gauntlets: no auction step
    assert not s.seats[0].auction_used
    assert auction_options(
        [Bid(0, SS, "a", 3), Bid(0, SS, "b", 3), Bid(2, "axe", "c", 3)], 0) == ()


def test_5_3_auction_boost_5_to_6_wins(cards):
    """§5-3 金鷹《競売》: 通常の落札判定を行う前に宣言し、その自分の入札価値を1増やします。入札
    価値5に使用した場合は、最大6として扱います."""
    state = gh_position(cards, {0: ("greaves#1",), 1: ("greaves#2",), 2: ("ring#1",)})
    state, events = run(state, PlaceBid(0, SS, "greaves#1"), PlaceBid(1, SS, "greaves#2"),
                        Pass(2), Pass(0), Pass(1))
    assert of_type(events, BidsRevealed) and not of_type(events, TargetWon)
    d = pending(state)
    assert (d.kind, d.seats) == ("auction", (0,))
    assert set(legal_actions(state)) == {UseAuction(0, "greaves#1"), Decline(0)}
    # other seats cannot use it, nor can it raise another player's card
    refused(state, UseAuction(1, "greaves#2"), "not_your_turn")
    refused(state, UseAuction(0, "greaves#2"), "bad_card")
    # the bid cards are public now
    assert {x.card for x in observe(state, 2).revealed_bids} == {"greaves#1", "greaves#2"}
    state, events = apply(state, UseAuction(0, "greaves#1"))
    assert of_type(events, AuctionUsed) == [AuctionUsed(0, SS, "greaves#1", 6)]
    assert of_type(events, TargetWon) == [TargetWon(0, SS, 6, "greaves#1")]
    assert state.seats[0].auction_used
    assert observe(state, 1).seats[0].auction_used
    assert SS in state.seats[0].hand and "greaves#2" in state.seats[1].hand


def test_5_3_auction_new_tie_after_boost_is_a_tie(cards):
    """§5-3: 変更後の入札価値がほかのプレイヤーと同額になった場合は、通常どおり同額入札として
    処理します — GH 4→5 ties C's 5; both drop out and B's 4 wins."""
    state = gh_position(cards, {0: ("chain_mail#1",), 1: ("chain_mail#2",),
                                2: ("greaves#1",)})
    state, _ = run(state, PlaceBid(0, SS, "chain_mail#1"), PlaceBid(1, SS, "chain_mail#2"),
                   PlaceBid(2, SS, "greaves#1"), Pass(0), Pass(1), Pass(2))
    assert pending(state).kind == "auction"
    state, events = apply(state, UseAuction(0, "chain_mail#1"))
    assert of_type(events, AuctionUsed) == [AuctionUsed(0, SS, "chain_mail#1", 5)]
    assert of_type(events, TargetWon) == [TargetWon(1, SS, 4, "chain_mail#2")]
    assert state.seats[0].auction_used


def test_5_3_auction_once_per_game(cards):
    """§5-3: 武器入札中に1回だけ / §4: 「各バトル中1回」…ゲーム中1回 — after one use, a later
    tie is not offered again and stays a tie."""
    state = gh_position(cards, {0: ("greaves#1", "iron_helm#1"),
                                1: ("greaves#2", "iron_helm#2"), 2: ("ring#1",)})
    state, _ = run(state, PlaceBid(0, SS, "greaves#1"), PlaceBid(1, SS, "greaves#2"),
                   Pass(2), Pass(0), Pass(1), UseAuction(0, "greaves#1"))
    assert state.seats[0].auction_used and state.bidding.round == 1
    target = state.bidding.current[0]
    # round 2: seat 1 leads
    state, events = run(state, PlaceBid(1, target, "iron_helm#2"), Pass(2),
                        PlaceBid(0, target, "iron_helm#1"), Pass(1), Pass(0))
    assert not of_type(events, AuctionUsed)
    assert TargetUnsold(target, "tie") in events
    assert state.bidding.round == 2


def test_5_3_auction_decline_keeps_it_for_later(cards):
    """§5-3 《競売》 is optional: declining resolves as usual and keeps the one use."""
    state = gh_position(cards, {0: ("greaves#1", "iron_helm#1"),
                                1: ("greaves#2", "iron_helm#2"), 2: ("ring#1",)})
    state, events = run(state, PlaceBid(0, SS, "greaves#1"), PlaceBid(1, SS, "greaves#2"),
                        Pass(2), Pass(0), Pass(1), Decline(0))
    assert TargetUnsold(SS, "tie") in events
    assert not state.seats[0].auction_used
    target = state.bidding.current[0]
    state, _ = run(state, PlaceBid(1, target, "iron_helm#2"), Pass(2),
                   PlaceBid(0, target, "iron_helm#1"), Pass(1), Pass(0))
    assert pending(state).kind == "auction"
    state, events = apply(state, UseAuction(0, "iron_helm#1"))
    assert of_type(events, TargetWon) == [TargetWon(0, target, 4, "iron_helm#1")]


def test_5_3_auction_not_offered_to_other_guilds(cards):
    """§5-3: 金鷹ギルドのギルドマスターは — without the auction trait, a tie is just a tie."""
    state = bidding_position(cards, 3, hands={0: ("greaves#1",), 1: ("greaves#2",), 2: ()},
                             current=TARGETS3, leader=0,
                             guilds=("iron_fist", "red_lion", "blue_wolf"))
    state, events = run(state, PlaceBid(0, SS, "greaves#1"), PlaceBid(1, SS, "greaves#2"),
                        Pass(2), Pass(0), Pass(1))
    assert TargetUnsold(SS, "tie") in events
    assert state.bidding.round == 1


# ---------------------------------------------------------------- 紫晶《鑑定》 (Amethyst)

def last_round(cards, hands, **kw):
    return bidding_position(cards, 3, hands=hands, current=TARGETS3, guilds=AM, round=2,
                            **kw)


def test_5_3_appraisal_takes_only_an_untouched_target(cards):
    """§5-3: 最後の入札ラウンドでは、落札結果を確認した後、紫晶ギルドの《鑑定》を処理します。
    《鑑定》で獲得できるのは、そのラウンドで誰も装備カードを置かなかった入札対象カードだけです。
    同額失格によって未落札となったカードは獲得できません."""
    state = last_round(cards, {0: ("ring#1",), 1: ("greaves#1", "iron_helm#1"),
                               2: ("greaves#2",)})
    assert state.bidding.leader == 2 and state.bidding.upcoming == ()
    state, events = run(state, PlaceBid(2, SS, "greaves#2"), Pass(0),
                        PlaceBid(1, SS, "greaves#1"), Pass(2),
                        PlaceBid(1, "dagger", "iron_helm#1"))
    # resolved first, then the appraisal
    assert TargetUnsold(SS, "tie") in events
    assert TargetWon(1, "dagger", 3, "iron_helm#1") in events
    d = pending(state)
    assert (d.kind, d.seats) == ("appraisal", (0,))
    assert set(legal_actions(state)) == {Appraise(0, "axe"), Appraise(0, "mace"), Decline(0)}
    refused(state, Appraise(0, SS), "bad_target")          # unsold by a tie
    refused(state, Appraise(0, "dagger"), "bad_target")    # won
    refused(state, Appraise(1, "axe"), "not_your_turn")
    state, events = apply(state, Appraise(0, "mace"))
    assert of_type(events, Appraised) == [Appraised(0, "mace")]
    assert Counter(state.seats[0].hand) == Counter(["ring#1", "mace"])
    assert set(state.attack_discard) == {SS, "axe"}
    assert state.phase == Phase.BUILD
    assert_cards_conserved(state)


def test_5_3_appraisal_can_be_declined(cards):
    """§5-3 《鑑定》 is optional: declining discards every target not won."""
    state = last_round(cards, {0: ("ring#1",), 1: ("greaves#1",), 2: ()})
    state, _ = run(state, Pass(2), Pass(0), PlaceBid(1, SS, "greaves#1"), Pass(1))
    assert pending(state).kind == "appraisal"
    state, events = apply(state, Decline(0))
    assert not of_type(events, Appraised)
    assert set(state.attack_discard) == {"dagger", "axe", "mace"}
    assert state.seats[0].hand == ("ring#1",)
    assert state.phase == Phase.BUILD


def test_5_3_appraisal_only_in_last_round(cards):
    """§5-3: 最後以外の入札ラウンドでは、落札結果を確認した後、獲得されなかった入札対象カードを
    すべてアタックデッキの捨て山へ置きます — no 《鑑定》 before the last round."""
    state = bidding_position(cards, 3, hands={0: ("ring#1",), 1: (), 2: ()},
                             current=TARGETS3, guilds=AM, round=1)
    assert state.bidding.leader == 1
    state, events = run(state, Pass(1), Pass(2), Pass(0))    # no appraisal step between
    assert pending(state).kind == "bid"
    assert state.bidding.round == 2
    assert not of_type(events, Appraised)
    assert set(TARGETS3) <= set(state.attack_discard)


def test_5_3_appraisal_not_offered_when_all_targets_bid(cards):
    """§5-3 《鑑定》: with every target bid on, the round ends without the appraisal."""
    state = bidding_position(cards, 3, hands={0: (), 1: ("greaves#1", "iron_helm#1"),
                                              2: ("greaves#2", "iron_helm#2")},
                             current=(SS, "dagger"), guilds=AM, round=2)
    state, events = run(state, PlaceBid(2, SS, "greaves#2"), Pass(0),
                        PlaceBid(1, SS, "greaves#1"), PlaceBid(2, "dagger", "iron_helm#2"),
                        Pass(1))
    assert state.phase == Phase.BUILD
    assert not of_type(events, Appraised)
    assert TargetUnsold(SS, "tie") in events
    assert state.attack_discard == (SS,)


# --------------------------------------------------------------------- deck reshuffle

def test_7_empty_attack_deck_reshuffles_discard(cards):
    """§7 デッキがなくなった場合: アタックカードを配るときにデッキがなくなった場合は、対応する
    捨て山をシャッフルして新しいデッキを作り、残りのカードを配ります."""
    state = bidding_position(cards, 4, hands={0: (), 1: (), 2: (), 3: ()},
                             current=(SS, "dagger", "axe"), upcoming=("mace", "spear", "bow"),
                             leader=0)
    pile = state.attack_deck
    assert len(pile) >= 3
    state = attrs.evolve(state, attack_deck=(), attack_discard=pile)
    assert_cards_conserved(state)
    state, events = all_pass(state)
    (re,) = of_type(events, DeckReshuffled)
    assert re.deck == "attack"
    # the round's unsold targets were discarded first, then the pile became the deck
    assert re.count == len(pile) + 3
    kinds = [type(e) for e in events]
    assert kinds.index(TargetsDiscarded) < kinds.index(DeckReshuffled) < \
        kinds.index(TargetsRevealed)
    assert state.bidding.current == ("mace", "spear", "bow")
    assert len(state.bidding.upcoming) == 3
    assert set(state.bidding.upcoming) <= set(pile) | {SS, "dagger", "axe"}
    assert state.attack_discard == ()
    assert len(state.attack_deck) == len(pile) + 3 - 3
    assert_cards_conserved(state)


def test_5_3_bidding_ends_in_build_after_last_round(cards):
    """§5-3 → §5-4: after the last round the build starts and nothing is left on the table."""
    state = bidding_position(cards, 3, hands={0: ("ring#1",), 1: (), 2: ()},
                             current=TARGETS3, guilds=GH, round=2)
    state, events = all_pass(state)
    assert state.phase == Phase.BUILD and state.bidding is None
    assert PhaseStarted(Phase.BUILD) in events
    assert set(TARGETS3) <= set(state.attack_discard)
    assert pending(state).kind == "build"
    assert_cards_conserved(state)
