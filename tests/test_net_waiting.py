"""Issue 31: a table waits for its players, and every message about a seat tells the truth.

Protocol-level, with the real server on loopback (tests/test_net_server.py's raw client):
a new table with an open seat takes no game action until its creator starts it or every
seat is taken; its creator (the owner) sees the join code and changes its seats and
settings; a player leaving is told apart from a lost connection; the host's log numbers
seats from 1. No test asserts wall-clock time.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random

from tactical_tui.net import protocol as P

from test_net_server import WAIT, Raw, play, running, seated

OPEN_AI = dict(seats=[{"kind": "open"}, {"kind": "open"}, {"kind": "ai", "level": "random"},
                      {"kind": "ai", "level": "random"}])


async def _until(cond, timeout: float = WAIT) -> None:
    async def spin():
        while not cond():
            await asyncio.sleep(0.01)
    await asyncio.wait_for(spin(), timeout)


async def _seats_msg(c: Raw, cond=lambda m: True) -> dict:
    """The next `seats` message of `c` that satisfies `cond` (others are skipped)."""
    while True:
        msg = await asyncio.wait_for(c.next(), WAIT)
        assert msg is not None
        if msg["t"] == "seats" and cond(msg):
            return msg


def test_a_new_table_with_an_open_seat_takes_no_action_until_it_is_started(tmp_path):
    """The issue's "not done until": a short grace and clock, an open seat nobody takes,
    two AI seats — no action at all while it waits; the owner's Start plays it, the open
    seat by the takeover AI at once (still open: it can be taken)."""
    async def run():
        async with running(tmp_path) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            made = await a.ask("create", **OPEN_AI, grace=0, clock=5, takeover="random")
            assert made["t"] == "ok" and made["waiting"] is True
            tid = made["table"]
            joined = await a.ask("join", table=tid)
            assert joined["t"] == "ok" and joined["seat"] == 0 and joined["waiting"] is True
            table = server.tables[tid]
            await asyncio.sleep(0.5)                     # grace 0: it would have begun
            assert table.waiting and table.game.history == [] and table.live.version == 0
            assert not [m for m in a.inbox if m["t"] == "update"]   # no game shown yet
            assert table.slots[1].status == "open" and not table.slots[1].takeover
            # a submit, an undo, an agreement to end: refused while it waits
            refused = await a.ask("undo", table=tid)
            assert refused["t"] == "refused" and refused["code"] == "not_started"
            # the lobby: waiting, with its rules of play, and the code to nobody (public)
            info = next(x for x in (await a.ask("list"))["tables"] if x.table == tid)
            assert info.facts["waiting"] is True and info.facts["owner"] == 0
            assert (info.facts["grace"], info.facts["clock"], info.facts["takeover"]) == (0, 5, "random")
            obs = table.game.observe(0)
            from tactical_tui.net.wire import action_to_wire
            refused = await a.ask("submit", table=tid, action=action_to_wire(obs.legal[0]))
            assert refused["t"] == "refused" and refused["code"] == "not_started"
            await asyncio.sleep(0.3)
            assert table.waiting and table.game.history == []
            a.close()
    asyncio.run(run())


def test_the_owner_starts_it_and_open_seats_are_played_and_can_be_claimed(tmp_path):
    async def run():
        async with running(tmp_path) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            tid = (await a.ask("create", seats=[{"kind": "open"}] * 3, takeover="random"))["table"]
            await a.ask("join", table=tid, seat=0)
            b, _ = await seated(port, tid, "Bob", seat=1)
            w = await Raw(port).connect()
            await w.hello("Wes")
            watched = await w.ask("watch", table=tid)
            assert watched["t"] == "ok" and watched["waiting"] is True
            table = server.tables[tid]
            await asyncio.sleep(0.3)
            assert table.waiting and table.live.version == 0
            assert not w.updates and not b.updates            # nothing to show yet
            no = await b.ask("start", table=tid)             # Bob did not create it
            assert no["t"] == "refused" and no["code"] == "not_owner" and no["params"]["owner"] == 0
            assert table.waiting
            yes = await a.ask("start", table=tid)
            assert yes["t"] == "ok"
            assert not table.waiting and table.slots[2].takeover and table.slots[2].status == "open"
            # both seated players get their first update now; the AI plays seat 3
            await _until(lambda: bool(a.inbox) or bool(a.updates))
            await _until(lambda: any(x.seat == 2 for x in table.game.history))
            while not w.updates:                             # the watcher's first update too
                assert await asyncio.wait_for(w.next(), WAIT) is not None
            assert w.updates[0].seat is None
            again = await a.ask("start", table=tid)
            assert again["t"] == "refused" and again["code"] == "started"
            # seat 3 claimed later, as before the issue
            c, jc = await seated(port, tid, "Cy", seat=2)
            assert jc["t"] == "ok" and jc["seat"] == 2 and "waiting" not in jc
            for x in (a, b, c, w):
                x.close()
    asyncio.run(run())


def test_it_starts_by_itself_when_every_seat_is_taken(tmp_path):
    async def run():
        async with running(tmp_path) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            tid = (await a.ask("create", **OPEN_AI))["table"]
            await a.ask("join", table=tid)
            table = server.tables[tid]
            assert table.waiting
            b, jb = await seated(port, tid, "Bob")
            assert jb["t"] == "ok" and jb["seat"] == 1
            assert not table.waiting
            # both are sent the game (their first update), and the AI seats play
            await _until(lambda: any(x.seat in (2, 3) for x in table.game.history))
            for c in (a, b):
                while not c.updates:
                    assert await asyncio.wait_for(c.next(), WAIT) is not None
            for x in (a, b):
                x.close()
    asyncio.run(run())


def test_the_owner_changes_seats_and_settings_and_players_come_and_go(tmp_path):
    async def run():
        async with running(tmp_path) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            made = await a.ask("create", seats=[{"kind": "open"}] * 3, private=True)
            tid, code = made["table"], made["code"]
            await a.ask("join", table=tid, code=code)
            table = server.tables[tid]
            # the owner's seats message carries the code; another player's does not
            b, jb = await seated(port, tid, "Bob", code=code)
            assert jb["seat"] == 1
            mine = await _seats_msg(a, lambda m: any(s.name == "Bob" for s in m["seats"]))
            assert mine["code"] == code and mine["owner"] == 0 and mine["waiting"] is True
            theirs = await _seats_msg(b)
            assert theirs["code"] is None and theirs["owner"] == 0
            listed = {x.table: x for x in (await b.ask("list"))["tables"]}
            assert listed[tid].facts["code"] is None
            listed = {x.table: x for x in (await a.ask("list"))["tables"]}
            assert listed[tid].facts["code"] == code
            # Bob may not change it; Ann may: 5 seats, two AI, a clock, first game off
            no = await b.ask("setup", table=tid, clock=30)
            assert no["t"] == "refused" and no["code"] == "not_owner"
            held = await a.ask("setup", table=tid, seats=[{"kind": "open"}, {"kind": "ai", "level": "easy"},
                                                          {"kind": "open"}])
            assert held["t"] == "refused" and held["code"] == "seat_taken" and held["params"]["seat"] == 1
            ok = await a.ask("setup", table=tid, seats=[{"kind": "open"}, {"kind": "open"},
                                                        {"kind": "ai", "level": "hard"},
                                                        {"kind": "open"}, {"kind": "ai", "level": "easy"}],
                             clock=30, grace=15, takeover="hard", first_game=False)
            assert ok["t"] == "ok"
            assert table.waiting and len(table.game.state.seats) == 5
            assert [s.kind for s in table.slots] == ["human", "human", "ai", "open", "ai"]
            assert (table.clock, table.grace, table.takeover_level) == (30, 15, "hard")
            assert table.game.history == [] and table.slots[1].name == "Bob"
            meta = json.loads((tmp_path / f"{tid}.table.json").read_text())
            assert meta["waiting"] is True and len(meta["seats"]) == 5 and meta["clock"] == 30
            off = await a.ask("setup", table=tid, clock=None)
            assert off["t"] == "ok" and table.clock is None
            # Bob leaves (on purpose): his seat is open again; Cy takes it
            assert (await b.ask("leave", table=tid))["t"] == "ok"
            assert table.slots[1].kind == "open" and table.slots[1].name is None
            c, jc = await seated(port, tid, "Cy", seat=1, code=code)
            assert jc["t"] == "ok"
            # Ann leaves: Cy is the owner now (and sees the code)
            assert (await a.ask("leave", table=tid))["t"] == "ok"
            assert table.owner == 1
            got = await _seats_msg(c, lambda m: m["owner"] == 1)
            assert got["code"] == code
            for x in (a, b, c):
                x.close()
    asyncio.run(run())


def test_a_waiting_table_is_kept_over_a_restart_and_retired_if_nobody_starts_it(tmp_path):
    async def run():
        async with running(tmp_path) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            made = await a.ask("create", **OPEN_AI, private=True)
            tid = made["table"]
            await a.ask("join", table=tid, code=made["code"])
            a.close()
        async with running(tmp_path, waiting_max=0.5) as (server, port):
            table = server.tables[tid]
            assert table.waiting and table.owner == 0
            # the code is on disk as its hash only: its owner's client keeps it (not the host)
            assert table.code is None and made["code"] not in (tmp_path / f"{tid}.table.json").read_text()
            await asyncio.sleep(0.2)
            assert table.live.version == 0
            await _until(lambda: tid not in server.tables)
            await _until(lambda: (tmp_path / "retired" / f"{tid}.table.json").exists())
    asyncio.run(run())


def test_leaving_is_not_a_lost_connection_and_the_log_counts_seats_from_one(tmp_path, caplog):
    """Point 3: `leave` is "left" (the takeover AI plays the seat at once, it stays the
    player's); a dropped connection is "disconnected" (after the grace); point 6: the
    host's log says the seat as the screen does (Seat 2 for seat index 1)."""
    caplog.set_level(logging.INFO, logger="tactical.host")

    async def run():
        async with running(tmp_path) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            tid = (await a.ask("create", seats=[{"kind": "open"}] * 3, grace=60))["table"]
            await a.ask("join", table=tid)
            b, _ = await seated(port, tid, "Bob")
            c, _ = await seated(port, tid, "Cy")
            table = server.tables[tid]
            assert not table.waiting
            assert (await b.ask("leave", table=tid))["t"] == "ok"
            left = await _seats_msg(a, lambda m: m["seats"][1].kind == "human" and m["seats"][1].status != "connected")
            assert left["seats"][1].left is True and left["seats"][1].status == "ai_takeover"
            c.w.transport.abort()                             # Cy's connection drops
            dropped = await _seats_msg(a, lambda m: m["seats"][2].kind == "human" and m["seats"][2].status != "connected")
            assert dropped["seats"][2].left is False and dropped["seats"][2].status == "disconnected"
            assert not table.slots[2].takeover                # the grace first
            a.close()
        # a restarted host: Bob left, played at once; Cy lost the connection, the grace
        async with running(tmp_path) as (server, port):
            table = next(iter(server.tables.values()))
            assert table.slots[1].left and table.slots[1].takeover
            assert not table.slots[2].left and not table.slots[2].takeover
    asyncio.run(run())
    text = caplog.text
    assert "seat 2 left ('Bob')" in text and "seat 3 disconnected ('Cy')" in text
    assert "seat 0" not in text


def test_after_the_game_is_over_a_departure_is_not_a_drop(tmp_path):
    async def run():
        async with running(tmp_path) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            tid = (await a.ask("create", seats=[{"kind": "open"}, {"kind": "ai", "level": "random"},
                                                {"kind": "ai", "level": "random"}]))["table"]
            await a.ask("join", table=tid)
            table = server.tables[tid]
            # to the battle, then ended by agreement (the AI seats agree): the game is over
            await asyncio.wait_for(play(a, tid, 0, random.Random(5),
                                        stop=lambda c: table.game.state.phase == "battle"), 300)
            for _ in range(100):
                answer = await a.ask("end", table=tid)
                if answer["t"] == "ok" or table.game.over:
                    break
                await asyncio.sleep(0.05)            # (a moment the rules say "not now")
            assert table.game.over, answer
            a.w.transport.abort()                             # gone after the game: not a drop
            table = server.tables[tid]
            await _until(lambda: table.slots[0].conn is None)
            w = await Raw(port).connect()
            await w.hello("Wes")
            info = next(x for x in (await w.ask("list"))["tables"] if x.table == tid)
            assert info.over and info.seats[0].left is True
            # a seat the takeover AI played to the end is "left" too, not "AI takeover"
            table.slots[0].takeover = True
            info = next(x for x in (await w.ask("list"))["tables"] if x.table == tid)
            assert info.seats[0].status == "disconnected" and info.seats[0].left is True
            table.slots[0].takeover = False
            assert info.seats[0].status == "disconnected" and not table.slots[0].takeover
            w.close()
    asyncio.run(run())


def test_setup_and_start_are_typed():
    ok = P.parse_request({"t": "setup", "id": 1, "table": "t", "clock": None})
    assert isinstance(ok, P.Setup) and ok.no_clock and ok.clock is None
    ok = P.parse_request({"t": "setup", "id": 1, "table": "t", "clock": 30})
    assert not ok.no_clock and ok.clock == 30
    assert isinstance(P.parse_request({"t": "start", "id": 2, "table": "t"}), P.Start)
    for bad, field in (({"t": "start", "id": 1}, "table"),
                       ({"t": "setup", "id": 1, "table": "t", "grace": 301}, "grace"),
                       ({"t": "setup", "id": 1, "table": "t", "seats": [{"kind": "open"}] * 2}, "seats"),
                       ({"t": "setup", "id": 1, "table": "t", "owner": 2}, "owner"),
                       # a huge integer is out of range, not an OverflowError (review)
                       ({"t": "setup", "id": 1, "table": "t", "clock": 10 ** 400}, "clock"),
                       ({"t": "setup", "id": 1, "table": "t", "grace": -10 ** 400}, "grace"),
                       ({"t": "create", "id": 1, "seats": [{"kind": "open"}] * 4,
                         "clock": 10 ** 400}, "clock")):
        try:
            P.parse_request(bad)
        except P.BadRequest as exc:
            assert exc.params["field"] == field
        else:
            raise AssertionError(bad)
    # a client reads the facts, and an older host's TableInfo without them
    seat = {"seat": 0, "kind": "open", "name": None, "level": None, "status": "open"}
    info = P.table_info({"table": "t", "phase": "draft", "private": False, "seats": [seat],
                         "version": 0, "over": False})
    assert info.facts == {} and info.seats[0].left is False
    try:
        P.table_info({"table": "t", "phase": "draft", "private": False, "seats": [seat],
                      "version": 0, "over": False, "waiting": "yes"})
    except ValueError:
        pass
    else:
        raise AssertionError("waiting must be a bool")


def test_a_setup_that_cannot_be_saved_is_refused_and_changes_nothing(tmp_path, monkeypatch):
    """Review of issue 31: a new deal whose save fails, or a sidecar that cannot be
    written, is refused `save_failed` and the table stays as it was — its save and
    sidecar agree on the seats (a disagreement made the next start skip the table)."""
    from tactical_tui.net import persist as S

    async def run():
        async with running(tmp_path) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            made = await a.ask("create", seats=[{"kind": "open"}] * 3)
            tid = made["table"]
            await a.ask("join", table=tid)
            table = server.tables[tid]
            game, slots = table.game, list(table.slots)
            # the new deal cannot be saved
            real = S.NetGame.autosave

            def failing(self):
                self.save_error = OSError(28, "No space left on device")
            monkeypatch.setattr(S.NetGame, "autosave", failing)
            no = await a.ask("setup", table=tid, seats=[{"kind": "open"}] * 4, clock=30)
            assert no["t"] == "refused" and no["code"] == "save_failed"
            assert table.game is game and table.slots == slots and table.clock is None
            monkeypatch.setattr(S.NetGame, "autosave", real)
            # the sidecar cannot be written: the change is taken back
            monkeypatch.setattr(S, "write_atomic", lambda *a, **k: (_ for _ in ()).throw(
                OSError(28, "No space left on device")))
            no = await a.ask("setup", table=tid, seats=[{"kind": "open"}] * 4, grace=15)
            assert no["t"] == "refused" and no["code"] == "save_failed"
            assert len(table.game.state.seats) == 3 and table.grace != 15
            assert [s.kind for s in table.slots] == [s.kind for s in slots]
            monkeypatch.undo()
            ok = await a.ask("setup", table=tid, seats=[{"kind": "open"}] * 4)
            assert ok["t"] == "ok" and len(table.game.state.seats) == 4
            meta = json.loads((tmp_path / f"{tid}.table.json").read_text())
            assert len(meta["seats"]) == 4
            a.close()
    asyncio.run(run())
