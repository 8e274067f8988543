"""The table owns the game (issue 15 points 1, 5): LiveTable's messages — subscribe → a
stream of updates, submit → applied or refused — with views of different seats and a
spectator on one table, and the undo rule (a misclick only: nothing revealed since)."""

from __future__ import annotations

import asyncio
import random

import attrs
import pytest

from ai import make_player
from rules import Config, observe
from rules import actions as A
from rules import events as E
from rules.cards import default_cards
from rules.observe import observe_public
from tactical_tui.table.live import Applied, GameTable, LiveTable, Refused, SeatSetup, Update
from hidden import hide_differently

HUMANS = (0, 2)
SEATS = (SeatSetup(True), SeatSetup(False, "normal"), SeatSetup(True), SeatSetup(False, "easy"))


def _strings(value, out: set) -> set:
    """Every string inside an update (attrs classes, tuples, dicts): what it carries."""
    if isinstance(value, str):
        out.add(value)
    elif attrs.has(type(value)):
        for f in attrs.fields(type(value)):
            _strings(getattr(value, f.name), out)
    elif isinstance(value, dict):
        for k, v in value.items():
            _strings(k, out)
            _strings(v, out)
    elif isinstance(value, (tuple, list, frozenset, set)):
        for v in value:
            _strings(v, out)
    return out


def _secrets(state, seat) -> set:
    """Card ids only other seats know now: hands, picks, face-down bid cards, builds
    before the reveal (for a spectator: every seat's)."""
    out = set()
    for i, s in enumerate(state.seats):
        if i == seat:
            continue
        out |= set(s.hand + s.picks + ((s.draft_choice,) if s.draft_choice else ()))
        if not s.revealed:
            out |= set(s.equipped)        # materialized cards are public (§5-4, R6)
    b = state.bidding
    if b is not None and state.phase == "bidding" and b.step == "bid":
        out |= {x.card for x in b.bids if x.seat != seat}
    return out


def _known(obs) -> set:
    """Card ids an observation shows (what the seat has legitimately seen)."""
    out = set(obs.hand + obs.picks + obs.equipped + obs.materialized + obs.targets
              + obs.upcoming + obs.defense_discard + obs.attack_discard)
    out |= {b.card for b in obs.revealed_bids}
    for s in obs.seats:
        out |= set(s.equipped)
    if obs.draft_choice:
        out.add(obs.draft_choice)
    return out


def _state_at(live, states: dict, seat, u):
    """The table's state when `u` was sent to `seat`: one at which `seat` knew of
    `u.version` actions and that it sees as `u` shows (a draft pick of another seat
    changes what a seat sees — picks made — without an action it knows of)."""
    at = [g for g in sorted(states) if live.version_for(seat, g) == u.version]
    view = observe_public if seat is None else (lambda st: observe(st, seat))
    found = [states[g] for g in at if view(states[g]) == u.observation]
    assert found, (seat, u.version)
    return found[-1]


async def _play(seed: int, players_of: dict) -> tuple[LiveTable, dict, dict]:
    """A table whose human seats (HUMANS) are driven through `submit` by an AI's choice
    from their own updates, watched by a spectator; every update kept, and the state
    at every version (from the table's listener, before any update goes out)."""
    game = GameTable(Config(players=4, first_game=True), SEATS, seed)
    states = {0: game.state}
    game.listeners.append(lambda entries: states.__setitem__(len(game.history), game.state))
    live = LiveTable(game, ai_delay=0.0)
    feeds = {seat: live.subscribe(seat) for seat in HUMANS}
    feeds[None] = live.subscribe(None)
    got = {seat: [] for seat in feeds}
    refused = []

    async def seat_view(seat):
        async for update in feeds[seat]:
            got[seat].append(update)
            if update.over:
                return
            # act on the latest update only (a later one is on its way otherwise)
            if seat in update.turn.seats and update.version == live.version_for(seat) \
                    and feeds[seat].queue.empty():
                obs = update.observation
                result = live.submit(seat, players_of[seat].choose(obs, obs.legal))
                if isinstance(result, Refused):
                    refused.append(result)

    async def spectator():
        async for update in feeds[None]:
            got[None].append(update)
            if update.over:
                return
    live.start()
    await asyncio.wait_for(asyncio.gather(*(seat_view(s) for s in HUMANS), spectator()), 120)
    live.close()
    assert not refused, refused
    return live, got, states


