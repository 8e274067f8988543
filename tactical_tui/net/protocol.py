"""The table protocol, version 1 (docs/PROTOCOL.md): framing and message validation.

Why length-prefixed frames over an asyncio stream and not websockets: no browser speaks
to this server (the SSH front door is the way in from outside), and a 4-byte length
lets the server refuse an oversized frame after reading 4 bytes, with no dependency.

A frame: 4 bytes big-endian unsigned length, then that many bytes of UTF-8 JSON holding
one object. `read_frame` checks the length against the limit before reading the body
(`FrameTooLarge`), detects a stream that ends inside a frame (`FrameTruncated`) — both
end the connection — and refuses a body that is not one JSON object (`BadFrame`: the
frame is consumed, the connection goes on). `parse_request` turns a client object into a
typed request or raises `BadRequest` with the refusal code and the request's id.
"""

from __future__ import annotations

import asyncio
import json
import math
import struct
from typing import Any, Optional, Union

from attrs import frozen

from rules.actions import Action

from tactical_tui.net.wire import WireError, action_from_wire, update_from_wire

VERSION = 1
DEFAULT_PORT = 7411
MAX_CLIENT_FRAME = 64 * 1024
MAX_SERVER_FRAME = 8 * 1024 * 1024
_HEADER = struct.Struct(">I")

LEVELS = ("random", "easy", "normal", "hard")
LANGS = ("ja", "en")
NAME_MAX = 24           # characters of a player's name
CHAT_MAX = 200          # cells of a chat line, and its grapheme clusters
MARKS_MAX = 8           # combining marks in a row (a name's, a chat line's): real scripts
                        # stack a few (Vietnamese 2, Thai 3, Tibetan 5); "zalgo" stacks hundreds
TABLE_ID_MAX = 32
TOKEN_MAX = 128
CODE_MAX = 16
ID_LIMIT = 2 ** 53      # request ids: 0 <= id < ID_LIMIT
TIME_MAX = 86400.0      # seconds: the largest clock
GRACE_MAX = 300.0       # seconds: the largest grace — the lobby's form offers no more
                        # (lobby.GRACES); a raw client asked for a day and a peer's tables
                        # then held open seats for it (issue 30 finding 6)


# ------------------------------------------------------------------------- framing

class FrameError(Exception):
    """A frame the connection cannot go on after (`code`: too_large, truncated)."""

    code = "bad_frame"


class FrameTooLarge(FrameError):
    code = "too_large"

    def __init__(self, length: int, limit: int) -> None:
        super().__init__(f"a frame of {length} bytes (the limit is {limit})")
        self.length, self.limit = length, limit


class FrameTruncated(FrameError):
    code = "truncated"

    def __init__(self, got: int, wanted: int) -> None:
        super().__init__(f"the stream ended {got} bytes into a part of {wanted}")


class BadFrame(Exception):
    """A whole frame whose body is not one UTF-8 JSON object: refused, the stream goes on.
    `why`: not_utf8, not_json, too_deep, not_object, empty, duplicate_key, huge_number."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def encode_frame(obj: dict, limit: int = MAX_SERVER_FRAME) -> bytes:
    """One frame holding `obj` (FrameTooLarge if it would exceed `limit`)."""
    body = json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()
    if len(body) > limit:
        raise FrameTooLarge(len(body), limit)
    return _HEADER.pack(len(body)) + body


def _no_duplicates(pairs: list) -> dict:
    out = {}
    for k, v in pairs:
        if k in out:
            raise BadFrame("duplicate_key")
        out[k] = v
    return out


def _no_constant(name: str) -> Any:
    raise BadFrame("not_json")       # NaN, Infinity: not JSON


def decode_body(body: bytes) -> dict:
    """A frame's body as a JSON object, or BadFrame."""
    if not body:
        raise BadFrame("empty")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise BadFrame("not_utf8") from None
    try:
        obj = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except RecursionError:
        raise BadFrame("too_deep") from None
    except json.JSONDecodeError:
        raise BadFrame("not_json") from None
    except ValueError:               # Python's limit on the digits of an integer
        raise BadFrame("huge_number") from None
    if type(obj) is not dict:
        raise BadFrame("not_object")
    return obj


