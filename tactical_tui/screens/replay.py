"""`tactical replay FILE`: step forward and back through a saved game, every seat's
information visible, with the log."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Optional

from rich.cells import cell_len
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, RichLog, Static

from rules import new_game
from rules.cards import CardSet
from rules.state import GameState

from tactical_tui.text.i18n import Wrapped, keep_names, t
from tactical_tui.text.safe import as_text, lines_text, plain
from tactical_tui.table.saves import SaveError, read, replay
from tactical_tui.tools.scenario import ExportError, export_message, export_position
from tactical_tui.text.catalog import Describer, ui
from tactical_tui.widgets.base import Guarded, localized

RT = {
    "title": {"ja": "リプレイ {file} — {k}/{n}手 — {phase}", "en": "Replay {file} — step {k}/{n} — {phase}"},
    "hand": {"ja": "手札", "en": "hand"},
    "picks": {"ja": "取得", "en": "picks"},
    "equip": {"ja": "装備", "en": "equipped"},
    "help": {"ja": "リプレイ: 保存したゲームを1手ずつ見ます（全員の情報が見えます）。\n\n"
                   "→ 次の手  ← 前の手  PageDown/PageUp 10手ずつ  Home 最初  End 最後\n"
                   "↑↓ 左の盤面をスクロール\n"
                   "e この局面をシナリオファイルに書き出す\n"
                   "?/F1 このヘルプ  q 終了",
             "en": "Replay: a saved game, one action at a time, every seat's information shown.\n\n"
                   "→ next step  ← step back  PageDown/PageUp 10 steps  Home first  End last\n"
                   "↑↓ scroll the board on the left\n"
                   "e write this position as a scenario file\n"
                   "?/F1 this help  q quit"},
}
# the export key's messages live with the exporter (tactical_tui/tools/scenario/export.py EXPORT_TEXT)


def rt(key: str, lang: str, **kw) -> str:
    return RT[key][lang].format(**kw)


def field_map(state: GameState, lang: str) -> Text:
    """The battle field of `state` — the six areas and who stands where — drawn by the
    battle screen's own `BattleScreen.field_text`, for a view of no seat (no "@", no
    attack area highlighted); a knocked-out seat stands nowhere."""
    from types import SimpleNamespace
    from tactical_tui.screens.battle import BattleScreen
    seats = [SimpleNamespace(seat=i, area=None if s.knocked_out else s.area)
             for i, s in enumerate(state.seats)]
    view = SimpleNamespace(obs=SimpleNamespace(seats=seats), seat=-1, lang=lang,
                           tr=lambda key, **kw: t(key, lang, **kw),
                           highlight_areas=lambda: (set(), set()))
    rows = BattleScreen.field_text(view).split("\n")
    return Text("\n").join(rows[:3])         # (its legend line names "@ = you")


class ReplayScreen(Guarded, Screen):
    DEFAULT_CSS = "ReplayScreen #state-scroll { width: 1fr; }"

    KEYS = [("right", "step(1)", "key.next", True, True), ("left", "step(-1)", "key.prev", True, True),
            ("pagedown", "step(10)", "", False, True), ("pageup", "step(-10)", "", False, True),
            ("home", "step(-100000)", "key.replay_first", True, True),
            ("end", "step(100000)", "key.replay_last", True, True),
            ("e", "export", "key.export", True),
            ("question_mark", "help", "key.help", True), ("f1", "help", "", False),
            ("q", "app.quit", "key.quit", True), ("ctrl+c", "app.quit", "", False, True)]
    LOG_LINES = 60          # the log's last lines shown at a step (more than a screen's worth)

    def __init__(self, name: str, events0, steps, cards: CardSet, lang: str,
                 start: Optional[GameState] = None, export_dir: Optional[Path] = None) -> None:
        super().__init__()
        self.file, self.events0, self.steps = name, events0, steps
        self.cards, self.lang_ = cards, lang
        self.start, self.export_dir = start, export_dir
        self.k = 0
        self.last_export: Optional[Path] = None
        self._lines: Optional[list] = None    # the log's lines, described once (`log_lines`)
        self._ends: list[int] = []            # … the number of them after k steps
        self._drawn: Optional[int] = None     # the step on screen
        self._draw_queued = False
        self.draws = 0                        # times the step was drawn (tests)

    def log_lines(self, k: int) -> list:
        """The log's lines up to step k: every event described once, in order (an
        attack explains its damage), when first needed — stepping described the whole
        game again at every step (0.11 s a step: issue 32)."""
        if self._lines is None:
            d = Describer(self.cards, self.lang_)
            keep = keep_names(self.cards, self.lang_)
            lines, ends = [], []
            for events in [self.events0] + [ev for _, _, ev in self.steps]:
                for e in events:
                    line = d.describe(e)
                    if line:
                        lines.append(Wrapped(as_text(line), keep))
                ends.append(len(lines))
            self._lines, self._ends = lines, ends
        return self._lines[:self._ends[k]]

    def state_at(self, k: int) -> Optional[GameState]:
        """The position after `k` actions (0: the start of the game)."""
        return self.steps[k - 1][1] if k else self.start

    def action_export(self) -> None:
        """Write the position on screen as a scenario file (a new file, never replacing
        one) in the export folder (default: the current folder), and say where."""
        state = self.state_at(self.k)
        if state is None:
            return
        folder = self.export_dir if self.export_dir is not None else Path.cwd()
        stem = re.sub(r"[^A-Za-z0-9_-]+", "_", Path(self.file).stem)[:60] or "replay"
        try:
            for n in range(1, 1000):
                target = folder / (f"{stem}-step{self.k}" + (f"-{n}" if n > 1 else "") + ".toml")
                if target.exists() or target.is_symlink():
                    continue
                try:
                    export_position(state, target, name=f"{self.file} step {self.k}",
                                    description=f"exported from {self.file}, step {self.k} "
                                                f"of {len(self.steps)}")
                except ExportError as exc:
                    if exc.key == "exists":
                        continue
                    raise
                self.last_export = target
                self.app.notify(plain(export_message("written", self.lang_, path=target)),
                                markup=False)
                return
        except ExportError as exc:
            self.app.notify(plain(exc.text(self.lang_)), severity="error", markup=False)

    def compose(self) -> ComposeResult:
        yield Static("", id="topbar")
        with Horizontal(id="body"):
            with VerticalScroll(id="state-scroll", classes="panel"):   # ↑↓ scroll it
                yield Static("", id="state")
            yield RichLog(id="rlog", wrap=True, markup=False, min_width=20, classes="panel side")
        yield from self.compose_guard()
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.show()

    def action_step(self, d: int) -> None:
        """Move to another step; it is drawn once the keys already typed are handled —
        a held → (the terminal's key repeat) is one draw, not one per key, and stops
        where the key was let go (it went on for seconds after)."""
        self.k = max(0, min(len(self.steps), self.k + d))
        if not self._draw_queued:
            self._draw_queued = True
            self.call_later(self._draw_now)

    def _draw_now(self) -> None:
        self._draw_queued = False
        if self._drawn != self.k:
            self.show()

    def action_help(self) -> None:
        from tactical_tui.widgets.base import TextScreen
        self.app.push_screen(localized(TextScreen, self.lang_)(
            t("help.title", self.lang_), as_text(rt("help", self.lang_), lines=True)))

    def header(self, phase: str) -> str:
        """The top bar: the file's name cut (…) so that the step and the phase fit."""
        from tactical_tui.text.i18n import clip
        lang = self.lang_
        rest = rt("title", lang, file="", k=self.k, n=len(self.steps), phase=ui("phase." + phase, lang))
        width = max(8, (self.app.size.width or 80) - 2 - cell_len(rest))
        return rt("title", lang, file=clip(self.file, width), k=self.k, n=len(self.steps),
                  phase=ui("phase." + phase, lang))

    def show(self) -> None:
        lang, cards = self.lang_, self.cards
        self._drawn = self.k
        self.draws += 1
        state = self.state_at(self.k)
        phase = state.phase if state is not None else "draft"
        self.query_one("#topbar", Static).update(as_text(self.header(phase)))
        sep = "、" if lang == "ja" else ", "
        names = lambda cs: sep.join(cards.card(c).name.get(lang) for c in cs) or "-"
        lines = []
        if state is not None:
            for i, s in enumerate(state.seats):
                head = (f"{t('seat', lang, n=i + 1)} {cards.guild(s.guild).name.get(lang)} "
                        f"{cards.race(s.race).name.get(lang) if s.race else '/'.join(cards.race(r).name.get(lang) for r in s.race_candidates)}")
                if phase == "battle" or phase == "over":    # (one line: the field is above)
                    where = t("battle.out", lang) if s.knocked_out else (s.area or "-")
                    head += f"  HP{s.hp} MP{s.mana} VP{s.vp} U{s.unluck} @{where}"
                lines.append(head)
                lines.append(f"  {rt('hand', lang)}: {names(s.hand)}")
                if s.picks:
                    lines.append(f"  {rt('picks', lang)}: {names(s.picks)}")
                if s.equipped:
                    lines.append(f"  {rt('equip', lang)}: {names(s.equipped)}")
        body = lines_text(lines)
        if state is not None and phase in ("battle", "over"):
            body = field_map(state, lang) + Text("\n") + body
        keep = keep_names(cards, lang)          # names whole on a line, Japanese line breaks
        self.query_one("#state", Static).update(Wrapped(body, keep))
        log = self.query_one("#rlog", RichLog)
        log.clear()
        for line in self.log_lines(self.k)[-self.LOG_LINES:]:
            log.write(line)


class ReplayApp(App):
    CSS_PATH = "../app.tcss"        # the app's stylesheet (tactical_tui/app.tcss)
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, screen) -> None:
        super().__init__()
        from tactical_tui.widgets import widechars
        widechars.apply()               # wide characters whole across widgets' edges (Textual #6357)
        self._first = screen
        self.lang = screen.lang_

    def on_mount(self) -> None:
        self.push_screen(self._first)


