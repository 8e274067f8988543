"""Input is safe (issue 15, point 3), with Pilot at 80×24.

- Every new question puts the cursor on its first option, never on the row of the
  previous question, and a choice that gives something up (end the turn, decline a
  counter, stop drawing, decline an appraisal) is never under the cursor by default.
- Keys typed faster than the screen redraws are applied in order, to the question they
  were typed for: `Down Enter` chooses the second row; keys typed after a choice go to
  the next question.
- After a resize the keyboard works at once; while "please enlarge" is shown no game
  key reaches the table.

A burst is posted the way the terminal driver posts the keys of one read (all at once,
before the app has handled the first): `pilot.press` waits for the app to be idle after
every key, so it never shows these bugs. Positions come from games played headless by
the normal AI (`line`); where a test needs the other seats to play as in that game,
they replay it (`scripted`)."""

from __future__ import annotations

import asyncio
import sys
from functools import lru_cache

import pytest
from textual import events

from ai.selfplay import running
from ai import make_player
from rules import Config, apply, new_game, observe, pending
from rules import actions as A
from tactical_tui.app import TacticalApp
from tactical_tui.table.saves import FORMAT, SaveData, SeatEntry, to_json
from textual.widgets import OptionList

from tactical_tui.screens.battle import BattleScreen
from tactical_tui.screens.bid import BidScreen
from tactical_tui.screens.build import BuildScreen
from tactical_tui.screens.draft import DraftScreen
from tactical_tui.table.live import GameTable
from tactical_tui.widgets.base import ChoiceScreen, KeyGate
from tui_app import make_app

PLAYERS = 4
# Choices that give something up: end the turn, decline (a counter, unluck, auction,
# appraisal), stop drawing, pass.
GIVE_UP = (A.EndTurn, A.Decline, A.Stop, A.Pass)
QuestionList = OptionList            # the lists of questions are OptionLists


@lru_cache(maxsize=None)
def line(seed: int):
    """A whole 4-seat first game played by the normal AI: (actions, state before each)."""
    state, _ = new_game(Config(players=PLAYERS, first_game=True), seed=seed)
    players = [make_player("normal", seed * 101 + i, state.cards) for i in range(PLAYERS)]
    actions, states = [], []
    while running(state):
        seat = pending(state).seats[0]
        obs = observe(state, seat)
        action = players[seat].choose(obs, obs.legal)
        actions.append(action)
        states.append(state)
        state, _ = apply(state, action)
    return tuple(actions), tuple(states)


def seat0_decisions(seed: int) -> list[int]:
    actions, states = line(seed)
    return [i for i, a in enumerate(actions) if getattr(a, "seat", None) == 0]


def resume_app(tmp_path, seed: int, upto: int, lang: str = "en") -> TacticalApp:
    """The app continuing that game after its first `upto` actions (seat 0 human)."""
    actions, _ = line(seed)
    seats = (SeatEntry(True),) + tuple(SeatEntry(False, "normal") for _ in range(PLAYERS - 1))
    path = tmp_path / f"game{seed}-{upto}.json"
    path.write_text(to_json(SaveData(FORMAT, seed, Config(players=PLAYERS, first_game=True),
                                     seats, tuple(actions[:upto]), lang)), "utf-8")
    return TacticalApp(lang=lang, ai_delay=0.0, resume=str(path), autosave=False)


def scripted(monkeypatch, seed: int) -> None:
    """The AI seats play the recorded game's moves while the game is still the recorded
    one (the human seat made the same choices), their own choices after that."""
    actions, states = line(seed)
    real = GameTable.ai_decide

    def decide(self, seat, obs=None):
        n = len(self.history)
        if n < len(actions) and getattr(actions[n], "seat", None) == seat \
                and self.state == states[n]:
            return actions[n], None
        return real(self, seat, obs)
    monkeypatch.setattr(GameTable, "ai_decide", decide)


def burst(app, *keys: str) -> None:
    """Keys arriving in one read from the terminal: all queued before any is handled."""
    for k in keys:
        app.post_message(events.Key(k, k if len(k) == 1 else None))


def question_list(app):
    """The list of the question on screen (None while no question is asked)."""
    scr = app.screen
    ids = {DraftScreen: "#hand", BidScreen: "#targets", BuildScreen: "#cards",
           BattleScreen: "#actions", ChoiceScreen: "#choices"}
    for cls, sel in ids.items():
        if isinstance(scr, cls):
            return scr.query_one(sel, QuestionList)
    return None