async def read_frame(reader: asyncio.StreamReader, limit: int) -> Optional[dict]:
    """The next frame's object; None at a clean end of the stream (between frames).
    Raises FrameTooLarge (checked on the 4-byte header, before any of the body is read),
    FrameTruncated, or BadFrame (the frame was read whole; the next one can follow)."""
    try:
        header = await reader.readexactly(_HEADER.size)
    except asyncio.IncompleteReadError as exc:
        if not exc.partial:
            return None
        raise FrameTruncated(len(exc.partial), _HEADER.size) from None
    (length,) = _HEADER.unpack(header)
    if length > limit:
        raise FrameTooLarge(length, limit)
    try:
        body = await reader.readexactly(length)
    except asyncio.IncompleteReadError as exc:
        raise FrameTruncated(len(exc.partial), length) from None
    return decode_body(body)


async def write_frame(writer: asyncio.StreamWriter, obj: dict, limit: int = MAX_SERVER_FRAME) -> None:
    writer.write(encode_frame(obj, limit))
    await writer.drain()


# ------------------------------------------------------------------------- client requests

@frozen
class SeatSpec:
    kind: str                        # "open" | "ai"
    level: Optional[str] = None      # the AI level of an "ai" seat


@frozen
class Hello:
    id: int
    v: int
    name: str
    lang: str


@frozen
class ListTables:
    id: int


@frozen
class Create:
    id: int
    seats: tuple[SeatSpec, ...]
    first_game: bool = False
    private: bool = False
    clock: Optional[float] = None
    grace: float = 60.0
    takeover: str = "normal"


@frozen
class Join:
    id: int
    table: str
    seat: Optional[int] = None
    code: Optional[str] = None
    token: Optional[str] = None


@frozen
class Watch:
    id: int
    table: str
    code: Optional[str] = None


@frozen
class Submit:
    id: int
    table: str
    action: Action


@frozen
class Undo:
    id: int
    table: str


@frozen
class Chat:
    id: int
    table: str
    text: str


@frozen
class Leave:
    id: int
    table: str


@frozen
class EndGame:
    """A seated player agrees (`agree`) — or no longer agrees — to end the game by
    agreement (no winner; the rules end a game only at 5 VP: RULINGS R19)."""
    id: int
    table: str
    agree: bool = True


@frozen
class Start:
    """The table's creator starts a waiting table (issue 31): its open seats are played
    by the takeover AI from then on (and may still be taken)."""
    id: int
    table: str


@frozen
class Setup:
    """The table's creator changes a waiting table: its seats (a seat a player holds
    stays theirs: `open` in the list), first game, privacy, clock, grace, takeover
    level. Only the fields given change."""
    id: int
    table: str
    seats: Optional[tuple] = None
    first_game: Optional[bool] = None
    private: Optional[bool] = None
    clock: Optional[float] = None
    no_clock: bool = False           # (clock: null in the request: no turn clock)
    grace: Optional[float] = None
    takeover: Optional[str] = None


@frozen
class Cards:
    id: int


@frozen
class Ping:
    """Nothing but "I am here": a client at no table sends it when it has sent nothing
    for a while (client.KEEPALIVE), so that the server does not close it as idle."""
    id: int


Request = Union[Hello, ListTables, Create, Join, Watch, Submit, Undo, Chat, Leave, EndGame,
                Start, Setup, Cards, Ping]


class BadRequest(Exception):
    """A client message refused: `code` (a refusal code: bad_message, bad_version, …),
    `id` (the request's id when it had a valid one, else None), `params` plain values
    (for bad_message: `field`, the key that is wrong)."""

    def __init__(self, code: str, id: Optional[int] = None, **params: Any) -> None:
        super().__init__(f"{code} {params}" if params else code)
        self.code, self.id, self.params = code, id, params


