"""Issue 30 findings 4, 5, 6, 9 and its chat items: the table server serves every
connection fairly (docs/PROTOCOL.md "Fair service"). Every request kind is rate-limited per
connection and per peer, a connection's burst of frames does not hold up the others, a
slow reader at no seat is dropped sooner than a seated one, tables are limited per peer and
retired when nobody plays them, finished ones leave the list, the AI pool serves tables
with humans first, a peer's refusals and code guesses are logged once a while, and chat
says whose every line is.

In process, on loopback (this machine: one peer), with small limits and an injected clock
where a rate is counted — no test asserts a time; waits have generous timeouts only.
"""

from __future__ import annotations

import asyncio
import logging
import socket

import pytest

from tactical_tui.net import protocol as P
from tactical_tui.net.aipool import AIQueue
from tactical_tui.net.limits import LOCAL, PeerLog, TokenBucket
from tactical_tui.net.server import Server

from test_net_limits import _until
from test_net_server import Raw, running

THREE_OPEN = dict(seats=[{"kind": "open"}] * 3)
ALL_RANDOM_AI = dict(seats=[{"kind": "ai", "level": "random"}] * 3)


class Clock:
    """A clock the test moves (the rate limits and the peer log read it)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# ------------------------------------------------------------------ finding 4: rate limits

def test_a_token_bucket_spends_and_refills():
    clock = Clock()
    b = TokenBucket(2.0, 4.0, clock)
    assert [b.take() for _ in range(5)] == [True] * 4 + [False]
    assert b.wait() == pytest.approx(0.5)
    clock.now += 0.5
    assert b.take() and not b.take()
    clock.now += 100
    assert b.full() and b.take(4) and not b.has(1)
    assert TokenBucket(0, 0, clock).take(1000)            # rate 0: no limit


@pytest.mark.parametrize("kind,fields", [
    ("ping", {}), ("list", {}), ("cards", {}), ("watch", {"table": "?"}),
    ("leave", {"table": "?"}), ("chat", {"table": "?", "text": "hi"}),
    ("join", {"table": "?"}), ("create", THREE_OPEN)])
def test_every_request_kind_is_rate_limited_per_connection(tmp_path, kind, fields):
    """The clock stands still: a connection's bucket (rate 5, a burst of 10 tokens) is
    spent by its requests, whatever their kind, and the next one is refused
    `rate_limited` with the time to wait — not counted as bad input, the connection
    stays; once the clock moves on it is served again."""
    clock = Clock()

    async def run():
        async with running(tmp_path, rate=5, clock=clock, tables_per_local=1000) as (server, port):
            c = await Raw(port).connect()
            await c.hello("Ann")                                  # 1 token
            clock.now += 100                                      # full again
            tid = (await c.ask("create", **THREE_OPEN))["table"] if kind != "create" else "?"
            clock.now += 100
            fields_ = {k: (tid if v == "?" else v) for k, v in fields.items()}
            codes = []
            for _ in range(12):
                answer = await c.ask(kind, **fields_)
                codes.append(answer.get("code", "ok") if answer["t"] == "refused" else "ok")
                if answer.get("code") == "rate_limited":
                    assert answer["params"]["retry"] > 0
                    break
            assert codes[-1] == "rate_limited", codes
            assert len(codes) <= 11                                # a burst of 10, each costs >= 1
            clock.now += 100
            assert (await c.ask("ping"))["t"] == "ok"              # served again, still connected
            c.close()
    asyncio.run(run())


def test_a_peers_connections_share_its_rate(tmp_path):
    """This machine's share (local_rate) is spent by one connection: another connection
    from here is refused `rate_limited` at once, though its own bucket is full."""
    clock = Clock()

    async def run():
        async with running(tmp_path, rate=1000, local_rate=5, clock=clock) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            b = await Raw(port).connect()
            await b.hello("Bob")                   # 2 of the peer's 10 tokens spent
            for _ in range(8):
                assert (await a.ask("ping"))["t"] == "ok"
            refused = await b.ask("ping")
            assert refused["t"] == "refused" and refused["code"] == "rate_limited"
            assert server.peer_buckets[LOCAL] is next(iter(server.connections)).peer_bucket
            a.close()
            b.close()
    asyncio.run(run())


def test_one_connections_burst_does_not_hold_up_the_others(tmp_path, monkeypatch):
    """200 frames written at once by one connection sit in the server's reader together;
    another connection's `ping`, sent once the first of them was handled, is handled
    before the 200th (the handler yields to the event loop between frames)."""
    async def run():
        async with running(tmp_path, rate=0, local_rate=0) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            b = await Raw(port).connect()
            await b.hello("Bob")
            order = []
            dispatch = Server.dispatch

            def recording(self, conn, req):
                order.append(conn.name)
                return dispatch(self, conn, req)
            monkeypatch.setattr(Server, "dispatch", recording)
            a.w.write(b"".join(P.encode_frame({"t": "ping", "id": 10 + i}) for i in range(200)))
            while not order:                     # the loop's next turns, not a time
                await asyncio.sleep(0)
            b.w.write(P.encode_frame({"t": "ping", "id": 10}))
            assert (await b.answer(10))["t"] == "ok"
            await a.answer(209)
            assert len(order) == 201 and order.index("Bob") < 200, order.index("Bob")
            a.close()
            b.close()
    asyncio.run(run())


# ------------------------------------------------------------------ finding 5: the send queue

async def _not_reading(port: int, server) -> tuple[Raw, object]:
    """A client that will not read: small socket buffers on both ends, so that what the
    server sends it waits in the server's transport."""
    c = Raw(port)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    c.r, c.w = await asyncio.open_connection(sock=sock)
    name = f"n{len(server.connections)}"
    await c.hello(name)
    conn = next(x for x in server.connections if x.name == name)
    conn.writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    return c, conn


