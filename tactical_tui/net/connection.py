"""One connection to the table server (docs/PROTOCOL.md): its frames read one at a
time and bounded before anything else (a frame's size, requests a second — its own
bucket and its peer's: `admit` —, refusals within a minute: its error budget, chat
lines, the idle watchdog: `_watch`), the hello, and every other request handed to the
server (`Server.dispatch`); its answers and its tables' updates written without
waiting for it (`send_frame`: a client that reads too slowly is dropped, never waited
for). `turn_away`: the bye of a connection refused before it is one (the server full,
too many from its peer).

A Connection holds its server (server.Server, passed in) and reaches it for its
limits, its peer log, its tables and `dispatch`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from typing import Optional

from rules.cards import fingerprint

from tactical_tui.net import protocol as P
from tactical_tui.net.limits import FAIR_REFUSALS, REQUEST_COST, TokenBucket, bucket
from tactical_tui.net.wire import update_to_wire

log = logging.getLogger("tactical.host")

CHAT_BURST = (8, 10.0)        # at most 8 chat lines in 10 seconds per connection


class Connection:
    """A client of the server, from its hello to its end (module docstring): its name
    and language, its tables (seat or watching), its bounds."""

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
        self.key: Optional[str] = None                  # its peer (limits.peer_key)
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



TURN_AWAY_WAIT = 1.0        # seconds a refused connection has to read its bye
_turning_away = 0           # refused connections waiting for their client to read the bye
TURN_AWAY_MAX = 64


async def turn_away(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, code: str) -> None:
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

