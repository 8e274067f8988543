"""`tactical join`: the app as a client of a table server (docs/PROTOCOL.md).

The lobby lists the server's tables with their seats (player, AI level, status — open,
connected, disconnected, AI takeover), phase and privacy; from it a player creates a
table (seats open or AI of a level, first game, private with a join code, turn clock),
sits at a seat (the first open one, a chosen one, or a private table's with its code) or
watches. A joined seat is shown by the ordinary phase screens — the app's seat view of a
`net.remote.RemoteTable` (app.seat_views) — with one key more, `/`, the one-line chat; a
watched table by `SpectatorScreen` (public information only, as the server sends it).

While the connection is down a banner over the top line says so and counts down to
the next try (net.client reconnects with back-off and takes the seat back with its
token); the game goes on where it is once the server answers again.

Everything from the server that is shown — player names, chat lines, table ids, codes,
refusal parameters — is data: it goes through `safe.plain` / `safe.as_text`, never
through markup."""

from __future__ import annotations

import asyncio
from typing import Optional

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Container
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from tactical_tui.text.i18n import TUI, break_lines, clip, t
from tactical_tui.text.safe import as_text, lines_text, plain
from tactical_tui.screens.menus import MenuScreen
from tactical_tui.widgets.base import BaseScreen, ChoiceScreen, QuestionList, key_gate, localized

from tactical_tui.net.protocol import CHAT_MAX as CHAT_CELLS   # a chat line: at most 200 cells
from tactical_tui.net.remote import ChatEntry  # noqa: F401 - a line of the client's own in a seat's log
NAME_CELLS = 12                  # a player's name in a lobby row
LEVELS = ("random", "easy", "normal", "hard")   # by strength, as in New game (issue 32 point 13)
CLOCKS = (None, 30, 60, 120, 300)
GRACES = (60, 120, 300, 15, 30)  # seconds before the takeover AI plays a dropped seat
REFRESH = 5.0                    # seconds between two table lists while the lobby is up


class _Gaps(dict):
    def __missing__(self, key: str) -> str:
        return "?"                   # a parameter the server did not send


def words(code: str, params: Optional[dict], lang: str) -> str:
    """A server's or the connection's refusal code in `lang` (i18n net.refused.<code>,
    join.refused.<code>; its parameters as data, a missing one as "?"), else the code
    itself (as data)."""
    for key in ("net.refused." + code, "join.refused." + code):
        if key in TUI:
            text = TUI[key].get(lang, TUI[key]["en"])
            return text.format_map(_Gaps({k: plain(v) for k, v in (params or {}).items()}))
    return plain(code)


def _name(x: object) -> str:
    return clip(plain(x), NAME_CELLS)


# ---------------------------------------------------------------------------- opening

def open_lobby(app, host: str, port: int, name: str, unix_path: str | None = None) -> None:
    """The lobby screen, and the connection to the server (its answer fills the list);
    through the host's Unix socket `unix_path` if given (the SSH front door's sessions)."""
    from tactical_tui.net.remote import Session
    from tactical_tui.net.remote import SeatTokens
    session = Session(host, port, name, app.lang, cards=app.loaded_cards,
                      tokens=SeatTokens() if app.autosave else None, unix_path=unix_path)
    app.session = session
    session.on_status = lambda status, retry: _status(app, status, retry)
    session.on_chat = lambda msg: _chat(app, msg)
    session.on_bye = lambda code: _bye(app, code)
    session.on_problem = lambda msg: _rejoin_refused(app, msg)
    session.on_unreadable = lambda table: _unreadable(app)
    session.on_tables = lambda: _lobby_refresh(app)
    session.on_seats = lambda remote, before, after: _seats_changed(app, remote, before, after)
    session.on_paused = lambda table, before, now: _paused(app, table, now)
    session.on_held = lambda table: _held(app, table)
    session.hung_up = lambda: bool(getattr(app, "leaving", False))   # a signal: a drop, not a leave
    app.push_screen(localized(LobbyScreen, app.lang)())
    connect(app)


def connect(app) -> None:
    """Connect (again, from the lobby's `r`): hello, the card data, the table list."""
    app.run_worker(_connect(app), group="join-connect", exclusive=True)


async def _connect(app) -> None:
    session = app.session
    lobby = _lobby(app)
    if lobby is not None:
        lobby.problem = None
        lobby.connecting = True
        lobby.refresh_view()
    problem = None
    from tactical_tui.net.client import Bye
    try:
        await session.start()
    except Bye as exc:                       # turned away: the host is full, …
        problem = t("join.hello_refused", app.lang, why=bye_words(exc.code, app.lang))
    except (OSError, asyncio.TimeoutError) as exc:
        from tactical_tui.text.catalog import os_error_text
        why = os_error_text(exc, app.lang) if isinstance(exc, OSError) else type(exc).__name__
        from tactical_tui.exitline import launcher
        problem = t("join.no_server", app.lang, address=session.address, why=why,
                    launcher=plain(launcher()))
    except Exception as exc:  # noqa: BLE001 - a refusal, or not our protocol at all
        from tactical_tui.net.client import ConnectionLost, Refusal
        if isinstance(exc, Refusal):
            problem = t("join.hello_refused", app.lang, why=words(exc.code, exc.params, app.lang))
        elif isinstance(exc, ConnectionLost):    # the card data's request: no (good) answer
            problem = words(exc.code, {}, app.lang)
        else:
            problem = t("join.not_tactical", app.lang, address=session.address)
    if problem is None:
        app.use_cards(session.cards)          # the server's card data (net.remote.Session.start)
        await _refresh(app)
        if app.live is None and not app.requesting:
            app.requesting = True            # (the lobby takes no key meanwhile: `request`)
            try:
                if await _back_to_seat(app):
                    return
            finally:
                app.requesting = False
    lobby = _lobby(app)
    if lobby is not None:
        lobby.connecting = False
        lobby.problem = problem
        lobby.refresh_view()


async def _back_to_seat(app) -> bool:
    """A seat this player holds at this server (its token kept from a session that
    ended — a terminal that went away): taken back at once, the game goes on."""
    session = app.session
    for table, held in session.saved_seats().items():
        if table in session.tables and not session.tables[table].get("over"):
            if await join_table(app, table, held["seat"], token=held["token"]):
                app.notify(t("join.back_at_seat", app.lang, table=plain(table),
                             seat=t("seat", app.lang, n=held["seat"] + 1)), timeout=8)
                return True
    return False


async def _refresh(app) -> None:
    """The table list again. When the server refuses it, or sends no answer or one this
    version cannot read, the lobby says so (`list_problem`, until a list comes); a
    connection that dropped meanwhile is the banner's to say."""
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
            return
        problem = words(exc.code, {}, app.lang)
    finally:
        session.refreshing = False
    lobby = _lobby(app)
    if lobby is not None and lobby.list_problem != problem:
        lobby.list_problem = problem
        lobby.refresh_view()


def _lobby(app) -> Optional["LobbyScreen"]:
    for scr in reversed(app.screen_stack):
        if isinstance(scr, LobbyScreen):
            return scr
    return None


