"""`tactical host`: the table server (issue 17, docs/PROTOCOL.md).

One asyncio process holds any number of tables; each is a `GameTable` run by a
`LiveTable` (tactical_tui/table/live.py), exactly as in a local game. The server is
authoritative: it alone holds the state, runs the rules and the AI seats, and autosaves.
Every connection is subscribed to exactly its seat (`LiveTable.subscribe(seat)`) or, a
watcher, to a spectator's view (`subscribe(None)`), and the server sends nothing but
those Updates encoded by `wire.py`, `seats` (who sits where, and how they are), `chat`,
the answers `ok` / `refused`, and `bye`. The state, the RNG, the seed and other seats'
observations never leave this process.

Seats: joining an open seat gives a token (32 random bytes, URL-safe base64; only its
sha256 is kept, on disk too), the only thing that acts for the seat and takes it back
after a reconnect. A private table has a short join code (kept hashed as well). When a
seated connection drops, the seat is `disconnected`; after the table's grace an AI of
its takeover level plays it (`ai_takeover`); the token hands it back at the seat's next
decision (at once when no takeover decision is being computed, else as soon as that one
is made). With a turn clock, a human decision not made in time is made by the takeover
AI, that one decision (open seats included: no table waits for ever on a clock).

Persistence: a folder of tables (`host_dir()/tables`), per table `<id>.json` — the save
format of a local game (tactical_tui/table/saves.py), written by the table after every action —
and `<id>.table.json`, the table's own facts (seats' names and token hashes, privacy,
grace, takeover level, clock). A restarted server resumes every unfinished table; its
players reconnect with their tokens.

AI decisions run in a process pool sized to the cores, behind the
`concurrent.futures.Executor` interface: what is sent is the player (pickled, its card
data by reference: `pack`) and its seat's observation, never the table; what comes back
is the action, the reason and the player after deciding. Any executor with `submit` and
the same semantics can take its place (README "Play together": Ray's or Dask's).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import heapq
import hmac
import io
import itertools
import json
import logging
import math
import os
import pickle
import secrets
import time
from pathlib import Path
from typing import Any, Optional

from attrs import define, field

from rules import Config, IllegalAction
from rules.cards import CardSet, default_cards, fingerprint, parse_cards

from tactical_tui.table.saves import SaveError, SaveText, read as read_save
from tactical_tui.table.savefiles import write_atomic
from tactical_tui.table.seeds import SEED_LIMIT
from tactical_tui.table.live import Applied, GameTable, LiveTable, Refused, SeatSetup, in_thread
from tactical_tui.net import protocol as P
from tactical_tui.net.wire import update_to_wire

log = logging.getLogger("tactical.host")

META_FORMAT = 1
HELLO_TIMEOUT = 30.0          # seconds a connection has to say hello
IDLE_TIMEOUT = 180.0          # seconds a connection at no table may send nothing (client.KEEPALIVE: 60)
SEATED_IDLE_TIMEOUT = 600.0   # ... and one at a table: its client pings every 60 s whatever
                              # the screen, so ten minutes of silence is a dead connection
                              # (a half-open socket: a machine gone, a network cut)
# Bytes that may wait for a client that reads slowly: more than that already waiting when
# another frame is to be sent, and the connection is dropped (its client reconnects and
# gets the whole log again). Small for a connection at no seat (the lobby, spectators: a
# list, a cards answer, a spectator's updates), larger for a seated player's (its own
# updates; a slow terminal over SSH). 60 connections asking for the 64 KB card data 480
# times each and reading nothing took the host to 1.77 GiB with one 32 MiB limit.
MAX_QUEUED = 256 * 1024
MAX_QUEUED_SEATED = 4 * 1024 * 1024
MAX_TABLES = 100
MAX_CONNECTIONS = 1000
# Connections from one peer: one address (IPv6: its /64), or this machine (loopback, or
# the address the host listens on) counted as one peer. This machine's is larger: the
# players who run `tactical join` on the host's machine itself (and the door's sessions
# of a host started without its socket: sshdoor.join_command without unix_path).
MAX_PER_PEER = 16
MAX_PER_LOCAL = 100
# The SSH front door's `tactical join`s come through a Unix socket of their own in the
# host's folder (DOOR_SOCKET, mode 0600 in a 0700 folder: only the host's user reaches
# it), counted apart from every TCP connection: 100 silent loopback connections fill the
# LOCAL share, not the door's (issue 30 finding 10). host_cli gives it the door's
# sessions + MAX_PER_PEER (a child that reconnects holds two for a moment).
DOOR_SOCKET = "door.sock"
DOOR = "the SSH front door"
MAX_PER_DOOR = 64 + MAX_PER_PEER
REFUSED_LOG_EVERY = 60.0      # seconds between two log lines about refused connections
PEER_LOG_EVERY = 60.0         # seconds between two log lines about one peer's refusals
# Requests a second (token buckets, a burst of two seconds' worth): per connection, per
# peer (all its connections), and this machine's share (every SSH door session's client).
# A request costs its weight (REQUEST_COST) in tokens.
RATE = 20.0
PEER_RATE = 50.0
LOCAL_RATE = 400.0
# What a request costs, by its work for the host: `watch` and `join` encode the whole log
# of the table for the connection, `cards` is the 64 KB card data, `create` deals a game
# and writes two files, `list` is every table's seats. Anything else: 1.
REQUEST_COST = {"watch": 4, "join": 4, "cards": 10, "create": 10, "list": 2,
                "setup": 4, "start": 4}        # (setup may deal anew and write the save)
TABLES_PER_PEER = 5           # unfinished tables one peer (address, IPv6 /64) created
TABLES_PER_LOCAL = 50         # ... this machine (the SSH door's players create theirs here)
RETIRE_AFTER = 3600.0         # seconds an unfinished table may have no human seated
WAITING_MAX = 1800.0          # seconds a table may wait for its players (not started) before it is retired
FINISHED_LISTED = 20          # finished tables listed ("over") at most; the oldest leave first
CODE_GUESSES = 10             # wrong join codes a minute from one peer (private tables)
CHAT_BURST = (8, 10.0)        # at most 8 chat lines in 10 seconds per connection
SPECTATOR_CHAT = 6            # chat lines in 10 seconds from all of a table's spectators
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
FINISHED_KEEP = 600.0         # seconds a finished table stays listed ("over") before it is archived


def host_dir() -> Path:
    """The host's folder: TACTICAL_HOST_DIR when set, else `host` in the user data folder
    (platformdirs; TACTICAL_SAVE_DIR moves that). The SSH front door keeps its host key
    here too (sshdoor.host_dir, the same folder)."""
    env = os.environ.get("TACTICAL_HOST_DIR")
    if env:
        return Path(env)
    from tactical_tui.table.savefiles import save_dir
    return save_dir() / "host"


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _matches(secret: Optional[str], digest: Optional[str]) -> bool:
    return secret is not None and digest is not None and hmac.compare_digest(_hash(secret), digest)


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


# ------------------------------------------------------------------ AI off the process

_CARD_SETS: dict[str, CardSet] = {}


def register_cards(cards: CardSet) -> str:
    """Make `cards` known to this process by its fingerprint (pickled players name it)."""
    fp = fingerprint(cards)
    _CARD_SETS.setdefault(fp, cards)
    return fp


def _cards_for(fp: str) -> CardSet:
    got = _CARD_SETS.get(fp)
    if got is None:
        shipped = default_cards()
        if register_cards(shipped) != fp:
            raise RuntimeError(f"no card data {fp[:12]} in this worker: start it with "
                               "init_worker(the card data's TOML text)")
        got = shipped
    return got


def init_worker(cards_toml: Optional[str], nice: int = 0) -> None:
    """A worker process's initializer: the server's card data (None: the shipped one),
    and `nice` added to the worker's niceness (make_executor: AI_NICE). A worker ignores
    SIGINT: Ctrl+C in the host's terminal reaches its whole process group, and the host
    stops its pool itself (each worker printed a KeyboardInterrupt traceback over the
    host's last lines)."""
    import signal
    with contextlib.suppress(ValueError):        # (not the main thread: not a worker)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if nice:
        os.nice(nice)
    if cards_toml is not None:
        register_cards(parse_cards(cards_toml, "host"))


def _reduce_cards(cards: CardSet) -> tuple:
    return _cards_for, (register_cards(cards),)     # by reference: a worker has its own


def pack(obj: Any) -> bytes:
    """A player pickled for another process, its card data by fingerprint (a few KB;
    the card set is looked up by the pickler's dispatch table, in C, object by object)."""
    import copyreg
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, CardSet: _reduce_cards}
    pickler.dump(obj)
    return out.getvalue()


def unpack(blob: bytes) -> Any:
    return pickle.loads(blob)


