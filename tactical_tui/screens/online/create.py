"""`tactical join`: the Create screen (CreateScreen) — a new table on the server: its
seats (open or an AI level), first game, private (a join code), turn clock, how long a
dropped seat waits for its player and the level of the AI that plays it then. The
table is created (screens/online/requests.py) and the player sits at its first open seat."""

from __future__ import annotations

from typing import Optional

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tactical_tui.screens.online.requests import create_table, request
from tactical_tui.screens.menus import MenuScreen
from tactical_tui.screens.online.words import CLOCKS, GRACES, LEVELS
from tactical_tui.widgets.base import BaseScreen, QuestionList


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
