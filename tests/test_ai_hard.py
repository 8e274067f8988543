"""The `hard` AI level (issue: AI seats): determinized look-ahead for battle decisions.

Finishes games for 3, 4 and 5 players with no illegal action; the honesty test (hidden
information — other hands, deck order, the real RNG state — changes neither the
observation nor the decision); determinism for a seed; the sampled state is consistent
with the observation; the rollout policy is exactly the normal player; reasons render
in both languages. Speed against the budget is measured in bench/ai_hard.py, not here.
"""

from __future__ import annotations

import random

import attrs
import pytest

from ai.selfplay import running
from ai import make_player
from ai.base import LEVELS
from ai.explain import reason_text
from ai.hard import SEARCHED, HardPlayer, RolloutPlayer, determinize
from ai.normal import NormalPlayer
from rules import Config, apply, legal_actions, new_game, observe, pending
from rules.cards import default_cards
from rules import actions as A

from hidden import hide_differently


@pytest.fixture(scope="module")
def cards():
    return default_cards()


def play(cards, players, seed, steps_cap=20000, reasons=None):
    state, _ = new_game(Config(players=len(players)), cards, seed)
    steps = 0
    while running(state):
        seat = pending(state).seats[0]
        obs = observe(state, seat)
        p = players[seat]
        if reasons is not None and isinstance(p, HardPlayer):
            action, reason = p.choose_explained(obs, obs.legal)
            reasons.append(reason)
        else:
            action = p.choose(obs, obs.legal)
        assert action in obs.legal
        state, _ = apply(state, action)   # raises IllegalAction on an illegal action
        steps += 1
        assert steps < steps_cap
    return state


def battle_position(cards, players=4, seed=11, skip=0):
    """A battle state (normal players from a seeded start) where the seat to act has a
    searched decision with more than one legal action; `skip` such positions first."""
    normals = [NormalPlayer(cards, i) for i in range(players)]
    state, _ = new_game(Config(players=players), cards, seed)
    while running(state):
        seat = pending(state).seats[0]
        obs = observe(state, seat)
        if state.phase == "battle" and obs.pending.kind in SEARCHED and len(obs.legal) > 1:
            if skip == 0:
                return state, seat
            skip -= 1
        state, _ = apply(state, normals[seat].choose(obs, obs.legal))
    raise AssertionError("no battle decision found")


def test_hard_is_a_level(cards):
    assert "hard" in LEVELS
    p = make_player("hard", 3, cards)
    assert isinstance(p, HardPlayer) and p.budget == 0.5
    assert make_player("hard", 3, cards, budget=0.02).budget == 0.02


@pytest.mark.parametrize("players", [3, 4, 5])
def test_hard_finishes_games(cards, players):
    """Every seat hard (a small clock budget): seeded games end, no illegal action."""
    for seed in range(2):
        seats = [make_player("hard", seed * 7 + i, cards, budget=0.02) for i in range(players)]
        state = play(cards, seats, seed)
        assert state.phase == "over"


def test_hard_searches_only_the_kinds_it_is_given(cards):
    """`searched` (bench/ai_hard.py --kinds): the other battle decisions are the normal
    player's choice, unsearched; an unknown kind is refused."""
    with pytest.raises(ValueError, match="not a searched decision kind"):
        HardPlayer(cards, 1, budget=None, sims=2, searched=("turn", "bid"))
    hard = HardPlayer(cards, 1, budget=None, sims=2, searched=("turn",))
    seats = [hard] + [NormalPlayer(cards, i) for i in range(1, 4)]
    kinds = set()
    state, _ = new_game(Config(players=4), cards, 2)
    while running(state):
        seat = pending(state).seats[0]
        obs = observe(state, seat)
        action = seats[seat].choose(obs, obs.legal)
        if seat == 0 and hard.last_search is not None:
            kinds.add(obs.pending.kind)
        state, _ = apply(state, action)
    assert kinds == {"turn"}


