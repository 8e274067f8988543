"""The base of every phase screen (GameScreen) and what the phase screens share: the
top bar's text, and which printed skills work (§5-4's series rule). Each phase screen is
a view of one seat: it shows that seat's latest update from the table
(tactical_tui.table.live.Update: observation, log, whose decision) — redrawn on every
update, whoever acted — and sends that seat's actions (through the app to the table).
The phase screens: screens.draft, screens.bid, screens.build, screens.battle,
screens.gameover (screens.phases says which shows which phase)."""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import OptionList, RichLog, Static
from textual.widgets.option_list import Option

from tactical_tui.text.i18n import TUI, clip, t
from tactical_tui.text.safe import as_text
from tactical_tui.widgets.logview import LogView
from tactical_tui.widgets.base import BaseScreen, QuestionList, key_gate


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

    ready = False

    def on_mount(self) -> None:
        if self.app.leaving:             # the app is shutting down (a signal): draw nothing
            return
        self.ready = True
        self.sync_log()
        self.refresh_view()

    def show(self, update) -> None:
        """A new update from the table (any seat's action, an AI starting to think):
        redraw from it (once mounted; it draws itself on mount)."""
        self.latest = update
        self.update_view()

    def update_view(self) -> None:
        """Refresh once the screen is mounted (it refreshes itself on mount)."""
        if self.ready and not self.app.leaving and self.is_attached:
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
        if not self.ready or self.app.leaving or not self.is_attached:
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