class _Wrong(Exception):
    def __init__(self, field: str) -> None:
        super().__init__(field)
        self.field = field


def _int(v: Any) -> int:
    if type(v) is not int:
        raise ValueError
    return v


def _str(limit: int):
    def check(v: Any) -> str:
        if type(v) is not str or not 0 < len(v) <= limit or not v.isprintable():
            raise ValueError
        return v
    return check


def _optional(fn):
    return lambda v: None if v is None else fn(v)


def _bool(v: Any) -> bool:
    if type(v) is not bool:
        raise ValueError
    return v


def _seconds(lo: float, hi: float = TIME_MAX):
    def check(v: Any) -> float:
        # an int is compared before any float conversion: 10**400 is out of range, not
        # an OverflowError (which reached the server's catch-all with a traceback)
        if type(v) is int:
            if not lo <= v <= hi:
                raise ValueError
        elif type(v) is not float or not math.isfinite(v) or not lo <= v <= hi:
            raise ValueError
        return float(v)
    return check


def _one_of(values: tuple):
    def check(v: Any) -> str:
        if type(v) is not str or v not in values:
            raise ValueError
        return v
    return check


def _name(v: Any) -> str:
    v = _str(NAME_MAX)(v)
    if v.strip() != v or not v or _is_mark(v[0]) or marks_run(v) > MARKS_MAX:
        raise ValueError                 # no leading or trailing spaces, no stack of marks
    return v


def name_ok(v: Any) -> bool:
    """Whether `v` is a name `hello` takes: 1–NAME_MAX printable characters, no leading
    or trailing space, not starting with a combining mark nor stacking more than
    MARKS_MAX (`tactical join --name` checks it before connecting)."""
    try:
        _name(v)
    except ValueError:
        return False
    return True


def _seat(v: Any) -> int:
    v = _int(v)
    if not 0 <= v < 5:
        raise ValueError
    return v


def _seats(v: Any) -> tuple[SeatSpec, ...]:
    if type(v) is not list or not 3 <= len(v) <= 5:
        raise ValueError
    out = []
    for i, s in enumerate(v):
        if type(s) is not dict or type(s.get("kind")) is not str:
            raise _Wrong(f"seats[{i}]")
        if s["kind"] == "open" and set(s) == {"kind"}:
            out.append(SeatSpec("open"))
        elif s["kind"] == "ai" and set(s) == {"kind", "level"} and s["level"] in LEVELS \
                and type(s["level"]) is str:
            out.append(SeatSpec("ai", s["level"]))
        else:
            raise _Wrong(f"seats[{i}]")
    return tuple(out)


def _action(v: Any) -> Action:
    try:
        return action_from_wire(v)
    except WireError as exc:
        raise _Wrong(f"action.{exc.where}" if exc.where else "action") from None


def _is_mark(ch: str) -> bool:
    """A combining mark (Mn, Mc, Me): it joins the character before it."""
    import unicodedata
    return unicodedata.category(ch)[0] == "M"


# Code points that belong to the cluster of the character before them besides the marks
# (UAX #29's Extend and SpacingMark, as far as printable text can hold them): Hangul
# vowel and final jamo, emoji skin tones, the half-width sound marks.
_JOINERS = ((0x1160, 0x11FF), (0xD7B0, 0xD7FF), (0x1F3FB, 0x1F3FF), (0xFF9E, 0xFF9F))


def _extends(ch: str) -> bool:
    o = ord(ch)
    return _is_mark(ch) or any(lo <= o <= hi for lo, hi in _JOINERS)