def test_a_reader_at_no_seat_is_dropped_sooner_than_a_seated_one(tmp_path):
    """Two clients stop reading and ask for the 64 KB card data 6 times: the one in the
    lobby is dropped once more than 128 KiB wait for it (what it holds is bounded: the
    limit and one frame); the seated one, whose limit is 2 MiB, is still served."""
    async def run():
        async with running(tmp_path, rate=0, local_rate=0, queued=128 * 1024,
                           queued_seated=2 * 1024 * 1024) as (server, port):
            lobby, lconn = await _not_reading(port, server)
            seated, sconn = await _not_reading(port, server)
            tid = (await seated.ask("create", **THREE_OPEN))["table"]
            assert (await seated.ask("join", table=tid))["t"] == "ok"
            most = {lconn: 0, sconn: 0}
            send_frame = type(lconn).send_frame

            def measured(self, frame):
                if self in most:
                    most[self] = max(most[self], self.writer.transport.get_write_buffer_size())
                send_frame(self, frame)
            type(lconn).send_frame = measured
            try:
                for c in (lobby, seated):
                    for _ in range(6):
                        await c.send("cards")
                await _until(lambda: lconn not in server.connections)
                await _until(lambda: sconn.writer.transport.get_write_buffer_size() > 128 * 1024)
            finally:
                type(lconn).send_frame = send_frame
            assert lconn.closing and not sconn.closing and sconn in server.connections
            assert most[lconn] <= 128 * 1024 + 70 * 1024          # the limit and one frame
            lobby.close()
            seated.close()
    asyncio.run(run())


# ------------------------------------------------------------------ finding 6: tables

def test_table_creation_is_limited_per_peer_not_per_connection(tmp_path):
    """This machine may have created 3 unfinished tables: a 4th is refused on the
    connection that made them and on another one from here; the host's own limit
    still holds when the peer's is larger."""
    async def run():
        async with running(tmp_path, max_tables=5, tables_per_local=3, rate=0,
                           local_rate=0) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            for _ in range(3):
                assert (await a.ask("create", **THREE_OPEN))["t"] == "ok"
            b = await Raw(port).connect()
            await b.hello("Bob")
            for c in (a, b):
                refused = await c.ask("create", **THREE_OPEN)
                assert refused["code"] == "too_many_tables" and refused["params"] == {"limit": 3}
            server.tables_per_local = 10
            for _ in range(2):
                assert (await b.ask("create", **THREE_OPEN))["t"] == "ok"
            refused = await b.ask("create", **THREE_OPEN)
            assert refused["code"] == "too_many_tables" and refused["params"] == {"limit": 5}
            assert {t.peer for t in server.tables.values()} == {LOCAL}
            assert len((await a.ask("list"))["tables"]) == 5          # not counted as bad input
            a.close()
            b.close()
    asyncio.run(run())


