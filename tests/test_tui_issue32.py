"""Issue 32 (a newcomer's play-test), the points of the menus, the pacing and the replay:
Pilot at 80×24, in both languages where text is involved.

1. Up on the title's first row stays there; the menu's Quit asks first.
4. The table applies no AI action while the quit dialog is open; after a resume, the
   "since your last decision" recap tells what happened before it.
13. New game's AI levels cycle by strength.
15. Esc from New game / Continue puts the title's cursor on the row that opened it; the
   Continue clean-up row says what goes; Continue after finished games says they are
   finished; switching the language there and back leaves the locale deciding; `d` on a
   row with no card says so."""

from __future__ import annotations

import asyncio

import pytest

from tactical_tui.app import TacticalApp
from tactical_tui.text.i18n import t

from test_tui_keys import burst, calm, until


def new_app(lang: str, **kw) -> TacticalApp:
    kw.setdefault("ai_delay", 0.0)
    kw.setdefault("autosave", False)
    return TacticalApp(lang=lang, seed=7, **kw)


def row(screen, selector: str) -> str:
    ol = screen.query_one(selector)
    return ol.get_option_at_index(ol.highlighted).id


def messages(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


# ------------------------------------------------------------------ 1: the title's Quit

@pytest.mark.parametrize("lang", ["en", "ja"])
def test_up_on_the_title_top_row_stays_and_quit_asks_first(lang):
    """`Up Enter` on the title's first row chose Quit (the list went round) and the app
    ended with no question. Now Up stays on the first row, and the Quit row asks the quit
    question (n keeps the title)."""
    from tactical_tui.screens.menus import TitleScreen
    from tactical_tui.widgets.base import ConfirmScreen

    async def run():
        app = new_app(lang)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, TitleScreen), "the title")
            await pilot.press("up")
            assert row(app.screen, "#menu") == "quick"
            await pilot.press("end", "down")              # the last row stays the last
            assert row(app.screen, "#menu") == "quit"
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
            assert not app.quitting
            await pilot.press("n")
            await until(pilot, lambda: isinstance(app.screen, TitleScreen), "the title again")
            assert not app.quitting and app.is_running
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
            await pilot.press("y")
            await until(pilot, lambda: app.quitting, "quitting")
    asyncio.run(run())


# ------------------------------------------------------------------ 13: levels by strength

def test_setup_levels_cycle_by_strength():
    """Right on a seat's row: human → random → easy → normal → hard (it went human →
    normal → hard → easy → random)."""
    from tactical_tui.screens.menus import SetupScreen

    async def run():
        app = new_app("en")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("down", "enter")
            await until(pilot, lambda: isinstance(app.screen, SetupScreen), "the setup")
            scr = app.screen
            await pilot.press("down", "down")             # seat 2
            assert row(scr, "#form") == "seat1"
            seen = [scr.seats[1]]
            for _ in range(5):
                await pilot.press("right")
                seen.append(scr.seats[1])
            assert seen == ["normal", "hard", "human", "random", "easy", "normal"]
    asyncio.run(run())


# ------------------------------------------------------------------ 15: the smaller points

@pytest.mark.parametrize("lang", ["en", "ja"])
def test_escape_from_setup_or_continue_returns_to_its_row(lang, tmp_path, monkeypatch):
    from tactical_tui.screens.menus import ContinueScreen, SetupScreen, TitleScreen
    _a_saved_game(tmp_path, monkeypatch)

    async def run():
        app = new_app(lang)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, TitleScreen), "the title")
            await pilot.press("down", "enter")
            await until(pilot, lambda: isinstance(app.screen, SetupScreen), "the setup")
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, TitleScreen), "the title")
            await calm(pilot)
            assert row(app.screen, "#menu") == "new"
            await pilot.press("down", "enter")
            await until(pilot, lambda: isinstance(app.screen, ContinueScreen), "Continue")
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, TitleScreen), "the title")
            await calm(pilot)
            assert row(app.screen, "#menu") == "continue"
    asyncio.run(run())


def _a_saved_game(tmp_path, monkeypatch, over: bool = False):
    """A save folder with one unfinished game (or one finished game)."""
    from rules import Config
    from rules.cards import default_cards
    from tactical_tui.table.saves import new_game_path
    from tactical_tui.table.live import GameTable, SeatSetup
    monkeypatch.setenv("TACTICAL_SAVE_DIR", str(tmp_path / "saves"))
    seats = tuple(SeatSetup(False, "random") for _ in range(3))
    game = GameTable(Config(players=3), seats, 3, default_cards(), save_path=new_game_path())
    if over:
        game.end_by_agreement()
    game.autosave()
    return game


