"""`tactical join`: the chat of the table on screen, and the one-line input.

`LineScreen` is a one-line input dialog (a chat line, a private table's join code).
`open_chat` asks for a chat line at the table on screen and sends it; `show_chat` puts
a chat line from the server in the seat's log strip (and a short notification);
`log_note` keeps a line of the client's own in the remote seat's log.

A chat line's text and its writer's name are data (`safe.plain`), never markup."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Container
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Static

from tactical_tui.net.remote import ChatEntry   # a line of the client's own in a seat's log
from tactical_tui.screens.online.words import CHAT_CELLS, chat_problem, refused, short_name
from tactical_tui.text.i18n import t
from tactical_tui.text.safe import as_text, plain
from tactical_tui.widgets.base import key_gate, localized


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


def show_chat(app, msg: dict) -> None:
    """A chat line from the server: in the log strip of the game on screen (and a short
    notification), if it is that table's. Its text and name are data (plain)."""
    table = msg.get("table")
    live = app.live
    if live is None or getattr(live, "table", object()) != table:
        return
    seat = msg.get("seat")
    # every line says whose it is: a seat or a spectator (names alone could pass for one
    # another; the server keeps them unique per table, too)
    mark = t("seat", app.lang, n=seat + 1) if isinstance(seat, int) else t("join.spectator", app.lang)
    who = short_name(msg.get("name")) if msg.get("name") else "?"
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
    if scr is not None and scr.is_attached and getattr(scr, "ready", False):
        scr.sync_log()


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
                refused(app, f.exception())
        fut.add_done_callback(done)
        app.call_later(app.follow_table)
    app.push_screen(localized(LineScreen, app.lang)(t("join.chat_ask", app.lang), check=chat_problem,
                                                    max_length=CHAT_CELLS), sent)
