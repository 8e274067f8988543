"""Settings remembered in the user config folder (issue 15 point 8): round trip, a
damaged file gives a message and the defaults (never a crash), the setup screen starts
from the saved defaults and keeps changes, and command-line options override them."""

from __future__ import annotations

import asyncio
import os
import sys
import tomllib

import pytest

from tactical_tui import settings as S
from tactical_tui.settings import Settings, Store, load, save, to_toml


def test_round_trip(tmp_path):
    path = tmp_path / "cfg" / "settings.toml"
    mine = Settings(lang="ja", ai_delay=1.2, players=5,
                    seats=["easy", "human", "hard", "random", "normal"], first_game=False,
                    theme="light")
    assert save(mine, path) is None
    got, problem = load(path)
    assert problem is None
    assert got == mine
    assert tomllib.loads(path.read_text(encoding="utf-8"))["seats"][1] == "human"


def test_no_file_is_the_defaults_without_a_message(tmp_path):
    got, problem = load(tmp_path / "none.toml")
    assert got == Settings() and problem is None


def test_config_dir_env_override(tmp_path, monkeypatch):
    monkeypatch.setenv("TACTICAL_CONFIG_DIR", str(tmp_path / "x"))
    assert S.settings_path() == tmp_path / "x" / "settings.toml"
    monkeypatch.delenv("TACTICAL_CONFIG_DIR")
    import platformdirs
    assert S.settings_path() == \
        __import__("pathlib").Path(platformdirs.user_config_dir("tactical", appauthor=False)) \
        / "settings.toml"


def test_toml_writer_escapes_strings():
    text = to_toml({"a": 'say "hi"\\ \x1b[31m\n', "b": [1, 2.5, True], "c": "日本語"})
    assert tomllib.loads(text) == {"a": 'say "hi"\\ \x1b[31m\n', "b": [1, 2.5, True],
                                   "c": "日本語"}


def _problem(path, lang="en"):
    got, problem = load(path)
    assert got == Settings(), "a damaged file gives the defaults"
    assert problem is not None
    return problem.text(lang)


def test_garbage(tmp_path):
    path = tmp_path / "settings.toml"
    path.write_bytes(b"lang = \x00\x01 ][[[ \xff\xfe")
    msg = _problem(path)
    assert "Cannot use the settings file" in msg and str(path) in msg
    path.write_text("lang = [unclosed", encoding="utf-8")
    assert "not valid TOML" in _problem(path)
    assert "TOMLとして読めません" in _problem(path, "ja")


def test_a_directory(tmp_path):
    path = tmp_path / "settings.toml"
    path.mkdir()
    assert "not a regular file (a folder)" in _problem(path)
    assert "フォルダ" in _problem(path, "ja")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_a_fifo_is_not_waited_on(tmp_path):
    path = tmp_path / "settings.toml"
    os.mkfifo(path)
    assert "a named pipe" in _problem(path)          # returns: nothing blocks on the pipe


def test_huge(tmp_path):
    path = tmp_path / "settings.toml"
    path.write_bytes(b"# " + b"x" * (S.MAX_BYTES + 10))
    msg = _problem(path)
    assert "too large" in msg and str(S.MAX_BYTES) in msg


def test_odd_values_are_dropped_alone(tmp_path):
    path = tmp_path / "settings.toml"
    path.write_text('lang = "fr"\nai_delay = 99\nplayers = 4\ntheme = "light"\n'
                    'seats = ["robot"]\nfirst_game = "yes"\nunknown = 1\n', encoding="utf-8")
    got, problem = load(path)
    assert got.theme == "light" and got.players == 4
    assert got.lang is None and got.ai_delay == Settings().ai_delay
    assert got.seats == Settings().seats and got.first_game is True
    msg = problem.text("en")
    for name in ("lang", "ai_delay", "seats", "first_game", "unknown"):
        assert name in msg
    assert "players" not in msg.split(":", 2)[-1]


def test_seats_without_a_human_get_one(tmp_path):
    path = tmp_path / "settings.toml"
    path.write_text('players = 3\nseats = ["easy", "hard", "random", "human"]\n', encoding="utf-8")
    got, problem = load(path)
    assert problem is None
    assert got.seats[0] == "human" and got.seats[1:3] == ["hard", "random"]