def asked(app, n: int | None = None, seat: int = 0) -> bool:
    """The seat's question is on screen, drawn (and, with `n`, after exactly n actions)."""
    if app.table is None or app.busy or app.table.human_to_act() != seat or app.viewer != seat:
        return False
    if n is not None and len(app.table.history) != n:
        return False
    ol = question_list(app)
    return ol is not None and getattr(ol, "live", True) and ol.option_count > 0


async def until(pilot, cond, what: str, rounds: int = 3000) -> None:
    for _ in range(rounds):
        if cond():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"timed out waiting for {what}")


async def quiet(app, pilot) -> None:
    """Wait until no AI seat is thinking (the human is asked): a test that ends while
    the AI's worker runs would tear the app down under it."""
    await until(pilot, lambda: app.table.state.phase == "over" or (
        not app.busy and app.table.human_to_act() is not None) or
        type(app.screen).__name__.startswith("HandOver"), "the AI seats")
    await pilot.pause(0.05)


async def move_to(pilot, ol, match) -> None:
    """Move the cursor with single key presses until `match(option)`."""
    await pilot.press("home")
    for _ in range(ol.option_count + 1):
        if ol.highlighted is not None and match(ol.get_option_at_index(ol.highlighted)):
            return
        await pilot.press("down")
    raise AssertionError("option not found")


async def answer(app, pilot, action) -> None:
    """Give `action` on the screen by moving the cursor to its row and pressing Enter."""
    scr = app.screen
    if isinstance(scr, BattleScreen):
        ol = scr.query_one("#actions", QuestionList)
        await move_to(pilot, ol, lambda o: scr._actions[int(o.id)] == action)
    elif isinstance(scr, DraftScreen):
        ol = scr.query_one("#hand", QuestionList)
        await move_to(pilot, ol, lambda o: o.id == action.card)
    elif isinstance(scr, BidScreen) and isinstance(action, A.PlaceBid):
        ol = scr.query_one("#targets", QuestionList)
        await move_to(pilot, ol, lambda o: o.id == action.target)
        await pilot.press("enter")                      # on to the hand
        ol = scr.query_one("#hand", QuestionList)
        await move_to(pilot, ol, lambda o: o.id == action.card)
    else:
        raise AssertionError(f"cannot answer {action} on {scr}")
    await pilot.press("enter")


def first_usable(ol) -> int | None:
    return next((i for i in range(ol.option_count) if not ol.get_option_at_index(i).disabled), None)


def find(seed: int, kind: str, phase: str) -> tuple[int, int]:
    """(j, i): seat 0's decision i of `kind`, and seat 0's previous decision j, made on
    the same kind of screen with a row other than the first."""
    actions, states = line(seed)
    ds = seat0_decisions(seed)
    for j, i in zip(ds, ds[1:]):
        if states[i].phase != phase or states[j].phase != phase or pending(states[i]).kind != kind:
            continue
        if len(observe(states[i], 0).legal) < 2:
            continue
        a, legal = actions[j], list(observe(states[j], 0).legal)
        if phase == "battle":
            order = [x for x in legal if not isinstance(x, GIVE_UP)] + \
                [x for x in legal if isinstance(x, GIVE_UP)]
            row = order.index(a)
        elif phase == "draft":
            row = observe(states[j], 0).hand.index(a.card)
        else:
            if not isinstance(a, A.PlaceBid):
                continue
            row = observe(states[j], 0).targets.index(a.target)
        if row >= 1:
            return j, i
    raise LookupError(f"no {kind} in seed {seed}")


# --------------------------------------------------------------- the cursor

@pytest.mark.parametrize("seed, kind, phase", [
    (3, "draft_pick", "draft"), (2, "bid", "bidding"), (1, "turn", "battle"),
    (7, "counter", "battle"), (2, "draw", "battle"), (5, "unluck", "battle")])