def _choose(player: Any, obs: Any) -> tuple:
    if hasattr(player, "choose_explained"):
        return player.choose_explained(obs, obs.legal)
    return player.choose(obs, obs.legal), None


def decide(blob: bytes, obs: Any) -> tuple:
    """In a worker: the packed player's (action, reason, packed player after deciding),
    from its seat's observation only."""
    player = unpack(blob)
    action, reason = _choose(player, obs)
    return action, reason, pack(player)


# The AI pool's workers run this much nicer than the host: a worker searches as long as
# it is let, one per core, while the event loop needs a core for a few milliseconds at a
# time to send an update to every screen of a table — given the same priority the loop
# waited behind them (bench/host_load.py: the host's main thread spent twice as long
# runnable-but-waiting as running). Niced, the workers still use every core the host
# leaves idle (a pool of cores - 1 would leave one idle while the host has nothing to do).
AI_NICE = 10


def make_executor(workers: Optional[int], cards_toml: Optional[str]):
    """The AI pool: `workers` processes (None: one per core of this process; 0: no pool,
    the AI thinks in a thread of the host), AI_NICE nicer than the host."""
    if workers == 0:
        return None
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    if workers is None:
        workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    # spawn: a fork of a process with threads (the host's) may deadlock
    return ProcessPoolExecutor(max_workers=max(1, workers or 1),
                               mp_context=multiprocessing.get_context("spawn"),
                               initializer=init_worker, initargs=(cards_toml, AI_NICE))


# ------------------------------------------------------------------ a table

SYNC_EVERY = 2.0              # seconds between the fsyncs of the tables' new saves


def _write_unsynced(path: Path, text: str) -> None:
    """Write `text` to `path` atomically (a temporary file renamed over it), without
    waiting for the disk: a killed host loses nothing written (the server fsyncs the
    saves every SYNC_EVERY seconds, off the event loop: `_fsync_all`)."""
    import tempfile

    from tactical_tui.table.savefiles import TEMP_PREFIX
    fd, tmp = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-", suffix=".json",
                               dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _fsync_all(paths: list, folder: Path) -> list:
    """fsync each file, then the folder; the files that could not be synced (their
    saves are written again: Server.sync)."""
    failed = []
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError as exc:
            if not isinstance(exc, FileNotFoundError):     # (archived meanwhile)
                log.error("cannot sync %s: %s", path, exc)
                failed.append(path)
            continue
        try:
            os.fsync(fd)
        except OSError as exc:
            log.error("cannot sync %s: %s", path, exc)
            failed.append(path)
        finally:
            os.close(fd)
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    return failed


SAVE_RETRY_FIRST = 1.0        # seconds before a failed save is tried again, doubled each time
SAVE_RETRY_MOST = 30.0        # ... up to this


class Saver:
    """A table's autosave off the event loop: the save after the latest action is written
    (and renamed over the old one) in a thread, one write at a time, the newest position
    only if several actions came meanwhile. Every action of the table waits for the save
    of the one before it (`saved`, `settled`: the AI seats', the takeover AI's, the
    players'), so a host killed at any moment loses at most the action being applied.

    A save that fails (a full disk, no file descriptor left, a permission taken away) is
    no silent log line: the table is paused (`on_failed`: HostedTable.save_failed — no
    action is taken, its players are told) and the write is tried again after 1, 2, 4 …
    (at most 30) seconds until it works (`on_works`: the table goes on, its players are
    told)."""

    def __init__(self, game: "NetGame", unsynced: Optional[set], on_failed=None,
                 on_works=None) -> None:
        self.game, self.unsynced = game, unsynced
        self.on_failed, self.on_works = on_failed, on_works
        self.failing: Optional[OSError] = None     # the last write failed: paused, retrying
        self.retry_first, self.retry_most = SAVE_RETRY_FIRST, SAVE_RETRY_MOST
        self._latest = None
        self._task: Optional[asyncio.Task] = None
        self._clean = asyncio.Event()              # nothing waits to be written, all written
        self._clean.set()
        self._settled = asyncio.Event()            # ... or the last write failed
        self._settled.set()

    def request(self, data) -> None:
        self._latest = data
        self._clean.clear()
        if self.failing is None:
            self._settled.clear()
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        game = self.game
        delay = self.retry_first
        try:
            while self._latest is not None:
                data = self._latest
                try:
                    # the text here (the new actions' JSON only: SaveText), the writing
                    # in a thread (it waits for the file system, not the interpreter)
                    text = game.save_text.text(data)
                    await asyncio.to_thread(_write_unsynced, game.save_path, text)
                except OSError as exc:
                    first = self.failing is None
                    self.failing = game.save_error = exc
                    game.save_problem = f"{game.save_path}: {exc}"
                    self._settled.set()
                    if self.on_failed is not None:
                        self.on_failed(exc, first)
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, self.retry_most)
                    continue
                if self._latest is data:
                    self._latest = None
                game.save_problem = game.save_error = None
                if self.unsynced is not None:
                    self.unsynced.add(game.save_path)
                delay = self.retry_first
                if self.failing is not None:
                    self.failing = None
                    if self.on_works is not None:
                        self.on_works()
        finally:
            self._task = None
            if self._latest is None and self.failing is None:
                self._clean.set()
                self._settled.set()

    async def saved(self) -> None:
        """Until the latest action is written (while saves fail: until one works)."""
        await self._clean.wait()

    async def settled(self) -> None:
        """Until the write under way is done: written, or failed (then `failing`)."""
        await self._settled.wait()

    def stop(self) -> None:
        """No more tries (the table is closed; what is not written is lost)."""
        if self._task is not None:
            self._task.cancel()


class NetGame(GameTable):
    """A GameTable whose autosave after every action does not hold up the event loop
    (every table of the host): written by its `Saver` in a thread, without waiting for
    the disk (a killed host loses nothing written), and synced (fsync) with the others
    within SYNC_EVERY seconds. Without a running loop (resuming) it saves at once."""

    saver: Optional[Saver] = None
    save_text: Optional[SaveText] = None

    def autosave(self) -> None:
        if self.save_path is None:
            return
        if self.save_text is None:
            self.save_text = SaveText()
        if self.saver is not None:
            self.saver.request(self.save_data())
            return
        try:
            _write_unsynced(self.save_path, self.save_text.text(self.save_data()))
        except OSError as exc:
            self.save_error = exc
            self.save_problem = f"{self.save_path}: {exc}"
            log.error("cannot save %s", self.save_problem)


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


@define
class Slot:
    """One seat of a hosted table: who holds it and how it is played."""
    kind: str                               # open | human | ai
    level: Optional[str] = None             # an AI seat's level
    name: Optional[str] = None
    token_hash: Optional[str] = None
    conn: Optional["Connection"] = None
    sub: Any = None
    takeover: bool = False                  # the takeover AI plays it now
    left: bool = False                      # its player left on purpose (not a lost connection)
    reclaim: bool = False                   # its holder is back: hand it back after the AI's move
    grace: Any = None                       # the timer that starts the takeover

    @property
    def status(self) -> str:
        if self.kind == "ai":
            return "ai"
        if self.kind == "open":              # anyone may take it, even while the AI plays it
            return "open"
        if self.takeover:
            return "ai_takeover"
        if self.conn is not None:
            return "connected"
        return "open" if self.kind == "open" else "disconnected"


