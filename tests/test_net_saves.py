"""Issue 30 findings 7 and 8: no save of a hosted table fails in silence, and a table file
the host cannot read never keeps it from starting (tactical_tui/net/server.py).

A full disk is made by monkeypatching the server's write (`_write_unsynced`, the table's
save; `write_atomic`, its sidecar) to raise ENOSPC / EMFILE while a flag is set; a FIFO,
a folder and a 2 MB file are named like table files. No test asserts wall-clock time
(waits have generous timeouts only; the retry delay is shortened so that they are short).
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import os
import random

import pytest

from tactical_tui.net import server as S
from tactical_tui.net.server import Server
from tactical_tui.net.wire import action_to_wire
from tactical_tui.saves import read as read_save

from test_net_server import WAIT, Raw, running, seated


async def until(cond, timeout: float = WAIT) -> None:
    async def wait():
        while not cond():
            await asyncio.sleep(0.01)
    await asyncio.wait_for(wait(), timeout)


async def pump(c: Raw, cond, timeout: float = WAIT) -> None:
    """Read `c`'s frames (kept in its inbox) until `cond()` holds."""
    async def go():
        while not cond():
            msg = await c._read()
            assert msg is not None, "closed"
            c.inbox.append(msg)
    await asyncio.wait_for(go(), timeout)


def paused_states(c: Raw, tid: str) -> list:
    return [m.get("paused") for m in c.inbox if m.get("t") == "seats" and m.get("table") == tid]


ONE_HUMAN = dict(seats=[{"kind": "open"}, {"kind": "ai", "level": "easy"},
                        {"kind": "ai", "level": "easy"}])


async def _my_turn(c: Raw, tid: str, seat: int):
    """The latest update once it asks `seat` something."""
    await pump(c, lambda: c.updates and seat in c.updates[-1].turn.seats
               and c.updates[-1].observation.legal and not c.updates[-1].turn.thinking)
    return c.updates[-1]


# ------------------------------------------------------------------ finding 8

def test_a_table_file_the_host_cannot_read_is_skipped_and_the_others_are_served(tmp_path, caplog):
    async def make():
        async with running(tmp_path) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            tid = (await a.ask("create", **ONE_HUMAN))["table"]
            a.close()
            return tid
    good = asyncio.run(make())
    sidecar = json.loads((tmp_path / f"{good}.table.json").read_text())
    os.mkfifo(tmp_path / "f1f0f1f0.table.json")                  # a named pipe: never opened
    (tmp_path / "d1d0d1d0.table.json").mkdir()                   # a folder
    (tmp_path / "b1b0b1b0.table.json").write_bytes(b"{" + b" " * (2 * 1024 * 1024) + b"}")
    # a good sidecar whose save is a named pipe, another whose save is a folder
    for tid, make_save in (("e1e0e1e0", os.mkfifo), ("c1c0c1c0", os.mkdir)):
        (tmp_path / f"{tid}.table.json").write_text(json.dumps({**sidecar, "table": tid}))
        make_save(tmp_path / f"{tid}.json")
    (tmp_path / "a1a0a1a0.table.json").write_text('{"format": 1, "table": "a1a0a1a0", "seats": 7}')
    deep = "[" * 100000 + "]" * 100000
    (tmp_path / "9a9a9a9a.table.json").write_text(deep)

    async def serve():
        with caplog.at_level(logging.ERROR, logger="tactical.host"):
            async with running(tmp_path) as (server, port):
                assert list(server.tables) == [good]
                b, ok = await seated(port, good, "Bob")
                assert ok["t"] == "ok" and ok["seat"] == 0
                listed = await b.ask("list")
                assert [t.table for t in listed["tables"]] == [good]
                b.close()
    asyncio.run(serve())
    skipped = [r.getMessage() for r in caplog.records if "cannot be resumed" in r.getMessage()]
    for tid in ("f1f0f1f0", "d1d0d1d0", "b1b0b1b0", "e1e0e1e0", "c1c0c1c0", "a1a0a1a0", "9a9a9a9a"):
        assert sum(tid in m for m in skipped) == 1, (tid, skipped)    # once each
    assert all("\n" not in m for m in skipped)
    # left where they were
    assert (tmp_path / "f1f0f1f0.table.json").exists() and (tmp_path / "d1d0d1d0.table.json").is_dir()


def test_a_new_table_never_takes_the_id_of_one_skipped(tmp_path, monkeypatch):
    ids = iter(["d1d0d1d0", "0badc0de"])
    monkeypatch.setattr(S.secrets, "token_hex", lambda n: next(ids))
    (tmp_path / "d1d0d1d0.table.json").mkdir()

    async def run():
        async with running(tmp_path) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            assert (await a.ask("create", **ONE_HUMAN))["table"] == "0badc0de"
            a.close()
    asyncio.run(run())