def test_a_new_question_puts_the_cursor_on_its_first_option(tmp_path, monkeypatch, seed, kind, phase):
    """The previous question was answered on a lower row; the next question (of another
    seat's making: AI seats played in between, or the same seat's next step) starts on
    its first option, and that option gives nothing up."""
    j, i = find(seed, kind, phase)
    actions, states = line(seed)
    draft = phase == "draft"          # simultaneous: the AI seats pick first, as they like
    if not draft:
        scripted(monkeypatch, seed)

    async def run():
        app = resume_app(tmp_path, seed, j)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: asked(app, None if draft else j), "the earlier question")
            picks = len(app.table.state.seats[0].picks)
            await answer(app, pilot, actions[j])
            if draft:
                await until(pilot, lambda: asked(app) and len(app.table.state.seats[0].picks) > picks,
                            "the next pick")
            else:
                await until(pilot, lambda: asked(app, i), f"the {kind} question")
            assert app.table.pending().kind == kind
            ol = question_list(app)
            assert ol.highlighted == first_usable(ol), (ol.highlighted, kind)
            if isinstance(app.screen, BattleScreen):
                chosen = app.screen._actions[int(ol.get_option_at_index(ol.highlighted).id)]
                assert not isinstance(chosen, GIVE_UP), chosen
                assert any(not isinstance(a, GIVE_UP) for a in app.screen._actions)
            if isinstance(app.screen, BidScreen):
                hand = app.screen.query_one("#hand", QuestionList)
                assert hand.highlighted == first_usable(hand)
    asyncio.run(run())


def test_build_starts_on_the_first_card_and_keeps_the_cursor_on_it(tmp_path):
    """The build: one question; the cursor starts on the first card and stays on the card
    it is on while cards change zone (each change redraws the list)."""
    seed = 2
    actions, states = line(seed)
    i = next(k for k in seat0_decisions(seed) if states[k].phase == "build")

    async def run():
        app = resume_app(tmp_path, seed, i)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: asked(app) and isinstance(app.screen, BuildScreen), "the build")
            ol = question_list(app)
            assert ol.highlighted == 0
            await pilot.press("r", "down", "down")
            card = ol.get_option_at_index(ol.highlighted).id
            n = len(app.table.history)
            await pilot.press("e")
            await until(pilot, lambda: len(app.table.history) > n and asked(app), "the equip")
            assert card in app.table.observe(0).equipped
            assert ol.get_option_at_index(ol.highlighted).id == card
    asyncio.run(run())


def test_a_choice_dialog_never_starts_on_decline(tmp_path, monkeypatch):
    """§5-3 《鑑定》: the appraisal dialog lists Decline last and starts on an appraisal."""
    seed = 5
    actions, states = line(seed)
    i = next(k for k in seat0_decisions(seed) if pending(states[k]).kind == "appraisal")
    scripted(monkeypatch, seed)

    async def run():
        app = resume_app(tmp_path, seed, i)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the appraisal dialog")
            scr = app.screen
            ol = scr.query_one("#choices", QuestionList)
            await until(pilot, lambda: ol.option_count > 0, "its options")
            legal = list(app.table.observe(0).legal)
            chosen = legal[int(ol.get_option_at_index(ol.highlighted).id)]
            assert not isinstance(chosen, A.Decline)
            last = legal[int(ol.get_option_at_index(ol.option_count - 1).id)]
            assert isinstance(last, A.Decline)
            n = len(app.table.history)
            await pilot.press("enter")
            await until(pilot, lambda: len(app.table.history) > n, "the appraisal")
            assert app.table.history[n] == chosen
            await quiet(app, pilot)
    asyncio.run(run())


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("kind, seed", [("appraisal", 5), ("auction", 12), ("payment", 29)])
def test_the_bidding_dialogs_take_the_hint_keys(tmp_path, monkeypatch, kind, seed, lang):
    """《競売》, the payment and 《鑑定》 are asked in a dialog: there too `h` gives a hint
    (the normal AI's reason for this decision, from this seat's observation: the same
    with everything the seat cannot see changed) and `H` lets the AI decide, and the
    dialog's Footer shows both keys (they did nothing in the dialog)."""
    import random

    from ai.explain import reason_text
    from ai.normal import NormalPlayer
    from hidden import hide_differently
    from tui_app import screen_text
    words = {"en": ("Hint: ", "h Hint", "H Auto"), "ja": ("ヒント: ", "h ヒント", "H おまかせ")}[lang]
    actions, states = line(seed)
    i = next(k for k in seat0_decisions(seed) if pending(states[k]).kind == kind)
    scripted(monkeypatch, seed)
    other = hide_differently(states[i], 0, random.Random(seed))
    obs = observe(other, 0)
    want, why = NormalPlayer(states[i].cards, seed).choose_explained(obs, obs.legal)

    async def run():
        app = resume_app(tmp_path, seed, i, lang)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the dialog")
            ol = app.screen.query_one("#choices", QuestionList)
            await until(pilot, lambda: ol.option_count > 0, "its options")
            await pilot.pause(0.05)
            footer = " ".join(screen_text(app).splitlines()[-1].split())
            assert words[1] in footer and words[2] in footer, footer
            await pilot.press("h")
            await pilot.pause(0.05)
            said = [n.message for n in app._notifications if n.message.startswith(words[0])]
            assert said == [words[0] + reason_text(why, app.cards, lang)], said
            assert isinstance(app.screen, ChoiceScreen)      # a hint decides nothing
            n = len(app.table.history)
            await pilot.press("H")
            await until(pilot, lambda: len(app.table.history) > n, "the AI's choice")
            assert app.table.history[n] == want
            await quiet(app, pilot)
    asyncio.run(run())


