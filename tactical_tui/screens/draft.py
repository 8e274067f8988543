"""The draft's screen (DraftScreen): rulebook §5-2 装備ドラフト — this seat's hand to
pick a card from, its race candidates, the bid targets, and the cards picked so far."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from rules import actions as A

from tactical_tui.text.cardtext import STAT_SHORT
from tactical_tui.text.safe import as_text, lines_text
from tactical_tui.screens.game import GameScreen
from tactical_tui.widgets.base import QuestionList, card_line, wrapped


class DraftScreen(GameScreen):
    KEYS = GameScreen.KEYS + [("t", "targets", "key.targets", True)]

    def action_targets(self) -> None:
        """Every visible bid target in full (skills, requirements, chips)."""
        obs = self.obs
        from tactical_tui.widgets.base import card_details
        parts = []
        for c in obs.targets + obs.upcoming:
            title, body = card_details(self.cards, c, self.lang)
            parts.append(f"■ {title}\n{body}")
        self.app.show_text(self.tr("key.targets"), "\n\n".join(parts))

    def compose_body(self) -> ComposeResult:
        with Horizontal(classes="main"):
            yield QuestionList(id="hand", classes="panel")
            yield Static("", id="info", classes="panel side")

    def refresh_view(self) -> None:
        obs = self.obs
        self.set_topbar([self.tr('draft.title'), self.seat_name(self.seat),
                         self.tr('draft.left', n=len(obs.hand))], self.status(), sep="  — ")
        legal = {a.card for a in self.legal()}
        hand = self.fill("#hand", self.tr("draft.hand"), [
            Option(card_line(self.cards, c, self.lang, self.row_width("#hand", 35)), id=c,
                   disabled=c not in legal)
            for c in obs.hand])
        hand.focus()
        info = []
        info.append(f"{self.tr('draft.races')}:")
        for r in obs.seats[self.seat].race_candidates:
            race = self.cards.race(r)
            sep = "" if self.lang == "ja" else " "
            info.append(" " + race.name.get(self.lang) + " " + sep.join(
                f"{STAT_SHORT[self.lang][k]}{v}" for k, v in race.stats.items()))
        if obs.draft_choice:
            info.append(self.tr("draft.chosen", card=self.cards.card(obs.draft_choice).name.get(self.lang)))
        for r, targets in ((obs.bid_round or 0, obs.targets), ((obs.bid_round or 0) + 1, obs.upcoming)):
            if targets:
                info.append(f"{self.tr('draft.targets', r=r + 1)}:")
                info += [" " + str(card_line(self.cards, c, self.lang, 36)) for c in targets]
        picks = obs.picks
        mat = sum(self.cards.card(c).material for c in picks)
        bids = ",".join(str(self.cards.card(c).bid) for c in sorted(picks, key=lambda c: -self.cards.card(c).bid))
        info.append(self.tr("draft.picks", n=len(picks)) + " " + (
            "、" if self.lang == "ja" else ", ").join(self.cards.card(c).name.get(self.lang) for c in picks))
        info.append(" " + self.tr("draft.tally", m=mat, bids=bids or "-"))
        info.append(self.tr("legend.cbm"))
        side = self.query_one("#info", Static)
        side.border_title = self.tr("draft.info")
        from tactical_tui.screens.howto import guild_line       # your guild and its trait, on the panel's border
        width = side.outer_size.width           # the border's: corners, "─ " and " ─"
        room = width - 6 if width > 12 else 35
        side.border_subtitle = as_text(guild_line(self.cards, obs.seats[self.seat].guild,
                                                  self.lang, room))
        side.update(wrapped(self, lines_text(info)))

    def highlighted_card(self):
        hand = self.query_one("#hand", OptionList)
        if hand.highlighted is None or not hand.option_count:
            return None
        return hand.get_option_at_index(hand.highlighted).id

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if self.my_turn():
            self.send(A.Pick(self.seat, event.option.id))
