"""The table server's limits on connections (docs/PROTOCOL.md "Connections"): per peer,
in all, idle ones closed with `bye idle`, refused ones told why with a `bye`, and the
refusals logged at most once a minute. In process, on loopback (which counts as one
peer: this machine), every timeout shortened — no test waits for real minutes."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tactical_tui.net import client as C
from tactical_tui.net import protocol as P
from tactical_tui.net import server as S
from tactical_tui.net.limits import LOCAL, RateLimited, peer_key

from test_net_server import Raw, running

WAIT = 30.0


async def _closed_with(c: Raw) -> list:
    return await asyncio.wait_for(c.until_closed(), WAIT)


async def _until(done, seconds: float = WAIT) -> None:
    for _ in range(int(seconds / 0.01)):
        if done():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("never happened")


def test_peers_are_addresses_ipv6_by_64_and_this_machine_is_one():
    assert peer_key(("203.0.113.5", 40000), ("203.0.113.1", 7411)) == "203.0.113.5"
    assert peer_key(("127.0.0.1", 1), ("127.0.0.1", 7411)) == LOCAL
    assert peer_key(("127.0.0.2", 1), ("127.0.0.1", 7411)) == LOCAL
    assert peer_key(("::1", 1, 0, 0), ("::1", 7411, 0, 0)) == LOCAL
    # the host bound to an address of its own: the SSH door's children come from it
    assert peer_key(("192.168.1.5", 5000), ("192.168.1.5", 7411)) == LOCAL
    a = peer_key(("2001:db8:1:2::10", 1, 0, 0), ("2001:db8::1", 7411, 0, 0))
    b = peer_key(("2001:db8:1:2:ffff::1", 1, 0, 0), ("2001:db8::1", 7411, 0, 0))
    c = peer_key(("2001:db8:1:3::10", 1, 0, 0), ("2001:db8::1", 7411, 0, 0))
    assert a == b == "2001:db8:1:2::/64" and c != a
    assert peer_key(("::ffff:198.51.100.7", 1, 0, 0), ("::", 7411, 0, 0)) == "198.51.100.7"


def test_the_ssh_doors_sessions_fit_in_this_machines_share():
    sshdoor = pytest.importorskip("tactical_tui.net.sshdoor")
    assert S.MAX_PER_PEER < S.MAX_PER_LOCAL < S.MAX_CONNECTIONS
    assert S.MAX_PER_LOCAL >= sshdoor.MAX_SESSIONS + S.MAX_PER_PEER
    assert S.MAX_PER_PEER * 10 <= S.MAX_CONNECTIONS      # one peer is a small part of it


def test_one_peer_cannot_fill_the_host_and_is_told_why(tmp_path):
    """This machine may hold 3 connections here: the 4th gets `bye too_many_connections`
    (its hello never answered) and is closed; one of the 3 gone, there is room again.
    The whole server full: `bye server_full`."""
    async def run():
        async with running(tmp_path, max_per_local=3) as (server, port):
            held = [await Raw(port).connect() for _ in range(3)]
            for i, c in enumerate(held):
                await c.hello(f"p{i}")
            extra = await Raw(port).connect()
            await extra.send("hello", v=1, name="late", lang="en")
            assert await _closed_with(extra) == [{"t": "bye", "code": "too_many_connections"}]
            assert len(server.connections) == 3 and server.peers == {LOCAL: 3}
            held.pop().close()
            await _until(lambda: len(server.connections) == 2)
            again = await Raw(port).connect()
            await again.hello("again")
            server.max_connections = 3
            server.max_per_local = 10
            full = await Raw(port).connect()
            assert await _closed_with(full) == [{"t": "bye", "code": "server_full"}]
            for c in held + [again]:
                c.close()
            await _until(lambda: not server.connections and not server.peers)
    asyncio.run(run())


def test_a_client_turned_away_hears_why(tmp_path):
    """`tactical join`'s client: a bye instead of the hello's answer is `Bye` (its code),
    not a bare reset."""
    async def run():
        async with running(tmp_path, max_per_local=1) as (server, port):
            first = await Raw(port).connect()
            await first.hello("Ann")
            client = C.Client("127.0.0.1", port, "bob", "en")
            with pytest.raises(C.Bye) as caught:
                await client.start()
            assert caught.value.code == "too_many_connections"
            first.close()
    asyncio.run(run())


def test_refused_connections_are_logged_once_a_minute_with_their_count(tmp_path, caplog):
    now = [1000.0]
    limiter = RateLimited(60.0, clock=lambda: now[0])
    assert [limiter.note() for _ in range(5)] == [1, None, None, None, None]
    now[0] += 61
    assert limiter.note() == 5 and limiter.note() is None

    async def run():
        async with running(tmp_path, max_per_local=1) as (server, port):
            first = await Raw(port).connect()
            await first.hello("Ann")
            caplog.clear()
            with caplog.at_level(logging.WARNING, logger="tactical.host"):
                for _ in range(12):
                    c = await Raw(port).connect()
                    assert await _closed_with(c) == [{"t": "bye", "code": "too_many_connections"}]
            lines = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
            assert len(lines) == 1 and lines[0].startswith("connections refused: 1 ")
            first.close()
    asyncio.run(run())


def test_idle_connections_at_no_table_get_bye_idle_and_players_stay(tmp_path):
    """Idle timeouts of a fraction of a second: a socket that says nothing, and one that
    said hello and then nothing, get `bye idle` and are closed. A seated player who sends
    nothing stays, and so does a watcher; `tactical join`'s client, looking at the lobby
    (sending nothing but its keep-alive `ping`), stays too."""
    async def run():
        async with running(tmp_path, hello_timeout=0.3, idle_timeout=0.5) as (server, port):
            mute = await Raw(port).connect()
            idle = await Raw(port).connect()
            await idle.hello("idle")
            seated = await Raw(port).connect()
            await seated.hello("Ann")
            tid = (await seated.ask("create", seats=[{"kind": "open"}, {"kind": "open"},
                                                     {"kind": "ai", "level": "easy"}]))["table"]
            assert (await seated.ask("join", table=tid))["t"] == "ok"
            watcher = await Raw(port).connect()
            await watcher.hello("Wat")
            assert (await watcher.ask("watch", table=tid))["t"] == "ok"
            lobby = C.Client("127.0.0.1", port, "carol", "en", keepalive=0.1)
            await lobby.start()
            assert await _closed_with(mute) == [{"t": "bye", "code": "idle"}]
            assert await _closed_with(idle) == [{"t": "bye", "code": "idle"}]
            await asyncio.sleep(1.5)                 # three idle timeouts
            assert lobby.connected and lobby.bye is None
            names = {c.name for c in server.connections}
            assert names == {"Ann", "Wat", "carol"}
            assert (await seated.ask("list"))["t"] == "ok"
            assert (await watcher.ask("list"))["t"] == "ok"
            await lobby.close()
            seated.close()
            watcher.close()
    asyncio.run(run())


def test_a_silent_connection_at_a_table_is_closed_and_its_seat_disconnected(tmp_path):
    """A seated connection that sends nothing for seated_idle_timeout is gone (its client
    would ping every keepalive seconds): a half-open socket kept its seat `connected` for
    ever. It gets `bye idle`, its seat is `disconnected`; a seated `tactical join` client,
    which pings, stays."""
    async def run():
        async with running(tmp_path, idle_timeout=0.2, seated_idle_timeout=0.6) as (server, port):
            gone = await Raw(port).connect()
            await gone.hello("Ann")
            tid = (await gone.ask("create", seats=[{"kind": "open"}, {"kind": "open"},
                                                   {"kind": "ai", "level": "easy"}]))["table"]
            assert (await gone.ask("join", table=tid, seat=0))["t"] == "ok"
            bob = C.Client("127.0.0.1", port, "bob", "en", keepalive=0.1)
            await bob.start()
            assert (await bob.send("join", table=tid, seat=1))["t"] == "ok"
            frames = await _closed_with(gone)
            assert frames[-1] == {"t": "bye", "code": "idle"}

            async def statuses():
                tables = (await bob.send("list"))["tables"]
                return {s.seat: s.status for s in tables[0].seats}
            for _ in range(300):
                if (await statuses())[0] != "connected":
                    break
                await asyncio.sleep(0.01)
            seats = await statuses()
            assert seats[0] in ("disconnected", "ai_takeover") and seats[1] == "connected"
            await asyncio.sleep(1.0)                 # bob's pings keep him seated
            assert bob.connected and bob.bye is None
            await bob.close()
    asyncio.run(run())


def test_a_ping_is_answered_ok(tmp_path):
    async def run():
        async with running(tmp_path) as (server, port):
            c = await Raw(port).connect()
            await c.hello("Ann")
            assert await c.ask("ping") == {"t": "ok", "id": 2}
            assert P.parse_request({"t": "ping", "id": 3}) == P.Ping(3)
            c.close()
    asyncio.run(run())