# ---------------------------------------------------------------- bursts

def turn_with_follow_up(seed: int) -> int:
    """A battle turn of seat 0 whose second row leaves seat 0 a question with 2+ rows."""
    actions, states = line(seed)
    for j in seat0_decisions(seed):
        st = states[j]
        if st.phase != "battle" or pending(st).kind != "turn":
            continue
        legal = list(observe(st, 0).legal)
        order = [x for x in legal if not isinstance(x, GIVE_UP)] + [x for x in legal if isinstance(x, GIVE_UP)]
        if len(order) < 3 or isinstance(order[1], GIVE_UP):
            continue
        nxt, _ = apply(st, order[1])
        if 0 in pending(nxt).seats and len(observe(nxt, 0).legal) >= 2:
            return j
    raise LookupError


def battle_rows(state) -> list:
    legal = list(observe(state, 0).legal)
    return [x for x in legal if not isinstance(x, GIVE_UP)] + [x for x in legal if isinstance(x, GIVE_UP)]


def on_turn_menu(tmp_path, body, seed: int = 1) -> None:
    """Run `body(app, pilot, j, state)` on seat 0's turn menu (`turn_with_follow_up`)."""
    j = turn_with_follow_up(seed)
    state = line(seed)[1][j]

    async def run():
        app = resume_app(tmp_path, seed, j)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: asked(app, j), "the turn menu")
            await body(app, pilot, j, state)
            await quiet(app, pilot)
    asyncio.run(run())


def test_a_burst_down_enter_chooses_the_second_row(tmp_path):
    async def body(app, pilot, j, state):
        burst(app, "down", "enter")
        await until(pilot, lambda: len(app.table.history) > j, "the choice")
        assert app.table.history[j] == battle_rows(state)[1]
    on_turn_menu(tmp_path, body)


def test_a_bid_by_a_burst_names_the_target_and_the_card(tmp_path):
    """`Down Enter Down Enter` on the bid table: the second target, then the second card
    of the hand (Enter on a target moves on to the hand before the next key)."""
    seed = 2
    actions, states = line(seed)
    j = next(k for k in seat0_decisions(seed) if pending(states[k]).kind == "bid"
             and len(observe(states[k], 0).targets) >= 2)
    obs = observe(states[j], 0)
    cards = sorted((c for c in obs.hand if not obs_card(states[j], c).is_attack),
                   key=lambda c: -obs_card(states[j], c).bid)

    async def run():
        app = resume_app(tmp_path, seed, j)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: asked(app, j), "the bid")
            burst(app, "down", "enter", "down", "enter")
            await until(pilot, lambda: len(app.table.history) > j, "the bid")
            assert app.table.history[j] == A.PlaceBid(0, obs.targets[1], cards[1])
            await quiet(app, pilot)
    asyncio.run(run())


def obs_card(state, cid):
    return state.cards.card(cid)


def test_a_burst_spanning_two_questions_answers_each_with_its_own_keys(tmp_path):
    """`Down Enter Down Enter` in one burst: the second row of this turn menu, then the
    second row of the question that follows it (the keys after the first Enter wait for
    it; they neither move the old list nor get lost)."""
    async def body(app, pilot, j, state):
        first = battle_rows(state)[1]
        second = battle_rows(apply(state, first)[0])[1]
        burst(app, "down", "enter", "down", "enter")
        await until(pilot, lambda: len(app.table.history) > j + 1, "both choices")
        assert app.table.history[j:j + 2] == [first, second]
    on_turn_menu(tmp_path, body)


