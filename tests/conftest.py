"""Shared fixtures and position helpers for the rules tests.

Tests build positions from `new_game(...)` and then set hands, targets and bids directly.
`arrange` keeps every physical card in exactly one place: the cards a test places are
taken out of wherever they were, and everything not placed goes back to its deck, so the
card-conservation check (`card_locations`) holds in hand-made positions too.
"""

from __future__ import annotations

import operator
from collections import Counter
from pathlib import Path
from typing import Iterable, Optional

import attrs
import pytest

from rules import Config, apply, new_game
from rules.cards import CardSet, load_cards
from rules.engine import copies_of
from rules.state import BID_ROUNDS, Bid, BiddingState, GameState, Phase

TEST_CARDS_PATH = Path(__file__).resolve().parent / "data" / "test_cards.toml"


# The longest tests (by `--durations` and CPU time, 2 cores under load), slowest first.
# They start the run, shared out among the xdist workers (pytest_collection_modifyitems
# below), so a worker is never left alone with one of them at the end while the others
# are done (the suite's wall time was its sum / 2 plus such a tail). A name stands for
# every parametrized case of the test, each dealt on its own; a tuple of names is dealt
# as one unit, to one worker: tests that share what a module computes once per test
# process (test_planner's planner games, test_tui_snapshots' game per language) pay for
# it once only when they run in the same process. A test missing from this list just
# keeps its place; nothing else depends on the list.
_SNAPSHOT = "tests/test_tui_snapshots.py::test_screen_snapshot[{}-{}]"
_SNAPSHOT_SCREENS = ("DraftScreen", "BidScreen", "BuildScreen", "BattleScreen", "GameOverScreen")
SLOW_FIRST = (
    "tests/test_tui_table.py::test_hotseat_keeps_every_seats_hints_details_and_log_at_home",
    "tests/test_sessions.py::test_two_windows_on_one_save_folder_lose_no_game",
    ("tests/test_planner.py::test_planners_at_one_table_do_not_tie_each_other_out",
     "tests/test_planner.py::test_planner_bids_for_a_usable_weapon",
     "tests/test_planner.py::test_planned_build_is_the_models_best",
     "tests/test_planner.py::test_planner_honesty_before_the_battle",
     "tests/test_planner.py::test_planner_reasons_in_both_languages",
     "tests/test_planner.py::test_hard_plans_with_the_planner"),
    tuple(_SNAPSHOT.format(s, "ja") for s in _SNAPSHOT_SCREENS),
    tuple(_SNAPSHOT.format(s, "en") for s in _SNAPSHOT_SCREENS),
    "tests/test_tui_table.py::test_the_battle_screen_follows_the_ai_seats_before_the_next_prompt",
    "tests/test_tui.py::test_play_complete_games_by_keyboard",
    "tests/test_tui.py::test_quick_game_in_japanese",
    "tests/test_net_join.py::test_two_clients_play_through_the_lobby_and_the_game_screens",
    "tests/test_random_play_part1.py::test_random_play_part1_invariants",
    "tests/test_log_screen.py::test_the_log_screen_draws_the_rows_a_richlog_of_the_lines_drew",
    "tests/test_safe_text.py::test_app_shows_hostile_card_names_on_every_screen",
    "tests/test_tui.py::test_illegal_build_refused_with_reason",
    "tests/test_no_color.py::test_no_color_keeps_every_marker",
    "tests/test_tui_table.py::test_undo_is_refused_after_a_chip_draw_and_says_why",
    "tests/test_tui_table.py::test_undo_takes_a_misclick_back",
    "tests/test_tui.py::test_no_screen_shows_another_seats_secrets",
    "tests/test_tui.py::test_hotseat_hands_over_between_human_seats",
    "tests/test_tui_layout.py::test_screens_at_80x24",
    "tests/test_battle_random.py::test_6_random_games_keep_the_battle_invariants",
    "tests/test_ai_hard.py::test_hard_finishes_games",
)


