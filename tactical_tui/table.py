"""The table: one running game, outside any screen (DESIGN.md "The table").

It owns the current state and its history, knows which seats are human and which are
AI, asks the AI for moves (the app runs that in a worker), and keeps the log. A screen
shows one seat's observation and sends that seat's actions here.
"""

from __future__ import annotations

from typing import Callable, Optional

from attrs import define, field, frozen

from ai import make_player
from rules import Config, GameState, apply, new_game, observe, pending
from rules.cards import CardSet, default_cards
from rules.events import Event, visible


@frozen
class SeatSetup:
    human: bool
    level: str = "normal"            # AI level when not human

    def label(self) -> str:
        return "human" if self.human else self.level


@frozen
class LogEntry:
    """One line of the log: an event, or an AI seat's reason for a decision."""

    event: Optional[Event] = None
    seat: Optional[int] = None       # for reasons: whose
    reason: object = None            # ai.normal.Reason


@define
class GameTable:
    config: Config
    seats: tuple[SeatSetup, ...]
    seed: int
    cards: CardSet = field(factory=default_cards)
    state: GameState = field(init=False)
    history: list = field(init=False, factory=list)      # actions applied, in order
    log: list[LogEntry] = field(init=False, factory=list)
    players: dict = field(init=False, factory=dict)
    listeners: list[Callable[[list[LogEntry]], None]] = field(init=False, factory=list)

    def __attrs_post_init__(self) -> None:
        if len(self.seats) != self.config.players:
            raise ValueError("one seat setup per player")
        self.state, events = new_game(self.config, self.cards, self.seed)
        self.log.extend(LogEntry(event=e) for e in events)
        for i, s in enumerate(self.seats):
            if not s.human:
                self.players[i] = make_player(s.level, self.seed * 101 + i, self.cards)

    # ------------------------------------------------------------------ queries
    @property
    def humans(self) -> tuple[int, ...]:
        return tuple(i for i, s in enumerate(self.seats) if s.human)

    @property
    def over(self) -> bool:
        return self.state.phase == "over"

    def pending(self):
        return pending(self.state)

    def human_to_act(self) -> Optional[int]:
        d = pending(self.state)
        return next((s for s in d.seats if self.seats[s].human), None)

    def ai_to_act(self) -> Optional[int]:
        d = pending(self.state)
        return next((s for s in d.seats if not self.seats[s].human), None)

    def observe(self, seat: int):
        return observe(self.state, seat)

    def log_for(self, seat: Optional[int]) -> list[LogEntry]:
        """The log as `seat` may see it (secret events of other seats left out)."""
        return [e for e in self.log if e.event is None or visible(e.event, seat)]

    # ------------------------------------------------------------------ acting
    def submit(self, action) -> list[LogEntry]:
        """Apply a seat's action (raises IllegalAction, the state unchanged)."""
        self.state, events = apply(self.state, action)
        self.history.append(action)
        entries = [LogEntry(event=e) for e in events]
        self.log.extend(entries)
        for fn in self.listeners:
            fn(entries)
        return entries

    def ai_decide(self, seat: int):
        """The AI seat's decision and reason, from its observation only (no side effects
        on the table; the app calls this in a worker thread)."""
        obs = observe(self.state, seat)
        player = self.players[seat]
        if hasattr(player, "choose_explained"):
            return player.choose_explained(obs, obs.legal)
        return player.choose(obs, obs.legal), None

    def hint(self, seat: int):
        """What the normal AI would do for a human seat, and why."""
        from ai.normal import NormalPlayer
        obs = observe(self.state, seat)
        return NormalPlayer(self.cards, self.seed).choose_explained(obs, obs.legal)

    def submit_ai(self, seat: int, action, reason) -> list[LogEntry]:
        public = self.state.phase in ("battle",) or pending(self.state).kind in ("auction", "appraisal")
        entries = self.submit(action)
        if reason is not None and public:
            entry = LogEntry(seat=seat, reason=reason)
            self.log.insert(len(self.log) - len(entries), entry)   # the reason comes first
            entries = [entry] + entries
        return entries
