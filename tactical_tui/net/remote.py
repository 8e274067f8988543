"""A table on a server, as the app sees it (`tactical join`): the "table source" of a
remote seat.

`RemoteTable` has the view-facing interface of `tactical_tui.table.live.LiveTable` —
`subscribe(seat, callback)`, `submit(seat, action)`, `undo(seat)`, `hint(seat)`,
`start()`, `close()`, `thinking` — so the app's seat views and the phase screens work on
it unchanged. The differences: its updates come from the connection (the wire form
decoded strictly into `table.Update` by the client: protocol.check_server_message), and `submit` / `undo` cannot
wait for the server's answer inside a key handler: they return an `asyncio.Future` of
`Applied` / `Refused` at once (the app shows a refusal when it comes; table.Applied is
built from the `ok` answer's `version`).

`Session` is one client connection and what arrives on it: the lobby's table list and
seat changes, the chat lines, and each table's updates routed to its RemoteTable
(held until the view subscribes: the first update may come before the join's answer).

Hints (`h`, shift+H) for a remote seat are computed here, by the normal AI from that
seat's own latest observation only — nothing else is on this side of the wire.
No Textual here."""

from __future__ import annotations

import asyncio
from typing import Callable, Optional

from tactical_tui.table.live import Applied, Refused
from tactical_tui.net.client import Client, ConnectionLost, Refusal


def _wire():
    from tactical_tui.net import wire
    return wire


def _info(info) -> dict:
    """A TableInfo / SeatInfo (protocol.py) as the plain dict the lobby reads."""
    return info.to_wire() if hasattr(info, "to_wire") else dict(info)