def _lobby_refresh(app) -> None:
    lobby = _lobby(app)
    if lobby is not None and lobby.is_attached:
        lobby.refresh_view()
    _waiting_refresh(app)


def _waiting_refresh(app, table=None) -> bool:
    """The waiting room on screen (of `table`, if given) drawn anew: True if there is one."""
    for scr in app.screen_stack:
        if isinstance(scr, WaitingScreen) and (table is None or scr.table == table):
            if scr.is_attached:
                scr.refresh_view()
            return True
    return False


def back_to_lobby(app) -> None:
    """A game left (game over, or the player went back): the lobby again."""
    app.reset_to(localized(LobbyScreen, app.lang)())


# ---------------------------------------------------------------------------- requests

def request(app, coro) -> None:
    """Send a join, watch or create request (`coro`), one at a time: while it is on its
    way the lobby's menus take no key or choice (`MenuScreen.leaving`) — `Enter Enter`
    on Create made two tables and sat the player at both in turn, leaving a seat of the
    first one empty. A refusal leaves the menu as it was, taking keys again."""
    if app.requesting:
        coro.close()
        return
    app.requesting = True

    async def run() -> None:
        try:
            await coro
        finally:
            app.requesting = False
    app.run_worker(run(), group="join-request")


def _refused(app, exc) -> None:
    from tactical_tui.net.client import Refusal
    why = words(exc.code, exc.params, app.lang) if isinstance(exc, Refusal) else \
        words(getattr(exc, "code", "connection_lost"), {}, app.lang)
    app.notify(t("join.refused", app.lang, why=why), severity="error", timeout=8)


CODE_REFUSALS = ("bad_code", "too_many_guesses")


def _code_refused(app, table, exc, code, again) -> bool:
    """A join or watch refused for its join code (wrong, or too many wrong ones): the
    code is not kept as the table's, and `again(why)` asks for it anew (True), saying
    why (issue 31 point 2)."""
    from tactical_tui.net.client import Refusal
    if not (code and again is not None and isinstance(exc, Refusal) and exc.code in CODE_REFUSALS):
        return False
    app.session.codes.pop(table, None)
    again(words(exc.code, exc.params, app.lang))
    return True


async def join_table(app, table, seat: Optional[int], code: Optional[str] = None,
                     token: Optional[str] = None, again=None) -> bool:
    """Sit at `seat` of `table` (None: the first open one; with `token`: take our seat
    back): the seat's view comes up with its first update — or, the table waiting for
    its players, the waiting room (`WaitingScreen`) until it starts. The token is kept
    (net.remote.SeatTokens) for a later session. A refused join code is asked again
    (`again(why)`)."""
    from tactical_tui.net.client import ConnectionLost, Refusal
    fields = {"table": table, "seat": seat}
    if code:
        fields["code"] = code
    if token:
        fields["token"] = token
    try:
        answer = await app.session.client.request("join", **fields)
    except (Refusal, ConnectionLost) as exc:
        if token and isinstance(exc, Refusal):
            app.session.unseated(table)
        if not _code_refused(app, table, exc, code, again):
            _refused(app, exc)
        return False
    seat = answer.get("seat")
    table = answer.get("table", table)
    if code and table not in app.session.codes:
        app.session.codes[table] = code          # (it was right)
    if isinstance(seat, int) and isinstance(answer.get("token"), str):
        app.session.seated(table, seat, answer["token"])
    remote = app.session.remote(table, seat)
    if answer.get("waiting") is True and not app.session.held.get(table):
        _wait_at(app, table, seat)
        return True
    app.seat_views(remote, (seat,))
    if answer.get("waiting") is True:    # it started as we sat down (every seat taken)
        _begins(app, remote)
    _paused_already(app, remote)
    return True


def _begins(app, remote) -> None:
    """The game of a table we waited at begins: said, with its rules of play, and kept
    in the seat's log."""
    rules = rules_words(app.session.table_facts(remote.table), app.lang)
    app.notify(t("join.wait.begins", app.lang, rules=rules), timeout=10)
    log_note(app, remote, "* " + t("join.wait.begins", app.lang, rules=rules))


def _wait_at(app, table, seat: Optional[int]) -> None:
    """The waiting room of `table` (its seat, or None: watching) on screen."""
    for scr in app.screen_stack:
        if isinstance(scr, WaitingScreen) and scr.table == table:
            scr.seat = seat
            scr.refresh_view()
            return
    app.push_screen(localized(WaitingScreen, app.lang)(table, seat))


def _held(app, table) -> None:
    """The first update of a table came with no view on it: the table we wait at has
    started — its game comes up in place of the waiting room."""
    room = next((scr for scr in app.screen_stack
                 if isinstance(scr, WaitingScreen) and scr.table == table), None)
    if room is None or app.session is None:
        return
    room.done = True
    remote = app.session.remote(table, room.seat)
    while app.screen_stack and app.screen_stack[-1] is not room and len(app.screen_stack) > 2:
        app.pop_screen()                 # (a dialog over the waiting room)
    if app.screen_stack[-1] is room:
        app.pop_screen()
    app.seat_views(remote, (room.seat,))
    _begins(app, remote)
    _paused_already(app, remote)


def rules_words(facts: dict, lang: str) -> str:
    """A table's rules of play in a line: its turn clock, how long a dropped seat waits
    for its player (the grace), and the level of the AI that plays it then."""
    clock, grace, level = facts.get("clock"), facts.get("grace"), facts.get("takeover")
    secs = lambda v: t("join.create.seconds", lang, n=int(v) if float(v).is_integer() else v)
    return t("join.rules", lang,
             clock=t("join.create.clock_off", lang) if clock is None else secs(clock),
             grace="?" if grace is None else secs(grace),
             takeover=t("level." + level, lang) if "level." + str(level) in TUI else "?")


def _paused_already(app, remote) -> None:
    """The table was paused when we came (its `seats` came before the view): said now."""
    if remote.paused is not None and app.live is remote:
        _paused(app, remote.table, remote.paused)


async def watch_table(app, table, code: Optional[str] = None, again=None) -> bool:
    from tactical_tui.net.client import ConnectionLost, Refusal
    fields = {"table": table}
    if code:
        fields["code"] = code
    try:
        answer = await app.session.client.request("watch", **fields)
    except (Refusal, ConnectionLost) as exc:
        if not _code_refused(app, table, exc, code, again):
            _refused(app, exc)
        return False
    table = answer.get("table", table)
    if code and table not in app.session.codes:
        app.session.codes[table] = code
    if answer.get("waiting") is True and not app.session.held.get(table):
        app.session.remote(table, None)
        _wait_at(app, table, None)
        return True
    remote = app.session.remote(table, None)
    app.seat_views(remote, (None,))
    _paused_already(app, remote)
    return True