def test_grace_is_capped_at_the_lobbys_largest():
    """The protocol takes no longer grace than the lobby's form offers (a raw client
    asked for a day)."""
    from tactical_tui.screens.online.words import GRACES
    assert max(GRACES) == P.GRACE_MAX
    ok = P.parse_request({"t": "create", "id": 1, **THREE_OPEN, "grace": P.GRACE_MAX})
    assert ok.grace == P.GRACE_MAX
    for grace in (P.GRACE_MAX + 1, 86400):
        with pytest.raises(P.BadRequest) as bad:
            P.parse_request({"t": "create", "id": 1, **THREE_OPEN, "grace": grace})
        assert bad.value.code == "bad_message" and bad.value.params == {"field": "grace"}


def test_an_unfinished_table_with_nobody_seated_is_retired_and_its_save_kept(tmp_path):
    """Two tables: at one a player is seated, the other's player left. The one nobody
    plays is retired after retire_after (its save and sidecar moved to retired/); the
    one with a player stays."""
    async def run():
        async with running(tmp_path, retire_after=0.3) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            kept = (await a.ask("create", **THREE_OPEN))["table"]
            assert (await a.ask("join", table=kept))["t"] == "ok"
            b = await Raw(port).connect()
            await b.hello("Bob")
            gone = (await b.ask("create", **THREE_OPEN))["table"]
            assert (await b.ask("join", table=gone))["t"] == "ok"
            assert (await b.ask("leave", table=gone))["t"] == "ok"
            await _until(lambda: gone not in server.tables)
            await _until(lambda: (tmp_path / "retired" / f"{gone}.json").exists())
            assert (tmp_path / "retired" / f"{gone}.table.json").exists()
            assert not (tmp_path / f"{gone}.json").exists()
            assert kept in server.tables and (tmp_path / f"{kept}.json").exists()
            assert (await b.ask("join", table=gone))["code"] == "no_table"
            a.close()
            b.close()
    asyncio.run(run())


def test_a_restart_keeps_who_created_a_table_and_cuts_a_days_grace(tmp_path):
    """A table's creator (its peer) is in its sidecar: after a restart the peer's tables
    still count against its share. A sidecar from before the cap, with a grace of a day,
    is resumed with the cap's grace. A retired table is not resumed."""
    import json

    async def run():
        async with running(tmp_path, tables_per_local=3, rate=0, local_rate=0,
                           retire_after=0.2) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            made = [(await a.ask("create", **THREE_OPEN))["table"] for _ in range(3)]
            assert (await a.ask("join", table=made[0]))["t"] == "ok"
            assert (await a.ask("join", table=made[1]))["t"] == "ok"
            await _until(lambda: made[2] not in server.tables)       # nobody sat there
            a.close()
        meta = tmp_path / f"{made[0]}.table.json"
        data = json.loads(meta.read_text())
        assert data["peer"] == LOCAL
        meta.write_text(json.dumps({**data, "grace": 86400}))
        async with running(tmp_path, tables_per_local=2, rate=0, local_rate=0) as (server, port):
            assert set(server.tables) == set(made[:2])
            assert server.tables[made[0]].grace == P.GRACE_MAX
            b = await Raw(port).connect()
            await b.hello("Bob")
            refused = await b.ask("create", **THREE_OPEN)
            assert refused["code"] == "too_many_tables" and refused["params"] == {"limit": 2}
            b.close()
    asyncio.run(run())


def test_finished_tables_leave_the_list_beyond_the_newest_ones(tmp_path):
    """Three all-AI tables play to the end; with finished_listed 1 only the one that
    finished last stays listed, the others are archived at once (not after
    finished_keep, ten minutes)."""
    async def run():
        async with running(tmp_path, finished_listed=1) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            made = [(await a.ask("create", **ALL_RANDOM_AI))["table"] for _ in range(3)]
            over = []

            def finished() -> bool:
                for tid in made:
                    t = server.tables.get(tid)
                    if tid not in over and (t is None or t.game.over):
                        over.append(tid)
                return len(over) == 3
            await _until(finished, 120)
            await _until(lambda: len(server.tables) == 1)
            listed = (await a.ask("list"))["tables"]
            assert [t.table for t in listed] == [over[-1]] and listed[0].over
            for tid in over[:-1]:
                await _until(lambda: (tmp_path / "finished" / f"{tid}.json").exists())
            a.close()
    asyncio.run(run())