class RemoteTable:
    """One table of a server, for one seat's view (or a spectator's: `seat` None)."""

    game = None                  # no game record on this side: the server holds it
    ai_delay = 0.0               # the server's AI pause; `commands.set_delay` may set this

    def __init__(self, session: "Session", table, seat: Optional[int], cards) -> None:
        self.session = session
        self.table = table
        self.seat = seat
        self.cards = cards
        self.callback: Optional[Callable] = None
        self.latest = None                     # the last table.Update
        self.seat_infos: list = []             # the server's SeatInfo dicts (status)
        self.closed = False
        self.received = 0                      # the server's log entries this view holds
        self.notes: list = []                  # (entries received before it, ChatEntry)
        self._raw = None                       # the last update as the server sent it
        self.paused = session.paused.get(table)   # why the host takes no action now, or None

    # ------------------------------------------------------------------ the view
    @property
    def version(self) -> Optional[int]:
        return self.latest.version if self.latest is not None else None

    @property
    def thinking(self) -> Optional[int]:
        return self.latest.turn.thinking if self.latest is not None else None

    @property
    def has_humans(self) -> bool:
        return True                            # this view is a person's

    @property
    def player_names(self) -> dict:
        """seat -> the name of the person who holds it (the server's SeatInfo), for the
        phase screens: "Seat 3 carol"."""
        return {s["seat"]: s["name"] for s in self.seat_infos
                if s.get("kind") == "human" and isinstance(s.get("seat"), int)
                and isinstance(s.get("name"), str) and s["name"]}

    def subscribe(self, seat: Optional[int], callback: Callable) -> "RemoteTable":
        if seat != self.seat:
            raise ValueError(f"this connection holds seat {self.seat}, not {seat}")
        self.callback = callback
        for update in self.session.held.pop(self.table, []):
            self.take(update)
        return self

    def take(self, update) -> None:
        """An `update` message's table.Update for this table. A human seat the takeover
        AI plays now (SeatInfo status `ai_takeover`) is labelled as an AI seat: every
        phase screen then marks it so (`Seat 3·AI`), and this seat's view, while the AI
        plays it, waits instead of asking."""
        if self.closed:
            return
        self._raw = update
        update = self._labelled(update)
        if update.reset:
            self.received = len(update.entries)
            if self.notes:
                update = _with_notes(update, self.notes)
        else:
            self.received += len(update.entries)
        self.latest = update
        if self.callback is not None:
            self.callback(update)

    def note(self, entry) -> None:
        """A line of this client's own in the seat's log (a chat line, a seat that
        dropped or came back: `ChatEntry`), after the entries received so far. It is
        kept: when the whole log comes again (a reconnect, an undo) it is put back at its
        place."""
        self.notes.append((self.received, entry))
        del self.notes[:-self.NOTES_KEEP]

    NOTES_KEEP = 500

    def _labelled(self, update):
        """`update` with the seats the takeover AI plays labelled `ai_takeover` and
        counted as AI seats in its Turn (the status line then says "Waiting for Seat 2
        · AI", as for an AI seat)."""
        taken = {s.get("seat") for s in self.seat_infos if s.get("status") == "ai_takeover"}
        labels = tuple("ai_takeover" if i in taken and label == "human" else label
                       for i, label in enumerate(update.seats))
        turn = update.turn
        deciding = tuple(s for s in turn.seats if s in taken and s not in turn.ai)
        if labels == update.seats and not deciding:
            return update
        import attrs
        if deciding:
            turn = attrs.evolve(turn, ai=tuple(turn.ai) + deciding,
                                thinking=turn.thinking if turn.thinking is not None else deciding[0])
        return attrs.evolve(update, seats=labels, turn=turn)

    def seats_changed(self, seats: list) -> None:
        """The server's SeatInfo list changed: the latest update is shown again with the
        seats labelled anew (a takeover begun or ended, a player's name)."""
        def marks(infos) -> list:
            return [(s.get("seat"), s.get("status"), s.get("name")) for s in infos]
        changed = marks(seats) != marks(self.seat_infos)
        self.seat_infos = seats
        if changed and self._raw is not None:
            import attrs
            self.take(attrs.evolve(self._raw, entries=(), reset=False))

    def start(self) -> None:
        """(The AI seats run on the server.)"""

    def close(self) -> None:
        """Leave the table (the seat stays ours on the server until it is given up)."""
        if self.closed:
            return
        self.closed = True
        self.session.forget(self)

    # ------------------------------------------------------------------ acting
    def submit(self, seat: Optional[int], action) -> "asyncio.Future":
        """Send this seat's action; a future of Applied / Refused (the table's codes as
        LiveTable's; `table_closed` when the connection is down)."""
        if seat != self.seat or seat is None:
            return _done(Refused("wrong_seat", {"seat": getattr(action, "seat", None), "yours": self.seat}))
        return self._ask("submit", table=self.table, action=_wire().action_to_wire(action))

    def undo(self, seat: Optional[int]) -> "asyncio.Future":
        if seat != self.seat or seat is None:
            return _done(Refused("undo_not_human"))
        return self._ask("undo", table=self.table)

    def agree_end(self, seats, agree: bool = True) -> "asyncio.Future":
        """This seat agrees (or no longer agrees) to end the game by agreement (RULINGS
        R19): a future of Applied / Refused, as `submit`."""
        seats = (seats,) if isinstance(seats, int) else tuple(seats)
        if self.seat is None or seats != (self.seat,):
            return _done(Refused("wrong_seat", {"seat": seats[0] if seats else None,
                                                "yours": self.seat}))
        return self._ask("end", table=self.table, agree=agree)

    def _ask(self, kind: str, **fields) -> "asyncio.Future":
        out = asyncio.get_running_loop().create_future()
        sent = self.session.client.send(kind, **fields)

        def answered(f: "asyncio.Future") -> None:
            if out.done():
                return
            if f.cancelled():
                out.set_result(Refused("table_closed"))
                return
            exc = f.exception()
            if isinstance(exc, Refusal):
                out.set_result(Refused(exc.code, exc.params))
            elif exc is not None:             # ConnectionLost: nothing was applied (or we
                # cannot know: the update says); NoAnswer, BadAnswer: their own code
                out.set_result(Refused(getattr(exc, "code", "connection_lost")))
            else:
                version = f.result().get("version")
                out.set_result(Applied(version if isinstance(version, int) else -1))
        sent.add_done_callback(answered)
        return out

    def hint(self, seat: int):
        """What the normal AI would do for this seat now, and why — from this seat's own
        latest observation only."""
        from ai.normal import NormalPlayer
        obs = self.latest.observation
        return NormalPlayer(self.cards, 0).choose_explained(obs, obs.legal)