async def create_table(app, seats: list, first_game: bool, private: bool,
                       clock: Optional[int], grace: float = 60, takeover: str = "normal") -> bool:
    """Create a table and sit at its first open seat (or watch it: no open seat)."""
    from tactical_tui.net.client import ConnectionLost, Refusal
    try:
        answer = await app.session.client.request(
            "create", seats=seats, first_game=first_game, private=private, clock=clock,
            grace=grace, takeover=takeover)
    except (Refusal, ConnectionLost) as exc:
        _refused(app, exc)
        return False
    table, code = answer.get("table"), answer.get("code")
    if code:
        app.session.codes[table] = code      # (shown in the waiting room and the lobby row too)
        app.notify(t("join.created", app.lang, table=plain(table), code=plain(code)), timeout=10)
    if any(s.get("kind") == "open" for s in seats):
        return await join_table(app, table, None, code)
    return await watch_table(app, table, code)


# ---------------------------------------------------------------------------- connection

def _status(app, status: str, retry_in: Optional[float]) -> None:
    """The client's status: the banner while the connection is down."""
    state = getattr(app, "_net_state", None)
    if status == "reconnecting":
        loop = asyncio.get_running_loop()
        app._net_state = ("reconnecting", loop.time() + (retry_in or 0))
        _ensure_ticker(app)
    elif status == "connected":
        if state is not None and state[0] in ("reconnecting", "lost"):
            app.notify(t("join.back", app.lang), timeout=4)
        app._net_state = None
        app._net_bye = None
    elif status == "closed" and not app.leaving and app.is_running:
        app._net_state = ("closed", getattr(app, "_net_bye", None))
    else:
        return
    update_banner(app)
    _lobby_refresh(app)                  # (its status line says it too: and r tries again)


UNREADABLE_EVERY = 30.0      # seconds: a server that sends many unreadable messages is said once


def _unreadable(app) -> None:
    """A message from the server this version could not read was dropped (an update of
    the table on screen, perhaps): said, at most once every UNREADABLE_EVERY seconds,
    instead of a screen that silently stops following the game."""
    import time
    now = time.monotonic()
    last = getattr(app, "_unreadable_said", None)
    if last is not None and now - last < UNREADABLE_EVERY:
        return
    app._unreadable_said = now
    app.notify(t("join.unreadable", app.lang), severity="warning", timeout=10)


def _rejoin_refused(app, msg: dict) -> None:
    """After a reconnect the server did not give a seat (or a watched table) back — the
    table is gone, the token no longer good: said, and the lobby comes back if that
    table was on screen."""
    app.notify(t("join.rejoin_refused", app.lang, table=plain(msg.get("table")),
                 why=words(str(msg.get("code")), msg.get("params"), app.lang)),
               severity="warning", timeout=10)
    if app.live is not None and getattr(app.live, "table", None) == msg.get("table"):
        app.action_back_to_title()       # (for `tactical join`: the lobby)


def _seats_changed(app, remote, before: list, after: list) -> None:
    """A seat of the table on screen changed hands or status (a player came, dropped,
    an AI took over, the player came back): one line says so on whatever screen is up,
    and the seat's log keeps it (`seat_note`); a spectator's panel shows it at once."""
    if app.live is not remote:
        return
    old = {s.get("seat"): s for s in before}
    for info in after:
        was = old.get(info.get("seat"))
        if was is not None and (was.get("status"), was.get("name")) == (info.get("status"), info.get("name")):
            continue
        if was is None and before:
            continue
        if before:
            seat = t("seat", app.lang, n=info.get("seat", 0) + 1) if isinstance(info.get("seat"), int) else "?"
            app.notify(f"{seat}: {seat_words(info, app.lang, me=info.get('seat') == remote.seat, number=False)}",
                       timeout=6)
            line = seat_note(was, info, app.lang)
            if line:
                log_note(app, remote, line)
    scr = app.viewer_screen()
    if isinstance(scr, SpectatorScreen) and scr.latest is not None:
        scr.update_view()


def _paused(app, table, now: Optional[str]) -> None:
    """The table on screen stopped taking actions (the host cannot save it: `now` is
    `save_failed`) or goes on again (`now` None): said on whatever screen is up, kept in
    the seat's log, and a banner stays over the top line while it lasts."""
    live = app.live
    if live is None or getattr(live, "table", object()) != table:
        return
    if now is None:
        line = t("net.table.resumed", app.lang)
        app.notify(line, timeout=8)
    else:
        line = t("net.table.paused", app.lang) if now == "save_failed" else \
            t("net.table.paused_other", app.lang, code=clip(plain(now), 16))
        app.notify(line, severity="warning", timeout=20)
    log_note(app, live, line)
    update_banner(app)


def paused_text(app) -> Optional[str]:
    """The banner's words while the table on screen is paused, or None."""
    code = getattr(app.live, "paused", None) if app.live is not None else None
    if not isinstance(code, str):
        return None
    if code == "save_failed":
        return t("join.paused", app.lang)
    return t("join.paused_other", app.lang, code=clip(plain(code), 16))


def seat_note(was: dict, now: dict, lang: str) -> Optional[str]:
    """The log's line for a seat's change of status — sat down, lost the connection,
    played by the takeover AI, back — or None."""
    status, before = now.get("status"), was.get("status")
    if isinstance(now.get("seat"), int) and now.get("kind") == "open" and was.get("kind") == "human":
        return t("net.seat.gave_up", lang, seat=t("seat", lang, n=now["seat"] + 1),
                 who=_name(was.get("name") or "?"))
    if not isinstance(now.get("seat"), int) or now.get("kind") != "human":
        return None
    kw = {"seat": t("seat", lang, n=now["seat"] + 1), "who": _name(now.get("name") or "?")}
    if now.get("left") and not was.get("left") and status in ("disconnected", "ai_takeover"):
        # on purpose (or after the game's end): not a lost connection (issue 31 point 3)
        return t("net.seat.left" if status == "ai_takeover" else "net.seat.left_over", lang, **kw)
    if status == "disconnected" and before != "disconnected":
        return t("net.seat.dropped", lang, **kw)
    if status == "ai_takeover" and before != "ai_takeover":
        return t("net.seat.takeover", lang, **kw)
    if status == "connected" and before in ("disconnected", "ai_takeover"):
        return t("net.seat.back", lang, **kw)
    if status == "connected" and before == "open":
        return t("net.seat.sat", lang, **kw)
    return None


JOIN_OPTIONS: list = []         # options the player gave `tactical join` that the way back keeps (cli)


def join_command(session) -> str:
    """`tactical join HOST:PORT --name bob`, as this player connected: started the way
    this one was (exitline.launcher: `python3 run.py join …` through run.py), with the
    options they gave (`--lang ja`: JOIN_OPTIONS, set by the cli) — issue 31 point 7."""
    import shlex
    from tactical_tui.exitline import launcher
    extra = "".join(f" {shlex.quote(str(x))}" for x in JOIN_OPTIONS)
    return f"{launcher()} join {session.address} --name {shlex.quote(session.client.name)}{extra}"


def back_command(app) -> tuple[str, str]:
    """How this player gets back to a seat after leaving: ("ssh", "ssh -p 2222
    bob@host") through the SSH front door (sshdoor.back_command, TACTICAL_SSH_BACK; the
    door remembers the player's language), else ("join", `join_command`)."""
    import os
    via_ssh = os.environ.get("TACTICAL_SSH_BACK")
    if via_ssh:
        return "ssh", plain(via_ssh)
    return "join", plain(join_command(app.session))


