"""A table as the table server runs it (issue 17, issue 31, docs/PROTOCOL.md): a
`HostedTable` — its seats (seats.py: `Slot`, open, a player's, an AI's; its token,
kept hashed; the grace before the takeover AI plays a dropped seat), its watchers,
waiting for its players and started by its owner (`setup`, `start_by`, `begin`), the requests a
table answers (REQUESTS: join, watch, submit, undo, end by agreement, start, setup), the
takeover AI and the turn clock (`_drive`), and what its players are told (`seats`,
the spectators' one shared feed). Its game is a `NetGame` (persist.py) run by a
`NetLive`: a LiveTable whose AI seats think through the server's pool and that tells
the table of every change.

The table reaches its server (the Server of server.py, passed in) for its fields and
for `think`, `guessing`, `wrong_code`, `retire`, `archive`, `finished`; its connections
(connection.Connection) for `send`, `send_update`, `send_frame`, `bye`, `close`.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import math
import secrets
import time
from pathlib import Path
from typing import Any, Optional

from rules import Config, IllegalAction

from tactical_tui.table.seeds import SEED_LIMIT
from tactical_tui.table.live import Applied, GameTable, LiveTable, Refused, SeatSetup
from tactical_tui.net import protocol as P
from tactical_tui.net.limits import TokenBucket, fair
from tactical_tui.net.persist import NetGame, Saver, write_sidecar
from tactical_tui.net.seats import Slot, hash_secret, new_code, secret_matches
from tactical_tui.net.wire import update_to_wire

log = logging.getLogger("tactical.host")


class NetLive(LiveTable):
    """A LiveTable whose AI seats think through the server's executor (the player and
    its observation are sent, not the table), and that tells its host of every change."""

    def __init__(self, game: GameTable, hosted: "HostedTable", **kw: Any) -> None:
        self.hosted = hosted
        super().__init__(game, **kw)

    async def _think(self, seat: int, obs):
        await self.hosted.saver.saved()          # the last action is on disk first
        player = self.game.players[seat]
        generation = self._generation
        action, reason, after = await self.hosted.server.think(player, obs, self.hosted)
        if generation == self._generation and self.game.players.get(seat) is player:
            self.game.players[seat] = after         # its memory and RNG moved on
        # a player's action may have come meanwhile (a draft, a build): its save first
        # too, and none while saves fail (_ai_loop applies this at once, no await between)
        await self.hosted.saver.saved()
        return action, reason

    @property
    def generation(self) -> int:
        """Bumped whenever the history is rewritten (an undo): a decision thought for an
        older generation is dropped."""
        return self._generation

    def asked(self, seat: int) -> Optional[int]:
        """The version at which `seat` was asked its current decision (None: it is not
        asked one): a turn clock runs from then."""
        return self._asked.get(seat)

    def _publish(self, entries=(), reset: bool = False) -> None:
        super()._publish(entries, reset)
        self.hosted.changed()

    def voters(self) -> set[int]:
        """The seats a player holds and plays (an open seat, or one the takeover AI plays,
        agrees as an AI seat does)."""
        return {i for i, slot in enumerate(self.hosted.slots)
                if slot.kind == "human" and not slot.takeover}

    def submit_takeover(self, seat: int, action, reason) -> Applied | Refused:
        """The takeover AI's action for a human seat, applied as an AI seat's is (its
        reason shown in the log where an AI seat's would be)."""
        if self.closed:
            return Refused("table_closed")
        if self.game.over:
            return Refused("game_over")
        try:
            self._apply(seat, action, reason, human=False)
        except IllegalAction as exc:
            return Refused(exc.code, dict(exc.params))
        return Applied(self.version)


class HostedTable:
    """One table of the host: its game and live loop, its seats and watchers, its facts
    (privacy, grace, takeover level, clock, waiting, owner), its save and sidecar, the
    takeover AI and the clock (module docstring)."""

    def __init__(self, server: "Server", table_id: str, game: GameTable, slots: list[Slot],
                 private: bool = False, code_hash: Optional[str] = None, grace: float = 60.0,
                 takeover: str = "normal", clock: Optional[float] = None,
                 created: float = 0.0, peer: Optional[str] = None, waiting: bool = False,
                 owner: Optional[int] = None, code: Optional[str] = None) -> None:
        self.server, self.id, self.game, self.slots = server, table_id, game, slots
        self.private, self.code_hash = private, code_hash
        self.code = code                             # the join code itself: its owner is shown it
        self.waiting = waiting                       # not started: no game action is taken (issue 31)
        self.owner = owner                           # the seat that may start and change it
        self.creator: Optional["Connection"] = None  # the connection that created it
        self._waited = None                          # the timer that retires it, still waiting
        self.grace, self.takeover_level, self.clock = grace, takeover, clock
        self.created = created or time.time()
        self.peer = peer                             # who created it (Server.tables_per_peer)
        self.over_at = 0.0                           # when it was over (Server.finished)
        self.watchers: dict["Connection", str] = {}  # watcher -> its name at this table
        self.spectator_chat = TokenBucket(server.spectator_chat / 10.0,
                                          max(1, server.spectator_chat), server.clock)
        self._retire = None                          # the timer that retires it (no human)
        self._spectate = None                      # the watchers' one subscription
        self._wake = asyncio.Event()
        self._archive = None                         # the timer that archives it once over
        self.saver = Saver(game, server.unsynced, self.save_failed, self.save_works)
        game.saver = self.saver
        self.paused: Optional[str] = None            # why no action is taken now (save_failed)
        self._paused_at = 0.0                        # (the loop's clock) since when
        self._graces: dict[int, float] = {}          # paused: the grace left per seat
        self.live = NetLive(game, self, ai_delay=server.ai_delay, on_error=self._ai_failed)
        self._driver: Optional[asyncio.Task] = None
        self._inflight: Optional[int] = None
        self._players: dict[int, Any] = {}           # takeover AIs, by seat
        self._clock_key: dict[int, Any] = {}
        self._deadline: dict[int, float] = {}

    # ------------------------------------------------------------ facts
    @property
    def meta_path(self) -> Path:
        return self.server.folder / f"{self.id}.table.json"

    def info(self, conn: Optional["Connection"] = None) -> P.TableInfo:
        # the version anyone may know (a spectator's): a secret build step moves nothing
        return P.TableInfo(self.id, str(self.game.state.phase), self.private, self.seat_infos(),
                           self.live.version_for(None), self.game.over, self.paused,
                           self.facts(conn))

    def facts(self, conn: Optional["Connection"] = None) -> dict:
        """The table's setup and state (protocol.FACT_KEYS): the join code only to the
        connection that holds the owner's seat (or created it and has not sat down)."""
        mine = conn is not None and (
            (self.owner is not None and self.slots[self.owner].conn is conn)
            or (self.owner is None and conn is self.creator))
        return {"waiting": self.waiting, "owner": self.owner, "clock": self.clock,
                "grace": self.grace, "takeover": self.takeover_level,
                "first_game": self.game.config.first_game,
                "code": self.code if mine else None}

    def seat_infos(self) -> tuple[P.SeatInfo, ...]:
        over = self.game.over

        def status(s: Slot) -> str:
            # after the game's end nobody plays for anyone: a player not here has left
            if over and s.kind == "human" and s.conn is None:
                return "disconnected"
            return s.status
        return tuple(P.SeatInfo(i, "human" if s.kind == "human" else s.kind, s.name,
                                s.level if s.kind == "ai" else None, status(s),
                                s.kind == "human" and s.conn is None and (s.left or over))
                     for i, s in enumerate(self.slots))

    def connections(self) -> set:
        return {s.conn for s in self.slots if s.conn is not None} | set(self.watchers)

    def broadcast(self, obj: dict) -> None:
        for conn in self.connections():
            conn.send(obj)

    def seats_message(self, conn: Optional["Connection"] = None) -> dict:
        return {"t": "seats", "table": self.id, "seats": [s.to_wire() for s in self.seat_infos()],
                "paused": self.paused, "private": self.private, **self.facts(conn)}

    def broadcast_seats(self) -> None:
        for conn in self.connections():
            conn.send(self.seats_message(conn))

    def save_meta(self) -> bool:
        """The sidecar, atomically and synced: True once it is on disk. A failure is
        logged and False (a join is then refused: a token exists only once it is on
        disk)."""
        try:
            write_sidecar(self)
        except OSError as exc:
            log.error("table %s: cannot write %s: %s", self.id, self.meta_path, exc)
            return False
        return True

    # ------------------------------------------------------------ a save that fails
    def save_failed(self, exc: OSError, first: bool) -> None:
        """The Saver could not write the save (and tries again): the table is paused —
        no action is taken (players' submits and undos are refused `save_failed`, the AI
        seats and the takeover AI wait for the save), the grace of a dropped seat and the
        turn clock stand still — and everyone at the table is told (`seats` with
        `paused`)."""
        log.error("table %s: cannot save (%s)%s", self.id, exc,
                  ": paused, trying again" if first else "")
        if self.paused is not None or self.live.closed:
            return
        loop = asyncio.get_running_loop()
        self.paused, self._paused_at = "save_failed", loop.time()
        for i, slot in enumerate(self.slots):
            if slot.grace is not None:
                self._graces[i] = max(0.0, slot.grace.when() - loop.time())
                slot.grace.cancel()
                slot.grace = None
        self.broadcast_seats()
        self._wake.set()

    def save_works(self) -> None:
        """A save worked again: the table goes on where it was; the time it stood still
        is given back to every turn clock and grace; everyone at the table is told."""
        if self.paused is None:
            return
        loop = asyncio.get_running_loop()
        stood = loop.time() - self._paused_at
        log.info("table %s: saved again after %.0f s: play goes on", self.id, stood)
        self.paused = None
        for s in self._deadline:
            self._deadline[s] += stood
        graces, self._graces = self._graces, {}
        if not self.live.closed:
            for i, left in graces.items():
                slot = self.slots[i]
                if slot.conn is None and not slot.takeover and slot.kind in ("human", "open"):
                    slot.grace = loop.call_later(left, self._grace_over, i)
        self.broadcast_seats()
        self.changed()

    # ------------------------------------------------------------ life
    def start(self) -> None:
        """Play (a table that is not waiting for its players, or no longer)."""
        if self.waiting:
            self.wait()
            return
        self.live.start()
        self._driver = asyncio.get_running_loop().create_task(self._drive())
        # resumed: nobody is connected yet; an open seat nobody takes is played by the
        # takeover AI after the grace too — no table waits for ever (issue 17 point 5)
        for i, s in enumerate(self.slots):
            if s.kind == "human" and s.conn is None and s.left and not self.game.over:
                s.takeover = True             # (left on purpose before a restart: played at once)
            elif s.kind in ("human", "open") and s.conn is None:
                self._start_grace(i)
        self.lonely()

    # ------------------------------------------------------------ waiting for players
    def wait(self) -> None:
        """A table waiting for its players (issue 31): no game action is taken — the AI
        seats do not play, no grace or clock runs — until its owner starts it or every
        seat is taken. One that waits longer than the host's `waiting_max` is retired
        (like a table nobody plays: Server.retire)."""
        most = self.server.waiting_max
        if most > 0 and self._waited is None:
            left = max(0.0, self.created + most - time.time())
            self._waited = asyncio.get_running_loop().call_later(
                left, self.server.retire, self.id, "waiting")
        self.lonely()

    def full(self) -> bool:
        return all(s.kind != "open" for s in self.slots)

    def begin(self, by: Optional[str] = None) -> None:
        """The waiting table starts: its seats still open are played by the takeover AI
        at once (and may still be taken: then the player's again at their next decision),
        a seat whose player is away has its grace from now; every seated player and
        watcher is sent the game's first update."""
        if not self.waiting:
            return
        self.waiting = False
        if self._waited is not None:
            self._waited.cancel()
            self._waited = None
        self.save_meta()
        log.info("table %s started%s", self.id, f" by {by!r}" if by else " (every seat taken)")
        for s in self.slots:
            if s.kind == "open":
                s.takeover = True
        self.start()
        # who sits where and the table's facts (not waiting now) before the first updates
        self.broadcast_seats()
        for i, s in enumerate(self.slots):
            if s.conn is not None and s.sub is None:
                s.sub = self._subscribe(s.conn, i)
        if self.watchers:
            for conn in list(self.watchers):
                self._subscribe(conn, None).close()
            if self._spectate is None:
                self._spectate = self.live.subscribe(None, callback=self._to_watchers)
        self.changed()

    def start_by(self, conn: "Connection", req: P.Start) -> dict:
        if not self.waiting:
            return fair(P.refused(req.id, "started"))
        seat = self.seat_of(conn)
        if seat is None or seat != self.owner:
            return fair(P.refused(req.id, "not_owner", {"owner": self.owner}))
        conn.send(P.ok(req.id, table=self.id))
        self.begin(conn.name)
        return {}

    def setup(self, conn: "Connection", req: P.Setup) -> dict:
        """The owner changes the waiting table: seats (a held seat stays its player's),
        first game, privacy, clock, grace, takeover level. A change of the seats or of
        first game deals the game anew (no action has been taken: nothing is lost)."""
        if not self.waiting:
            return fair(P.refused(req.id, "started"))
        seat = self.seat_of(conn)
        if seat is None or seat != self.owner:
            return fair(P.refused(req.id, "not_owner", {"owner": self.owner}))
        slots = self.slots
        if req.seats is not None:
            held = [i for i, s in enumerate(self.slots) if s.kind == "human"]
            for i in held:
                if i >= len(req.seats) or req.seats[i].kind != "open":
                    return fair(P.refused(req.id, "seat_taken", {"seat": i}))
            slots = []
            for i, spec in enumerate(req.seats):
                if i < len(self.slots) and self.slots[i].kind == "human":
                    slots.append(self.slots[i])
                else:
                    slots.append(Slot("open") if spec.kind == "open" else Slot("ai", spec.level))
        first = self.game.config.first_game if req.first_game is None else req.first_game
        kinds = lambda ss: [(x.kind == "ai", x.level) for x in ss]
        before = (self.game, self.saver, self.live, self.slots, self.private, self.code,
                  self.code_hash, self.clock, self.grace, self.takeover_level)
        if kinds(slots) != kinds(self.slots) or first != self.game.config.first_game:
            if not self._deal(slots, first):
                return fair(P.refused(req.id, "save_failed"))   # the table as it was
        self.slots = slots
        if req.private is not None and req.private != self.private:
            self.private = req.private
            self.code = new_code() if req.private else None
            self.code_hash = hash_secret(self.code) if self.code else None
        if req.no_clock:
            self.clock = None
        elif req.clock is not None:
            self.clock = req.clock
        if req.grace is not None:
            self.grace = req.grace
        if req.takeover is not None:
            self.takeover_level = req.takeover
        if not self.save_meta():
            # the save and its sidecar must agree on the seats (else the next start skips
            # the table): the change is taken back, the former deal written again
            dealt = self.game is not before[0]
            if dealt:
                self.saver.stop()
                self.live.close()
            (self.game, self.saver, self.live, self.slots, self.private, self.code,
             self.code_hash, self.clock, self.grace, self.takeover_level) = before
            if dealt:                        # the former game back, with a saver and loop
                self.saver = Saver(self.game, self.server.unsynced, self.save_failed,
                                   self.save_works)
                self.game.saver = self.saver
                self.live = NetLive(self.game, self, ai_delay=self.server.ai_delay,
                                    on_error=self._ai_failed)
            self.game.autosave()
            self.save_meta()
            return fair(P.refused(req.id, "save_failed"))
        conn.send(P.ok(req.id, table=self.id, code=self.code))
        if self.full():
            self.begin()
        else:
            self.broadcast_seats()
        return {}

    def _deal(self, slots: list, first_game: bool) -> bool:
        """A new game for the waiting table (its seats or first game changed): a new
        deal, its save written, the table's live game replaced (nobody is subscribed to
        it yet: it has not started). False, and nothing replaced, when the save cannot
        be written (the former save stays whole: saves are written atomically)."""
        old = self.game
        seats = tuple(SeatSetup(s.kind != "ai", s.level or "normal") for s in slots)
        game = NetGame(Config(players=len(seats), first_game=first_game), seats,
                       secrets.randbelow(SEED_LIMIT), self.server.cards, save_path=old.save_path)
        game.autosave()
        if game.save_error is not None:
            log.warning("table %s: the new deal cannot be saved: %s", self.id, game.save_error)
            return False
        self.saver.stop()
        self.game = game
        self.saver = Saver(game, self.server.unsynced, self.save_failed, self.save_works)
        game.saver = self.saver
        self.live.close()
        self.live = NetLive(game, self, ai_delay=self.server.ai_delay, on_error=self._ai_failed)
        return True

    def has_humans(self) -> bool:
        """A player is seated here, connected (spectators do not count)."""
        return any(s.conn is not None for s in self.slots)

    def lonely(self) -> None:
        """Start the retirement timer when no human is seated (Server.retire), stop it
        when one is: an unfinished table nobody plays does not hold the host for ever."""
        if self.has_humans() or self.game.over or self.live.closed:
            if self._retire is not None:
                self._retire.cancel()
                self._retire = None
        elif self._retire is None and self.server.retire_after > 0:
            self._retire = asyncio.get_running_loop().call_later(
                self.server.retire_after, self.server.retire, self.id)

    def name_of(self, conn: "Connection") -> Optional[str]:
        """`conn`'s name at this table: its seat's, else its spectator's name."""
        seat = self.seat_of(conn)
        if seat is not None:
            return self.slots[seat].name
        return self.watchers.get(conn, conn.name)

    def unique_name(self, name: str, conn: "Connection", seat: Optional[int] = None) -> str:
        """`name`, or `name (2)`, `name (3)`… if another seat or spectator of this table
        has it already: names are unique per table (a spectator could chat as a seated
        player's name)."""
        taken = {s.name for i, s in enumerate(self.slots) if s.name is not None and i != seat} | \
            {n for c, n in self.watchers.items() if c is not conn}
        if name not in taken:
            return name
        for k in itertools.count(2):
            suffix = f" ({k})"
            candidate = name[:P.NAME_MAX - len(suffix)].rstrip() + suffix
            if candidate not in taken:
                return candidate
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self._retire is not None:
            self._retire.cancel()
            self._retire = None
        if self._waited is not None:
            self._waited.cancel()
            self._waited = None
        if self._archive is not None:
            self._archive.cancel()
        for s in self.slots:
            if s.grace is not None:
                s.grace.cancel()
        if self._driver is not None:
            self._driver.cancel()
        self.live.close()

    def changed(self) -> None:
        self._wake.set()
        if self.game.over and self._archive is None and not self.live.closed:
            # the players read the game over screen (the lobby lists it "over"); then
            # the table is archived (Server.archive)
            self._archive = asyncio.get_running_loop().call_later(
                self.server.finished_keep, self.server.archive, self.id)
            self.over_at = time.monotonic()
            self.lonely()
            self.server.finished(self)

    def _ai_failed(self, exc: BaseException) -> None:
        log.error("table %s: an AI seat failed: %r", self.id, exc, exc_info=exc)

    # ------------------------------------------------------------ seats
    def seat_of(self, conn: "Connection") -> Optional[int]:
        return next((i for i, s in enumerate(self.slots) if s.conn is conn), None)

    def _subscribe(self, conn: "Connection", seat: Optional[int]):
        table_id = self.id

        def send(update) -> None:
            conn.send_update(table_id, update)
        return self.live.subscribe(seat, callback=send)

    def join(self, conn: "Connection", req: P.Join) -> dict:
        if req.seat is not None and req.seat >= len(self.slots):
            return P.refused(req.id, "no_such_seat", {"seat": req.seat})
        held = self.seat_of(conn)
        if req.token is not None:
            seat = next((i for i, s in enumerate(self.slots) if secret_matches(req.token, s.token_hash)), None)
            if seat is None or (req.seat is not None and req.seat != seat):
                return P.refused(req.id, "bad_token")
            if held is not None and held != seat:
                return P.refused(req.id, "already_seated", {"seat": held})
            slot = self.slots[seat]
            old = slot.conn
            if old is not None and old is not conn:
                self._release(seat)
                old.bye("replaced")
            token = req.token
        else:
            refused = self._code_refused(conn, req.id, req.code)
            if refused:
                return refused
            if held is not None:
                return P.refused(req.id, "already_seated", {"seat": held})
            if req.seat is None:
                seat = next((i for i, s in enumerate(self.slots) if s.kind == "open"), None)
                if seat is None:
                    return P.refused(req.id, "no_open_seat")
            else:
                seat = req.seat
                kind = self.slots[seat].kind
                if kind != "open":
                    return P.refused(req.id, "seat_taken" if kind == "human" else "seat_is_ai",
                                     {"seat": seat})
            slot = self.slots[seat]
            token = secrets.token_urlsafe(32)
            slot.kind, slot.token_hash = "human", hash_secret(token)
            slot.name = self.unique_name(conn.name, conn, seat)
            if not self.save_meta():          # the token is on disk before it is given
                slot.kind, slot.name, slot.token_hash = "open", None, None
                return fair(P.refused(req.id, "save_failed"))
        self.watchers.pop(conn, None)
        if slot.grace is not None:
            slot.grace.cancel()
            slot.grace = None
        if slot.left:
            slot.left = False
            self.save_meta()
        if self.waiting and self.owner != seat and (conn is self.creator or self.owner is None):
            self.owner = seat                 # its creator (or the first to sit) starts it
            self.save_meta()
        extra = {"waiting": True} if self.waiting else {}
        if slot.conn is not conn:
            slot.conn, slot.name = conn, self.unique_name(conn.name, conn, seat)
            if slot.sub is not None:
                slot.sub.close()
                slot.sub = None
            conn.tables[self.id] = seat
            conn.send(P.ok(req.id, table=self.id, seat=seat, token=token, **extra))
            if not self.waiting:              # (waiting: the first update comes at the start)
                slot.sub = self._subscribe(conn, seat)
        else:
            conn.send(P.ok(req.id, table=self.id, seat=seat, token=token, **extra))
        if slot.takeover:
            if self._inflight == seat:
                slot.reclaim = True           # handed back once the AI's decision is made
            else:
                slot.takeover = False
                log.info("table %s: seat %d reclaimed by %r", self.id, seat + 1, conn.name)
        self.lonely()
        if self.waiting and self.full():
            self.begin()                      # every seat is taken: it starts by itself
            return {}
        self.broadcast_seats()
        self.changed()
        return {}

    def _code_refused(self, conn: "Connection", rid: int, code: Optional[str]) -> Optional[dict]:
        """The refusal of a join or watch of this table with `code` (None: it may):
        `bad_code` for a wrong one; `too_many_guesses` when the connection's peer has
        tried too many wrong ones (Server.guessing) — then no code is even checked."""
        if not self.private:
            return None
        wait = self.server.guessing(conn)
        if wait is not None:
            return P.refused(rid, "too_many_guesses", {"retry": math.ceil(wait)})
        if not secret_matches((code or "").upper(), self.code_hash):
            self.server.wrong_code(conn)
            return P.refused(rid, "bad_code")
        return None

    def watch(self, conn: "Connection", req: P.Watch) -> dict:
        if self.seat_of(conn) is not None:
            return P.refused(req.id, "already_seated", {"seat": self.seat_of(conn)})
        refused = self._code_refused(conn, req.id, req.code)
        if refused:
            return refused
        extra = {"waiting": True} if self.waiting else {}
        if conn not in self.watchers:
            conn.tables[self.id] = None
            conn.send(P.ok(req.id, table=self.id, **extra))
            # its first update (the whole log) for it alone, then the table's one
            # spectator feed, encoded once for every watcher (a waiting table: at its start)
            if not self.waiting:
                if self._spectate is None:
                    self._spectate = self.live.subscribe(None, callback=self._to_watchers)
                self._subscribe(conn, None).close()
            self.watchers[conn] = self.unique_name(conn.name, conn)
            conn.send(self.seats_message(conn))
        else:
            conn.send(P.ok(req.id, table=self.id, **extra))
        return {}

    def _to_watchers(self, update) -> None:
        if not self.watchers:
            return
        try:
            frame = P.encode_frame({"t": "update", "table": self.id,
                                    "update": update_to_wire(update)}, P.MAX_SERVER_FRAME)
        except Exception as exc:  # noqa: BLE001 - a bug: the watchers are dropped, play goes on
            log.error("table %s: a spectator update cannot be encoded: %r", self.id, exc)
            for conn in list(self.watchers):
                conn.close()
            return
        for conn in list(self.watchers):
            conn.send_frame(frame)

    def _release(self, seat: int) -> None:
        """The seat's connection is gone (or replaced): unsubscribe it."""
        slot = self.slots[seat]
        if slot.sub is not None:
            slot.sub.close()
            slot.sub = None
        if slot.conn is not None:
            slot.conn.tables.pop(self.id, None)
        slot.conn = None

    def detach(self, conn: "Connection", left: bool = False) -> None:
        """`conn` leaves the table: `left` on purpose (a `leave`), else its connection is
        gone. A player who leaves a waiting table gives the seat up (it is open again);
        one who leaves a game in play keeps it (their token) and the takeover AI plays it
        at once; a lost connection is played by it after the grace; after the game's end
        nobody is waited for (issue 31: presence that tells the truth)."""
        conn.tables.pop(self.id, None)
        self.watchers.pop(conn, None)
        seat = self.seat_of(conn)
        if seat is None:
            return
        self._release(seat)
        slot = self.slots[seat]
        if self.waiting and left:
            log.info("table %s: seat %d given up by %r (waiting)", self.id, seat + 1, conn.name)
            slot.kind, slot.name, slot.token_hash, slot.left = "open", None, None, False
            if self.owner == seat:
                self.owner = next((i for i, s in enumerate(self.slots) if s.kind == "human"), None)
            self.save_meta()
        elif left or self.game.over:
            slot.left = True
            log.info("table %s: seat %d left (%r)", self.id, seat + 1, conn.name)
            if not self.game.over:
                self.save_meta()
            if not self.game.over and not self.waiting and not self.live.closed:
                slot.takeover, slot.reclaim = True, False
                log.info("table %s: seat %d taken over by the %s AI", self.id, seat + 1,
                         self.takeover_level)
                self.changed()
        else:
            log.info("table %s: seat %d disconnected (%r)", self.id, seat + 1, conn.name)
            if not self.waiting:
                self._start_grace(seat)
        self.lonely()
        self.broadcast_seats()

    def _start_grace(self, seat: int) -> None:
        slot = self.slots[seat]
        if self.game.over or slot.takeover or slot.kind not in ("human", "open"):
            return
        if slot.grace is not None:
            slot.grace.cancel()
        if self.paused is not None:           # it runs once the table goes on again
            slot.grace = None
            self._graces[seat] = self.grace
            return
        slot.grace = asyncio.get_running_loop().call_later(self.grace, self._grace_over, seat)

    def _grace_over(self, seat: int) -> None:
        slot = self.slots[seat]
        slot.grace = None
        if slot.conn is None and not slot.takeover and not self.live.closed:
            slot.takeover, slot.reclaim = True, False
            log.info("table %s: seat %d taken over by the %s AI", self.id, seat + 1, self.takeover_level)
            self.broadcast_seats()
            self.changed()

    # ------------------------------------------------------------ acting
    def submit(self, conn: "Connection", req: P.Submit) -> dict:
        seat = self.seat_of(conn)
        if seat is None:
            return P.refused(req.id, "not_seated")
        if self.waiting:
            return fair(P.refused(req.id, "not_started"))
        if getattr(req.action, "seat", None) != seat:
            return P.refused(req.id, "not_your_seat", {"seat": getattr(req.action, "seat", None),
                                                       "yours": seat})
        if self.slots[seat].takeover:
            return P.refused(req.id, "ai_playing", {"seat": seat})
        if self.paused is not None:
            return fair(P.refused(req.id, self.paused))
        result = self.live.submit(seat, req.action)
        if isinstance(result, Refused):
            return fair(P.refused(req.id, result.code, result.params))
        return P.ok(req.id, version=result.version)

    def end_game(self, conn: "Connection", req: P.EndGame) -> dict:
        """A seated player agrees (or no longer agrees) to end the game by agreement
        (RULINGS R19; LiveTable.agree_end): it ends when every seat a player holds
        agrees — seats the AI plays (AI seats, open seats, seats taken over) agree."""
        seat = self.seat_of(conn)
        if seat is None:
            return P.refused(req.id, "not_seated")
        if self.waiting:
            return fair(P.refused(req.id, "not_started"))
        result = self.live.agree_end(seat, req.agree)
        if isinstance(result, Refused):
            return fair(P.refused(req.id, result.code, result.params))
        log.info("table %s: seat %d %s ending by agreement", self.id, seat + 1,
                 "agrees to" if req.agree else "no longer agrees to")
        return P.ok(req.id, version=result.version)

    def undo(self, conn: "Connection", req: P.Undo) -> dict:
        seat = self.seat_of(conn)
        if seat is None:
            return P.refused(req.id, "not_seated")
        if self.waiting:
            return fair(P.refused(req.id, "not_started"))
        if self.slots[seat].takeover:
            return P.refused(req.id, "ai_playing", {"seat": seat})
        if self.paused is not None:
            return fair(P.refused(req.id, self.paused))
        result = self.live.undo(seat)
        if isinstance(result, Refused):
            return fair(P.refused(req.id, result.code, result.params))
        return P.ok(req.id, version=result.version)

    # ------------------------------------------------------------ the takeover AI, the clock
    def _track_clock(self, now: float) -> None:
        d = self.game.pending()
        if self.clock is None:
            return
        for s in list(self._deadline):
            if s not in d.seats:
                self._deadline.pop(s)
                self._clock_key.pop(s, None)
        for s in d.seats:
            if self.slots[s].kind == "ai":
                continue
            key = self.live.asked(s)
            if self._clock_key.get(s, object()) != key or s not in self._deadline:
                self._clock_key[s] = key
                self._deadline[s] = now + self.clock

    def _due(self, now: float) -> tuple[Optional[int], str]:
        """A human seat whose decision the takeover AI makes now, and why."""
        self._track_clock(now)
        if self.game.over:
            return None, ""
        for s in self.game.pending().seats:
            slot = self.slots[s]
            if slot.kind == "ai":
                continue
            if slot.takeover and not slot.reclaim:
                return s, "takeover"
            if self.clock is not None and now >= self._deadline.get(s, now + 1):
                return s, "clock"
        return None, ""

    async def _drive(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while not self.live.closed:
                self._wake.clear()
                if self.paused is not None:       # saves fail: no clock runs, no AI plays
                    await self._wake.wait()
                    continue
                seat, why = self._due(loop.time())
                if seat is None:
                    waits = [t - loop.time() for t in self._deadline.values()]
                    try:
                        await asyncio.wait_for(self._wake.wait(), max(0.0, min(waits)) if waits else None)
                    except asyncio.TimeoutError:
                        pass
                    continue
                await self._play_for(seat, why)
        except asyncio.CancelledError:
            pass
        except Exception as exc:  # noqa: BLE001 - a bug: said, the table goes on for humans
            log.error("table %s: the takeover AI failed: %r", self.id, exc, exc_info=exc)

    async def _play_for(self, seat: int, why: str) -> None:
        from ai import make_player
        player = self._players.get(seat)
        if player is None:
            player = make_player(self.takeover_level, self.game.seed * 101 + 50 + seat,
                                 self.game.cards)
        self._inflight = seat
        try:
            await self.saver.saved()                  # the last action is on disk first
            obs = self.game.observe(seat)
            generation, asked = self.live.generation, self.live.asked(seat)
            action, reason, after = await self.server.think(player, obs, self)
            # ... and an action that came meanwhile (no await from here to the submit)
            await self.saver.saved()
        finally:
            self._inflight = None
        self._players[seat] = after
        slot = self.slots[seat]
        still = (not self.live.closed and generation == self.live.generation
                 and seat in self.game.pending().seats
                 and action in self.game.observe(seat).legal
                 and (why != "clock" or self.live.asked(seat) == asked))
        if still and (slot.takeover or why == "clock"):
            phase = self.game.state.phase
            result = self.live.submit_takeover(seat, action, reason)
            log.info("table %s: the %s AI played seat %d (%s): %s", self.id, self.takeover_level,
                     seat + 1, why, type(action).__name__ if isinstance(result, Applied) else result)
            if self.live.ai_delay and phase in self.live.AI_PAUSE_PHASES:
                await asyncio.sleep(self.live.ai_delay)
        if slot.reclaim:
            slot.takeover = slot.reclaim = False
            log.info("table %s: seat %d handed back to %r", self.id, seat + 1, slot.name)
            self.broadcast_seats()


# The requests a table answers (Server.dispatch: the table named by the request).
REQUESTS = {P.Join: HostedTable.join, P.Watch: HostedTable.watch, P.Submit: HostedTable.submit,
            P.Undo: HostedTable.undo, P.EndGame: HostedTable.end_game,
            P.Start: HostedTable.start_by, P.Setup: HostedTable.setup}
