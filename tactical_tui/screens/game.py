"""The screens: title, setup, draft, bid table, build editor, battle, game over. Each
phase screen is a view of one seat: it shows that seat's latest update from the table
(tactical_tui.table.live.Update: observation, log, whose decision) — redrawn on every update,
whoever acted — and sends that seat's actions (through the app to the table)."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import OptionList, RichLog, Static
from textual.widgets.option_list import Option

from rules import actions as A
from rules.battle import AREAS, RANGE_AREA, RANGE_CRIT, distance, step_area
from rules.build import available_material, equip_cost, final_stats, hand_slots_used, violations

from tactical_tui.text.cardtext import STAT_SHORT
from tactical_tui.text.i18n import TUI, clip, pad, t
from tactical_tui.text.safe import as_text, lines_text
from tactical_tui.screens.menus import ContinueScreen, SetupScreen, TitleScreen  # noqa: F401 - re-exported
from tactical_tui.widgets.logview import LogView
from tactical_tui.widgets.base import BaseScreen, ConfirmScreen, QuestionList, card_line, key_gate, localized, wrapped


SEAT_ROW = 36          # cells of a seat's row in the battle's seat panel at 80 columns


def topbar_text(parts: list[str], status: str, width: int, sep: str = " — ",
                reserve: int = 0) -> str:
    """The top bar in `width` cells: `parts` (the phase first, then this seat, …) and after
    `sep` whose decision it is and what (`status`, GameScreen.status). When it does not
    fit, the parts after the first are left out, the last first: the status is kept whole
    ("Waiting for Seat 4 · AI: deciding on Auction" lost its last word at 80 columns).
    `reserve`: the cells of the longest status the screen may say in its phase — the parts
    are left out as for that one, so that they do not come and go as the status changes
    (the battle's top bar flickered between "Seat 1(you) — …" and "— Waiting…")."""
    parts = [p for p in parts if p]
    room = max(cell_len(status), reserve)
    while True:
        text = "  ".join(parts) + sep
        if cell_len(text) + room <= width or len(parts) <= 1:
            return clip(text + status, width)
        parts.pop()


# The decisions of the battle (rules.engine.pending's kinds): its top bar keeps room for
# the longest "Waiting for Seat 4 · AI: …" (topbar_text's `reserve`), as the AI seats'
# steps follow each other there. (The other phases' top bars change with the player's own
# turn: the draft's "8 cards left", the build's "Race: …" stay while it is the player's.)
BATTLE_KINDS = ("turn", "skills", "targets", "defense", "counter", "unluck", "draw")


def series_short(cards, cid: str, equipped) -> int | None:
    """§5-4 「シリーズ効果を持つカードがもともと持つスキルは、同じ名前のシリーズカードを2枚以上
    装備している場合にのみ発動します」: how many cards of `cid`'s series are equipped when that
    is fewer than 2 (its own skills do not work), else None (the rules: battle.series_active)."""
    series = cards.card(cid).series
    if series is None:
        return None
    have = sum(1 for c in equipped if cards.card(c).series == series)
    return have if have < 2 else None


def skill_works(cards, cid: str, sk, stats, equipped) -> bool:
    """A skill printed on equipped card `cid` works: its requirements are met by `stats`
    and its card's series (if any) is active."""
    return stats is not None and sk.requires.met_by(stats) and series_short(cards, cid, equipped) is None


def usable_skills(cards, equipped, stats, lang: str) -> list[str]:
    """The skills of the `equipped` cards that work with `stats`, each name once: a name
    that two cards give (Barrier on an Iron Helm and a Kite Shield; Short Range on two
    weapons) says whose cards (R21: a skill is its card's) — "Barrier (Iron Helm, Kite
    Shield)", and two copies of one card "Concentration (Prayer Beads ×2)" — as the battle's
    declarations do (act.declare_card); it was listed twice, "Barrier, Barrier"."""
    givers: dict[str, list[str]] = {}
    for c in equipped:
        for sk in cards.card(c).skills:
            if skill_works(cards, c, sk, stats, equipped):
                givers.setdefault(sk.name.get(lang), []).append(cards.card(c).name.get(lang))
    out = []
    for name, who in givers.items():
        if len(who) == 1:
            out.append(name)
            continue
        times = "×" if lang == "ja" else " ×"
        counted = [n if who.count(n) == 1 else f"{n}{times}{who.count(n)}" for n in dict.fromkeys(who)]
        out.append(t("build.skill_cards", lang, skill=name,
                     cards=("・" if lang == "ja" else ", ").join(counted)))
    return out


def seat_mark(seat: int, me: int) -> str:
    """A seat on the field: @ for the viewer's own seat, else a circled number (②)."""
    return "@" if seat == me else "①②③④⑤⑥⑦⑧⑨"[seat] if seat < 9 else str(seat + 1)

# Choices that give something up: never under the cursor when a question comes up.
GIVE_UP = (A.EndTurn, A.Decline, A.Stop, A.Pass)


class GameScreen(BaseScreen):
    """A phase screen: top bar, body, a log strip, the Footer. Subclasses fill `refresh_view`."""

    KEYS = [("question_mark", "app.help", "key.help", True),
            ("f1", "app.help", "", False),
            ("ctrl+c", "app.request_quit", "", False, True),
            ("ctrl+q", "app.request_quit", "", False, True),
            ("enter", "select_current", "key.select", True, True),
            ("l", "app.show_log", "key.log", True),
            ("h", "app.hint", "key.hint", False),
            ("H", "auto", "key.auto", False),
            ("z", "undo", "key.undo", False),
            ("d", "details", "key.details", True)]
    SKIP_AI = [("f", "app.skip_ai", "key.skip_ai", True)]   # the AI pauses, to your next decision
    TAKES_HELD_KEYS = True

    def compose(self) -> ComposeResult:
        yield Static("", id="topbar")
        with Vertical(id="body"):
            yield from self.compose_body()
            yield LogView(id="log", wrap=True, markup=False, max_lines=500, min_width=20)
        yield from self.compose_guard()
        from textual.widgets import Footer
        yield Footer(compact=True)

    def __init__(self, seat: int = 0, phase: str = "") -> None:
        super().__init__()
        self.seat = seat                 # the seat this view shows; never changes
        self.phase = phase
        self.latest = None               # its latest table.Update
        self._epoch = None               # the feed's log epoch written to the log strip
        self._written = 0
        self._describer = None           # the log strip's text.Describer
        self._names = None               # the players' names its lines were written with

    @property
    def obs(self):
        return self.latest.observation

    @property
    def cards(self):
        return self.app.cards

    @property
    def question(self):
        """Which question is on screen: the version at which this seat's decision began
        and its kind — equal for a redraw of the same question, new for a new one."""
        u = self.latest
        return None if u is None or u.asked_at is None else (u.asked_at, u.turn.kind)

    _ready = False

    def on_mount(self) -> None:
        if self.app.leaving:             # the app is shutting down (a signal): draw nothing
            return
        self._ready = True
        self.sync_log()
        self.refresh_view()

    def show(self, update) -> None:
        """A new update from the table (any seat's action, an AI starting to think):
        redraw from it (once mounted; it draws itself on mount)."""
        self.latest = update
        self.update_view()

    def update_view(self) -> None:
        """Refresh once the screen is mounted (it refreshes itself on mount)."""
        if self._ready and not self.app.leaving and self.is_attached:
            self.sync_log()
            self.refresh_view()

    def sync_log(self) -> None:
        """The log strip: this seat's log as received (the last 60 lines at first; all
        of it again after an undo rewrote it, and when the players' names the lines
        carry changed — a player sat down or the names came after the first lines)."""
        feed = self.app.feeds.get(self.seat)
        if feed is None:
            return
        log = self.query_one("#log", RichLog)
        names = self.app.seat_names()
        if self._epoch != feed.epoch or self._describer is None or names != self._names:
            log.clear()
            self._epoch, self._names = feed.epoch, names
            self._written = max(0, len(feed.log) - 60)
            self._describer = self.app.describer()   # follows this seat's events in order
        for e in feed.log[self._written:]:
            line = self.app.log_line(e, self._describer)
            if line:
                log.write(as_text(line))
        self._written = len(feed.log)

    def my_turn(self) -> bool:
        u = self.latest
        return u is not None and self.seat in u.turn.seats and u.seats[self.seat] == "human"

    def legal(self) -> list:
        return list(self.obs.legal) if self.my_turn() else []

    def is_human(self, i: int) -> bool:
        return self.latest.seats[i] == "human"

    def seat_name(self, i: int) -> str:
        name = t("seat", self.lang, n=i + 1)
        if i == self.seat and self.is_human(i):
            name += f"({self.tr('you')})"
            return name
        if not self.is_human(i):
            name += "·AI"                    # before the name: a narrow panel cuts the name
        return name + self.player_name(i)

    def player_name(self, i: int) -> str:
        """" carol": the name of the person at seat `i` of a server's table (net.remote:
        `player_names`), clipped to 8 cells, else "" (views.shared_names: the log and the
        recaps name the seats the same way)."""
        from tactical_tui.table.views import shared_names
        who = shared_names(self.app.live).get(i)
        return " " + who if who else ""

    def status(self) -> str:
        """Whose decision it is and what: "Your turn", or "Waiting for Seat 3 · AI:
        choosing targets"."""
        turn = self.latest.turn
        if self.my_turn():
            return self.tr("your_turn")
        if not turn.seats:
            return self.tr("doing." + turn.kind) if ("doing." + turn.kind) in TUI else "—"
        what = self.tr("doing." + turn.kind) if ("doing." + turn.kind) in TUI else turn.kind
        ai = all(s in turn.ai for s in turn.seats)
        if len(turn.seats) > 2:            # the draft, the build: "3 seats", to fit 80 cells
            who = self.tr("status.seats", n=len(turn.seats))
        else:
            who = ", ".join(t("seat", self.lang, n=s + 1) if ai else self.seat_name(s)
                            for s in turn.seats)
        return self.tr("status.waiting_ai" if ai else "status.waiting_for", who=who, what=what)

    def highlighted_card(self):
        return None

    def follow_turn(self, update) -> None:
        """Under a dialog once the table has gone on to another phase (the bid results on
        screen while the seats already build): the board beneath stays the old phase's
        (it is replaced when the dialog closes), its top bar says what the table is at —
        the phase, and whose decision it is and what."""
        if not self._ready or self.app.leaving or not self.is_attached:
            return
        from tactical_tui.text.catalog import ui
        keep, self.latest = self.latest, update
        try:
            status = self.status()
        finally:
            self.latest = keep
        phase = ui("phase." + update.observation.phase, self.lang)
        self.set_topbar([phase[:1].upper() + phase[1:], self.seat_name(self.seat)], status,
                        reserve=self.battle_reserve() if update.observation.phase == "battle" else 0)
        # the old phase's board and keys are no longer the table's: hidden, so that they
        # do not show under the new top bar in the moment between the dialog closing and
        # the new phase's screen (issue 32 point 9: the build's e/m/u/r/c under a battle
        # top bar)
        from textual.widgets import Footer
        for widget in (self.query_one("#body"), self.query_one(Footer)):
            widget.display = False

    def battle_reserve(self) -> int:
        """The cells of the longest "Waiting for Seat 4 · AI: …" the battle may show at
        this table (topbar_text's `reserve`)."""
        n = len(self.latest.seats) if self.latest is not None else 0
        return max(cell_len(self.tr("status.waiting_ai", who=t("seat", self.lang, n=n),
                                    what=self.tr("doing." + k))) for k in BATTLE_KINDS)

    def set_topbar(self, parts: list[str], status: str, sep: str = " — ", reserve: int = 0) -> None:
        width = self.app.size.width - 2                 # the bar's padding
        self.query_one("#topbar", Static).update(
            as_text(topbar_text(parts, status, width, sep, reserve)))

    def row_width(self, list_id: str, cells: int) -> int:
        """`cells`, or fewer when the list is drawn narrower (a scroll bar): the width
        of a list's rows, so that no row wraps."""
        width = self.query_one(list_id, OptionList).scrollable_content_region.width
        return min(cells, width) if width > 0 else cells

    def table_version(self) -> object:
        """Changes whenever the table applies an action (or undoes one)."""
        return self.latest.version if self.latest is not None else None

    def question_key(self) -> tuple:
        """Tells a new question of this seat from the same one redrawn: the decision's
        kind and where in the history it began (after this seat's last action); while
        the seat is not asked, the phase's waiting view is one question of its own (so
        the question that follows it is a new one)."""
        if not self.my_turn():
            return ("view", self.obs.phase)
        return (self.obs.phase,) + tuple(self.question or ())   # (asked_at, kind) of the table

    def answer_context(self) -> tuple:
        return self.seat, self.table_version()

    def fill(self, list_id: str, title: str, options: list[Option], selectable: int | None = None,
             give_up=()) -> OptionList:
        """Show this seat's question in a list (`QuestionList.show`): the cursor stays
        where the player put it while the same question is redrawn, and starts on the
        first option (not one of `give_up`, ids) of a new one. Only the first
        `selectable` options can take the cursor (all by default)."""
        ol = self.query_one(list_id, QuestionList)
        ol.border_title = title
        live = self.my_turn()
        ol.show(self.question_key(), options, live=live, give_up=give_up, selectable=selectable)
        self.question_shown(self.asked_now())
        return ol

    def asked_now(self) -> bool:
        """Does this seat have something to answer on this screen now?"""
        return self.my_turn()

    def action_select_current(self) -> None:
        if isinstance(self.focused, OptionList):
            self.focused.action_select()

    def _on_option_list_option_selected(self, event) -> None:
        """After the screen's own handler: a row chosen that sent nothing was no answer;
        the keys held since go to the same question."""
        gate = key_gate(self.app)
        if gate.withdraw():
            if isinstance(event.option_list, QuestionList):
                event.option_list.live = self.my_turn()
            if gate.draining:
                self.call_later(self._drain)

    def action_auto(self) -> None:
        self.answer_given()
        key_gate(self.app).sent = True
        self._refused_unless_applied(self.app.action_auto)

    def action_undo(self) -> None:
        self.answer_given()
        key_gate(self.app).sent = True
        self._refused_unless_applied(self.app.action_undo)

    def _refused_unless_applied(self, act) -> None:
        """Run the app's `act` (submit, undo, auto): unless the table applied it, the keys
        held for the next question are dropped (the refusal's message says why)."""
        if not act():
            self.answer_refused()

    def action_details(self) -> None:
        cid = self.highlighted_card()
        if cid:
            self.app.show_card(cid)
        else:                            # said, not silent (issue 32)
            self.app.notify(self.tr("details.none"))

    def send(self, action) -> None:
        """This seat's answer to the table. Keys typed after it wait for the next question
        (`KeyGate`); a refusal drops them (the message says why)."""
        self.answer_given()
        key_gate(self.app).sent = True
        self._refused_unless_applied(lambda: self.app.submit(action))

    def refresh_view(self) -> None:  # pragma: no cover - overridden
        pass


# ----------------------------------------------------------------------------- draft

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


# --------------------------------------------------------------------------- bidding

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


# ----------------------------------------------------------------------------- build

class BuildScreen(GameScreen):
    # Enter works (it switches a card between equipped and unused) but the Footer leaves
    # it out: e and u say it, and with a server's chat key the Footer was cut at 80
    # columns ("… c Confirm / C", issue 32 point 8)
    KEYS = [k if k[0] != "enter" else (k[0], k[1], k[2], False, *k[4:]) for k in GameScreen.KEYS] \
        + [("e", "zone('equip')", "key.equip", True),
           ("m", "zone('materialize')", "key.materialize", True),
           ("u", "zone('unused')", "key.unused", True),
           ("r", "race", "key.race", True),
           ("c", "confirm", "key.confirm", True),
           ("w", "unconfirm", "key.unconfirm", True)]
    EDITING = ("zone", "race", "confirm", "cycle")

    def waiting(self) -> bool:
        """The waiting view: this seat has confirmed and the build is still open (§5-4)."""
        obs = self.obs
        return obs.phase == "build" and obs.seats[self.seat].confirmed

    def asked_now(self) -> bool:
        return self.my_turn() or self.waiting()     # the waiting view answers `w`

    def check_action(self, action: str, parameters) -> bool | None:
        """The Footer shows `w` (take the confirmation back) on the waiting view only, and
        hides the editing keys there."""
        if self.latest is None or not self._ready:
            return action != "unconfirm"
        if action == "unconfirm":
            return self.waiting()
        if action in self.EDITING and self.waiting():
            return False
        return True

    def compose_body(self) -> ComposeResult:
        with Horizontal(classes="main"):
            yield QuestionList(id="cards", classes="panel")
            yield Static("", id="check", classes="panel side")

    def question_key(self) -> tuple:
        """The whole build (and the reveal's fixes) is one question: the cursor stays on
        its card while cards change zone, and while the other seats build."""
        return ("build", self.obs.phase)

    def zone_of(self, obs, c) -> str:
        return "equip" if c in obs.equipped else "materialize" if c in obs.materialized else "unused"

    def refresh_view(self) -> None:
        obs = self.obs
        race = obs.race
        race_text = self.tr("build.race", race=self.cards.race(race).name.get(self.lang)) if race \
            else self.tr("build.no_race")
        self.set_topbar([self.tr('build.title'), self.seat_name(self.seat), race_text], self.status())
        # a stable order (attack cards first, then by kind and name) so the cursor stays on
        # the card it was on when the card changes zone
        kinds = {"weapon": 0, "magic": 1, "armor": 2, "shield": 3, "accessory": 4}
        owned = sorted(obs.equipped + obs.materialized + obs.hand,
                       key=lambda c: (kinds[self.cards.card(c).type], self.cards.card(c).name.get(self.lang), c))
        width = self.row_width("#cards", 41)
        ol = self.fill("#cards", self.tr("build.cards"), [
            Option(card_line(self.cards, c, self.lang, width,
                             extra=f"[{self.tr('zone.' + self.zone_of(obs, c))}] "), id=c)
            for c in owned])
        ol.focus()
        self.query_one("#check", Static).update(wrapped(self, self.check_text(obs)))
        self.query_one("#check", Static).border_title = self.tr("build.check")
        self.refresh_bindings()

    def check_text(self, obs) -> Text:
        cards = self.cards
        me = obs.seats[self.seat]
        revealed = me.material if obs.phase == "reveal" and me.race else None
        avail = available_material(cards, me.guild, obs.materialized) if revealed is None else revealed
        cost = equip_cost(cards, obs.equipped)
        stats = final_stats(cards, obs.race, obs.equipped)
        lines = [self.tr("build.slots", n=hand_slots_used(cards, obs.equipped))]
        parts = {cards.card(c).part for c in obs.equipped if cards.card(c).type == "armor"}
        names = {"head": "頭", "body": "胴", "arms": "腕", "legs": "脚"} if self.lang == "ja" else \
            {"head": "head", "body": "body", "arms": "arms", "legs": "legs"}
        lines.append(self.tr("build.parts") + ": " + " ".join(
            (names[p] if p in parts else "-") for p in ("head", "body", "arms", "legs")))
        mark = "✓" if cost <= avail else "✗"
        lines.append(f"{mark} " + self.tr("build.material", have=avail, cost=cost))
        lines.append(self.tr("build.stats") + ": " + " ".join(
            f"{STAT_SHORT[self.lang][k]}{v}" for k, v in stats.items()))
        usable = usable_skills(cards, obs.equipped, stats, self.lang)
        lines.append(self.tr("build.skills") + ": " + ("、" if self.lang == "ja" else ", ").join(usable or ["-"]))
        v = violations(cards, obs.race, obs.equipped, avail)
        if v:
            for x in v:
                lines.append(self.tr("build.bad", reason=self.violation_text(x)))
        else:
            lines.append(self.tr("build.ok"))
        if not any(cards.card(c).is_attack for c in obs.equipped):
            lines.append(self.tr("build.no_attack"))
        for c in obs.equipped:
            card = cards.card(c)
            have = series_short(cards, c, obs.equipped)
            if have is not None and card.skills:
                series = next(x for x in cards.series if x.id == card.series)
                lines.append(self.tr("build.series_off", card=card.name.get(self.lang),
                                     series=series.name.get(self.lang), have=have))
            elif card.is_attack and not any(sk.effect.kind == "range" and sk.requires.met_by(stats)
                                            for sk in card.skills):
                lines.append(self.tr("build.no_range", card=card.name.get(self.lang)))
        if obs.seats[self.seat].confirmed and obs.phase == "build":
            lines.append("")
            lines.append(self.tr("build.waiting"))
            lines.append(self.tr("build.unconfirm"))
        if obs.pending.kind == "reveal_fix" and self.seat in obs.pending.seats:
            lines.append(self.tr("reveal.fix"))
        lines.append(self.tr("zone.legend"))
        lines.append(self.tr("legend.cbm"))
        return lines_text(lines)

    def violation_text(self, v) -> str:
        names = ("、" if self.lang == "ja" else ", ").join(self.cards.card(c).name.get(self.lang) for c in v.cards)
        base = t("violation." + v.code, self.lang)
        if v.code in ("hand_slots", "material"):
            return f"{base} ({v.have}/{v.limit})"
        return f"{base}: {names}" if names else base

    def highlighted_card(self):
        ol = self.query_one("#cards", OptionList)
        if ol.highlighted is None or not ol.option_count:
            return None
        return ol.get_option_at_index(ol.highlighted).id

    def action_zone(self, zone: str) -> None:
        c = self.highlighted_card()
        if c is None or not self.my_turn():
            return
        obs = self.obs
        if obs.pending.kind == "reveal_fix":
            if zone == "unused":
                self.send(A.Remove(self.seat, c))
            return
        if self.zone_of(obs, c) == zone:
            return
        if c in obs.materialized:       # §5-4: face up in the discard for good (R6)
            self.app.notify(self.tr("build.materialized_final",
                                    card=self.cards.card(c).name.get(self.lang)))
            return
        if zone == "materialize" and not self.cards.card(c).is_attack:
            self.ask_materialize(c)
            return
        self.send(A.Assign(self.seat, c, zone))

    def ask_materialize(self, c: str) -> None:
        """§5-4 マテリアル化 (RULINGS R6): public and final — asked before it is sent."""
        card = self.cards.card(c)
        action = A.Assign(self.seat, c, "materialize")

        def done(yes) -> None:
            if yes and self.latest is not None and action in self.obs.legal:
                self.send(action)
        self.app.push_screen(localized(ConfirmScreen, self.lang)(self.tr(
            "build.materialize_ask", card=card.name.get(self.lang), material=card.material)),
            done)

    def action_cycle(self) -> None:
        """Enter: unused ↔ equipped (materializing is `m`: asked first, final)."""
        c = self.highlighted_card()
        if c is None:
            return
        z = self.zone_of(self.obs, c)
        self.action_zone("unused" if z == "equip" else "equip")

    def on_option_list_option_selected(self, event) -> None:
        self.action_cycle()

    def action_race(self) -> None:
        if not self.my_turn():
            return
        obs = self.obs
        cands = obs.seats[self.seat].race_candidates
        nxt = cands[0] if obs.race != cands[0] else cands[1]
        if obs.pending.kind == "build":
            self.send(A.ChooseRace(self.seat, nxt))

    def action_unconfirm(self) -> None:
        """§5-4 (RULINGS R4): take the confirmation back while another seat has not
        confirmed — at once, even while an AI seat is thinking (the table applies its
        decision afterwards only if it is still legal)."""
        if self.latest is None or not self.is_current:
            return
        if A.Unconfirm(self.seat) not in self.obs.legal:
            if self.obs.phase != "build":
                self.app.notify(self.tr("build.final"))
            return
        self.send(A.Unconfirm(self.seat))

    def action_confirm(self) -> None:
        if not self.my_turn() or self.obs.pending.kind != "build":
            return
        obs = self.obs
        me = obs.seats[self.seat]
        avail = available_material(self.cards, me.guild, obs.materialized)
        v = violations(self.cards, obs.race, obs.equipped, avail)
        if v:
            self.app.notify(self.tr("build.refused", reason=self.violation_text(v[0])), severity="error")
            return
        self.send(A.Confirm(self.seat))


# ---------------------------------------------------------------------------- battle

class BattleScreen(GameScreen):
    KEYS = GameScreen.KEYS + GameScreen.SKIP_AI

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="top-row"):
            yield Static("", id="field", classes="panel")
            yield Static("", id="seats", classes="panel side")
        with Horizontal(id="mid-row"):
            yield QuestionList(id="actions", classes="panel")
            yield Static("", id="info", classes="panel side")

    def action_label(self, a) -> str:
        c, lang = self.cards, self.lang
        obs = self.obs
        me = obs.seats[self.seat]
        if isinstance(a, A.Move):
            return self.tr("act.move", area=step_area(me.area, a.step))
        if isinstance(a, A.Rest):
            full = me.race and me.mana >= final_stats(c, me.race, me.equipped)["mana"]
            return self.tr("act.rest_full" if full else "act.rest")
        if isinstance(a, A.EndTurn):
            return self.tr("act.end")
        if isinstance(a, (A.StartAttack, A.StartCounter)):
            kind = "act.attack" if isinstance(a, A.StartAttack) else "act.counter"
            if a.skill is None:             # one row for the card: its range comes next
                ranges = [c.skill(b.skill).name.get(lang) for b in self.obs.legal
                          if type(b) is type(a) and b.card == a.card and b.skill is not None]
                return self.tr(kind + "_card", card=c.card(a.card).name.get(lang),
                               ranges=("・" if lang == "ja" else " / ").join(ranges))
            return self.tr(kind, card=c.card(a.card).name.get(lang), skill=c.skill(a.skill).name.get(lang))
        if isinstance(a, A.Activate):
            return self.tr("act.activate", skill=c.skill(a.skill).name.get(lang))
        if isinstance(a, A.Declare):
            name = c.skill(a.skill).name.get(lang)
            twin = any(isinstance(b, A.Declare) and b.card != a.card
                       and c.skill(b.skill).name.get(lang) == name for b in getattr(self, "_actions", ()))
            if twin:      # two cards with a skill of that name: which card's (Barrier)
                return self.tr("act.declare_card", skill=name, card=c.card(a.card).name.get(lang),
                               mana=c.skill(a.skill).mana)
            return self.tr("act.declare", skill=name, mana=c.skill(a.skill).mana)
        if isinstance(a, A.Done):
            return self.tr("act.done_targets" if obs.pending.kind == "targets" else "act.done")
        if isinstance(a, A.ChooseTarget):
            s = obs.seats[a.target]
            crit = ""
            atk = obs.battle.attack
            if atk is not None and s.area is not None:
                rng_ = c.skill(atk.range_skill).effect.range
                if distance(me.area, s.area) == RANGE_CRIT[rng_]:
                    crit = self.tr("act.crit")
            # short enough that the target and its ★critical mark share one line
            label = self.tr("act.target", seat=self.seat_name(a.target), area=s.area, hp=s.hp)
            return label + " " + crit if crit else label
        if isinstance(a, A.ChooseArea):
            return self.tr("act.area", area=a.area)
        if isinstance(a, A.UseUnluck):
            return self.tr("act.unluck")
        if isinstance(a, A.Decline):
            return self.tr("act.keep_unluck" if obs.pending.kind == "unluck" else "act.no_counter")
        if isinstance(a, A.Draw):
            return self.tr("act.draw")
        if isinstance(a, A.Stop):
            return self.tr("act.stop")
        return type(a).__name__

    @staticmethod
    def one_row_per_card(legal: list) -> list:
        """The attacks and counters as one row per card (RULINGS R22 lets the rules offer
        each card with each range skill and the card alone: the list showed every card
        twice, "Fire Bolt (Mid Range)" and "Fire Bolt (range later)"): a card with one
        range skill is its attack with that range; a card with several is the card alone,
        its range then chosen in the next step among the skills."""
        starts = (A.StartAttack, A.StartCounter)
        ranged: dict = {}
        for a in legal:
            if isinstance(a, starts) and a.skill is not None:
                ranged.setdefault((type(a), a.card), []).append(a)
        out = []
        for a in legal:
            if not isinstance(a, starts):
                out.append(a)
            elif a.skill is None:           # (kept unless its one range has its row)
                out.append(None if len(ranged.get((type(a), a.card), ())) == 1 else a)
            elif len(ranged[(type(a), a.card)]) == 1:
                out.append(a)
        return [a for a in out if a is not None]

    def highlight_areas(self):
        """(attack area, crit area) of the highlighted attack option or attack in progress
        (a card whose range comes next: the areas of all its ranges)."""
        obs = self.obs
        atk = obs.battle.attack if obs.battle else None
        skills = []
        seat = self.seat
        if atk is not None and atk.stage != "done" and atk.range_skill is not None:
            skills, seat = [atk.range_skill], atk.attacker
        else:
            ol = self.query_one("#actions", OptionList)
            if ol.highlighted is not None and ol.highlighted < len(self._actions):
                a = self._actions[ol.highlighted]
                if isinstance(a, (A.StartAttack, A.StartCounter)) and a.skill is None:
                    skills = [b.skill for b in obs.legal if type(b) is type(a)
                              and b.card == a.card and b.skill is not None]
                elif isinstance(a, (A.StartAttack, A.StartCounter)) or (
                        isinstance(a, A.Declare) and self.cards.skill(a.skill).effect.kind == "range"):
                    skills = [a.skill]
        if not skills or obs.seats[seat].area is None:
            return set(), set()
        here = obs.seats[seat].area
        area, crit = set(), set()
        for skill in skills:
            rng_ = self.cards.skill(skill).effect.range
            lo, hi = RANGE_AREA[rng_]
            area |= {x for x in range(1, AREAS + 1) if lo <= distance(here, x) <= hi}
            crit |= {x for x in range(1, AREAS + 1) if distance(here, x) == RANGE_CRIT[rng_]}
        return area, crit

    def field_text(self) -> Text:
        obs = self.obs
        attack_area, crit_area = self.highlight_areas()
        occupants = {x: [] for x in range(1, AREAS + 1)}
        for s in obs.seats:
            if s.area is not None:
                occupants[s.area].append(s.seat)

        def cell(x: int) -> Text:
            # an area is a plain number, a seat a circled one (② is Seat 2, @ is you):
            # "!5!①③" reads "area 5, critical, holds seats 1 and 3" at any seat count
            label = f"!{x}!" if x in crit_area else f"[{x}]" if x in attack_area else f" {x} "
            who = "".join(seat_mark(s, self.seat) for s in occupants[x])
            style = "bold reverse" if x in crit_area else "reverse" if x in attack_area else ""
            return Text(label, style=style) + Text(pad(who, 5))
        sp = lambda n: Text(" " * n)
        others = [s.seat for s in obs.seats if s.seat != self.seat][:1]
        example = "".join(f" {seat_mark(s, self.seat)}={t('seat', self.lang, n=s + 1)}" for s in others)
        rows = [sp(7) + cell(1) + Text("── ") + cell(2),
                cell(6) + sp(18) + cell(3),
                sp(7) + cell(5) + Text("── ") + cell(4),
                Text("@=" + self.tr("you") + example + " " + self.tr("battle.legend"))]
        out = Text()
        for i, row in enumerate(rows):
            if i:
                out.append("\n")
            out.append_text(row)
        return out

    def seats_text(self) -> Text:
        obs = self.obs
        lines = []
        for s in (obs.seats[i] for i in (obs.order or range(len(obs.seats)))):
            turn = "▶" if obs.battle and obs.battle.turn.seat == s.seat else " "
            final = final_stats(self.cards, s.race, s.equipped)["mana"] if s.race else 0
            where = self.tr("battle.out") if s.knocked_out else \
                self.tr("battle.at", area=s.area if s.area else "-")
            figures = (f" HP{s.hp} {'魔' if self.lang == 'ja' else 'MP'}{s.mana}/{final} VP{s.vp} "
                       f"{'U' if self.lang == 'en' else 'ア'}{s.unluck} {where}")
            lines.append((turn, s.seat, figures))
        # one line a seat, the knocked-out mark included: the names give way first
        room = max(4, min(11, SEAT_ROW - 1 - max((cell_len(f) for _, _, f in lines), default=0)))
        rows = [clip(turn + pad(self.seat_label(seat, room), room) + figures, SEAT_ROW)
                for turn, seat, figures in lines]
        return Text("\n".join(rows), no_wrap=True, overflow="ellipsis")

    def seat_label(self, seat: int, room: int) -> str:
        """The seat's name in the seats panel, in `room` cells: "Seat 3 hanako", or, when
        that is wider, the seat as the field marks it and its player's name — "③ hanako",
        "③·AI" (issue 32 point 8: the names were cut, "Seat 3 han…")."""
        name = self.seat_name(seat)
        if cell_len(name) <= room or (seat == self.seat and self.is_human(seat)):
            return name
        return seat_mark(seat, -1) + ("" if self.is_human(seat) else "·AI") + self.player_name(seat)

    def info_text(self) -> Text:
        obs = self.obs
        atk = obs.battle.attack if obs.battle else None
        lines = []
        if atk is not None and atk.bag:
            chip = lambda c: t("chip." + c, self.lang) if c in ("miss", "crit") else c
            owner = self.bag_owner(atk)
            lines.append(owner[:1].upper() + owner[1:] + ": " + " ".join(chip(c) for c in atk.bag))
        if atk is not None and atk.drawn:
            from rules.battle import running_total
            chip = lambda c: t("chip." + c, self.lang) if c in ("miss", "crit") else c
            lines.append(f"{self.tr('battle.drawn')}: " + " ".join(chip(c) for c in atk.drawn)
                         + "  " + self.tr("battle.total", n=running_total(atk.drawn)))
            if atk.bag and obs.pending.kind == "draw":
                n = len(atk.bag)
                miss = atk.bag.count("miss")
                zero = atk.bag.count("0")
                lines.append(self.tr("battle.odds", miss=miss, zero=zero, pos=n - miss - zero, n=n))
        stats = final_stats(self.cards, obs.race, obs.equipped) if obs.race else None
        lines.append(self.tr("battle.mybuild") + ":")
        for c in sorted(obs.equipped, key=lambda c: not self.cards.card(c).is_attack):
            card = self.cards.card(c)
            sk = []
            for s in card.skills:
                ok = skill_works(self.cards, c, s, stats, obs.equipped)
                sk.append(("✓" if ok else "✗") + s.name.get(self.lang))
            lines.append(" " + card.name.get(self.lang) + " " + " ".join(sk))
        me = obs.seats[obs.seat]
        trait = self.cards.guild(me.guild).battle_skill     # §4 「各バトル中1回」 (RULINGS R2)
        if trait is not None:
            lines.append(self.tr("battle.trait", skill=trait.name.get(self.lang), state=self.tr(
                "battle.trait_used" if me.trait_used else "battle.trait_unused")))
        return lines_text(lines)

    def bag_owner(self, atk) -> str:
        """Whose bag the chips are drawn from: "Seat 2's counter bag", "your attack bag"."""
        kind = "counter" if atk.counter else "attack"
        if atk.attacker == self.seat:
            return self.tr("battle.bag_mine." + kind)
        return self.tr("battle.bag_of." + kind, who=t("seat", self.lang, n=atk.attacker + 1))

    def refresh_view(self) -> None:
        obs = self.obs
        rnd = obs.battle.round if obs.battle else 0
        stage = obs.pending.kind
        atk = obs.battle.attack if obs.battle else None
        if stage == "skills" and atk is not None and atk.range_skill is None:
            stage = "range"             # the card alone: its range skill comes first
        prompt = self.tr("stage." + stage) if self.my_turn() and ("stage." + stage) in TUI \
            else self.status()
        if self.my_turn() and stage in ("unluck", "draw") and atk is not None:
            prompt += f" ({self.bag_owner(atk)})" if self.lang == "en" else f"（{self.bag_owner(atk)}）"
        self.set_topbar([self.tr('battle.title' if rnd else 'battle.title0', r=rnd),   # round 0: §6 初期手番
                         self.seat_name(self.seat)], prompt, reserve=self.battle_reserve())
        legal = self.one_row_per_card(self.legal())     # what gives something up comes last
        self._actions = [a for a in legal if not isinstance(a, GIVE_UP)] + \
            [a for a in legal if isinstance(a, GIVE_UP)]
        ol = self.fill("#actions", self.tr("battle.actions"),
                       [Option(wrapped(self, as_text(self.action_label(a))), id=str(i))
                        for i, a in enumerate(self._actions)],
                       give_up=[str(i) for i, a in enumerate(self._actions) if isinstance(a, GIVE_UP)])
        ol.focus()
        f = self.query_one("#field", Static)
        f.border_title = self.tr("battle.field")
        f.update(self.field_text())
        seats = self.query_one("#seats", Static)
        seats.border_title = self.tr("bid.seats")
        seats.update(self.seats_text())
        info = self.query_one("#info", Static)
        info.border_title = self.tr("battle.info")
        info.update(wrapped(self, self.info_text()))

    def on_option_list_option_highlighted(self, event) -> None:
        if event.option_list.id == "actions":
            self.query_one("#field", Static).update(self.field_text())

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if self.my_turn() and event.option_index < len(self._actions):
            self.send(self._actions[event.option_index])

    def highlighted_card(self):
        ol = self.query_one("#actions", OptionList)
        if ol.highlighted is None or ol.highlighted >= len(getattr(self, "_actions", [])):
            return None
        return getattr(self._actions[ol.highlighted], "card", None)


# ------------------------------------------------------------------------- game over

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