def quit_question(app) -> str:
    """The quit dialog at a server's table: what is true of a remote seat — it stays
    the player's, how to come back, the AI plays it meanwhile (after the table's grace);
    nothing is saved here (the host keeps the game)."""
    live = app.live
    if live is None and any(isinstance(scr, WaitingScreen) and scr.seat is not None
                            for scr in app.screen_stack):
        return t("net.quit.waiting", app.lang)
    seat = getattr(live, "seat", None)
    latest = getattr(live, "latest", None)
    if latest is not None and latest.over:
        return t("net.quit.over", app.lang)
    if not isinstance(seat, int):
        from tactical_tui.exitline import tx
        return tx("ask.plain", app.lang)
    kind, command = back_command(app)
    return t("net.quit.seat", app.lang, seat=t("seat", app.lang, n=seat + 1),
             how=t("net.how." + kind, app.lang), command=command)   # the command on a line of its own


def _bye(app, code: str) -> None:
    app._net_bye = code


def _ensure_ticker(app) -> None:
    if getattr(app, "_net_ticker", None) is None:
        app._net_ticker = app.set_interval(0.5, lambda: update_banner(app))


def banner_text(app) -> Optional[str]:
    state = getattr(app, "_net_state", None)
    if state is None:
        return paused_text(app)
    if state[0] == "reconnecting":
        import math
        left = math.ceil(state[1] - asyncio.get_running_loop().time())
        if getattr(app, "_net_bye", None) == "server_stopping":    # said so: not a drop
            return t("join.host_stopped", app.lang, n=max(0, left))
        return t("join.lost", app.lang, n=left) if left > 0 else t("join.lost_now", app.lang)
    return t("join.closed", app.lang, why=bye_words(state[1], app.lang))


def bye_words(code: Optional[str], lang: str) -> str:
    """Why the server ended the connection: its `bye` code in `lang`; a code this
    version does not know is said as a disconnection with the code (as data, clipped);
    no code: the connection just ended."""
    if not code:
        return t("net.bye.none", lang)
    if "net.bye." + code in TUI:
        return t("net.bye." + code, lang)
    return t("net.bye.unknown", lang, code=clip(plain(code), 12))


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
    if text is None and getattr(app, "_net_ticker", None) is not None:
        app._net_ticker.stop()
        app._net_ticker = None
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


# ---------------------------------------------------------------------------- chat

def _chat(app, msg: dict) -> None:
    """A chat line from the server: in the log strip of the game on screen (and a short
    notification). Its text and name are data (plain)."""
    table = msg.get("table")
    if _waiting_refresh(app, table):
        return
    live = app.live
    if live is None or getattr(live, "table", object()) != table:
        return
    seat = msg.get("seat")
    # every line says whose it is: a seat or a spectator (names alone could pass for one
    # another; the server keeps them unique per table, too)
    mark = t("seat", app.lang, n=seat + 1) if isinstance(seat, int) else t("join.spectator", app.lang)
    who = _name(msg.get("name")) if msg.get("name") else "?"
    line = t("join.chat_line", app.lang, who=who, mark=mark, text=plain(msg.get("text", "")))
    log_note(app, live, line)
    app.notify(line, timeout=6)


def log_note(app, remote, line: str) -> None:
    """`line` (already safe: plain) in the log of the remote seat on screen, kept by its
    RemoteTable so that it stays where it is when the whole log comes again (a
    reconnect, an undo)."""
    entry = ChatEntry(line)
    remote.note(entry)
    feed = app.feeds.get(app.viewer)
    if feed is not None:
        feed.log.append(entry)
    scr = app.viewer_screen()
    if scr is not None and scr.is_attached and getattr(scr, "_ready", False):
        scr.sync_log()


def chat_problem(text: str, lang: str) -> Optional[str]:
    """Why a chat line cannot be sent (control characters, too wide, too many characters
    or combining marks in a row: the server's own check, protocol.chat_problem), or None.
    An empty line is no problem: it is not sent."""
    from tactical_tui.net.protocol import MARKS_MAX
    from tactical_tui.net.protocol import chat_problem as why
    problem = why(text) if text.strip() else None
    if problem == "control":
        return t("join.chat_bad", lang)
    if problem == "marks":
        return t("join.chat_marks", lang, n=MARKS_MAX)
    if problem == "clusters":
        return t("join.chat_clusters", lang, n=CHAT_CELLS)
    if problem == "cells":
        return t("join.chat_long", lang, n=CHAT_CELLS)
    return None


def open_chat(app) -> None:
    """The one-line chat input of the table on screen."""
    live = app.live
    table = getattr(live, "table", None)
    if app.session is None or live is None or table is None:
        return

    def sent(text) -> None:
        if not text:
            app.call_later(app.follow_table)
            return
        fut = app.session.client.send("chat", table=table, text=text)

        def done(f) -> None:
            if not f.cancelled() and f.exception() is not None:
                _refused(app, f.exception())
        fut.add_done_callback(done)
        app.call_later(app.follow_table)
    app.push_screen(localized(LineScreen, app.lang)(t("join.chat_ask", app.lang), check=chat_problem,
                                                    max_length=CHAT_CELLS), sent)


