"""The Textual app: title, setup, the phase screens, AI seats in a worker, hotseat."""

from __future__ import annotations

from functools import partial
from typing import Optional

from textual.app import App
from textual.widgets import RichLog

from rules import Config, IllegalAction
from rules import events as E
from rules.cards import CardDataError, CardSet, default_cards

from .i18n import t
from .safe import as_text, lines_text, plain
from .seeds import new_seed
from .screens import (BattleScreen, BidScreen, BuildScreen, DraftScreen, GameOverScreen,
                      SetupScreen, TitleScreen)
from .table import GameTable, LogEntry, SeatSetup
from .text import Describer, default_lang, refusal_text
from .widgets import (ChoiceScreen, ConfirmScreen, HandOverScreen, LogScreen, TextScreen,
                      card_details, localized)
from .help import help_text

PHASE_SCREENS = {"draft": DraftScreen, "bidding": BidScreen, "build": BuildScreen,
                 "reveal": BuildScreen, "battle": BattleScreen, "over": GameOverScreen}
# Events after which the app stops to show what happened (the resolution walk-through).
RESULT_EVENTS = (E.BidsRevealed, E.BuildRevealed)


class TacticalApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "TACTICAL"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, lang: Optional[str] = None, cards: Optional[CardSet] = None,
                 ai_delay: float = 0.6, quick: bool = False, seed: Optional[int] = None,
                 resume: Optional[str] = None, seats: Optional[tuple[str, ...]] = None,
                 autosave: bool = True) -> None:
        super().__init__()
        self._resume = resume            # a save file to open at start ("" = the last game)
        self._seats = seats              # quick start with these seats (human / AI levels)
        self.autosave = autosave
        self.lang = lang or default_lang()
        self.cards = cards or default_cards()
        self.ai_delay = ai_delay
        self.table: Optional[GameTable] = None
        self.viewer = 0
        self.busy = False
        self._phase: Optional[str] = None
        self._quick = quick
        self._seed = seed
        self._results: list[LogEntry] = []   # a bid or build reveal being collected
        self._collecting = False
        self._results_ready = False
        self._waiting_modal = False

    def notify(self, message: str, *, title: str = "", severity="information",
               timeout: Optional[float] = None, markup: bool = False) -> None:
        """Every notification is plain text: its message names paths, card names and
        save contents, so it is never parsed as markup and shows control characters
        as escapes (`safe.plain`)."""
        super().notify(plain(message), title=plain(title), severity=severity,
                       timeout=timeout, markup=False)

    def on_unmount(self) -> None:
        if self.table is not None:
            self.table.close()           # the save's lock: other windows may open it

    # ------------------------------------------------------------------ start-up
    def on_mount(self) -> None:
        self._install_signal_handlers()
        self._watch_terminal()
        if self.autosave:
            from .saves import clean_temp_files
            clean_temp_files()           # left by a TACTICAL that was killed mid-write
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

    EXIT_GRACE = 4.0                     # seconds for a clean shutdown after a signal

    def _signal_exit(self) -> None:
        self.leaving = True
        if self.table is not None:
            self.table.autosave()
            self.table.close()
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
        from .saves import GameLock, SaveError, SaveLocked, list_games, read
        if path:
            file = Path(path)
        else:
            games = [g for g in list_games(self.cards) if g.problem is None]
            if not games:
                self.notify(t("title.no_save", self.lang))
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
        from .saves import list_games
        from .menus import ContinueScreen
        games = list_games(self.cards, include_finished=True)
        if not any(g.phase != "over" for g in games):
            self.notify(t("title.no_save", self.lang))
            return
        self.push_screen(localized(ContinueScreen, self.lang)(games))

    def clean_games(self) -> None:
        """Remove finished games and the oldest unfinished ones (asks first)."""
        from .saves import KEEP_GAMES, clean_old_games, list_games, old_games
        from .menus import ContinueScreen
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
        self.lang = lang
        if isinstance(self.screen, SetupScreen):
            old = self.screen
            new = localized(SetupScreen, lang)()
            new.players, new.seats, new.first_game, new.seed, new.delay = \
                old.players, old.seats, old.first_game, old.seed, old.delay
            self.switch_screen(new)
        elif isinstance(self.screen, TitleScreen):
            self.switch_screen(localized(TitleScreen, lang)())

    def title_choice(self, choice: str) -> None:
        if choice == "quick":
            self.quick_game()
        elif choice == "new":
            self.push_screen(localized(SetupScreen, self.lang)())
        elif choice == "continue":
            self.show_continue()
        elif choice == "rules":
            self.action_help()
        elif choice == "lang":
            self.set_lang("en" if self.lang == "ja" else "ja")
        elif choice == "quit":
            self.exit()

    @property
    def default_seed(self) -> Optional[int]:
        return self._seed

    def quick_game(self) -> None:
        self.start_game(4, ("human", "normal", "normal", "normal"), True, self._seed, self.ai_delay)

    def start_game(self, players: int, seats: tuple[str, ...], first_game: bool,
                   seed: Optional[int], delay: float) -> None:
        seed = seed if seed is not None else new_seed()
        setups = tuple(SeatSetup(human=(s == "human"), level=("normal" if s == "human" else s))
                       for s in seats)
        from .saves import GameLock, new_game_path
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
            from .text import card_error_text
            self.notify(card_error_text(exc, self.lang), severity="error", timeout=15)
            return
        self.ai_delay = delay
        table.autosave()
        self._begin(table)

    def leave_game(self) -> None:
        """The current game is left (its save stays): other windows may open it."""
        if self.table is not None:
            self.table.close()
        self.table = None

    def _begin(self, table: GameTable) -> None:
        if self.table is not None and self.table is not table:
            self.table.close()
        self.table = table
        self.viewer = self.table.humans[0] if self.table.humans else 0
        self._phase = None
        self.busy = False
        self._results, self._collecting, self._results_ready = [], False, False
        self.advance()

    def action_new_game(self) -> None:
        self._phase = None
        self.leave_game()
        self._reset_to(localized(SetupScreen, self.lang)())

    def action_back_to_title(self) -> None:
        self._phase = None
        self.leave_game()
        self._reset_to(localized(TitleScreen, self.lang)())

    def _reset_to(self, screen) -> None:
        while len(self.screen_stack) > 2:
            self.pop_screen()
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    # ------------------------------------------------------------------ the loop
    def _phase_screen(self):
        scr = self.screen
        from .screens import GameScreen
        return scr if isinstance(scr, GameScreen) else None

    def _modal_open(self) -> bool:
        from textual.screen import ModalScreen
        return isinstance(self.screen, (ModalScreen, HandOverScreen))

    def advance(self) -> None:
        """After every change: show results, switch screens by phase, let AI seats act,
        hand over between human seats."""
        table = self.table
        if table is None or self.leaving or not self.is_running or not self.screen_stack \
                or self._modal_open() or self.busy:
            return
        if self._results_ready:
            entries, self._results, self._results_ready = self._results, [], False
            self.show_results(entries)
            return
        phase = table.state.phase
        human = table.human_to_act()
        ai = table.ai_to_act()
        if human is not None and human != self.viewer and len(table.humans) > 1 \
                and (ai is None or phase not in ("draft", "build")):
            self.viewer = human
            self._show_phase(phase, force=True, handover=True)
            return
        self._show_phase(phase)
        if phase == "over":
            return
        if ai is not None and (human is None or phase in ("draft", "build")):
            self._start_ai(ai)
            return
        scr = self._phase_screen()
        if scr is not None:
            scr.update_view()
        if human is not None:
            self._prompt(human)

    def _show_phase(self, phase: str, force: bool = False, handover: bool = False) -> None:
        if phase == self._phase and not force:
            return
        self._phase = phase
        screen = localized(PHASE_SCREENS[phase], self.lang)()
        if self._phase_screen() is not None:
            self.switch_screen(screen)
        else:
            self._reset_to(screen)
        if handover:
            msg = t("handover", self.lang, seat=t("seat", self.lang, n=self.viewer + 1))
            self.push_screen(localized(HandOverScreen, self.lang)(msg),
                             lambda _: self.call_later(self.advance))

    def _prompt(self, seat: int) -> None:
        """Decisions shown as a dialog rather than on the phase screen."""
        kind = self.table.pending().kind
        if kind not in ("auction", "payment", "appraisal"):
            return
        obs = self.table.observe(seat)
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
            else:
                self.call_later(self.advance)
        from rules.actions import Decline            # declining: listed last, never pre-selected
        self.push_screen(localized(ChoiceScreen, self.lang)(
            t("choice." + kind, self.lang), labels, cancel=False,
            give_up=[i for i, a in enumerate(legal) if isinstance(a, Decline)]), chosen)

    def _start_ai(self, seat: int) -> None:
        self.busy = True
        self.run_worker(partial(self._ai_work, seat), thread=True, exclusive=True, group="ai")

    def _ai_work(self, seat: int) -> None:
        table = self.table
        action, reason = table.ai_decide(seat)
        # Hand the result over without waiting for the app (not `call_from_thread`): when
        # the app is already gone (terminal closed, SIGHUP) a waiting worker thread would
        # keep the process alive for ever, the interpreter joining it at exit.
        try:
            self.call_later(self._ai_done, seat, action, reason, table)
        except RuntimeError:                 # the event loop is closed
            pass

    def _ai_done(self, seat: int, action, reason, table=None) -> None:
        if table is not self.table or self.table is None or self.leaving:
            self.busy = False                # a game left while its AI was thinking
            return
        table = self.table
        phase = table.state.phase
        entries = table.submit_ai(seat, action, reason)
        self.busy = False
        self._after(entries)
        delay = self.ai_delay if phase in ("bidding", "battle") else 0
        if delay:
            self.set_timer(delay, self.advance)
        else:
            self.call_later(self.advance)

    def submit(self, action) -> None:
        """A human seat's action."""
        if self.table is None or self.busy:
            return
        try:
            entries = self.table.submit(action)
        except IllegalAction as exc:
            reason = refusal_text(self.table.cards, exc.code, exc.params, self.lang)
            self.notify(t("illegal", self.lang, reason=reason), severity="error")
            return
        self._after(entries)
        self.call_later(self.advance)

    def _check_save(self) -> None:
        problem = self.table.save_problem if self.table else None
        if problem and problem != getattr(self, "_warned", None):
            self._warned = problem
            from .text import os_error_text
            where = f"{self.table.save_path}: {os_error_text(self.table.save_error, self.lang)}"
            self.notify(t("save.warn", self.lang, problem=where), severity="warning", timeout=10)

    def action_undo(self) -> None:
        """Back to your previous decision (games with one human seat)."""
        if self.table is None or self.busy or self._modal_open():
            return
        if not self.table.undo():
            self.notify(t("undo.none", self.lang))
            return
        self._results, self._collecting, self._results_ready = [], False, False
        self.notify(t("undo.done", self.lang))
        self._show_phase(self.table.state.phase, force=True)
        self.call_later(self.advance)

    def action_save_replay(self) -> None:
        """Game over: keep the finished game as a replay file."""
        if self.table is None:
            return
        import time as _time
        from .saves import save_dir, to_json, write_atomic
        path = save_dir() / "replays" / f"{_time.strftime('%Y%m%d-%H%M%S')}-seed{self.table.seed}.json"
        try:
            write_atomic(path, to_json(self.table.save_data()))
        except OSError as exc:
            from .text import os_error_text
            self.notify(t("save.warn", self.lang, problem=f"{path}: {os_error_text(exc, self.lang)}"),
                        severity="warning")
            return
        self.notify(t("replay.saved", self.lang, path=str(path)), timeout=10)

    def _after(self, entries: list[LogEntry]) -> None:
        self._check_save()
        scr = self._phase_screen()
        if scr is not None and scr._ready:
            log = scr.query_one("#log", RichLog)
            for e in entries:
                line = self.log_line(e)
                if line:
                    log.write(as_text(line))
        if self.table.humans and any(isinstance(e.event, RESULT_EVENTS) for e in entries):
            self._collecting = True     # (a game of AI seats only is watched without stops)
        if self._collecting:
            self._results.extend(entries)
            state = self.table.state
            done = state.phase not in ("bidding", "reveal") or \
                (state.phase == "bidding" and self.table.pending().kind == "bid")
            if done:
                self._collecting = False
                self._results_ready = True

    # ------------------------------------------------------------------ log & modals
    def log_line(self, entry: LogEntry) -> Optional[str]:
        from rules.events import visible
        d = Describer(self.cards, self.lang)
        if entry.event is not None:
            if not visible(entry.event, self.viewer):
                return None
            return d.describe(entry.event)
        if entry.reason is not None:
            from ai.explain import reason_text
            return f"  └ {t('seat', self.lang, n=entry.seat + 1)}: {reason_text(entry.reason, self.cards, self.lang)}"
        return None

    def fill_log(self, log: RichLog) -> None:
        if self.table is None:
            return
        for e in self.table.log[-60:]:
            line = self.log_line(e)
            if line:
                log.write(as_text(line))

    def show_results(self, entries: list[LogEntry]) -> None:
        start = next(i for i, e in enumerate(entries) if isinstance(e.event, RESULT_EVENTS))
        d = Describer(self.cards, self.lang)
        lines = []
        for e in entries[start:]:
            if isinstance(e.event, E.PhaseStarted) and e.event.phase == "battle":
                break
            if isinstance(e.event, E.BidsRevealed):
                lines.extend(d.bid_table(e.event))
            else:
                line = self.log_line(e)
                if line:
                    lines.append(line)
        title = t("reveal.title" if any(isinstance(e.event, E.BidsRevealed) for e in entries)
                  else "reveal.builds", self.lang)
        self.push_screen(localized(TextScreen, self.lang)(title, lines_text(lines)),
                         lambda _: self.call_later(self.advance))

    def action_show_log(self) -> None:
        if self.table is None:
            return
        lines = [x for x in (self.log_line(e) for e in self.table.log) if x]
        self.push_screen(localized(LogScreen, self.lang)(t("log.title", self.lang), lines),
                         lambda _: self.call_later(self.advance))

    def action_help(self) -> None:
        scr = self._phase_screen()
        where = self._phase if scr is not None else "title"
        self.push_screen(localized(TextScreen, self.lang)(t("help.title", self.lang),
                                                          help_text(self.lang, where)),
                         lambda _: self.call_later(self.advance))

    def show_text(self, title: str, body: str) -> None:
        self.push_screen(localized(TextScreen, self.lang)(title, as_text(body, lines=True)),
                         lambda _: self.call_later(self.advance))

    def show_card(self, cid: str) -> None:
        title, body = card_details(self.cards, cid, self.lang)
        self.push_screen(localized(TextScreen, self.lang)(title, body),
                         lambda _: self.call_later(self.advance))

    def action_hint(self) -> None:
        if self.table is None or self.busy:
            return
        seat = self.table.human_to_act()
        if seat is None or seat != self.viewer:
            return
        from ai.explain import reason_text
        _, reason = self.table.hint(seat)
        self.notify(t("hint", self.lang, text=reason_text(reason, self.cards, self.lang)))

    def action_auto(self) -> None:
        """Let the normal AI make this one decision for the human seat (shift+H)."""
        if self.table is None or self.busy:
            return
        seat = self.table.human_to_act()
        if seat is None or seat != self.viewer:
            return
        action, _ = self.table.hint(seat)
        self.submit(action)

    def action_request_quit(self) -> None:
        if isinstance(self.screen, ConfirmScreen):
            self.exit()
            return
        self.push_screen(localized(ConfirmScreen, self.lang)(t("quit.ask", self.lang)),
                         lambda yes: self.exit() if yes else self.call_later(self.advance))