def _finished_games(tmp_path, monkeypatch, n: int) -> None:
    for _ in range(n):
        _a_saved_game(tmp_path, monkeypatch, over=True)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_continue_after_finished_games_says_they_are_finished(lang, tmp_path, monkeypatch):
    """Continue with only finished games said "There is no saved game to continue yet"."""
    from tactical_tui.screens.menus import TitleScreen
    _finished_games(tmp_path, monkeypatch, 2)

    async def run():
        app = new_app(lang)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, TitleScreen), "the title")
            await pilot.press("down", "down", "enter")
            await until(pilot, lambda: messages(app), "a message")
            assert messages(app) == [t("title.all_finished", lang)]
            assert t("title.all_finished", lang) != t("title.no_save", lang)
    asyncio.run(run())


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_continue_clean_up_row_says_what_it_deletes(lang, tmp_path, monkeypatch):
    """The clean-up row names the finished games and the unfinished ones beyond the
    newest five, by kind ("remove 4 old or finished games (the 5 newest stay)" was read
    as removing games the player still wanted)."""
    from tactical_tui.screens.menus import ContinueScreen, TitleScreen
    _finished_games(tmp_path, monkeypatch, 2)
    for _ in range(6):
        _a_saved_game(tmp_path, monkeypatch)

    async def run():
        app = new_app(lang)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, TitleScreen), "the title")
            await pilot.press("down", "down", "enter")
            await until(pilot, lambda: isinstance(app.screen, ContinueScreen), "Continue")
            ol = app.screen.query_one("#games")
            last = ol.get_option_at_index(ol.option_count - 1)
            assert last.id == "clean"
            tr = lambda key, **kw: t(key, lang, **kw)
            want = tr("cont.clean", what=tr("cont.clean.finished", n=2) + tr("cont.clean.and")
                      + tr("cont.clean.older", n=1, keep=5))
            assert str(last.prompt) == want
            if lang == "en":
                assert want == ("Clean up: delete 2 finished games and 1 unfinished game "
                                "older than your 5 newest")
    asyncio.run(run())


@pytest.mark.parametrize("locale", ["en_US.UTF-8", "ja_JP.UTF-8"])
def test_language_there_and_back_leaves_the_locale_deciding(locale, tmp_path, monkeypatch):
    """The palette's language command twice: the settings file names no language after,
    so LANG decides again (it kept `lang = "en"`)."""
    from tactical_tui.commands import switch_language
    from tactical_tui.settings import Store, load
    for var in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", locale)
    path = tmp_path / "settings.toml"
    home = locale[:2]

    async def run():
        app = TacticalApp(lang=home, ai_delay=0.0, autosave=False, store=Store.from_file(path))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.05)
            switch_language(app)
            await pilot.pause(0.05)
            assert load(path)[0].lang == ("ja" if home == "en" else "en")
            switch_language(app)
            await pilot.pause(0.05)
            assert app.lang == home
    asyncio.run(run())
    assert load(path)[0].lang is None
    assert "lang" not in path.read_text(encoding="utf-8").split("\n", 1)[1]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_details_with_no_card_under_the_cursor_says_so(lang):
    """`d` where no card is under the cursor (the battle's rows) did nothing, silently."""
    from tactical_tui.screens.battle import BattleScreen
    from test_tui_table import _until

    async def run():
        app = TacticalApp(lang=lang, ai_delay=0.0, seed=6, autosave=False,
                          seats=("human", "normal", "normal", "normal"))
        async with app.run_test(size=(80, 24)) as pilot:
            await _until(app, pilot, lambda: isinstance(app.screen, BattleScreen)
                         and app.feeds[0].asked() and not app._modal_open())
            await calm(pilot)
            scr = app.screen
            rows = [i for i, a in enumerate(scr._actions) if getattr(a, "card", None) is None]
            scr.query_one("#actions").highlighted = rows[0]      # e.g. "End the turn"
            await pilot.pause(0.02)
            assert scr.highlighted_card() is None
            app.clear_notifications()
            await pilot.press("d")
            await until(pilot, lambda: messages(app), "a message")
            assert messages(app)[-1] == t("details.none", lang)
    asyncio.run(run())


# ------------------------------------------------------------------ 4: the quit question