def clusters(text: str) -> int:
    """The grapheme clusters of `text` (what a reader counts as characters): each code
    point that does not extend the one before it starts one. (A line with a zero-width
    joiner or a control character is refused before: they are not printable.)"""
    return sum(1 for i, ch in enumerate(text) if i == 0 or not _extends(ch))


def marks_run(text: str) -> int:
    """The longest run of combining marks in `text`."""
    run = longest = 0
    for ch in text:
        run = run + 1 if _is_mark(ch) else 0
        longest = max(longest, run)
    return longest


def chat_problem(v: Any) -> Optional[str]:
    """Why `v` is not a chat line (None: it is one): `empty`, `control` (a control
    character or a line break: one line of printable text), `cells` (over CHAT_MAX cells,
    rich.cells.cell_len: a wide character is two), `clusters` (over CHAT_MAX grapheme
    clusters), `marks` (over MARKS_MAX combining marks in a row: 60 KB of them made one
    line of one cell)."""
    from rich.cells import cell_len
    if type(v) is not str or not v.strip():
        return "empty"
    if not v.isprintable():
        return "control"
    if marks_run(v) > MARKS_MAX:
        return "marks"
    if clusters(v) > CHAT_MAX:
        return "clusters"
    if cell_len(v) > CHAT_MAX:
        return "cells"
    return None


def chat_text(v: Any) -> str:
    """A chat line (chat_problem says what is wrong with one that is not: ValueError)."""
    if chat_problem(v) is not None:
        raise ValueError
    return v


_TABLE = _str(TABLE_ID_MAX)

# For each message type: its class and fields (name -> check, required).
_SPEC: dict[str, tuple[type, dict]] = {
    "hello": (Hello, {"v": (_int, True), "name": (_name, True), "lang": (_one_of(LANGS), True)}),
    "list": (ListTables, {}),
    "create": (Create, {"seats": (_seats, True), "first_game": (_bool, False),
                        "private": (_bool, False), "clock": (_optional(_seconds(5.0)), False),
                        "grace": (_seconds(0.0, GRACE_MAX), False), "takeover": (_one_of(LEVELS), False)}),
    "join": (Join, {"table": (_TABLE, True), "seat": (_optional(_seat), False),
                    "code": (_optional(_str(CODE_MAX)), False),
                    "token": (_optional(_str(TOKEN_MAX)), False)}),
    "watch": (Watch, {"table": (_TABLE, True), "code": (_optional(_str(CODE_MAX)), False)}),
    "submit": (Submit, {"table": (_TABLE, True), "action": (_action, True)}),
    "undo": (Undo, {"table": (_TABLE, True)}),
    "chat": (Chat, {"table": (_TABLE, True), "text": (chat_text, True)}),
    "leave": (Leave, {"table": (_TABLE, True)}),
    "end": (EndGame, {"table": (_TABLE, True), "agree": (_bool, False)}),
    "start": (Start, {"table": (_TABLE, True)}),
    "setup": (Setup, {"table": (_TABLE, True), "seats": (_seats, False),
                      "first_game": (_bool, False), "private": (_bool, False),
                      "clock": (_optional(_seconds(5.0)), False),
                      "grace": (_seconds(0.0, GRACE_MAX), False),
                      "takeover": (_one_of(LEVELS), False)}),
    "cards": (Cards, {}),
    "ping": (Ping, {}),
}
REQUEST_TYPES = tuple(_SPEC)


def request_id(obj: dict) -> Optional[int]:
    """The object's request id if it is a valid one (for the refusal's `id`)."""
    rid = obj.get("id")
    return rid if type(rid) is int and 0 <= rid < ID_LIMIT else None