def test_the_ai_pool_serves_tables_with_humans_first():
    """One turn in the pool: while it is taken, two all-AI tables' decisions wait, then a
    table with a player seated asks — it goes next, before them."""
    async def run():
        queue = AIQueue(1)
        got = []

        async def decide(name: str, priority: int, hold: asyncio.Event) -> None:
            await queue.acquire(priority)
            got.append(name)
            await hold.wait()
            queue.release()
        first = asyncio.Event()
        events = {n: asyncio.Event() for n in ("ai1", "ai2", "human")}
        for e in events.values():
            e.set()
        tasks = [asyncio.create_task(decide("busy", 1, first))]
        await asyncio.sleep(0)
        for name, prio in (("ai1", 1), ("ai2", 1), ("human", 0)):
            tasks.append(asyncio.create_task(decide(name, prio, events[name])))
            await asyncio.sleep(0)
        first.set()
        await asyncio.gather(*tasks)
        assert got == ["busy", "human", "ai1", "ai2"]
        assert queue.busy == 0
    asyncio.run(run())


def test_the_server_asks_the_pool_with_its_tables_priority(tmp_path, monkeypatch):
    """Server.think puts a table with a human seated (connected) before the others."""
    async def run():
        async with running(tmp_path, ai_slots=1) as (server, port):
            seen, gate = [], asyncio.Event()

            async def fake(self, player, obs):
                seen.append(player)
                await gate.wait()
                return None, None, player
            monkeypatch.setattr(Server, "_think", fake)

            class Table:
                def __init__(self, humans):
                    self.humans = humans

                def has_humans(self):
                    return self.humans
            tasks = [asyncio.create_task(server.think(name, None, Table(name == "human")))
                     for name in ("first", "ai1", "ai2", "human")]
            await _until(lambda: seen == ["first"])
            gate.set()
            await asyncio.gather(*tasks)
            assert seen == ["first", "human", "ai1", "ai2"]
    asyncio.run(run())


# ------------------------------------------------------------------ finding 9 and code guessing

def test_a_peers_refusals_are_logged_once_a_while_with_their_count(tmp_path, caplog):
    """15 wrong join codes from one connection: one log line at once, the rest counted
    (the peer log's clock stands still); when it moves on, the next line says how many
    were held back. A hello is not an INFO line."""
    clock = Clock()

    async def run():
        async with running(tmp_path, clock=clock, code_guesses=1000, rate=0,
                           local_rate=0) as (server, port):
            owner = await Raw(port).connect()
            await owner.hello("Owner")
            tid = (await owner.ask("create", **THREE_OPEN, private=True))["table"]
            caplog.clear()
            with caplog.at_level(logging.INFO, logger="tactical.host"):
                g = await Raw(port).connect()
                await g.hello("Guess")
                for i in range(15):
                    assert (await g.ask("watch", table=tid, code=f"X{i}"))["code"] == "bad_code"
                lines = [r.getMessage() for r in caplog.records]
                assert len([x for x in lines if "refused" in x]) == 1, lines
                assert not [x for x in lines if "hello" in x]
                clock.now += 61
                assert (await g.ask("watch", table=tid, code="Y"))["code"] == "bad_code"
            said = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
            assert len(said) == 2 and "14 bad_code" in said[1], said
            owner.close()
            g.close()
    asyncio.run(run())


def test_the_peer_log_forgets_peers_and_says_what_it_held_back(caplog):
    clock = Clock()
    plog = PeerLog(60.0, clock)
    plog.KEEP = 2
    with caplog.at_level(logging.INFO, logger="tactical.host"):
        for peer in ("a", "a", "a", "b", "c"):
            plog.say(peer, "bad_code", logging.INFO, "%s: refused", peer)
        clock.now += 61
        plog.say("d", "bad_code", logging.INFO, "%s: refused", "d")
    lines = [r.getMessage() for r in caplog.records]
    assert lines.count("a: refused") == 1 and "a: 2 bad_code" in lines
    assert len(plog.peers) <= 2


