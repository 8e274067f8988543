"""The client end of the table protocol (docs/PROTOCOL.md): one asyncio connection to a
`tactical host`, used by `tactical join` (tactical_tui.screens.online.lobby, tactical_tui.net.remote).

    client = Client("127.0.0.1", 7411, "alice", "en", on_message=fn, on_status=fn2)
    hello = await client.start()            # connect + hello; OSError if nothing listens
    ok = await client.request("list")       # the "ok" answer (a dict), or raises Refusal
    fut = client.send("submit", table=1, action={...})   # a future of the same, no await
    await client.close()

Every server message is checked (`protocol.check_server_message`: an `update`'s Update
decoded strictly, `seats` and `tables` as SeatInfo / TableInfo); one that fails is
dropped and counted (`bad_messages`) — and if it carries the id of a request waiting for
its answer, that request fails at once with `BadAnswer`; else `on_message` gets
`{"t": "unreadable", "table": …}`, so that the app can say a screen may be behind. A request that has no answer
within `request_timeout` seconds fails with `NoAnswer` (both are ConnectionLost, with a
`code` the app translates: join.refused.bad_answer, join.refused.no_answer). A client
that has sent nothing for `keepalive` seconds sends `ping`, so that a server does not
close it as idle while its player reads the lobby. Messages without an `id` (`update`, `seats`,
`chat`, `bye`) go to `on_message` in the order they came. When the connection drops, every request waiting for its answer fails
with `ConnectionLost`, and the client connects again after 1, 2, 4 … (at most 30)
seconds, says hello again and takes its seats back with their seat tokens (and watches
again what it watched); `on_status(status, retry_in)` is told each step ("connected",
"reconnecting" with the seconds before the next try, "closed"). Only a `bye` of
`server_stopping` (the host restarts) is followed by a reconnect; any other — `replaced`
(the seat token was used by another connection), `too_many_errors`, `idle`, a code this
version does not know — ends it: trying again would only repeat that. (A `bye` in answer
to the hello of a reconnect — the host is full — is tried again after the next delay.)

Nothing here draws anything (no Textual): the app turns statuses into its banner."""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Optional

from tactical_tui.net.protocol import (DEFAULT_PORT, MAX_CLIENT_FRAME, MAX_SERVER_FRAME, VERSION, BadFrame,
                                       check_server_message, read_frame, write_frame)

DEFAULT_HOST = "127.0.0.1"
BACKOFF_MAX = 30.0
RECONNECT_BYES = ("server_stopping",)   # the only `bye` after which we come back by ourselves
REQUEST_TIMEOUT = 20.0                  # seconds a request waits for its answer
KEEPALIVE = 60.0                        # seconds without sending anything before a `ping`


def backoff(first: float = 1.0, most: float = BACKOFF_MAX):
    """1, 2, 4, 8, 16, 30, 30, … seconds."""
    delay = first
    while True:
        yield min(delay, most)
        delay = min(delay * 2, most)


def parse_address(text: Optional[str]) -> tuple[str, int]:
    """`HOST`, `HOST:PORT`, `:PORT`, `[v6]:PORT` or nothing → (host, port); ValueError
    for a port that is not 1–65535."""
    if not text:
        return DEFAULT_HOST, DEFAULT_PORT
    host, port = text, None
    if text.startswith("["):                       # [::1]:7411
        end = text.find("]")
        if end < 0:
            raise ValueError(text)
        host, rest = text[1:end], text[end + 1:]
        if rest:
            if not rest.startswith(":"):
                raise ValueError(text)
            port = rest[1:]
    elif text.count(":") == 1:
        host, port = text.split(":")
    if port is not None:
        if not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(text)
        port = int(port)
    return host or DEFAULT_HOST, port or DEFAULT_PORT


class Refusal(Exception):
    """The server refused a request: `code` and `params` (translated by the client)."""

    def __init__(self, code: str, params: Optional[dict] = None) -> None:
        super().__init__(code)
        self.code = code
        self.params = dict(params or {})


class ConnectionLost(Exception):
    """The connection dropped before the request's answer came."""

    code = "connection_lost"


class NoAnswer(ConnectionLost):
    """No answer came within the client's request_timeout."""

    code = "no_answer"


class BadAnswer(ConnectionLost):
    """The answer came and failed this version's check (protocol.check_server_message)."""

    code = "bad_answer"


class Bye(ConnectionError):
    """The server said `bye` (`code`) before answering the hello: it turned us away."""

    def __init__(self, code: object) -> None:
        super().__init__(f"bye {code}")
        self.code = str(code)


