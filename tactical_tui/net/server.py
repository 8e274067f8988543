"""`tactical host`: the table server (issue 17, docs/PROTOCOL.md) — the `Server`.

One asyncio process holds any number of tables; each is a `GameTable` run by a
`LiveTable` (tactical_tui/table/live.py), exactly as in a local game. The server is
authoritative: it alone holds the state, runs the rules and the AI seats, and autosaves.
Every connection is subscribed to exactly its seat (`LiveTable.subscribe(seat)`) or, a
watcher, to a spectator's view (`subscribe(None)`), and the server sends nothing but
those Updates encoded by `wire.py`, `seats` (who sits where, and how they are), `chat`,
the answers `ok` / `refused`, and `bye`. The state, the RNG, the seed and other seats'
observations never leave this process.

This module holds the Server: listening (TCP, and the SSH door's Unix socket),
accepting a connection within its bounds (in all, per peer, per this machine, the
door's), the dispatch of its requests by type (the server's own: list, cards, ping,
create; chat and leave at a table; the rest to the table: tables.REQUESTS), the AI's
turns in the pool (`think`), and the tables' life: made, resumed from the folder,
finished, archived, retired, their saves synced. The rest of the server is in:

- connection.py: one connection (its frames, its bounds, the hello);
- tables.py: a table as the host runs it (HostedTable, NetLive), seats.py its seats;
- persist.py: the host's folder and a table's files (Saver, NetGame, the sidecar);
- limits.py: token buckets, peers, fair refusals, the log a flood cannot flood;
- aipool.py: the AI's process pool (pack, decide, AIQueue);
- host.py: the `tactical host` command (host_cli), the SSH door beside the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import secrets
import time
from pathlib import Path
from typing import Any, Optional

from attrs import define, field

from rules import Config
from rules.cards import CardSet, default_cards

from tactical_tui.table.saves import SaveError, read as read_save
from tactical_tui.table.seeds import SEED_LIMIT
from tactical_tui.table.live import SeatSetup, in_thread
from tactical_tui.net import protocol as P
from tactical_tui.net.aipool import AIQueue, choose, decide, pack, register_cards, unpack
from tactical_tui.net.connection import Connection, turn_away
from tactical_tui.net.limits import (LOCAL, PEER_LOG_EVERY, PeerLog, RateLimited, TokenBucket,
                                     bucket, fair, peer_key)
from tactical_tui.net.persist import (META_FORMAT, SYNC_EVERY, FolderProblem, NetGame,
                                      fsync_all, lock_folder, move_table_files, new_table_id)
# (FolderProblem: what lock_folder raises — for the callers of Server.lock_folder)
from tactical_tui.net.seats import Slot, hash_secret, new_code, secret_matches
from tactical_tui.net.tables import REQUESTS as TABLE_REQUESTS, HostedTable

log = logging.getLogger("tactical.host")

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
# Requests a second (token buckets, a burst of two seconds' worth): per connection, per
# peer (all its connections), and this machine's share (every SSH door session's client).
# A request costs its weight (limits.REQUEST_COST) in tokens.
RATE = 20.0
PEER_RATE = 50.0
LOCAL_RATE = 400.0
TABLES_PER_PEER = 5           # unfinished tables one peer (address, IPv6 /64) created
TABLES_PER_LOCAL = 50         # ... this machine (the SSH door's players create theirs here)
RETIRE_AFTER = 3600.0         # seconds an unfinished table may have no human seated
WAITING_MAX = 1800.0          # seconds a table may wait for its players (not started) before it is retired
FINISHED_LISTED = 20          # finished tables listed ("over") at most; the oldest leave first
CODE_GUESSES = 10             # wrong join codes a minute from one peer (private tables)
SPECTATOR_CHAT = 6            # chat lines in 10 seconds from all of a table's spectators
FINISHED_KEEP = 600.0         # seconds a finished table stays listed ("over") before it is archived


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
    unsynced: set = field(factory=set)        # saves written since the last fsync
    _sync_task: Any = None

    # ------------------------------------------------------------ start, stop
    def __attrs_post_init__(self) -> None:
        if self.peer_log is None:
            self.peer_log = PeerLog(self.log_every, self.clock)

    def lock_folder(self) -> None:
        """The folder of tables is this host's (persist.lock_folder: RuntimeError when
        another host serves it, FolderProblem when it cannot be the host's)."""
        self._lock = lock_folder(self.folder)

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
        paths = list(self.unsynced)
        self.unsynced.clear()
        if not paths:
            return
        failed = await asyncio.to_thread(fsync_all, paths, self.folder)
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
            await turn_away(reader, writer, code)
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
            action, reason = await in_thread(choose, player, obs)
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
    def create(self, req: P.Create, peer: Optional[str] = None, creator: Optional[Connection] = None
               ) -> tuple[Optional[HostedTable], Optional[str]]:
        """A new table of `peer`, started — (None, None) if its save or sidecar cannot be
        written (nothing of it is kept: a table exists only once it is on disk)."""
        tid = new_table_id(self.folder, self.tables)
        seats = tuple(SeatSetup(s.kind == "open", s.level or "normal") for s in req.seats)
        game = NetGame(Config(players=len(seats), first_game=req.first_game), seats,
                       secrets.randbelow(SEED_LIMIT), self.cards,
                       save_path=self.folder / f"{tid}.json")
        code = new_code() if req.private else None
        slots = [Slot("open") if s.kind == "open" else Slot("ai", s.level) for s in req.seats]
        game.autosave()                   # at once (no Saver yet): the save, then its sidecar
        # a table with a seat open waits for its players (issue 31): no game action until
        # its creator starts it or every seat is taken
        table = HostedTable(self, tid, game, slots, req.private, hash_secret(code) if code else None,
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
            await asyncio.to_thread(move_table_files, self.folder, tid, into)
        except OSError as exc:
            log.error("table %s: cannot move it to %s: %s", tid, into, exc)
        else:
            log.info("table %s moved to %s", tid, self.folder / into)

    def _load(self, tid: str, meta_path: Path) -> Optional[HostedTable]:
        from rules.files import read_bounded
        meta = json.loads(read_bounded(meta_path, 1024 * 1024).decode("utf-8"))
        if type(meta) is not dict or meta.get("format") != META_FORMAT or meta.get("table") != tid:
            raise ValueError(f"{meta_path}: not a table file of this host")
        save_path = self.folder / f"{tid}.json"
        data = read_save(save_path)
        if data.finished:                 # (over before the host stopped): archived now
            try:
                move_table_files(self.folder, tid)
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
        if not (type(code) is str and secret_matches(code, meta["code_hash"])):
            code = None
        # a grace from before the protocol's cap (a day, through the raw protocol) is cut
        return HostedTable(self, tid, game, slots, bool(meta["private"]), meta["code_hash"],
                           min(float(meta["grace"]), P.GRACE_MAX), str(meta["takeover"]),
                           None if clock is None else float(clock), float(meta.get("created", 0)),
                           peer=peer if type(peer) is str else None, waiting=waiting,
                           owner=owner, code=code)

    # ------------------------------------------------------------ requests
    def dispatch(self, conn: Connection, req: P.Request) -> dict:
        """The answer to `req` from `conn` (said hello): by the request's type, the
        server's own (HOST_REQUESTS), else the table it names — a table's (tables.
        REQUESTS), then one for a table `conn` is at (AT_TABLE_REQUESTS). An empty dict:
        the handler has answered itself."""
        handler = HOST_REQUESTS.get(type(req))
        if handler is not None:
            return handler(self, conn, req)
        table = self.tables.get(req.table)
        if table is None:
            return P.refused(req.id, "no_table")
        handler = TABLE_REQUESTS.get(type(req))
        if handler is not None:
            return handler(table, conn, req)
        if req.table not in conn.tables:
            return P.refused(req.id, "not_at_table")
        handler = AT_TABLE_REQUESTS.get(type(req))
        if handler is not None:
            return handler(self, conn, req, table)
        return P.refused(req.id, "bad_message", {"field": "t"})

    def list_tables(self, conn: Connection, req: P.ListTables) -> dict:
        # the tables waiting for players first (issue 31), then by age
        tables = sorted(self.tables.values(), key=lambda t: (not t.waiting, t.created))
        return P.ok(req.id, tables=[t.info(conn).to_wire() for t in tables])

    def send_cards(self, conn: Connection, req: P.Cards) -> dict:
        return P.ok(req.id, toml=self.cards_text())

    def ping(self, conn: Connection, req: P.Ping) -> dict:
        return P.ok(req.id)

    def create_table(self, conn: Connection, req: P.Create) -> dict:
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
            return fair(P.refused(req.id, "save_failed"))
        return P.ok(req.id, table=table.id, code=code, waiting=table.waiting)

    def chat(self, conn: Connection, req: P.Chat, table: HostedTable) -> dict:
        seat = conn.tables.get(req.table)
        if seat is None and not table.spectator_chat.has(1):
            # the table's spectators together: 50 watchers sent a player 33 lines a second
            return fair(P.refused(req.id, "chat_busy",
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

    def leave(self, conn: Connection, req: P.Leave, table: HostedTable) -> dict:
        table.detach(conn, left=True)
        return P.ok(req.id)

    def cards_text(self) -> str:
        if self.cards_toml is not None:
            return self.cards_toml
        from rules.cards import DEFAULT_CARDS_PATH
        return DEFAULT_CARDS_PATH.read_text(encoding="utf-8")


# The requests the server answers itself, and those for a table the connection is at
# (Server.dispatch; the other requests naming a table: tables.REQUESTS).
HOST_REQUESTS = {P.ListTables: Server.list_tables, P.Cards: Server.send_cards,
                 P.Ping: Server.ping, P.Create: Server.create_table}
AT_TABLE_REQUESTS = {P.Chat: Server.chat, P.Leave: Server.leave}


def _one_line(exc: BaseException) -> str:
    """An exception as one line of the log, at most 300 characters (a damaged file's
    text, quoted in a message, is data: no newline or control character passes)."""
    text = " ".join(str(exc).split())
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return text[:300]

