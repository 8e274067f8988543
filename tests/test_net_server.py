"""Issue 17 points 1, 2, 3, 5: the table server (`tactical host`, tactical_tui/net/server.py)
and the framing and validation of docs/PROTOCOL.md (tactical_tui/net/protocol.py).

On loopback with ephemeral ports: an in-process server on the test's event loop, played
by raw protocol clients that choose legal actions from the observations they are sent;
one test runs `tactical host` as a subprocess, SIGKILLs it mid-game and starts it again.
No test asserts wall-clock time (waits have generous timeouts only).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from rules import Config, apply, new_game, observe
from rules.events import visible
from rules.observe import observe_public
from tactical_tui.net import protocol as P
from tactical_tui.net.aipool import decide, pack, unpack
from tactical_tui.net.server import Server
from tactical_tui.net.wire import action_to_wire, update_from_wire

from hidden import hide_differently

ROOT = Path(__file__).resolve().parent.parent
WAIT = 60.0            # the longest any single wait may take before the test fails


# ------------------------------------------------------------------ a raw client

class Raw:
    """A protocol client on a bare socket: every frame received is recorded, raw."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.rid = 0
        self.raw: list[bytes] = []          # every frame body received
        self.inbox: list[dict] = []         # received, not yet handled
        self.updates: list = []             # decoded Updates, in order
        self.seats_msgs: list = []
        self.closed = False

    async def connect(self) -> "Raw":
        self.r, self.w = await asyncio.open_connection("127.0.0.1", self.port)
        return self

    async def send_obj(self, obj: dict) -> None:
        await P.write_frame(self.w, obj, P.MAX_CLIENT_FRAME)

    async def send(self, t: str, **fields) -> int:
        self.rid += 1
        await self.send_obj({"t": t, "id": self.rid, **fields})
        return self.rid

    async def _read(self) -> dict | None:
        try:
            header = await asyncio.wait_for(self.r.readexactly(4), WAIT)
            body = await asyncio.wait_for(self.r.readexactly(struct.unpack(">I", header)[0]), WAIT)
        except (asyncio.IncompleteReadError, ConnectionError):
            self.closed = True
            return None
        self.raw.append(body)
        msg = P.check_server_message(P.decode_body(body))
        if msg["t"] == "update":
            self.updates.append(msg["update"])
        if msg["t"] == "seats":
            self.seats_msgs.append(msg["seats"])
        return msg

    async def next(self) -> dict | None:
        if self.inbox:
            return self.inbox.pop(0)
        return await self._read()

    async def ask(self, t: str, **fields) -> dict:
        rid = await self.send(t, **fields)
        return await self.answer(rid)

    async def answer(self, rid: int) -> dict:
        while True:
            msg = await self._read()
            assert msg is not None, "closed before the answer"
            if msg.get("id") == rid and msg["t"] in ("ok", "refused"):
                return msg
            self.inbox.append(msg)

    async def hello(self, name: str = "Ann") -> dict:
        answer = await self.ask("hello", v=1, name=name, lang="en")
        assert answer["t"] == "ok", answer
        return answer

    async def until_closed(self) -> list[dict]:
        got = []
        while (msg := await self.next()) is not None:
            got.append(msg)
        return got

    def close(self) -> None:
        self.w.close()


async def play(c: Raw, table: str, seat: int, rnd: random.Random, stop=None):
    """Play `seat` with random legal actions from its observations until the game is
    over (or `stop(c)` says so). Acts once per update, on none older than its own last
    action (its answer comes after the update that action made)."""
    acted, used = -1, None
    latest = None
    while True:
        msg = await c.next()
        if msg is None:
            return latest
        if msg["t"] == "update" and msg["table"] == table:
            latest = msg["update"]
        if latest is None:
            continue
        if latest.over or (stop is not None and stop(c)):
            return latest
        if c.inbox or latest.version < acted or latest is used or seat not in latest.turn.seats \
                or not latest.observation.legal:
            continue
        used = latest
        answer = await c.ask("submit", table=table,
                             action=action_to_wire(rnd.choice(latest.observation.legal)))
        while answer["t"] == "refused" and answer["code"] == "rate_limited":
            # faster than the host's rate (a bot plays as fast as it reads): as asked, later
            await asyncio.sleep(answer["params"]["retry"])
            answer = await c.ask("submit", table=table,
                                 action=action_to_wire(rnd.choice(latest.observation.legal)))
        if answer["t"] == "ok":
            acted = answer["version"]
        else:
            assert answer["code"] not in ("not_your_seat", "bad_message", "not_seated"), answer


