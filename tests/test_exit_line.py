"""Leaving a game (issue 15 point 7): the quit dialog says the game is saved and how to
continue, and after the app has exited the terminal gets one line in the player's
language — only when a game was saved. A real `tactical` process in a pseudo-terminal
of 80×24 with TACTICAL_SAVE_DIR set."""

from __future__ import annotations

import asyncio
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tactical_tui.exitline import exit_line, quit_question
from tactical_tui.widgets.base import ConfirmScreen
from tui_app import human_turn, make_app, screen_text

ROOT = Path(__file__).resolve().parent.parent
# the pty's locale is C (English): a game played with --lang ja is continued with it
LINE = {"en": "Saved. Continue with: tactical --resume",
        "ja": "保存しました。続きは: tactical --resume --lang ja"}


def _run_in_pty(tmp_path: Path, lang: str, args: list[str], keys: list[tuple[str, bytes]],
                timeout: float = 60) -> str:
    """Start `tactical` in a pty; each (text, key) waits until the screen output shows
    `text`, then types `key`. Returns everything the process wrote, until it ends."""
    import fcntl
    import pty
    import struct
    import termios
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = dict(os.environ, TACTICAL_SAVE_DIR=str(tmp_path / "saves"),
               TACTICAL_CONFIG_DIR=str(tmp_path / "cfg"), TERM="xterm-256color",
               PYTHONPATH=str(ROOT), LANG="C.UTF-8")
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen([sys.executable, "-m", "tactical_tui.cli", "--lang", lang, *args],
                            stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT,
                            start_new_session=True)
    os.close(slave)
    out = b""
    end = time.monotonic() + timeout
    try:
        pending = list(keys)
        while time.monotonic() < end:
            if pending and pending[0][0].encode() in out:
                time.sleep(0.3)
                os.write(master, pending.pop(0)[1])
            r = select.select([master], [], [], 0.1)[0]
            if r:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
            elif proc.poll() is not None and not pending:
                break
        assert not pending, f"never saw {pending[0][0]!r}"
        proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return out.decode("utf-8", "replace")


def _after_exit(out: str) -> str:
    """What the process printed after Textual gave the terminal back (the alternate
    screen left: ESC [ ? 1049 l)."""
    import re
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.rsplit("\x1b[?1049l", 1)[-1])


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals")
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_quitting_a_saved_game_prints_how_to_continue(tmp_path, lang):
    ask = "tactical --resume"
    out = _run_in_pty(tmp_path, lang, ["--quick", "--ai-delay", "0"],
                      [("The draft" if lang == "en" else "装備ドラフト", b"\x03"), (ask, b"y")])
    tail = _after_exit(out)
    assert LINE[lang] in tail, tail
    assert [x for x in tail.replace("\r", "").split("\n") if x.strip()] == [LINE[lang]]
    games = list((tmp_path / "saves" / "games").glob("*.json"))
    assert games, "the game was saved"


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals")
def test_quitting_from_the_title_prints_nothing(tmp_path):
    out = _run_in_pty(tmp_path, "en", [], [("Quick game", b"\x03"), ("Quit TACTICAL?", b"y")])
    assert "Saved." not in _after_exit(out)
    assert "Continue with" not in _after_exit(out)


def test_quit_dialog_wording_in_a_game(tmp_path, monkeypatch):
    monkeypatch.setenv("TACTICAL_SAVE_DIR", str(tmp_path))
    for lang in ("en", "ja"):
        from tactical_tui.app import TacticalApp
        app = TacticalApp(lang=lang, ai_delay=0.0, quick=True, seed=3)   # autosave on

        async def run():
            async with app.run_test(size=(80, 24)) as pilot:
                for _ in range(400):
                    await pilot.pause(0.01)
                    if human_turn(app):
                        break
                await pilot.press("ctrl+c")
                await pilot.pause(0.1)
                assert isinstance(app.screen, ConfirmScreen)
                text = screen_text(app)
                if lang == "en":
                    assert "It is saved" in text and "tactical --resume" in text
                else:
                    assert "保存されています" in text and "tactical --resume" in text
                assert exit_line(app) == LINE[lang]
                await pilot.press("n")
                await pilot.pause(0.05)
                app.table.save_path = None              # autosave off: no promise
                assert exit_line(app) is None
                assert ("not saved" if lang == "en" else "保存されていません") in quit_question(app)
        asyncio.run(run())


def test_no_line_without_a_game_or_for_a_finished_or_unsaved_one(tmp_path):
    from types import SimpleNamespace as NS
    saved = tmp_path / "g.json"
    saved.write_text("{}")
    app = NS(lang="en", table=None)
    assert exit_line(app) is None and quit_question(app) == "Quit TACTICAL?"
    app.table = NS(state=NS(phase="battle"), save_path=saved, save_problem=None)
    assert exit_line(app) == LINE["en"]
    app.lang = "ja"
    assert exit_line(app) == LINE["ja"]
    app.table.state.phase = "over"
    assert exit_line(app) is None and "s" in quit_question(app)
    app.table.state.phase = "battle"
    app.table.save_problem = "disk full"
    assert exit_line(app) is None and "disk full" in quit_question(app)
    app.table.save_problem = None
    app.table.save_path = tmp_path / "missing.json"
    assert exit_line(app) is None


def test_the_resume_command_keeps_a_language_the_bare_command_would_not_choose(monkeypatch):
    """A game started with `--lang ja` in an English locale was continued in English by the
    printed `tactical --resume`: the command says `--lang ja` then, and nothing more when
    the settings or the locale choose the game's language anyway."""
    from types import SimpleNamespace
    from tactical_tui.exitline import resume_command
    monkeypatch.delenv("TACTICAL_COMMAND", raising=False)
    for var in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    app = lambda lang, chosen=None: SimpleNamespace(lang=lang, store=SimpleNamespace(
        settings=SimpleNamespace(lang=chosen)))
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    assert resume_command(app("ja")) == "tactical --resume --lang ja"
    assert resume_command(app("en")) == "tactical --resume"
    assert resume_command(app("ja", chosen="ja")) == "tactical --resume"
    monkeypatch.setenv("LANG", "ja_JP.UTF-8")
    assert resume_command(app("ja")) == "tactical --resume"
    assert resume_command(app("en")) == "tactical --resume --lang en"