class ChatEntry:
    """A line of the client's own in a seat's log — a chat line, a seat's change (the
    app's log_line shows `chat`); no event, no reason."""

    event = None
    seat = None
    reason = None

    def __init__(self, chat: str) -> None:
        self.chat = chat


def _with_notes(update, notes: list):
    """A whole log (`update.reset`) with the client's own lines put back where they
    came (after the same number of the server's entries; at the end if the log is
    shorter now: an undo)."""
    import attrs
    entries, out, i = update.entries, [], 0
    for at, entry in notes:
        at = min(at, len(entries))
        out.extend(entries[i:at])
        i = max(i, at)
        out.append(entry)
    out.extend(entries[i:])
    return attrs.evolve(update, entries=tuple(out))


class SeatTokens:
    """The seat tokens of `tactical join`, kept in the user data folder (`seats.json`,
    readable by its owner only) so that a player whose terminal went away — an SSH
    client killed, a closed window — takes the seat back by joining again: per server
    address and player name, table -> {"seat", "token"}. A token is forgotten when the
    server no longer takes it or its game is over. (Through the SSH front door every
    session runs as the host's user: a name is then all that tells two players apart.)
    A damaged file is read as empty (and replaced at the next seat)."""

    CAP = 256 * 1024

    def __init__(self, path=None) -> None:
        if path is None:
            from tactical_tui.table.savefiles import save_dir
            path = save_dir() / "seats.json"
        self.path = path

    def _load(self) -> dict:
        import json
        from rules.files import FileProblem, read_bounded
        try:
            data = json.loads(read_bounded(self.path, self.CAP).decode("utf-8"))
        except (FileProblem, OSError, ValueError, UnicodeDecodeError):
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, address: str, name: str) -> dict:
        seats = self._load().get(address, {}).get(name, {})
        return {table: v for table, v in seats.items() if isinstance(table, str) and isinstance(v, dict)
                and type(v.get("seat")) is int and isinstance(v.get("token"), str)} \
            if isinstance(seats, dict) else {}

    def _write(self, data: dict) -> None:
        import json
        from tactical_tui.table.savefiles import write_atomic
        try:
            write_atomic(self.path, json.dumps(data, ensure_ascii=False, indent=1))
        except OSError:
            pass                              # the seat is ours for this session only

    def put(self, address: str, name: str, table: str, seat: int, token: str) -> None:
        data = self._load()
        servers = data.get(address)
        if not isinstance(servers, dict):
            servers = data[address] = {}
        mine = servers.get(name)
        if not isinstance(mine, dict):
            mine = servers[name] = {}
        mine[table] = {"seat": seat, "token": token}
        self._write(data)

    def drop(self, address: str, name: str, table: str) -> None:
        data = self._load()
        servers = data.get(address)
        mine = servers.get(name) if isinstance(servers, dict) else None
        if isinstance(mine, dict) and table in mine:
            del mine[table]
            self._write(data)


def _done(result) -> "asyncio.Future":
    fut = asyncio.get_running_loop().create_future()
    fut.set_result(result)
    return fut