def test_a_burst_of_draft_picks_picks_each_hands_first_card(tmp_path):
    """`Enter Enter` in the draft: the first card of this hand, then — once the AI seats
    have picked and the next hand is drawn — the first card of the next hand; no false
    refusal of a second pick from the old hand."""
    async def run():
        app = make_app("en", seed=5)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await pilot.press("enter")                  # quick game
            await until(pilot, lambda: asked(app) and isinstance(app.screen, DraftScreen), "the draft")
            hand = app.table.observe(0).hand
            burst(app, "enter", "enter")
            await until(pilot, lambda: len(app.table.state.seats[0].picks) >= 2, "two picks")
            picks = app.table.state.seats[0].picks
            assert picks[0] == hand[0]
            assert picks[1] == hand_at_second_pick(app.table)[0]
            assert not [n for n in app._notifications if "Not allowed" in n.message]
            await quiet(app, pilot)
    asyncio.run(run())


def test_another_seats_pick_before_the_answer_arrives_keeps_the_burst(tmp_path, monkeypatch):
    """`Down Enter` × 3 in the draft, and in the second round an AI seat's pick is applied
    between the chosen row and its message reaching the table (the seats pick at the same
    time): that redraw is not the next question — the keys after the Enter wait for it,
    and the second row of each of the three hands is picked (found over SSH: a burst
    across three picks lost its last keys and made a refused pick)."""
    import threading
    from rules import legal_actions
    go = threading.Event()
    play = GameTable.ai_decide

    def decide(self, seat, obs=None):
        if seat == 1 and len(self.state.seats[0].picks) == 1:
            go.wait(10)                                 # seat 2 thinks in the second round
        return play(self, seat, obs)
    monkeypatch.setattr(GameTable, "ai_decide", decide)
    monkeypatch.setattr(KeyGate, "KEEP", 60.0)          # however slow this machine is
    from tactical_tui.widgets.base import QuestionList as Questions
    real = Questions.action_select
    cut_in = []

    def select(self):
        real(self)                                      # the row's message is posted
        if not isinstance(self.screen, DraftScreen):
            return
        state = self.app.table.state
        if not cut_in and len(state.seats[0].picks) == 1 and legal_actions(state, 1):
            cut_in.append(1)                            # seat 2's pick lands before it
            self.app.live._apply(1, legal_actions(state, 1)[0], None, human=False)
            go.set()
    monkeypatch.setattr(Questions, "action_select", select)

    async def run():
        app = make_app("en", seed=5)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await pilot.press("enter")                  # quick game
            await until(pilot, lambda: asked(app) and isinstance(app.screen, DraftScreen), "the draft")
            burst(app, "down", "enter", "down", "enter", "down", "enter")
            await until(pilot, lambda: len(app.table.state.seats[0].picks) >= 3, "three picks")
            assert cut_in
            picks = app.table.state.seats[0].picks
            assert list(picks) == [hand_at_pick(app.table, n)[1] for n in (1, 2, 3)]
            assert not [n for n in app._notifications if n.severity == "error"]
            await quiet(app, pilot)
    asyncio.run(run())


def hand_at_pick(table, n: int) -> tuple:
    """Seat 0's hand when it made its `n`-th draft pick (the game replayed)."""
    state, _ = new_game(table.config, table.cards, table.seed)
    seen = 0
    for action in table.history:
        if isinstance(action, A.Pick) and action.seat == 0:
            seen += 1
            if seen == n:
                return observe(state, 0).hand
        state, _ = apply(state, action)
    raise AssertionError(f"no pick {n}")


def hand_at_second_pick(table) -> tuple:
    """Seat 0's hand when it made its second draft pick (the game replayed)."""
    state, _ = new_game(table.config, table.cards, table.seed)
    seen = 0
    for action in table.history:
        if isinstance(action, A.Pick) and action.seat == 0:
            seen += 1
            if seen == 2:
                return observe(state, 0).hand
        state, _ = apply(state, action)
    raise AssertionError("no second pick")


# ---------------------------------------------------------------- resize

def test_after_a_resize_the_keyboard_works_without_tab(tmp_path):
    async def body(app, pilot, j, state):
        await pilot.resize_terminal(60, 20)
        await pilot.pause(0.1)
        assert app.screen.has_class("small")
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.1)
        assert not app.screen.has_class("small")
        await pilot.press("down", "enter")
        await until(pilot, lambda: len(app.table.history) > j, "the choice")
        assert app.table.history[j] == battle_rows(state)[1]
    on_turn_menu(tmp_path, body)


