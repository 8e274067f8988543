"""The table: one running game, outside any screen (DESIGN.md "The table").

`GameTable` is the game's record: the current state and its history, which seats are
human and which are AI, the log, autosave, resume and the undo mechanism — synchronous,
usable headless. `LiveTable` runs it: the AI seats (off the event loop, with the AI
pause), the undo rule (`GameTable.undo_refusal`), and publishing. Its interface is
messages, usable from asyncio, so that a view in another process can be served the same:

    live = LiveTable(game, ai_delay=0.4)
    feed = live.subscribe(seat)          # or subscribe(seat, callback=fn); None: spectator
    async for update in feed: ...        # Update: version, entries, observation, turn, undo
    live.submit(seat, action)            # -> Applied(version) | Refused(code, params)
    live.undo(seat)                      # -> Applied(version) | Refused(code, params)
    live.start(); ...; live.close()      # the AI task; close stops it and frees the save

A view (a phase screen, a spectator, a client) shows one seat's latest observation and
submits that seat's actions only.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Callable, Optional

from attrs import define, field, frozen

from ai import make_player
from ai.selfplay import unfinished
from rules import Config, GameState, IllegalAction, apply, new_game, observe, pending
from rules import events as E
from rules.actions import Action
from rules.cards import CardSet, default_cards
from rules.events import Event, visible
from rules.observe import Observation, observe_public


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
    events_of: list = field(init=False, factory=list)    # per action: the events it made
    asks: list = field(init=False, factory=list)         # the decision before the first action
                                                         # and after each: (kind, seats)
    log: list[LogEntry] = field(init=False, factory=list)
    players: dict = field(init=False, factory=dict)
    listeners: list[Callable[[list[LogEntry]], None]] = field(init=False, factory=list)
    save_path: Optional[Path] = None          # autosave here after every action
    lang: str = "en"
    save_problem: Optional[str] = field(init=False, default=None)   # English, for logs
    save_error: Optional[OSError] = field(init=False, default=None)  # its cause
    lock: object = None                       # saves.GameLock held on save_path while open
    # how the game ended outside the rules: "agreement" (its players agreed to end it, no
    # winner: the rules end a game only at 5 VP, RULINGS R19), or "" (not so)
    ended: str = field(init=False, default="")

    def __attrs_post_init__(self) -> None:
        if len(self.seats) != self.config.players:
            raise ValueError("one seat setup per player")
        self._start()

    def _start(self) -> None:
        self.state, events = new_game(self.config, self.cards, self.seed)
        self.history = []
        self.notes = []
        self.events_of = []
        self.asks = [_ask(self.state)]
        self.log = [LogEntry(event=e) for e in events]
        self.players = {i: make_player(s.level, self.seed * 101 + i, self.cards)
                        for i, s in enumerate(self.seats) if not s.human}

    # ------------------------------------------------------------------ saving
    def save_data(self):
        from rules.cards import fingerprint
        from tactical_tui.table.saves import FORMAT, SaveData, SeatEntry
        return SaveData(FORMAT, self.seed, self.config,
                        tuple(SeatEntry(s.human, s.level) for s in self.seats),
                        tuple(self.history), self.lang, self.over,
                        tuple(n for n in self.notes if n is not None),
                        card_data=fingerprint(self.state.cards), ended=self.ended)

    def autosave(self) -> None:
        """Write the save file (atomically); a failure is remembered, play goes on."""
        if self.save_path is None:
            return
        from tactical_tui.table.saves import to_json, write_atomic
        try:
            write_atomic(self.save_path, to_json(self.save_data()))
            self.save_problem = self.save_error = None
        except OSError as exc:
            from tactical_tui.text.catalog import os_error_text
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
        from tactical_tui.table.saves import SaveError, check_card_data
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
        if data.ended and not table.over:
            table._mark_ended(data.ended)
        return table

    def rebuild(self, actions: list, source: str = "history", notes: Optional[list] = None
                ) -> None:
        """The position after `actions`, from the seed, by the rules alone (no AI search:
        ai.base.Player.remember); `notes` (saves.AINote or None per action) give the AI
        seats' memory and the reasons for the log."""
        from rules import IllegalAction
        from tactical_tui.table.saves import SaveError
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
            self.events_of.append(tuple(events))
            self.asks.append(_ask(self.state))
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
        from tactical_tui.table.saves import SaveError
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
    def can_undo(self, seat: Optional[int] = None) -> bool:
        return self.undo_refusal(self._undo_seat(seat)) is None

    def _undo_seat(self, seat: Optional[int]) -> Optional[int]:
        if seat is None and len(self.humans) == 1:
            return self.humans[0]
        return seat

    def undo_refusal(self, seat: Optional[int], hidden: Optional[Callable[[int], bool]] = None
                     ) -> Optional["Refused"]:
        """Why `seat` may not take its last decision back, or None if it may.

        Undo is for misclicks (the rule Board Game Arena uses): it goes back to the seat's
        last decision only while nothing that decision or any later one did has shown
        something new — a chance outcome (a chip drawn, a die rolled, a deck reshuffled)
        or hidden information (bids or builds revealed, cards dealt or passed, new
        targets from the deck) — and, with several human seats, only while no other human
        has decided since (their decision would be thrown away). AI decisions made since
        are taken back with it and made again from the same seeds (no search is
        repeated for the ones kept: ai.base.Player.remember).

        `hidden(j)`: action j is one `seat` may not know of (another seat's secret build
        step: LiveTable.known). Such an action is not named: when it is all that
        stands in the way, the refusal is `undo_another` (another player has decided
        since), without the seat; a refusal `seat` may know of comes first."""
        if seat is None or not 0 <= seat < len(self.seats) or not self.seats[seat].human:
            return Refused("undo_not_human", {})
        if self.over:
            return Refused("undo_game_over", {})
        mine = [i for i, a in enumerate(self.history) if getattr(a, "seat", None) == seat]
        if not mine:
            return Refused("undo_nothing", {})
        last = mine[-1]
        unnamed = None
        for j in range(last, len(self.history)):
            who = getattr(self.history[j], "seat", None)
            if j > last and who != seat and who is not None and self.seats[who].human:
                if hidden is None or not hidden(j):
                    return Refused("undo_other_human", {"seat": who})
                unnamed = unnamed or Refused("undo_another", {})
                continue
            for e in self.events_of[j]:
                code = UNDO_BLOCKERS.get(type(e))
                if code is not None:
                    return Refused(code, {})
        return unnamed

    def undo(self, seat: Optional[int] = None) -> bool:
        """Back to before `seat`'s last decision (the one human seat's by default), by the
        rules alone; the AI decisions after it are made again, with the same seeds. The
        rule of when a player may (`undo_refusal`) is the caller's: this is the mechanism."""
        seat = self._undo_seat(seat)
        mine = [i for i, a in enumerate(self.history) if getattr(a, "seat", None) == seat]
        if seat is None or not mine:
            return False
        last = mine[-1]
        self.rebuild(self.history[:last], notes=self.notes[:last])
        self.autosave()
        return True

    # ------------------------------------------------------------------ queries
    @property
    def humans(self) -> tuple[int, ...]:
        return tuple(i for i, s in enumerate(self.seats) if s.human)

    @property
    def over(self) -> bool:
        """The game is over: by the rules (5 VP), or ended by its players' agreement."""
        return self.state.phase == "over" or bool(self.ended)

    # ------------------------------------------------------------------ ending
    def end_by_agreement(self) -> list[LogEntry]:
        """End the game because its players agree to (no winner; DESIGN "The host": *ended
        by agreement*): what a table offers against a game that will not end, since the
        rules end one only at 5 VP (RULINGS R19). Recorded in the save; the new log
        entries, none if the game was over already."""
        if self.over:
            return []
        entries = self._mark_ended("agreement")
        self.autosave()
        for listener in list(self.listeners):
            listener(entries)
        return entries

    def _mark_ended(self, how: str) -> list[LogEntry]:
        self.ended = how
        entries = [LogEntry(event=E.GameOver((), how))]
        self.log.extend(entries)
        return entries

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
        self.events_of.append(tuple(events))
        self.asks.append(_ask(self.state))
        entries = [LogEntry(event=e) for e in events]
        self.log.extend(entries)
        self.autosave()
        for fn in self.listeners:
            fn(entries)
        return entries

    def ai_decide(self, seat: int, obs=None):
        """The AI seat's decision and reason, from its observation only (no side effects
        on the table; LiveTable calls this off the event loop with the observation)."""
        obs = obs if obs is not None else observe(self.state, seat)
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
        from tactical_tui.table.saves import AINote
        public = self.state.phase in ("battle",) or pending(self.state).kind in ("auction", "appraisal")
        player = self.players.get(seat)
        memo = player.memory() if hasattr(player, "memory") else {}
        shown = reason if reason is not None and public else None
        saved = shown if shown is not None and plain_values(v for _, v in shown.params) else None
        memo = tuple(sorted(memo.items())) if plain_values(memo.values()) else ()
        note = AINote(len(self.history), (saved.key, tuple(saved.params)) if saved else None,
                      memo) if saved or memo else None
        entries = self.submit(action, note)
        if shown is not None:
            entry = LogEntry(seat=seat, reason=shown)
            self.log.insert(len(self.log) - len(entries), entry)   # the reason comes first
            entries = [entry] + entries
        return entries