def test_join_codes_are_guessed_at_a_bounded_rate_per_peer(tmp_path):
    """Five wrong codes a minute from this machine: after them, a sixth try from another
    connection — with the right code — is refused `too_many_guesses` (no code is checked
    while the peer is over); once the minute has passed, the right code works."""
    clock = Clock()

    async def run():
        async with running(tmp_path, clock=clock, code_guesses=5) as (server, port):
            owner = await Raw(port).connect()
            await owner.hello("Owner")
            made = await owner.ask("create", **THREE_OPEN, private=True)
            tid, code = made["table"], made["code"]
            g = await Raw(port).connect()
            await g.hello("Guess")
            for i in range(5):
                assert (await g.ask("join", table=tid, code=f"WRONG{i}"))["code"] == "bad_code"
            h = await Raw(port).connect()
            await h.hello("Honest")
            refused = await h.ask("watch", table=tid, code=code)
            assert refused["code"] == "too_many_guesses" and refused["params"]["retry"] > 0
            clock.now += 60
            assert (await h.ask("watch", table=tid, code=code))["t"] == "ok"
            for c in (owner, g, h):
                c.close()
    asyncio.run(run())


# ------------------------------------------------------------------ chat

def test_chat_names_are_unique_per_table_and_every_line_says_seat_or_spectator(tmp_path):
    """Ann sits at seat 0; a spectator who also says hello as "Ann" is "Ann (2)" at this
    table, and its lines carry no seat — it cannot pass for the seated Ann. A second
    seated "Ann" is "Ann (3)" in the seats list."""
    async def run():
        async with running(tmp_path) as (server, port):
            ann = await Raw(port).connect()
            await ann.hello("Ann")
            tid = (await ann.ask("create", **THREE_OPEN))["table"]
            assert (await ann.ask("join", table=tid, seat=0))["t"] == "ok"
            fake = await Raw(port).connect()
            await fake.hello("Ann")
            assert (await fake.ask("watch", table=tid))["t"] == "ok"
            assert (await fake.ask("chat", table=tid, text="I am Ann"))["t"] == "ok"
            assert (await ann.ask("chat", table=tid, text="me too"))["t"] == "ok"
            chats = []
            while len(chats) < 2:
                msg = await ann.next()
                if msg["t"] == "chat":
                    chats.append({k: msg[k] for k in ("seat", "name", "text")})
            assert chats == [{"seat": None, "name": "Ann (2)", "text": "I am Ann"},
                             {"seat": 0, "name": "Ann", "text": "me too"}]
            other = await Raw(port).connect()
            await other.hello("Ann")
            assert (await other.ask("join", table=tid, seat=1))["t"] == "ok"
            info = (await ann.ask("list"))["tables"][0]
            assert [s.name for s in info.seats] == ["Ann", "Ann (3)", None]
            for c in (ann, fake, other):
                c.close()
    asyncio.run(run())


def test_a_tables_spectators_share_one_chat_limit(tmp_path):
    """Three lines in 10 s from all spectators of a table (the clock stands still): the
    fourth spectator is refused `chat_busy` (not counted as bad input); a seated player
    still chats."""
    clock = Clock()

    async def run():
        async with running(tmp_path, clock=clock, spectator_chat=3) as (server, port):
            ann = await Raw(port).connect()
            await ann.hello("Ann")
            tid = (await ann.ask("create", **THREE_OPEN))["table"]
            assert (await ann.ask("join", table=tid))["t"] == "ok"
            watchers = []
            for i in range(4):
                w = await Raw(port).connect()
                await w.hello(f"W{i}")
                assert (await w.ask("watch", table=tid))["t"] == "ok"
                watchers.append(w)
            answers = [await w.ask("chat", table=tid, text="hi") for w in watchers]
            assert [a["t"] for a in answers] == ["ok", "ok", "ok", "refused"]
            assert answers[3]["code"] == "chat_busy"
            assert (await ann.ask("chat", table=tid, text="hello"))["t"] == "ok"
            clock.now += 10
            assert (await watchers[3].ask("chat", table=tid, text="hi"))["t"] == "ok"
            for c in (ann, *watchers):
                c.close()
    asyncio.run(run())


