"""Shared pieces of the screens: localized bindings, the base screen with its "please
enlarge" guard and its ordered key handling, the question list, card lines, and the
modal screens (choice, results, help, log, card, quit, hand-over)."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Hashable, Iterable, Optional

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual._time import get_time
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from tactical_tui.text.i18n import Wrapped, app_keep_names, pad, t
from tactical_tui.text.safe import as_text, plain

if TYPE_CHECKING:                # the menus import this module: no rules at start-up
    from rules.cards import CardSet

MIN_W, MIN_H = 80, 24
_CLASSES: dict = {}


IMMEDIATE = ("app.request_quit",)     # priority keys that act at once, even mid-burst
# keys that only move a menu's cursor or change its highlighted setting: typed ahead, they
# go on to the menu a choice brought up (`Guarded.TAKES_CURSOR_KEYS`)
CURSOR_KEYS = frozenset({"up", "down", "left", "right", "home", "end", "pageup", "pagedown"})


def localized(cls, lang: str):
    """A subclass of `cls` whose BINDINGS carry descriptions in `lang` (the Footer shows
    them). `cls.KEYS` lists (key, action, text key, show[, priority]).

    On a screen with ordered keys (`Guarded`) a priority key other than quit does not act
    when it arrives — Textual runs priority bindings before the keys typed ahead of it
    have reached the focused widget, so `Down Enter` chose the row *above* — but takes
    its turn in the same queue as every other key (`Guarded.action_ordered_key`)."""
    key = (cls, lang)
    if key not in _CLASSES:
        ordered = hasattr(cls, "action_ordered_key")
        bindings = [Binding(k, f"ordered_key({k!r})" if ordered and p and a not in IMMEDIATE else a,
                            t(d, lang) if d else "", show=s, priority=p)
                    for k, a, d, s, p in ((*x, False) if len(x) == 4 else x for x in cls.KEYS)]
        _CLASSES[key] = type(f"{cls.__name__}_{lang}", (cls,), {"BINDINGS": bindings})
    return _CLASSES[key]


# ------------------------------------------------------------------ keys in order

class KeyGate:
    """The keys typed after an answer, held for the next question (one gate per app).

    An answer (a row chosen, a key like `p` or `c`) makes the question on screen stale
    until the table has applied it and the screen is redrawn. The keys typed in between
    — the rest of a burst, keys sent over a slow link — were typed for the next question
    of that seat: they are held and replayed, in order, into it once it is drawn
    (`Enter Down Enter` answers two questions). Keys typed after the screen has shown
    that the seat waits (the waiting view) act on that view at once.

    A key that arrives within `LATE` seconds of the waiting view being drawn still counts
    as typed before it: over SSH the rest of a burst arrives 50–200 ms after it was typed,
    and nobody sees the waiting view and answers it that fast (its picture takes as long
    to travel the other way).

    Held keys are dropped if that next question does not come within `KEEP` seconds of
    the answer (the player has seen a waiting screen since, and never the new rows), if
    it is another seat's (hotseat), if the answer is refused, or if another screen
    (results, help, a hand-over, a menu) comes up first. After `KEEP` seconds without a
    redraw the gate opens by itself: the keyboard is never dead."""

    KEEP = 3.0
    LATE = 0.4

    def __init__(self) -> None:
        self.answered_at: Optional[float] = None     # None: no answer outstanding
        self.seen_at: Optional[float] = None         # the waiting view was drawn
        self.seat: Optional[int] = None
        self.version: object = None                  # the table's version at the answer
        self.sent = False                            # the answer reached the table
        self.keys: list[tuple[str, Optional[str]]] = []
        self.draining = False
        self.drain_since = 0.0

    def close(self, seat: Optional[int], version: object) -> None:
        self.answered_at, self.seen_at = get_time(), None
        self.seat, self.version, self.sent = seat, version, False

    def holds(self, typed_at: float) -> bool:
        """Is a key typed at `typed_at` (and arriving now) held rather than applied?"""
        if self.draining:
            if get_time() - self.drain_since <= self.KEEP:
                return True
            self.reset()                 # the replay never ran (its screen went away)
        if self.answered_at is None:
            return False
        if get_time() - self.answered_at > self.KEEP:
            self.reset()
            return False
        return self.seen_at is None or typed_at <= self.seen_at + self.LATE

    def withdraw(self) -> bool:
        """The choice made was no answer after all (nothing was sent): the question
        stands, and the keys held since are for it (`draining` when there are any).
        True when there was such a choice."""
        if self.answered_at is None or self.sent:
            return False
        self.answered_at = None
        self.draining, self.drain_since = bool(self.keys), get_time()
        return True

    def reset(self) -> None:
        """Forget the answer and every held key."""
        self.answered_at = self.seen_at = None
        self.keys.clear()
        self.draining = False

    def drawn(self, seat: Optional[int], version: object, asked: bool) -> bool:
        """A screen of `seat` is drawn with the table at `version`, asking a question or
        (not `asked`) showing that the seat waits. True when held keys are to be
        replayed into the question now (the gate is then draining)."""
        if self.answered_at is None or self.draining or version == self.version or not self.sent:
            return False                 # nothing held, or the answer not applied yet
            # (not sent: the chosen row's message is still on its way to the table while
            # another seat's action — an AI's pick in the same draft round — redraws it)
        if not asked:
            if self.seen_at is None:
                self.seen_at = get_time()
            return False
        fresh = get_time() - self.answered_at <= self.KEEP
        self.answered_at = self.seen_at = None
        if seat != self.seat or not fresh:
            self.keys.clear()
        self.draining, self.drain_since = bool(self.keys), get_time()
        return self.draining


_GATES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def key_gate(app) -> KeyGate:
    gate = _GATES.get(app)
    if gate is None:
        gate = _GATES[app] = KeyGate()
    return gate


class QuestionList(OptionList):
    """An OptionList that shows one question at a time (`show`).

    `show(question, options)` with the same `question` as before replaces the rows and
    keeps the cursor on the option it was on (by id, else by position); a new `question`
    puts the cursor on the first enabled option that does not give something up (ids in
    `give_up`; none at all if only those are left). `live` says whether the seat is being
    asked this question now: choosing a row of a live list (`submits`) is an answer, and
    the keys typed after it wait for the next question (`KeyGate`)."""

    def __init__(self, *options, submits: bool = True, **kw) -> None:
        super().__init__(*options, **kw)
        self.submits = submits
        self.question: Hashable = None
        self.live = False

    def show(self, question: Hashable, options: list[Option], *, live: bool = True,
             give_up: Iterable[str] = (), selectable: Optional[int] = None) -> None:
        same = question is not None and question == self.question
        keep_id = keep_at = None
        if same and self.highlighted is not None and self.highlighted < self.option_count:
            keep_at = self.highlighted
            keep_id = self.get_option_at_index(keep_at).id
        self.question, self.live = question, live
        self.clear_options()
        self.add_options(options)
        n = len(options) if selectable is None else min(selectable, len(options))
        usable = [i for i in range(n) if not options[i].disabled]
        if same and keep_at is not None:
            at = next((i for i in range(n) if options[i].id == keep_id and keep_id is not None), None)
            if at is None and usable:
                at = min(usable, key=lambda i: (abs(i - keep_at), i))
        else:
            skip = set(give_up)
            at = next((i for i in usable if options[i].id not in skip), None)
        self.highlighted = at

    def action_select(self) -> None:
        i = self.highlighted
        if self.live and self.submits and i is not None and i < self.option_count \
                and not self.get_option_at_index(i).disabled:
            screen = self.screen
            context = getattr(screen, "answer_context", None)
            seat, version = context() if context else (None, None)
            key_gate(self.app).close(seat, version)
            self.live = False
        super().action_select()


def too_small_text(app, w: int, h: int) -> str:
    """What a screen shows while the terminal is below 80×24: the whole sentence where it
    fits with room to spare (the message area is the terminal less a column each side,
    the footer's row and whatever else a screen keeps; and a wide character does not end a
    full line), else the short one, so that the size to reach is always in view."""
    full = t("too_small", app.lang, w=w, h=h)
    width, rows = max(1, w - 3), max(1, h - 3)
    if len(Text(full).wrap(app.console, width)) <= rows:
        return full
    return t("too_small.short", app.lang, w=w, h=h)


class Guarded:
    """Mixin for a screen: shows a "please enlarge" message instead of the body below
    80×24 (no key acts meanwhile, but quit), gives the keyboard focus back when the body
    comes back, and applies keys one at a time in the order typed.

    Ordered keys: every key that reaches the screen (bubbling up from the focused
    widget, or sent to the screen itself) is stopped there and applied at once through
    the screen's bindings — not later by the App — so an answer made by one key is
    known before the next key is looked at: keys typed after an answer are held by the
    app's `KeyGate` and replayed into the next question (`question_shown`)."""

    TAKES_HELD_KEYS = False      # a question screen: held keys are replayed into it
    TAKES_CURSOR_KEYS = False    # a menu: cursor keys typed before it came up reach it
    _focus_before = None

    def compose_guard(self) -> ComposeResult:
        yield Static("", id="too-small")

    def check_size(self) -> None:
        w, h = self.app.size
        small = w < MIN_W or h < MIN_H
        was = self.has_class("small")
        if small and not was:
            self._focus_before = self.focused
        self.set_class(small, "small")
        if small:
            self.query_one("#too-small", Static).update(too_small_text(self.app, w, h))
        elif was:
            self.call_after_refresh(self._restore_focus)

    def _restore_focus(self) -> None:
        """The body is shown again: the widget that had the focus gets it back (hiding
        it took the focus away, and the keyboard was dead until Tab)."""
        if self.has_class("small") or (self.focused is not None and self.focused.is_attached):
            return
        before, self._focus_before = self._focus_before, None
        if before is not None and before.is_attached and before.screen is self:
            before.focus()
        else:
            self.focus_next()

    def on_resize(self, event) -> None:
        self.check_size()

    def on_screen_resume(self) -> None:
        self.check_size()

    def _on_mount(self, event) -> None:
        if not self.TAKES_HELD_KEYS:
            key_gate(self.app).reset()   # a menu or hand-over: no key typed before it counts

    # keys ----------------------------------------------------------------------
    async def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        gate = key_gate(self.app)
        if gate.holds(event.time):
            gate.keys.append((event.key, event.character))
            return
        if self.has_class("small"):
            return                       # "please enlarge": nothing acts
        shown = self.app.screen
        if shown is not self:
            # typed before another screen came up: it goes on to the question shown now,
            # never into a dialog or a hand-over (the next player's Enter); into a menu
            # only if it moves the cursor (`Down Enter Down Down` on the title: New game,
            # then the setup's third row), never an Enter made on rows not seen yet.
            # (Textual queued it for this screen's list before the choice was handled.)
            # A key not passed on (an Escape, an Enter) cuts the chain: the cursor keys
            # after it were typed for something else (`Down Enter Escape Left` on the
            # title left the setup open with 3 players: the Escape that meant "back" was
            # dropped and the Left changed a setting).
            if (self.TAKES_HELD_KEYS and getattr(shown, "TAKES_HELD_KEYS", False)) or \
                    (event.key in CURSOR_KEYS and getattr(shown, "TAKES_CURSOR_KEYS", False)
                     and not getattr(shown, "_typed_ahead_cut", False)):
                (shown.focused or shown)._forward_event(events.Key(event.key, event.character))
            elif getattr(shown, "TAKES_CURSOR_KEYS", False):
                shown._typed_ahead_cut = True
            return
        await self.apply_key(event.key)

    async def apply_key(self, key: str) -> None:
        """One key through this screen's bindings, from the focused widget up (what the
        App would do with it a moment later), or its ordered priority binding."""
        for k, action, *rest in getattr(self, "KEYS", ()):
            if k == key and len(rest) == 3 and rest[2] and action not in IMMEDIATE:
                await self.app.run_action(action, self)
                return
        # private: no public equivalent (simulate_key re-posts the key here; active_bindings: no fall-through)
        await self.app._check_bindings(key)

    def action_ordered_key(self, key: str) -> None:
        """A priority key arrived: it takes its turn behind the keys typed before it."""
        (self.focused or self)._forward_event(events.Key(key, None))

    # questions -----------------------------------------------------------------
    def answer_context(self) -> tuple[Optional[int], object]:
        """(the seat answering, the table's version) for the `KeyGate`."""
        table = getattr(self.app, "table", None)
        return getattr(self.app, "viewer", None), (len(table.history) if table is not None else None)

    def answer_given(self) -> None:
        key_gate(self.app).close(*self.answer_context())

    def answer_refused(self) -> None:
        """The table refused the answer: the same question stands; keys typed after the
        answer were meant for a question that is not coming, and are dropped."""
        key_gate(self.app).reset()

    def question_shown(self, asked: bool = True) -> None:
        """The seat's screen is drawn up to date, asking its question (or, not `asked`,
        showing that it waits): keys held since the answer to the previous question
        are replayed into the question, in order."""
        if key_gate(self.app).drawn(*self.answer_context(), asked):
            self.call_later(self._drain)

    async def _drain(self) -> None:
        """Replay the held keys, one at a time, into the screen shown now — while it is a
        question screen and no replayed key has answered (then the rest waits again)."""
        gate = key_gate(self.app)
        while gate.draining:
            screen = self.app.screen
            if not gate.keys or not getattr(screen, "TAKES_HELD_KEYS", False) \
                    or not screen.is_attached or screen.has_class("small"):
                gate.reset()             # a dialog or a menu came up: nothing more is replayed
                return
            if gate.answered_at is not None:
                gate.draining = False
                return
            key, _ = gate.keys.pop(0)
            await screen.apply_key(key)