def parse_request(obj: dict) -> Request:
    """A client object as a typed request; BadRequest("bad_message", id, field=...) when
    it has an unknown `t`, a missing or unknown key, or a value of the wrong kind."""
    rid = request_id(obj)
    if rid is None:
        raise BadRequest("bad_message", None, field="id")
    t = obj.get("t")
    spec = _SPEC.get(t) if type(t) is str else None
    if spec is None:
        raise BadRequest("bad_message", rid, field="t")
    cls, fields = spec
    values: dict = {"id": rid}
    for key in obj:
        if key not in fields and key not in ("t", "id"):
            raise BadRequest("bad_message", rid, field=_shown_key(key))
    for key, (check, required) in fields.items():
        if key not in obj:
            if required:
                raise BadRequest("bad_message", rid, field=key)
            continue
        try:
            values[key] = check(obj[key])
        except _Wrong as wrong:
            raise BadRequest("bad_message", rid, field=f"{key}.{wrong.field}"
                             if not wrong.field.startswith(key) else wrong.field) from None
        except (ValueError, TypeError, OverflowError):
            raise BadRequest("bad_message", rid, field=key) from None
    if cls is Setup and "clock" in obj and obj["clock"] is None:
        values["no_clock"] = True
    return cls(**values)


def _shown_key(key: str) -> str:
    return key[:32] if key.isprintable() else "?"


# ------------------------------------------------------------------------- server messages

@frozen
class SeatInfo:
    seat: int
    kind: str                        # "open" | "human" | "ai"
    name: Optional[str] = None
    level: Optional[str] = None
    status: str = "open"             # open | connected | disconnected | ai_takeover | ai
    left: bool = False               # its player left on purpose (or the game is over):
                                     # not a lost connection (issue 31)

    def to_wire(self) -> dict:
        return {"seat": self.seat, "kind": self.kind, "name": self.name, "level": self.level,
                "status": self.status, "left": self.left}


@frozen
class TableInfo:
    table: str
    phase: str
    private: bool
    seats: tuple[SeatInfo, ...]
    version: int
    over: bool
    paused: Optional[str] = None     # why the table takes no action now (PAUSE_CODES), or None
    facts: Any = None                # the table's setup (table_facts), or None (an older host)

    def to_wire(self) -> dict:
        return {"table": self.table, "phase": self.phase, "private": self.private,
                "seats": [s.to_wire() for s in self.seats], "version": self.version,
                "over": self.over, "paused": self.paused, **(self.facts or {})}


# A table's setup and state (issue 31), in TableInfo and in `seats`: whether it waits
# for its players (not started: no game action is taken), who may start and change it
# (`owner`, a seat, or null), its rules of play, and — to its owner only — its join code.
FACT_KEYS = ("waiting", "owner", "clock", "grace", "takeover", "first_game", "code")


def table_facts(obj: dict) -> dict:
    """The table facts of a TableInfo or `seats` message, checked (absent keys: an older
    host — not waiting, no owner, nothing known of its rules)."""
    out: dict = {}
    checks = {"waiting": lambda v: type(v) is bool,
              "owner": lambda v: v is None or _a_seat(v),
              "clock": lambda v: v is None or (type(v) in (int, float) and math.isfinite(v) and v >= 0),
              "grace": lambda v: type(v) in (int, float) and math.isfinite(v) and v >= 0,
              "takeover": lambda v: v in LEVELS,
              "first_game": lambda v: type(v) is bool,
              "code": lambda v: v is None or (type(v) is str and 0 < len(v) <= CODE_MAX
                                              and v.isprintable())}
    for key, check in checks.items():
        if key in obj:
            if not check(obj[key]):
                raise ValueError(f"{key} of the wrong kind")
            out[key] = obj[key]
    return out


SEAT_KINDS = ("open", "human", "ai")
SEAT_STATUSES = ("open", "connected", "disconnected", "ai_takeover", "ai")
# Why a table takes no action for a while (`paused` of TableInfo and of `seats`):
# save_failed — the host cannot save it and tries again (docs/PROTOCOL.md "Saves").
PAUSE_CODES = ("save_failed",)
BYE_CODES = ("too_many_errors", "server_stopping", "idle", "replaced", "server_full",
             "too_many_connections")