class Session:
    """One connection to a server and what comes on it (module docstring). Listeners are
    plain callables, called on the event loop: `on_tables()` (the lobby list changed),
    `on_chat(msg)`, `on_status(status, retry_in)`, `on_bye(code)`, `on_problem(msg)`,
    `on_seats(remote, before, after)` (a seat's player or status changed at a table we
    are at), `on_paused(table, before, now)` (a table we are at stopped taking actions —
    `now` is why, e.g. `save_failed` — or goes on again: `now` None), `on_unreadable(table)` (a message that failed the check and answered no
    request was dropped — an update of that table, perhaps: the screen may be behind)."""

    def __init__(self, host: str, port: int, name: str, lang: str, cards=None,
                 delays=None, tokens: Optional[SeatTokens] = None,
                 unix_path: Optional[str] = None) -> None:
        kw = {"delays": delays} if delays is not None else {}
        self.client = Client(host, port, name, lang, on_message=self._message,
                             on_status=self._status, unix_path=unix_path, **kw)
        self.cards = cards
        self.tables: dict = {}                 # table id -> TableInfo dict (the lobby's)
        self.remotes: dict = {}                # table id -> RemoteTable
        self.held: dict = {}                   # table id -> [table.Update] not yet taken
        self.seat_lists: dict = {}             # table id -> its last `seats` message's SeatInfo dicts
        self.paused: dict = {}                 # table id -> why it is paused (absent: it is not)
        self.chat: list = []                   # chat messages (dicts), oldest first
        self.codes: dict = {}                  # table id -> join code we know (private)
        self.tokens = tokens                   # SeatTokens, or None: kept for this session only
        self.refreshing = False                # a table list is on its way (the lobby's)
        self.on_tables: Optional[Callable[[], None]] = None
        self.on_chat: Optional[Callable[[dict], None]] = None
        self.on_status: Optional[Callable[[str, Optional[float]], None]] = None
        self.on_bye: Optional[Callable[[str], None]] = None
        self.on_problem: Optional[Callable[[dict], None]] = None
        self.on_seats: Optional[Callable[[RemoteTable, list, list], None]] = None
        self.on_paused: Optional[Callable[[str, Optional[str], Optional[str]], None]] = None
        self.on_unreadable: Optional[Callable[[Optional[str]], None]] = None
        self.on_held: Optional[Callable[[str], None]] = None   # a table's first update, no view on it
        self.hung_up: Callable[[], bool] = lambda: False       # the app ends on a signal (a drop)
        self.facts: dict = {}                  # table id -> its setup (protocol.FACT_KEYS) from `seats`

    CHAT_KEEP = 200

    @property
    def address(self) -> str:
        host = self.client.host
        return f"[{host}]:{self.client.port}" if ":" in host else f"{host}:{self.client.port}"

    async def start(self) -> dict:
        """Connect, say hello, and make sure the card data is the server's: if ours
        differs (sha256), the server's is fetched and used for this session."""
        hello = await self.client.start()
        from rules.cards import fingerprint, parse_cards
        if self.cards is None:
            from tactical_tui.table.cardcache import default_cards
            self.cards = default_cards()
        if hello.get("cards") and hello.get("cards") != fingerprint(self.cards):
            answer = await self.client.request("cards")
            self.cards = parse_cards(answer["toml"], source=f"{self.address} cards")
        return hello

    async def close(self) -> None:
        await self.client.close()

    def saved_seats(self) -> dict:
        """table -> {"seat", "token"}: the seats this player holds at this server (kept
        from an earlier session, or taken in this one)."""
        saved = self.tokens.get(self.address, self.client.name) if self.tokens is not None else {}
        return {**saved, **{k: v for k, v in self.client.seats.items() if v.get("token")}}

    def seated(self, table: str, seat: int, token: str) -> None:
        if self.tokens is not None:
            self.tokens.put(self.address, self.client.name, table, seat, token)

    def unseated(self, table: str) -> None:
        """The seat's token is no good any more (refused, or its game is over)."""
        self.client.seats.pop(table, None)
        if self.tokens is not None:
            self.tokens.drop(self.address, self.client.name, table)

    async def refresh(self) -> list:
        answer = await self.client.request("list")
        self.tables = {info["table"]: info for info in map(_info, answer.get("tables", []))}
        for table in self.seat_lists.keys() & self.tables.keys():   # the newer of the two
            self.seat_lists[table] = list(self.tables[table].get("seats", []))
        for table in list(self.saved_seats()):
            if table not in self.tables or self.tables[table].get("over"):
                self.unseated(table)
        if self.on_tables is not None:
            self.on_tables()
        return list(self.tables.values())

    def remote(self, table, seat: Optional[int]) -> RemoteTable:
        old = self.remotes.get(table)
        if old is not None and not old.closed and old.seat == seat:
            return old
        r = self.remotes[table] = RemoteTable(self, table, seat, self.cards)
        if table in self.seat_lists:             # the last `seats` of the table: who sits where
            r.seat_infos = list(self.seat_lists[table])
        elif table in self.tables:               # the lobby's list
            r.seat_infos = list(self.tables[table].get("seats", []))
        return r

    def table_facts(self, table) -> dict:
        """A table's setup and state (waiting, owner, clock, grace, takeover, …): from
        its last `seats` message, else the lobby's list."""
        got = dict(self.tables.get(table, {}))
        got.update(self.facts.get(table, {}))
        return got

    def leave(self, table) -> None:
        """Leave `table` on purpose (the waiting room's Esc; a view closed): `leave`,
        written at once — the app may be ending right after — unless the app ends on a
        signal (a terminal that went away is a lost connection, not a choice)."""
        if self.hung_up():
            return
        self._send_leave(table)
        self.client.seats.pop(table, None)
        self.client.watching.pop(table, None)

    def _send_leave(self, table) -> None:
        if not self.client.connected:
            return
        last = getattr(self.client, "send_last", None)
        if last is not None:
            last("leave", table=table)
        else:                                  # (a client without it: in a task)
            fut = self.client.send("leave", table=table)
            fut.add_done_callback(lambda f: f.cancelled() or f.exception())

    def forget(self, remote: RemoteTable) -> None:
        """A view left its table: the server is told (`leave`, unless the app ends on a
        signal: then it is a lost connection), the seat kept for a later session."""
        if self.remotes.get(remote.table) is remote:
            del self.remotes[remote.table]
        self.held.pop(remote.table, None)
        self.paused.pop(remote.table, None)     # (told again by its next `seats`)
        if remote.latest is not None and remote.latest.over and remote.seat is not None:
            self.unseated(remote.table)        # a finished game: no seat to come back to
        if self.hung_up():
            return                             # (the connection ends with the app: a drop)
        self._send_leave(remote.table)
        self.client.seats.pop(remote.table, None)
        self.client.watching.pop(remote.table, None)

    # ------------------------------------------------------------------ messages
    def _message(self, msg: dict) -> None:
        kind = msg.get("t")
        table = msg.get("table")
        if kind == "update":
            remote = self.remotes.get(table)
            if remote is not None and remote.callback is not None:
                remote.take(msg.get("update"))
            else:                              # the join's answer may come after it
                held = self.held.setdefault(table, [])
                update = msg.get("update")
                if update.reset:
                    held.clear()                 # a whole log: what came before is in it
                held.append(update)
                if self.on_held is not None:     # (a waiting table started)
                    self.on_held(table)
        elif kind == "seats":
            seats = [_info(s) for s in msg.get("seats", [])]
            self.seat_lists[table] = seats
            from tactical_tui.net.protocol import FACT_KEYS
            facts = {k: msg[k] for k in (*FACT_KEYS, "private") if k in msg}
            was_private = self.facts.get(table, {}).get("private")
            self.facts[table] = facts
            if facts.get("code"):
                self.codes[table] = facts["code"]    # ours to see: we own the table
            elif "private" in facts and (not facts["private"] or was_private is False):
                # made public, or private anew (a fresh code, its owner's to give): the
                # code we typed is no longer the table's — never shown as if it were
                self.codes.pop(table, None)
            info = self.tables.get(table)
            if info is not None:
                info["seats"] = seats
                info.update(facts)
            remote = self.remotes.get(table)
            if remote is not None:
                before = remote.seat_infos
                remote.seats_changed(seats)
                if self.on_seats is not None:
                    self.on_seats(remote, before, seats)
            paused, was = msg.get("paused"), self.paused.get(table)
            if paused is None:
                self.paused.pop(table, None)
            else:
                self.paused[table] = paused
            if info is not None:
                info["paused"] = paused
            if remote is not None:
                remote.paused = paused
            if paused != was and self.on_paused is not None:
                self.on_paused(table, was, paused)
            if self.on_tables is not None:
                self.on_tables()
        elif kind == "chat":
            self.chat.append(msg)
            del self.chat[:-self.CHAT_KEEP]
            if self.on_chat is not None:
                self.on_chat(msg)
        elif kind == "bye":
            if self.on_bye is not None:
                self.on_bye(str(msg.get("code")))
        elif kind == "rejoin_refused":
            self.unseated(table)
            if self.on_problem is not None:
                self.on_problem(msg)
        elif kind == "unreadable":
            if self.on_unreadable is not None:
                self.on_unreadable(table)

    def _status(self, status: str, retry_in: Optional[float]) -> None:
        if self.on_status is not None:
            self.on_status(status, retry_in)


__all__ = ["RemoteTable", "Session", "ConnectionLost", "Refusal"]