class BaseScreen(Guarded, Screen):
    KEYS: list = [("question_mark", "app.help", "key.help", True),
                  ("f1", "app.help", "", False),
                  ("ctrl+c", "app.request_quit", "key.quit", True, True),
                  ("ctrl+q", "app.request_quit", "", False, True)]

    def compose(self) -> ComposeResult:
        yield Static("", id="topbar")
        with Container(id="body"):
            yield from self.compose_body()
        yield from self.compose_guard()
        yield Footer(compact=True)

    def compose_body(self) -> ComposeResult:
        yield from ()

    @property
    def lang(self) -> str:
        return self.app.lang

    def tr(self, key: str, **kw) -> str:
        return t(key, self.app.lang, **kw)


def card_line(cards: CardSet, cid: str, lang: str, width: int = 34, extra: str = "") -> Text:
    """A card as one line of `width` cells: `extra`, the name, then its kind and numbers
    right-aligned (measured by cell width, never len())."""
    c = cards.card(cid)
    name = plain(c.name.get(lang))
    if c.is_attack:
        kind = ("魔" if lang == "ja" else "Mg") if c.type == "magic" else \
            (("両" if c.hands == 2 else "片") if lang == "ja" else f"{c.hands}H")
        nums = " ".join(str(x) for x in c.chips)
        ranges = "".join({"short": "近", "mid": "中", "long": "遠"}[s.effect.range] if lang == "ja"
                         else {"short": "S", "mid": "M", "long": "L"}[s.effect.range]
                         for s in c.skills if s.effect.kind == "range")
        tail = f"{kind} [{nums}] {ranges}"
    else:
        if c.type == "armor":
            part = {"head": "頭", "body": "胴", "arms": "腕", "legs": "脚"}[c.part] if lang == "ja" \
                else c.part
        elif c.type == "shield":
            part = (("両手盾" if c.hands == 2 else "盾") if lang == "ja"
                    else ("2H shield" if c.hands == 2 else "shield"))
        else:
            part = "飾" if lang == "ja" else "acc"
        tail = f"{part} {t('cost', lang)}{c.cost} {t('bid', lang)}{c.bid} {t('mat', lang)}{c.material}"
    # the name gets every cell the numbers leave; a name that still does not fit is
    # shortened with a visible "…" (the details, d, show it in full)
    room = max(4, width - cell_len(extra) - cell_len(tail) - 1)
    return Text(extra + pad(name, room) + " " + tail)