def _ask(state) -> tuple:
    """Whose decision it is and what (everyone may see it: Observation.pending)."""
    d = pending(state)
    return d.kind, tuple(d.seats)


def plain_values(values) -> bool:
    """Every value can be saved in an AI note (saves._plain)."""
    from tactical_tui.table.saves import plain_values as check
    try:
        for v in values:
            check(v)
    except ValueError:
        return False
    return True


# What makes a decision final (GameTable.undo_refusal): an event that showed a chance
# outcome or hidden information, by the refusal code that says so.
UNDO_BLOCKERS: dict = {
    E.ChipDrawn: "undo_chip", E.DieRolled: "undo_die", E.DeckReshuffled: "undo_reshuffle",
    E.HandDealt: "undo_cards", E.HandsPassed: "undo_cards", E.TargetsRevealed: "undo_targets",
    E.BidsRevealed: "undo_bids", E.BuildRevealed: "undo_builds", E.GameOver: "undo_game_over",
    # §5-4: a materialized card is face up in the discard at once — seen by every seat
    E.CardMaterialized: "undo_materialized",
}


# ---------------------------------------------------------------------- the messages
# Plain frozen data (no widgets, no callables): what a view receives and gets back. The
# network table of issue 17 puts these on the wire.

TABLE_REFUSALS = ("wrong_seat", "table_closed", "end_not_now")   # codes of the table, not of the rules