def pytest_collection_modifyitems(config, items):
    """Start each xdist worker on its share of the SLOW_FIRST tests.

    xdist's worksteal scheduler first hands worker k the k-th contiguous slice of the
    collection (sizes as its `check_schedule` computes them) and later moves tests from
    the end of a long queue to an idle worker. So the slow tests are dealt out in snake
    order (0, 1, 1, 0, 0, ...), a unit (a test case, or the cases of a tuple) at a time,
    and each goes to the front of its worker's slice: every worker begins with a fair
    part of the long work, and the short tests fill in at the end. Without xdist the slow
    tests simply come first. Every worker computes the same order from the same
    collection, as xdist requires."""
    rank = {}
    for i, entry in enumerate(SLOW_FIRST):
        for name in (entry,) if isinstance(entry, str) else entry:
            rank[name] = (i, not isinstance(entry, str))

    def place(it):
        return rank.get(it.nodeid) or rank.get(it.nodeid.split("[", 1)[0])

    units: dict = {}                        # (rank, key) -> items, in collection order
    for it in items:
        r = place(it)
        if r is not None:
            units.setdefault((r[0], -1 if r[1] else id(it)), []).append(it)
    if not units:
        return
    ordered = [units[key] for key in sorted(units, key=lambda key: key[0])]  # stable
    chosen = {id(it) for unit in ordered for it in unit}
    rest = [it for it in items if id(it) not in chosen]
    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    if workers <= 1:
        items[:] = [it for unit in ordered for it in unit] + rest
        return
    buckets: list[list] = [[] for _ in range(workers)]
    for i, unit in enumerate(ordered):
        lap, k = divmod(i, workers)
        buckets[k if lap % 2 == 0 else workers - 1 - k].extend(unit)
    order, left = [], len(items)
    for k, bucket in enumerate(buckets):
        size = left // (workers - k)            # as worksteal's first check_schedule
        take = max(0, size - len(bucket))
        order += bucket + rest[:take]
        rest = rest[take:]
        left -= size
    items[:] = order + rest


@pytest.fixture(scope="session", autouse=True)
def _card_cache_folder(tmp_path_factory):
    """The card-data cache of the app (tactical_tui/table/cardcache.py) in a folder of the test
    run, not the user's cache folder (subprocesses inherit it)."""
    import os
    old = os.environ.get("TACTICAL_CACHE_DIR")
    os.environ["TACTICAL_CACHE_DIR"] = str(tmp_path_factory.mktemp("card-cache"))
    yield
    if old is None:
        os.environ.pop("TACTICAL_CACHE_DIR", None)
    else:
        os.environ["TACTICAL_CACHE_DIR"] = old


@pytest.fixture(scope="session")
def cards() -> CardSet:
    """The small test card set (not the shipped cards.toml, which is being rewritten)."""
    return load_cards(TEST_CARDS_PATH)


@pytest.fixture(scope="session")
def cards_text() -> str:
    return TEST_CARDS_PATH.read_text(encoding="utf-8")


# ------------------------------------------------------------------------ card bookkeeping

def card_locations(state: GameState) -> list[tuple[str, str]]:
    """(place, copy id) for every physical card in the game, wherever it lies. A seat's
    `draft_choice` is not a place of its own: the engine keeps the chosen card in the hand
    until every seat has chosen (state.py lists the places); `assert_cards_conserved` checks
    that it is one of the hand's cards."""
    out: list[tuple[str, str]] = []
    for place in ("defense_deck", "attack_deck", "defense_discard", "attack_discard"):
        out.extend((place, c) for c in getattr(state, place))
    for i, s in enumerate(state.seats):
        # `materialized` is a seat's public record of the cards it materialized: those lie
        # in the defense discard from the moment they are (§5-4, RULINGS R6)
        for place in ("hand", "picks", "equipped"):
            out.extend((f"seat{i}.{place}", c) for c in getattr(s, place))
    b = state.bidding
    if b is not None:
        out.extend(("bidding.current", c) for c in b.current)
        out.extend(("bidding.upcoming", c) for c in b.upcoming)
        out.extend(("bidding.bids", x.card) for x in b.bids)
    return out