def load_replay(path: str, lang: str, cards: CardSet):
    """(events of the deal, steps, the start state) of a save file, or None after saying
    why on stderr."""
    try:
        data = read(Path(path))
        events0, steps = replay(data, cards, path)
    except SaveError as exc:
        print(plain(t("save.bad", lang, problem=exc.text(lang, cards))), file=sys.stderr)
        return None
    start, _ = new_game(data.config, cards, data.seed)
    return events0, steps, start


def run_replay(path: str, lang: str, cards: CardSet, step: Optional[int] = None) -> int:
    loaded = load_replay(path, lang, cards)
    if loaded is None:
        return 2
    events0, steps, start = loaded
    if step is not None and not 0 <= step <= len(steps):
        print(plain(export_message("step", lang, n=len(steps), given=step)), file=sys.stderr)
        return 2
    screen = localized(ReplayScreen, lang)(Path(path).name, events0, steps, cards, lang,
                                           start=start)
    screen.k = step or 0
    ReplayApp(screen).run()
    return 0


def export_replay(path: str, step: Optional[int], out: str, lang: str, cards: CardSet,
                  force: bool = False) -> int:
    """`tactical replay FILE --step N --export OUT.toml`: write the position after N
    actions as a scenario file. Never replaces a file unless `force` (and then says so)."""
    loaded = load_replay(path, lang, cards)
    if loaded is None:
        return 2
    _, steps, start = loaded
    step = len(steps) if step is None else step
    if not 0 <= step <= len(steps):
        print(plain(export_message("step", lang, n=len(steps), given=step)), file=sys.stderr)
        return 2
    state = steps[step - 1][1] if step else start
    try:
        replaced = export_position(state, out, name=f"{Path(path).name} step {step}",
                                   description=f"exported from {Path(path).name}, step {step} "
                                               f"of {len(steps)}", overwrite=force)
    except ExportError as exc:
        print(plain(exc.text(lang)), file=sys.stderr)
        return 1
    print(plain(export_message("overwritten" if replaced else "written", lang, path=out)))
    return 0
