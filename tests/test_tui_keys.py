"""Keys typed ahead across a change of screen, with Pilot at 80×24.

- Menus: the cursor keys typed right after a menu's choice (`Down Enter Down Down` on the
  title) reach the menu it opens, in order; its Enter is not typed ahead (a choice made on
  rows the player has not seen), and no key reaches a dialog or How to play that way.
- Escape and the next key in one read of the terminal reach the app as one `alt+X` key
  (Textual's escape-sequence parser): they act as Escape, then X.

A burst is posted the way the terminal driver posts the keys of one read: all queued
before the app has handled the first (`pilot.press` waits after every key)."""

from __future__ import annotations

import asyncio

import pytest
from textual import events

from tactical_tui.app import TacticalApp


def burst(app, *keys) -> None:
    """Keys arriving in one read: names, or (name, character) as the parser gives them."""
    for k in keys:
        key, char = k if isinstance(k, tuple) else (k, k if len(k) == 1 else None)
        app.post_message(events.Key(key, char))


async def until(pilot, cond, what: str, rounds: int = 1000) -> None:
    for _ in range(rounds):
        if cond():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"timed out waiting for {what}")


async def calm(pilot) -> None:
    """Long enough for every queued key to have been handled (or dropped)."""
    for _ in range(10):
        await pilot.pause(0.02)


def new_app(lang: str) -> TacticalApp:
    return TacticalApp(lang=lang, ai_delay=0.0, seed=7, autosave=False)


async def setup_after(app, pilot, *keys):
    """The title, then `keys` in one read (the first ones choosing New game): the setup
    screen they open, once every key has been handled."""
    from tactical_tui.screens.menus import SetupScreen, TitleScreen
    await until(pilot, lambda: isinstance(app.screen, TitleScreen), "the title")
    burst(app, *keys)
    await until(pilot, lambda: isinstance(app.screen, SetupScreen), "the setup")
    await calm(pilot)
    return app.screen


def row(screen, selector: str) -> str:
    ol = screen.query_one(selector)
    return ol.get_option_at_index(ol.highlighted).id


# ------------------------------------------------------------------ menus

@pytest.mark.parametrize("lang", ["en", "ja"])
def test_cursor_keys_typed_with_a_menu_choice_reach_the_menu_it_opens(lang):
    """`Down Enter Down Down Right` on the title: New game, then on the setup screen that
    it opens the cursor goes two rows down (seat 2) and Right changes that seat (normal →
    hard). Before, the keys after Enter reached the title (they were queued for its list
    before Enter was handled) and were dropped there, and the setup screen stayed on its
    first row. Then Escape (back to the title, on the New game row: issue 32) `Down Down`:
    two rows below it."""
    from tactical_tui.screens.menus import TitleScreen

    async def run():
        app = new_app(lang)
        async with app.run_test(size=(80, 24)) as pilot:
            setup = await setup_after(app, pilot, "down", "enter", "down", "down", "right")
            assert row(setup, "#form") == "seat1"
            assert setup.seats[:4] == ["human", "hard", "normal", "normal"]
            burst(app, "escape", "down", "down")
            await until(pilot, lambda: isinstance(app.screen, TitleScreen), "the title again")
            await calm(pilot)
            assert row(app.screen, "#menu") == "howto"
            assert app.live is None
    asyncio.run(run())


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_an_enter_typed_with_a_menu_choice_is_not_for_the_menu_it_opens(lang):
    """`Down Enter Down Enter` on the title: the setup screen comes up with its cursor on
    the second row, and the Enter typed before it was drawn changes nothing there."""
    async def run():
        app = new_app(lang)
        async with app.run_test(size=(80, 24)) as pilot:
            setup = await setup_after(app, pilot, "down", "enter", "down", "enter")
            assert row(setup, "#form") == "seat0"
            assert setup.seats[:4] == ["human", "normal", "normal", "normal"]
            assert app.live is None
    asyncio.run(run())


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_key_not_passed_on_cuts_the_keys_typed_after_it(lang):
    """`Down Enter Escape Left` on the title: the Escape typed with the choice is dropped
    (it was queued for the title), and the Left after it — typed for the title, after
    "back" — must not change the setup screen's first row (it made 4 players 3)."""
    async def run():
        app = new_app(lang)
        async with app.run_test(size=(80, 24)) as pilot:
            setup = await setup_after(app, pilot, "down", "enter", "escape", "left", "down")
            assert row(setup, "#form") == "players" and setup.players == 4
            assert app.live is None
    asyncio.run(run())


def test_cursor_keys_typed_with_a_menu_choice_never_reach_how_to_play():
    """How to play is no menu: `Right` typed with the title's Enter does not turn its
    page (the keys typed ahead reach menus only, never a dialog or a reading screen)."""
    from tactical_tui.screens.howto import HowToScreen
    from tactical_tui.screens.menus import TitleScreen

    async def run():
        app = new_app("en")
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, TitleScreen), "the title")
            burst(app, "down", "down", "down", "enter", "right", "down")
            await until(pilot, lambda: isinstance(app.screen, HowToScreen), "How to play")
            await calm(pilot)
            assert app.screen.k == 0
            burst(app, "right")                          # typed on it: it turns
            await calm(pilot)
            assert app.screen.k == 1
    asyncio.run(run())