class HostedTable:
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
        self.saver = Saver(game, server._unsynced, self.save_failed, self.save_works)
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
        meta = {"format": META_FORMAT, "table": self.id, "private": self.private,
                "code_hash": self.code_hash, "grace": self.grace, "takeover": self.takeover_level,
                "clock": self.clock, "created": self.created, "peer": self.peer,
                "waiting": self.waiting, "owner": self.owner,
                "seats": [{"kind": s.kind, "level": s.level, "name": s.name,
                           "token_hash": s.token_hash, "left": s.left} for s in self.slots]}
        try:
            write_atomic(self.meta_path, json.dumps(meta, ensure_ascii=False, indent=1))
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
            return _fair(P.refused(req.id, "started"))
        seat = self.seat_of(conn)
        if seat is None or seat != self.owner:
            return _fair(P.refused(req.id, "not_owner", {"owner": self.owner}))
        conn.send(P.ok(req.id, table=self.id))
        self.begin(conn.name)
        return {}

    def setup(self, conn: "Connection", req: P.Setup) -> dict:
        """The owner changes the waiting table: seats (a held seat stays its player's),
        first game, privacy, clock, grace, takeover level. A change of the seats or of
        first game deals the game anew (no action has been taken: nothing is lost)."""
        if not self.waiting:
            return _fair(P.refused(req.id, "started"))
        seat = self.seat_of(conn)
        if seat is None or seat != self.owner:
            return _fair(P.refused(req.id, "not_owner", {"owner": self.owner}))
        slots = self.slots
        if req.seats is not None:
            held = [i for i, s in enumerate(self.slots) if s.kind == "human"]
            for i in held:
                if i >= len(req.seats) or req.seats[i].kind != "open":
                    return _fair(P.refused(req.id, "seat_taken", {"seat": i}))
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
                return _fair(P.refused(req.id, "save_failed"))   # the table as it was
        self.slots = slots
        if req.private is not None and req.private != self.private:
            self.private = req.private
            self.code = _new_code() if req.private else None
            self.code_hash = _hash(self.code) if self.code else None
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
                self.saver = Saver(self.game, self.server._unsynced, self.save_failed,
                                   self.save_works)
                self.game.saver = self.saver
                self.live = NetLive(self.game, self, ai_delay=self.server.ai_delay,
                                    on_error=self._ai_failed)
            self.game.autosave()
            self.save_meta()
            return _fair(P.refused(req.id, "save_failed"))
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
        self.saver = Saver(game, self.server._unsynced, self.save_failed, self.save_works)
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
            seat = next((i for i, s in enumerate(self.slots) if _matches(req.token, s.token_hash)), None)
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
            slot.kind, slot.token_hash = "human", _hash(token)
            slot.name = self.unique_name(conn.name, conn, seat)
            if not self.save_meta():          # the token is on disk before it is given
                slot.kind, slot.name, slot.token_hash = "open", None, None
                return _fair(P.refused(req.id, "save_failed"))
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
        if not _matches((code or "").upper(), self.code_hash):
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
            return _fair(P.refused(req.id, "not_started"))
        if getattr(req.action, "seat", None) != seat:
            return P.refused(req.id, "not_your_seat", {"seat": getattr(req.action, "seat", None),
                                                       "yours": seat})
        if self.slots[seat].takeover:
            return P.refused(req.id, "ai_playing", {"seat": seat})
        if self.paused is not None:
            return _fair(P.refused(req.id, self.paused))
        result = self.live.submit(seat, req.action)
        if isinstance(result, Refused):
            return _fair(P.refused(req.id, result.code, result.params))
        return P.ok(req.id, version=result.version)

    def end_game(self, conn: "Connection", req: P.EndGame) -> dict:
        """A seated player agrees (or no longer agrees) to end the game by agreement
        (RULINGS R19; LiveTable.agree_end): it ends when every seat a player holds
        agrees — seats the AI plays (AI seats, open seats, seats taken over) agree."""
        seat = self.seat_of(conn)
        if seat is None:
            return P.refused(req.id, "not_seated")
        if self.waiting:
            return _fair(P.refused(req.id, "not_started"))
        result = self.live.agree_end(seat, req.agree)
        if isinstance(result, Refused):
            return _fair(P.refused(req.id, result.code, result.params))
        log.info("table %s: seat %d %s ending by agreement", self.id, seat + 1,
                 "agrees to" if req.agree else "no longer agrees to")
        return P.ok(req.id, version=result.version)

    def undo(self, conn: "Connection", req: P.Undo) -> dict:
        seat = self.seat_of(conn)
        if seat is None:
            return P.refused(req.id, "not_seated")
        if self.waiting:
            return _fair(P.refused(req.id, "not_started"))
        if self.slots[seat].takeover:
            return P.refused(req.id, "ai_playing", {"seat": seat})
        if self.paused is not None:
            return _fair(P.refused(req.id, self.paused))
        result = self.live.undo(seat)
        if isinstance(result, Refused):
            return _fair(P.refused(req.id, result.code, result.params))
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
            key = self.live._asked.get(s)
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
            generation, asked = self.live._generation, self.live._asked.get(seat)
            action, reason, after = await self.server.think(player, obs, self)
            # ... and an action that came meanwhile (no await from here to the submit)
            await self.saver.saved()
        finally:
            self._inflight = None
        self._players[seat] = after
        slot = self.slots[seat]
        still = (not self.live.closed and generation == self.live._generation
                 and seat in self.game.pending().seats
                 and action in self.game.observe(seat).legal
                 and (why != "clock" or self.live._asked.get(seat) == asked))
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


# ------------------------------------------------------------------ a connection

# Refusals a well-behaved client meets in play (a seat taken a moment before, the AI
# still deciding, the rules' own refusals of an action or an undo: `_fair`): answered,
# not counted against the connection. Every other refusal is bad input and counts
# (PROTOCOL.md "Bad input": 20 within a minute end the connection).
FAIR_REFUSALS = frozenset({"ai_playing", "seat_taken", "seat_is_ai", "no_open_seat",
                           "too_many_tables", "already_seated", "no_such_seat", "rate_limited",
                           "chat_busy", "save_failed", "not_started", "started", "not_owner"})


def _fair(refusal: dict) -> dict:
    refusal["fair"] = True
    return refusal