def ok(rid: int, **fields: Any) -> dict:
    return {"t": "ok", "id": rid, **fields}


def refused(rid: Optional[int], code: str, params: Optional[dict] = None) -> dict:
    from tactical_tui.net.wire import plain_to_wire
    return {"t": "refused", "id": rid, "code": code, "params": plain_to_wire(dict(params or {}))}


def bye(code: str) -> dict:
    return {"t": "bye", "code": code}


class ErrorBudget:
    """At most `limit` refusals within `window` seconds (PROTOCOL.md "Bad input": 20 a
    minute); `strike()` is True once the budget is spent."""

    def __init__(self, limit: int = 20, window: float = 60.0, clock=None) -> None:
        import time
        self.limit, self.window = limit, window
        self.clock = clock or time.monotonic
        self.times: list[float] = []

    def strike(self) -> bool:
        now = self.clock()
        self.times = [t for t in self.times if now - t < self.window]
        self.times.append(now)
        return len(self.times) >= self.limit


# ------------------------------------------------------------------------- a client's side

# Forward compatibility (docs/PROTOCOL.md "Versions"): the client reads the keys it
# knows of TableInfo, SeatInfo and the plain messages (`ok`, `refused`, `seats`, `chat`,
# `bye`, the envelope of `update`), each checked strictly, and ignores a key it does not
# know — a newer host of the same protocol version may add one. A missing key, a value of
# the wrong kind or an unknown value of a known key (a seat status, a level) is refused.
# The Update inside `update` stays strict (wire.update_from_wire): it is the rules'
# observation, and a field this version cannot show is a difference of rules.

def _has(obj: Any, keys: set) -> bool:
    return type(obj) is dict and keys <= obj.keys()


MAX_SEATS = 5                # a table has 3 to 5 seats, numbered from 0


def _a_seat(x: Any) -> bool:
    """A seat number as a server may send it (a lobby showed "Sit at seat
    1000000000000000001")."""
    return type(x) is int and 0 <= x < MAX_SEATS


# The fields an `ok` answer may carry (join, watch, create, cards), by their kind: a value
# of another kind fails the check (BadAnswer) — `"table": ["a"]` in a join's answer was a
# TypeError in the lobby and a traceback on the terminal.
_OK_FIELDS = {"table": (str,), "token": (str,), "code": (str, type(None)), "toml": (str,),
              "waiting": (bool,)}


def _seat_info(obj: Any) -> SeatInfo:
    if not _has(obj, {"seat", "kind", "name", "level", "status"}):
        raise ValueError("a SeatInfo is seat, kind, name, level, status")
    if not _a_seat(obj["seat"]) or obj["kind"] not in SEAT_KINDS \
            or obj["status"] not in SEAT_STATUSES \
            or not (obj["name"] is None or type(obj["name"]) is str) \
            or not (obj["level"] is None or obj["level"] in LEVELS):
        raise ValueError("a SeatInfo of the wrong shape")
    left = obj.get("left", False)
    if type(left) is not bool:
        raise ValueError("left must be a bool")
    return SeatInfo(obj["seat"], obj["kind"], obj["name"], obj["level"], obj["status"], left)


def seat_infos(obj: Any) -> tuple[SeatInfo, ...]:
    if type(obj) is not list:
        raise ValueError("seats must be a list")
    return tuple(_seat_info(s) for s in obj)


def table_info(obj: Any) -> TableInfo:
    keys = {"table", "phase", "private", "seats", "version", "over"}
    if not _has(obj, keys) or type(obj["table"]) is not str \
            or type(obj["phase"]) is not str or type(obj["private"]) is not bool \
            or type(obj["version"]) is not int or type(obj["over"]) is not bool:
        raise ValueError("a TableInfo of the wrong shape")
    return TableInfo(obj["table"], obj["phase"], obj["private"], seat_infos(obj["seats"]),
                     obj["version"], obj["over"], _paused(obj), table_facts(obj))