class Client:
    """One connection to a table server, kept up by reconnecting (module docstring)."""

    def __init__(self, host: str, port: int, name: str, lang: str, *,
                 on_message: Optional[Callable[[dict], None]] = None,
                 on_status: Optional[Callable[[str, Optional[float]], None]] = None,
                 delays: Optional[Callable[[], Any]] = None, connect_timeout: float = 10.0,
                 request_timeout: Optional[float] = None, keepalive: Optional[float] = None,
                 unix_path: Optional[str] = None) -> None:
        self.host, self.port, self.name, self.lang = host, port, name, lang
        # the host's Unix socket (the SSH front door's sessions: `tactical join --socket`),
        # connected to instead of host:port, which still names the server (seat tokens)
        self.unix_path = unix_path
        self.on_message = on_message
        self.on_status = on_status
        self.delays = delays or backoff             # () -> the seconds before each try
        self.connect_timeout = connect_timeout
        self.request_timeout = REQUEST_TIMEOUT if request_timeout is None else request_timeout
        self.keepalive = KEEPALIVE if keepalive is None else keepalive
        self.status = "new"
        self.retry_in: Optional[float] = None
        self.hello: Optional[dict] = None          # the server's answer to hello
        self.bye: Optional[str] = None             # the code of the server's bye
        self.seats: dict = {}                      # table -> {"seat": n, "token": str}
        self.watching: dict = {}                   # table -> join code or None
        self.rejoin_problems: list = []            # (table, Refusal) of the last reconnect
        self.bad_messages = 0                      # server messages that failed the check
        self.handler_errors = 0                    # messages whose on_message raised
        self.last_handler_error: Optional[BaseException] = None
        self._next_id = 0
        self._pending: dict[int, asyncio.Future] = {}
        self._reader: Optional[asyncio.StreamReader] = None
        self._writer: Optional[asyncio.StreamWriter] = None
        self._task: Optional[asyncio.Task] = None
        self._closing = False
        self._lock: Optional[asyncio.Lock] = None
        self._rejoining: Optional[asyncio.Task] = None
        self._pinger: Optional[asyncio.Task] = None
        self._last_sent = 0.0                      # (the loop's clock) the last frame written

    # ------------------------------------------------------------------ life
    async def start(self) -> dict:
        """Connect and say hello (OSError: nothing listens there; Refusal: the server
        refused the hello). Then keep reading, and reconnecting, in a task."""
        self._set_status("connecting")
        await self._open()
        self.bye = None
        self._set_status("connected")
        loop = asyncio.get_running_loop()
        self._task = loop.create_task(self._run())
        if self._pinger is None:
            self._pinger = loop.create_task(self._keep_alive())
        return self.hello

    async def close(self) -> None:
        """Leave: no reconnecting, every waiting request fails, the socket is closed."""
        self._closing = True
        for task in (self._rejoining, self._pinger):
            if task is not None:
                task.cancel()
        self._pinger = None
        task, self._task = self._task, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            try:
                await task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001 - it is ending
                pass
        self._drop_connection()
        self._set_status("closed")

    def shutdown(self) -> None:
        """`close` without waiting (the app is ending): no reconnecting, socket closed."""
        self._closing = True
        for task in (self._rejoining, self._task, self._pinger):
            if task is not None:
                task.cancel()
        self._task = self._pinger = None
        self._drop_connection()
        self.status = "closed"

    @property
    def connected(self) -> bool:
        return self.status == "connected"

    def _set_status(self, status: str, retry_in: Optional[float] = None) -> None:
        self.status, self.retry_in = status, retry_in
        if self.on_status is not None:
            self.on_status(status, retry_in)

    async def _open(self) -> None:
        """A new connection and its hello (the old one, if any, is gone)."""
        self._lock = asyncio.Lock()
        opening = (asyncio.open_unix_connection(self.unix_path) if self.unix_path
                   else asyncio.open_connection(self.host, self.port))
        reader, writer = await asyncio.wait_for(opening, self.connect_timeout)
        self._reader, self._writer = reader, writer
        try:
            hello_id = self._take_id()
            await self._write({"t": "hello", "id": hello_id, "v": VERSION,
                               "name": self.name, "lang": self.lang})
            # one deadline for the whole hello: a server that sent other frames every few
            # seconds and never answered kept the lobby on "Connecting…" for ever
            async with asyncio.timeout(self.connect_timeout):
                while True:                                # the answer to hello comes first
                    msg = await read_frame(reader, MAX_SERVER_FRAME)
                    if msg is None:
                        raise ConnectionError("closed during hello")
                    if msg.get("id") == hello_id:
                        break
                    if msg.get("t") == "bye":
                        raise Bye(msg.get("code"))
            if msg.get("t") == "refused":
                raise Refusal(str(msg.get("code")), msg.get("params") or {})
            self.hello = msg
        except BaseException:
            self._drop_connection()
            raise

    def _drop_connection(self) -> None:
        writer, self._writer, self._reader = self._writer, None, None
        if writer is not None:
            try:
                writer.close()
            except Exception:  # noqa: BLE001 - already gone
                pass
        pending, self._pending = self._pending, {}
        for fut in pending.values():
            if not fut.done():
                fut.set_exception(ConnectionLost())
                fut.exception()                           # retrieved: no "never retrieved"

    async def _run(self) -> None:
        """Read messages until the connection drops; then reconnect (with back-off) and
        take the seats back, until closed or a final `bye`."""
        try:
            while not self._closing:
                await self._read_loop()
                self._drop_connection()
                if self._closing or (self.bye is not None and self.bye not in RECONNECT_BYES):
                    break
                if not await self._reconnect():
                    break
        except asyncio.CancelledError:
            return
        self._drop_connection()
        if not self._closing:
            self._set_status("closed")

    async def _read_loop(self) -> None:
        reader = self._reader
        while reader is not None:
            try:
                msg = await read_frame(reader, MAX_SERVER_FRAME)
            except asyncio.CancelledError:
                raise
            except BadFrame:
                # a whole frame, read, that is not a JSON object (not JSON, too deep, a
                # huge number): dropped and said like any unreadable message — taken for
                # a broken socket, it reconnected about once a second for ever
                self._dispatch({"t": None})
                continue
            except Exception:  # noqa: BLE001 - a broken frame or socket: reconnect
                return
            if msg is None:                               # the server closed it
                return
            self._dispatch(msg)

    def _dispatch(self, msg: dict) -> None:
        try:
            msg = check_server_message(msg)
        except ValueError:                          # (WireError is one too)
            self.bad_messages += 1
            rid = msg.get("id")
            fut = self._pending.pop(rid, None) if type(rid) is int else None
            if fut is not None and not fut.done():  # its answer, unreadable: it fails now
                fut.set_exception(BadAnswer())
            elif self.on_message is not None:      # an update or notice lost: said, so
                table = msg.get("table")            # that a stale screen does not mislead
                self.on_message({"t": "unreadable",
                                 "table": table if type(table) is str else None})
            return
        kind = msg.get("t")
        if kind in ("ok", "refused") and "id" in msg:
            fut = self._pending.pop(msg["id"], None)
            if fut is not None and not fut.done():
                if kind == "ok":
                    fut.set_result(msg)
                else:
                    fut.set_exception(Refusal(str(msg.get("code")), msg.get("params") or {}))
            return
        if kind == "bye":
            self.bye = msg.get("code")
        if self.on_message is not None:
            try:
                self.on_message(msg)
            except Exception as exc:  # noqa: BLE001 - a view's bug: the connection goes on
                # (raised here it ended the read loop, silently: the client heard nothing
                # more from the server — a table started and its owner's screen stayed in
                # the waiting room; kept for a test or a debugger, not printed over the game)
                self.handler_errors += 1
                self.last_handler_error = exc

    async def _reconnect(self) -> bool:
        """Try again after each back-off delay; True once connected and re-seated."""
        for delay in self.delays():
            if self._closing:
                return False
            self._set_status("reconnecting", delay)
            await asyncio.sleep(delay)
            if self._closing:
                return False
            try:
                await self._open()
            except (OSError, ConnectionError, asyncio.TimeoutError, Refusal):
                continue
            self.bye = None
            self._set_status("connected")
            # the seats are taken back while this task reads their answers
            self._rejoining = asyncio.get_running_loop().create_task(self._rejoin())
            return True
        return False

    async def _rejoin(self) -> None:
        """Take every seat back with its token, watch again what was watched."""
        self.rejoin_problems = []
        try:
            for table, seat in list(self.seats.items()):
                try:
                    await self.request("join", table=table, seat=seat["seat"], code=seat.get("code"),
                                       token=seat["token"])
                except Refusal as exc:
                    self.seats.pop(table, None)
                    self.rejoin_problems.append((table, exc))
            for table, code in list(self.watching.items()):
                try:
                    await self.request("watch", table=table, code=code)
                except Refusal as exc:
                    self.watching.pop(table, None)
                    self.rejoin_problems.append((table, exc))
        except ConnectionLost:
            pass
        if self.rejoin_problems and self.on_message is not None:
            for table, exc in self.rejoin_problems:
                self.on_message({"t": "rejoin_refused", "table": table, "code": exc.code,
                                 "params": exc.params})

    # ------------------------------------------------------------------ requests
    def send_last(self, kind: str, **fields) -> bool:
        """Write a request at once, in this turn of the event loop, and expect no answer:
        the last words of a client that is ending (`leave` when the player quits on
        purpose — `send` writes in a task that a shutdown right after would cancel, and
        the host took the quit for a lost connection). False if not connected."""
        from tactical_tui.net.protocol import encode_frame
        writer = self._writer
        if writer is None or writer.transport.is_closing():
            return False
        try:
            writer.write(encode_frame({"t": kind, "id": self._take_id(), **fields}, MAX_CLIENT_FRAME))
        except (ConnectionError, OSError, RuntimeError):
            return False
        return True

    def _take_id(self) -> int:
        self._next_id += 1
        return self._next_id

    async def _write(self, obj: dict) -> None:
        writer = self._writer
        if writer is None:
            raise ConnectionLost()
        self._last_sent = asyncio.get_running_loop().time()
        async with self._lock:
            await write_frame(writer, obj, MAX_CLIENT_FRAME)

    async def _keep_alive(self) -> None:
        """`ping` when nothing was sent for `keepalive` seconds (while connected): a
        server closes a connection at no table that sends nothing for a while (server
        IDLE_TIMEOUT, three times KEEPALIVE). Its answer (or refusal, or none) is not
        looked at: it is only a sign of life."""
        loop = asyncio.get_running_loop()
        try:
            while not self._closing:
                wait = self._last_sent + self.keepalive - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                    continue
                if self.connected and self._writer is not None:
                    fut = self.send("ping")
                    fut.add_done_callback(lambda f: f.cancelled() or f.exception())
                else:
                    self._last_sent = loop.time()     # (down: look again later)
        except asyncio.CancelledError:
            pass

    def send(self, kind: str, **fields) -> "asyncio.Future":
        """Send a request now; a future of its `ok` answer (a dict), or of Refusal /
        ConnectionLost. Not a coroutine: a key handler sends without waiting."""
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        if self._writer is None:
            fut.set_exception(ConnectionLost())
            return fut
        rid = self._take_id()
        self._pending[rid] = fut
        msg = {"t": kind, "id": rid, **fields}
        self._last_sent = loop.time()

        def expire() -> None:
            if self._pending.get(rid) is fut:
                del self._pending[rid]
            if not fut.done():
                fut.set_exception(NoAnswer())
        timer = loop.call_later(self.request_timeout, expire)
        fut.add_done_callback(lambda f: timer.cancel())

        def lost() -> None:
            self._pending.pop(rid, None)
            if not fut.done():
                fut.set_exception(ConnectionLost())
        # written now, in the order the ids are taken (a `send_last` right after — Esc in
        # the waiting room — wrote its later id before this one's queued write, and the
        # host refused it `bad_id`); only the wait for the socket's buffer is a task
        from tactical_tui.net.protocol import encode_frame
        writer = self._writer
        try:
            writer.write(encode_frame(msg, MAX_CLIENT_FRAME))
        except Exception:  # noqa: BLE001 - the socket broke (or the frame is too big): lost
            lost()
            return fut

        async def drain() -> None:
            try:
                async with self._lock:
                    await writer.drain()
            except Exception:  # noqa: BLE001 - the socket broke: the request is lost
                lost()
        loop.create_task(drain())
        fut.add_done_callback(lambda f: self._remember(kind, fields, f))
        return fut

    async def request(self, kind: str, **fields) -> dict:
        return await self.send(kind, **fields)

    def _remember(self, kind: str, fields: dict, fut: "asyncio.Future") -> None:
        """A seat joined (its token) or a table watched: taken back after a reconnect."""
        if fut.cancelled() or fut.exception() is not None:
            return
        answer = fut.result()
        if kind == "join":
            table = answer.get("table", fields.get("table"))
            self.seats[table] = {"seat": answer.get("seat"), "token": answer.get("token"),
                                 "code": fields.get("code")}
            self.watching.pop(table, None)
        elif kind == "watch":
            self.watching[answer.get("table", fields.get("table"))] = fields.get("code")
        elif kind == "leave":
            self.seats.pop(fields.get("table"), None)
            self.watching.pop(fields.get("table"), None)