@frozen
class Applied:
    """`submit` / `undo` result: done; the table is now at `version`."""
    version: int


@frozen
class Refused:
    """`submit` / `undo` result: nothing changed. `code` is a rules refusal code
    (rules.actions, `IllegalAction.code`, also `not_an_action` and `game_over`) or the
    table's own (TABLE_REFUSALS: `wrong_seat`, `table_closed`; undo: `undo_*`); `params`
    are plain values a view translates (rules codes: tactical_tui.text.catalog.refusal_text; the
    table's: i18n "refused.<code>", undo's: i18n "undo.<code>")."""
    code: str
    params: dict = field(factory=dict)


@frozen
class Turn:
    """Whose decision it is and what: `kind` is rules.engine.Decision.kind, `seats` must
    decide (several in the draft and the build), `ai` the AI seats among them,
    `thinking` the AI seat whose decision is being computed now (or None)."""
    kind: str
    seats: tuple[int, ...]
    ai: tuple[int, ...] = ()
    thinking: Optional[int] = None


@frozen
class Update:
    """One change at the table, as one subscriber may see it.

    `version`: the actions applied so far that this seat may know of
    (`LiveTable.version_for`: not another seat's secret build steps; a replay's
    subscriber: every action). `entries`: the new log entries this seat may see
    (rules.events.visible; a spectator: public events only); with `reset` they are the
    whole log (the first update, and after an undo or anything that rewrote history).
    `observation`: rules.observe for the seat (a spectator: observe_public). `turn`: whose
    decision, what, who is thinking. `asked_at`: the version at which this seat's current
    decision began (None: not this seat's decision) — a view tells a new question from
    the same one redrawn. `undo`: None if this seat may undo now, else why not
    (`Refused`; never naming a seat whose action this seat may not know of).
    `seats`: "human" or the AI level, per seat. A subscriber is sent nothing when an
    action changes nothing it may see (`Subscription.put`)."""
    version: int
    seat: Optional[int]
    entries: tuple[LogEntry, ...]
    observation: Observation
    turn: Turn
    asked_at: Optional[int] = None
    undo: Optional[Refused] = None
    seats: tuple[str, ...] = ()
    reset: bool = False
    over: bool = False
    # ended outside the rules ("agreement"), "" if not; the human seats that agree to end
    # the game by agreement now (every human seat must: LiveTable.agree_end)
    ended: str = ""
    end_votes: tuple[int, ...] = ()


