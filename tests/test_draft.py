"""§5-2 装備ドラフト."""

from __future__ import annotations

from collections import Counter

import pytest

from rules import IllegalAction, apply, legal_actions, observe, pending
from rules.actions import PlaceBid, Pick
from rules.events import (BidRoundStarted, CardPicked, DraftEnded, HandsPassed, PhaseStarted)
from rules.state import Phase

from conftest import assert_cards_conserved, game, of_type, run, strings_in


def pick_all(state, choose=lambda hand: hand[0]):
    """One pick step: every seat picks (`choose` from its hand), seat 0 first."""
    actions = [Pick(i, choose(s.hand)) for i, s in enumerate(state.seats)]
    return run(state, *actions)


@pytest.mark.parametrize("players", (3, 4, 5))
def test_5_2_every_seat_picks_at_once(cards, players):
    """§5-2 カードの選択 1: 各プレイヤーは…1枚を選び — a simultaneous decision of every seat."""
    state = game(cards, players, 4)
    d = pending(state)
    assert d.kind == "draft_pick"
    assert d.seats == tuple(range(players))
    legal = legal_actions(state)
    for i, s in enumerate(state.seats):
        assert {a for a in legal if a.seat == i} == {Pick(i, c) for c in s.hand}
    # after one seat has picked, the others are still asked, in any order
    last = players - 1
    state, _ = apply(state, Pick(last, state.seats[last].hand[3]))
    assert pending(state).seats == tuple(range(players - 1))
    state, _ = apply(state, Pick(1, state.seats[1].hand[0]))
    assert pending(state).seats == tuple(i for i in range(players - 1) if i != 1)


def test_5_2_picks_are_hidden_from_other_seats(cards):
    """§5-2: 自分の前に裏向きで置きます…ドラフトで選んだ装備カードは、ビルドの公開確認まで
    他のプレイヤーに公開しません — another seat sees only how many cards were picked."""
    state = game(cards, 4, 2)
    card = state.seats[0].hand[5]
    state, events = apply(state, Pick(0, card))
    assert state.seats[0].draft_choice == card
    (ev,) = of_type(events, CardPicked)
    assert ev.secret and ev.seat == 0 and ev.card == card
    for i in range(1, 4):
        obs = observe(state, i)
        assert obs.seats[0].picks_made == 1
        assert obs.seats[1].picks_made == 0
        assert card not in strings_in(obs)
    assert observe(state, 0).draft_choice == card
    # after the step, the picks are still face down
    for i in range(1, 4):
        state, _ = apply(state, Pick(i, state.seats[i].hand[0]))
    assert state.seats[0].picks == (card,)
    for i in range(1, 4):
        obs = observe(state, i)
        assert [v.picks_made for v in obs.seats] == [1, 1, 1, 1]
        assert card not in strings_in(obs)
        assert obs.picks == state.seats[i].picks
    assert observe(state, 0).picks == (card,)


@pytest.mark.parametrize("players", (3, 4, 5))
def test_5_2_hands_pass_clockwise(cards, players):
    """§5-2 カードの選択 2: 残りの手札をまとめて時計回りの次のプレイヤーへ渡します — seat i
    receives the rest of seat i-1's hand."""
    state = game(cards, players, 9)
    for step in range(3):
        before = [s.hand for s in state.seats]
        chosen = [h[step % len(h)] for h in before]
        state, events = run(state, *[Pick(i, chosen[i]) for i in range(players)])
        for i in range(players):
            rest = list(before[(i - 1) % players])
            rest.remove(chosen[(i - 1) % players])
            assert Counter(state.seats[i].hand) == Counter(rest)
            assert state.seats[i].picks[-1] == chosen[i]
        assert of_type(events, HandsPassed) == [HandsPassed(7 - step)]
        assert_cards_conserved(state)


@pytest.mark.parametrize("players", (3, 4, 5))
def test_5_2_last_card_taken_automatically_then_bidding(cards, players):
    """§5-2 カードの選択 4: すべてのカードが選ばれるまで繰り返します。各プレイヤーは…合計8枚
    取得します。装備ドラフトが終了したら…そのまま武器入札を始めます. The last card of a
    hand has no choice: it is taken automatically."""
    state = game(cards, players, 11)
    dealt = Counter(c for s in state.seats for c in s.hand)
    picked: list[list[str]] = [[] for _ in range(players)]
    for step in range(7):
        assert state.phase == Phase.DRAFT
        assert all(len(s.hand) == 8 - step for s in state.seats)
        for i in range(players):
            picked[i].append(state.seats[i].hand[-1])
        state, events = pick_all(state, lambda h: h[-1])
    autos = [e for e in of_type(events, CardPicked) if e.auto]
    assert sorted(e.seat for e in autos) == list(range(players))
    for e in autos:
        picked[e.seat].append(e.card)
    assert of_type(events, DraftEnded)
    assert PhaseStarted(Phase.BIDDING) in events
    assert of_type(events, BidRoundStarted)[0].round == 1
    assert state.phase == Phase.BIDDING
    assert pending(state).kind == "bid"
    for i, s in enumerate(state.seats):
        assert len(s.hand) == 8
        assert Counter(s.hand) == Counter(picked[i])
        assert s.picks == () and s.draft_choice is None
    assert Counter(c for s in state.seats for c in s.hand) == dealt
    assert_cards_conserved(state)


def test_5_2_no_seat_picks_twice_in_one_step(cards):
    """§5-2 カードの選択 1: 1枚を選び — one card per seat per step; a second pick is refused
    and the state is unchanged."""
    state = game(cards, 3, 5)
    state, _ = apply(state, Pick(0, state.seats[0].hand[0]))
    second = Pick(0, state.seats[0].hand[1])
    assert second not in legal_actions(state)
    assert legal_actions(state, 0) == []
    before = state
    snapshot = repr(state)
    with pytest.raises(IllegalAction) as info:
        apply(state, second)
    assert info.value.code == "not_your_turn"
    assert state == before and repr(state) == snapshot
    assert state.seats[0].draft_choice == before.seats[0].hand[0]


def test_5_2_pick_only_from_own_hand(cards):
    """§5-2: 手札から取得したいカード1枚を選び — a card of another seat's hand is refused."""
    state = game(cards, 3, 6)
    other = state.seats[1].hand[0]
    snapshot = repr(state)
    with pytest.raises(IllegalAction) as info:
        apply(state, Pick(0, other))
    assert info.value.code == "bad_card"
    assert info.value.reason
    assert repr(state) == snapshot


def test_5_2_no_bidding_during_draft(cards):
    """§5-2/§5-3: the draft comes first; a bid during the draft is refused."""
    state = game(cards, 3, 6)
    with pytest.raises(IllegalAction) as info:
        apply(state, PlaceBid(0, state.bidding.current[0], state.seats[0].hand[0]))
    assert info.value.code == "wrong_action"
