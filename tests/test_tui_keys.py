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
    first row. Then Escape (back to the title) `Down Down`: the new title's third row."""
    from tactical_tui.menus import SetupScreen, TitleScreen

    async def run():
        app = new_app(lang)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, TitleScreen), "the title")
            burst(app, "down", "enter", "down", "down", "right")
            await until(pilot, lambda: isinstance(app.screen, SetupScreen), "the setup")
            await calm(pilot)
            setup = app.screen
            assert row(setup, "#form") == "seat1"
            assert setup.seats[:4] == ["human", "hard", "normal", "normal"]
            burst(app, "escape", "down", "down")
            await until(pilot, lambda: isinstance(app.screen, TitleScreen), "the title again")
            await calm(pilot)
            assert row(app.screen, "#menu") == "continue"
            assert app.live is None
    asyncio.run(run())


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_an_enter_typed_with_a_menu_choice_is_not_for_the_menu_it_opens(lang):
    """`Down Enter Down Enter` on the title: the setup screen comes up with its cursor on
    the second row, and the Enter typed before it was drawn changes nothing there."""
    from tactical_tui.menus import SetupScreen, TitleScreen

    async def run():
        app = new_app(lang)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, TitleScreen), "the title")
            burst(app, "down", "enter", "down", "enter")
            await until(pilot, lambda: isinstance(app.screen, SetupScreen), "the setup")
            await calm(pilot)
            assert row(app.screen, "#form") == "seat0"
            assert app.screen.seats[:4] == ["human", "normal", "normal", "normal"]
            assert app.live is None
    asyncio.run(run())


def test_cursor_keys_typed_with_a_menu_choice_never_reach_how_to_play():
    """How to play is no menu: `Right` typed with the title's Enter does not turn its
    page (the keys typed ahead reach menus only, never a dialog or a reading screen)."""
    from tactical_tui.howto import HowToScreen
    from tactical_tui.menus import TitleScreen

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
