"""Shared pieces of the screens: localized bindings, the base screen with its "please
enlarge" guard, card lines, and the modal screens (choice, results, help, log, card,
quit, hand-over)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Optional

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from .i18n import Wrapped, keep_names, pad, t
from .safe import as_text, plain

if TYPE_CHECKING:                # the menus import this module: no rules at start-up
    from rules.cards import CardSet

MIN_W, MIN_H = 80, 24
_CLASSES: dict = {}


def localized(cls, lang: str):
    """A subclass of `cls` whose BINDINGS carry descriptions in `lang` (the Footer shows
    them). `cls.KEYS` lists (key, action, text key, show)."""
    key = (cls, lang)
    if key not in _CLASSES:
        bindings = [Binding(k, a, t(d, lang) if d else "", show=s, priority=p)
                    for k, a, d, s, p in ((*x, False) if len(x) == 4 else x for x in cls.KEYS)]
        _CLASSES[key] = type(f"{cls.__name__}_{lang}", (cls,), {"BINDINGS": bindings})
    return _CLASSES[key]


class Guarded:
    """Mixin: shows a "please enlarge" message instead of the body below 80×24."""

    def compose_guard(self) -> ComposeResult:
        yield Static("", id="too-small")

    def check_size(self) -> None:
        w, h = self.app.size
        small = w < MIN_W or h < MIN_H
        self.set_class(small, "small")
        if small:
            self.query_one("#too-small", Static).update(t("too_small", self.app.lang, w=w, h=h))

    def on_resize(self, event) -> None:
        self.check_size()

    def on_screen_resume(self) -> None:
        self.check_size()


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


def _keep(app) -> frozenset:
    """The names kept whole on a line: the app's card set in its language."""
    cards = getattr(app, "cards", None)
    return keep_names(cards, app.lang) if cards is not None else frozenset()


def wrapped(widget, text: Text) -> Wrapped:
    """`text` to show in `widget` (a Static or an option), broken by the Japanese rules
    at the width it is drawn in."""
    return Wrapped(text, _keep(widget.app))


# ------------------------------------------------------------------------- modals

class ChoiceScreen(ModalScreen):
    """A prompt with options; dismisses with the chosen index (or None on Escape when
    `cancel` is allowed)."""

    KEYS = [("escape", "cancel", "key.back", True)]

    def __init__(self, title: str, options: list[str], cancel: bool = True) -> None:
        super().__init__()
        self.title_text = title
        self.options = options
        self.cancel = cancel

    def compose(self) -> ComposeResult:
        with Container(classes="dialog"):
            yield Static(as_text(self.title_text), classes="dialog-title")
            yield OptionList(*[Option(wrapped(self, as_text(o)), id=str(i))
                               for i, o in enumerate(self.options)], id="choices")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#choices", OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option_index)

    def check_action(self, action: str, parameters) -> bool | None:
        if action == "cancel" and not self.cancel:
            return False        # a decision that must be made: no "Back" key shown
        return True

    def action_cancel(self) -> None:
        if self.cancel:
            self.dismiss(None)


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
        self.query_one("#text-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)


class LogScreen(ModalScreen):
    KEYS = [("escape", "close", "key.close", True), ("l", "close", "", False)]

    def __init__(self, title: str, lines: Iterable[str]) -> None:
        super().__init__()
        self.title_text = title
        self.lines = list(lines)

    def compose(self) -> ComposeResult:
        with Container(classes="dialog wide"):
            yield Static(as_text(self.title_text), classes="dialog-title")
            from .logview import LogView   # (RichLog: rich.pretty and attrs, not at start-up)
            yield LogView(id="full-log", wrap=True, markup=False, min_width=20)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        log = self.query_one("#full-log")
        for line in self.lines:
            log.write(as_text(line))
        log.focus()

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
            yield Static(as_text(self.question + "  (y/n)"), classes="dialog-title")
        yield Footer(compact=True)

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
    from .cardtext import card_summary, skill_text
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
