"""`tactical join`: the waiting room of a table waiting for its players (issue 31).

`WaitingScreen` shows the table's seats and who sat down, its rules of play, its join
code, the chat; its owner changes the seats and settings and starts it. `wait_at` puts
it on screen (a join or watch the server answered with `waiting`); `table_started`
puts the table's game in its place when its first update comes (`game_begins` says so).

Everything from the server that is shown — names, chat lines, table ids, codes — is
data: it goes through `safe.plain` / `safe.as_text`, never through markup."""

from __future__ import annotations

from typing import Optional

from textual.app import ComposeResult
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tactical_tui.screens.online.chat import LineScreen, log_note
from tactical_tui.screens.menus import MenuScreen
from tactical_tui.screens.online.status import refresh_tables, update_banner
from tactical_tui.screens.online.words import (CHAT_CELLS, CLOCKS, GRACES, LEVELS, REFRESH, chat_problem,
                                               refused, rules_words, seat_words, short_name)
from tactical_tui.screens.online.remote import paused_already
from tactical_tui.text.i18n import break_lines, clip, t
from tactical_tui.text.safe import as_text, lines_text, plain
from tactical_tui.widgets.base import BaseScreen, QuestionList, localized


class WaitingScreen(MenuScreen):
    """A table waiting for its players (issue 31): its seats and who sat down, its rules
    of play, its join code (private; to its owner), the chat. Its owner — who created it
    — changes the seats (open or an AI level; a seat a player holds stays theirs) and the
    settings with ←→, and starts it with Enter on Start; it starts by itself once every
    seat is taken. Its game comes up in its place with the table's first update
    (`table_started`). Esc leaves the table (a seat is given up: open again)."""

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
        await refresh_tables(self.app)   # (a problem with the list is the lobby's to say)
        session = self.app.session
        if session is not None and self.is_attached and session.client.connected \
                and self.table not in session.tables:
            self.app.notify(t("join.wait.gone", self.lang, table=plain(self.table)),
                            severity="warning", timeout=10)
            session.unseated(self.table)
            self.app.action_back_to_title()   # (for `tactical join`: the lobby; no game to leave)

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
        if not self.is_attached or any(not self.query(part) for part in
                                       ("#topbar", "#wait-info", "#form", "#wait-chat")):
            return                       # (not composed yet: on_mount draws it)
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
                                   self.lang, owner=short_name(owner) if owner else
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
            "join.chat_line", self.lang, who=short_name(m.get("name") or "?"),
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
                refused(app, f.exception())
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
                                      or refused(app, f.exception()))
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
        self.app.action_back_to_title()       # (for `tactical join`: the lobby; no game to leave)


def waiting_refresh(app, table=None) -> bool:
    """The waiting room on screen (of `table`, if given) drawn anew: True if there is one."""
    for scr in app.screen_stack:
        if isinstance(scr, WaitingScreen) and (table is None or scr.table == table):
            if scr.is_attached:
                scr.refresh_view()
            return True
    return False


def wait_at(app, table, seat: Optional[int]) -> None:
    """The waiting room of `table` (its seat, or None: watching) on screen."""
    for scr in app.screen_stack:
        if isinstance(scr, WaitingScreen) and scr.table == table:
            scr.seat = seat
            scr.refresh_view()
            return
    app.push_screen(localized(WaitingScreen, app.lang)(table, seat))


def game_begins(app, remote) -> None:
    """The game of a table we waited at begins: said, with its rules of play, and kept
    in the seat's log."""
    rules = rules_words(app.session.table_facts(remote.table), app.lang)
    app.notify(t("join.wait.begins", app.lang, rules=rules), timeout=10)
    log_note(app, remote, "* " + t("join.wait.begins", app.lang, rules=rules))


def table_started(app, table) -> None:
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
    game_begins(app, remote)
    paused_already(app, remote)