def test_game_keys_do_nothing_while_the_screen_is_too_small(tmp_path):
    async def body(app, pilot, j, state):
        await pilot.resize_terminal(60, 20)
        await pilot.pause(0.1)
        assert "enlarge" in str(app.screen.query_one("#too-small").render())
        for keys in (("enter",), ("H",), ("z",), ("down", "enter", "end", "enter")):
            burst(app, *keys)               # z (undo) would shorten the history
            await pilot.pause(0.2)
            assert len(app.table.history) == j, keys
        await pilot.press("d")              # no dialog either
        await pilot.pause(0.1)
        assert isinstance(app.screen, BattleScreen)
        assert app.screen.query_one("#actions", QuestionList).highlighted == 0
    on_turn_menu(tmp_path, body)


# ------------------------------------------------------------ the same question

def test_redrawing_the_same_question_keeps_the_cursor(tmp_path):
    """The screen is redrawn while the question stands (another seat acted, the board
    changed): the cursor stays where the player put it."""
    async def body(app, pilot, j, state):
        await pilot.press("down", "down")
        ol = question_list(app)
        assert ol.highlighted == 2
        for _ in range(3):
            app.screen.refresh_view()
            await pilot.pause(0.02)
        assert ol.highlighted == 2 and len(app.table.history) == j
    on_turn_menu(tmp_path, body)


def test_question_list_contract():
    """QuestionList.show: the same question keeps the cursor on its option (by id, even
    when rows move); a new one starts on the first enabled option that gives nothing up,
    and on none when only give-ups are left."""
    from textual.app import App
    from textual.widgets.option_list import Option
    from tactical_tui.widgets.base import QuestionList as QL

    class One(App):
        def compose(self):
            yield QL(id="q")

    async def run():
        app = One()
        async with app.run_test(size=(80, 24)) as pilot:
            ol = app.query_one("#q", QL)
            rows = lambda *ids, off=(): [Option(i, id=i, disabled=i in off) for i in ids]
            ol.show("q1", rows("pass", "a", "b", "c"), give_up=["pass"])
            assert ol.highlighted == 1                      # not on "pass"
            ol.highlighted = 3
            ol.show("q1", rows("x", "pass", "a", "b", "c"), give_up=["pass"])
            assert ol.get_option_at_index(ol.highlighted).id == "c"
            ol.show("q2", rows("a", "b", off=("a",)))
            assert ol.highlighted == 1                      # the first enabled
            ol.show("q3", rows("end"), give_up=["end"])
            assert ol.highlighted is None
            await pilot.pause()
    asyncio.run(run())


def test_keys_held_for_one_seat_never_reach_the_next_seat():
    """Hotseat: keys typed after seat 1's pick do not dismiss the hand-over screen nor
    answer seat 2's question."""
    async def run():
        app = TacticalApp(lang="en", ai_delay=0.0, seed=9, autosave=False,
                          seats=("human", "human", "normal", "normal"))
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(3):                      # the first hand-over (seat 1), if any
                await until(pilot, lambda: asked(app) or type(app.screen).__name__.startswith("HandOver"),
                            "seat 1")
                if asked(app):
                    break
                await pilot.press("enter")
            assert app.viewer == 0
            burst(app, "enter", "enter", "enter")
            await until(pilot, lambda: type(app.screen).__name__.startswith("HandOver"), "the hand-over")
            await pilot.pause(0.3)
            assert type(app.screen).__name__.startswith("HandOver")
            assert app.table.state.seats[0].draft_choice is not None     # seat 1 chose
            assert not app.table.state.seats[1].picks and app.table.state.seats[1].draft_choice is None
            await pilot.press("enter")
            await until(pilot, lambda: asked(app, seat=1), "seat 2's pick")
            assert app.viewer == 1
            assert question_list(app).highlighted == first_usable(question_list(app))
            await quiet(app, pilot)
    asyncio.run(run())


