"""The command palette (issue 15 point 8): Ctrl+P lists the game's commands in the
player's language, running "language" switches it, a command that makes no sense now
says why, and the palette keeps the "please enlarge" guard and the quit flow."""

from __future__ import annotations

import asyncio

import pytest
from textual.command import CommandPalette

from tactical_tui.commands import GamePalette
from tactical_tui.screens.menus import TitleScreen
from tactical_tui.widgets.base import ConfirmScreen
from tui_app import human_turn, make_app, screen_text

NAMES = {
    "en": ["How to play", "Rules (help)", "New game", "Continue", "Language: switch to 日本語",
           "Theme: light", "AI pause: 0.3 s", "Save replay", "Quit"],
    "ja": ["遊び方", "ルール（ヘルプ）", "新しいゲーム", "続きから", "言語: English に切り替え",
           "テーマ: ライト", "AIの間: 0.3秒", "リプレイ保存", "終了"],
}


async def _open(app, pilot):
    await pilot.press("ctrl+p")
    for _ in range(100):
        await pilot.pause(0.02)
        if isinstance(app.screen, GamePalette) and app.screen.query("CommandList"):
            lst = app.screen.query_one("CommandList")
            if lst.option_count:
                return lst
    raise AssertionError("no palette")


def _prompts(lst) -> list[str]:
    return [str(lst.get_option_at_index(i).prompt).split("\n")[0] for i in range(lst.option_count)]


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_palette_lists_the_game_commands(lang):
    async def run():
        app = make_app(lang)
        async with app.run_test(size=(80, 24)) as pilot:
            lst = await _open(app, pilot)
            shown = _prompts(lst)
            for name in NAMES[lang]:
                assert name in shown, (name, shown)
            assert not any(x in shown for x in ("Screenshot", "Keys", "Maximize"))  # no system commands
            # the palette's own key in the Footer is in the player's language
            await pilot.press("escape")
            await pilot.pause(0.05)
            assert ("コマンド" if lang == "ja" else "Commands") in screen_text(app).split("\n")[-2]
    asyncio.run(run())


def test_running_language_switches_it():
    async def run():
        app = make_app("en")
        async with app.run_test(size=(80, 24)) as pilot:
            await _open(app, pilot)
            await pilot.press(*"language")
            await pilot.pause(0.3)
            await pilot.press("enter")
            for _ in range(50):
                await pilot.pause(0.02)
                if app.lang == "ja":
                    break
            assert app.lang == "ja"
            await pilot.pause(0.1)
            assert isinstance(app.screen, TitleScreen)
            assert "クイックゲーム" in screen_text(app)
            assert app.store.settings.lang == "ja"        # remembered (in memory here)
            lst = await _open(app, pilot)
            assert "言語: English に切り替え" in _prompts(lst)
    asyncio.run(run())


def test_save_replay_before_game_over_says_why():
    async def run():
        app = make_app("en", quick=True)
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(400):
                await pilot.pause(0.01)
                if human_turn(app):
                    break
            lst = await _open(app, pilot)
            assert "Continue" not in _prompts(lst)        # not during a game
            await pilot.press(*"save replay")
            await pilot.pause(0.3)
            lst = app.screen.query_one("CommandList")
            first = str(lst.get_option_at_index(0).prompt)
            assert first.startswith("Save replay") and "once the game is over" in first
            await pilot.press("enter")
            await pilot.pause(0.2)
            assert any("once the game is over" in str(n.message) for n in app._notifications)
    asyncio.run(run())


def test_palette_keeps_the_small_screen_guard():
    """Not opened below 80×24; open when the terminal shrinks, it shows the "please
    enlarge" message and runs nothing; large again, it works."""
    async def run():
        app = make_app("en")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.resize_terminal(60, 20)
            await pilot.pause(0.1)
            await pilot.press("ctrl+p")
            await pilot.pause(0.1)
            assert not CommandPalette.is_open(app)
            assert "too small" in screen_text(app)
            await pilot.resize_terminal(80, 24)
            await pilot.pause(0.1)
            await _open(app, pilot)
            await pilot.resize_terminal(70, 22)
            await pilot.pause(0.2)
            assert "too small" in screen_text(app)
            assert "How to play" not in screen_text(app)
            await pilot.press(*"rules", "enter")
            await pilot.pause(0.2)
            assert isinstance(app.screen, GamePalette)      # nothing ran
            await pilot.resize_terminal(80, 24)
            await pilot.pause(0.2)
            assert "too small" not in screen_text(app)
            await pilot.press(*"rules")
            await pilot.pause(0.3)
            await pilot.press("enter")
            await pilot.pause(0.2)
            assert type(app.screen).__name__.startswith("HelpScreen")
    asyncio.run(run())


def test_ctrl_c_in_the_palette_asks_before_quitting():
    async def run():
        app = make_app("en")
        async with app.run_test(size=(80, 24)) as pilot:
            await _open(app, pilot)
            await pilot.press("ctrl+c")
            await pilot.pause(0.1)
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("n")
            await pilot.pause(0.1)
            assert app.is_running
    asyncio.run(run())


def test_theme_command_switches_and_remembers():
    async def run():
        app = make_app("en")
        async with app.run_test(size=(80, 24)) as pilot:
            assert app.theme == "textual-dark"
            await _open(app, pilot)
            await pilot.press(*"theme")
            await pilot.pause(0.3)
            await pilot.press("enter")
            await pilot.pause(0.2)
            assert app.theme == "textual-light"
            assert app.store.settings.theme == "light"
    asyncio.run(run())


def test_japanese_palette_finds_commands_by_their_english_name():
    async def run():
        app = make_app("ja")
        async with app.run_test(size=(80, 24)) as pilot:
            await _open(app, pilot)
            await pilot.press(*"rules")
            await pilot.pause(0.3)
            lst = app.screen.query_one("CommandList")
            assert _prompts(lst)[0] == "ルール（ヘルプ）"
            await pilot.press("enter")
            await pilot.pause(0.2)
            assert type(app.screen).__name__.startswith("HelpScreen")
    asyncio.run(run())


def test_language_switch_in_a_game_redraws_the_phase_screen_and_play_goes_on():
    from tactical_tui.screens.draft import DraftScreen

    async def run():
        app = make_app("en", quick=True)
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(400):
                await pilot.pause(0.01)
                if human_turn(app):
                    break
            await _open(app, pilot)
            await pilot.press(*"language")
            await pilot.pause(0.3)
            await pilot.press("enter")
            await pilot.pause(0.3)
            assert app.lang == "ja" and isinstance(app.screen, DraftScreen)
            text = screen_text(app)
            assert "装備ドラフト" in text and "決定" in text.split("\n")[-2]   # the Footer too
            moves = len(app.table.history)
            await pilot.press("H")
            for _ in range(100):
                await pilot.pause(0.01)
                if len(app.table.history) > moves:
                    break
            assert len(app.table.history) > moves
    asyncio.run(run())