def test_views_of_two_seats_and_a_spectator_follow_one_table_and_see_only_their_own():
    async def run():
        players = {s: make_player("normal", 50 + s, default_cards()) for s in HUMANS}
        return await _play(3, players)
    live, got, states = asyncio.run(run())
    game = live.game
    final = game.state
    assert game.over and len(game.history) > 100
    rnd = random.Random(5)
    for seat, updates in got.items():
        versions = [u.version for u in updates]
        # every update: each version of this seat's (the actions it may know of:
        # LiveTable.version_for) once at least, in order, ending at the last
        mine = live.version_for(seat)
        assert set(versions) == set(range(mine + 1)), seat
        assert versions == sorted(versions) and versions[-1] == mine
        assert mine < len(game.history)          # the others' secret build steps: not told
        assert updates[0].reset and not any(u.reset for u in updates[1:])
        # the log: exactly the entries this seat may see, none twice
        log = [e for u in updates for e in u.entries]
        if seat is None:
            assert log == [e for e in game.log if e.event is None or not e.event.secret]
        else:
            assert log == game.log_for(seat)
        seen: set = set()
        for u in updates:
            state = _state_at(live, states, seat, u)
            assert u.seat == seat and u.seats == ("human", "normal", "human", "easy")
            if seat is None:
                assert u.observation == observe_public(state) and u.observation.hand == ()
            else:
                # the same update whatever the seat cannot see (hidden.py)
                assert u.observation == observe(hide_differently(state, seat, rnd), seat)
            seen |= _known(u.observation)
            for e in u.entries:
                seen |= _strings(e, set())
            leaked = (_secrets(state, seat) - seen) & _strings(u, set())
            assert not leaked, (seat, u.version, u.observation.phase, leaked)
    # the final states agree
    last = {seat: updates[-1] for seat, updates in got.items()}
    for seat in HUMANS:
        assert last[seat].observation == observe(final, seat)
    assert last[None].observation == observe_public(final)
    assert all(u.over and u.turn.kind == "over" for u in last.values())
    publics = {attrs.evolve(u.observation, seat=None, hand=(), picks=(), draft_choice=None,
                            race=None, equipped=(), materialized=(), legal=()) for u in last.values()}
    assert len(publics) == 1


def test_the_ai_thinking_and_whose_decision_it_is_are_published():
    async def run():
        players = {s: make_player("random", s, default_cards()) for s in HUMANS}
        return await _play(8, players)
    live, got, _ = asyncio.run(run())
    thinking = [u for u in got[0] if u.turn.thinking is not None]
    assert thinking and all(u.turn.thinking in (1, 3) and u.turn.thinking in u.turn.ai
                            for u in thinking)
    assert any(u.entries == () for u in thinking)        # "Seat 2 · AI: thinking" alone
    # asked_at: the version at which seat 0's decision began, None when not its decision
    for u in got[0]:
        if 0 in u.turn.seats:
            assert u.asked_at is not None and u.asked_at <= u.version
        else:
            assert u.asked_at is None


def _table(seed: int = 4, seats=SEATS) -> LiveTable:
    return LiveTable(GameTable(Config(players=len(seats), first_game=True), seats, seed), 0.0)


@pytest.mark.parametrize("why", ["wrong_seat", "illegal", "wrong_type", "ai_seat", "not_legal",
                                 "no_seat"])