# ------------------------------------------------------- Escape and a key in one read

def parsed(data: str) -> list:
    """The key events Textual's terminal parser makes of `data` read at once (a burst
    typed together, or sent as one write over SSH)."""
    from textual._xterm_parser import XTermParser
    parser = XTermParser()
    return [e for e in (*parser.feed(data), *parser.feed("")) if isinstance(e, events.Key)]


def test_escape_and_a_letter_in_one_read_arrive_as_one_alt_key():
    """What the app is given (Textual's parser, the legacy keyboard protocol): Escape
    followed by a letter or digit in the same read is one key, `alt+` that character;
    with another key after them, that key comes on its own. (An Escape before an arrow
    stays an Escape; before `?`, Enter, space or Tab it is lost in the parser.)"""
    keys = lambda data: [(k.key, k.character) for k in parsed(data)]
    assert keys("\x1bd") == [("alt+d", "d")]
    assert keys("\x1bH") == [("alt+shift+h", "H")]
    assert keys("\x1bdl") == [("alt+d", "d"), ("l", "l")]
    assert keys("\x1b\x1b[B") == [("escape", "\x1b"), ("down", None)]


def on_details(lang: str, body) -> None:
    """Run `body(app, pilot)` with a card's details open over the quick game's draft."""
    from tactical_tui.screens.draft import DraftScreen
    from test_tui_input import asked, quiet

    async def run():
        app = TacticalApp(lang=lang, ai_delay=0.0, quick=True, seed=5, autosave=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: asked(app) and isinstance(app.screen, DraftScreen), "the draft",
                        rounds=3000)
            await pilot.press("d")
            await until(pilot, lambda: type(app.screen).__name__.startswith("TextScreen"), "the details")
            await body(app, pilot)
            await quiet(app, pilot)
    asyncio.run(run())


def names(app) -> list[str]:
    return [type(s).__name__.split("_")[0] for s in app.screen_stack[1:]]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_escape_then_a_key_in_one_read_closes_the_text_and_the_key_acts_beneath(lang):
    """`Esc l` typed together on a card's details: the details close, then `l` acts on the
    draft screen beneath (its log opens); `Esc d` on the log: the log closes and `d`
    shows the highlighted card again. Before, Textual's `alt+l` closed nothing and the
    `l` was lost. The split is the app's (TacticalApp.on_event): the key after the
    Escape goes where it would have gone typed a moment later."""
    async def body(app, pilot):
        burst(app, *[(k.key, k.character) for k in parsed("\x1bl")])
        await until(pilot, lambda: names(app)[-1] == "LogScreen", "the log")
        assert names(app) == ["DraftScreen", "LogScreen"]
        burst(app, *[(k.key, k.character) for k in parsed("\x1bd")])
        await until(pilot, lambda: names(app)[-1] == "TextScreen", "the details")
        assert names(app) == ["DraftScreen", "TextScreen"]
    on_details(lang, body)


def test_escape_then_a_key_in_one_read_closes_how_to_play_and_drops_the_key():
    """How to play is no question and passes no key on (`Guarded`): `Esc d` typed
    together closes it, and the `d` is dropped — as it is when typed a moment later,
    before the screen beneath is drawn — rather than opening a card's details."""
    async def body(app, pilot):
        await pilot.press("escape")
        await until(pilot, lambda: names(app)[-1] == "DraftScreen", "the draft")
        from tactical_tui.screens.howto import show_howto
        show_howto(app)
        await until(pilot, lambda: names(app)[-1] == "HowToScreen", "How to play")
        await calm(pilot)
        burst(app, *[(k.key, k.character) for k in parsed("\x1bd")])
        await until(pilot, lambda: names(app)[-1] != "HowToScreen", "How to play to close")
        await calm(pilot)
        assert names(app) == ["DraftScreen"]
    on_details("en", body)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_escape_then_y_in_one_read_on_the_quit_dialog_does_not_quit(lang):
    """`Esc y` typed together on the quit dialog: Escape answers no, and the `y` after it
    reaches the title, where it does nothing — it never answers the dialog it closed.
    Before, the dialog stayed open (`alt+y` is no key of it)."""
    from tactical_tui.screens.menus import TitleScreen
    from tactical_tui.widgets.base import ConfirmScreen

    async def run():
        app = new_app(lang)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, TitleScreen), "the title")
            await pilot.press("ctrl+c")
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the quit dialog")
            burst(app, *[(k.key, k.character) for k in parsed("\x1by")])
            await until(pilot, lambda: not isinstance(app.screen, ConfirmScreen), "the dialog to close")
            await calm(pilot)
            assert isinstance(app.screen, TitleScreen) and app.is_running
            assert app.return_code is None
    asyncio.run(run())
