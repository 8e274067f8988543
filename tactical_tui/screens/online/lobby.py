"""`tactical join`: the app as a client of a table server (docs/PROTOCOL.md) — the
session and the lobby screen.

`open_lobby` starts the session (net.remote.Session: the connection, its callbacks
wired to the screens) and puts up `LobbyScreen`: the server's tables with their seats
(player, AI level, status — open, connected, disconnected, AI takeover), phase and
privacy; from it a player creates a table (online/create.py), sits at a seat (the
first open one, a chosen one, or a private table's with its code) or watches
(online/requests.py), waits for a table's players (online/waiting.py), and plays or
watches it on the phase screens or the spectator's (online/remote.py). `connect`
(again, `r`) says hello and fetches the card data and the table list; `back_to_lobby`
is the way back from a game; `quit_question` the quit dialog's words at a server's
table, `join_command` the command that comes back.

The modules of `tactical join`, lowest first (each imports only those before it):
words, status, chat, remote, waiting, requests, create, lobby.

Everything from the server that is shown — player names, chat lines, table ids, codes,
refusal parameters — is data: it goes through `safe.plain` / `safe.as_text`, never
through markup."""

from __future__ import annotations

import asyncio
from typing import Optional

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tactical_tui.screens.online.chat import LineScreen, show_chat
from tactical_tui.screens.online.create import CreateScreen
from tactical_tui.screens.online.requests import join_table, request, watch_table
from tactical_tui.screens.menus import MenuScreen
from tactical_tui.screens.online.status import (NetStatus, connection_status, refresh_tables, said_bye,
                                                unreadable, update_banner)
from tactical_tui.screens.online.words import REFRESH, bye_words, phase_words, rules_words, seat_words, words
from tactical_tui.screens.online.remote import rejoin_refused, seats_changed, table_paused
from tactical_tui.screens.online.waiting import WaitingScreen, table_started, waiting_refresh
from tactical_tui.text.i18n import break_lines, clip, t
from tactical_tui.text.safe import as_text, lines_text, plain
from tactical_tui.widgets.base import BaseScreen, ChoiceScreen, QuestionList, localized


# ---------------------------------------------------------------------------- opening

def open_lobby(app, host: str, port: int, name: str, unix_path: str | None = None) -> None:
    """The lobby screen, and the connection to the server (its answer fills the list);
    through the host's Unix socket `unix_path` if given (the SSH front door's sessions)."""
    from tactical_tui.net.remote import Session
    from tactical_tui.net.remote import SeatTokens
    session = Session(host, port, name, app.lang, cards=app.loaded_cards,
                      tokens=SeatTokens() if app.autosave else None, unix_path=unix_path)
    app.session = session
    app.net = NetStatus()                # the connection as the screens show it (the banner)
    session.on_status = lambda status, retry: _status(app, status, retry)
    session.on_chat = lambda msg: _chat(app, msg)
    session.on_bye = lambda code: said_bye(app, code)
    session.on_problem = lambda msg: rejoin_refused(app, msg)
    session.on_unreadable = lambda table: unreadable(app)
    session.on_tables = lambda: _lobby_refresh(app)
    session.on_seats = lambda remote, before, after: seats_changed(app, remote, before, after)
    session.on_paused = lambda table, before, now: table_paused(app, table, now)
    session.on_held = lambda table: table_started(app, table)
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
    """The table list again (status.refresh_tables). When the server refuses it, or
    sends no answer or one this version cannot read, the lobby says so (`list_problem`,
    until a list comes); a connection that dropped meanwhile is the banner's to say."""
    answered, problem = await refresh_tables(app)
    if not answered:
        return
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
    waiting_refresh(app)


def back_to_lobby(app) -> None:
    """A game left (game over, or the player went back): the lobby again."""
    app.reset_to(localized(LobbyScreen, app.lang)())


# ---------------------------------------------------------------------------- connection

def _status(app, status: str, retry_in: Optional[float]) -> None:
    """The client's status: the banner while the connection is down (status)."""
    if connection_status(app, status, retry_in):
        _lobby_refresh(app)              # (its status line says it too: and r tries again)


def _chat(app, msg: dict) -> None:
    """A chat line from the server: in the waiting room of its table, or in the log
    strip of the game on screen (chat.show_chat)."""
    if waiting_refresh(app, msg.get("table")):
        return
    show_chat(app, msg)


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