def wrapped(widget, text: Text) -> Wrapped:
    """`text` to show in `widget` (a Static or an option), broken by the Japanese rules
    at the width it is drawn in."""
    return Wrapped(text, app_keep_names(widget.app))


# ------------------------------------------------------------------------- modals

class ChoiceScreen(Guarded, ModalScreen):
    """A prompt with options; dismisses with the chosen index (or None on Escape when
    `cancel` is allowed). The options in `give_up` (indices: decline, …) are listed last
    and the cursor starts on the first other one; the index returned is always the
    index in `options`."""

    KEYS = [("escape", "cancel", "key.back", True)]
    TAKES_HELD_KEYS = True

    def __init__(self, title: str, options: list[str], cancel: bool = True,
                 give_up: Iterable[int] = ()) -> None:
        super().__init__()
        self.title_text = title
        self.options = options
        self.cancel = cancel
        self.give_up = set(give_up)
        self.order = [i for i in range(len(options)) if i not in self.give_up] + \
            [i for i in range(len(options)) if i in self.give_up]

    def compose(self) -> ComposeResult:
        with Container(classes="dialog"):
            yield Static(as_text(self.title_text), classes="dialog-title")
            yield QuestionList(id="choices")
        yield from self.compose_guard()
        yield Footer(compact=True)

    def on_mount(self) -> None:
        ol = self.query_one("#choices", QuestionList)
        ol.show(object(), [Option(wrapped(self, as_text(self.options[i])), id=str(i)) for i in self.order],
                give_up=[str(i) for i in self.give_up])
        ol.focus()
        self.check_size()
        self.question_shown()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(event.option.id))

    def check_action(self, action: str, parameters) -> bool | None:
        if action == "cancel" and not self.cancel:
            return False        # a decision that must be made: no "Back" key shown
        return True

    def action_cancel(self) -> None:
        if self.cancel:
            self.dismiss(None)


