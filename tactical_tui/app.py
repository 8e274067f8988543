"""The Textual app: a host of views. Title, setup and Continue (tactical_tui.screens.menus); a
game runs in a table (tactical_tui.table.live.LiveTable: AI seats, autosave, undo); each human
seat has a view — the phase screen of its latest update — and hotseat is several seat
views on one terminal, the one whose seat must decide shown after a hand-over screen.
No game logic, AI scheduling or save handling here."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Optional

from textual.app import App

from tactical_tui.text.i18n import TUI, t
from tactical_tui.text.langs import default_lang
from tactical_tui.screens.menus import SetupScreen, TitleScreen
from tactical_tui.text.safe import as_text, lines_text, plain
from tactical_tui.table.seeds import new_seed
from tactical_tui.widgets import widechars
from tactical_tui.widgets.base import (ConfirmScreen, DecisionScreen, HandOverScreen, LogScreen,
                                       TextScreen, card_details, localized)
from tactical_tui.screens.help import help_text
from tactical_tui.screens.phases import phase_screens

# The title screen needs neither the rules, the AI, the card data nor the phase screens:
# they are imported where a game needs them (tests/test_startup.py checks).
if TYPE_CHECKING:
    from rules.cards import CardSet
    from tactical_tui.table.live import GameTable, LiveTable, LogEntry
    from tactical_tui.text.catalog import Describer


def net_refusal(code: str) -> Optional[str]:
    """The catalogue key of a refusal by a table server (`net.refused.<code>`) or by the
    connection to it (`join.refused.<code>`), or None."""
    return next((k for k in ("net.refused." + code, "join.refused." + code) if k in TUI), None)


def result_events() -> tuple:
    """Events after which a view shows what happened (the resolution walk-through)."""
    from rules import events as E
    return (E.BidsRevealed, E.BuildRevealed)


def _row_id(screen, selector: str) -> Optional[str]:
    """The option id under the cursor of a screen's menu, or None."""
    try:
        menu = screen.query_one(selector)
    except Exception:
        return None
    i = menu.highlighted
    return menu.get_option_at_index(i).id if i is not None and i < menu.option_count else None


def escape_and_key(event) -> Optional[tuple]:
    """The two keys a terminal sent as one `alt+X` key, or None.

    Textual's parser (textual/_xterm_parser.py, the legacy keyboard protocol) cannot tell
    Escape followed by a letter or digit in the same read from Alt+that key: it waits
    ESCDELAY (100 ms) after an Escape and, if a character came with it, reports one key
    `alt+X` (`alt+shift+x` for a capital) carrying the character X. So `Esc d` typed
    together, or arriving together over SSH, closed no dialog and lost the `d`. The game
    binds no Alt key: such a key is Escape, then X (the key Textual makes of X alone).
    The Alt key of a terminal speaking the kitty protocol, which sends Escape on its own,
    carries no character and is left alone. (Escape before `?`, Enter, space or Tab, and
    the `Esc 1`..`Esc 0`, `Esc b`, `Esc f` sequences Textual maps to other keys, lose the
    Escape inside the parser: not recoverable here.)"""
    from textual import events
    if not isinstance(event, events.Key) or event.is_forwarded:
        return None
    char = event.character
    if not event.key.startswith("alt+") or char is None or len(char) != 1 or not char.isalnum():
        return None
    return events.Key("escape", "\x1b"), events.Key(char, char)


def _toasts_break_lines_by_the_game() -> None:
    """Textual's Toast shows a notification's message broken by Textual's rules, which
    split Japanese words and drop a wide character that ends a full line; a toast of the
    game shows it as `TacticalApp.toast_lines` breaks it (the notification keeps its
    message as given). Only plain messages (the game never sends markup)."""
    try:
        from textual.content import Content
        from textual.widgets._toast import Toast
    except ImportError:                  # another Textual: its own line breaking
        return
    if getattr(Toast, "_game_lines", False):
        return
    real = Toast.render

    def render(self):
        n = getattr(self, "_notification", None)
        lines = getattr(self.app, "toast_lines", None)
        if n is None or lines is None or n.markup:
            return real(self)
        body = Content(lines(n.message))
        if n.title:
            body = Content.assemble((n.title, self.get_visual_style("toast--title")), "\n", body)
        return body
    Toast.render = render
    Toast._game_lines = True


class TacticalApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "TACTICAL"
    ENABLE_COMMAND_PALETTE = True        # Ctrl+P: the game's commands (commands.py)

    def __init__(self, lang: Optional[str] = None, cards: Optional[CardSet] = None,
                 ai_delay: float = 0.4, quick: bool = False, seed: Optional[int] = None,
                 resume: Optional[str] = None, seats: Optional[tuple[str, ...]] = None,
                 autosave: bool = True, store=None, join=None) -> None:
        super().__init__()
        _toasts_break_lines_by_the_game()
        widechars.apply()                # wide characters whole across widgets' edges (Textual #6357)
        self._join = join                # (host, port, name[, unix socket]): `tactical join`, the lobby first
        self.session = None              # net.remote.Session of `tactical join`
        self.net = None                  # screens.online.status.NetStatus of `tactical join` (its lobby's)
        from tactical_tui.settings import Store
        self.store = store if store is not None else Store()   # settings; kept when from a file
        self._resume = resume            # a save file to open at start ("" = the last game)
        self._seats = seats              # quick start with these seats (human / AI levels)
        self.autosave = autosave
        self.lang = lang or self.store.settings.lang or default_lang()
        self._cards = cards              # None: the shipped card data, loaded when needed
        self.ai_delay = ai_delay
        self.live: Optional[LiveTable] = None   # the game being played
        self.feeds: dict = {}                  # seat -> views.SeatFeed (each human seat)
        self.viewer = 0                        # the seat whose view is on screen
        self.shown_phase: Optional[str] = None
        self._quick = quick
        self._seed = seed
        self._prompted = None                # (seat, asked_at) of the dialog last asked
        self._first_handover = False
        self._sync_queued = False
        self.settings_warned = None          # the settings problem already said (commands.py)

    @property
    def table(self) -> Optional[GameTable]:
        """The game's record (state, history, log) — for the menus and tests; views read
        their updates, not this."""
        return self.live.game if self.live is not None else None

    @property
    def busy(self) -> bool:
        """An AI seat is thinking."""
        return self.live is not None and self.live.thinking is not None

    @property
    def loaded_cards(self) -> Optional[CardSet]:
        """The card data in use if it is loaded (None: not yet)."""
        return self._cards

    def use_cards(self, cards: CardSet) -> None:
        """Play with this card data from now on (a table server's: net.remote.Session)."""
        self._cards = cards

    @property
    def cards(self) -> CardSet:
        """The card data of new games: the shipped set is loaded on first use (a game, the
        Continue list), not before the title screen."""
        if self._cards is None:
            from tactical_tui.table.cardcache import default_cards
            self._cards = default_cards()
        return self._cards

    def notify(self, message: str, *, title: str = "", severity="information",
               timeout: Optional[float] = None, markup: bool = False) -> None:
        """Every notification is plain text: its message names paths, card names and
        save contents, so it is never parsed as markup and shows control characters
        as escapes (`safe.plain`); its toast breaks it into lines by the game's rules
        (`toast_lines`; `_toasts_break_lines_by_the_game`)."""
        super().notify(plain(message), title=plain(title), severity=severity,
                       timeout=timeout, markup=False)

    _hidden_since: Optional[float] = None    # toasts kept off a reading screen since

    def _reading(self) -> bool:
        """A screen the player reads (the log, the help, How to play, the results, a
        card's details): no toast covers it (issue 32: "Since your last decision…" cut
        log lines)."""
        from tactical_tui.widgets.base import LogScreen, TextScreen
        from tactical_tui.screens.howto import HowToScreen
        try:
            return isinstance(self.screen, (LogScreen, TextScreen, HowToScreen))
        except Exception:                # no screen yet
            return False

    def _refresh_notifications(self) -> None:
        """Textual shows the notifications on the screen on top; on a reading screen
        (`_reading`) none is shown, and the time it was up does not count against
        theirs: once it is closed they are shown for the rest of their time."""
        import time as _time
        now = _time.time()
        if self._reading():
            if self._hidden_since is None:
                self._hidden_since = now
            from textual.widgets._toast import Toast, ToastHolder
            for scr in self.screen_stack:   # (a dialog shows the screen beneath, and a
                for toast in scr.query(Toast):   # toast there would time out unread)
                    # with its holder: Textual finds a toast by its holder's id
                    holder = toast.parent
                    (holder if isinstance(holder, ToastHolder) else toast).remove()
            return
        if self._hidden_since is not None:
            since, self._hidden_since = self._hidden_since, None
            kept = getattr(self._notifications, "_notifications", None)   # (unreaped)
            for note in list(kept.values() if isinstance(kept, dict) else self._notifications):
                note.raised_at += now - max(since, note.raised_at)
        super()._refresh_notifications()

    def toast_lines(self, message: str) -> str:
        """`message` broken into lines for a toast as i18n.break_lines breaks them — in
        Japanese no line starts with 、。）, a card name or katakana word is not split
        (Textual broke toasts by its own rules: "…ノッ" / "クアウト", "、…" at a line's
        start) — at the width Textual gives a toast's text: Toast is 60 cells wide, at
        most half the screen, less a border and padding of 4 cells and 1 more (a wide
        character that ends a line of the full width was dropped)."""
        from tactical_tui.text.i18n import break_lines, keep_names
        width = min(60, self.size.width // 2) - 5
        if width < 12:
            return message
        cards = getattr(self.table, "cards", None) or self._cards
        keep = keep_names(cards, self.lang) if cards is not None else ()
        return "\n".join(break_lines(message, width, keep))

    exit_game = None                     # the game open when the app ended (its exit line)
    exit_seat = (None, None)             # `tactical join`: (table, seat) open when it ended

    def on_unmount(self) -> None:
        self.exit_game = self.table
        if self.session is not None:     # `tactical join`: the seat left (cli's exit line)
            self.exit_seat = (getattr(self.live, "table", None), getattr(self.live, "seat", None))
        self.leave_game()                # the AI task stops; the save's lock is released
        if self.session is not None:     # `tactical join`: the connection is closed
            self.session.client.shutdown()

    # ------------------------------------------------------------------ start-up
    _hangup = False                      # a signal came before the app took signals over

    def hangup_before_mount(self) -> None:
        """SIGHUP or SIGTERM while the app starts (cli._Hangup): leave once mounted."""
        self._hangup = True

    def on_mount(self) -> None:
        self._install_signal_handlers()
        if self._hangup:                 # it came before the handlers were ours
            self._signal_exit()
            return
        self._watch_terminal()
        from tactical_tui.commands import apply_theme, localize_palette_key
        apply_theme(self, self.store.settings.theme)
        localize_palette_key(self)
        if self.store.problem is not None:   # a damaged settings file: the defaults, and why
            self.notify(self.store.problem.text(self.lang), severity="warning", timeout=12)
        if self.autosave:
            from tactical_tui.table.savefiles import clean_temp_files
            clean_temp_files()           # left by a TACTICAL that was killed mid-write
        if self._join is not None:
            from tactical_tui.screens.online.lobby import open_lobby
            open_lobby(self, *self._join)
            return
        self.push_screen(localized(TitleScreen, self.lang)())
        if self._resume is not None:
            self.continue_game(self._resume or None)
        elif self._seats:
            self.start_game(len(self._seats), self._seats, True, self._seed, self.ai_delay)
        elif self._quick:
            self.quick_game()

    def _install_signal_handlers(self) -> None:
        """SIGHUP (a dropped SSH connection) and SIGTERM: the game is saved after every
        action already; save once more and leave cleanly."""
        import asyncio
        import signal
        loop = asyncio.get_running_loop()
        for sig in (getattr(signal, "SIGHUP", None), signal.SIGTERM):
            if sig is None:
                continue
            try:
                loop.add_signal_handler(sig, self._signal_exit)
            except (NotImplementedError, RuntimeError, ValueError):
                pass

    def _watch_terminal(self) -> None:
        """A terminal can go away without a SIGHUP (TACTICAL not in its foreground, or
        started without it as controlling terminal): its input then reads as end of
        file for ever. Checked every two seconds; gone is treated as a hang-up."""
        import os
        import sys
        if self.is_headless or sys.__stdin__ is None:
            return
        try:
            fd = sys.__stdin__.fileno()
        except (OSError, ValueError):
            return
        if os.isatty(fd):
            self.set_interval(2.0, lambda: None if os.isatty(fd) else self._signal_exit())

    leaving = False                      # a signal came: nothing more is drawn or thought
    requesting = False                   # a lobby's join, watch or create on its way (lobby)
    _live = None                          # the live log's text.Describer (log_line)

    EXIT_GRACE = 4.0                     # seconds for a clean shutdown after a signal

    def _signal_exit(self) -> None:
        self.leaving = True
        if self.live is not None:
            if self.live.game is not None:
                self.live.game.autosave()
            self.live.close()
        # When the terminal is gone, Textual's shutdown can wait for ever: its output
        # thread dies on the first write to the hung-up terminal (EIO), and the next
        # write — restoring the terminal modes — waits on the full queue of that dead
        # thread (`queue.Queue.put`, the `not_full` lock of drivers/_writer_thread.py).
        # The game is saved and its lock released, so after a grace period the process
        # ends regardless.
        import os
        import threading
        timer = threading.Timer(self.EXIT_GRACE, os._exit, (0,))
        timer.daemon = True
        timer.start()
        self.exit(return_code=0)

    def continue_game(self, path: Optional[str] = None) -> None:
        """Continue the given save file, or the newest unfinished game; a game another
        window has open is refused with a message (its lock, saves.GameLock)."""
        from pathlib import Path
        from tactical_tui.table.saves import GameLock, SaveError, SaveLocked, list_games, read
        from tactical_tui.table.live import GameTable
        if path:
            file = Path(path)
        else:
            games = [g for g in list_games(self.cards) if g.problem is None]
            if not games:
                self.notify(self._nothing_to_continue())
                return
            file = games[0].path
        lock = None
        try:
            if self.autosave:
                try:
                    lock = GameLock.acquire(file)
                except OSError:          # a read-only folder: autosave will warn
                    lock = None
            data = read(file)
            table = GameTable.from_save(data, self.cards, str(file),
                                        save_path=file if self.autosave else None)
        except SaveLocked as exc:
            self.notify(t("save.locked", self.lang, path=str(exc.path), pid=exc.pid or "?"),
                        severity="error", timeout=12)
            return
        except SaveError as exc:
            if lock is not None:
                lock.release()
            self.notify(t("save.bad", self.lang, problem=exc.text(self.lang, self.cards)),
                        severity="error", timeout=12)
            return
        table.lock = lock
        if self.leaving:                     # a signal came while the game was rebuilt
            table.close()
            return
        self._begin(table)

    def show_continue(self) -> None:
        """The Continue list: every unfinished game with its date, seats and phase."""
        from tactical_tui.table.saves import list_games
        from tactical_tui.screens.menus import ContinueScreen
        games = list_games(self.cards, include_finished=True)
        if not any(g.phase != "over" for g in games):
            self.notify(self._nothing_to_continue(games))
            return
        self.push_screen(localized(ContinueScreen, self.lang)(games))

    def _nothing_to_continue(self, games=None) -> str:
        """Why Continue has nothing to open: no saved game at all, or only finished ones
        (it said "no saved game yet" after a finished game: issue 32)."""
        if games is None:
            from tactical_tui.table.saves import list_games
            games = list_games(self.cards, include_finished=True)
        if any(g.phase == "over" for g in games):
            return t("title.all_finished", self.lang)
        return t("title.no_save", self.lang)

    def clean_games(self) -> None:
        """Remove finished games and the oldest unfinished ones (asks first)."""
        from tactical_tui.table.saves import KEEP_GAMES, clean_old_games, list_games, old_games
        from tactical_tui.screens.menus import ContinueScreen
        n = len(old_games(list_games(self.cards, include_finished=True)))
        if not n:
            return

        def done(yes) -> None:
            if not yes:
                return
            removed = clean_old_games(self.cards, KEEP_GAMES)
            self.notify(t("cont.cleaned", self.lang, n=removed))
            if isinstance(self.screen, ContinueScreen):
                self.pop_screen()
            self.show_continue()
        self.push_screen(localized(ConfirmScreen, self.lang)(t("cont.clean_ask", self.lang, n=n)),
                         done)

    def set_lang(self, lang: str) -> None:
        """The app's language; the title, setup and lobby screens are made anew in it
        (the title and setup screens on the row their cursor was on)."""
        self.lang = lang
        from tactical_tui.commands import localize_palette_key
        localize_palette_key(self)
        if isinstance(self.screen, SetupScreen):
            old = self.screen
            new = localized(SetupScreen, lang)()
            new.players, new.seats, new.first_game, new.seed, new.delay = \
                old.players, old.seats, old.first_game, old.seed, old.delay
            new.start_row = _row_id(old, "#form")       # the cursor stays on its row
            self.switch_screen(new)
        elif isinstance(self.screen, TitleScreen):
            new = localized(TitleScreen, lang)()
            new.start_row = _row_id(self.screen, "#menu")
            self.switch_screen(new)
        elif self.session is not None:           # `tactical join`: the lobby, anew
            from tactical_tui.screens.online.lobby import LobbyScreen
            if isinstance(self.screen, LobbyScreen):
                self.switch_screen(localized(LobbyScreen, lang)())

    def title_choice(self, choice: str) -> None:
        if choice == "quick":
            self.quick_game()
        elif choice == "new":
            self.push_screen(localized(SetupScreen, self.lang)())
        elif choice == "continue":
            self.show_continue()
        elif choice == "rules":
            self.action_help()
        elif choice == "howto":
            from tactical_tui.screens.howto import show_howto
            show_howto(self)
        elif choice == "lang":
            from tactical_tui.settings import remember
            self.set_lang("en" if self.lang == "ja" else "ja")
            remember(self, lang=self.lang)
        elif choice == "quit":           # asks first, as Ctrl+C does (issue 32)
            self.action_request_quit()

    @property
    def default_seed(self) -> Optional[int]:
        return self._seed

    def quick_game(self) -> None:
        self.start_game(4, ("human", "normal", "normal", "normal"), True, self._seed, self.ai_delay)

    def start_game(self, players: int, seats: tuple[str, ...], first_game: bool,
                   seed: Optional[int], delay: float) -> None:
        from rules import Config
        from rules.cards import CardDataError
        from tactical_tui.table.live import GameTable, SeatSetup
        seed = seed if seed is not None else new_seed()
        setups = tuple(SeatSetup(human=(s == "human"), level=("normal" if s == "human" else s))
                       for s in seats)
        from tactical_tui.table.saves import GameLock, new_game_path
        path = lock = None
        if self.autosave:               # a file of its own: no unfinished game is replaced
            path = new_game_path()
            try:
                lock = GameLock.acquire(path)
            except OSError:
                pass                    # an unwritable folder: autosave warns, play goes on
        try:
            table = GameTable(Config(players=players, first_game=first_game), setups, seed,
                              self.cards, save_path=path, lang=self.lang, lock=lock)
        except CardDataError as exc:           # card data too small for this game (R31)
            if lock is not None:
                lock.release()
            from tactical_tui.text.catalog import card_error_text
            self.notify(card_error_text(exc, self.lang), severity="error", timeout=15)
            return
        self.ai_delay = delay
        table.autosave()
        self._begin(table)

    def leave_game(self) -> None:
        """The current game is left (its save stays): its AI task stops, other windows
        may open it."""
        if self.live is not None:
            self.live.close()
        self.live = None
        self.feeds = {}

    def _begin(self, game: GameTable) -> None:
        """Seat a view on every human seat of `game` (seat 0 if there is none: a game of
        AI seats is watched from it) and let the table play."""
        from tactical_tui.table.live import LiveTable
        if self.live is not None and self.live.game is not game:
            self.live.close()
        live = LiveTable(game, self.ai_delay, on_error=self._ai_failed)
        self.seat_views(live, game.humans or (0,))

    def seat_views(self, live, seats) -> None:
        """The table source seam: a view on each of `seats` of `live` — a LiveTable in
        this process, or a table on a server (net.remote.RemoteTable: one seat, or None
        for a spectator) — subscribed to its updates; the first seat is on screen."""
        from tactical_tui.table.views import SeatFeed
        if self.live is not None and self.live is not live:
            self.live.close()
        self.live = live
        self.viewer = seats[0]
        self.feeds = {}
        self.shown_phase = None
        self._prompted = None
        self._first_handover = len(seats) > 1   # hotseat: the first seat is handed over too
        for seat in seats:
            self.feeds[seat] = SeatFeed(seat)
            live.subscribe(seat, callback=partial(self._on_update, live, seat))
            if seat is not None and hasattr(live, "unseen"):   # a continued game: the recap
                self.feeds[seat].since = live.unseen(seat)      # tells what came before
        live.start()
        self.follow_table()

    def action_new_game(self) -> None:
        self.shown_phase = None
        self.leave_game()
        if self.session is not None:     # `tactical join`: back to the server's lobby
            from tactical_tui.screens.online.lobby import back_to_lobby
            back_to_lobby(self)
            return
        self.reset_to(localized(SetupScreen, self.lang)())

    def action_back_to_title(self) -> None:
        self.shown_phase = None
        self.leave_game()
        if self.session is not None:
            from tactical_tui.screens.online.lobby import back_to_lobby
            back_to_lobby(self)
            return
        title = localized(TitleScreen, self.lang)()
        from tactical_tui.screens.menus import ContinueScreen
        if isinstance(self.screen, (SetupScreen, ContinueScreen)):   # back on the row that opened it
            title.start_row = "new" if isinstance(self.screen, SetupScreen) else "continue"
        self.reset_to(title)

    def reset_to(self, screen) -> None:
        while len(self.screen_stack) > 2:
            self.pop_screen()
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    # ------------------------------------------------------------------ the views
    def phase_screen(self):
        scr = self.screen
        from tactical_tui.screens.game import GameScreen
        return scr if isinstance(scr, GameScreen) else None

    def viewer_screen(self):
        """The phase screen of the viewer's seat in the stack (beneath any dialog)."""
        from tactical_tui.screens.game import GameScreen
        for scr in reversed(self.screen_stack):
            if isinstance(scr, GameScreen):
                return scr if scr.seat == self.viewer and scr.seat in self.feeds else None
        return None

    def _modal_open(self) -> bool:
        from textual.screen import ModalScreen
        return isinstance(self.screen, (ModalScreen, HandOverScreen))

    def _ai_failed(self, exc: BaseException) -> None:
        """An AI seat raised (a bug): the app ends with its traceback, as for any other
        error in a handler (the game is saved up to the last action)."""
        def fail() -> None:
            raise exc
        self.call_later(fail)

    def _on_update(self, live: LiveTable, seat: int, update) -> None:
        """An update from the table for one seat's view (on the event loop)."""
        if live is not self.live:
            return
        self.feeds[seat].take(update)
        self.log_book(seat)                  # the log screen's lines, described as they come
        self._collect(seat, update)
        self._check_save()
        if seat == self.viewer:
            self._tell_end_votes(update)
        if not self._sync_queued:
            self._sync_queued = True
            try:
                self.call_later(self.follow_table)
            except RuntimeError:             # the app is gone
                self._sync_queued = False

    def _tell_end_votes(self, update) -> None:
        """Another seat proposes to end the game by agreement (RULINGS R19): said once per
        new proposal, with how to agree — the palette's command."""
        votes = tuple(getattr(update, "end_votes", ()) or ())
        mine = set(self.feeds)
        seen = getattr(self, "_end_votes_seen", ())
        self._end_votes_seen = votes
        new = [s for s in votes if s not in seen and s not in mine]
        if new and not update.over and not mine & set(votes):
            who = ", ".join(t("seat", self.lang, n=s + 1) + self.seat_name_of(s) for s in new)
            self.notify(t("end.proposal", self.lang, who=plain(who)), timeout=15)

    def seat_name_of(self, seat: int) -> str:
        """" (name)" of a seat's player at a server's table, "" in a local game."""
        name = self.seat_names().get(seat)
        return f" ({name})" if name else ""

    def _collect(self, seat: int, update) -> None:
        """A bid or build reveal as `seat`'s view received it, from its first event to
        the end of its resolution: the walk-through dialog shows it to that seat once
        collected — at once to the seat on screen, after the hand-over to each other
        human seat (hotseat: everyone sees the public results, each from its own log). A
        game of AI seats only is watched without stops. The table does not wait for it."""
        humans = self.live.game.humans if self.live.game is not None else self.live.has_humans
        self.feeds[seat].collect(update, result_events(), bool(humans))

    def follow_table(self) -> None:
        """Show what the table is at: the reveal walk-through when one is collected, the
        hand-over when another human seat must decide, the viewer's phase screen
        refreshed from its latest update, a dialog for a decision asked as one, the
        recap of what happened to the seat."""
        self._sync_queued = False
        if self.live is None or self.leaving or not self.is_running or not self.screen_stack:
            return
        self.live.start()                    # (a game begun before the loop ran)
        if self._modal_open():
            self._follow_beneath()
            return
        feed = self.feeds.get(self.viewer)
        if feed is not None and feed.results:
            # the board beneath the results is the table's latest, before they come up:
            # the update that ended a bid round may ask this seat to lead the next (its
            # top bar said "Waiting for Seat 3 · AI: bidding" until the results were
            # closed), the one that ended the reveal is the battle's (the build screen
            # stayed a moment under a battle top bar once the reveal check was closed)
            if feed.latest is not None:
                self.show_update(feed.latest)
            self.show_results(feed.results.pop(0))
            return
        update = self.feeds[self.viewer].latest
        if update is None:                   # a server's table: its first update is coming
            return
        self.drop_hint(unless_same=True)
        asked = [s for s in update.turn.seats if update.seats[s] == "human"]
        if len(self.feeds) > 1 and asked and (asked[0] != self.viewer or self._first_handover):
            self._first_handover = False     # (a new or continued game: whoever is at the
            self._hand_over(asked[0])        # keyboard may not be the first seat)
            return
        self.show_update(update)
        if update.over:
            return
        self._prompt(update)
        recap = self.feeds[self.viewer].take_recap(self.lang, self.seat_names())
        if recap:
            self.notify(recap, timeout=8)

    def _follow_beneath(self) -> None:
        """A dialog is up (a reveal, card details, a choice): the board beneath it still
        follows the table — redrawn in the same phase, else its top bar says where the
        table is; screens change once the dialog is closed."""
        scr = self.viewer_screen()
        update = self.feeds[scr.seat].latest if scr is not None else None
        if update is None:
            return
        if ("over" if update.over else update.observation.phase) == scr.phase:
            scr.show(update)
        else:                                # another phase: its top bar follows
            scr.follow_turn(update)

    def show_update(self, update, fresh: bool = False) -> None:
        """The viewer's phase screen, refreshed with `update` (a new screen when the
        phase or the seat changed)."""
        phase = "over" if update.over else update.observation.phase   # or ended by agreement
        scr = self.phase_screen()
        if not fresh and scr is not None and scr.seat == self.viewer and scr.phase == phase:
            scr.show(update)
            return
        if phase == "over" and self.shown_phase != "over":
            self.clear_notifications()   # (a recap or a hint of the last turn: not over
                                         # the final standings, issue 32)
        self.shown_phase = phase
        if self.session is not None:     # a seat (or a spectator) of a server's table
            from tactical_tui.screens.online.remote import remote_screen
            kind = remote_screen(phase, self.viewer)
        else:
            kind = phase_screens()[phase]
        screen = localized(kind, self.lang)(self.viewer, phase)
        screen.latest = update
        if scr is not None:
            self.switch_screen(screen)
        else:
            self.reset_to(screen)

    def _hand_over(self, seat: int) -> None:
        """Hotseat: the next seat's view, behind a hand-over screen. Nothing of the seat
        before stays: its notifications (hints, recaps) are cleared and its screen (its
        log, highlighted card, details) replaced by a new one for the next seat."""
        self.viewer = seat
        self.clear_notifications()
        self.show_update(self.feeds[seat].latest, fresh=True)
        msg = t("handover", self.lang, seat=t("seat", self.lang, n=seat + 1))
        self.push_screen(localized(HandOverScreen, self.lang)(msg), lambda _: self.follow_table())

    def _prompt(self, update) -> None:
        """Decisions shown as a dialog rather than on the phase screen (once per
        decision: `Update.asked_at`)."""
        seat = self.viewer
        kind = update.turn.kind
        if kind not in ("auction", "payment", "appraisal") or seat not in update.turn.seats \
                or self._prompted == (seat, update.asked_at):
            return
        self._prompted = (seat, update.asked_at)
        obs = update.observation
        legal = list(obs.legal)
        name = lambda c: self.cards.card(c).name.get(self.lang)
        labels = []
        for a in legal:
            if kind == "auction":
                labels.append(t("choice.decline", self.lang) if not hasattr(a, "card") else
                              t("choice.use_auction", self.lang, card=name(a.card),
                                target=name(next(b.target for b in obs.revealed_bids if b.card == a.card))))
            elif kind == "payment":
                labels.append(t("choice.pay", self.lang, card=name(a.card)))
            else:
                labels.append(t("choice.decline", self.lang) if not hasattr(a, "target") else
                              t("choice.appraise", self.lang, target=name(a.target)))

        def chosen(i):
            if i is not None:
                self.submit(legal[i])
            self.call_later(self.follow_table)
        from rules.actions import Decline            # declining: listed last, never pre-selected
        self.push_screen(localized(DecisionScreen, self.lang)(
            t("choice." + kind, self.lang), labels, legal, self._prompted, cancel=False,
            give_up=[i for i, a in enumerate(legal) if isinstance(a, Decline)]), chosen)

    def submit(self, action) -> bool:
        """The viewer's action, sent to the table; a refusal is said in the viewer's
        language. True when the table applied it."""
        if self.live is None:
            return False
        from tactical_tui.table.live import TABLE_REFUSALS
        from tactical_tui.widgets.base import key_gate
        key_gate(self).sent = True           # the answer reaches the table (KeyGate.drawn)
        result = self.live.submit(self.viewer, action)
        self.drop_hint(unless_same=True)     # (a refused answer: the question stands)

        def refused(result) -> None:
            if self.session is not None and net_refusal(result.code):   # a server's own
                from tactical_tui.screens.online.words import words
                reason = words(result.code, result.params, self.lang)
            elif result.code in TABLE_REFUSALS:
                seat = result.params.get("seat")
                reason = t("refused." + result.code, self.lang,
                           seat=t("seat", self.lang, n=seat + 1) if isinstance(seat, int) else "?")
            else:
                from tactical_tui.text.catalog import refusal_text
                reason = refusal_text(self.cards, result.code, result.params, self.lang)
            self.notify(t("illegal", self.lang, reason=reason), severity="error")
        return self._answered(result, refused)

    def _answered(self, result, refused, applied=None) -> bool:
        """What a table said to a submit or an undo: True when applied — or, from a table
        on a server (a future), sent: its answer comes later, without blocking the keys;
        a refusal is said then, and the keys held for the next question are dropped
        (what the screen does at once for a refusal of a table in this process)."""
        import asyncio
        from tactical_tui.table.live import Refused
        if isinstance(result, asyncio.Future):
            def done(fut) -> None:
                answer = fut.result()
                if isinstance(answer, Refused):
                    from tactical_tui.widgets.base import key_gate
                    key_gate(self).reset()
                    refused(answer)
                elif applied is not None:
                    applied()
            result.add_done_callback(done)
            return True
        if isinstance(result, Refused):
            refused(result)
            return False
        if applied is not None:
            applied()
        return True

    def _check_save(self) -> None:
        """The autosave after the last action failed: said on screen (once while the
        same problem lasts; again when it comes back after a save that worked), and
        when saving works again after a failure, that is said too."""
        problem = self.table.save_problem if self.table else None
        warned = getattr(self, "_warned", None)          # (table, problem) last said
        if problem and (self.table, problem) != warned:
            self._warned = (self.table, problem)
            from tactical_tui.text.catalog import os_error_text
            where = f"{self.table.save_path}: {os_error_text(self.table.save_error, self.lang)}"
            self.notify(t("save.warn", self.lang, problem=where), severity="warning", timeout=10)
        elif not problem and warned is not None and warned[0] is self.table:
            self._warned = None
            self.notify(t("save.works", self.lang), timeout=6)

    def action_undo(self) -> bool:
        """Back to your previous decision, if nothing has been revealed since
        (GameTable.undo_refusal); if not, the message says why. True when undone."""
        if self.live is None or self._modal_open():
            return False
        result = self.live.undo(self.viewer)

        def refused(result) -> None:
            params = dict(result.params)
            if isinstance(params.get("seat"), int):
                params["seat"] = t("seat", self.lang, n=params["seat"] + 1)
            key = "undo." + result.code
            if key in TUI:
                self.notify(t(key, self.lang, **params))
            else:                                     # a server's own refusal
                from tactical_tui.screens.online.words import words
                self.notify(words(result.code, result.params, self.lang))

        def applied() -> None:
            self._prompted = None
            self.notify(t("undo.done", self.lang))
            self.call_later(self.follow_table)
        return self._answered(result, refused, applied)

    def action_end_by_agreement(self) -> None:
        """Propose (or agree) to end the game by agreement, after asking: the rules end a
        game only at 5 VP (RULINGS R19), so a table lets its players end one that will
        not end — with no winner. Every human seat must agree: at this terminal (solo,
        hotseat) the one answer counts for all its seats; at a server's table each
        player answers for theirs."""
        live = self.live
        if live is None or not hasattr(live, "agree_end") or not self.feeds \
                or self.viewer is None:          # a spectator has no say
            return
        update = self.feeds[self.viewer].latest
        if update is None or update.over:
            return
        if update.observation.phase != "battle":
            self.notify(t("refused.end_not_now", self.lang))
            return
        seats = tuple(self.feeds)
        others = [s for s, kind in enumerate(update.seats) if kind == "human" and s not in seats]

        def refused(answer) -> None:
            key = next((k for k in ("refused." + answer.code, "net.refused." + answer.code,
                                    "join.refused." + answer.code) if k in TUI), None)
            self.notify(t(key, self.lang) if key else plain(answer.code), severity="warning")

        def applied() -> None:
            if others and not getattr(self.feeds[self.viewer].latest, "over", False):
                self.notify(t("end.proposed", self.lang))
            self.call_later(self.follow_table)

        def done(yes) -> None:
            if yes:
                self._answered(live.agree_end(seats), refused, applied)
        question = t("end.ask_others" if others else "end.ask", self.lang)
        self.ask_holding(question, done)

    def ask_holding(self, question: str, done) -> None:
        """A yes/no question the game waits for: the table in this process applies no
        AI action while it is open (`LiveTable.hold`; issue 32: an AI attacked behind the
        quit question); a table on a server goes on (it is not this player's alone)."""
        live = self.live
        held = live is not None and hasattr(live, "hold")
        if held:
            live.hold()

        def answered(yes) -> None:
            done(yes)
            if held and not self.quitting:   # (quitting: held until the table closes)
                live.release()
        self.push_screen(localized(ConfirmScreen, self.lang)(question), answered)

    def action_save_replay(self) -> None:
        """Game over: keep the finished game as a replay file."""
        if self.table is None:
            return
        import time as _time
        from tactical_tui.table.saves import save_dir, to_json, write_atomic
        path = save_dir() / "replays" / f"{_time.strftime('%Y%m%d-%H%M%S')}-seed{self.table.seed}.json"
        try:
            write_atomic(path, to_json(self.table.save_data()))
        except OSError as exc:
            from tactical_tui.text.catalog import os_error_text
            self.notify(t("save.warn", self.lang, problem=f"{path}: {os_error_text(exc, self.lang)}"),
                        severity="warning")
            return
        self.notify(t("replay.saved", self.lang, path=str(path)), timeout=10)

    # ------------------------------------------------------------------ log & modals
    def seat_names(self) -> dict[int, str]:
        """seat -> its player's name, as the screens and the log show it: the names the
        table shares with every seat (views.shared_names; none in a local game)."""
        from tactical_tui.table.views import shared_names
        return shared_names(self.live)

    def describer(self) -> "Describer":
        """A new text.Describer in the app's language whose seats carry the players'
        names (`seat_names`), as the phase screens name them."""
        from tactical_tui.text.catalog import Describer
        return Describer(self.cards, self.lang, names=self.seat_names)

    def log_line(self, entry: LogEntry, d: Optional[Describer] = None,
                 seat: Optional[int] = None) -> Optional[str]:
        """`entry` as a line of the log of `seat` (the viewer's by default). `d` follows
        the events in order (an attack's targets and chip total explain its damage): one
        for the live log, a new one for each replay of the log."""
        from rules.events import visible
        if d is None:
            d = self._live
            if d is None or d.lang != self.lang or d.cards is not self.cards:
                d = self._live = self.describer()
        if entry.event is not None:
            if not visible(entry.event, self.viewer if seat is None else seat):
                return None
            return d.describe(entry.event)
        if getattr(entry, "chat", None) is not None:    # a chat line (net.remote.ChatEntry)
            return entry.chat
        if entry.reason is not None:
            from ai.explain import reason_text
            return f"  └ {d.seat(entry.seat)}: {reason_text(entry.reason, self.cards, self.lang)}"
        return None

    def show_results(self, entries: list[LogEntry]) -> None:
        from rules import events as E
        start = next(i for i, e in enumerate(entries) if isinstance(e.event, result_events()))
        d = self.describer()
        lines = []
        for e in entries[start:]:
            if isinstance(e.event, E.PhaseStarted) and e.event.phase == "battle":
                break
            if isinstance(e.event, E.BidsRevealed):
                lines.extend(d.bid_table(e.event))
            else:
                line = self.log_line(e, d)
                if line:
                    lines.append(line)
        title = t("reveal.title" if any(isinstance(e.event, E.BidsRevealed) for e in entries)
                  else "reveal.builds", self.lang)
        self.push_screen(localized(TextScreen, self.lang)(title, lines_text(lines)),
                         lambda _: self.call_later(self.follow_table))

    def log_book(self, seat: int):
        """The whole log of `seat`'s view as lines (logview.LogBook), brought up to date:
        only the entries received since the last call are described."""
        feed = self.feeds[seat]
        if feed.book is None:
            from tactical_tui.widgets.logview import LogBook
            feed.book = LogBook()
        return feed.book.catch_up(feed, self, seat)

    def action_show_log(self) -> None:
        if self.live is None:
            return
        book = self.log_book(self.viewer)
        self.push_screen(localized(LogScreen, self.lang)(t("log.title", self.lang), book),
                         lambda _: self.call_later(self.follow_table))

    def action_help(self) -> None:
        scr = self.phase_screen()
        where = self.shown_phase if scr is not None else "title"
        from tactical_tui.screens.howto import HelpScreen            # the help, with `p` to How to play
        self.push_screen(localized(HelpScreen, self.lang)(t("help.title", self.lang),
                                                          help_text(self.lang, where)),
                         lambda _: self.call_later(self.follow_table))

    def show_text(self, title: str, body: str) -> None:
        self.push_screen(localized(TextScreen, self.lang)(title, as_text(body, lines=True)),
                         lambda _: self.call_later(self.follow_table))

    def show_card(self, cid: str) -> None:
        title, body = card_details(self.cards, cid, self.lang)
        self.push_screen(localized(TextScreen, self.lang)(title, body),
                         lambda _: self.call_later(self.follow_table))

    def _viewer_asked(self) -> bool:
        feed = self.feeds.get(self.viewer) if self.live is not None else None
        return feed is not None and feed.asked()

    def action_hint(self) -> None:
        """The normal AI's advice for the viewer's question, as a toast that lasts as long
        as the question: it goes when the seat answers, or is asked something else
        (a hint left up named a card of the hand before — "pick Gilded Tunic" over a
        hand without it)."""
        if not self._viewer_asked():
            return
        from ai.explain import reason_text
        from textual.notifications import Notification, Notify
        _, reason = self.live.hint(self.viewer)
        self.drop_hint()
        latest = self.feeds[self.viewer].latest      # (two copies of a card: which one)
        text = reason_text(reason, self.cards, self.lang,
                           obs=latest.observation if latest is not None else None)
        note = Notification(plain(t("hint", self.lang, text=text)),
                            "", "information", self.NOTIFICATION_TIMEOUT)
        note.markup = False
        self.post_message(Notify(note))
        self._hint = (note, self._hint_question())

    _hint = None

    def _hint_question(self):
        """What a hint was given for: the seat, its question (`Update.asked_at`) and its
        own cards (a build is one question of many steps)."""
        latest = self.feeds[self.viewer].latest if self.viewer in self.feeds else None
        if latest is None:
            return None
        o = latest.observation
        return (self.viewer, latest.asked_at, o.hand, o.equipped, o.materialized, o.race)

    def drop_hint(self, unless_same: bool = False) -> None:
        """Take the hint's toast down (`unless_same`: unless its question still stands)."""
        if self._hint is None:
            return
        note, question = self._hint
        if unless_same and question is not None and question == self._hint_question():
            return
        self._hint = None
        if note in self._notifications:
            self._unnotify(note)

    def action_auto(self) -> bool:
        """Let the normal AI make this one decision for the human seat (shift+H). True
        when the table applied it."""
        if not self._viewer_asked():
            return False
        action, _ = self.live.hint(self.viewer)
        return self.submit(action)

    def action_request_quit(self) -> None:
        """Ask before quitting; the game waits for the answer (`ask_holding`)."""
        if isinstance(self.screen, ConfirmScreen):
            self.exit()
            return
        if self.session is not None:     # `tactical join`: a server's table
            from tactical_tui.screens.online.lobby import quit_question
        else:
            from tactical_tui.exitline import quit_question

        def answered(yes) -> None:
            if yes:
                self.exit()
            else:
                self.call_later(self.follow_table)
        self.ask_holding(quit_question(self), answered)

    def action_skip_ai(self) -> None:
        """Skip the AI pauses up to the player's next decision (the table's `hurry`);
        the log and the "since your last decision" recap say what happened."""
        live = self.live
        if live is None or not hasattr(live, "hurry") or self._viewer_asked() \
                or getattr(live, "hurrying", False):
            return
        live.hurry()
        if live.hurrying:
            self.notify(t("skip.on", self.lang), timeout=2)

    quitting = False    # set by `exit`: the app is closing, keys are no longer taken

    def exit(self, *args, **kwargs) -> None:
        self.quitting = True
        super().exit(*args, **kwargs)

    async def on_event(self, event) -> None:
        """A key from the terminal: an `alt+X` that was Escape and X read together
        (`escape_and_key`) is handled as those two keys, one after the other, exactly as
        if they had come in two reads. Where X then goes is decided as for any key typed
        right after an Escape: on the help, a card's details, the results, the log or the
        quit dialog (which leave the keys to the app) the dialog closes and X acts on what
        is on top now — `Esc d` over the draft shows the card's details, `Esc y` on the quit
        dialog answers no and the `y` does nothing beneath; a `Guarded` screen (How to
        play, a menu) closes and passes X on only by its rules (a question screen's key
        to the question shown now, a cursor key to a menu), else X is dropped: nothing is
        replayed into a screen the player has not seen."""
        from textual import events as _events
        if self.quitting and isinstance(event, _events.Key):
            # typed after the player chose to quit (`Ctrl+C y r c` in the lobby opened
            # the create form while the app was closing: a traceback on the terminal)
            return
        split = escape_and_key(event)
        if split is None:
            await super().on_event(event)
            return
        for key in split:
            await super().on_event(key)

    def action_command_palette(self) -> None:
        from tactical_tui.commands import open_palette
        open_palette(self)