def test_a_refused_action_leaves_the_table_unchanged_and_says_why(why):
    async def run():
        live = _table()
        got = []
        live.subscribe(0, callback=got.append)
        state, log, n = live.game.state, list(live.game.log), len(got)
        other = live.game.state.seats[1].hand[0]
        action, seat, code = {
            "wrong_seat": (A.Pick(2, live.game.state.seats[2].hand[0]), 0, "wrong_seat"),
            "illegal": (A.EndTurn(0), 0, "wrong_action"),
            "wrong_type": ("Pick", 0, "not_an_action"),
            "ai_seat": (A.Pick(1, other), 1, "wrong_seat"),
            "not_legal": (A.Pick(0, other), 0, "bad_card"),
            "no_seat": (A.Pick(7, other), 7, "wrong_seat"),
        }[why]
        result = live.submit(seat, action)
        assert isinstance(result, Refused) and result.code == code, result
        assert live.game.state is state and live.game.log == log and live.version == 0
        assert len(got) == n                       # nothing published
        ok = live.submit(0, A.Pick(0, state.seats[0].hand[0]))
        assert ok == Applied(1) and len(got) == n + 1 and got[-1].version == 1
        live.close()
        assert isinstance(live.submit(0, A.Pick(0, state.seats[0].hand[1])), Refused)
    asyncio.run(run())


# ------------------------------------------------------------------ undo (point 5)

def _to_battle_draw(live: LiveTable, seat: int = 0) -> None:
    """Play (every seat by the normal AI's choice) until `seat` may draw a chip."""
    game = live.game
    bots = {i: make_player("normal", i, game.cards) for i in range(len(game.seats))}
    for _ in range(5000):
        d = game.pending()
        if d.kind == "draw" and seat in d.seats:
            return
        s = d.seats[0]
        obs = game.observe(s)
        action = bots[s].choose(obs, obs.legal)
        if s == seat and game.state.phase == "battle" and isinstance(action, A.EndTurn) and \
                any(isinstance(a, A.StartAttack) for a in obs.legal):
            action = next(a for a in obs.legal if isinstance(a, A.StartAttack))
        if game.seats[s].human:
            assert isinstance(live.submit(s, action), Applied)
        else:
            game.submit(action)
    raise AssertionError("no draw decision came")


def test_undo_is_refused_after_a_chip_draw_with_the_reason():
    """Today's exploit: draw a miss, undo, stop instead. A chip drawn is final."""
    async def run():
        seats = (SeatSetup(True),) + (SeatSetup(False, "normal"),) * 3
        live = _table(6, seats)
        _to_battle_draw(live)
        before = len(live.game.history)
        assert isinstance(live.submit(0, A.Draw(0)), Applied)
        result = live.undo(0)
        assert result == Refused("undo_chip") and len(live.game.history) == before + 1
        got = []
        live.subscribe(0, callback=got.append)
        assert got[-1].undo == Refused("undo_chip")
    asyncio.run(run())


def test_undo_takes_a_plain_misclick_back_and_every_view_gets_the_log_again():
    async def run():
        live = _table()
        seen = {0: [], None: []}
        live.subscribe(0, callback=seen[0].append)
        live.subscribe(None, callback=seen[None].append)
        assert seen[0][-1].undo == Refused("undo_nothing")
        hand = live.game.state.seats[0].hand
        assert live.submit(0, A.Pick(0, hand[0])) == Applied(1)
        assert seen[0][-1].undo is None                  # a pick hidden from all: undoable
        assert live.undo(0) == Applied(0)
        assert live.game.state.seats[0].draft_choice is None and live.game.history == []
        for updates in seen.values():
            assert updates[-1].reset and updates[-1].version == 0
        assert live.submit(0, A.Pick(0, hand[1])) == Applied(1)
        assert live.game.state.seats[0].draft_choice == hand[1]
    asyncio.run(run())