def test_key_gate_contract():
    """KeyGate: keys typed after an answer are held until the next question of the same
    seat is drawn after the table moved on; a key typed after the waiting view was shown
    is not held; another seat's question, a late question (older than KEEP) or a choice
    that sent nothing decide what happens to the held keys."""
    from tactical_tui.widgets.base import KeyGate
    from textual._time import get_time

    g = KeyGate()
    assert not g.holds(get_time())                       # no answer: keys act
    g.close(0, 10)
    g.keys.append(("down", None))
    assert g.holds(get_time())
    assert not g.drawn(0, 10, True)                      # the answer not applied yet
    assert not g.drawn(0, 13, True) and g.keys           # another seat acted first: the
    g.sent = True                                        # answer had not reached the table
    assert not g.drawn(0, 11, False)                     # the waiting view
    assert g.holds(g.seen_at - 0.001)                    # typed before it was shown
    assert g.holds(g.seen_at + KeyGate.LATE - 0.01)      # arrived late (SSH): still before
    assert not g.holds(g.seen_at + KeyGate.LATE + 0.01)  # typed after it was shown
    assert g.drawn(0, 14, True) and g.draining           # the next question: replay
    assert g.keys == [("down", None)]

    g.reset()
    g.close(0, 20)
    g.sent = True
    g.keys.append(("enter", None))
    assert not g.drawn(1, 21, True) and not g.keys       # another seat's: dropped

    g.close(0, 30)
    g.sent = True
    g.keys.append(("enter", None))
    g.answered_at -= KeyGate.KEEP + 1                    # the next question came late
    assert not g.drawn(0, 31, True) and not g.keys

    g.close(0, 40)
    g.answered_at -= KeyGate.KEEP + 1                    # no redraw at all: opens itself
    assert not g.holds(get_time()) and g.answered_at is None

    g.close(0, 50)
    g.keys.append(("down", None))
    assert g.withdraw() and g.draining                   # nothing was sent: same question
    g.reset()
    g.close(0, 60)
    g.sent = True
    assert not g.withdraw()                              # sent: wait for the table


def test_keys_arriving_just_after_the_waiting_view_go_to_the_next_question(tmp_path, monkeypatch):
    """Over SSH (50–200 ms each way) the rest of a burst typed with the answer arrives
    after the waiting view has been drawn: `Down Down` typed with a bid still go to the
    next bid (its third target), they do not move the waiting view's cursor and get lost
    (found playing over a slow link: `End Enter Enter` after two draft picks did nothing)."""
    monkeypatch.setattr(KeyGate, "KEEP", 60.0)          # however slow this machine is:
    monkeypatch.setattr(KeyGate, "LATE", 30.0)          # the burst arrives "just after"
    _keys_at_the_waiting_view(tmp_path, monkeypatch, seen=False)


def test_the_question_after_a_waiting_view_starts_on_its_first_option(tmp_path, monkeypatch):
    """The bid table is redrawn while the seat waits (as the table does after every
    action of another seat) and the player moves the cursor there; the seat's next bid
    still starts on the first target."""
    _keys_at_the_waiting_view(tmp_path, monkeypatch, seen=True)


def _keys_at_the_waiting_view(tmp_path, monkeypatch, seen: bool) -> None:
    """`Down Down` on the waiting view after a bid: typed after the player saw it
    (`seen`: they move its cursor, the next bid starts on its first target), or arriving
    just after it was drawn (they go to the next bid: its third target)."""
    import threading
    seed = 2
    actions, states = line(seed)
    ds = seat0_decisions(seed)
    j = next(a for a, b in zip(ds, ds[1:]) if pending(states[a]).kind == "bid" == pending(states[b]).kind
             and isinstance(actions[a], A.PlaceBid) and len(observe(states[b], 0).targets) >= 3)
    scripted(monkeypatch, seed)
    go = threading.Event()
    play = GameTable.ai_decide

    def decide(self, seat, obs=None):
        go.wait(10)
        return play(self, seat, obs)
    monkeypatch.setattr(GameTable, "ai_decide", decide)

    async def run():
        app = resume_app(tmp_path, seed, j)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: asked(app, j), "the bid")
            await answer(app, pilot, actions[j])
            await until(pilot, lambda: len(app.table.history) > j and app.busy, "the AI seats")
            app.screen.refresh_view()                   # the waiting view
            if seen:
                await pilot.pause(KeyGate.LATE + 0.1)   # seen by the player
                await pilot.press("down", "down")
            else:
                burst(app, "down", "down")              # the burst's rest, arriving now
                await pilot.pause(0.05)
            ol = question_list(app)
            assert ol.highlighted == (2 if seen else 0) and not ol.live
            go.set()
            await until(pilot, lambda: asked(app) and len(app.table.history) > j + 1, "the next bid")
            await pilot.pause(0.1)
            assert question_list(app).highlighted == (0 if seen else 2)
            await quiet(app, pilot)
    asyncio.run(run())