_STARTING: dict[tuple[int, bool], Counter] = {}


def starting_cards(state: GameState) -> Counter:
    """The multiset of physical cards a game with this config starts with."""
    key = (id(state.cards), state.config.first_game)
    if key not in _STARTING:
        defense, attack = copies_of(state.cards, state.config.first_game)
        _STARTING[key] = Counter(defense + attack)
    return _STARTING[key]


def assert_cards_conserved(state: GameState) -> None:
    """Every physical card is in exactly one place and none was lost or created."""
    locs = card_locations(state)
    counts = Counter(c for _, c in locs)
    doubles = {c: [p for p, x in locs if x == c] for c, k in counts.items() if k > 1}
    assert not doubles, f"cards in more than one place: {doubles}"
    for i, s in enumerate(state.seats):
        assert s.draft_choice is None or s.draft_choice in s.hand, \
            f"seat {i}'s draft choice {s.draft_choice} is not a card of its hand"
    assert counts == starting_cards(state), (
        f"lost: {starting_cards(state) - counts}, created: {counts - starting_cards(state)}")


def where(state: GameState, card: str) -> list[str]:
    return [p for p, c in card_locations(state) if c == card]


# ------------------------------------------------------------------------------ positions

def game(cards: CardSet, players: int = 3, seed: int = 0, **config) -> GameState:
    state, _ = new_game(Config(players=players, **config), cards, seed)
    return state


def with_guilds(state: GameState, guilds: Iterable[str]) -> GameState:
    """Give the seats these guilds; the start seat follows (§5-1: lowest guild number)."""
    guilds = tuple(guilds)
    for i, g in enumerate(guilds):
        state = state.with_seat(i, guild=g)
    start = min(range(len(guilds)), key=lambda i: state.cards.guild(guilds[i]).number)
    return attrs.evolve(state, start_seat=start)


def arrange(state: GameState, hands: Optional[dict[int, Iterable[str]]] = None,
            current: Iterable[str] = (), upcoming: Iterable[str] = (),
            bids: Iterable[Bid] = (), defense_discard: Iterable[str] = (),
            attack_discard: Iterable[str] = ()) -> GameState:
    """Put the named cards where given (hands of the listed seats, targets, bids, discard
    piles). Every other card goes back to its deck, in the deck's order; picks, draft
    choices and builds are cleared. Returns a state with `bidding` unchanged (set it next).
    """
    hands = {i: tuple(h) for i, h in (hands or {}).items()}
    current, upcoming, bids = tuple(current), tuple(upcoming), tuple(bids)
    defense_discard, attack_discard = tuple(defense_discard), tuple(attack_discard)
    placed = [c for h in hands.values() for c in h] + list(current) + list(upcoming) + \
        [b.card for b in bids] + list(defense_discard) + list(attack_discard)
    assert len(placed) == len(set(placed)), "a card placed twice"
    everything = [c for _, c in card_locations(state)]
    missing = set(placed) - set(everything)
    assert not missing, f"no such cards in this game: {missing}"
    rest = [c for c in everything if c not in set(placed)]
    defense_rest = tuple(c for c in rest if not state.cards.card(c).is_attack)
    attack_rest = tuple(c for c in rest if state.cards.card(c).is_attack)
    for i in range(state.players):
        state = state.with_seat(i, hand=hands.get(i, ()), picks=(), draft_choice=None,
                                equipped=(), materialized=())
    return attrs.evolve(state, defense_deck=defense_rest, attack_deck=attack_rest,
                        defense_discard=defense_discard, attack_discard=attack_discard,
                        bidding=attrs.evolve(state.bidding, current=current, upcoming=upcoming,
                                             bids=bids)
                        if state.bidding is not None else None)