class Subscription:
    """A stream of `Update`s for one seat: an async iterator (an asyncio queue), or, for
    a view on the same event loop (Textual), a callback called with each update."""

    def __init__(self, table: "LiveTable", seat: Optional[int], everything: bool,
                 callback: Optional[Callable[[Update], None]]) -> None:
        self.table = table
        self.seat = seat
        self.everything = everything       # a replay: every event, secret ones too
        self.callback = callback
        self.queue: asyncio.Queue = asyncio.Queue()
        self.closed = False
        self.last: Optional[Update] = None  # the last update put

    def put(self, update: Update) -> None:
        if self.closed:
            return
        last, self.last = self.last, update
        if last is not None and not update.reset and not update.entries and _same(last, update):
            return                         # nothing this seat may know of changed
        if self.callback is not None:
            self.callback(update)
        else:
            self.queue.put_nowait(update)

    def close(self) -> None:
        self.closed = True
        self.queue.put_nowait(None)
        if self in self.table.subscribers:
            self.table.subscribers.remove(self)

    def __aiter__(self):
        return self

    async def __anext__(self) -> Update:
        if self.closed and self.queue.empty():
            raise StopAsyncIteration
        update = await self.queue.get()
        if update is None:
            raise StopAsyncIteration
        return update


def _same(a: Update, b: Update) -> bool:
    """Two updates that show one seat the same (no new entries in `b`)."""
    return (a.version == b.version and a.turn == b.turn and a.asked_at == b.asked_at
            and a.undo == b.undo and a.seats == b.seats and a.over == b.over
            and a.ended == b.ended and a.end_votes == b.end_votes
            and (a.observation is b.observation or a.observation == b.observation))


def in_thread(fn, *args) -> "asyncio.Future":
    """`fn(*args)` in a daemon thread, as a future of the running loop. Not an executor's
    thread: those are joined at exit, so a closed terminal would wait for an AI search;
    a result that comes when the loop is gone is dropped."""
    import threading
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def settle(ok: bool, value) -> None:
        if not future.done():
            future.set_result(value) if ok else future.set_exception(value)

    def run() -> None:
        try:
            result, ok = fn(*args), True
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
            result, ok = exc, False
        try:
            loop.call_soon_threadsafe(settle, ok, result)
        except RuntimeError:           # the event loop is closed: nobody is waiting
            pass
    threading.Thread(target=run, daemon=True, name="tactical-ai").start()
    return future