class Connection:
    def __init__(self, server: "Server", reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
        self.server, self.reader, self.writer = server, reader, writer
        peer = writer.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        self.name: Optional[str] = None
        self.lang = "en"
        self.last_id = -1
        self.tables: dict[str, Optional[int]] = {}     # table -> seat (None: watching)
        self.budget = P.ErrorBudget()
        self.chats = P.ErrorBudget(*CHAT_BURST)
        self.closing = False
        self.sent = 0                                   # frames (the bench counts them)
        self.key: Optional[str] = None                  # its peer (Server.peer_key)
        self.bucket = bucket(server.rate, server.clock)  # its requests a second
        self.peer_bucket: Optional[TokenBucket] = None  # its peer's (Server._serve)
        self.started = self.heard = time.monotonic()    # when it came, its last frame
        self._watchdog: Optional[asyncio.TimerHandle] = None
        self._ended = asyncio.Event()                   # set by close()

    # ------------------------------------------------------------ output
    def send(self, obj: dict) -> None:
        if self.closing:
            return
        try:
            frame = P.encode_frame(obj, P.MAX_SERVER_FRAME)
        except (P.FrameTooLarge, ValueError) as exc:
            log.error("%s: a message cannot be sent (%s): closing", self.peer, exc)
            self.close()
            return
        self.send_frame(frame)

    def send_frame(self, frame: bytes) -> None:
        """Written at once, in the caller's turn of the event loop (the kernel takes what
        it can now, the transport keeps the rest and sends it as the client reads): an
        update reaches every connection without waiting for a task per connection. A
        client that reads too slowly is dropped when more than its `queue_limit()` bytes
        wait for it as another frame comes (it reconnects and gets the whole log again,
        `reset`); the table and the others never wait for it. (Dropped, not thinned out:
        every frame a connection is sent is one it needs — an answer, its seat's update, a
        change of seats — and a client that skipped one would show a wrong table.)"""
        if self.closing:
            return
        transport = self.writer.transport
        if transport.is_closing():
            return
        waiting = transport.get_write_buffer_size()
        limit = self.queue_limit()
        if waiting > limit:
            self.server.peer_log.say(self.key, "too slow", logging.WARNING,
                                     "%s: too slow (%d bytes waiting, %d at most): closing",
                                     self.peer, waiting, limit)
            self.close(abort=True)
            return
        try:
            self.writer.write(frame)
        except (ConnectionError, OSError, RuntimeError):   # gone meanwhile
            self.close(abort=True)
            return
        self.sent += 1

    def queue_limit(self) -> int:
        """The bytes that may wait for this connection: a seated player's more."""
        seated = any(seat is not None for seat in self.tables.values())
        return self.server.queued_seated if seated else self.server.queued

    def send_update(self, table_id: str, update) -> None:
        try:
            body = update_to_wire(update)
        except Exception as exc:  # noqa: BLE001 - a bug: this connection ends, the table goes on
            log.error("%s: an update of table %s cannot be encoded: %r", self.peer, table_id, exc)
            self.close()
            return
        self.send({"t": "update", "table": table_id, "update": body})

    def bye(self, code: str) -> None:
        self.send(P.bye(code))
        self.close()

    def close(self, abort: bool = False) -> None:
        """Stop sending after what is queued (abort: at once, else within a few seconds
        even if the client reads nothing), close the socket, leave every table."""
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        self._ended.set()
        if not self.closing:
            self.closing = True
            try:
                self.writer.close()           # after what is written (the transport's buffer)
                asyncio.get_running_loop().call_later(5.0, self.writer.transport.abort)
            except RuntimeError:
                pass
        if abort:
            self.writer.transport.abort()
        for table_id in list(self.tables):
            table = self.server.tables.get(table_id)
            if table is not None:
                table.detach(self)
            self.tables.pop(table_id, None)

    # ------------------------------------------------------------ input
    def refuse(self, rid: Optional[int], code: str, params: Optional[dict] = None,
               detail: str = "") -> None:
        self.server.peer_log.say(self.key, code, logging.INFO, "%s: refused %s%s%s", self.peer,
                                 code, f" {params}" if params else "",
                                 f" ({detail})" if detail else "")
        self.send(P.refused(rid, code, params))
        if self.budget.strike():
            self.server.peer_log.say(self.key, "too_many_errors", logging.WARNING,
                                     "%s: %d refusals within a minute: closing", self.peer,
                                     self.budget.limit)
            self.bye("too_many_errors")

    def admit(self, obj: dict) -> float:
        """0 if the request `obj` may be handled now (its cost taken from the connection's
        bucket and its peer's), else the seconds until it could be: it is refused
        `rate_limited` (not counted as bad input), and nothing more is read from this
        connection meanwhile — a flood waits in its own socket, not in the host."""
        kind = obj.get("t")
        cost = REQUEST_COST.get(kind, 1) if type(kind) is str else 1
        buckets = [b for b in (self.bucket, self.peer_bucket) if b is not None]
        if all(b.has(cost) for b in buckets):
            for b in buckets:
                b.take(cost)
            return 0.0
        wait = max(b.wait(cost) for b in buckets)
        self.server.peer_log.say(self.key, "rate_limited", logging.INFO,
                                 "%s: refused rate_limited (%s)", self.peer, str(kind)[:16])
        self.send(P.refused(P.request_id(obj), "rate_limited",
                            {"retry": math.ceil(wait * 10) / 10}))
        return wait

    def _watch(self) -> None:
        """The idle watchdog (PROTOCOL.md "Idle connections"): a connection that says no
        hello within the server's hello_timeout, or that is at no table (seated or
        watching) and sends nothing for its idle_timeout, gets `bye idle`. At a table its
        player may be reading or waiting for the others, but its client still pings: one
        that sends nothing for seated_idle_timeout is gone (a half-open socket kept its
        seat 'connected' for ever, and the table waited for it) and is closed, so that
        its seat is disconnected and, after the table's grace, played by the AI."""
        self._watchdog = None
        if self.closing:
            return
        now = time.monotonic()
        if self.name is None:
            left = self.started + self.server.hello_timeout - now
            why = "no hello"
        elif self.tables:
            left = self.heard + self.server.seated_idle_timeout - now
            why = f"nothing for {self.server.seated_idle_timeout:g} s at a table"
        else:
            left = self.heard + self.server.idle_timeout - now
            why = f"nothing for {self.server.idle_timeout:g} s at no table"
        if left <= 0:
            log.debug("%s: %s: closing", self.peer, why)
            self.bye("idle")
            return
        # looked at again at least every idle_timeout: a connection that leaves its
        # tables is then held to the shorter time
        self._watchdog = asyncio.get_running_loop().call_later(
            min(left, self.server.idle_timeout), self._watch)

    async def run(self) -> None:
        self._watch()
        try:
            while not self.closing:
                try:
                    obj = await P.read_frame(self.reader, P.MAX_CLIENT_FRAME)
                    self.heard = time.monotonic()
                except P.FrameTooLarge as exc:
                    log.warning("%s: %s: closing", self.peer, exc)
                    self.send(P.refused(None, "frame_too_large", {"limit": P.MAX_CLIENT_FRAME}))
                    self.bye("too_many_errors")
                    break
                except P.FrameTruncated as exc:
                    log.warning("%s: truncated frame (%s): closing", self.peer, exc)
                    self.close()
                    break
                except P.BadFrame as exc:
                    self.heard = time.monotonic()
                    self.refuse(None, "bad_frame", {"why": exc.why})
                    continue
                except (ConnectionError, OSError):
                    break
                if obj is None:
                    break
                wait = self.admit(obj)
                if wait:
                    with contextlib.suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(self._ended.wait(), wait)   # (or closed)
                    continue
                try:
                    await self.handle(obj)
                except Exception as exc:  # noqa: BLE001 - a bug: refused, said, the rest goes on
                    log.error("%s: a request failed: %r", self.peer, exc, exc_info=exc)
                    self.refuse(P.request_id(obj), "server_error")
                # the others' turn: frames this client sent together are all in the
                # reader's buffer, and reading them does not wait — without this, one
                # connection's burst was handled to its end before anyone else's frame
                await asyncio.sleep(0)
        finally:
            self.close()
            try:
                await asyncio.wait_for(self.writer.wait_closed(), 5.0)
            except (asyncio.TimeoutError, Exception):  # noqa: BLE001 - it is ending
                self.writer.transport.abort()

    async def handle(self, obj: dict) -> None:
        try:
            req = P.parse_request(obj)
        except P.BadRequest as bad:
            self.refuse(bad.id, bad.code, bad.params)
            return
        if req.id <= self.last_id:
            self.refuse(req.id, "bad_id", {"last": self.last_id})
            return
        self.last_id = req.id
        if isinstance(req, P.Hello):
            if self.name is not None:
                self.refuse(req.id, "hello_twice")
            elif req.v != P.VERSION:
                self.refuse(req.id, "bad_version", {"server": P.VERSION})
            else:
                self.name, self.lang = req.name, req.lang
                log.debug("%s: hello from %r", self.peer, req.name)
                self.send(P.ok(req.id, v=P.VERSION, server="tactical",
                               cards=fingerprint(self.server.cards)))
            return
        if self.name is None:
            self.refuse(req.id, "hello_first")
            return
        if isinstance(req, (P.Submit, P.Undo)) and req.table in self.server.tables:
            # a player's action follows the save of the last one (then a host killed at
            # any moment loses at most the action being applied); if that save failed,
            # the table is paused and the action refused `save_failed` (HostedTable.submit)
            await self.server.tables[req.table].saver.settled()
        answer = self.server.dispatch(self, req)
        if answer:
            if answer["t"] == "refused" and answer["code"] not in FAIR_REFUSALS \
                    and not answer.pop("fair", False):
                self.refuse(answer["id"], answer["code"], answer["params"])
            else:
                answer.pop("fair", None)
                if answer["t"] == "refused":
                    self.server.peer_log.say(self.key, answer["code"], logging.INFO,
                                             "%s: refused %s %s", self.peer, answer["code"],
                                             answer["params"])
                self.send(answer)


# ------------------------------------------------------------------ the host's folder

class FolderProblem(Exception):
    """The folder of the tables cannot be the host's: an i18n key (``net.host.folder_*``)
    and its parameters, said by host_cli in the operator's language."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key, params)
        self.key, self.params = key, params


def private_folder(folder: Path) -> None:
    """Make sure `folder` holds the host's files only for the host's user, as sshd's
    StrictModes does for ~/.ssh: made with mode 0700 if it is not there; refused
    (FolderProblem) if it is not a folder, belongs to another user, or anyone may write
    in it (o+w: others may have put files there already); one that the group may write
    in or others may read (an older host's, a umask of 002) is made 0700, with a warning
    — the tables' files hold every seat's hidden cards."""
    import stat as st
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = folder.stat()
    except OSError as exc:
        raise FolderProblem("net.host.folder_error", folder=folder,
                            detail=exc.strerror or str(exc)) from exc
    if not st.S_ISDIR(info.st_mode):
        raise FolderProblem("net.host.folder_error", folder=folder, detail="not a folder")
    if info.st_uid != os.geteuid():
        raise FolderProblem("net.host.folder_owner", folder=folder, uid=info.st_uid)
    if info.st_mode & 0o002:
        raise FolderProblem("net.host.folder_open", folder=folder,
                            mode=f"{st.S_IMODE(info.st_mode):o}")
    if info.st_mode & 0o077:
        log.warning("%s could be used by others (mode %o): made private (0700)", folder,
                    st.S_IMODE(info.st_mode))
        os.chmod(folder, 0o700)


# ------------------------------------------------------------------ refused connections

LOCAL = "this machine"


def peer_key(peer: Any, local: Any = None) -> str:
    """Whom a connection counts against (Server.max_per_peer): its address; an IPv6
    address by its /64 (one machine, or one site, usually holds a whole /64); LOCAL for
    this machine — loopback, or the very address the host listens on (the SSH door's
    children connect to that one when the host is bound to an address of its own)."""
    import ipaddress
    host = peer[0] if isinstance(peer, tuple) and peer else peer
    here = local[0] if isinstance(local, tuple) and local else local
    try:
        ip = ipaddress.ip_address(str(host).split("%")[0])
    except ValueError:
        return str(host)                        # (a Unix socket: one peer)
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback or str(host) == str(here):
        return LOCAL
    if ip.version == 6:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class RateLimited:
    """Count events; `note()` says how many to log now — the first at once, then at most
    one line per `every` seconds, with the number since the last one (None: not now)."""

    def __init__(self, every: float, clock=time.monotonic) -> None:
        self.every, self.clock = every, clock
        self.count = 0
        self.last: Optional[float] = None

    def note(self) -> Optional[int]:
        now = self.clock()
        self.count += 1
        if self.last is not None and now - self.last < self.every:
            return None
        said, self.count, self.last = self.count, 0, now
        return said


class TokenBucket:
    """`rate` tokens a second, up to `burst`: `take(n)` spends `n` when there are that
    many (True), else nothing (False); `wait(n)` is the seconds until there are. A rate
    of 0 or less: no limit."""

    __slots__ = ("rate", "burst", "tokens", "stamp", "clock")

    def __init__(self, rate: float, burst: float, clock=time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens = burst
        self.stamp = clock()

    def _fill(self) -> None:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + max(0.0, now - self.stamp) * self.rate)
        self.stamp = now

    def has(self, n: float = 1.0) -> bool:
        if self.rate <= 0:
            return True
        self._fill()
        return self.tokens >= n

    def take(self, n: float = 1.0) -> bool:
        if not self.has(n):
            return False
        if self.rate > 0:
            self.tokens -= n
        return True

    def wait(self, n: float = 1.0) -> float:
        if self.has(n):
            return 0.0
        return (min(n, self.burst) - self.tokens) / self.rate

    def full(self) -> bool:
        return self.rate <= 0 or (self.has(self.burst))


def bucket(rate: float, clock=time.monotonic, seconds: float = 2.0) -> TokenBucket:
    """A bucket of `rate` a second whose burst is `seconds` of it (and at least the
    dearest request: REQUEST_COST)."""
    return TokenBucket(rate, max(rate * seconds, max(REQUEST_COST.values())), clock)


class PeerLog:
    """Log lines about what one peer does (refusals, wrong join codes, slow readers,
    connections closed): at most one line per `every` seconds per peer — the first at
    once; the ones held back meanwhile are counted, by kind, and said in the peer's next
    line (or when the peer is forgotten). 5 connections' refusals wrote 16 MB in 15 s."""

    KEEP = 4096                   # peers remembered at most

    def __init__(self, every: float = PEER_LOG_EVERY, clock=time.monotonic) -> None:
        self.every, self.clock = every, clock
        self.peers: dict[str, tuple[float, dict]] = {}   # peer -> (last line, held back by kind)

    def say(self, peer: Optional[str], kind: str, level: int, msg: str, *args: Any) -> bool:
        """Log `msg % args` unless `peer` had a line within `every` seconds (then it is
        counted under `kind`). True if it was logged."""
        now = self.clock()
        peer = peer or "?"
        last = self.peers.get(peer)
        if last is not None and now - last[0] < self.every:
            last[1][kind] = last[1].get(kind, 0) + 1
            return False
        held = last[1] if last is not None else {}
        if held:
            msg += " (and since %s's last line: %s)"
            args = (*args, peer, _counts(held))
        log.log(level, msg, *args)
        self.peers.pop(peer, None)
        self.peers[peer] = (now, {})
        if len(self.peers) > self.KEEP:
            self._forget(now)
        return True

    def _forget(self, now: float) -> None:
        for peer, (last, held) in list(self.peers.items()):
            if now - last >= self.every or len(self.peers) > self.KEEP:
                del self.peers[peer]
                if held:
                    log.info("%s: %s", peer, _counts(held))


def _counts(held: dict) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in sorted(held.items(), key=lambda kv: -kv[1]))


class AIQueue:
    """The AI pool's turns: at most `slots` decisions in the executor at once; the others
    wait, those of tables with a human seated (connected) first, then in the order they
    came. 90 all-AI tables made another table's normal AI wait 1.1 s a decision."""

    def __init__(self, slots: int) -> None:
        self.slots = max(1, slots)
        self.busy = 0
        self.waiting: list = []              # (priority, arrival, future)
        self._arrival = itertools.count()

    async def acquire(self, priority: int) -> None:
        if self.busy < self.slots:           # (then nobody waits: release hands turns over)
            self.busy += 1
            return
        fut = asyncio.get_running_loop().create_future()
        heapq.heappush(self.waiting, (priority, next(self._arrival), fut))
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self.release()               # handed a turn it will not use
            raise

    def release(self) -> None:
        while self.waiting:
            _, _, fut = heapq.heappop(self.waiting)
            if not fut.done():
                fut.set_result(None)         # the turn goes to it (busy stays)
                return
        self.busy -= 1


TURN_AWAY_WAIT = 1.0        # seconds a refused connection has to read its bye
_turning_away = 0           # refused connections waiting for their client to read the bye
TURN_AWAY_MAX = 64


async def _turn_away(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, code: str) -> None:
    """`bye code` to a connection refused at once (server_full, too_many_connections),
    then closed. The server's half is shut first and what the client sends is read for a
    moment: a client that wrote its hello before the bye came would otherwise get a reset
    that may throw the bye away unread. At most TURN_AWAY_MAX wait so at a time (a flood
    of connections gets its bye and is closed at once)."""
    global _turning_away
    try:
        writer.write(P.encode_frame(P.bye(code)))
        if _turning_away < TURN_AWAY_MAX and writer.can_write_eof():
            _turning_away += 1
            try:
                writer.write_eof()
                async with asyncio.timeout(TURN_AWAY_WAIT):
                    while await reader.read(65536):
                        pass
            except (TimeoutError, ConnectionError, OSError):
                pass
            finally:
                _turning_away -= 1
    except (ConnectionError, OSError, RuntimeError):
        pass
    finally:
        writer.close()


# ------------------------------------------------------------------ the server

@define
class Server:
    folder: Path
    cards: CardSet = field(factory=default_cards)
    cards_toml: Optional[str] = None          # the card data's text (None: the shipped file)
    executor: Any = None                      # AI decisions (None: a thread of the host)
    pool_factory: Any = None                  # makes a new executor if that one breaks
    ai_delay: float = 0.6
    max_tables: int = MAX_TABLES
    max_connections: int = MAX_CONNECTIONS
    max_per_peer: int = MAX_PER_PEER          # connections from one address (its /64: IPv6)
    max_per_local: int = MAX_PER_LOCAL        # connections from this machine
    max_per_door: int = MAX_PER_DOOR          # connections through the door's Unix socket
    hello_timeout: float = HELLO_TIMEOUT
    idle_timeout: float = IDLE_TIMEOUT        # at no table, nothing sent: bye idle
    seated_idle_timeout: float = SEATED_IDLE_TIMEOUT   # at a table, nothing sent: gone
    finished_keep: float = FINISHED_KEEP      # seconds a finished table stays listed
    finished_listed: int = FINISHED_LISTED    # finished tables listed at most (oldest out first)
    rate: float = RATE                        # requests a second: a connection's
    peer_rate: float = PEER_RATE              # ... a peer's (all its connections)
    local_rate: float = LOCAL_RATE            # ... this machine's (every local client)
    queued: int = MAX_QUEUED                  # bytes waiting for a connection at no seat
    queued_seated: int = MAX_QUEUED_SEATED    # ... for a seated player's
    tables_per_peer: int = TABLES_PER_PEER    # unfinished tables a peer created, at most
    tables_per_local: int = TABLES_PER_LOCAL  # ... this machine
    retire_after: float = RETIRE_AFTER        # seconds unfinished with no human seated (0: never)
    waiting_max: float = WAITING_MAX          # seconds a table may wait to be started (0: for ever)
    code_guesses: int = CODE_GUESSES          # wrong join codes a minute from one peer
    spectator_chat: int = SPECTATOR_CHAT      # lines in 10 s from a table's spectators together
    log_every: float = PEER_LOG_EVERY         # seconds between two log lines about one peer
    ai_slots: Optional[int] = None            # decisions in the executor at once (None: its workers)
    clock: Any = time.monotonic               # the rate limits' and the peer log's
    tables: dict = field(factory=dict)
    connections: set = field(factory=set)
    peers: dict = field(factory=dict)         # peer key -> its connections now
    refused_log: Any = field(factory=lambda: RateLimited(REFUSED_LOG_EVERY))
    peer_buckets: dict = field(factory=dict)  # peer key -> its requests' TokenBucket
    guesses: dict = field(factory=dict)       # peer key -> its wrong join codes' TokenBucket
    peer_log: Any = None                      # PeerLog (made from log_every and clock)
    ai_queue: Any = None                      # AIQueue (made at the first decision)
    server: Any = None
    door_server: Any = None                   # the Unix socket of the SSH door's sessions
    door_path: Optional[Path] = None
    _lock: Any = None
    _unsynced: set = field(factory=set)       # saves written since the last fsync
    _sync_task: Any = None

    # ------------------------------------------------------------ start, stop
    def __attrs_post_init__(self) -> None:
        if self.peer_log is None:
            self.peer_log = PeerLog(self.log_every, self.clock)

    def lock_folder(self) -> None:
        """One host per folder of tables (RuntimeError naming the folder otherwise), a
        folder only the host's user can use (FolderProblem otherwise: private_folder),
        locked through ``host.lock``, mode 0600 (one another user could open, they
        could lock, and keep the host from starting)."""
        import fcntl
        private_folder(self.folder)
        try:
            fd = os.open(self.folder / "host.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW,
                         0o600)
        except OSError as exc:                    # a symbolic link, a folder, …
            raise FolderProblem("net.host.folder_error", folder=self.folder / "host.lock",
                                detail=exc.strerror or str(exc)) from exc
        f = os.fdopen(fd, "a+")
        try:
            if os.fstat(fd).st_mode & 0o077:
                os.fchmod(fd, 0o600)
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            raise RuntimeError(f"another tactical host serves {self.folder}") from None
        self._lock = f

    async def listen_door(self) -> str:
        """Listen on the Unix socket of the SSH front door's `tactical join`s (DOOR_SOCKET
        in the folder, mode 0600; the folder is 0700: lock_folder). A path too long for a
        Unix socket (108 bytes) is put in a private folder of its own in the temporary
        folder instead. Returns the path."""
        import tempfile
        path = self.folder / DOOR_SOCKET
        if len(os.fsencode(str(path))) > 100:
            path = Path(tempfile.mkdtemp(prefix="tactical-door-")) / DOOR_SOCKET
        path.unlink(missing_ok=True)             # a socket left by a host killed outright
        old = os.umask(0o177)
        try:
            self.door_server = await asyncio.start_unix_server(
                lambda r, w: self._serve(r, w, door=True), str(path))
        finally:
            os.umask(old)
        os.chmod(path, 0o600)
        self.door_path = path
        return str(path)

    async def start(self, host: str = "127.0.0.1", port: int = P.DEFAULT_PORT) -> tuple[str, int]:
        """Resume the folder's tables, then listen. Returns the address listened on."""
        register_cards(self.cards)
        if self._lock is None:
            self.lock_folder()
        self.resume()
        self._sync_task = asyncio.get_running_loop().create_task(self._sync_loop())
        self.server = await asyncio.start_server(self._serve, host, port)
        addr = self.server.sockets[0].getsockname()
        return addr[0], addr[1]

    async def stop(self) -> None:
        """Say bye to everyone, stop every table (each is saved after every action)."""
        if self.server is not None:
            self.server.close()
        if self.door_server is not None:
            self.door_server.close()
        for conn in list(self.connections):
            conn.bye("server_stopping")
        for table in self.tables.values():
            table.close()
        for table in self.tables.values():
            await table.saver.settled()       # the write under way (not the retries)
            if table.saver.failing is not None:
                log.error("table %s: stopped with its last action not saved (%s)",
                          table.id, table.saver.failing)
            table.saver.stop()
        await asyncio.sleep(0)
        if self.server is not None:
            try:
                await asyncio.wait_for(self.server.wait_closed(), 5.0)
            except asyncio.TimeoutError:
                pass
        if self._sync_task is not None:
            self._sync_task.cancel()
        await self.sync()
        if self.door_path is not None:
            self.door_path.unlink(missing_ok=True)
            if self.door_path.parent != self.folder:
                try:
                    self.door_path.parent.rmdir()
                except OSError:
                    pass
            self.door_path = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    async def sync(self) -> None:
        """fsync the saves written since the last time (in a thread)."""
        paths = list(self._unsynced)
        self._unsynced.clear()
        if not paths:
            return
        failed = await asyncio.to_thread(_fsync_all, paths, self.folder)
        for path in failed:
            # not on disk for sure (EIO, a full disk found late): written again — if that
            # fails too, the table is paused until it works (Saver)
            table = next((t for t in self.tables.values() if t.game.save_path == path), None)
            if table is not None and not table.live.closed:
                table.game.autosave()

    async def _sync_loop(self) -> None:
        while True:
            await asyncio.sleep(SYNC_EVERY)
            try:
                await self.sync()
            except Exception as exc:  # noqa: BLE001 - said; the next round tries again
                log.error("cannot sync the saves: %r", exc)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                     door: bool = False) -> None:
        if door:                                  # the door's socket: its own share only
            key, limit = DOOR, self.max_per_door
        else:
            key = peer_key(writer.get_extra_info("peername"), writer.get_extra_info("sockname"))
            limit = self.max_per_local if key == LOCAL else self.max_per_peer
        code = None
        if len(self.connections) >= self.max_connections and not door:
            code = "server_full"
        elif self.peers.get(key, 0) >= limit:
            code = "too_many_connections"
        if code is not None:
            said = self.refused_log.note()
            if said:
                log.warning("connections refused: %d (%s; now %d connections, %d from %s)",
                            said, code, len(self.connections), self.peers.get(key, 0), key)
            await _turn_away(reader, writer, code)
            return
        conn = Connection(self, reader, writer)
        conn.key = key
        conn.peer_bucket = self._peer_bucket(key)
        self.connections.add(conn)
        self.peers[key] = self.peers.get(key, 0) + 1
        try:
            await conn.run()
        finally:
            self.connections.discard(conn)
            self.peers[key] -= 1
            if not self.peers[key]:
                del self.peers[key]

    def _peer_bucket(self, key: str) -> TokenBucket:
        """The peer's bucket of requests, kept while the peer is away until it is full
        again (a peer that closes its connections and comes back is not a new one)."""
        got = self.peer_buckets.get(key)
        if got is None:
            if len(self.peer_buckets) > 2 * len(self.peers) + 256:
                for k, b in list(self.peer_buckets.items()):
                    if k not in self.peers and b.full():
                        del self.peer_buckets[k]
            got = self.peer_buckets[key] = bucket(
                # the door's socket carries every SSH player's session: a whole machine's
                # share, as loopback has, not one peer's
                self.local_rate if key in (LOCAL, DOOR) else self.peer_rate, self.clock)
        return got

    def guessing(self, conn: "Connection") -> Optional[float]:
        """None if `conn`'s peer may try a join code now, else the seconds until it may:
        `code_guesses` wrong codes a minute per peer (private tables' codes were tried
        ~6,700 times a second from one machine)."""
        got = self.guesses.get(conn.key)
        if got is None:
            if len(self.guesses) > 4096:
                for k, b in list(self.guesses.items()):
                    if b.full():
                        del self.guesses[k]
            got = self.guesses[conn.key] = TokenBucket(
                self.code_guesses / 60.0, max(1, self.code_guesses), self.clock)
        return None if got.has(1) else got.wait(1)

    def wrong_code(self, conn: "Connection") -> None:
        got = self.guesses.get(conn.key)
        if got is not None:
            got.take(1)

    async def think(self, player: Any, obs: Any, table: Optional["HostedTable"] = None) -> tuple:
        """(action, reason, the player after deciding), in the AI pool's turn
        (`AIQueue`: a table with a human seated before the others)."""
        if self.ai_queue is None:
            slots = self.ai_slots or getattr(self.executor, "_max_workers", None) or 1
            self.ai_queue = AIQueue(slots)
        queue = self.ai_queue
        await queue.acquire(0 if table is not None and table.has_humans() else 1)
        try:
            return await self._think(player, obs)
        finally:
            queue.release()

    async def _think(self, player: Any, obs: Any) -> tuple:
        """In the executor (the player packed, its card data by reference), or in a
        thread with the player itself."""
        if self.executor is None:
            action, reason = await in_thread(_choose, player, obs)
            return action, reason, player
        from concurrent.futures import BrokenExecutor
        loop = asyncio.get_running_loop()
        pool = self.executor
        try:
            action, reason, blob = await loop.run_in_executor(pool, decide, pack(player), obs)
        except BrokenExecutor as exc:
            # a worker died (killed, out of memory): a new pool, else this process thinks
            if self.executor is pool:
                log.error("the AI pool is broken (%r): %s", exc,
                          "starting a new one" if self.pool_factory else "thinking in the host")
                self.executor = self.pool_factory() if self.pool_factory else None
            return await self._think(player, obs)
        return action, reason, unpack(blob)

    # ------------------------------------------------------------ tables
    def _new_id(self) -> str:
        while True:
            tid = secrets.token_hex(4)
            if tid not in self.tables and not any(   # (nor a table skipped at start)
                    os.path.lexists(self.folder / f"{tid}{end}") for end in (".json", ".table.json")):
                return tid

    def create(self, req: P.Create, peer: Optional[str] = None, creator: Optional[Connection] = None
               ) -> tuple[Optional[HostedTable], Optional[str]]:
        """A new table of `peer`, started — (None, None) if its save or sidecar cannot be
        written (nothing of it is kept: a table exists only once it is on disk)."""
        tid = self._new_id()
        seats = tuple(SeatSetup(s.kind == "open", s.level or "normal") for s in req.seats)
        game = NetGame(Config(players=len(seats), first_game=req.first_game), seats,
                       secrets.randbelow(SEED_LIMIT), self.cards,
                       save_path=self.folder / f"{tid}.json")
        code = _new_code() if req.private else None
        slots = [Slot("open") if s.kind == "open" else Slot("ai", s.level) for s in req.seats]
        game.autosave()                   # at once (no Saver yet): the save, then its sidecar
        # a table with a seat open waits for its players (issue 31): no game action until
        # its creator starts it or every seat is taken
        table = HostedTable(self, tid, game, slots, req.private, _hash(code) if code else None,
                            req.grace, req.takeover, req.clock, peer=peer,
                            waiting=any(s.kind == "open" for s in slots), code=code)
        table.creator = creator
        if game.save_error is not None or not table.save_meta():
            for path in (game.save_path, table.meta_path):
                with contextlib.suppress(OSError):
                    os.unlink(path)
            return None, None
        self.tables[tid] = table
        table.start()
        log.info("table %s created: %s%s%s", tid, ",".join(s.kind if s.kind == "open" else s.level
                                                            for s in slots),
                 " (private)" if code else "", " (waiting for its players)" if table.waiting else "")
        return table, code

    def resume(self) -> None:
        """Every unfinished table of the folder, as it was saved. A table whose sidecar or
        save cannot be read — damaged, not JSON, over its size limit, a folder, a named
        pipe (never opened: rules.files.read_bounded checks with stat first and opens
        with O_NONBLOCK), unreadable — is skipped with one log line saying why, and left
        where it is (a file that could not be read for a while — a permission, no file
        descriptor left — is resumed at the next start once it can be; its id is never
        given to a new table); every other table is served."""
        from rules.files import FileProblem
        for meta_path in sorted(self.folder.glob("*.table.json")):
            tid = meta_path.name[:-len(".table.json")]
            if tid in self.tables:
                continue
            try:
                table = self._load(tid, meta_path)
            except (SaveError, FileProblem) as exc:
                log.error("table %s cannot be resumed (skipped): %s", _one_line(tid), _one_line(exc))
                continue
            except Exception as exc:  # noqa: BLE001 - anything a damaged file makes happen
                log.error("table %s cannot be resumed (skipped): %s: %s", _one_line(tid),
                          type(exc).__name__, _one_line(exc))
                continue
            if table is None:
                continue
            self.tables[tid] = table
            table.start()
            log.info("table %s resumed at action %d", tid, table.live.version)

    def finished(self, table: HostedTable) -> None:
        """`table` is over: listed ("over") for finished_keep seconds, and among the
        finished_listed newest finished tables — an older one leaves the list at once
        (self-finishing tables kept the lobby at 180 entries)."""
        over = sorted((t for t in self.tables.values() if t.game.over and not t.live.closed),
                      key=lambda t: t.over_at)
        for old in over[:max(0, len(over) - self.finished_listed)]:
            self.archive(old.id)

    def archive(self, tid: str, into: str = "finished") -> None:
        """A finished table leaves the list: its save and sidecar move to `finished/`
        in the folder of tables (kept: a replay of the game; never resumed). A retired
        one (`retire`) goes to `retired/` the same way."""
        table = self.tables.pop(tid, None)
        if table is not None:
            table.close()
            for conn in table.connections():
                conn.tables.pop(tid, None)
        asyncio.get_running_loop().create_task(self._archive_files(tid, table, into))

    def retire(self, tid: str, why: str = "lonely") -> None:
        """An unfinished table that had no human seated for retire_after seconds, or
        that waited for its players (not started) for waiting_max seconds (`why`
        "waiting"): it leaves the list and stops; its save and sidecar are kept in
        `retired/` (not resumed; moved back beside the others, it is resumed at the next
        start)."""
        table = self.tables.get(tid)
        if table is None or table.game.over:
            return
        if why == "waiting":
            if not table.waiting:
                return
            log.info("table %s retired: not started within %g s", tid, self.waiting_max)
        else:
            if table.has_humans():
                return
            log.info("table %s retired: no human seated for %g s", tid, self.retire_after)
        self.archive(tid, "retired")

    async def _archive_files(self, tid: str, table: Optional[HostedTable],
                             into: str = "finished") -> None:
        if table is not None:
            await table.saver.saved()
        try:
            await asyncio.to_thread(self._move_finished, tid, into)
        except OSError as exc:
            log.error("table %s: cannot move it to %s: %s", tid, into, exc)
        else:
            log.info("table %s moved to %s", tid, self.folder / into)

    def _move_finished(self, tid: str, into: str = "finished") -> None:
        done = self.folder / into
        done.mkdir(exist_ok=True)
        for name in (f"{tid}.json", f"{tid}.table.json"):
            if (self.folder / name).exists():
                os.replace(self.folder / name, done / name)

    def _load(self, tid: str, meta_path: Path) -> Optional[HostedTable]:
        from rules.files import read_bounded
        meta = json.loads(read_bounded(meta_path, 1024 * 1024).decode("utf-8"))
        if type(meta) is not dict or meta.get("format") != META_FORMAT or meta.get("table") != tid:
            raise ValueError(f"{meta_path}: not a table file of this host")
        save_path = self.folder / f"{tid}.json"
        data = read_save(save_path)
        if data.finished:                 # (over before the host stopped): archived now
            try:
                self._move_finished(tid)
                log.info("table %s is over: archived in %s", tid, self.folder / "finished")
            except OSError as exc:
                log.error("table %s: cannot archive it: %s", tid, exc)
            return None
        game = NetGame.from_save(data, self.cards, str(save_path), save_path=save_path)
        slots = []
        for i, s in enumerate(meta["seats"]):
            kind, level = s["kind"], s["level"]
            if kind not in ("open", "human", "ai") or (kind == "ai") == game.seats[i].human \
                    or (kind == "ai" and level != game.seats[i].level):
                raise ValueError(f"{meta_path}: seat {i + 1} does not match the save")
            name, token_hash = s["name"], s["token_hash"]
            if not (name is None or type(name) is str) or not (token_hash is None or type(token_hash) is str):
                raise ValueError(f"{meta_path}: seat {i + 1} is damaged")
            slots.append(Slot(kind, level if kind == "ai" else None, name, token_hash,
                              left=s.get("left") is True and kind == "human"))
        if len(slots) != len(game.seats):
            raise ValueError(f"{meta_path}: {len(slots)} seats for {len(game.seats)}")
        clock, peer = meta["clock"], meta.get("peer")
        # (the join code itself is kept in memory only, as the tokens: on disk its hash)
        waiting, owner, code = meta.get("waiting") is True, meta.get("owner"), None
        if game.history:
            waiting = False               # (a table that has played has started)
        if not (type(owner) is int and 0 <= owner < len(slots) and slots[owner].kind == "human"):
            owner = None
        if not (type(code) is str and _matches(code, meta["code_hash"])):
            code = None
        # a grace from before the protocol's cap (a day, through the raw protocol) is cut
        return HostedTable(self, tid, game, slots, bool(meta["private"]), meta["code_hash"],
                           min(float(meta["grace"]), P.GRACE_MAX), str(meta["takeover"]),
                           None if clock is None else float(clock), float(meta.get("created", 0)),
                           peer=peer if type(peer) is str else None, waiting=waiting,
                           owner=owner, code=code)

    # ------------------------------------------------------------ requests
    def dispatch(self, conn: Connection, req: P.Request) -> dict:
        if isinstance(req, P.ListTables):
            # the tables waiting for players first (issue 31), then by age
            tables = sorted(self.tables.values(), key=lambda t: (not t.waiting, t.created))
            return P.ok(req.id, tables=[t.info(conn).to_wire() for t in tables])
        if isinstance(req, P.Cards):
            return P.ok(req.id, toml=self.cards_text())
        if isinstance(req, P.Ping):
            return P.ok(req.id)
        if isinstance(req, P.Create):
            live = [t for t in self.tables.values() if not t.game.over]
            if len(live) >= self.max_tables:
                return P.refused(req.id, "too_many_tables", {"limit": self.max_tables})
            # per peer, not per connection: one machine filled the host's 100 tables in a
            # second from 10 connections
            share = self.tables_per_local if conn.key in (LOCAL, DOOR) else self.tables_per_peer
            if sum(1 for t in live if t.peer == conn.key) >= share:
                return P.refused(req.id, "too_many_tables", {"limit": share})
            table, code = self.create(req, conn.key, conn)
            if table is None:
                return _fair(P.refused(req.id, "save_failed"))
            return P.ok(req.id, table=table.id, code=code, waiting=table.waiting)
        table = self.tables.get(req.table)
        if table is None:
            return P.refused(req.id, "no_table")
        if isinstance(req, P.Join):
            return table.join(conn, req)
        if isinstance(req, P.Watch):
            return table.watch(conn, req)
        if isinstance(req, P.Submit):
            return table.submit(conn, req)
        if isinstance(req, P.Undo):
            return table.undo(conn, req)
        if isinstance(req, P.EndGame):
            return table.end_game(conn, req)
        if isinstance(req, P.Start):
            return table.start_by(conn, req)
        if isinstance(req, P.Setup):
            return table.setup(conn, req)
        if req.table not in conn.tables:
            return P.refused(req.id, "not_at_table")
        if isinstance(req, P.Chat):
            seat = conn.tables.get(req.table)
            if seat is None and not table.spectator_chat.has(1):
                # the table's spectators together: 50 watchers sent a player 33 lines a second
                return _fair(P.refused(req.id, "chat_busy",
                                       {"retry": math.ceil(table.spectator_chat.wait(1) * 10) / 10}))
            if conn.chats.strike():
                return P.refused(req.id, "chat_too_fast")
            if seat is None:
                table.spectator_chat.take(1)
            log.debug("table %s: chat from %r: %r", table.id, conn.name, req.text)
            # the seat (or null: a spectator) and the name, unique at the table, of the one
            # who wrote it: a spectator cannot pass for a seated player
            table.broadcast({"t": "chat", "table": table.id, "seat": seat,
                             "name": table.name_of(conn), "text": req.text})
            return P.ok(req.id)
        if isinstance(req, P.Leave):
            table.detach(conn, left=True)
            return P.ok(req.id)
        return P.refused(req.id, "bad_message", {"field": "t"})

    def cards_text(self) -> str:
        if self.cards_toml is not None:
            return self.cards_toml
        from rules.cards import DEFAULT_CARDS_PATH
        return DEFAULT_CARDS_PATH.read_text(encoding="utf-8")


