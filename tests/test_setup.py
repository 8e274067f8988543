"""§4 セットアップ and §5-1 種族カードとギルドカードの配布 (and the deal that opens §5-2)."""

from __future__ import annotations

from collections import Counter

import pytest

from rules import Config, new_game, observe
from rules import rng as R
from rules.events import (GuildsDealt, HandDealt, PhaseStarted, RacesDealt, StartSeatChosen,
                          TargetsRevealed)
from rules.state import Phase

from conftest import assert_cards_conserved, card_locations, of_type, strings_in

PLAYERS = (3, 4, 5)
SEEDS = range(12)


@pytest.mark.parametrize("players", PLAYERS)
def test_4_three_to_five_players(cards, players):
    """§1/§4: TACTICAL is for 3 to 5 players; a game has one seat per player."""
    state, _ = new_game(Config(players=players), cards, 1)
    assert state.players == players
    assert len(state.seats) == players
    assert state.phase == Phase.DRAFT
    assert_cards_conserved(state)


@pytest.mark.parametrize("players", (0, 1, 2, 6, 7))
def test_4_two_or_six_players_refused(players):
    """§1: 3〜5人 — any other number of players is refused by Config."""
    with pytest.raises(ValueError):
        Config(players=players)


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("seed", range(5))
def test_4_first_game_uses_only_initial_set(cards, players, seed):
    """§4: 初めて遊ぶ場合は、ディフェンスデッキとアタックデッキを星マークのない初期セットの
    カードのみで構成 — no star card anywhere, every non-star copy present."""
    state, _ = new_game(Config(players=players, first_game=True), cards, seed)
    everything = [c for _, c in card_locations(state)]
    assert everything, "the game has no cards"
    assert not [c for c in everything if cards.card(c).star]
    expected_defense = Counter(f"{c.id}#{k}" for c in cards.defense if not c.star
                               for k in range(1, c.copies + 1))
    expected_attack = Counter(c.id for c in cards.attack if not c.star)
    got = Counter(everything)
    assert got == expected_defense + expected_attack
    # hands and targets come from the initial set only
    for s in state.seats:
        assert len(s.hand) == 8 and all(not cards.card(c).star for c in s.hand)
    assert all(not cards.card(c).star for c in state.bidding.current + state.bidding.upcoming)


@pytest.mark.parametrize("players", PLAYERS)
def test_4_first_game_races_dealt_as_usual(cards, players):
    """§4: 種族カードは通常どおり各プレイヤーへ2枚ずつ配り、その他のルールも変更しません."""
    for seed in range(5):
        normal, _ = new_game(Config(players=players), cards, seed)
        first, _ = new_game(Config(players=players, first_game=True), cards, seed)
        races = [r for s in first.seats for r in s.race_candidates]
        assert all(len(s.race_candidates) == 2 for s in first.seats)
        assert len(set(races)) == 2 * players
        assert set(races) <= {r.id for r in cards.races}
        # the same seed deals the same guilds and races: only the decks differ
        assert [s.race_candidates for s in first.seats] == \
            [s.race_candidates for s in normal.seats]
        assert [s.guild for s in first.seats] == [s.guild for s in normal.seats]


def test_4_normal_game_includes_star_cards(cards):
    """§4: ゲームに慣れたら、星マークのあるカードを加えて — the normal game has every copy."""
    state, _ = new_game(Config(players=4), cards, 3)
    got = Counter(c for _, c in card_locations(state))
    assert any(cards.card(c).star for c in got)
    expected = Counter([f"{c.id}#{k}" for c in cards.defense for k in range(1, c.copies + 1)]
                       + [c.id for c in cards.attack])
    assert got == expected


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("seed", SEEDS)
def test_5_1_guilds_one_per_seat_distinct_revealed(cards, players, seed):
    """§5-1: ギルドカード7枚を…シャッフルし、各プレイヤーへ1枚ずつ配って公開します."""
    state, events = new_game(Config(players=players), cards, seed)
    guilds = tuple(s.guild for s in state.seats)
    assert len(set(guilds)) == players
    assert set(guilds) <= {g.id for g in cards.guilds}
    (dealt,) = of_type(events, GuildsDealt)
    assert dealt.guilds == guilds
    assert not dealt.secret
    # every seat sees every guild
    for i in range(players):
        assert tuple(v.guild for v in observe(state, i).seats) == guilds