@pytest.mark.parametrize("players", [3, 5])
def test_hard_with_full_searches_finishes_games(cards, players):
    """With a simulation cap and no clock every battle decision is really searched."""
    hard = HardPlayer(cards, 1, budget=None, sims=2)
    seats = [hard] + [NormalPlayer(cards, i) for i in range(1, players)]
    searched = []
    state, _ = new_game(Config(players=players), cards, players)
    while running(state):
        seat = pending(state).seats[0]
        obs = observe(state, seat)
        action = seats[seat].choose(obs, obs.legal)
        if seat == 0 and hard.last_search is not None:
            searched.append(hard.last_search)
            assert hard.last_search["rounds"] == 2
            # every legal action but the card-alone starts (the same attacks, RULINGS R22)
            alone = [a for a in obs.legal if isinstance(a, (A.StartAttack, A.StartCounter))
                     and a.skill is None]
            assert hard.last_search["candidates"] == len(obs.legal) - len(alone)
        state, _ = apply(state, action)
    assert searched, "the hard seat made no searched decision"


@pytest.mark.parametrize("skip", [0, 3, 7])
def test_hard_honesty_hidden_information_does_not_change_decisions(cards, skip):
    """Two battle states that differ only in hidden information give the hard seat the
    same observation and, with the same seed, the same decision (and search figures)."""
    state, seat = battle_position(cards, skip=skip)
    changed = hide_differently(state, seat, random.Random(skip))
    assert changed != state and changed.rng != state.rng
    o1, o2 = observe(state, seat), observe(changed, seat)
    assert o1 == o2
    h1 = HardPlayer(cards, 5, budget=None, sims=6)
    h2 = HardPlayer(cards, 5, budget=None, sims=6)
    d1, d2 = h1.choose_explained(o1, o1.legal), h2.choose_explained(o2, o2.legal)
    assert h1.last_search is not None and h1.last_search["sims"] > 0
    assert d1 == d2
    assert h1.last_search["win"] == h2.last_search["win"]


def test_hard_samples_chance_from_its_own_generator(cards):
    """The sampled futures come from the player's seed, not from the real game: another
    seed gives other simulated values for the same observation."""
    state, seat = battle_position(cards, skip=2)
    obs = observe(state, seat)
    wins = []
    for seed in (1, 2, 3):
        h = HardPlayer(cards, seed, budget=None, sims=8)
        h.choose(obs, obs.legal)
        wins.append(h.last_search["win"])
    assert len({tuple(sorted(w.values())) for w in wins}) > 1


def test_hard_is_deterministic_for_a_seed(cards):
    """The same seed and the same observation sequence give the same decisions."""
    def game():
        hard = HardPlayer(cards, 9, budget=None, sims=2)
        seats = [NormalPlayer(cards, 0), hard, NormalPlayer(cards, 2)]
        reasons = []
        state = play(cards, seats, 5, reasons=reasons)
        return state, reasons
    (s1, r1), (s2, r2) = game(), game()
    assert s1 == s2 and r1 == r2


def _public_battle(obs):
    """The observation less what the battle never uses (hand sizes, deck sizes)."""
    return attrs.evolve(obs, seats=tuple(attrs.evolve(v, hand_size=0) for v in obs.seats),
                        defense_deck_size=0, attack_deck_size=0)


def test_determinized_state_matches_the_observation(cards):
    """The state rebuilt from an observation alone shows the seat the same observation —
    but for the other seats' hand sizes and the deck sizes, which the battle never uses —
    and so the same legal actions, for every battle decision of a game."""
    normals = [NormalPlayer(cards, i) for i in range(4)]
    state, _ = new_game(Config(players=4), cards, 2)
    checked = 0
    while running(state):
        seat = pending(state).seats[0]
        obs = observe(state, seat)
        if state.phase == "battle":
            sampled = determinize(obs, cards, 12345)
            assert _public_battle(observe(sampled, seat)) == _public_battle(obs)
            assert legal_actions(sampled, seat) == list(obs.legal)
            for i, s in enumerate(sampled.seats):
                assert i == seat or s.hand == ()
            checked += 1
        state, _ = apply(state, normals[seat].choose(obs, obs.legal))
    assert checked > 20


