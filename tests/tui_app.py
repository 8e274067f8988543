"""Builds the app for Pilot and snapshot tests: fixed seed, no AI pause, no cursor blink."""

from __future__ import annotations

from contextlib import contextmanager

from tactical_tui.app import TacticalApp


def make_app(lang: str = "en", seed: int = 7, quick: bool = False) -> TacticalApp:
    app = TacticalApp(lang=lang, ai_delay=0.0, quick=quick, seed=seed, autosave=False)
    return app


def screen_text(app) -> str:
    """The screen as plain text, one line per terminal row (for snapshots)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(seg.text for seg in strip).rstrip() for strip in strips) + "\n"


@contextmanager
def _short_idle_waits():
    """Pilot.press waits, after the key, twice for a 20 ms stretch in which the process
    did (almost) no work (textual/_wait.py): at least 40 ms a key, most of the time of
    a game played by keys on an idle machine. `settle` waits for the key's effect
    itself, so in it a 5 ms stretch (with the same share of work) will do."""
    import textual._wait as wait
    if not hasattr(wait, "SLEEP_GRANULARITY") or not hasattr(wait, "SLEEP_IDLE"):
        yield                                   # another textual: its own waits
        return
    saved = wait.SLEEP_GRANULARITY, wait.SLEEP_IDLE
    wait.SLEEP_GRANULARITY = 0.005
    wait.SLEEP_IDLE = saved[1] * wait.SLEEP_GRANULARITY / saved[0]
    try:
        yield
    finally:
        wait.SLEEP_GRANULARITY, wait.SLEEP_IDLE = saved


async def settle(app, pilot, key: str) -> None:
    """Press `key` and wait until it has taken effect (the dialog closed, or the game
    moved on), so that no key press leaks into the next screen."""
    screen = app.screen
    moves = len(app.table.history) if app.table else 0
    with _short_idle_waits():
        await pilot.press(key)
    for _ in range(400):
        await pilot.pause(0.005)
        if app.screen is not screen and not isinstance(app.screen, type(screen)):
            return
        if app.screen is not screen:
            return
        if app.table and len(app.table.history) != moves:
            return


def dialog_open(app) -> bool:
    from textual.screen import ModalScreen
    return isinstance(app.screen, ModalScreen) or type(app.screen).__name__.startswith("HandOver")


def human_turn(app) -> bool:
    return bool(app.table and not app.busy and app.table.human_to_act() is not None)
