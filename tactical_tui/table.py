"""The table: one running game, outside any screen (DESIGN.md "The table").

It owns the current state and its history, knows which seats are human and which are
AI, asks the AI for moves (the app runs that in a worker), and keeps the log. A screen
shows one seat's observation and sends that seat's actions here.
"""

from __future__ import annotations

from pathlib import Path
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
    notes: list = field(init=False, factory=list)        # per action: saves.AINote or None
    log: list[LogEntry] = field(init=False, factory=list)
    players: dict = field(init=False, factory=dict)
    listeners: list[Callable[[list[LogEntry]], None]] = field(init=False, factory=list)
    save_path: Optional[Path] = None          # autosave here after every action
    lang: str = "en"
    save_problem: Optional[str] = field(init=False, default=None)   # English, for logs
    save_error: Optional[OSError] = field(init=False, default=None)  # its cause
    lock: object = None                       # saves.GameLock held on save_path while open

    def __attrs_post_init__(self) -> None:
        if len(self.seats) != self.config.players:
            raise ValueError("one seat setup per player")
        self._start()

    def _start(self) -> None:
        self.state, events = new_game(self.config, self.cards, self.seed)
        self.history = []
        self.notes = []
        self.log = [LogEntry(event=e) for e in events]
        self.players = {i: make_player(s.level, self.seed * 101 + i, self.cards)
                        for i, s in enumerate(self.seats) if not s.human}

    # ------------------------------------------------------------------ saving
    def save_data(self):
        from rules.cards import fingerprint
        from .saves import FORMAT, SaveData, SeatEntry
        return SaveData(FORMAT, self.seed, self.config,
                        tuple(SeatEntry(s.human, s.level) for s in self.seats),
                        tuple(self.history), self.lang, self.over,
                        tuple(n for n in self.notes if n is not None),
                        card_data=fingerprint(self.state.cards))

    def autosave(self) -> None:
        """Write the save file (atomically); a failure is remembered, play goes on."""
        if self.save_path is None:
            return
        from .saves import to_json, write_atomic
        try:
            write_atomic(self.save_path, to_json(self.save_data()))
            self.save_problem = self.save_error = None
        except OSError as exc:
            from .text import os_error_text
            self.save_error = exc
            self.save_problem = f"{self.save_path}: {os_error_text(exc, 'en')}"

    def close(self) -> None:
        """Leave the game: let other windows open its save (releases the lock)."""
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    @classmethod
    def from_save(cls, data, cards: CardSet, source: str, save_path: Optional[Path] = None
                  ) -> "GameTable":
        """Restore a saved game exactly: replay its actions from the seed. No AI is asked:
        each AI seat takes its own actions as remembered (its memory saved with them),
        and the log shows the reasons saved with them."""
        from .saves import SaveError, check_card_data
        check_card_data(data, cards, source)      # other card data: said before replaying
        seats = tuple(SeatSetup(s.human, s.level) for s in data.seats)
        try:
            table = cls(data.config, seats, data.seed, cards, save_path=save_path, lang=data.lang)
        except ValueError as exc:
            raise SaveError(source, "cannot_start", detail=exc) from None
        notes = {n.n: n for n in data.ai}
        try:
            table.rebuild(list(data.actions), source,
                          [notes.get(i) for i in range(len(data.actions))])
        except SaveError as exc:
            if exc.code != "bad_action" or data.card_data:
                raise
            raise SaveError(source, exc.code, exc.refusal, **exc.params, unrecorded=True) from None
        return table

    def rebuild(self, actions: list, source: str = "history", notes: Optional[list] = None
                ) -> None:
        """The position after `actions`, from the seed, by the rules alone (no AI search:
        ai.base.Player.remember); `notes` (saves.AINote or None per action) give the AI
        seats' memory and the reasons for the log."""
        from rules import IllegalAction
        from .saves import SaveError
        self._start()
        notes = list(notes or [])
        for i, action in enumerate(actions):
            note = notes[i] if i < len(notes) else None
            seat = getattr(action, "seat", None)
            player = self.players.get(seat)
            if player is not None and self.state.phase != "over" and hasattr(player, "remember"):
                obs = observe(self.state, seat)
                if action in obs.legal:
                    player.remember(obs, obs.legal, action,
                                    dict(note.memo) if note is not None else None)
            reason = self._reason_of(note, seat, source, i) if seat in self.players else None
            try:
                self.state, events = apply(self.state, action)
            except IllegalAction as exc:
                raise SaveError(source, "bad_action", exc, n=i + 1,
                                action=type(action).__name__) from None
            self.history.append(action)
            self.notes.append(note if seat in self.players else None)
            if reason is not None:
                self.log.append(LogEntry(seat=seat, reason=reason))
            self.log.extend(LogEntry(event=e) for e in events)

    def _reason_of(self, note, seat, source: str, i: int):
        """The saved reason of an AI action as ai.normal.Reason, checked to read in both
        languages (a damaged one is named, not shown)."""
        if note is None or note.reason is None:
            return None
        from ai.explain import reason_text
        from ai.normal import Reason
        from .saves import SaveError
        reason = Reason(note.reason[0], tuple(sorted(note.reason[1])))
        try:
            for lang in ("ja", "en"):
                reason_text(reason, self.cards, lang)
        except Exception:  # noqa: BLE001 - anything a damaged note can make it raise
            raise SaveError(source, "damaged",
                            detail=f"the AI reason of action {i + 1} ({reason.key!r}) cannot be shown"
                            ) from None
        return reason

    # ------------------------------------------------------------------ undo
    def can_undo(self) -> bool:
        humans = self.humans
        return len(humans) == 1 and any(getattr(a, "seat", None) == humans[0]
                                        for a in self.history)

    def undo(self) -> bool:
        """Back to the human seat's previous decision (only with one human seat); the AI
        decisions after it are made again, with the same seeds."""
        if not self.can_undo():
            return False
        me = self.humans[0]
        last = max(i for i, a in enumerate(self.history) if getattr(a, "seat", None) == me)
        self.rebuild(self.history[:last], notes=self.notes[:last])
        self.autosave()
        return True

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
    def submit(self, action, note=None) -> list[LogEntry]:
        """Apply a seat's action (raises IllegalAction, the state unchanged)."""
        self.state, events = apply(self.state, action)
        self.history.append(action)
        self.notes.append(note)
        entries = [LogEntry(event=e) for e in events]
        self.log.extend(entries)
        self.autosave()
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
        """An AI seat's action, saved with its memory and (when the log shows it) its
        reason, so that resuming never asks the AI again."""
        from .saves import AINote
        public = self.state.phase in ("battle",) or pending(self.state).kind in ("auction", "appraisal")
        player = self.players.get(seat)
        memo = player.memory() if hasattr(player, "memory") else {}
        shown = reason if reason is not None and public else None
        saved = shown if shown is not None and _plain(v for _, v in shown.params) else None
        memo = tuple(sorted(memo.items())) if _plain(memo.values()) else ()
        note = AINote(len(self.history), (saved.key, tuple(saved.params)) if saved else None,
                      memo) if saved or memo else None
        entries = self.submit(action, note)
        if shown is not None:
            entry = LogEntry(seat=seat, reason=shown)
            self.log.insert(len(self.log) - len(entries), entry)   # the reason comes first
            entries = [entry] + entries
        return entries


def _plain(values) -> bool:
    """Every value can be saved in an AI note (saves._plain)."""
    from .saves import _plain as check
    try:
        for v in values:
            check(v)
    except ValueError:
        return False
    return True