def bidding_position(cards: CardSet, players: int = 3, *, hands: dict[int, Iterable[str]],
                     current: Iterable[str], upcoming: Optional[Iterable[str]] = None,
                     round: int = 0, leader: Optional[int] = None,
                     guilds: Optional[Iterable[str]] = None, seed: int = 0,
                     attack_discard: Iterable[str] = ()) -> GameState:
    """A state in §5-3 武器入札, step "bid", at the start of bid round `round` (0-based), the
    leader to act. `upcoming` defaults to () in the last round and to the next attack
    cards of the deck otherwise."""
    state = game(cards, players, seed)
    if guilds is not None:
        state = with_guilds(state, guilds)
    current = tuple(current)
    _, rounds = BID_ROUNDS[players]
    if upcoming is None:
        upcoming = ()
        if round < rounds - 1:
            per_round, _ = BID_ROUNDS[players]
            taken = set(current) | {c for h in hands.values() for c in h}
            upcoming = tuple(c.id for c in cards.attack if c.id not in taken)[:per_round]
    state = arrange(state, hands=hands, current=current, upcoming=upcoming,
                    attack_discard=attack_discard)
    if leader is None:
        leader = (state.start_seat + round) % players
    bidding = BiddingState(round=round, leader=leader, turn=leader, current=current,
                           upcoming=tuple(upcoming), passed=(False,) * players)
    return attrs.evolve(state, phase=Phase.BIDDING, bidding=bidding)


def build_position(cards: CardSet, players: int = 3, *, hands: dict[int, Iterable[str]],
                   races: Optional[dict[int, tuple[str, str]]] = None,
                   guilds: Optional[Iterable[str]] = None, seed: int = 0,
                   **config) -> GameState:
    """A state in §5-4 ビルド with these hands (unused cards) and race candidates."""
    state = game(cards, players, seed, **config)
    if guilds is not None:
        state = with_guilds(state, guilds)
    state = arrange(state, hands=hands)
    for i, cands in (races or {}).items():
        state = state.with_seat(i, race_candidates=tuple(cands))
    return attrs.evolve(state, phase=Phase.BUILD, bidding=None)


def run(state: GameState, *actions) -> tuple[GameState, list]:
    """Apply actions in order; returns the final state and all events."""
    events: list = []
    for a in actions:
        state, ev = apply(state, a)
        events.extend(ev)
    return state, events


def of_type(events: Iterable[object], kind: type) -> list:
    return [e for e in events if isinstance(e, kind)]


_GETTERS: dict[type, object] = {}
_ATOMS = (int, float, bool, type(None))


def _getter(t: type):
    """A function returning the tuple of an attrs class's field values (cached)."""
    if t is CardSet:                    # the card data, not game information
        return lambda v: ()
    if not attrs.has(t):
        raise TypeError(f"strings_in: cannot look inside a {t.__name__}")
    names = [f.name for f in attrs.fields(t)]
    if not names:
        return lambda v: ()
    if len(names) == 1:
        get = operator.attrgetter(names[0])
        return lambda v: (get(v),)
    return operator.attrgetter(*names)


def strings_in(value: object) -> set[str]:
    """Every string inside an attrs value (recursively through attrs classes, tuples,
    lists, dicts). Used to check what an observation could reveal."""
    out: set[str] = set()
    stack = [value]
    pop, push, add = stack.pop, stack.extend, out.add
    while stack:
        v = pop()
        t = type(v)
        if t is str:
            add(v)
        elif t is tuple or t is list or t is set or t is frozenset:
            push(v)
        elif t in _ATOMS:
            continue
        elif isinstance(v, str):
            add(str(v))
        elif t is dict:
            push(v.keys())
            push(v.values())
        else:
            get = _GETTERS.get(t)
            if get is None:
                get = _GETTERS[t] = _getter(t)
            push(get(v))
    return out