def test_chat_lines_are_capped_in_clusters_cells_and_marks():
    """A line of 60 KB of combining marks (one cell wide) is refused, and so is a line of
    more than 8 marks in a row; Vietnamese and Japanese with their marks pass; 200
    clusters of a letter and a mark pass, 201 do not."""
    zalgo = "a" + "\u0301" * 30000
    assert len(zalgo.encode()) > 60000
    assert P.chat_problem(zalgo) == "marks"
    assert P.chat_problem("a" + "\u0301" * 9) == "marks"
    assert P.chat_problem("a" + "\u0301" * 8) is None
    assert P.chat_problem("Tiếng Việt") is None and P.chat_problem("テ\u3099スト") is None
    assert P.clusters("e\u0301" * 200) == 200 and P.chat_problem("e\u0301" * 200) is None
    assert P.chat_problem("e\u0301" * 201) == "clusters"
    assert P.chat_problem("字" * 101) == "cells"
    assert P.chat_problem("a\nb") == "control"
    with pytest.raises(P.BadRequest) as bad:
        P.parse_request({"t": "chat", "id": 1, "table": "t", "text": zalgo})
    assert bad.value.params == {"field": "text"}
    with pytest.raises(P.BadRequest):                       # names: no stack of marks either
        P.parse_request({"t": "hello", "id": 1, "v": 1, "name": "a" + "\u0301" * 20, "lang": "en"})


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_chat_input_says_why_a_line_is_not_sent(lang):
    from tactical_tui.text.i18n import t
    from tactical_tui.screens.online.words import chat_problem
    assert chat_problem("a" + "\u0301" * 9, lang) == t("join.chat_marks", lang, n=P.MARKS_MAX)
    assert chat_problem("e\u0301" * 201, lang) == t("join.chat_clusters", lang, n=P.CHAT_MAX)
    assert chat_problem("字" * 101, lang) == t("join.chat_long", lang, n=P.CHAT_MAX)
    assert chat_problem("fine", lang) is None and chat_problem("", lang) is None


@pytest.mark.parametrize("code", ["rate_limited", "chat_busy", "too_many_guesses"])
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_new_refusals_are_said_in_both_languages(code, lang):
    from tactical_tui.screens.online.words import words
    text = words(code, {"retry": 1.5}, lang)
    assert text != code and "1.5" in text


# ------------------------------------------------------------------ the options

def test_tactical_hosts_options_are_the_servers_defaults():
    from tactical_tui.cli import _parser
    from tactical_tui.net.host import limits
    from tactical_tui.net.server import Server
    args = _parser().parse_args(["host"])
    fields = {a.name: a.default for a in Server.__attrs_attrs__}
    assert limits(args) == {k: fields[k] for k in limits(args)}
    args = _parser().parse_args(["host", "--rate", "3", "--retire-after", "2", "--queue-kib", "64"])
    got = limits(args)
    assert got["rate"] == 3 and got["retire_after"] == 120 and got["queued"] == 64 * 1024


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_tactical_join_refuses_a_name_the_host_would_refuse_before_connecting(lang):
    """`tactical join --name` with a stack of combining marks: said at once, in the
    player's language, not a refused hello after connecting."""
    from types import SimpleNamespace

    from tactical_tui.cli import join_args
    from tactical_tui.text.i18n import t
    for name in ("\u0301abc", "a" + "\u0301" * 9):
        args = SimpleNamespace(address="127.0.0.1:1", name=name)
        got, problem = join_args(args, lang)
        assert got is None and problem.startswith(t("join.bad_name", lang, name="")[:8])
    assert P.name_ok("Tiếng") and P.name_ok("テ\u3099スト")


def test_the_ssh_doors_socket_has_a_machines_share_not_one_peers(tmp_path):
    """Every SSH player's session reaches the tables through the door's socket, one key
    (DOOR) for all of them: its request bucket and its share of tables are this machine's
    (local_rate, tables_per_local), not one remote peer's — else two SSH players could
    not open a table each with --tables-per-peer 1."""
    from types import SimpleNamespace

    from tactical_tui.net.server import DOOR

    async def run():
        async with running(tmp_path, peer_rate=5, local_rate=400, tables_per_peer=1,
                           tables_per_local=3) as (server, port):
            assert server._peer_bucket(DOOR).rate == 400
            assert server._peer_bucket("198.51.100.7").rate == 5
            create = P.parse_request({"t": "create", "id": 1, **THREE_OPEN})
            door = SimpleNamespace(key=DOOR, tables={})
            answers = [server.dispatch(door, create) for _ in range(4)]
            assert [a["t"] for a in answers] == ["ok", "ok", "ok", "refused"], answers
            assert answers[-1]["params"] == {"limit": 3}
            stranger = SimpleNamespace(key="198.51.100.7", tables={})
            assert [server.dispatch(stranger, create)["t"] for _ in range(2)] == ["ok", "refused"]
    asyncio.run(run())
