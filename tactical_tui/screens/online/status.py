"""`tactical join`: the state of the connection to the server as the screens show it.

`NetStatus` is what the client keeps of it (the app's `net`, made by the lobby's
`open_lobby`): whether the connection is down and when the next try is, the server's
last `bye`, the banner's ticker, when an unreadable message was last said.

While the connection is down a banner (`NetBanner`) over the top line of every screen
says so and counts down to the next try (net.client reconnects with back-off and takes
the seat back with its token); while the table on screen is paused (the host cannot
save it) the banner says that. `refresh_tables` asks the server for its table list
again (the lobby's and the waiting room's polls)."""

from __future__ import annotations

import asyncio
from typing import Optional

import attrs
from textual.screen import ModalScreen
from textual.widgets import Static

from tactical_tui.screens.online.words import bye_words, words
from tactical_tui.text.i18n import clip, t
from tactical_tui.text.safe import as_text, plain

UNREADABLE_EVERY = 30.0      # seconds: a server that sends many unreadable messages is said once


@attrs.define
class NetStatus:
    """The connection of `tactical join` as its screens show it (the app's `net`)."""

    state: Optional[tuple] = None    # ("reconnecting", next try: loop time) / ("closed", bye code)
    bye: Optional[str] = None        # the server's last `bye` code (said before it hung up)
    ticker: object = None            # the banner's count-down timer while it is up
    unreadable_said: Optional[float] = None   # (time.monotonic) an unreadable message last said


def net_status(app) -> NetStatus:
    """The app's NetStatus (made on first use)."""
    if app.net is None:
        app.net = NetStatus()
    return app.net


def connection_status(app, status: str, retry_in: Optional[float]) -> bool:
    """The client's status kept (`reconnecting`: the next try in `retry_in` seconds,
    `connected`, `closed`) and said by the banner; False for a status that changes
    nothing shown."""
    net = net_status(app)
    state = net.state
    if status == "reconnecting":
        loop = asyncio.get_running_loop()
        net.state = ("reconnecting", loop.time() + (retry_in or 0))
        _ensure_ticker(app)
    elif status == "connected":
        if state is not None and state[0] in ("reconnecting", "lost"):
            app.notify(t("join.back", app.lang), timeout=4)
        net.state = None
        net.bye = None
    elif status == "closed" and not app.leaving and app.is_running:
        net.state = ("closed", net.bye)
    else:
        return False
    update_banner(app)
    return True


def said_bye(app, code: str) -> None:
    """The server said why it ends the connection (the banner says it once it has)."""
    net_status(app).bye = code


def unreadable(app) -> None:
    """A message from the server this version could not read was dropped (an update of
    the table on screen, perhaps): said, at most once every UNREADABLE_EVERY seconds,
    instead of a screen that silently stops following the game."""
    import time
    now = time.monotonic()
    net = net_status(app)
    last = net.unreadable_said
    if last is not None and now - last < UNREADABLE_EVERY:
        return
    net.unreadable_said = now
    app.notify(t("join.unreadable", app.lang), severity="warning", timeout=10)


async def refresh_tables(app) -> tuple[bool, Optional[str]]:
    """The table list again: (True, None) when it came; (True, why) when the server
    refused it, or sent no answer or one this version cannot read (the lobby says so,
    until a list comes); (False, None) when the connection dropped meanwhile — the
    banner's to say."""
    from tactical_tui.net.client import ConnectionLost, Refusal
    session = app.session
    session.refreshing = True
    problem = None
    try:
        await session.refresh()
    except Refusal as exc:
        problem = t("join.list_refused", app.lang, why=words(exc.code, exc.params, app.lang))
    except ConnectionLost as exc:
        if type(exc) is ConnectionLost:
            return False, None
        problem = words(exc.code, {}, app.lang)
    finally:
        session.refreshing = False
    return True, problem


def _ensure_ticker(app) -> None:
    net = net_status(app)
    if net.ticker is None:
        net.ticker = app.set_interval(0.5, lambda: update_banner(app))


def paused_text(app) -> Optional[str]:
    """The banner's words while the table on screen is paused, or None."""
    code = getattr(app.live, "paused", None) if app.live is not None else None
    if not isinstance(code, str):
        return None
    if code == "save_failed":
        return t("join.paused", app.lang)
    return t("join.paused_other", app.lang, code=clip(plain(code), 16))


def banner_text(app) -> Optional[str]:
    net = net_status(app)
    state = net.state
    if state is None:
        return paused_text(app)
    if state[0] == "reconnecting":
        import math
        left = math.ceil(state[1] - asyncio.get_running_loop().time())
        if net.bye == "server_stopping":    # said so: not a drop
            return t("join.host_stopped", app.lang, n=max(0, left))
        return t("join.lost", app.lang, n=left) if left > 0 else t("join.lost_now", app.lang)
    return t("join.closed", app.lang, why=bye_words(state[1], app.lang))


class NetBanner(Static):
    """The connection's state over the screen's top line (`update_banner`)."""

    DEFAULT_CSS = """
    NetBanner {
        dock: top;
        height: 1;
        width: 100%;
        background: $error;
        color: $text;
        text-style: bold;
        padding: 0 1;
    }
    """


def update_banner(app) -> None:
    """Show (or take away) the banner on every screen of the app's stack."""
    text = banner_text(app)
    net = net_status(app)
    if text is None and net.ticker is not None:
        net.ticker.stop()
        net.ticker = None
    for scr in list(app.screen_stack):
        if isinstance(scr, ModalScreen) or not scr.is_attached:
            continue
        found = list(scr.query(NetBanner))
        if text is None:
            for b in found:
                b.remove()
        else:
            # one line, clipped by cells to the terminal (Japanese is two cells a character)
            shown = as_text(clip(text, max(10, app.size.width - 2)))
            if found:
                found[0].update(shown)
            else:
                scr.mount(NetBanner(shown))
