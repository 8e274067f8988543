"""`tactical replay FILE`: step forward and back through a saved game, every seat's
information visible, with the log."""

from __future__ import annotations

import sys
from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, RichLog, Static

from rules.cards import CardSet

from .i18n import t
from .safe import as_text, lines_text, plain
from .saves import SaveError, read, replay
from .text import Describer, ui
from .widgets import Guarded, localized

RT = {
    "title": {"ja": "リプレイ {file} — {k}/{n}手 — {phase}", "en": "Replay {file} — step {k}/{n} — {phase}"},
    "hand": {"ja": "手札", "en": "hand"},
    "picks": {"ja": "取得", "en": "picks"},
    "equip": {"ja": "装備", "en": "equipped"},
}


def rt(key: str, lang: str, **kw) -> str:
    return RT[key][lang].format(**kw)


class ReplayScreen(Guarded, Screen):
    KEYS = [("right", "step(1)", "key.next", True, True), ("left", "step(-1)", "key.prev", True, True),
            ("pagedown", "step(10)", "", False, True), ("pageup", "step(-10)", "", False, True),
            ("end", "step(100000)", "", False, True), ("home", "step(-100000)", "", False, True),
            ("q", "app.quit", "key.quit", True), ("ctrl+c", "app.quit", "", False, True)]

    def __init__(self, name: str, events0, steps, cards: CardSet, lang: str) -> None:
        super().__init__()
        self.file, self.events0, self.steps = name, events0, steps
        self.cards, self.lang_ = cards, lang
        self.k = 0

    def compose(self) -> ComposeResult:
        yield Static("", id="topbar")
        with Horizontal(id="body"):
            yield Static("", id="state", classes="panel")
            yield RichLog(id="rlog", wrap=True, markup=False, min_width=20, classes="panel side")
        yield from self.compose_guard()
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.show()

    def action_step(self, d: int) -> None:
        self.k = max(0, min(len(self.steps), self.k + d))
        self.show()

    def show(self) -> None:
        lang, cards = self.lang_, self.cards
        state = self.steps[self.k - 1][1] if self.k else None
        phase = state.phase if state is not None else "draft"
        self.query_one("#topbar", Static).update(as_text(rt(
            "title", lang, file=self.file, k=self.k, n=len(self.steps), phase=ui("phase." + phase, lang))))
        sep = "、" if lang == "ja" else ", "
        names = lambda cs: sep.join(cards.card(c).name.get(lang) for c in cs) or "-"
        lines = []
        if state is not None:
            for i, s in enumerate(state.seats):
                lines.append(f"{t('seat', lang, n=i + 1)} {cards.guild(s.guild).name.get(lang)} "
                             f"{cards.race(s.race).name.get(lang) if s.race else '/'.join(cards.race(r).name.get(lang) for r in s.race_candidates)}")
                if phase == "battle" or phase == "over":
                    lines.append(f"  HP{s.hp} MP{s.mana} VP{s.vp} U{s.unluck} @{s.area or '-'}")
                lines.append(f"  {rt('hand', lang)}: {names(s.hand)}")
                if s.picks:
                    lines.append(f"  {rt('picks', lang)}: {names(s.picks)}")
                if s.equipped:
                    lines.append(f"  {rt('equip', lang)}: {names(s.equipped)}")
        self.query_one("#state", Static).update(lines_text(lines))
        log = self.query_one("#rlog", RichLog)
        log.clear()
        d = Describer(cards, lang)
        events = list(self.events0)
        for _, _, ev in self.steps[:self.k]:
            events.extend(ev)
        for e in events[-200:]:
            log.write(as_text(d.describe(e)))


class ReplayApp(App):
    CSS_PATH = "app.tcss"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, screen) -> None:
        super().__init__()
        self._first = screen
        self.lang = screen.lang_

    def on_mount(self) -> None:
        self.push_screen(self._first)


def run_replay(path: str, lang: str, cards: CardSet) -> int:
    try:
        data = read(Path(path))
        events0, steps = replay(data, cards, path)
    except SaveError as exc:
        print(plain(t("save.bad", lang, problem=exc.text(lang, cards))), file=sys.stderr)
        return 2
    screen_cls = localized(ReplayScreen, lang)
    ReplayApp(screen_cls(Path(path).name, events0, steps, cards, lang)).run()
    return 0
