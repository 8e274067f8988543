"""The bidding's screen (BidScreen): rulebook §5-3 武器入札 — the round's bid targets,
this seat's cards to bid with, and each seat's bids and passes."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from rules import actions as A

from tactical_tui.text.i18n import pad
from tactical_tui.text.safe import as_text, lines_text
from tactical_tui.screens.game import GameScreen
from tactical_tui.widgets.base import QuestionList, card_line, wrapped


class BidScreen(GameScreen):
    KEYS = GameScreen.KEYS + GameScreen.SKIP_AI + [("p", "pass", "key.pass", True),
                              ("tab", "switch", "key.switch", True)]

    def compose_body(self) -> ComposeResult:
        with Horizontal(classes="main"):
            with Vertical(classes="left"):
                yield QuestionList(id="targets", classes="panel", submits=False)
                yield QuestionList(id="hand", classes="panel")
            yield Static("", id="seats", classes="panel side")

    def refresh_view(self) -> None:
        obs = self.obs
        from rules.state import BID_ROUNDS
        per, rounds = BID_ROUNDS[len(obs.seats)]
        self.set_topbar([self.tr('bid.title', r=(obs.bid_round or 0) + 1, n=rounds),
                         self.seat_name(self.seat)], self.status())
        options = []
        width = self.row_width("#targets", 39) - 3      # the name gets the cells it needs
        for c in obs.targets:
            downs = sum(1 for s in obs.seats for x in s.face_down_bids if x == c)
            mark = pad(f"▼{downs}" if downs else "", 3)
            options.append(Option(Text(mark) + card_line(self.cards, c, self.lang, width), id=c))
        for c in obs.upcoming:
            options.append(Option(Text("▷  ") + card_line(self.cards, c, self.lang, width),
                                  id="next:" + c, disabled=True))
        targets = self.fill("#targets", self.tr("bid.targets") + "  " + self.tr("bid.marks"),
                            options, len(obs.targets))
        bid_cards = sorted((c for c in obs.hand if not self.cards.card(c).is_attack),
                           key=lambda c: -self.cards.card(c).bid)
        self.fill("#hand", self.tr("bid.hand"),
                  [Option(card_line(self.cards, c, self.lang, self.row_width("#hand", 38)), id=c)
                   for c in bid_cards])
        lines = []
        sep = "、" if self.lang == "ja" else ", "
        for s in obs.seats:
            # "Seat 3·AI (lead): 2 bids down, passed"
            head = self.seat_name(s.seat) + (self.tr("bid.leader") if s.seat == obs.leader else "")
            bits = []
            if s.face_down_bids:
                bits.append(self.tr("bid.face_down", n=len(s.face_down_bids)))
            if s.passed:
                bits.append(self.tr("bid.passed"))
            line = head + (": " + sep.join(bits) if bits else "")
            if not s.passed and s.seat in obs.pending.seats and obs.pending.kind == "bid":
                line += " ← " + self.tr("bid.turn")
            lines.append(line)
        lines.append("")
        from tactical_tui.screens.howto import guild_lines      # your guild and what its trait does
        lines += guild_lines(self.cards, obs.seats[self.seat].guild, self.lang, 34)
        lines.append(self.tr("bid.help"))
        if not bid_cards:
            lines.append(self.tr("bid.no_cards"))
        side = self.query_one("#seats", Static)
        side.border_title = self.tr("bid.seats")
        side.update(wrapped(self, lines_text(lines)))
        if self.focused is None or self.focused.id not in ("targets", "hand"):
            targets.focus()
        self.show_chosen_target()

    def on_option_list_option_highlighted(self, event) -> None:
        if event.option_list.id == "targets":
            self.show_chosen_target()

    def show_chosen_target(self) -> None:
        targets = self.query_one("#targets", OptionList)
        hand = self.query_one("#hand", OptionList)
        name = ""
        if targets.highlighted is not None and targets.option_count:
            cid = targets.get_option_at_index(targets.highlighted).id
            if not cid.startswith("next:"):
                name = " → " + self.cards.card(cid).name.get(self.lang)
        hand.border_title = as_text(self.tr("bid.hand") + name)

    def action_select_current(self) -> None:
        """Enter on a target goes on to the hand at once (the next key of a burst moves
        the hand's cursor, not the target's)."""
        targets = self.query_one("#targets", OptionList)
        if self.focused is targets:
            if targets.highlighted is not None:
                self.set_focus(self.query_one("#hand", OptionList))
            return
        super().action_select_current()

    def action_switch(self) -> None:
        t_, h = self.query_one("#targets", OptionList), self.query_one("#hand", OptionList)
        self.set_focus(h if self.focused is t_ else t_)   # at once: the next key goes there

    def action_pass(self) -> None:
        if self.my_turn() and self.obs.pending.kind == "bid":
            self.send(A.Pass(self.seat))

    def highlighted_card(self):
        ol = self.focused if isinstance(self.focused, OptionList) else self.query_one("#targets", OptionList)
        if ol.highlighted is None or not ol.option_count:
            return None
        cid = ol.get_option_at_index(ol.highlighted).id
        return cid.split(":", 1)[-1]

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id == "targets":
            self.set_focus(self.query_one("#hand", OptionList))   # at once, for the next key
            return
        if not self.my_turn() or self.obs.pending.kind != "bid":
            return
        targets = self.query_one("#targets", OptionList)
        if targets.highlighted is None:
            return
        target = targets.get_option_at_index(targets.highlighted).id
        self.send(A.PlaceBid(self.seat, target, event.option.id))
        self.set_focus(targets)