@contextlib.asynccontextmanager
async def running(folder: Path, **kw):
    server = Server(folder, ai_delay=0, **kw)
    host, port = await server.start("127.0.0.1", 0)
    try:
        yield server, port
    finally:
        await server.stop()


async def seated(port: int, table: str, name: str, **join) -> tuple[Raw, dict]:
    c = await Raw(port).connect()
    await c.hello(name)
    answer = await c.ask("join", table=table, **join)
    return c, answer


def two_humans_two_ai(**extra) -> dict:
    return dict(seats=[{"kind": "open"}, {"kind": "ai", "level": "easy"}, {"kind": "open"},
                       {"kind": "ai", "level": "normal"}], **extra)


# ------------------------------------------------------------------ secrets stay home

def _states(table) -> list:
    """The state after each number of actions of the table's history (by the rules)."""
    game = table.game
    state, _ = new_game(game.config, game.cards, game.seed)
    out = [state]
    for action in game.history:
        state, _ = apply(state, action)
        out.append(state)
    return out


def _keys(obj, out: set) -> set:
    if isinstance(obj, dict):
        out.update(obj)
        for v in obj.values():
            _keys(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _keys(v, out)
    return out


def state_at(table, states: list, seat, u):
    """The state `u` showed `seat`: one after which the seat knew of `u.version` actions
    (each seat is told its own version: LiveTable.version_for) and that it sees so."""
    view = observe_public if seat is None else (lambda st: observe(st, seat))
    found = [st for g, st in enumerate(states)
             if table.live.version_for(seat, g) == u.version and view(st) == u.observation]
    assert found, (seat, u.version)
    return found[-1]


def check_secrets(c: Raw, seat, table, states: list) -> None:
    """Every update `c` got is exactly its seat's view at that version (observe, or
    observe_public for a watcher) — which does not change when everything the seat may
    not see is changed (tests/hidden.py) — every log entry is visible to the seat, and no
    frame holds the seed, an RNG state, a deck or a key of the state."""
    rnd = random.Random(7)
    assert c.updates
    secrets_ = {str(table.game.seed)} | {str(s.rng) for s in states}
    for body in c.raw:
        text = body.decode()
        for s in secrets_:
            assert not re.search(rf"(?<![0-9]){s}(?![0-9])", text), "the seed or an RNG state was sent"
        keys = _keys(json.loads(text), set())
        leaked = keys & {"rng", "seed", "defense_deck", "attack_deck", "script", "state",
                         "history", "memo", "token_hash"}
        assert not leaked, leaked
    for u in c.updates:
        assert u.seat == seat
        state = state_at(table, states, seat, u)
        if seat is None:
            assert u.observation == observe_public(state)
            assert all(e.event is None or not e.event.secret for e in u.entries)
        else:
            assert u.observation == observe(state, seat)
            assert u.observation == observe(hide_differently(state, seat, rnd), seat)
            assert all(e.event is None or visible(e.event, seat) for e in u.entries)


def test_two_humans_two_ai_play_to_the_end_and_see_only_their_own(tmp_path):
    async def run():
        async with running(tmp_path) as (server, port):
            owner = await Raw(port).connect()
            await owner.hello("Owner")
            made = await owner.ask("create", **two_humans_two_ai())
            assert made["t"] == "ok" and made["code"] is None
            tid = made["table"]
            a, ja = await seated(port, tid, "Ann")
            b, jb = await seated(port, tid, "Bob")
            assert (ja["seat"], jb["seat"]) == (0, 2)
            assert ja["token"] != jb["token"] and len(ja["token"]) >= 43
            w = await Raw(port).connect()
            await w.hello("Watcher")
            assert (await w.ask("watch", table=tid))["t"] == "ok"
            listed = await owner.ask("list")
            info = next(t for t in listed["tables"] if t.table == tid)
            assert [s.status for s in info.seats] == ["connected", "ai", "connected", "ai"]
            assert [s.name for s in info.seats] == ["Ann", None, "Bob", None]
            ua, ub = await asyncio.wait_for(asyncio.gather(
                play(a, tid, 0, random.Random(1)), play(b, tid, 2, random.Random(2))), 300)
            assert ua.over and ub.over
            table = server.tables[tid]
            assert table.game.over
            while not w.updates or not w.updates[-1].over:
                assert await asyncio.wait_for(w.next(), WAIT) is not None
            states = _states(table)
            check_secrets(a, 0, table, states)
            check_secrets(b, 2, table, states)
            check_secrets(w, None, table, states)
            # both humans decided, and the AI seats too
            assert {x.seat for x in table.game.history} == {0, 1, 2, 3}
            # the save on disk is the table's game
            from tactical_tui.table.saves import read
            await table.saver.saved()
            data = read(tmp_path / f"{tid}.json")
            assert data.finished and list(data.actions) == table.game.history
            meta = json.loads((tmp_path / f"{tid}.table.json").read_text())
            assert ja["token"] not in json.dumps(meta)          # only a hash is kept
            for c in (a, b, w, owner):
                c.close()
    asyncio.run(run())


# ------------------------------------------------------------------ drop, take over, reclaim

def test_a_dropped_seat_is_taken_over_and_reclaimed_by_its_token(tmp_path):
    async def run():
        async with running(tmp_path) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            tid = (await a.ask("create", **two_humans_two_ai(grace=0.2, takeover="easy")))["table"]
            assert (await a.ask("join", table=tid))["seat"] == 0
            b, jb = await seated(port, tid, "Bob")
            token = jb["token"]
            table = server.tables[tid]
            play_a = asyncio.ensure_future(play(a, tid, 0, random.Random(3)))
            # Bob plays until the bidding, then his connection drops
            await asyncio.wait_for(play(b, tid, 2, random.Random(4),
                                        stop=lambda c: table.game.state.phase != "draft"), 120)
            b.w.transport.abort()
            dropped_at = table.live.version

            def statuses() -> list:
                return [s.status for s in table.slots]

            async def until(cond):
                while not cond():
                    await asyncio.sleep(0.01)
            await asyncio.wait_for(until(lambda: statuses()[2] == "ai_takeover"), WAIT)
            # the others were told, in order: disconnected, then the AI took over
            await asyncio.wait_for(until(lambda: any(s[2].status == "ai_takeover"
                                                     for s in a.seats_msgs)), WAIT)
            seen = [s[2].status for s in a.seats_msgs]
            assert "disconnected" in seen and seen.index("disconnected") < seen.index("ai_takeover")
            # the game goes on: the AI plays Bob's seat
            await asyncio.wait_for(until(lambda: any(
                getattr(x, "seat", None) == 2 for x in table.game.history[dropped_at:])), WAIT)
            assert not table.game.over

            # a wrong token, a token of another seat, a token on another table: refused
            c = await Raw(port).connect()
            await c.hello("Eve")
            assert (await c.ask("join", table=tid, token="x" * 43))["code"] == "bad_token"
            other = (await c.ask("create", **two_humans_two_ai()))["table"]
            assert (await c.ask("join", table=other, token=token))["code"] == "bad_token"
            assert (await c.ask("join", table=tid, seat=0, token=token))["code"] == "bad_token"
            assert (await c.ask("join", table=tid, seat=2))["code"] == "seat_taken"
            assert statuses()[2] == "ai_takeover"

            # Bob comes back with his token: the seat is his at his next decision
            b2, again = await seated(port, tid, "Bob", token=token)
            assert again["t"] == "ok" and again["seat"] == 2 and again["token"] == token
            await asyncio.wait_for(until(lambda: statuses()[2] == "connected"), WAIT)
            mine = sum(1 for x in table.game.history if getattr(x, "seat", None) == 2)
            last = await asyncio.wait_for(play(b2, tid, 2, random.Random(5),
                                               stop=lambda c: sum(1 for x in table.game.history
                                                                  if getattr(x, "seat", None) == 2)
                                               > mine + 2), 120)
            assert last is not None
            assert statuses()[2] == "connected"
            # the first update after rejoining is the whole log, the seat's own view
            first = b2.updates[0]
            assert first.reset and first.seat == 2
            # the same token from another connection takes the seat over: the old one is told
            b3, third = await seated(port, tid, "Bob", token=token)
            assert third["seat"] == 2
            rest = await asyncio.wait_for(b2.until_closed(), WAIT)
            assert {"t": "bye", "code": "replaced"} in rest
            play_a.cancel()
            for x in (a, b2, b3, c):
                x.close()
    asyncio.run(run())


def test_the_turn_clock_makes_a_late_decision(tmp_path):
    """A seated player who does not decide in time: the clock decides, one decision at a
    time. (Issue 31: a table with an open seat waits for its players, so the player sits
    down — the table is full and starts — and then does nothing.)"""
    async def run():
        async with running(tmp_path) as (server, port):
            req = P.Create(1, (P.SeatSpec("open"), P.SeatSpec("ai", "random"),
                               P.SeatSpec("ai", "random")), clock=0.05, takeover="random")
            table, _ = server.create(req)
            c, answer = await seated(port, table.id, "Ann")
            assert answer["t"] == "ok" and not table.waiting

            async def until(cond):
                while not cond():
                    await asyncio.sleep(0.01)
            await asyncio.wait_for(until(lambda: sum(
                1 for x in table.game.history if x.seat == 0) >= 3), WAIT)
            assert table.slots[0].status == "connected"     # the clock, not a takeover
            c.close()
    asyncio.run(run())


def test_an_open_seat_nobody_takes_is_played_by_the_ai_and_can_still_be_taken(tmp_path):
    """Issue 17 point 5 "No table ever waits forever": an open seat nobody joins is played
    by the takeover AI once the grace is over — still open, so a player may take it, and
    from then on it waits for that player's decisions."""
    async def run():
        async with running(tmp_path) as (server, port):
            req = P.Create(1, (P.SeatSpec("open"), P.SeatSpec("ai", "random"),
                               P.SeatSpec("ai", "random")), grace=0.05, takeover="random")
            table, _ = server.create(req)
            assert table.waiting                      # (issue 31: until it is started)
            table.begin()
            mine = lambda: sum(1 for x in table.game.history if x.seat == 0)

            async def until(cond):
                while not cond():
                    await asyncio.sleep(0.01)
            await asyncio.wait_for(until(lambda: mine() >= 2), WAIT)
            assert table.slots[0].status == "open" and table.slots[0].takeover
            c, answer = await seated(port, table.id, "Ann", seat=0)
            assert answer["t"] == "ok" and answer["seat"] == 0
            await asyncio.wait_for(until(lambda: not table.slots[0].takeover), WAIT)
            await asyncio.wait_for(until(lambda: 0 in table.game.pending().seats
                                         and table._inflight is None), WAIT)
            before = mine()
            await asyncio.sleep(0.3)                 # the takeover AI would act at once
            assert mine() == before and table.slots[0].status == "connected"
            c.close()
    asyncio.run(run())


# ------------------------------------------------------------------ bad input

async def _bad(port: int, payload: bytes, then_close: bool = False) -> list[dict]:
    """Send raw bytes on a fresh connection (after a hello); what the server answers
    until it closes (or, when it does not close, until a `list` is answered)."""
    c = await Raw(port).connect()
    await c.hello("Mallory")
    c.w.write(payload)
    await c.w.drain()
    if then_close:
        c.w.write_eof()
    got = []
    rid = None
    if not then_close:
        rid = await c.send("list") if not c.closed else None
    while True:
        msg = await c.next()
        if msg is None:
            return got + [{"closed": True}]
        got.append(msg)
        if rid is not None and msg.get("id") == rid:
            c.close()
            return got


def _frame(obj) -> bytes:
    body = json.dumps(obj).encode() if not isinstance(obj, bytes) else obj
    return struct.pack(">I", len(body)) + body


def test_bad_input_is_refused_and_the_table_goes_on(tmp_path):
    async def run():
        async with running(tmp_path) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            tid = (await a.ask("create", **two_humans_two_ai()))["table"]
            ja = await a.ask("join", table=tid)
            b, jb = await seated(port, tid, "Bob")
            table = server.tables[tid]
            await asyncio.sleep(0.2)
            before = (table.live.version, list(table.game.history), table.game.state)

            # before hello: refused
            c = await Raw(port).connect()
            assert (await c.ask("list"))["code"] == "hello_first"
            assert (await c.ask("hello", v=2, name="Old", lang="en"))["code"] == "bad_version"
            await c.hello("Now")
            assert (await c.ask("hello", v=1, name="Again", lang="en"))["code"] == "hello_twice"
            c.close()

            # garbage in a frame: refused, the connection goes on
            got = await _bad(port, _frame(os.urandom(200)))
            assert got[0]["code"] == "bad_frame" and got[-1]["t"] == "ok"
            got = await _bad(port, _frame(b"[1, 2]") + _frame(b'{"t": "list", "id": 1, "id": 2}'))
            assert [m["params"]["why"] for m in got[:2]] == ["not_object", "duplicate_key"]
            # valid JSON of the wrong shape
            for obj, field in (({"t": "submit", "id": 5, "table": tid,
                                 "action": {"type": "Pick", "seat": "0", "card": "x"}}, "action.seat"),
                               ({"t": "submit", "id": 6, "table": tid}, "action"),
                               ({"t": "join", "id": 7, "table": tid, "seat": True}, "seat"),
                               ({"t": "create", "id": 8, "seats": [{"kind": "open"}]}, "seats"),
                               ({"t": "chat", "id": 9, "table": tid, "text": "a\x1b[2Jb"}, "text"),
                               ({"t": "steal", "id": 10}, "t"), ({"t": "list"}, "id"),
                               ({"t": "list", "id": 11, "extra": 1}, "extra")):
                got = await _bad(port, _frame(obj))
                assert got[0]["code"] == "bad_message" and got[0]["params"]["field"] == field, got
            # ids must increase
            got = await _bad(port, _frame({"t": "list", "id": 0}))
            assert got[0]["code"] == "bad_id"
            # actions for another seat, and from a watcher
            legal = table.game.observe(2).legal
            for_bob = action_to_wire(legal[0]) if legal else {"type": "Pass", "seat": 2}
            answer = await a.ask("submit", table=tid, action=for_bob)
            assert answer["code"] == "not_your_seat"
            w = await Raw(port).connect()
            await w.hello("Watcher")
            await w.ask("watch", table=tid)
            assert (await w.ask("submit", table=tid, action=for_bob))["code"] == "not_seated"
            assert (await w.ask("undo", table=tid))["code"] == "not_seated"
            w.close()
            # a truncated frame: closed
            got = await _bad(port, struct.pack(">I", 100) + b'{"t": "li', then_close=True)
            assert got[-1] == {"closed": True}
            # a 100 MB length header: refused at once and closed (no body was sent)
            got = await _bad(port, struct.pack(">I", 100 * 1024 * 1024))
            assert got[0]["code"] == "frame_too_large" and {"t": "bye", "code": "too_many_errors"} in got
            assert got[-1] == {"closed": True}
            # an HTTP request is not a frame either
            got = await _bad(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            assert got[-1] == {"closed": True}
            # a flood of bad frames: refused, then bye and closed
            got = await _bad(port, b"".join(_frame(b"nope") for _ in range(40)))
            assert {"t": "bye", "code": "too_many_errors"} in got and got[-1] == {"closed": True}
            assert sum(1 for m in got if m.get("t") == "refused") == 20

            # the table is unchanged, and the seated players are still served
            assert (table.live.version, list(table.game.history), table.game.state) == before
            assert len(server.connections) >= 2
            listed = await b.ask("list")
            assert any(t.table == tid for t in listed["tables"])
            legal = table.game.observe(0).legal
            answer = await a.ask("submit", table=tid, action=action_to_wire(legal[0]))
            assert answer["t"] == "ok" and answer["version"] == before[0] + 1
            chat = await b.ask("chat", table=tid, text="hello ＡＢＣ")
            assert chat["t"] == "ok"
            while not any(m.get("t") == "chat" for m in a.inbox):
                a.inbox.append(await a._read())
            line = next(m for m in a.inbox if m.get("t") == "chat")
            assert line == {"t": "chat", "table": tid, "seat": 2, "name": "Bob", "text": "hello ＡＢＣ"}
            for x in (a, b):
                x.close()
    asyncio.run(run())


def test_private_tables_need_their_code(tmp_path):
    async def run():
        async with running(tmp_path) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            made = await a.ask("create", private=True, **two_humans_two_ai())
            code, tid = made["code"], made["table"]
            assert isinstance(code, str) and len(code) == 6
            assert (await a.ask("join", table=tid))["code"] == "bad_code"
            assert (await a.ask("watch", table=tid, code="WRONG1"))["code"] == "bad_code"
            assert (await a.ask("join", table=tid, code=code.lower()))["seat"] == 0
            listed = await a.ask("list")
            assert next(t for t in listed["tables"] if t.table == tid).private
            meta = (tmp_path / f"{tid}.table.json").read_text()
            assert code not in meta
            a.close()
    asyncio.run(run())


# ------------------------------------------------------------------ restart: the table resumes

def _start_host(folder: Path) -> tuple[subprocess.Popen, int]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TACTICAL_HOST_DIR=str(folder.parent),
               TACTICAL_SAVE_DIR=str(folder.parent / "saves"))
    proc = subprocess.Popen([sys.executable, "-m", "tactical_tui.cli", "--lang", "en", "host",
                             "--port", "0", "--dir", str(folder), "--workers", "1",
                             "--ai-delay", "0"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    line = proc.stdout.readline()
    found = re.search(r"127\.0\.0\.1:(\d+)", line)
    assert found, line
    return proc, int(found.group(1))


def _kill(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)         # the host and its AI worker, by id
    proc.wait(30)


def test_the_host_is_killed_and_the_table_resumes(tmp_path):
    folder = tmp_path / "tables"
    proc, port = _start_host(folder)
    try:
        async def first():
            a = await Raw(port).connect()
            await a.hello("Ann")
            tid = (await a.ask("create", seats=[{"kind": "open"}, {"kind": "ai", "level": "easy"},
                                                {"kind": "ai", "level": "easy"}]))["table"]
            joined = await a.ask("join", table=tid)
            last = await asyncio.wait_for(play(a, tid, 0, random.Random(8),
                                               stop=lambda c: c.updates[-1].version >= 40), 120)
            return tid, joined["token"], last.version
        tid, token, version = asyncio.run(first())
    finally:
        _kill(proc)
    proc, port = _start_host(folder)
    try:
        async def second():
            a, again = await seated(port, tid, "Ann", token=token)
            assert again["t"] == "ok" and again["seat"] == 0
            while not a.updates:
                a.inbox.append(await a._read())
            resumed = a.updates[0]
            assert resumed.reset and resumed.version >= version - 1    # at most the last one lost
            assert len(resumed.entries) > 10                            # the whole log again
            listed = await a.ask("list")
            info = next(t for t in listed["tables"] if t.table == tid)
            assert info.seats[0].status == "connected" and info.seats[0].name == "Ann"
            last = await asyncio.wait_for(play(a, tid, 0, random.Random(9)), 300)
            assert last.over
            a.close()
        asyncio.run(second())
    finally:
        _kill(proc)


# ------------------------------------------------------------------ framing, requests, the pool

def test_frames_are_limited_before_their_body_is_read():
    async def run():
        r = asyncio.StreamReader()
        r.feed_data(struct.pack(">I", P.MAX_CLIENT_FRAME + 1))
        with pytest.raises(P.FrameTooLarge):
            await P.read_frame(r, P.MAX_CLIENT_FRAME)
        r = asyncio.StreamReader()
        r.feed_data(P.encode_frame({"t": "list", "id": 1}) + b"\x00\x00")
        r.feed_eof()
        assert await P.read_frame(r, P.MAX_CLIENT_FRAME) == {"t": "list", "id": 1}
        with pytest.raises(P.FrameTruncated):
            await P.read_frame(r, P.MAX_CLIENT_FRAME)
        r = asyncio.StreamReader()
        r.feed_eof()
        assert await P.read_frame(r, P.MAX_CLIENT_FRAME) is None
        for body, why in ((b"\xff\xfe", "not_utf8"), (b"{", "not_json"), (b"NaN", "not_json"),
                          (b"[" * 100000, "too_deep"), (b'"x"', "not_object"), (b"", "empty"),
                          (b"{\"a\": " + b"9" * 5000 + b"}", "huge_number")):
            with pytest.raises(P.BadFrame) as info:
                P.decode_body(body)
            assert info.value.why == why
        with pytest.raises(P.FrameTooLarge):
            P.encode_frame({"x": "y" * 100}, limit=50)
    asyncio.run(run())


def test_requests_are_typed_or_refused():
    req = P.parse_request({"t": "create", "id": 3, "seats": [{"kind": "open"}] * 2 +
                           [{"kind": "ai", "level": "hard"}], "clock": 30, "grace": 0})
    assert req == P.Create(3, (P.SeatSpec("open"),) * 2 + (P.SeatSpec("ai", "hard"),),
                           clock=30.0, grace=0.0)
    assert P.parse_request({"t": "join", "id": 4, "table": "ab", "seat": None}) == P.Join(4, "ab")
    for bad, field in (({"t": "hello", "id": 1, "v": 1, "name": " Ann", "lang": "en"}, "name"),
                       ({"t": "hello", "id": 1, "v": 1, "name": "A" * 25, "lang": "en"}, "name"),
                       ({"t": "hello", "id": 1, "v": 1, "name": "Ann", "lang": "fr"}, "lang"),
                       ({"t": "create", "id": 1, "seats": [{"kind": "open"}] * 6}, "seats"),
                       ({"t": "create", "id": 1, "seats": [{"kind": "open"}] * 3, "clock": 1}, "clock"),
                       ({"t": "create", "id": 1, "seats": [{"kind": "open"}] * 3,
                         "grace": float("inf")}, "grace"),
                       ({"t": "chat", "id": 1, "table": "a", "text": "字" * 101}, "text"),
                       ({"t": "chat", "id": 1, "table": "a", "text": "a\nb"}, "text"),
                       ({"t": "chat", "id": 1, "table": "a", "text": "\u202eevil"}, "text"),
                       ({"t": "list", "id": -1}, "id"), ({"t": "list", "id": True}, "id")):
        with pytest.raises(P.BadRequest) as info:
            P.parse_request(bad)
        assert info.value.code == "bad_message" and info.value.params["field"] == field, bad
    assert P.chat_text("字" * 100) == "字" * 100


def test_error_budget_counts_a_minute():
    now = [0.0]
    budget = P.ErrorBudget(limit=3, window=60.0, clock=lambda: now[0])
    assert not budget.strike() and not budget.strike()
    now[0] = 61.0
    assert not budget.strike() and not budget.strike()
    assert budget.strike()


def test_an_ai_decision_in_a_process_pool_is_the_one_made_here():
    """The pool gets the packed player and the observation only; the decision and the
    player's state afterwards are the same as deciding in this process."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from ai import make_player
    from rules.cards import default_cards
    from tactical_tui.net.aipool import init_worker
    cards = default_cards()
    state, _ = new_game(Config(players=4), cards, 21)
    obs = observe(state, 1)
    here = make_player("normal", 5, cards)
    blob = pack(here)
    assert len(blob) < 20000                      # the card data goes by reference
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                             initializer=init_worker, initargs=(None,)) as pool:
        action, reason, after = pool.submit(decide, blob, obs).result(WAIT)
    mine = here.choose_explained(obs, obs.legal)
    assert (action, reason) == mine
    assert unpack(after).memory() == here.memory()
    assert unpack(after).cards is cards


def test_ai_seats_think_in_the_executor_and_a_broken_pool_is_replaced(tmp_path):
    """An all-AI table plays to its end through the executor (the player packed and
    unpacked each decision); a pool that breaks is replaced by the factory's."""
    from concurrent.futures import BrokenExecutor, ThreadPoolExecutor

    class Broken(ThreadPoolExecutor):
        def submit(self, *args, **kwargs):
            raise BrokenExecutor("a worker died")

    made: list = []

    def factory():
        made.append(ThreadPoolExecutor(1))
        return made[-1]

    async def run():
        async with running(tmp_path, executor=Broken(1), pool_factory=factory) as (server, port):
            table, _ = server.create(P.Create(1, (P.SeatSpec("ai", "easy"),) * 3))
            while not table.game.over:
                await asyncio.sleep(0.01)
            assert len(made) == 1 and server.executor is made[0]
            assert len(table.game.history) > 50
            made[0].shutdown()
    asyncio.run(asyncio.wait_for(run(), 300))


def test_stopping_says_bye_and_keeps_every_table(tmp_path):
    async def run():
        async with running(tmp_path) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            tid = (await a.ask("create", **two_humans_two_ai()))["table"]
            await a.ask("join", table=tid)
            table = server.tables[tid]
            await asyncio.sleep(0.1)
            version = table.live.version
            await server.stop()
            assert {"t": "bye", "code": "server_stopping"} in await a.until_closed()
        again = Server(tmp_path, ai_delay=0)
        await again.start("127.0.0.1", 0)
        try:
            assert again.tables[tid].live.version >= version
            assert again.tables[tid].slots[0].status == "disconnected"
        finally:
            await again.stop()
    asyncio.run(run())


@pytest.mark.parametrize("where", ["before", "after"])
def test_host_takes_lang_before_or_after_the_sub_command(tmp_path, capsys, where):
    """`tactical --lang ja host` and `tactical host --lang ja` (as `join` takes it) both
    speak Japanese: here the message of a folder another host already serves."""
    from tactical_tui.cli import main
    busy = Server(tmp_path)
    busy.lock_folder()
    args = ["host", "--dir", str(tmp_path), "--port", "0", "--workers", "0"]
    args = (["--lang", "ja"] + args) if where == "before" else (args + ["--lang", "ja"])
    try:
        assert main(args) == 2
    finally:
        busy._lock.close()
    assert f"別の tactical host が {tmp_path} を使っています" in capsys.readouterr().err


def test_a_finished_table_stays_listed_as_over_then_is_archived(tmp_path):
    """A table whose game is over stays in the list ("over": its players read the game
    over screen, the lobby shows the result) for the server's `finished_keep`, then
    leaves the list; its save and sidecar move to `finished/` (kept, never resumed).
    A restarted host archives a finished table it finds at once."""
    async def run():
        async with running(tmp_path, finished_keep=1.0) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            tid = (await a.ask("create", seats=[{"kind": "ai", "level": "random"}] * 3))["table"]
            await a.ask("watch", table=tid)
            while not (a.updates and a.updates[-1].over):
                assert await a.next() is not None
            listed = (await a.ask("list"))["tables"]
            assert [t.over for t in listed if t.table == tid] == [True]
            for _ in range(600):
                if tid not in server.tables and (tmp_path / "finished" / f"{tid}.json").exists():
                    break
                await asyncio.sleep(0.05)
            assert [t for t in (await a.ask("list"))["tables"] if t.table == tid] == []
            assert (tmp_path / "finished" / f"{tid}.table.json").exists()
            assert not (tmp_path / f"{tid}.json").exists()
            assert (await a.ask("watch", table=tid))["code"] == "no_table"
            a.close()
        # a finished table left in the folder (the host stopped before it was archived)
        for name in (f"{tid}.json", f"{tid}.table.json"):
            os.replace(tmp_path / "finished" / name, tmp_path / name)
        async with running(tmp_path) as (server, port):
            assert tid not in server.tables
            assert (tmp_path / "finished" / f"{tid}.json").exists()
            assert not (tmp_path / f"{tid}.table.json").exists()
    asyncio.run(run())


# ------------------------------------------------ ending by agreement (issue 29, RULINGS R19)

async def pump(c: Raw, cond, timeout: float = WAIT) -> None:
    """Read `c`'s frames (kept in its inbox) until `cond()` holds."""
    async def go():
        while not cond():
            msg = await c._read()
            assert msg is not None, "closed"
            c.inbox.append(msg)
    await asyncio.wait_for(go(), timeout)


def test_a_hosted_game_ends_by_agreement_of_every_seated_player(tmp_path):
    """RULINGS R19: the rules end a game only at 5 VP; at a table server each seated
    player agrees with `end` — both must (the AI seat agrees) — and the game is over with
    no winner; before the battle it is refused, and a spectator cannot vote."""
    from ai import make_player

    async def run():
        async with running(tmp_path) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            tid = (await a.ask("create", seats=[{"kind": "open"}, {"kind": "open"},
                                                {"kind": "ai", "level": "easy"}]))["table"]
            assert (await a.ask("join", table=tid, seat=0))["t"] == "ok"
            b, answer = await seated(port, tid, "Bob", seat=1)
            assert answer["t"] == "ok"
            w = await Raw(port).connect()
            await w.hello("Wat")
            assert (await w.ask("watch", table=tid))["t"] == "ok"
            no = await a.ask("end", table=tid)
            assert no["t"] == "refused" and no["code"] == "end_not_now"
            table = server.tables[tid]
            bots = {s: make_player("normal", s, table.game.cards) for s in (0, 1)}
            for _ in range(3000):                       # both players' choices, in-process
                if table.game.state.phase == "battle":
                    break
                d = table.game.pending()
                mine = [s for s in d.seats if s in bots]
                if not mine:
                    await asyncio.sleep(0.01)          # the AI seat thinks
                    continue
                obs = table.game.observe(mine[0])
                table.live.submit(mine[0], bots[mine[0]].choose(obs, obs.legal))
                await asyncio.sleep(0)
            assert table.game.state.phase == "battle"
            no = await w.ask("end", table=tid)
            assert no["t"] == "refused" and no["code"] == "not_seated"
            assert (await a.ask("end", table=tid))["t"] == "ok"
            assert not table.game.over and table.live.end_votes == {0}
            await pump(b, lambda: b.updates and b.updates[-1].end_votes == (0,))
            assert (await a.ask("end", table=tid, agree=False))["t"] == "ok"
            assert (await b.ask("end", table=tid))["t"] == "ok"
            assert not table.game.over
            assert (await a.ask("end", table=tid))["t"] == "ok"
            assert table.game.over and table.game.ended == "agreement"
            await pump(w, lambda: w.updates and w.updates[-1].over)
            assert w.updates[-1].ended == "agreement"
            assert w.updates[-1].observation.winners == ()
    asyncio.run(run())
