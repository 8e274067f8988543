"""Snapshots of every screen at 80×24 in Japanese and English (pytest-snapshot).

Update after an intended change with `python3 run.py test tests/test_tui_snapshots.py
--snapshot-update`, then read the diff."""

from __future__ import annotations

import asyncio

import pytest
from textual.screen import ModalScreen

from tactical_tui.screens.battle import BattleScreen
from tactical_tui.screens.bid import BidScreen
from tactical_tui.screens.build import BuildScreen
from tactical_tui.screens.draft import DraftScreen
from tactical_tui.screens.gameover import GameOverScreen
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


SCREENS = (DraftScreen, BidScreen, BuildScreen, BattleScreen, GameOverScreen)


def _shown(app, screen_type) -> bool:
    """`screen_type` is on screen, ready for its snapshot: with the human to act (or the
    game over)."""
    scr = app.screen
    return isinstance(scr, screen_type) and (
        screen_type is GameOverScreen or
        (not app.busy and app.table.human_to_act() == 0
         # in the draft and the build the AI seats choose first: wait
         # until all of them have, or the log strip depends on timing
         and (app.table.ai_to_act() is None
              or app.table.state.phase not in ("draft", "build"))))


_PLAYED: dict[str, dict] = {}


def reach(screen_type, lang):
    """Play a seeded quick game (H on the human's turn, Enter on dialogs) until
    `screen_type` is shown with the human to act, and return its text.

    The screens come one after another in the same seeded game, so it is played once
    per language and test process, to its end, taking each screen's text the first time
    it is shown (as a game played only up to that screen would): the tests of the
    other screens of that language reuse the texts."""
    if lang not in _PLAYED:
        _PLAYED[lang] = _play(lang)
    texts = _PLAYED[lang]
    assert screen_type in texts, f"screen not reached: {screen_type.__name__}"
    return texts[screen_type]


def _play(lang) -> dict:
    async def run():
        texts: dict = {}
        app = make_app(lang, seed=21)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter")
            for _ in range(20000):
                await pilot.pause(0.005)
                for screen_type in SCREENS:
                    if screen_type not in texts and _shown(app, screen_type):
                        texts[screen_type] = await stable_text(app, pilot)
                if GameOverScreen in texts:
                    return texts
                if dialog_open(app):
                    await settle(app, pilot, "enter")
                elif human_turn(app):
                    await settle(app, pilot, "H")
            return texts
    return asyncio.run(run())


@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: s.__name__)
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
