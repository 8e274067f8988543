"""`tactical join`: the screens of a seat or a spectator at a server's table.

A joined seat is shown by the ordinary phase screens — the app's seat view of a
`net.remote.RemoteTable` (app.seat_views) — with the remote keys (`remote_keys`: `/`
the one-line chat, `?` the table's rules of play first, Esc back to the lobby);
`remote_screen` gives the screen class of a remote seat's view. A watched table is
shown by `SpectatorScreen` (public information only, as the server sends it).

What the server says of the table on screen is said on whatever screen is up and kept
in the seat's log: a seat changed hands or status (`seats_changed`), the table paused
or going on (`table_paused`), a seat not given back after a reconnect
(`rejoin_refused`)."""

from __future__ import annotations

from typing import Optional

from textual.app import ComposeResult
from textual.widgets import Static

from tactical_tui.screens.online.chat import log_note, open_chat
from tactical_tui.screens.game import GameScreen   # the phase screens' base
from tactical_tui.screens.online.status import update_banner
from tactical_tui.screens.online.words import phase_words, rules_words, seat_note, seat_words, words
from tactical_tui.text.i18n import clip, t
from tactical_tui.text.safe import as_text, lines_text, plain
from tactical_tui.widgets.base import localized

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


# ---------------------------------------------------------------------------- the table on screen

def seats_changed(app, remote, before: list, after: list) -> None:
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


def table_paused(app, table, now: Optional[str]) -> None:
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


def paused_already(app, remote) -> None:
    """The table was paused when we came (its `seats` came before the view): said now."""
    if remote.paused is not None and app.live is remote:
        table_paused(app, remote.table, remote.paused)


def rejoin_refused(app, msg: dict) -> None:
    """After a reconnect the server did not give a seat (or a watched table) back — the
    table is gone, the token no longer good: said, and the lobby comes back if that
    table was on screen."""
    app.notify(t("join.rejoin_refused", app.lang, table=plain(msg.get("table")),
                 why=words(str(msg.get("code")), msg.get("params"), app.lang)),
               severity="warning", timeout=10)
    if app.live is not None and getattr(app.live, "table", None) == msg.get("table"):
        app.action_back_to_title()       # (for `tactical join`: the lobby)