class DecisionScreen(ChoiceScreen):
    """A decision of the viewer's seat asked in a dialog (《競売》, the payment, 《鑑定》
    of the bidding phase): a choice dialog whose `h` gives a hint and `H` lets the
    normal AI decide, as on the phase screens, and whose Footer shows both. They act
    only while the seat is still asked the question the dialog asks (`question`: the
    seat and the table's `Update.asked_at` when it was asked); the hint comes from the
    app's table (`hint(seat)`: that seat's observation only), `H` chooses the AI's row
    as Enter would (`actions[i]` is the action of option i)."""

    KEYS = ChoiceScreen.KEYS + [("h", "hint", "key.hint", True), ("H", "auto", "key.auto", True)]

    def __init__(self, title: str, options: list[str], actions: list, question: tuple,
                 **kw) -> None:
        super().__init__(title, options, **kw)
        self.actions = list(actions)
        self.question = question

    def still_asked(self) -> bool:
        seat, asked_at = self.question
        app = self.app
        feed = getattr(app, "feeds", {}).get(seat)
        return (getattr(app, "viewer", None) == seat and feed is not None and feed.asked()
                and feed.latest.asked_at == asked_at)

    def action_hint(self) -> None:
        if self.still_asked():
            self.app.action_hint()

    def action_auto(self) -> None:
        if not self.still_asked():
            return
        action, _ = self.app.live.hint(self.question[0])
        if action not in self.actions:
            return
        ol = self.query_one("#choices", QuestionList)
        ol.highlighted = next(k for k in range(ol.option_count)
                              if ol.get_option_at_index(k).id == str(self.actions.index(action)))
        ol.action_select()