def test_5_1_guilds_are_shuffled_per_game(cards):
    """§3/§5-1: ギルドカードはゲームごとにシャッフルして配り直します."""
    deals = {tuple(s.guild for s in new_game(Config(players=3), cards, seed)[0].seats)
             for seed in range(30)}
    assert len(deals) > 5


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("seed", SEEDS)
def test_5_1_start_seat_has_lowest_guild_number(cards, players, seed):
    """§5-1: ギルド番号が最も小さいプレイヤーをスタートプレイヤーとします."""
    state, events = new_game(Config(players=players), cards, seed)
    numbers = [cards.guild(s.guild).number for s in state.seats]
    assert numbers[state.start_seat] == min(numbers)
    (chosen,) = of_type(events, StartSeatChosen)
    assert chosen.seat == state.start_seat
    assert chosen.number == min(numbers)


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("seed", SEEDS)
def test_5_1_races_dealt_one_at_a_time_clockwise_from_start(cards, players, seed):
    """§5-1: スタートプレイヤーから時計回りに、種族カードを1枚ずつ配ります。各プレイヤーが
    2枚受け取るまで繰り返します。配られた候補はすべて公開します."""
    state, events = new_game(Config(players=players), cards, seed)
    # Re-derive the shuffles: guilds first, then the ten races.
    rs = R.seed_state(seed)
    guilds, rs = R.shuffle(rs, [g.id for g in cards.guilds])
    races, rs = R.shuffle(rs, [r.id for r in cards.races])
    assert tuple(s.guild for s in state.seats) == guilds[:players]
    start = state.start_seat
    for k in range(players):
        seat = (start + k) % players
        assert state.seats[seat].race_candidates == (races[k], races[k + players])
    (dealt,) = of_type(events, RacesDealt)
    assert dealt.candidates == tuple(s.race_candidates for s in state.seats)
    assert not dealt.secret
    all_races = [r for s in state.seats for r in s.race_candidates]
    assert len(all_races) == 2 * players == len(set(all_races))
    # public: every seat sees every seat's candidates
    for i in range(players):
        assert tuple(v.race_candidates for v in observe(state, i).seats) == dealt.candidates


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("seed", range(6))
def test_5_2_eight_defense_cards_each_hidden(cards, players, seed):
    """§5-2: 各プレイヤーに装備カードを8枚ずつ裏向きで配り…配られた手札は、他のプレイヤーに
    見せません."""
    state, events = new_game(Config(players=players), cards, seed)
    dealt = of_type(events, HandDealt)
    assert sorted(e.seat for e in dealt) == list(range(players))
    for e in dealt:
        assert e.secret
        assert state.seats[e.seat].hand == e.cards
    for i, s in enumerate(state.seats):
        assert len(s.hand) == 8
        assert all(not cards.card(c).is_attack for c in s.hand)
    for i in range(players):
        obs = observe(state, i)
        assert obs.hand == state.seats[i].hand
        assert all(v.hand_size == 8 for v in obs.seats)
        seen = strings_in(obs)
        for j in range(players):
            if j != i:
                assert not seen & set(state.seats[j].hand), f"seat {i} sees seat {j}'s hand"
        # the deck order is not visible either
        assert not seen & set(state.defense_deck)
        assert not seen & set(state.attack_deck)


@pytest.mark.parametrize("players,per_round", [(3, 4), (4, 3), (5, 3)])
@pytest.mark.parametrize("seed", range(6))
def test_5_2_round_1_and_2_targets_revealed_before_draft(cards, players, per_round, seed):
    """§5-2: ディフェンスカードを配った後、装備ドラフトを始める前に、第1入札ラウンドと第2入札
    ラウンドの入札対象カードをアタックデッキから公開します (3人4枚／4人3枚／5人3枚)."""
    state, events = new_game(Config(players=players), cards, seed)
    revealed = of_type(events, TargetsRevealed)
    assert [e.round for e in revealed] == [1, 2]
    assert [len(e.targets) for e in revealed] == [per_round, per_round]
    assert all(cards.card(t).is_attack for e in revealed for t in e.targets)
    assert not set(revealed[0].targets) & set(revealed[1].targets)
    # after the hands were dealt and before the draft starts
    kinds = [type(e) for e in events]
    assert max(i for i, k in enumerate(kinds) if k is HandDealt) < kinds.index(TargetsRevealed)
    assert kinds.index(TargetsRevealed) < kinds.index(PhaseStarted)
    assert of_type(events, PhaseStarted) == [PhaseStarted(Phase.DRAFT)]
    # kept apart, and public to every seat
    assert state.bidding.current == revealed[0].targets
    assert state.bidding.upcoming == revealed[1].targets
    for t in revealed[0].targets + revealed[1].targets:
        assert t not in state.attack_deck
    for i in range(players):
        obs = observe(state, i)
        assert obs.targets == revealed[0].targets
        assert obs.upcoming == revealed[1].targets


@pytest.mark.parametrize("players", PLAYERS)
def test_4_same_seed_same_game(cards, players):
    """DESIGN "One pending decision": a seed replays the set-up exactly."""
    for seed in (0, 1, 17, 123456789):
        a, ev_a = new_game(Config(players=players), cards, seed)
        b, ev_b = new_game(Config(players=players), cards, seed)
        assert a == b
        assert ev_a == ev_b


@pytest.mark.parametrize("players", PLAYERS)
def test_4_different_seeds_differ(cards, players):
    """§4: the decks are shuffled — different seeds give different games."""
    states = [new_game(Config(players=players), cards, seed)[0] for seed in range(10)]
    for i in range(len(states)):
        for j in range(i + 1, len(states)):
            assert states[i] != states[j]
    assert len({s.defense_deck for s in states}) == len(states)
    assert len({s.attack_deck for s in states}) > 1
