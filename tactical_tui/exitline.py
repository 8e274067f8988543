"""Leaving a game: the quit dialog says whether the game is saved and how to take it up
again, and after the app has exited the terminal gets one line — "Saved. Continue with:
tactical --resume" — only when an unfinished game was saved (`tactical --resume` with no
file continues the newest unfinished game, the one just left: cli.py). The command is
the one that works for how the game was started (`launcher`: `python3 run.py --resume`
through run.py)."""

from __future__ import annotations

from typing import Optional

import os

RESUME = "tactical --resume"
LAUNCHER_ENV = "TACTICAL_COMMAND"   # how the game was started, when not as `tactical` (run.py sets it)


def launcher() -> str:
    """The command that starts TACTICAL the way this one was started: `tactical`, or
    what `TACTICAL_COMMAND` says — `python3 run.py` when started through run.py, whose
    users have no `tactical` on their PATH (issue 32 point 3). A value that is not one
    short line of printable text is not used."""
    given = os.environ.get(LAUNCHER_ENV, "").strip()
    if given and len(given) <= 200 and given.isprintable():
        return given
    return "tactical"


def resume_command(app=None) -> str:
    """`tactical --resume`, or `python3 run.py --resume` (launcher); with `--lang X` when
    `app` plays in a language a bare `--resume` would not choose (the settings' language,
    else the locale's): a game started with `--lang ja` in an English locale was continued
    in English."""
    command = f"{launcher()} --resume"
    if app is not None:
        from tactical_tui.text.langs import LANGS, default_lang
        store = getattr(app, "store", None)
        chosen = getattr(getattr(store, "settings", None), "lang", None) or default_lang()
        if app.lang in LANGS and app.lang != chosen:
            command += f" --lang {app.lang}"
    return command

TEXT = {
    "ask.saved": {"ja": "ゲームを終了しますか？ ゲームは保存されています。タイトルの「続きから」"
                        "または {cmd} で再開できます。",
                  "en": "Quit the game? It is saved: Continue on the title screen or {cmd} "
                        "takes it up again."},
    "ask.unsaved": {"ja": "ゲームを終了しますか？ このゲームは保存されていません（{why}）。",
                    "en": "Quit the game? This game is not saved ({why})."},
    "ask.over": {"ja": "ゲームを終了しますか？（このゲームは終わっています。sでリプレイを保存できます）",
                 "en": "Quit the game? (This game is over; s saves its replay.)"},
    "ask.plain": {"ja": "TACTICALを終了しますか？", "en": "Quit TACTICAL?"},
    "no_autosave": {"ja": "自動保存なし", "en": "autosave is off"},
    "line": {"ja": "保存しました。続きは: {cmd}", "en": "Saved. Continue with: {cmd}"},
}


def tx(key: str, lang: str, **kw: object) -> str:
    table = TEXT[key]
    return table.get(lang, table["en"]).format(**kw)


def _saved(table) -> bool:
    """The table's game is in its save file as it is now (the last autosave worked)."""
    path = getattr(table, "save_path", None)
    if path is None or getattr(table, "save_problem", None):
        return False
    try:
        return path.is_file()
    except OSError:
        return False


def quit_question(app) -> str:
    """The quit dialog's question at a game of one's own (a server's table has its own:
    screens.lobby.quit_question)."""
    table = getattr(app, "table", None)
    lang = app.lang
    if table is None:
        return tx("ask.plain", lang)
    if table.state.phase == "over":
        return tx("ask.over", lang)
    if _saved(table):
        return tx("ask.saved", lang, cmd=resume_command(app))
    why = getattr(table, "save_problem", None) or tx("no_autosave", lang)
    from tactical_tui.text.safe import plain
    return tx("ask.unsaved", lang, why=plain(why))


def exit_line(app) -> Optional[str]:
    """The line for the terminal after the app has exited, or None (no game, a finished
    game, or one that is not saved)."""
    table = getattr(app, "exit_game", None) or getattr(app, "table", None)
    if table is None or table.state.phase == "over" or not _saved(table):
        return None
    return tx("line", app.lang, cmd=resume_command(app))