class LiveTable:
    """A running game: a `GameTable` played by its AI seats in an asyncio task, with the
    human seats' actions submitted by their views, every change published to every
    subscriber. Everything runs on one event loop; only the AI's search runs in a thread
    (or in `executor`, any concurrent.futures.Executor, given one)."""

    AI_PAUSE_PHASES = ("bidding", "battle")   # the AI pause follows an AI action here
    # What an AI action must show a human seat for the pause to follow it: a change the
    # board or the bids show (issue 32 point 16). The steps between — an attack started,
    # a target or an area chosen, a skill declared, mana paid, a chip drawn, the turn
    # handed on — lead to the AI's next action without a pause: their lines are in the
    # log, and what came of them (the damage, the knock-out, the VP) gets the pause.
    PAUSE_EVENTS = (E.Moved, E.Entered, E.DamageDealt, E.KnockedOut, E.VictoryPointsGained,
                    E.Rested, E.BidPlaced, E.Passed, E.AuctionUsed, E.TargetWon,
                    E.TargetUnsold, E.Appraised)

    def __init__(self, game: GameTable, ai_delay: float = 0.4, executor=None,
                 on_error: Optional[Callable[[BaseException], None]] = None) -> None:
        self.game = game
        self.ai_delay = ai_delay
        self.executor = executor
        self.on_error = on_error           # an AI seat failed (a bug): told, not swallowed
        self.subscribers: list[Subscription] = []
        self.thinking: Optional[int] = None
        self.closed = False
        self._task: Optional[asyncio.Task] = None
        self._wake: Optional[asyncio.Event] = None
        self._generation = 0                # bumped whenever history is rewritten (undo)
        self._asked: dict[int, int] = {}
        self._reset_asked()
        self._views: dict[Optional[int], tuple[GameState, Observation]] = {}
        self.end_votes: set[int] = set()    # human seats agreeing to end the game now
        self.holds = 0                      # views holding the AI seats (a quit question open)
        self.hurrying = False               # no AI pause until a human seat is asked (skip)
        self._quiet_until = 0.0             # loop time: no AI action applied before (the pause)
        self._counts: dict = {}             # seat -> known actions among the first k (known)
        self._counted: object = None        # ... of this history list (a rebuild makes a new one)

    # ------------------------------------------------------------------ views
    @property
    def version(self) -> int:
        return len(self.game.history)

    # ------------------------------------------------------------------ what a seat knows
    # Steps a seat makes in secret (the build's: race, equip, unequip, materialize) must
    # not show to the others — neither as a version that moves, an update that comes, an
    # AI seat that is "thinking" again, nor an undo refusal that names who acted. So
    # each seat is told its own version: the number of actions it may know of.

    SECRET_STEPS = ("build",)    # decisions made of steps others may not see (rules §5-4)

    def known(self, j: int, seat: Optional[int]) -> bool:
        """May `seat` (None: a spectator) know that action j was taken? Its own, any with
        an event it may see (rules.events.visible), and any that changed whose decision
        it is (everyone sees that: a draft pick, whose card is secret, is one). Not
        another seat's build step (§5-4: made behind its screen)."""
        game = self.game
        action = game.history[j]
        if seat is not None and getattr(action, "seat", None) == seat:
            return True
        if game.asks[j] != game.asks[j + 1]:
            return True
        if seat is None:
            return any(not e.secret for e in game.events_of[j])
        return any(visible(e, seat) for e in game.events_of[j])

    def version_for(self, seat: Optional[int], upto: Optional[int] = None) -> int:
        """The version `seat` is told at the table's version `upto` (default: now): how
        many of the first `upto` actions it may know of (`known`)."""
        history = self.game.history
        upto = len(history) if upto is None else upto
        if self._counted is not history:
            self._counts, self._counted = {}, history
        counts = self._counts.setdefault(seat, [0])
        del counts[len(history) + 1:]
        while len(counts) <= upto:
            j = len(counts) - 1
            counts.append(counts[-1] + self.known(j, seat))
        return counts[upto]

    def unseen(self, seat: int) -> list[Event]:
        """The events `seat` may see since its last decision (all of them if it has made
        none): what a view opened on a continued game has not shown its player — the
        "since your last decision" recap begins with them (issue 32: an AI's attack
        before the game was left was never told)."""
        game = self.game
        last = next((i for i in range(len(game.history) - 1, -1, -1)
                     if getattr(game.history[i], "seat", None) == seat), -1)
        return [e for j in range(last + 1, len(game.history)) for e in game.events_of[j]
                if visible(e, seat)]

    def undo_for(self, seat: Optional[int]) -> Optional[Refused]:
        """The undo rule for `seat`, naming no one whose action `seat` may not know of."""
        return self.game.undo_refusal(seat, hidden=lambda j: not self.known(j, seat))

    def subscribe(self, seat: Optional[int], callback: Optional[Callable[[Update], None]] = None,
                  everything: bool = False) -> Subscription:
        """Updates for `seat` (None: a spectator, public information only; `everything`:
        a replay, every event). The first update holds the whole log (`reset`)."""
        if seat is not None and not 0 <= seat < len(self.game.seats):
            raise ValueError(f"no seat {seat}")
        sub = Subscription(self, seat, everything, callback)
        self.subscribers.append(sub)
        sub.put(self._update_for(sub, self._visible(sub, self.game.log), reset=True))
        return sub

    def _visible(self, sub: Subscription, entries) -> tuple[LogEntry, ...]:
        if sub.everything:
            return tuple(entries)
        if sub.seat is None:
            return tuple(e for e in entries if e.event is None or not e.event.secret)
        return tuple(e for e in entries if e.event is None or visible(e.event, sub.seat))

    def turn(self) -> Turn:
        d = self.game.pending()
        return Turn(d.kind, tuple(d.seats),
                    tuple(s for s in d.seats if not self.game.seats[s].human), self.thinking)

    def _view(self, seat: Optional[int]) -> Observation:
        """`seat`'s observation of the current state (None: a spectator's), made once per
        state and seat: the update that says an AI seat is thinking shows the same state
        as the one before, and the AI's legal check after deciding sees the state it
        decided on — a host encodes the same object once for all its watchers (wire.py)."""
        state = self.game.state
        got = self._views.get(seat)
        if got is None or got[0] is not state:
            got = self._views[seat] = (state, observe_public(state) if seat is None
                                       else self.game.observe(seat))
        return got[1]

    def _update_for(self, sub: Subscription, entries, reset: bool = False) -> Update:
        game, seat = self.game, sub.seat
        obs = self._view(seat)
        if sub.everything:
            version, asked = self.version, self._asked.get(seat)
            undo = game.undo_refusal(seat) if seat is not None else Refused("undo_not_human")
        else:
            asked = self._asked.get(seat) if seat is not None else None
            version = self.version_for(seat)
            asked = self.version_for(seat, asked) if asked is not None else None
            undo = self.undo_for(seat) if seat is not None else Refused("undo_not_human")
            if undo is not None and undo.code == "undo_another":
                undo = None       # (not shown before it is asked for: that would tell when)
        turn = self.turn()
        if turn.thinking is not None and turn.thinking != seat and not sub.everything \
                and turn.kind in self.SECRET_STEPS:
            turn = Turn(turn.kind, turn.seats, turn.ai, None)   # its steps are its own
        return Update(version=version, seat=seat, entries=tuple(entries), observation=obs,
                      turn=turn, asked_at=asked, undo=undo,
                      seats=tuple(s.label() for s in game.seats), reset=reset, over=game.over,
                      ended=game.ended, end_votes=tuple(sorted(self.end_votes)))

    def _publish(self, entries=(), reset: bool = False) -> None:
        if self.closed:
            return
        source = self.game.log if reset else entries
        for sub in list(self.subscribers):
            sub.put(self._update_for(sub, self._visible(sub, source), reset))

    def _reset_asked(self) -> None:
        d = self.game.pending()
        self._asked = {s: self.version for s in d.seats}

    def _note_asked(self, before, actor: Optional[int]) -> None:
        """Which seats face a new question after an action: a seat newly asked, asked
        something else, or that has just acted (a build is one question made of steps
        until it is confirmed)."""
        d = self.game.pending()
        asked = {}
        for s in d.seats:
            same = s in before.seats and before.kind == d.kind and s in self._asked
            if same and (s != actor or d.kind == "build"):
                asked[s] = self._asked[s]
            else:
                asked[s] = self.version
        self._asked = asked

    # ------------------------------------------------------------------ acting
    def submit(self, seat: Optional[int], action) -> Applied | Refused:
        """A view's action for its own `seat`: applied, saved and published, or refused
        with the reason (the table unchanged)."""
        if self.closed:
            return Refused("table_closed")
        if not isinstance(action, Action):
            return Refused("not_an_action", {"got": type(action).__name__})
        if not isinstance(seat, int) or not 0 <= seat < len(self.game.seats) \
                or getattr(action, "seat", None) != seat:
            return Refused("wrong_seat", {"seat": getattr(action, "seat", None), "yours": seat})
        if self.game.over:
            return Refused("game_over")
        if not self.game.seats[seat].human:
            return Refused("wrong_seat", {"seat": seat, "yours": None})
        try:
            self._apply(seat, action, None, human=True)
        except IllegalAction as exc:
            return Refused(exc.code, dict(exc.params))
        return Applied(self.version_for(seat))

    def _apply(self, seat: int, action, reason, human: bool) -> None:
        before = self.game.pending()
        if human:
            entries = self.game.submit(action)
        else:
            entries = self.game.submit_ai(seat, action, reason)
        self._note_asked(before, seat)
        self._publish(entries)
        self._poke()

    def undo(self, seat: Optional[int]) -> Applied | Refused:
        """Take `seat`'s last decision back, if the undo rule allows it
        (GameTable.undo_refusal); every view gets the rewritten log (`reset`)."""
        if self.closed:
            return Refused("table_closed")
        refusal = self.undo_for(seat) if isinstance(seat, int) and 0 <= seat < len(self.game.seats) \
            else self.game.undo_refusal(seat)
        if refusal is not None:
            return refusal
        self.game.undo(seat)
        self._generation += 1                # an AI decision being thought is dropped
        self.thinking = None
        self._reset_asked()
        self._publish(reset=True)
        self._poke()
        return Applied(self.version_for(seat))

    # ------------------------------------------------------------------ ending by agreement
    def voters(self) -> set[int]:
        """The seats whose players must agree to end the game: every human seat (a table
        server's: those a player holds, tactical_tui.net.tables.NetLive)."""
        return set(self.game.humans)

    def agree_end(self, seats, agree: bool = True) -> Applied | Refused:
        """Human seats (one, or several at one terminal: hotseat) agree to end the game
        by agreement — or take their agreement back (`agree` False). When every human
        seat agrees, the game ends, with no winner (`GameTable.end_by_agreement`); AI
        seats always agree. Offered in the battle, where a game may never reach 5 VP (the
        rules' only end, RULINGS R19)."""
        seats = (seats,) if isinstance(seats, int) else tuple(seats)
        if self.closed:
            return Refused("table_closed")
        if self.game.over:
            return Refused("game_over")
        if not seats or any(not isinstance(s, int) or not 0 <= s < len(self.game.seats)
                            or not self.game.seats[s].human for s in seats):
            return Refused("wrong_seat", {"seat": seats[0] if seats else None, "yours": None})
        if self.game.state.phase != "battle":
            return Refused("end_not_now")
        if agree:
            self.end_votes |= set(seats)
        else:
            self.end_votes -= set(seats)
        if agree and self.end_votes >= self.voters():
            entries = self.game.end_by_agreement()
            self.end_votes.clear()
            self._publish(entries)
        else:
            self._publish()
        return Applied(self.version)

    def hint(self, seat: int):
        """What the normal AI would do for `seat` now, and why (from its observation)."""
        return self.game.hint(seat)

    # ------------------------------------------------------------------ pacing
    def hold(self) -> None:
        """A view asks its player something the game must wait for (quit?): no AI
        action is applied until `release` (an AI seat may think meanwhile). Holds nest."""
        self.holds += 1

    def release(self) -> None:
        self.holds = max(0, self.holds - 1)
        self._poke()

    def hurry(self) -> None:
        """Skip the AI pauses until a human seat is asked (the player's skip key)."""
        if self.game.human_to_act() is None and not self.game.over:
            self.hurrying = True
            self._poke()

    def _pause_after(self, entries) -> bool:
        """Does an AI action that made `entries` get the AI pause? Only when a human seat
        may see a change it made (`PAUSE_EVENTS`)."""
        humans = self.game.humans or (None,)
        return any(isinstance(e.event, self.PAUSE_EVENTS)
                   and any(visible(e.event, h) if h is not None else not e.event.secret
                           for h in humans)
                   for e in entries if e.event is not None)

    async def _until_due(self, generation: int) -> None:
        """Wait until the AI action just decided may be applied: the pause after the AI
        action before it has passed (unless hurrying), and no view holds the table."""
        loop = asyncio.get_running_loop()
        while not self.closed and generation == self._generation:
            wait = 0.0 if self.hurrying else self._quiet_until - loop.time()
            if wait <= 0 and not self.holds:
                return
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), wait if not self.holds else None)
            except asyncio.TimeoutError:
                pass

    # ------------------------------------------------------------------ the AI seats
    def start(self) -> None:
        """Start the AI seats' task on the running loop (idempotent)."""
        if self._task is None and not self.closed:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:           # no loop yet: started again from one later
                return
            self._wake = asyncio.Event()
            self._task = loop.create_task(self._ai_loop())

    def _poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

    def close(self) -> None:
        """Stop the AI task, end every subscription, let other windows open the save."""
        if self.closed:
            return
        self.closed = True
        if self._task is not None:
            self._task.cancel()
        for sub in list(self.subscribers):
            sub.close()
        self.game.close()

    def _decide(self, seat: int, obs):
        return self.game.ai_decide(seat, obs)

    async def _think(self, seat: int, obs):
        """The AI seat's (action, reason), computed off the event loop: in `executor`
        given one, else in a thread. (The table server overrides this to send only the
        player and its observation to a process pool: tactical_tui.net.tables.NetLive.)"""
        if self.executor is not None:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self.executor, self._decide, seat, obs)
        return await in_thread(self._decide, seat, obs)

    async def _ai_loop(self) -> None:
        """One AI decision at a time, computed off the loop from the seat's observation;
        applied only if nothing rewrote the game meanwhile and it is still legal, and not
        while a view holds the table (`hold`: its player is asked whether to quit). After
        an AI action in the bidding or the battle that shows a human seat a change
        (`_pause_after`), the AI pause: the next AI action is applied no sooner — the
        next decision is thought meanwhile, so the pause and the thinking overlap. No
        pause while hurrying (`hurry`), which ends when a human seat is asked."""
        try:
            while not self.closed:
                if not self.game.over and not self.game.humans and unfinished(self.game.state):
                    # an all-AI game past the cap: ended the way players end one that will
                    # not end (RULINGS R19; ai.selfplay.ROUND_CAP)
                    self._publish(self.game.end_by_agreement())
                seat = self.game.ai_to_act() if not self.game.over else None
                if seat is None:
                    self._wake.clear()
                    await self._wake.wait()
                    continue
                generation = self._generation
                # the pause overlaps the thinking; a table that thinks its own way (the
                # server's NetLive applies a decision with no await after its thinking:
                # its saves come first) waits before thinking instead
                overlap = type(self)._think is LiveTable._think
                if not overlap:
                    await self._until_due(generation)
                    if self.closed or generation != self._generation:
                        continue
                    seat = self.game.ai_to_act() if not self.game.over else None
                    if seat is None:
                        continue
                obs = self._view(seat)
                self.thinking = seat
                self._publish()
                action, reason = await self._think(seat, obs)
                if self.closed:
                    return
                if overlap:
                    await self._until_due(generation)
                self.thinking = None
                if self.closed:
                    return
                if generation != self._generation or action not in self._view(seat).legal:
                    continue                  # undone meanwhile, or no longer legal: ask again
                phase = self.game.state.phase
                before = len(self.game.log)
                self._apply(seat, action, reason, human=False)
                if self.game.human_to_act() is not None or self.game.over:
                    self.hurrying = False     # the player's decision: the skip is over
                # the pause lets the players see what an AI seat did before the next one
                # acts (a human seat's decision comes at once)
                if self.ai_delay and phase in self.AI_PAUSE_PHASES \
                        and self._pause_after(self.game.log[before:]):
                    self._quiet_until = asyncio.get_running_loop().time() + self.ai_delay
        except asyncio.CancelledError:
            pass
        except Exception as exc:  # noqa: BLE001 - a failing AI stops the table: say so
            self.thinking = None
            if self.on_error is None:
                raise
            self.on_error(exc)