def test_unwritable_folder_gives_a_message(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    store = Store(Settings(), blocker / "settings.toml")
    problem = store.update(theme="light")
    assert problem is not None and "Cannot save the settings" in problem.text("en")
    assert store.settings.theme == "light"           # kept for this run all the same


# ------------------------------------------------------------------- in the app

def _app(store, **kw):
    from tactical_tui.app import TacticalApp
    return TacticalApp(ai_delay=kw.pop("ai_delay", 0.0), autosave=False, store=store, **kw)


def test_damaged_file_is_told_in_the_app_and_play_goes_on(tmp_path):
    path = tmp_path / "settings.toml"
    path.mkdir()
    store = Store.from_file(path)
    app = _app(store, lang="en")

    async def run():
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.1)
            messages = [str(n.message) for n in app._notifications]
            assert any("Cannot use the settings file" in m and "a folder" in m for m in messages)
            from tactical_tui.screens.menus import TitleScreen
            assert isinstance(app.screen, TitleScreen)
    asyncio.run(run())


def test_setup_starts_from_saved_defaults_and_keeps_changes(tmp_path):
    from tactical_tui.screens.menus import SetupScreen
    path = tmp_path / "settings.toml"
    save(Settings(players=3, seats=["human", "hard", "easy", "normal", "normal"],
                  first_game=False, ai_delay=1.0), path)
    store = Store.from_file(path)
    app = _app(store, lang="en", ai_delay=store.settings.ai_delay)

    async def run():
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("down", "enter")                  # New game
            await pilot.pause(0.05)
            scr = app.screen
            assert isinstance(scr, SetupScreen)
            assert (scr.players, scr.seats[:3], scr.first_game, scr.delay) == \
                (3, ["human", "hard", "easy"], False, 1.0)
            await pilot.press("right")                          # players 3 → 4
            await pilot.pause(0.05)
            assert load(path)[0].players == 4
            await pilot.press("down", "down", "left")           # seat 2: hard → normal
            await pilot.pause(0.05)                             # (levels by strength: issue 32)
            assert load(path)[0].seats[1] == "normal"
    asyncio.run(run())
    got = load(path)[0]
    assert got.players == 4 and got.seats[1] == "normal" and got.first_game is False


def test_language_row_is_remembered(tmp_path):
    from tactical_tui.screens.menus import SetupScreen
    path = tmp_path / "settings.toml"
    store = Store.from_file(path)
    app = _app(store, lang="en")

    async def run():
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("down", "enter")
            await pilot.pause(0.05)
            form = app.screen.query_one("#form")
            ids = [form.get_option_at_index(i).id for i in range(form.option_count)]
            form.highlighted = ids.index("lang")
            await pilot.press("right")
            await pilot.pause(0.1)
            assert app.lang == "ja" and isinstance(app.screen, SetupScreen)
    asyncio.run(run())
    assert load(path)[0].lang == "ja"


def test_command_line_overrides_the_settings(tmp_path, monkeypatch):
    """cli.main: --lang and --ai-delay win over the file; without them the file decides."""
    from tactical_tui import cli
    monkeypatch.setenv("TACTICAL_CONFIG_DIR", str(tmp_path))
    save(Settings(lang="ja", ai_delay=2.0), tmp_path / "settings.toml")
    made = []

    class Fake:
        def __init__(self, **kw):
            made.append(kw)
            self.table = None
            self.lang = kw["lang"]

        def run(self):
            pass
    monkeypatch.setattr("tactical_tui.app.TacticalApp", Fake)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert cli.main(["--lang", "en", "--ai-delay", "0.2"]) == 0
    assert cli.main([]) == 0
    assert (made[0]["lang"], made[0]["ai_delay"]) == ("en", 0.2)
    assert (made[1]["lang"], made[1]["ai_delay"]) == ("ja", 2.0)


@pytest.mark.parametrize("where", ["title", "setup"])
def test_language_change_keeps_the_cursor_row(tmp_path, where):
    """Changing the language on the title or the setup screen remakes the screen in the
    other language; its cursor stays on the language row (it went back to the top)."""
    app = _app(Store.from_file(tmp_path / "settings.toml"), lang="en")

    async def run():
        async with app.run_test(size=(80, 24)) as pilot:
            if where == "setup":
                await pilot.press("down", "enter")
                await pilot.pause(0.05)
            menu = app.screen.query_one("#form" if where == "setup" else "#menu")
            ids = [menu.get_option_at_index(i).id for i in range(menu.option_count)]
            menu.highlighted = ids.index("lang")
            await pilot.press("right" if where == "setup" else "enter")
            await pilot.pause(0.1)
            assert app.lang == "ja"
            menu = app.screen.query_one("#form" if where == "setup" else "#menu")
            assert menu.get_option_at_index(menu.highlighted).id == "lang"
            await pilot.press("down")
            assert menu.get_option_at_index(menu.highlighted).id == ids[ids.index("lang") + 1]
    asyncio.run(run())