def _paused(obj: dict) -> Optional[str]:
    """`paused` of a TableInfo or a `seats` message: absent (an older host) is None; a
    value this version does not know is still a pause (said with its code)."""
    value = obj.get("paused")
    if not (value is None or type(value) is str):
        raise ValueError("paused must be a string or null")
    return value


def _known(obj: dict, keys: set) -> dict:
    """`obj` with only the keys this version knows (all of them present: ValueError)."""
    if not keys <= obj.keys():
        raise ValueError(f"{obj.get('t')} without {sorted(keys - obj.keys())}")
    return {k: v for k, v in obj.items() if k in keys}


def check_server_message(obj: dict) -> dict:
    """A server message as a client may use it, checked: `update` with its Update decoded
    (wire.update_from_wire), `seats` as SeatInfo, `ok`'s `tables` as TableInfo. Keys this
    version does not know are dropped (forward compatibility: the comment above
    `_seat_info`). Raises ValueError (WireError for an update) for anything else."""
    t = obj.get("t")
    if t == "ok":
        if request_id(obj) is None:
            raise ValueError("ok without a request id")
        for key, kinds in _OK_FIELDS.items():
            if key in obj and type(obj[key]) not in kinds:
                raise ValueError(f"ok: {key} of the wrong kind")
        if "seat" in obj and not _a_seat(obj["seat"]):
            raise ValueError("ok: not a seat number")
        if "tables" in obj:
            if type(obj["tables"]) is not list:
                raise ValueError("tables must be a list")
            return {**obj, "tables": [table_info(x) for x in obj["tables"]]}
        return obj
    if t == "refused":
        obj = _known(obj, {"t", "id", "code", "params"})
        if type(obj["code"]) is not str or type(obj["params"]) is not dict \
                or not (obj["id"] is None or request_id(obj) is not None):
            raise ValueError("a refusal of the wrong shape")
        return obj
    if t == "update":
        obj = _known(obj, {"t", "table", "update"})
        if type(obj["table"]) is not str:
            raise ValueError("an update of the wrong shape")
        return {**obj, "update": update_from_wire(obj["update"])}
    if t == "seats":
        paused = {"paused": _paused(obj)} if "paused" in obj else {}
        facts = table_facts(obj)
        private = {"private": obj["private"]} if type(obj.get("private")) is bool else {}
        obj = _known(obj, {"t", "table", "seats"})
        if type(obj["table"]) is not str:
            raise ValueError("a seats message of the wrong shape")
        return {**obj, "seats": seat_infos(obj["seats"]), **paused, **facts, **private}
    if t == "chat":
        obj = _known(obj, {"t", "table", "seat", "name", "text"})
        if type(obj["text"]) is not str or type(obj["name"]) is not str \
                or not (obj["seat"] is None or type(obj["seat"]) is int):
            raise ValueError("a chat message of the wrong shape")
        return obj
    if t == "bye":
        obj = _known(obj, {"t", "code"})
        if type(obj["code"]) is not str:
            raise ValueError("a bye of the wrong shape")
        return obj
    raise ValueError(f"unknown server message {str(t)[:20]!r}")


__all__ = [
    "VERSION", "DEFAULT_PORT", "MAX_CLIENT_FRAME", "MAX_SERVER_FRAME", "FrameError",
    "FrameTooLarge", "FrameTruncated", "BadFrame", "encode_frame", "decode_body", "read_frame",
    "write_frame", "SeatSpec", "Hello", "ListTables", "Create", "Join", "Watch", "Submit",
    "Undo", "Chat", "Leave", "Start", "Setup", "Cards", "Ping", "Request", "BadRequest", "parse_request", "request_id",
    "chat_text", "chat_problem", "clusters", "marks_run", "name_ok", "SeatInfo", "TableInfo", "ok", "refused", "bye", "ErrorBudget",
    "check_server_message", "seat_infos", "table_info",
]