@pytest.mark.parametrize("lang", ["en", "ja"])
def test_no_ai_action_is_applied_while_the_quit_question_is_open(lang, monkeypatch):
    """An AI attacked while "Quit?" was open. Now the table holds its AI seats while it
    is (`LiveTable.hold`): an AI decision that comes while the question is up (the
    AI's thinking is let go only then) is not applied until the answer is `n`."""
    from tactical_tui.table.live import LiveTable
    from tactical_tui.widgets.base import ConfirmScreen
    real = LiveTable._think
    gate: dict = {}
    thought = []

    async def think(self, seat, obs):
        await gate["open"].wait()
        result = await real(self, seat, obs)
        thought.append(seat)
        return result
    monkeypatch.setattr(LiveTable, "_think", think)

    async def run():
        gate["open"] = asyncio.Event()
        app = TacticalApp(lang=lang, ai_delay=0.0, seed=6, autosave=False,
                          seats=("human", "normal", "normal", "normal"))
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.table is not None and app.busy, "an AI thinking")
            await pilot.press("ctrl+c")
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
            assert app.table.history == []
            gate["open"].set()                        # the AI decides now
            await until(pilot, lambda: thought, "the AI's decision")
            for _ in range(20):
                await pilot.pause(0.01)
            assert app.table.history == []            # … and waits
            await pilot.press("n")
            await until(pilot, lambda: app.table.history, "the AI's pick applied")
    asyncio.run(run())


def _a_game_hit_since_the_players_last_decision(tmp_path):
    """A saved game of seat 1 (human) and 3 normal AI seats, played by the normal AI for
    seat 1 too, stopped where seat 1 must decide and has taken damage since its last
    decision: the file, and that damage's event."""
    from rules import Config
    from rules import events as E
    from rules.cards import default_cards
    from tactical_tui.table.saves import to_json, write_atomic
    from tactical_tui.table.live import GameTable, SeatSetup
    for seed in range(1, 40):
        seats = (SeatSetup(True),) + tuple(SeatSetup(False, "normal") for _ in range(3))
        game = GameTable(Config(players=4, first_game=True), seats, seed, default_cards())
        since = []
        while not game.over and len(game.history) < 3000:
            if game.human_to_act() == 0:
                hits = [e for e in since if isinstance(e, E.DamageDealt) and e.target == 0 and e.amount]
                if hits and game.state.phase == "battle":
                    path = tmp_path / "hit.json"
                    write_atomic(path, to_json(game.save_data()))
                    return path, hits[-1]
                action, _ = game.hint(0)
                game.submit(action)
                since = []
            else:
                seat = game.ai_to_act()
                action, reason = game.ai_decide(seat)
                game.submit_ai(seat, action, reason)
                since.extend(game.events_of[-1])
    raise AssertionError("no such game")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_continued_game_recaps_what_came_before_it_was_left(lang, tmp_path):
    """`--resume`: "Since your last decision" listed only what came after the resume, so
    an AI's hit before the game was left was never told. Now the recap of the first
    decision after it begins with what the seat saw nothing of."""
    from tactical_tui.table.views import recap_text
    path, hit = _a_game_hit_since_the_players_last_decision(tmp_path)
    want = t("recap.damage", lang, seat=t("seat", lang, n=hit.seat + 1), n=hit.amount, hp=hit.hp)

    async def run():
        app = TacticalApp(lang=lang, ai_delay=0.0, autosave=False, resume=str(path))
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: messages(app), "the recap")
            recap = [m for m in messages(app) if m.startswith(recap_text([hit], 0, lang)[:6])]
            assert recap and want in recap[0], messages(app)
    asyncio.run(run())


# ------------------------------------------------------------------ 5: the replay

def _replay_file(tmp_path, name: str) -> "Path":
    """A finished game of 3 random AI seats, saved as `name`."""
    from rules import Config
    from rules.cards import default_cards
    from tactical_tui.table.saves import to_json, write_atomic
    from tactical_tui.table.live import GameTable, SeatSetup
    game = GameTable(Config(players=3, first_game=True),
                     tuple(SeatSetup(False, "random") for _ in range(3)), 5, default_cards())
    while not game.over and len(game.history) < 400:
        seat = game.ai_to_act()
        game.submit_ai(seat, *game.ai_decide(seat))
    path = tmp_path / name
    write_atomic(path, to_json(game.save_data()))
    return path