def test_rollout_policy_is_the_normal_player(cards):
    """The memoised policy used in simulations decides exactly as the normal player."""
    compared = 0
    for seed in range(3):
        normals = [NormalPlayer(cards, i) for i in range(4)]
        rollouts = [RolloutPlayer(cards, i) for i in range(4)]
        state, _ = new_game(Config(players=4), cards, seed)
        while running(state):
            seat = pending(state).seats[0]
            obs = observe(state, seat)
            a = normals[seat].choose_explained(obs, obs.legal)
            if state.phase == "battle":
                assert rollouts[seat].choose_explained(obs, obs.legal) == a
                compared += 1
            state, _ = apply(state, a[0])
    assert compared > 50


def test_hard_reasons_in_both_languages(cards):
    hard = HardPlayer(cards, 4, budget=None, sims=2)
    seats = [hard, NormalPlayer(cards, 1), NormalPlayer(cards, 2)]
    reasons = []
    play(cards, seats, 4, reasons=reasons)
    keys = {r.key for r in reasons}
    assert {"draft_plan", "confirm_plan"} <= keys and keys & {"attack", "draw", "stop", "move"}
    assert any(r.get("sims") for r in reasons)
    for r in reasons:
        ja, en = reason_text(r, cards, "ja"), reason_text(r, cards, "en")
        assert ja and en and ja != en


def test_single_legal_action_is_returned_at_once(cards):
    state, seat = battle_position(cards)
    obs = observe(state, seat)
    hard = HardPlayer(cards, 0, budget=None, sims=50)
    action, reason = hard.choose_explained(obs, obs.legal[:1])
    assert action == obs.legal[0] and reason.key == "only" and hard.last_search is None


@pytest.mark.parametrize("players", [3, 4, 5])
def test_leaf_value_model(cards, players):
    """The fitted leaf value: one weight per feature (and a bias) for each player count; a
    win probability; more VP of one's own is worth more, more of the best other's less."""
    from ai.hard import FEATURES, VALUE, features
    assert len(VALUE[players]) == len(FEATURES) + 1
    state, seat = battle_position(cards, players=players, skip=5)
    assert len(features(state, seat)) == len(FEATURES)
    other = (seat + 1) % players

    def value(mine, theirs):
        s = state.with_seat(seat, vp=mine).with_seat(other, vp=theirs)
        for i in range(players):
            if i not in (seat, other):
                s = s.with_seat(i, vp=0)
        return HardPlayer._value(s, seat)
    for v in range(4):
        assert 0 < value(v, 1) < value(v + 1, 1) < 1
        assert value(1, v) > value(1, v + 1)


def test_no_older_collection_lands_inside_a_hard_decision(cards):
    """Issue 16 (the budget): the cyclic collector's passes over the older generations
    (0.06-0.2 s with the caches of a long run) happen between the hard player's
    decisions, never inside one — searched or planned (a draft pick or a bid took
    0.5-0.7 s with one). With low thresholds they come every few hundred allocations;
    inside a decision only the young generation is collected, at its end."""
    import gc
    inside = []
    landed = []

    def watch(phase, info):
        if phase == "start" and inside and info["generation"] > 0:
            landed.append(info["generation"])

    real = HardPlayer.choose_explained

    def timed(self, obs, legal):
        inside.append(1)
        try:
            return real(self, obs, legal)
        finally:
            inside.pop()

    saved = gc.get_threshold()
    gc.callbacks.append(watch)
    HardPlayer.choose_explained = timed
    gc.set_threshold(100, 2, 2)
    try:
        decisions = 0
        for seed in range(2):
            hard = HardPlayer(cards, seed, budget=None, sims=2)
            seats = [hard] + [NormalPlayer(cards, i) for i in range(1, 4)]
            state, _ = new_game(Config(players=4), cards, seed)
            while running(state):
                seat = pending(state).seats[0]
                obs = observe(state, seat)
                decisions += seat == 0
                state, _ = apply(state, seats[seat].choose(obs, obs.legal))
    finally:
        gc.set_threshold(*saved)
        gc.callbacks.remove(watch)
        HardPlayer.choose_explained = real
    assert decisions > 50
    assert gc.isenabled()
    assert landed == []