class TextScreen(ModalScreen):
    """Scrollable text (results, help, card details); Enter or Escape closes it."""

    KEYS = [("escape", "close", "key.close", True), ("enter", "close", "", False),
            ("q", "close", "", False)]

    def __init__(self, title: str, body) -> None:
        super().__init__()
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        with Container(classes="dialog wide"):
            yield Static(as_text(self.title_text), classes="dialog-title")
            with VerticalScroll(id="text-scroll"):
                body = as_text(self.body, lines=True) if isinstance(self.body, str) else self.body
                yield Static(wrapped(self, body) if isinstance(body, Text) else body, id="text-body")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        key_gate(self.app).reset()      # keys typed before it came up are not for it
        self.query_one("#text-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)


class LogScreen(ModalScreen):
    """The whole log of the viewer's seat (a logview.LogBook: its lines as they were when
    opened), scrolled to the end; only the lines in view are drawn (logview.FullLog)."""

    KEYS = [("escape", "close", "key.close", True), ("l", "close", "", False)]

    def __init__(self, title: str, book) -> None:
        super().__init__()
        self.title_text = title
        self.book = book

    def compose(self) -> ComposeResult:
        with Container(classes="dialog wide"):
            yield Static(as_text(self.title_text), classes="dialog-title")
            from tactical_tui.widgets.logview import FullLog   # (rich.pretty and attrs, not at start-up)
            yield FullLog(self.book.lines, self.book.cells, app_keep_names(self.app), id="full-log")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        key_gate(self.app).reset()
        self.query_one("#full-log").focus()

    def action_close(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen):
    KEYS = [("y", "yes", "key.yes", True), ("n", "no", "key.no", True),
            ("escape", "no", "", False), ("ctrl+c", "yes", "", False, True)]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Container(classes="dialog"):
            # a question may hold lines (the remote quit dialog's command: lobby.quit_question);
            # the data in it is plain already
            yield Static(as_text(self.question + "  (y/n)", lines=True), classes="dialog-title")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        key_gate(self.app).reset()

    def action_yes(self) -> None:
        self.dismiss(True)

    def action_no(self) -> None:
        self.dismiss(False)


class HandOverScreen(Guarded, Screen):
    """Hotseat: hides everything until the next player presses Enter."""

    KEYS = [("enter", "go", "key.continue", True),
            ("ctrl+c", "app.request_quit", "key.quit", True, True)]

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message

    def compose(self) -> ComposeResult:
        with Container(id="body"):
            yield Static(as_text(self.message, lines=True), id="handover")
        yield from self.compose_guard()
        yield Footer(compact=True)

    def action_go(self) -> None:
        self.dismiss(None)


def card_details(cards: CardSet, cid: str, lang: str) -> tuple[str, str]:
    from tactical_tui.text.cardtext import card_summary, skill_text
    c = cards.card(cid)
    lines = [card_summary(cards, c, lang), ""]
    lines += [skill_text(cards, s, lang) for s in c.skills]
    if not c.skills:
        lines.append("スキルなし" if lang == "ja" else "No skills")
    if c.star:
        lines.append("★")
    return plain(c.name.get(lang)), "\n".join(plain(x) for x in lines)


def first_option_value(ol: OptionList) -> Optional[int]:
    return ol.highlighted