@pytest.mark.parametrize("menu", ["title", "title-burst", "setup"])
def test_keys_typed_while_a_game_starts_from_a_menu_never_reach_the_menu(tmp_path, monkeypatch, menu):
    """A burst on a menu that starts a game (the title's quick game, the setup's start):
    the keys after the choice arrive while the menu is still on screen, before the
    table's first update brings the game's first screen. They were not typed for the
    menu: before, `Enter Down Down Enter` on the title opened Continue (the new game's
    autosave is an unfinished game) and the game's first screen, replacing it as it
    mounted, crashed the app (NoMatches); on the setup screen a second Enter started a
    second game. Now they are dropped: one game, its first screen, no crash."""
    monkeypatch.setenv("TACTICAL_SAVE_DIR", str(tmp_path / "saves"))

    async def run():
        app = TacticalApp(lang="en", ai_delay=0.0, seed=7, autosave=True)
        async with app.run_test(size=(80, 24)) as pilot:
            from tactical_tui.screens.menus import SetupScreen, TitleScreen
            await until(pilot, lambda: isinstance(app.screen, TitleScreen), "the title")
            if menu == "setup":
                await pilot.press("down", "enter")
                await until(pilot, lambda: isinstance(app.screen, SetupScreen), "the setup")
                form = app.screen.query_one("#form", QuestionList)
                form.highlighted = form.option_count - 1        # the start row
                burst(app, "enter", "enter", "up", "enter")
            elif menu == "title-burst":
                burst(app, "enter", "down", "down", "enter")
            else:
                # the order a terminal gave: the second choice made on the title before
                # the first was handled (quick game, then Continue)
                m = app.screen.query_one("#menu", QuestionList)
                m.highlighted = 0
                m.action_select()
                m.highlighted = 2
                m.action_select()
            await until(pilot, lambda: isinstance(app.screen, DraftScreen), "the draft")
            for _ in range(20):
                await pilot.pause(0.02)
            assert isinstance(app.screen, DraftScreen)
            assert app.return_code is None and app._exception is None
            games = list((tmp_path / "saves" / "games").glob("*.json"))
            assert len(games) == 1, games
            await quiet(app, pilot)
    asyncio.run(run())


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals")
def test_a_burst_on_the_title_of_a_real_terminal_starts_one_game(tmp_path):
    """The same burst typed into a real `tactical` in a pseudo-terminal, in one write
    (one read of the driver): `Enter` starts the quick game, `Down Down Enter` arrives
    before its first screen. Before, it opened Continue under the game's first screen
    and the app crashed (NoMatches); the Pilot version above did not show it (the
    keys are handled in another order there)."""
    from test_exit_line import _run_in_pty
    out = _run_in_pty(tmp_path, "en", ["--ai-delay", "0"],
                      [("Quick game", b"\r\x1b[B\x1b[B\r"), ("The draft", b"\x03"),
                       ("tactical --resume", b"y")])
    assert "Traceback" not in out and "NoMatches" not in out
    assert len(list((tmp_path / "saves" / "games").glob("*.json"))) == 1


def test_a_burst_on_the_title_chooses_one_row_and_drops_the_rest(tmp_path, monkeypatch):
    """`Down Down Enter Enter Enter Down Enter` on the title with a saved game: Enter
    chooses Continue at once, and the Enters after it, typed before the Continue list was
    drawn, are dropped there (a menu takes only the cursor keys typed ahead: the Down
    moves its cursor) — before, the title's choice was a message handled after the
    queued keys, so the covered title chose Continue three times and then How to play."""
    monkeypatch.setenv("TACTICAL_SAVE_DIR", str(tmp_path / "saves"))
    from tactical_tui.screens.menus import ContinueScreen, TitleScreen
    from tactical_tui.table.saves import games_dir
    actions, _ = line(1)
    seats = (SeatEntry(True),) + tuple(SeatEntry(False, "normal") for _ in range(PLAYERS - 1))
    games_dir().mkdir(parents=True)
    (games_dir() / "g.json").write_text(to_json(SaveData(
        FORMAT, 1, Config(players=PLAYERS, first_game=True), seats, tuple(actions[:3]), "en")),
        "utf-8")

    async def run():
        app = TacticalApp(lang="en", ai_delay=0.0, seed=7, autosave=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, TitleScreen), "the title")
            burst(app, "down", "down", "enter", "enter", "enter", "down", "enter")
            await until(pilot, lambda: isinstance(app.screen, ContinueScreen), "Continue")
            for _ in range(20):
                await pilot.pause(0.02)
            assert [type(s) for s in app.screen_stack[1:]] == [type(app.screen_stack[1]), type(app.screen)]
            assert isinstance(app.screen_stack[1], TitleScreen) and isinstance(app.screen, ContinueScreen)
            assert app.live is None
    asyncio.run(run())