class LineScreen(ModalScreen):
    """One line of input (a chat line, a join code): Enter gives it, Escape cancels
    (None). `check(text, lang)` may say why the line cannot be given (shown; kept)."""

    KEYS = [("escape", "cancel", "key.back", True)]

    def __init__(self, prompt: str, check=None, max_length: int = 0) -> None:
        super().__init__()
        self.prompt = prompt
        self.check = check
        self.max_length = max_length

    def compose(self) -> ComposeResult:
        with Container(classes="dialog"):
            yield Static(as_text(self.prompt), classes="dialog-title")
            yield Input(id="line", max_length=self.max_length)
            yield Static("", id="line-problem")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        key_gate(self.app).reset()       # keys typed before it are not for it
        self.query_one("#line", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        problem = self.check(text, self.app.lang) if (self.check and text) else None
        if problem:
            self.query_one("#line-problem", Static).update(as_text(problem))
            return
        self.dismiss(text or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


# ---------------------------------------------------------------------------- screens

_CHAT_KINDS: dict = {}


def remote_keys(keys: list) -> list:
    """A phase screen's keys for a seat at a server: the chat key (`/`) added; at game
    over the game is the server's (no replay file here) and the way on is the lobby."""
    out = []
    for key in keys:
        action = key[1]
        if action in ("app.save_replay", "app.new_game"):
            continue
        if action == "app.back_to_title":
            key = (key[0], action, "key.lobby", *key[3:])
        if action == "app.help":             # the help says the table's rules of play first
            key = (key[0], "table_help", *key[2:])
        out.append(key)
    return out + [("slash", "chat", "key.chat", True)]


def remote_screen(phase: str, seat: Optional[int]):
    """The screen class of a remote seat's view: the phase screen with the remote keys
    (`remote_keys`), or the spectator's screen."""
    if seat is None:
        return SpectatorScreen
    from tactical_tui.screens.phases import phase_screens
    kind = phase_screens()[phase]
    if kind not in _CHAT_KINDS:
        _CHAT_KINDS[kind] = type(kind.__name__, (kind,), {
            "KEYS": remote_keys(kind.KEYS),
            "action_chat": lambda self: open_chat(self.app),
            "action_table_help": lambda self: table_help(self.app)})
    return _CHAT_KINDS[kind]


def table_help(app) -> None:
    """`?` at a server's table: its rules of play (turn clock, grace, takeover AI: issue
    31 point 5), then the phase's help as in a game of one's own."""
    from tactical_tui.screens.help import help_text
    from tactical_tui.screens.howto import HelpScreen
    live = app.live
    table = getattr(live, "table", None)
    facts = app.session.table_facts(table) if app.session is not None and table is not None else {}
    head = t("join.table", app.lang, table=plain(table), phase="").rstrip() + ": " + \
        rules_words(facts, app.lang)
    code = app.session.codes.get(table) if app.session is not None else None
    if code and facts.get("private", True):
        head += "\n" + t("join.code", app.lang, code=plain(code))     # (private: its code)
    body = head + "\n\n" + help_text(app.lang, app.shown_phase or "title")
    app.push_screen(localized(HelpScreen, app.lang)(t("help.title", app.lang), as_text(body, lines=True)),
                    lambda _: app.call_later(app.follow_table))


def seat_words(info: dict, lang: str, me: bool = False, number: bool = True) -> str:
    """A seat of the lobby: "2 alice (connected)", "3 AI (normal)", "4 open" (without
    the number: "alice (connected)")."""
    n = info.get("seat", 0) + 1 if isinstance(info.get("seat"), int) else "?"
    if not number:
        return seat_words(info, lang, me)[len(str(n)) + 1:]
    status = str(info.get("status"))
    if status == "disconnected" and info.get("left") is True:
        status = "left"                  # on purpose, or after the game's end: not a drop
    state = t("net.status." + status, lang) if "net.status." + status in TUI else plain(status)
    if info.get("kind") == "ai":
        level = str(info.get("level"))
        lv = t("level." + level, lang) if "level." + level in TUI else plain(level)
        return f"{n} {t('join.ai_level', lang, level=lv)}"
    if info.get("kind") == "open" or status == "open":
        return f"{n} {state}"
    who = _name(info.get("name") or "?")
    if me:
        who += f"({t('join.you', lang)})"
    return f"{n} {t('join.seat_who', lang, who=who, state=state)}"


def phase_words(info: dict, lang: str) -> str:
    if info.get("over"):
        return t("join.phase_over", lang)
    phase = str(info.get("phase"))
    from tactical_tui.text.catalog import UI
    return UI["phase." + phase].get(lang, UI["phase." + phase]["en"]) if "phase." + phase in UI \
        else plain(phase)


class LobbyScreen(MenuScreen):
    """The server's tables (module docstring). Enter: a table's seats (or watch); `j`
    the first open seat, `w` watch, `c` create, `r` refresh."""

    KEYS = [("question_mark", "lobby_help", "key.help", True), ("f1", "lobby_help", "", False),
            *BaseScreen.KEYS[2:],
            ("enter", "noop", "key.seats", True),
                              ("j", "join", "key.join", True),
                              ("w", "watch", "key.watch", True),
                              ("c", "create", "key.create", True),
                              ("r", "refresh", "key.refresh", True)]
    WIDTH = 74

    def __init__(self) -> None:
        super().__init__()
        self.problem: Optional[str] = None       # no connection: why
        self.list_problem: Optional[str] = None  # connected, and no table list: why
        self.connecting = False
        self._timer = None

    def compose_body(self) -> ComposeResult:
        yield Static("", id="lobby-status")
        yield QuestionList(id="tables", submits=False)

    mounted = False

    def on_mount(self) -> None:
        self.mounted = True
        self.refresh_view()
        self._timer = self.set_interval(REFRESH, self._poll)
        self._poll(now=True)             # (back from a game: the list as it is now)
        update_banner(self.app)

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        update_banner(self.app)

    def _poll(self, now: bool = False) -> None:
        session = self.app.session
        if session is not None and session.client.connected and (now or self.app.screen is self) \
                and not getattr(session, "refreshing", False):   # (one list at a time)
            self.app.run_worker(_refresh(self.app), group="join-refresh", exclusive=True)

    def tables(self) -> list:
        """The server's tables in its order, the finished ones ("over") last: the first
        row is a table to play at (`j` sits at the highlighted one)."""
        session = self.app.session
        tables = list(session.tables.values()) if session is not None else []
        # the tables waiting for players first (issue 31), the finished ones last
        return sorted(tables, key=lambda info: (bool(info.get("over")), info.get("waiting") is not True))

    def row(self, info: dict) -> Text:
        session = self.app.session
        if info.get("waiting") is True and not info.get("over"):
            free = sum(1 for s in info.get("seats", []) if s.get("kind") == "open")
            phase = t("join.waiting_mark", self.lang, n=free)
        else:
            phase = phase_words(info, self.lang)
        head = t("join.table", self.lang, table=plain(info.get("table")), phase=phase)
        if info.get("private"):
            head += "  " + t("join.private", self.lang)
        if info.get("paused"):
            head += "  " + t("join.paused_mark", self.lang)
        code = (info.get("code") or session.codes.get(info.get("table"))) if session is not None else None
        if code:
            head += "  " + t("join.code", self.lang, code=plain(code))
        mine = session.saved_seats().get(info.get("table"), {}).get("seat") if session else None
        lines = [clip(head, self.WIDTH)]
        if "grace" in info and not info.get("over"):
            lines.append("  " + clip(rules_words(info, self.lang), self.WIDTH - 2))
        row = ""
        for s in info.get("seats", []):      # whole seats to a line
            words = clip(seat_words(s, self.lang, me=s.get("seat") == mine), self.WIDTH - 2)
            if row and cell_len(row) + 3 + cell_len(words) > self.WIDTH - 2:
                lines.append("  " + row)
                row = ""
            row = f"{row}   {words}" if row else words
        if row:
            lines.append("  " + row)
        return lines_text(lines)

    def refresh_view(self) -> None:
        if not self.mounted or not self.is_attached or not self.query("#topbar"):
            return                       # it draws itself once mounted (and not once gone)
        session = self.app.session
        name = plain(session.client.name) if session is not None else "?"
        address = plain(session.address) if session is not None else "?"
        self.query_one("#topbar", Static).update(as_text(clip(
            t("join.topbar", self.lang, name=name, address=address), 78), style="bold"))
        tables = self.tables()
        if self.problem:
            status = self.problem + "\n" + t("join.retry", self.lang)
        elif self.connecting:
            status = t("join.connecting", self.lang, address=address)
        elif session is not None and session.client.status == "closed":
            status = bye_words(session.client.bye, self.lang) + "\n" + t("join.retry", self.lang)
        elif self.list_problem:
            status = self.list_problem + "\n" + t("join.retry", self.lang)
        elif not tables:
            status = t("join.no_tables", self.lang)
        else:
            status = t("join.tables", self.lang, n=len(tables))
        self.query_one("#lobby-status", Static).update(
            lines_text(break_lines(status, 76)))
        ol = self.query_one("#tables", QuestionList)
        ol.show("tables", [Option(self.row(info), id=str(i)) for i, info in enumerate(tables)])
        ol.focus()

    def selected(self) -> Optional[dict]:
        ol = self.query_one("#tables", OptionList)
        tables = self.tables()
        if ol.highlighted is None or ol.highlighted >= len(tables):
            return None
        return tables[ol.highlighted]

    def action_noop(self) -> None:
        pass

    def action_lobby_help(self) -> None:
        """The lobby's keys, what happens to a dropped seat, the chat; then the quick
        reference of the rules."""
        from tactical_tui.screens.help import QUICK
        from tactical_tui.screens.howto import HelpScreen
        lang = self.lang if self.lang in QUICK else "en"
        self.app.push_screen(localized(HelpScreen, self.lang)(
            t("help.title", self.lang), as_text(t("join.help", self.lang) + "\n\n" + QUICK[lang],
                                                lines=True)))

    def usable(self) -> bool:
        session = self.app.session
        return session is not None and session.client.connected

    def chosen(self, choice: str) -> None:
        tables = self.tables()
        i = int(choice)
        if not self.usable() or i >= len(tables):
            return
        info = tables[i]
        open_seats = [s["seat"] for s in info.get("seats", [])
                      if s.get("kind") == "open" and s.get("status") == "open"]
        held = self.app.session.saved_seats().get(info.get("table"))
        if held is not None:                 # ours already: back to it (its token)
            open_seats = []
        labels = [t("join.sit", self.lang, n=s + 1) for s in open_seats] + [t("join.watch", self.lang)]
        if held is not None:
            labels.insert(0, t("join.back_to", self.lang, n=held["seat"] + 1))

        def chosen(k) -> None:
            if k is None:
                return
            if held is not None:
                if k == 0:
                    request(self.app, join_table(self.app, info["table"], held["seat"],
                                                 token=held["token"]))
                else:
                    self._with_code(info, lambda code, again: watch_table(self.app, info["table"], code, again))
                return
            if k < len(open_seats):
                self._with_code(info, lambda code, again: join_table(self.app, info["table"], open_seats[k],
                                                                     code, again=again))
            else:
                self._with_code(info, lambda code, again: watch_table(self.app, info["table"], code, again))
        self.app.push_screen(localized(ChoiceScreen, self.lang)(
            t("join.choose", self.lang, table=plain(info.get("table"))), labels), chosen)

    def _with_code(self, info: dict, go, why: Optional[str] = None) -> None:
        """`go(code, again)` — asking for the join code first if the table is private
        and its code is not known here. A code the server refuses is not kept as the
        table's: it is asked for again, saying why (`again`; issue 31 point 2)."""
        session = self.app.session
        table = info.get("table")
        code = info.get("code") or session.codes.get(table)
        app = self.app

        def again(why: str) -> None:
            if self.is_attached:
                self._with_code({**info, "code": None}, go, why)
        if (not info.get("private") or code) and why is None:
            request(app, go(code, again))
            return

        def given(code) -> None:
            if code:
                request(app, go(code.upper(), again))
        prompt = t("join.code_again", self.lang, why=why, table=plain(table)) if why else \
            t("join.code_ask", self.lang, table=plain(table))
        app.push_screen(localized(LineScreen, self.lang)(prompt, max_length=32), given)

    def action_join(self) -> None:
        info = self.selected()
        if info is None or not self.usable():
            return
        if not any(s.get("kind") == "open" and s.get("status") == "open" for s in info.get("seats", [])):
            self.app.notify(t("join.no_open", self.lang))
            return
        self._with_code(info, lambda code, again: join_table(self.app, info["table"], None, code,
                                                             again=again))

    def action_watch(self) -> None:
        info = self.selected()
        if info is None or not self.usable():
            return
        self._with_code(info, lambda code, again: watch_table(self.app, info["table"], code, again))

    def action_create(self) -> None:
        if self.usable():
            self.app.push_screen(localized(CreateScreen, self.lang)())

    def action_refresh(self) -> None:
        session = self.app.session
        if session is None:
            return
        if session.client.status in ("new", "closed") or self.problem:
            connect(self.app)
        elif session.client.connected:
            self.app.run_worker(_refresh(self.app), group="join-refresh", exclusive=True)


class CreateScreen(MenuScreen):
    """A new table on the server: seats (3–5, each open or an AI level), first game,
    private (a join code), turn clock, how long a dropped seat waits for its player and
    the level of the AI that plays it then. Enter on the last row creates it and sits the
    player at its first open seat."""

    KEYS = BaseScreen.KEYS + [("left", "change(-1)", "key.change", True, True),
                              ("right", "change(1)", "", False, True),
                              ("escape", "back", "key.back", True)]
    KINDS = ("open",) + LEVELS

    def __init__(self) -> None:
        super().__init__()
        self.players = 4
        self.seats = ["open", "open", "normal", "normal", "normal"]
        self.first_game = True
        self.private = False
        self.clock: Optional[int] = None
        self.grace = 60
        self.takeover = "normal"

    def compose_body(self) -> ComposeResult:
        yield Static("", id="setup-title")
        yield QuestionList(id="form", submits=False)

    def on_mount(self) -> None:
        self.refresh_view()

    def rows(self) -> list:
        onoff = lambda b: self.tr("setup.on") if b else self.tr("setup.off")
        kind = lambda k: self.tr("join.create.open") if k == "open" else \
            self.tr("setup.ai", level=self.tr("level." + k))
        out = [("players", f"{self.tr('join.create.seats')}: {self.players}")]
        for i in range(self.players):
            out.append((f"seat{i}", f"{self.tr('setup.seat', n=i + 1)}: {kind(self.seats[i])}"))
        out.append(("first", f"{self.tr('setup.first_game')}: {onoff(self.first_game)}"))
        out.append(("private", f"{self.tr('join.create.private')}: {onoff(self.private)}"))
        clock = self.tr("join.create.clock_off") if self.clock is None else \
            self.tr("join.create.seconds", n=self.clock)
        out.append(("clock", f"{self.tr('join.create.clock')}: {clock}"))
        out.append(("grace", f"{self.tr('join.create.grace')}: "
                             f"{self.tr('join.create.seconds', n=self.grace)}"))
        out.append(("takeover", f"{self.tr('join.create.takeover')}: "
                                f"{self.tr('level.' + self.takeover)}"))
        opened = any(s == "open" for s in self.seats[:self.players])
        out.append(("create", self.tr("join.create.go" if opened else "join.create.watch")))
        return out

    def refresh_view(self) -> None:
        self.query_one("#topbar", Static).update(Text("TACTICAL — " + self.tr("key.create"), style="bold"))
        self.query_one("#setup-title", Static).update(self.tr("join.create.title"))
        form = self.query_one("#form", QuestionList)
        form.show("create", [Option(text, id=key) for key, text in self.rows()])
        form.focus()

    def action_change(self, step: int) -> None:
        form = self.query_one("#form", OptionList)
        if form.highlighted is None:
            return
        key = form.get_option_at_index(form.highlighted).id
        if key == "players":
            self.players = min(5, max(3, self.players + step))
        elif key.startswith("seat"):
            i = int(key[4:])
            self.seats[i] = self.KINDS[(self.KINDS.index(self.seats[i]) + step) % len(self.KINDS)]
        elif key == "first":
            self.first_game = not self.first_game
        elif key == "private":
            self.private = not self.private
        elif key == "clock":
            self.clock = CLOCKS[(CLOCKS.index(self.clock) + step) % len(CLOCKS)]
        elif key == "grace":
            self.grace = GRACES[(GRACES.index(self.grace) + step) % len(GRACES)]
        elif key == "takeover":
            self.takeover = LEVELS[(LEVELS.index(self.takeover) + step) % len(LEVELS)]
        else:
            return
        self.refresh_view()

    def action_back(self) -> None:
        self.app.pop_screen()

    def seat_list(self) -> list:
        return [{"kind": "open"} if s == "open" else {"kind": "ai", "level": s}
                for s in self.seats[:self.players]]

    def chosen(self, choice: str) -> None:
        if choice != "create":
            self.action_change(1)
            return
        app = self.app
        seats, first, private, clock = self.seat_list(), self.first_game, self.private, self.clock
        grace, takeover = self.grace, self.takeover

        async def go() -> None:
            if await create_table(app, seats, first, private, clock, grace, takeover):
                return
            if app.screen is self:           # refused: the form stays, the lobby beneath
                return
        request(app, go())


class WaitingScreen(MenuScreen):
    """A table waiting for its players (issue 31): its seats and who sat down, its rules
    of play, its join code (private; to its owner), the chat. Its owner — who created it
    — changes the seats (open or an AI level; a seat a player holds stays theirs) and the
    settings with ←→, and starts it with Enter on Start; it starts by itself once every
    seat is taken. Its game comes up in its place with the table's first update
    (`_held`). Esc leaves the table (a seat is given up: open again)."""

    KEYS = BaseScreen.KEYS + [("left", "change(-1)", "key.change", True, True),
                              ("right", "change(1)", "", False, True),
                              ("slash", "chat", "key.chat", True),
                              ("escape", "leave", "key.lobby", True)]
    KINDS = ("open",) + LEVELS

    def __init__(self, table: str, seat: Optional[int]) -> None:
        super().__init__()
        self.table = table
        self.seat = seat
        self._timer = None

    def leaving(self) -> bool:
        return bool(getattr(self.app, "requesting", False))

    done = False                         # left on purpose, or the game came up in its place
    _placed = False                      # the cursor was put on Start once

    def on_unmount(self) -> None:
        """The app ends with the waiting room up (Ctrl+C, y): the seat is given up, as by
        Esc — unless the app ends on a signal (session.leave: a lost connection)."""
        session = getattr(self.app, "session", None)
        if not self.done and session is not None:
            session.leave(self.table)

    def compose_body(self) -> ComposeResult:
        yield Static("", id="wait-info")
        yield QuestionList(id="form", submits=False)
        yield Static("", id="wait-chat")

    def on_mount(self) -> None:
        self.refresh_view()
        self._timer = self.set_interval(REFRESH, self._poll)
        update_banner(self.app)

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        self.refresh_view()

    def _poll(self) -> None:
        session = self.app.session
        if session is not None and session.client.connected and self.app.screen is self \
                and not session.refreshing:
            self.app.run_worker(self._check(), group="join-refresh", exclusive=True)

    async def _check(self) -> None:
        """The list again: a table no longer listed was retired (nobody started it)."""
        await _refresh(self.app)
        session = self.app.session
        if session is not None and self.is_attached and session.client.connected \
                and self.table not in session.tables:
            self.app.notify(t("join.wait.gone", self.lang, table=plain(self.table)),
                            severity="warning", timeout=10)
            session.unseated(self.table)
            back_to_lobby(self.app)

    # ------------------------------------------------------------ what it shows
    def facts(self) -> dict:
        return self.app.session.table_facts(self.table) if self.app.session else {}

    def seats(self) -> list:
        session = self.app.session
        if session is None:
            return []
        return list(session.seat_lists.get(self.table)
                    or session.tables.get(self.table, {}).get("seats", []))

    def owner(self) -> bool:
        return self.seat is not None and self.facts().get("owner") == self.seat

    def check_action(self, action: str, parameters) -> bool | None:
        """←→ change the seats and settings: only the owner's Footer shows them (the
        others' did, and the keys did nothing)."""
        changing = action == "change" or (action == "ordered_key" and tuple(parameters)[:1]
                                          in (("left",), ("right",)))   # widgets.localized
        if changing and not self.owner():
            return False
        return super().check_action(action, parameters)

    def rows(self) -> list:
        facts, seats = self.facts(), self.seats()
        out = []
        mine = self.owner()
        if mine:
            out.append(("players", f"{self.tr('join.create.seats')}: {len(seats)}"))
        for info in seats:
            n = info.get("seat")
            if info.get("kind") == "human":
                what = seat_words(info, self.lang, me=n == self.seat, number=False)
            elif info.get("kind") == "ai":
                what = self.tr("setup.ai", level=self.tr("level." + str(info.get("level"))))
            else:
                what = self.tr("join.create.open")
            out.append((f"seat{n}", f"{self.tr('setup.seat', n=(n or 0) + 1)}: {what}"))
        if mine:
            onoff = lambda b: self.tr("setup.on") if b else self.tr("setup.off")
            clock = facts.get("clock")
            out.append(("first", f"{self.tr('setup.first_game')}: {onoff(facts.get('first_game'))}"))
            out.append(("private", f"{self.tr('join.create.private')}: {onoff(facts.get('private'))}"))
            out.append(("clock", f"{self.tr('join.create.clock')}: " + (
                self.tr("join.create.clock_off") if clock is None else
                self.tr("join.create.seconds", n=int(clock)))))
            out.append(("grace", f"{self.tr('join.create.grace')}: "
                                 f"{self.tr('join.create.seconds', n=int(facts.get('grace') or 0))}"))
            level = facts.get("takeover") if facts.get("takeover") in LEVELS else "normal"
            out.append(("takeover", f"{self.tr('join.create.takeover')}: {self.tr('level.' + level)}"))
            out.append(("start", self.tr("join.wait.start")))
        return out

    def refresh_view(self) -> None:
        if not self.is_attached or not self.query("#topbar"):
            return
        self.refresh_bindings()          # the owner may have changed: ←→ shown or not
        facts = self.facts()
        session = self.app.session
        code = facts.get("code") or (session.codes.get(self.table) if session else None)
        top = t("join.wait.title", self.lang, table=plain(self.table))
        if code and facts.get("private", True):
            top += "  " + t("join.code", self.lang, code=plain(code))
        self.query_one("#topbar", Static).update(as_text(clip(top, 78), style="bold"))
        lines = [rules_words(facts, self.lang)]
        if code and facts.get("private", True) and self.owner():
            lines.append(t("join.wait.code", self.lang, code=plain(code)))
        if self.owner():
            lines += break_lines(t("join.wait.owner", self.lang), 76)
        else:
            seats = {s.get("seat"): s for s in self.seats()}
            owner = seats.get(facts.get("owner"), {}).get("name")
            lines += break_lines(t("join.wait.guest" if self.seat is not None else "join.wait.watcher",
                                   self.lang, owner=_name(owner) if owner else
                                   t("join.wait.nobody", self.lang)), 76)
        self.query_one("#wait-info", Static).update(lines_text(lines))
        form = self.query_one("#form", QuestionList)
        at = form.highlighted
        rows = self.rows()
        form.show("wait", [Option(as_text(text), id=key) for key, text in rows])
        if not self._placed and rows and rows[-1][0] == "start":
            self._placed = True              # the owner's cursor starts on Start: Enter plays
            form.highlighted = len(rows) - 1
        elif at is not None and at < form.option_count:
            form.highlighted = at
        form.focus()
        chat = [ln for ln in (session.chat if session else []) if ln.get("table") == self.table][-3:]
        self.query_one("#wait-chat", Static).update(lines_text([clip(t(
            "join.chat_line", self.lang, who=_name(m.get("name") or "?"),
            mark=t("seat", self.lang, n=m["seat"] + 1) if isinstance(m.get("seat"), int)
            else t("join.spectator", self.lang), text=plain(m.get("text", ""))), 78) for m in chat]))

    # ------------------------------------------------------------ what its owner changes
    def _seat_specs(self) -> list:
        out = []
        for info in self.seats():
            if info.get("kind") == "ai":
                out.append({"kind": "ai", "level": info.get("level")})
            else:
                out.append({"kind": "open"})
        return out

    def action_change(self, step: int) -> None:
        if not self.owner():
            return
        form = self.query_one("#form", OptionList)
        if form.highlighted is None:
            return
        key = form.get_option_at_index(form.highlighted).id
        facts, specs = self.facts(), self._seat_specs()
        change: dict = {}
        if key == "players":
            n = min(5, max(3, len(specs) + step))
            if n == len(specs):
                return
            change["seats"] = specs[:n] if n < len(specs) else specs + [{"kind": "open"}]
        elif key.startswith("seat"):
            i = int(key[4:])
            info = self.seats()[i]
            if info.get("kind") == "human":
                return                       # a player's seat stays theirs
            now = "open" if info.get("kind") == "open" else str(info.get("level"))
            kind = self.KINDS[(self.KINDS.index(now) + step) % len(self.KINDS)] \
                if now in self.KINDS else "open"
            specs[i] = {"kind": "open"} if kind == "open" else {"kind": "ai", "level": kind}
            change["seats"] = specs
        elif key == "first":
            change["first_game"] = not facts.get("first_game")
        elif key == "private":
            change["private"] = not facts.get("private")
        elif key == "clock":
            clock = facts.get("clock")
            clock = int(clock) if clock is not None else None
            i = CLOCKS.index(clock) if clock in CLOCKS else 0
            change["clock"] = CLOCKS[(i + step) % len(CLOCKS)]
        elif key == "grace":
            grace = int(facts.get("grace") or 60)
            i = GRACES.index(grace) if grace in GRACES else 0
            change["grace"] = GRACES[(i + step) % len(GRACES)]
        elif key == "takeover":
            level = facts.get("takeover") if facts.get("takeover") in LEVELS else "normal"
            change["takeover"] = LEVELS[(LEVELS.index(level) + step) % len(LEVELS)]
        else:
            return
        self._ask("setup", **change)

    def _ask(self, kind: str, **fields) -> None:
        session = self.app.session
        if session is None or not session.client.connected:
            return
        fut = session.client.send(kind, table=self.table, **fields)
        app = self.app

        def done(f) -> None:
            if not f.cancelled() and f.exception() is not None:
                _refused(app, f.exception())
        fut.add_done_callback(done)

    def chosen(self, choice: str) -> None:
        if choice == "start" and self.owner():
            self._ask("start")
        elif self.owner():
            self.action_change(1)

    def action_chat(self) -> None:
        table, app = self.table, self.app
        if app.session is None:
            return

        def sent(text) -> None:
            if text:
                fut = app.session.client.send("chat", table=table, text=text)
                fut.add_done_callback(lambda f: f.cancelled() or f.exception() is None
                                      or _refused(app, f.exception()))
        app.push_screen(localized(LineScreen, app.lang)(t("join.chat_ask", app.lang),
                                                        check=chat_problem,
                                                        max_length=CHAT_CELLS), sent)

    def action_leave(self) -> None:
        """Back to the lobby: the seat is given up (the game has not started)."""
        session = self.app.session
        self.done = True
        if session is not None:
            session.leave(self.table)
            if self.seat is not None:
                session.unseated(self.table)
            session.remotes.pop(self.table, None)
        back_to_lobby(self.app)


from tactical_tui.screens.game import GameScreen  # noqa: E402 - the phase screens' base (rules, card data)


class SpectatorScreen(GameScreen):
    """A watched table: every seat's public facts, whose decision it is, the public log
    (only what the server sends a spectator: no hand, pick, face-down bid or build)."""

    KEYS = [("question_mark", "app.help", "key.help", True),
            ("ctrl+c", "app.request_quit", "", False, True),
            ("ctrl+q", "app.request_quit", "", False, True),
            ("l", "app.show_log", "key.log", True),
            ("slash", "chat", "key.chat", True),
            ("escape", "app.back_to_title", "key.lobby", True)]
    TAKES_HELD_KEYS = False
    DEFAULT_CSS = """
    SpectatorScreen #public {
        padding: 0 1;
    }
    """

    def compose_body(self) -> ComposeResult:
        yield Static("", id="public", classes="panel")

    def action_chat(self) -> None:
        open_chat(self.app)

    def refresh_view(self) -> None:
        obs = self.obs
        live = self.app.live
        table = getattr(live, "table", "?")
        # the status whole, the phase left out first when it does not fit (issue 32 point
        # 8: the watcher's top bar was cut, "… choosing ta…")
        self.set_topbar([t('join.watching', self.lang, table=plain(table)),
                         phase_words({'phase': obs.phase}, self.lang)], self.status(),
                        reserve=self.battle_reserve() if obs.phase == "battle" else 0)
        infos = {s.get("seat"): s for s in getattr(live, "seat_infos", [])}
        lines = []
        for s in obs.seats:
            who = seat_words(infos[s.seat], self.lang) if s.seat in infos else self.seat_name(s.seat)
            bits = [self.cards.guild(s.guild).name.get(self.lang)]
            if obs.phase in ("battle", "over"):
                bits.append(f"HP{s.hp} VP{s.vp}" + (f" @{s.area}" if s.area else ""))
                if s.knocked_out:
                    bits.append(self.tr("battle.out"))
            elif obs.phase == "bidding":
                if s.face_down_bids:
                    bits.append(self.tr("bid.face_down", n=len(s.face_down_bids)))
                if s.passed:
                    bits.append(self.tr("bid.passed"))
            elif obs.phase == "build" and s.confirmed:
                bits.append("✓")
            if s.seat in obs.pending.seats:
                bits.append("←")
            lines.append(t("join.seat_line", self.lang, who=who, what="  ".join(bits)))
        panel = self.query_one("#public", Static)
        panel.border_title = self.tr("bid.seats")
        panel.update(lines_text(lines))