def _one_line(exc: BaseException) -> str:
    """An exception as one line of the log, at most 300 characters (a damaged file's
    text, quoted in a message, is data: no newline or control character passes)."""
    text = " ".join(str(exc).split())
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return text[:300]


# ------------------------------------------------------------------ tactical host

def limits(args: Any) -> dict:
    """The Server fields `tactical host`'s options set (docs/PROTOCOL.md "Fair service")."""
    return dict(rate=args.rate, peer_rate=args.peer_rate, local_rate=args.local_rate,
                queued=args.queue_kib * 1024, queued_seated=args.seated_queue_kib * 1024,
                tables_per_peer=args.tables_per_peer, tables_per_local=args.tables_per_local,
                retire_after=args.retire_after * 60, finished_listed=args.finished_listed,
                waiting_max=getattr(args, "waiting_max", WAITING_MAX / 60) * 60,
                code_guesses=args.code_guesses, spectator_chat=args.spectator_chat,
                log_every=args.log_every)


NOFILE_MOST = 1 << 20        # a soft limit of open files above this is not asked for


def raise_nofile() -> tuple[int, int]:
    """Raise this process's soft limit of open files to its hard limit (as far as
    NOFILE_MOST), as servers do: the common soft limit of 1,024 was what a flood of
    connections exhausted. Returns (soft before, soft now)."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = NOFILE_MOST if hard == resource.RLIM_INFINITY else min(hard, NOFILE_MOST)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        except (ValueError, OSError) as exc:
            log.warning("cannot raise the limit of open files from %d to %d: %s", soft, want, exc)
            return soft, soft
        return soft, want
    return soft, soft


ACCEPT_LOG_EVERY = 60.0


def quiet_accept_errors(loop: asyncio.AbstractEventLoop, every: float = ACCEPT_LOG_EVERY) -> None:
    """asyncio logs a traceback for every accept() that fails for want of a resource
    (EMFILE, ENFILE, ENOBUFS, ENOMEM) — up to a hundred each time the socket is ready:
    27 MB of log in 10 s under a flood. Say it in one line instead, at most once per
    `every` seconds, with the count; every other error goes to the handler as before."""
    limiter = RateLimited(every)
    before = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict) -> None:
        if str(context.get("message", "")).startswith("socket.accept() out of system resource"):
            said = limiter.note()
            if said:
                exc = context.get("exception")
                why = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
                log.error("cannot accept connections: %s (%d times since the last line)",
                          why, said)
            return
        if before is not None:
            before(loop, context)
        else:
            loop.default_exception_handler(context)
    loop.set_exception_handler(handler)


def host_cli(args: Any, lang: str) -> int:
    """`tactical host`: serve until SIGINT / SIGTERM."""
    import signal
    import sys

    from tactical_tui.text.i18n import t
    from tactical_tui.text.safe import plain
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # asyncssh says ~260 bytes at INFO for every TCP connection (accepted, peer, lost,
    # auth): a flood of connections floods the log. The door's own lines about
    # connections are at DEBUG; its refusals are counted, a line a minute per peer.
    logging.getLogger("asyncssh").setLevel(logging.WARNING)
    before, now = raise_nofile()
    if now != before:
        log.info("open files: at most %d (was %d)", now, before)
    folder = Path(args.host_dir) if args.host_dir else host_dir() / "tables"
    cards_toml = None
    if args.cards:
        try:
            cards_toml = Path(args.cards).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            from tactical_tui.text.catalog import os_error_text, ui
            detail = os_error_text(exc, lang) if isinstance(exc, OSError) else str(exc)
            print(plain(f"{ui('err.cards', lang)}: {args.cards}: {detail}"), file=sys.stderr)
            return 2
        cards = parse_cards(cards_toml, str(args.cards))     # CardDataError: said by main
    else:
        cards = default_cards()

    async def main() -> int:
        quiet_accept_errors(asyncio.get_running_loop())
        server = Server(folder, cards, cards_toml, ai_delay=args.host_ai_delay,
                        max_tables=args.max_tables, **limits(args))
        try:
            server.lock_folder()
        except RuntimeError:
            print(t("net.host.locked", lang, folder=plain(str(folder))), file=sys.stderr)
            return 2
        except FolderProblem as exc:
            print(t(exc.key, lang, **{k: plain(str(v)) for k, v in exc.params.items()}),
                  file=sys.stderr)
            return 2
        server.pool_factory = lambda: make_executor(args.workers, cards_toml)
        server.executor = server.pool_factory()
        try:
            host, port = await server.start(args.bind, args.port)
        except OSError as exc:
            print(t("net.host.bind_failed", lang, address=plain(f"{args.bind}:{args.port}"),
                    detail=plain(exc.strerror or str(exc))), file=sys.stderr)
            return 2
        door = None
        if args.ssh_port is not None:
            door = await _ssh_door(args, port, lang, await server.listen_door())
            if door is None:
                await server.stop()
                return 2
            # every SSH session is a `tactical join` through the door's own socket
            server.max_per_door = getattr(door, "max_sessions", 0) + MAX_PER_PEER
        print(t("net.host.serving", lang, address=f"{host}:{port}", folder=plain(str(folder)),
                n=len(server.tables)), flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        if door is not None:
            door.close()
            await door.wait_closed()
        await server.stop()
        if server.executor is not None:
            server.executor.shutdown(wait=False, cancel_futures=True)
        return 0

    return asyncio.run(main())


async def _ssh_door(args: Any, table_port: int, lang: str, unix_path: Optional[str] = None):
    """The SSH front door beside the table server (tactical_tui/net/sshdoor.py, issue 17
    point 6): `ssh -p PORT NAME@host` runs `tactical join` to this server, through its
    Unix socket `unix_path` (Server.listen_door) when given."""
    import sys

    from tactical_tui.text.i18n import t
    try:
        from tactical_tui.net import sshdoor
    except ImportError as exc:
        print(t("net.host.no_ssh", lang, detail=str(exc)), file=sys.stderr)
        return None
    target = "127.0.0.1" if args.bind in ("0.0.0.0", "::", "") else args.bind
    try:
        door = await sshdoor.serve(
            args.bind, args.ssh_port,
            command_for=sshdoor.join_command(table_port, target, unix_path),
            authorized_keys=args.authorized_keys, open_door=args.ssh_open,
            idle=max(0.0, args.ssh_idle) * 60, max_sessions=args.ssh_max_sessions,
            login_timeout=args.ssh_login_timeout, max_startups=args.ssh_max_startups,
            startups_per_peer=args.ssh_startups_per_peer,
            sessions_per_connection=args.ssh_sessions_per_connection,
            sessions_per_key=args.ssh_sessions_per_key,
            max_size=(args.ssh_max_cols, args.ssh_max_rows), zygote=args.ssh_zygote)
    except Exception as exc:  # noqa: BLE001 - DoorError, OSError: said, the host stops
        from tactical_tui.text.safe import plain
        detail = exc.text(lang) if isinstance(exc, sshdoor.DoorError) else plain(str(exc))
        print(t("net.host.no_ssh", lang, detail=detail), file=sys.stderr)
        return None
    print(door.listening(lang), flush=True)       # how to ssh in, the host key's fingerprint
    return door