def _replay_app(path, lang):
    from pathlib import Path
    from rules.cards import default_cards
    from tactical_tui.screens.replay import ReplayApp, ReplayScreen, load_replay
    from tactical_tui.widgets.base import localized
    cards = default_cards()
    events0, steps, start = load_replay(str(path), lang, cards)
    screen = localized(ReplayScreen, lang)(Path(path).name, events0, steps, cards, lang, start=start)
    return ReplayApp(screen), screen


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_replay_steps_describe_each_event_once_and_a_held_key_draws_once(lang, tmp_path, monkeypatch):
    """Stepping described the whole game again at every step (0.11 s a step; a held →
    went on for seconds after it was let go). Now every event is described once, and 30
    → arriving together are one step of 30 drawn once (or a few times), not 30 draws."""
    from tactical_tui.text.catalog import Describer
    path = _replay_file(tmp_path, "game.json")
    calls = []
    real = Describer.describe
    monkeypatch.setattr(Describer, "describe", lambda self, e: calls.append(e) or real(self, e))
    app, screen = _replay_app(path, lang)

    async def run():
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.05)
            described = len(calls)
            assert described == len(screen.events0) + sum(len(ev) for _, _, ev in screen.steps)
            draws = screen.draws
            burst(app, *["right"] * 30)
            await until(pilot, lambda: screen.k == 30 and screen._drawn == 30, "step 30")
            await calm(pilot)
            assert screen.draws - draws <= 3, screen.draws - draws
            for _ in range(5):
                await pilot.press("left")
            await pilot.press("end")
            await calm(pilot)
            assert screen.k == len(screen.steps)
            assert len(calls) == described               # nothing described again
            top = str(screen.query_one("#topbar").render())
            assert f"{len(screen.steps)}/{len(screen.steps)}" in top
    asyncio.run(run())


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_replay_footer_help_and_header_at_80_columns(lang, tmp_path):
    """Home/End are in the footer; `?` shows the replay's keys; a long file name is cut
    (…) so that the step and the phase stay in the header (`…json — step 180/189 — the`)."""
    from rich.cells import cell_len
    from tactical_tui.screens.replay import rt
    from tactical_tui.text.catalog import ui
    from tactical_tui.widgets.base import TextScreen
    from tui_app import screen_text
    path = _replay_file(tmp_path, "20261203-170132-7ba696-a-rather-long-name-seed123456.json")
    app, screen = _replay_app(path, lang)

    async def run():
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("end")
            await calm(pilot)
            rows = screen_text(app).split("\n")
            top, footer = rows[0], rows[23]
            phase = ui("phase." + screen.state_at(screen.k).phase, lang)
            assert top.rstrip().endswith(phase) and cell_len(top.rstrip()) <= 80, top
            n = len(screen.steps)
            assert (f"{n}/{n}" if lang == "en" else f"{n}/{n}手") in top
            assert "…" in top
            assert t("key.replay_first", lang) in footer and t("key.replay_last", lang) in footer
            assert "Home" in footer or "home" in footer.lower()
            await pilot.press("question_mark")
            await until(pilot, lambda: isinstance(app.screen, TextScreen), "the help")
            text = screen_text(app)
            assert "Home" in text and "End" in text and "PageDown" in text
            assert rt("help", lang).split("\n")[0][:10] in text
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is screen, "the replay again")
    asyncio.run(run())


# ------------------------------------------------------------------ 7: notifications

