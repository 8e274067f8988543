"""Issue 17, `bench/host_load.py`'s path: what the table server does after every action —
the autosave's text (tactical_tui.table.saves.SaveText), the updates written to the
connections (tactical_tui/net/server.py: the watchers' one shared frame, a slow reader)
and the AI pool's workers. No test asserts wall-clock time.
"""

from __future__ import annotations

import asyncio
import json
import random
import socket

from rules import Config
from tactical_tui.table.saves import SaveText, parse, to_json
from tactical_tui.table.live import GameTable, SeatSetup

from test_net_server import WAIT, Raw, _states, check_secrets, play, running


def test_the_save_text_is_to_json_s_save_after_every_action_and_undo():
    """SaveText keeps each action's JSON; after appends and undos (history cut back, AI
    decisions made again) its text is the same save as to_json's, and parses back — also
    when several actions, an undo among them, came between two saves (the host's Saver
    writes the newest position only)."""
    rnd = random.Random(3)
    game = GameTable(Config(players=4), (SeatSetup(True),) + (SeatSetup(False, "easy"),) * 3, 4242)
    saves = SaveText()
    undos = checked = 0
    while not game.over and len(game.history) < 400:
        if game.undo_refusal(0) is None and rnd.random() < 0.15:
            assert game.undo(0)
            undos += 1
        elif (seat := game.ai_to_act()) is not None:
            action, reason = game.ai_decide(seat)
            game.submit_ai(seat, action, reason)
        else:
            game.submit(rnd.choice(game.observe(0).legal))
        if rnd.random() < 0.6:
            continue
        data = game.save_data()
        text = saves.text(data)
        assert json.loads(text) == json.loads(to_json(data))
        assert parse(text, "test") == data
        checked += 1
    assert undos >= 3 and checked > 50 and data.ai, (undos, checked)


# ------------------------------------------------------------------ the updates on the wire

def _ai_table(seats=("easy",) * 4) -> dict:
    return dict(seats=[{"kind": "open"} if s == "open" else {"kind": "ai", "level": s} for s in seats])


async def _until(cond) -> None:
    while not cond():
        await asyncio.sleep(0.01)


def test_watchers_share_one_frame_and_a_seat_never_gets_it(tmp_path):
    """The watchers of a table are sent the same bytes for each change (the spectators'
    view is encoded once); a seated connection gets its own seat's frames, none of the
    watchers' — and every connection's updates are exactly its own view (check_secrets)."""
    async def run():
        async with running(tmp_path) as (server, port):
            ann = await Raw(port).connect()
            await ann.hello("Ann")
            tid = (await ann.ask("create", **_ai_table(("open", "easy", "easy", "easy"))))["table"]
            assert (await ann.ask("join", table=tid))["seat"] == 0
            watchers = []
            for name in ("W1", "W2"):
                w = await Raw(port).connect()
                await w.hello(name)
                assert (await w.ask("watch", table=tid))["t"] == "ok"
                watchers.append(w)
            end = await asyncio.wait_for(play(ann, tid, 0, random.Random(11)), 300)
            assert end.over
            for w in watchers:
                while not w.updates or not w.updates[-1].over:
                    assert await asyncio.wait_for(w.next(), WAIT) is not None
            table = server.tables[tid]
            states = _states(table)
            check_secrets(ann, 0, table, states)
            for w in watchers:
                check_secrets(w, None, table, states)

            def update_frames(c: Raw) -> list[bytes]:
                return [b for b in c.raw if json.loads(b)["t"] == "update"]
            w1, w2 = (update_frames(w) for w in watchers)
            # after its first update (the whole log, its own), W2 got W1's frames, byte for byte
            assert len(w2) > 20 and w2[1:] == w1[len(w1) - len(w2) + 1:]
            assert not set(update_frames(ann)) & (set(w1) | set(w2))
            assert all(u.seat == 0 for u in ann.updates)
            for c in (ann, *watchers):
                c.close()
    asyncio.run(run())


def test_a_client_that_does_not_read_is_dropped_and_the_others_go_on(tmp_path):
    """A watcher that reads nothing: what waits for it grows until its limit (a
    connection at no seat: Server.queued, small here), then it is dropped; the table and
    the other watcher never wait for it — the other gets every action's update to the end
    of the game."""
    async def run():
        async with running(tmp_path, queued=64 * 1024) as (server, port):
            owner = await Raw(port).connect()
            await owner.hello("Owner")
            tid = (await owner.ask("create", **_ai_table()))["table"]
            table = server.tables[tid]
            slow = Raw(port)
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.setblocking(False)
            await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
            slow.r, slow.w = await asyncio.open_connection(sock=sock)
            await slow.hello("Slow")
            conn = next(c for c in server.connections if c.name == "Slow")
            conn.writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
            assert (await slow.ask("watch", table=tid))["t"] == "ok"
            fast = await Raw(port).connect()
            await fast.hello("Fast")
            assert (await fast.ask("watch", table=tid))["t"] == "ok"
            # the slow one reads nothing from here on
            while not fast.updates or not fast.updates[-1].over:
                assert await asyncio.wait_for(fast.next(), WAIT) is not None
            assert table.game.over
            await asyncio.wait_for(_until(lambda: conn not in server.connections), WAIT)
            assert conn.closing and conn not in table.watchers
            assert conn.sent < len(fast.raw)
            versions = {u.version for u in fast.updates}
            # every version a watcher is told (the actions anyone may know of)
            assert versions == set(range(fast.updates[0].version, table.live.version_for(None) + 1))
            for c in (owner, slow, fast):
                c.close()
    asyncio.run(run())


# ------------------------------------------------------------------ the AI pool

def test_the_ai_pool_runs_nicer_than_the_host():
    """make_executor's workers are AI_NICE nicer than this process (the event loop
    comes first on a busy machine)."""
    import os

    from tactical_tui.net.aipool import AI_NICE, make_executor
    pool = make_executor(1, None)
    try:
        assert pool.submit(os.nice, 0).result(WAIT) == min(19, os.nice(0) + AI_NICE)
    finally:
        pool.shutdown()
    assert AI_NICE > 0