def test_undo_with_two_human_seats_ends_once_the_other_has_decided():
    """Several humans: your decision stays undoable only until another human decides
    after it (undoing yours would throw theirs away); and dealt or passed cards end it."""
    async def run():
        live = _table()
        st = live.game.state
        assert live.submit(0, A.Pick(0, st.seats[0].hand[0])) == Applied(1)
        assert live.submit(2, A.Pick(2, st.seats[2].hand[0])) == Applied(2)
        assert live.undo(0) == Refused("undo_other_human", {"seat": 2})
        assert live.undo(2) == Applied(1)
        assert live.undo(1) == Refused("undo_not_human")
        assert live.submit(2, A.Pick(2, st.seats[2].hand[1])) == Applied(2)
        for s in (1, 3):                              # the AI seats pick: hands are passed
            live.game.submit(A.Pick(s, live.game.state.seats[s].hand[0]))
        assert live.undo(2) == Refused("undo_cards")
    asyncio.run(run())


def test_an_ai_decision_thought_while_the_game_was_undone_is_dropped(monkeypatch):
    """The AI task asks again when history was rewritten while an AI seat thought."""
    import threading
    go = threading.Event()
    real = GameTable.ai_decide

    def slow(self, seat, obs=None):
        go.wait(10)
        return real(self, seat, obs)
    monkeypatch.setattr(GameTable, "ai_decide", slow)

    async def run():
        live = _table()
        got = []
        live.subscribe(0, callback=got.append)
        hand = live.game.state.seats[0].hand
        live.start()
        await asyncio.sleep(0.05)
        assert live.thinking in (1, 3) and got[-1].turn.thinking == live.thinking
        assert live.submit(0, A.Pick(0, hand[0])) == Applied(1)
        assert live.undo(0) == Applied(0)
        go.set()
        for _ in range(400):
            await asyncio.sleep(0.01)
            if live.game.state.phase == "draft" and all(
                    live.game.state.seats[s].draft_choice for s in (1, 3)):
                break
        assert all(live.game.state.seats[s].draft_choice for s in (1, 3))
        assert live.game.state.seats[0].draft_choice is None
        live.close()
        await asyncio.sleep(0.01)
        assert live._task.done()                      # the AI task has stopped
    asyncio.run(run())


@pytest.mark.parametrize("lang, expected", [
    ("en", "Since your last decision: Seat 2 hit you for 3 (HP 3); Seat 2 +2 VP (2 in all); "
           "Seat 3 hit you for 4 (HP 0); knocked out by Seat 3; re-entered at area 5"),
    ("ja", "前回の判断から: 席2から3ダメージ（体力3）、席2が勝利点+2（計2）、席3から4ダメージ（体力0）、"
           "席3にノックアウトされた、エリア5に再入場")])
def test_the_recap_says_what_happened_to_the_seat_since_its_last_decision(lang, expected):
    from rules import events as E
    from tactical_tui.table.views import recap_text
    events = [E.DamageDealt(1, 0, 3, 3), E.DamageDealt(1, 2, 1, 5),      # not ours
              E.VictoryPointsGained(1, 0, 2, "low", 2), E.DamageDealt(2, 0, 4, 0),
              E.KnockedOut(0, 2), E.VictoryPointsGained(0, 3, 1, "low", 1),  # our own VP
              E.Entered(0, 5, reenter=True), E.Moved(2, 1, 2)]
    assert recap_text(events, 0, lang) == expected
    assert recap_text([E.Moved(2, 1, 2), E.Entered(0, 3)], 0, lang) is None


# ------------------------------------------------------------------ issue 29 at the table

def _to_phase(live: LiveTable, phase: str) -> None:
    """Play every seat by the normal AI's choice until the game reaches `phase`."""
    game = live.game
    bots = {i: make_player("normal", i, game.cards) for i in range(len(game.seats))}
    for _ in range(5000):
        if game.state.phase == phase:
            return
        s = game.pending().seats[0]
        obs = game.observe(s)
        action = bots[s].choose(obs, obs.legal)
        if game.seats[s].human:
            assert isinstance(live.submit(s, action), Applied)
        else:
            game.submit(action)
    raise AssertionError(f"the game never reached {phase}")


