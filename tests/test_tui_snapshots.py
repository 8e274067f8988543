"""Snapshots of every screen at 80×24 in Japanese and English (pytest-snapshot).

Update after an intended change with `python3 run.py test tests/test_tui_snapshots.py
--snapshot-update`, then read the diff."""

from __future__ import annotations

import asyncio

import pytest
from textual.screen import ModalScreen

from tactical_tui.screens import (BattleScreen, BidScreen, BuildScreen, DraftScreen,
                                  GameOverScreen)
from tui_app import dialog_open, human_turn, make_app, screen_text, settle


async def stable_text(app, pilot, rounds: int = 400) -> str:
    """The screen's text once it has stopped changing (three equal reads 0.02 s apart),
    so a loaded machine that draws late does not snapshot a half-drawn screen."""
    last, same = None, 0
    for _ in range(rounds):
        await pilot.pause(0.02)
        text = screen_text(app)
        same = same + 1 if text == last else 0
        if same >= 2:
            return text
        last = text
    return last


def reach(screen_type, lang):
    """Play a seeded quick game (H on the human's turn, Enter on dialogs) until
    `screen_type` is shown with the human to act, and return its text."""
    async def run():
        app = make_app(lang, seed=21)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter")
            for _ in range(20000):
                await pilot.pause(0.005)
                scr = app.screen
                if isinstance(scr, screen_type) and (
                        screen_type is GameOverScreen or
                        (not app.busy and app.table.human_to_act() == 0)):
                    return await stable_text(app, pilot)
                if dialog_open(app):
                    await settle(app, pilot, "enter")
                elif human_turn(app):
                    await settle(app, pilot, "H")
            raise AssertionError("screen not reached")
    return asyncio.run(run())


@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize("screen", [DraftScreen, BidScreen, BuildScreen, BattleScreen,
                                    GameOverScreen], ids=lambda s: s.__name__)
def test_screen_snapshot(snapshot, screen, lang):
    text = reach(screen, lang)
    assert len(text.splitlines()) == 24
    snapshot.assert_match(text, f"{screen.__name__}_{lang}.txt")


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_title_snapshot(snapshot, lang):
    async def run():
        app = make_app(lang)
        async with app.run_test(size=(80, 24)) as pilot:
            # the footer (last row) is drawn after the body: wait for it, not a fixed time
            for _ in range(400):
                await pilot.pause(0.01)
                if screen_text(app).splitlines()[-1].strip():
                    break
            await pilot.pause(0.05)
            return screen_text(app)
    snapshot.assert_match(asyncio.run(run()), f"Title_{lang}.txt")
