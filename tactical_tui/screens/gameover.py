"""The game over screen (GameOverScreen): the winners (rulebook §3 「誰かが勝利点チップを
5枚獲得した時点でゲームを終了します」, §6), the standings, and every victory point gained
in order."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from tactical_tui.text.i18n import pad, t
from tactical_tui.text.safe import lines_text
from tactical_tui.screens.game import GameScreen
from tactical_tui.widgets.base import BaseScreen, wrapped


class GameOverScreen(GameScreen):
    KEYS = BaseScreen.KEYS + [("s", "app.save_replay", "key.save_replay", True),
                              ("n", "app.new_game", "key.new", True),
                              ("t", "app.back_to_title", "key.title", True),
                              ("l", "app.show_log", "key.log", True)]

    TAKES_HELD_KEYS = False          # no question here: keys typed before it are dropped

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="over-scroll", classes="panel"):
            yield Static("", id="standings")

    def seat_name(self, i: int) -> str:
        """As on the other screens, but in hotseat (several seats' views on this
        terminal) no seat is "(you)": the players are all looking."""
        name = super().seat_name(i)
        if len(getattr(self.app, "feeds", ())) > 1 and i == self.seat:
            name = name.replace(f"({self.tr('you')})", "")
        return name

    def refresh_view(self) -> None:
        state = self.obs
        self.query_one("#topbar", Static).update(Text(self.tr("over.title"), style="bold"))
        from rules.events import VictoryPointsGained
        lines = []
        who = ", ".join(t("seat", self.lang, n=w + 1) + self.player_name(w) for w in state.winners) \
            or t("over.nobody", self.lang)
        lines.append(self.tr("over.winner", who=who))
        reason = state.end_reason or getattr(self.latest, "ended", "")   # or by agreement
        if reason:
            lines.append(t("over." + reason, self.lang, who=who))
        lines.append("")
        lines.append(self.tr("over.standings") + ":")
        ranked = sorted(range(len(state.seats)), key=lambda i: -state.seats[i].vp)
        names = min(20, max([14] + [cell_len(self.seat_name(i)) for i in ranked]))  # players' names
        for rank, i in enumerate(ranked, 1):
            s = state.seats[i]
            race = self.cards.race(s.race).name.get(self.lang) if s.race else "-"
            lines.append(f" {rank}. {pad(self.seat_name(i), names)} VP {s.vp}  {race}  "
                         f"{self.cards.guild(s.guild).name.get(self.lang)}")
        lines.append("")
        lines.append(self.tr("over.history") + ":")
        # the whole history, in order (the panel scrolls: ↑↓, PgUp/PgDn, the mouse wheel)
        history = [e.event for e in self.app.feeds[self.seat].log
                   if isinstance(e.event, VictoryPointsGained)]
        for n, e in enumerate(history, 1):
            lines.append(self.tr("over.gain", n=f"{n:>{len(str(len(history)))}}",
                                 seat=t("seat", self.lang, n=e.seat + 1),
                                 amount=e.amount, vp=e.vp, target=t("seat", self.lang, n=e.target + 1),
                                 why=t("vp." + e.reason, self.lang)))
        if not history:
            lines.append(" " + t("none", self.lang))
        panel = self.query_one("#standings", Static)
        panel.update(wrapped(self, lines_text(lines)))
        self.query_one("#over-scroll", VerticalScroll).focus()