def _toasts(app) -> list:
    from textual.widgets._toast import Toast
    return [w for scr in app.screen_stack for w in scr.query(Toast)]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_no_toast_covers_the_log_or_the_help_and_it_comes_back_after(lang):
    """A toast up when the log (`l`) or the help (`?`) opens is taken off — on the
    dialog and on the screen beneath it — and comes back when it is closed, for the rest
    of its time (the time spent reading does not count)."""
    from tactical_tui.widgets.base import LogScreen, TextScreen

    async def run():
        app = TacticalApp(lang=lang, ai_delay=0.0, seed=6, autosave=False,
                          seats=("human", "normal", "normal", "normal"))
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await until(pilot, lambda: app.table is not None and app.feeds[0].asked()
                        and not app.busy, "the draft")
            await calm(pilot)
            app.clear_notifications()
            app.notify("note 1", timeout=2.0)
            await until(pilot, lambda: _toasts(app), "the toast")
            for key, kind in (("l", LogScreen), ("question_mark", TextScreen)):
                await pilot.press(key)
                await until(pilot, lambda: isinstance(app.screen, kind), "the reading screen")
                await calm(pilot)
                assert _toasts(app) == []
                await pilot.pause(2.5)                    # longer than the toast's time
                assert _toasts(app) == []
                await pilot.press("escape")
                await until(pilot, lambda: not isinstance(app.screen, kind), "closed")
                await until(pilot, lambda: _toasts(app), "the toast again")
                assert "note 1" in messages(app)
    asyncio.run(run())


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_game_over_screen_starts_without_the_last_turns_toasts(lang):
    """A recap or hint of the last turn stayed on top of the final standings."""
    from tactical_tui.screens.battle import BattleScreen
    from tactical_tui.screens.gameover import GameOverScreen
    from test_tui_table import _until

    async def run():
        app = TacticalApp(lang=lang, ai_delay=0.0, seed=6, autosave=False,
                          seats=("human", "normal", "normal", "normal"))
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await _until(app, pilot, lambda: isinstance(app.screen, BattleScreen)
                         and app.feeds[0].asked() and not app._modal_open())
            app.notify("a recap of the last turn", timeout=30)
            app.live.agree_end((0,))
            await until(pilot, lambda: isinstance(app.screen, GameOverScreen), "game over")
            await calm(pilot)
            assert "a recap of the last turn" not in messages(app)
            assert _toasts(app) == [] or all("recap" not in str(w._notification.message)
                                             for w in _toasts(app))
    asyncio.run(run())


# ------------------------------------------------------------------ 16: following the AI

def test_the_ai_pause_follows_only_actions_that_show_a_change():
    """`LiveTable._pause_after`: a damage, a move, a bid get the pause; a chip drawn, an
    attack's target chosen, the turn handed on do not; nor a secret event of another
    seat (the bid's card) that no human seat may see."""
    from rules import Config
    from rules import events as E
    from rules.cards import default_cards
    from tactical_tui.table.live import GameTable, LiveTable, LogEntry, SeatSetup
    game = GameTable(Config(players=3), (SeatSetup(True),) + (SeatSetup(False),) * 2, 1,
                     default_cards())
    live = LiveTable(game)
    pause = lambda *events: live._pause_after([LogEntry(event=e) for e in events])
    assert pause(E.DamageDealt(1, 0, 2, 4))
    assert pause(E.Moved(1, 2, 3))
    assert pause(E.ChipDrawn(1, "1", 1), E.DamageDealt(1, 2, 1, 5))
    assert pause(E.BidPlaced(1, "t1"))
    assert not pause(E.ChipDrawn(1, "1", 1))
    assert not pause(E.TargetChosen(1, 2))
    assert not pause(E.TurnEnded(1), E.TurnStarted(2, 1))
    assert not pause(E.BidCardChosen(1, "t1", "c1"))
    assert not pause()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_f_skips_the_ai_pauses_to_the_players_next_turn_and_nothing_is_lost(lang):
    """With a 1000-second AI pause, `f` while the AI seats play brings the player's next
    battle decision at once (the table's `hurry` ends there); the seat's log holds every
    event the table's log has for it, and the recap tells the damage taken."""
    from tactical_tui.screens.battle import BattleScreen
    from test_tui_table import _until

    async def run():
        app = TacticalApp(lang=lang, ai_delay=0.0, seed=6, autosave=False,
                          seats=("human", "normal", "normal", "normal"))
        async with app.run_test(size=(80, 24)) as pilot:
            await _until(app, pilot, lambda: isinstance(app.screen, BattleScreen)
                         and app.feeds[0].asked() and not app._modal_open())
            app.live.ai_delay = 1000.0
            turns = 0
            mine_before = True
            for _ in range(6000):
                await pilot.pause(0.005)
                u = app.feeds[0].latest
                if app.table.over or turns >= 3:
                    break
                battle = u.observation.battle
                mine = battle is not None and battle.turn.seat == 0
                if mine and not mine_before:
                    turns += 1
                mine_before = mine
                if app._modal_open():
                    await pilot.press("enter")
                elif app.feeds[0].asked() and not app.busy:
                    await pilot.press("H")
                elif not app.feeds[0].asked():
                    await pilot.press("f")
            assert turns >= 3 or app.table.over
            assert not app.live.hurrying or app.table.human_to_act() is None
            mine = [e.event for e in app.feeds[0].log if e.event is not None]
            table = [e.event for e in app.table.log_for(0) if e.event is not None]
            assert mine == table
    asyncio.run(run())