def test_materializing_cannot_be_undone():
    """§5-4 (RULINGS R6): a materialized card lies face up in the discard at once, seen
    by every seat — a public act the undo rule does not take back; a hidden build step
    (equipping) still can be."""
    async def run():
        seats = (SeatSetup(True),) + (SeatSetup(False, "normal"),) * 3
        live = _table(3, seats)
        _to_phase(live, "build")
        obs = live.game.observe(0)
        card = next(c for c in obs.hand if not live.game.cards.card(c).is_attack)
        assert live.submit(0, A.Assign(0, card, "equip")) == Applied(live.version)
        assert live.game.undo_refusal(0) is None           # hidden: a misclick, undoable
        assert live.submit(0, A.Assign(0, card, "materialize")) == Applied(live.version)
        assert live.undo(0) == Refused("undo_materialized")
        assert card in live.game.state.defense_discard
        for seat in (1, 2, 3):
            assert card in live.game.observe(seat).defense_discard
    asyncio.run(run())


def test_ending_by_agreement_needs_every_human_seat_and_has_no_winner(tmp_path):
    """RULINGS R19: the rules end a game only at 5 VP; a table lets its players end one by
    agreement — every human seat agrees (AI seats always do), only in the battle; then
    the game is over with no winner, recorded in the save, and nothing more is accepted."""
    async def run():
        live = _table(4)
        live.game.save_path = tmp_path / "game.json"
        got = []
        live.subscribe(0, callback=got.append)
        assert live.agree_end(0) == Refused("end_not_now")         # the draft
        _to_phase(live, "battle")
        assert live.agree_end(1) == Refused("wrong_seat", {"seat": 1, "yours": None})  # AI
        assert isinstance(live.agree_end(0), Applied)
        assert not live.game.over and got[-1].end_votes == (0,)
        assert isinstance(live.agree_end(0, agree=False), Applied)  # taken back
        assert got[-1].end_votes == ()
        assert isinstance(live.agree_end(2), Applied) and not live.game.over
        assert isinstance(live.agree_end(0), Applied)                # the last human seat
        assert live.game.over and live.game.ended == "agreement"
        assert live.game.state.winners == () and live.game.state.phase == "battle"
        assert got[-1].over and got[-1].ended == "agreement"
        assert any(e.event == E.GameOver((), "agreement") for e in got[-1].entries)
        seat = live.game.pending().seats[0]
        legal = live.game.observe(seat).legal
        assert live.submit(seat, legal[0]) == Refused("game_over")
        assert live.agree_end(0) == Refused("game_over")
        from tactical_tui.table.saves import read
        data = read(live.game.save_path)
        assert data.ended == "agreement"
        again = GameTable.from_save(data, live.game.cards, "game.json")
        assert again.over and again.ended == "agreement" and again.state == live.game.state
    asyncio.run(run())


def test_an_all_ai_table_past_the_round_cap_is_ended_by_agreement(monkeypatch):
    """RULINGS R19 / ai.selfplay: a table with no human seat whose battle passes the cap
    is ended the way players end one — by agreement, no winner (never a win)."""
    import tactical_tui.table.live as T

    async def run():
        seats = (SeatSetup(False, "random"),) * 3
        live = LiveTable(GameTable(Config(players=3), seats, 5), 0.0)
        monkeypatch.setattr(T, "unfinished", lambda state: state.phase == "battle")
        got = []
        live.subscribe(None, callback=got.append)
        live.start()
        for _ in range(2000):
            await asyncio.sleep(0)
            if live.game.over:
                break
        assert live.game.over and live.game.ended == "agreement"
        assert live.game.state.winners == ()
        live.close()
    asyncio.run(run())
