"""The menu screens before a game: title, Continue (the unfinished games) and new-game
setup. They need no rules, AI or card data, so the first screen starts fast."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tactical_tui.text.i18n import pad
from tactical_tui.text.safe import plain
from tactical_tui.widgets.base import BaseScreen, QuestionList


def start_on_row(screen, menu: QuestionList) -> None:
    """A menu screen made anew for another language (App.set_lang) starts on the row it
    was on (`screen.start_row`, an option id), not on the top row; once."""
    row = getattr(screen, "start_row", None)
    if row is None:
        return
    screen.start_row = None
    at = next((i for i in range(menu.option_count) if menu.get_option_at_index(i).id == row), None)
    if at is not None:
        menu.highlighted = at


class MenuList(QuestionList):
    """A menu's list: the cursor stops at the first and the last row (Up on the title's
    first row went round to Quit, and Enter then ended the game: issue 32)."""

    def action_cursor_up(self) -> None:
        at = self.highlighted
        if at is None or any(not self.get_option_at_index(i).disabled for i in range(at)):
            super().action_cursor_up()

    def action_cursor_down(self) -> None:
        at = self.highlighted
        if at is None or any(not self.get_option_at_index(i).disabled
                             for i in range(at + 1, self.option_count)):
            super().action_cursor_down()


class MenuScreen(BaseScreen):
    """A menu before a game. Once a choice on it has started or opened a game (the app
    has a live table), or asked a server for a seat or a new table (`app.requesting`,
    tactical_tui.screens.online.lobby), the menu is on its way out: the table's first update brings the
    game's first screen a moment later. The keys and choices that arrive meanwhile —
    the rest of a burst, `Enter Down Down Enter` — were not typed for this menu, whose
    rows no longer stand: they are dropped (a second game started, or Continue opened
    under the game's first screen, which replaced it as it mounted and crashed the app).
    Ctrl+C still asks to quit (a priority key).

    Before that, the cursor keys typed right after the choice that brought this menu up
    (`Down Enter Down Down` on the title) reach it, in order, once it is shown
    (`TAKES_CURSOR_KEYS`); an Enter typed with them is dropped (`Guarded.on_key`)."""

    TAKES_CURSOR_KEYS = True

    def leaving(self) -> bool:
        return getattr(self.app, "live", None) is not None or getattr(self.app, "requesting", False)

    def on_key(self, event) -> None:
        if self.leaving():
            event.stop()
            event.prevent_default()      # (Guarded.on_key, next in line, never sees it)

    async def apply_key(self, key: str) -> None:
        """Enter chooses the row under the cursor at once, before the next key is looked
        at — not by the list's OptionSelected message, which was handled after the keys
        queued behind it: `Down Down Enter Enter` on the title chose Continue twice and
        `… Down Enter` then How to play, from a title already covered. Once the choice
        has brought another screen up, the keys after it are dropped there (`Guarded`)."""
        ol = self.focused
        if key == "enter" and isinstance(ol, OptionList):
            at = ol.highlighted
            if at is not None and at < ol.option_count and not ol.get_option_at_index(at).disabled:
                self.chosen(ol.get_option_at_index(at).id)
            return
        await super().apply_key(key)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """A row clicked with the mouse."""
        event.stop()
        if not self.leaving() and self.app.screen is self:
            self.chosen(event.option.id)

    def chosen(self, choice: str) -> None:
        raise NotImplementedError


class TitleScreen(MenuScreen):
    KEYS = BaseScreen.KEYS + [("enter", "noop", "key.select", True)]
    ITEMS = ("quick", "new", "continue", "howto", "rules", "lang", "quit")

    def compose_body(self) -> ComposeResult:
        yield Static("", id="title-art")
        yield MenuList(id="menu", submits=False)

    def on_mount(self) -> None:
        self.refresh_view()

    def refresh_view(self) -> None:
        self.query_one("#topbar", Static).update(Text("TACTICAL", style="bold"))
        self.query_one("#title-art", Static).update(Text(
            "\n  T A C T I C A L\n\n  " + self.tr("title.tagline") + "\n", style="bold"))
        menu = self.query_one("#menu", QuestionList)
        menu.show("title", [Option(self.tr("title." + k), id=k) for k in self.ITEMS])
        start_on_row(self, menu)
        menu.focus()

    def action_noop(self) -> None:
        pass

    def chosen(self, choice: str) -> None:
        self.app.title_choice(choice)


class ContinueScreen(MenuScreen):
    """Continue: the unfinished games side by side, newest first, each with its date,
    seats and phase (saves.list_games); a game open in another window is shown but
    cannot be chosen; the last row cleans up old and finished games, on request."""

    KEYS = BaseScreen.KEYS + [("escape", "app.back_to_title", "key.back", True)]

    def __init__(self, games) -> None:
        super().__init__()
        self.games = [g for g in games if g.phase != "over"]
        from tactical_tui.table.saves import old_games
        old = old_games(games)
        self.cleanable = len(old)
        self.finished = sum(1 for g in old if g.problem is None and g.phase == "over")

    def compose_body(self) -> ComposeResult:
        yield Static("", id="setup-title")
        yield MenuList(id="games", submits=False)

    def on_mount(self) -> None:
        self.refresh_view()

    def row(self, g) -> Text:
        import time
        date = time.strftime("%m-%d %H:%M", time.localtime(g.mtime))
        if g.problem is not None:
            return Text(pad(f"{date}  " + self.tr("cont.damaged", name=plain(g.path.name)), 74).rstrip())
        humans = sum(1 for s in g.seats if s.human)
        levels: dict[str, int] = {}
        for s in g.seats:
            if not s.human:
                levels[s.level] = levels.get(s.level, 0) + 1
        who = [self.tr("cont.you") if humans == 1 else self.tr("cont.humans", n=humans)]
        who += [self.tr("level." + lv) + (f"×{k}" if k > 1 else "") for lv, k in levels.items()]
        from tactical_tui.text.catalog import ui
        where = ui("phase." + g.phase, self.lang) if g.phase else "?"
        if g.phase == "battle":
            where = self.tr("cont.round", phase=where, r=g.round)
        sep = "、" if self.lang == "ja" else ", "
        text = self.tr("cont.row", date=date, seats=self.tr("cont.seats", n=len(g.seats),
                                                              who=sep.join(who)), where=where)
        text = pad(text, 74).rstrip()
        if g.holder:                     # on a line of its own: never cut off
            text += "\n" + " " * 13 + self.tr("cont.elsewhere", pid=g.holder)
        return Text(text)

    def refresh_view(self) -> None:
        self.query_one("#topbar", Static).update(Text("TACTICAL — " + self.tr("title.continue"),
                                                      style="bold"))
        self.query_one("#setup-title", Static).update(Text(self.tr("cont.title")))
        ol = self.query_one("#games", QuestionList)
        rows = [Option(self.row(g), id=f"g{i}", disabled=bool(g.holder or g.problem is not None))
                for i, g in enumerate(self.games)]
        if self.cleanable:
            from tactical_tui.table.saves import KEEP_GAMES
            what = []                    # what goes, said by kind (issue 32)
            if self.finished:
                what.append(self.tr("cont.clean.finished", n=self.finished))
            if self.cleanable > self.finished:
                what.append(self.tr("cont.clean.older", n=self.cleanable - self.finished,
                                    keep=KEEP_GAMES))
            rows.append(Option(Text(self.tr("cont.clean", what=self.tr("cont.clean.and").join(what))),
                               id="clean"))
        ol.show("games", rows)          # the cursor on the first game that can be opened
        ol.focus()

    def chosen(self, choice: str) -> None:
        if choice == "clean":
            self.app.clean_games()
            return
        g = self.games[int(choice[1:])]
        self.app.continue_game(str(g.path))


class SetupScreen(MenuScreen):
    """New game: players, each seat human/AI level, first game, language, seed, AI pause."""

    KEYS = BaseScreen.KEYS + [("left", "change(-1)", "key.change", True, True),
                              ("right", "change(1)", "", False, True),
                              ("escape", "app.back_to_title", "key.back", True)]
    LEVELS = ("human", "random", "easy", "normal", "hard")   # by strength (issue 32)

    def __init__(self) -> None:
        super().__init__()
        self.players = 4
        self.seats = ["human", "normal", "normal", "normal", "normal"]
        self.first_game = True
        self.seed = None
        self.delay = 0.4

    def compose_body(self) -> ComposeResult:
        yield Static("", id="setup-title")
        yield MenuList(id="form", submits=False)

    def on_mount(self) -> None:
        if self.seed is None:
            self.seed = self.app.default_seed
        self.delay = self.app.ai_delay
        store = getattr(self.app, "store", None)
        if store is not None:                # the remembered players, seats, first game
            saved = store.settings
            self.players, self.seats, self.first_game = \
                saved.players, list(saved.seats), saved.first_game
        self.refresh_view()

    def remember(self) -> None:
        """Keep this screen's choices as the next new game's defaults (settings.py)."""
        self.app.ai_delay = self.delay
        from tactical_tui.settings import remember
        remember(self.app, players=self.players, seats=list(self.seats),
                 first_game=self.first_game, ai_delay=self.delay)

    def rows(self) -> list[tuple[str, str]]:
        lv = lambda x: self.tr("setup.human") if x == "human" else \
            self.tr("setup.ai", level=self.tr("level." + x))
        out = [("players", f"{self.tr('setup.players')}: {self.players}")]
        for i in range(self.players):
            out.append((f"seat{i}", f"{self.tr('setup.seat', n=i + 1)}: {lv(self.seats[i])}"))
        out.append(("first", f"{self.tr('setup.first_game')}: "
                             f"{self.tr('setup.on') if self.first_game else self.tr('setup.off')}"))
        out.append(("lang", f"{self.tr('setup.lang')}: {'日本語' if self.lang == 'ja' else 'English'}"))
        out.append(("seed", f"{self.tr('setup.seed')}: "
                            f"{self.seed if self.seed is not None else self.tr('setup.random')}"))
        out.append(("delay", f"{self.tr('setup.delay')}: {self.delay:.1f}"))
        out.append(("start", self.tr("setup.start")))
        return out

    def refresh_view(self) -> None:
        self.query_one("#topbar", Static).update(Text("TACTICAL — " + self.tr("title.new"), style="bold"))
        self.query_one("#setup-title", Static).update(self.tr("setup.title"))
        form = self.query_one("#form", QuestionList)
        form.show("setup", [Option(text, id=key) for key, text in self.rows()])   # keeps the row
        start_on_row(self, form)
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
            k = (self.LEVELS.index(self.seats[i]) + step) % len(self.LEVELS)
            self.seats[i] = self.LEVELS[k]
            if not any(s == "human" for s in self.seats[:self.players]):
                self.seats[i] = "human" if step > 0 else self.seats[i]
                if not any(s == "human" for s in self.seats[:self.players]):
                    self.seats[0] = "human"
        elif key == "first":
            self.first_game = not self.first_game
        elif key == "lang":
            self.remember()
            self.app.set_lang("en" if self.lang == "ja" else "ja")
            from tactical_tui.settings import remember
            remember(self.app, lang=self.app.lang)
            return
        elif key == "seed":
            self.seed = None if (self.seed is not None and self.seed + step < 0) else \
                max(0, (self.seed if self.seed is not None else -1) + step)
        elif key == "delay":
            self.delay = round(min(3.0, max(0.0, self.delay + 0.2 * step)), 1)
        self.remember()
        self.refresh_view()

    def chosen(self, choice: str) -> None:
        if choice == "start":
            seats = tuple(self.seats[:self.players])
            self.app.start_game(self.players, seats, self.first_game, self.seed, self.delay)
        else:
            self.action_change(1)
