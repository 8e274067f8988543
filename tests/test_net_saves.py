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

from tactical_tui.net import persist as S
from tactical_tui.net.server import Server
from tactical_tui.net.wire import action_to_wire
from tactical_tui.table.saves import read as read_save

from test_net_server import WAIT, Raw, pump, running, seated


class Disk:
    """The host's disk, full (or out of file descriptors) while `full` is set."""

    def __init__(self, monkeypatch, err: int = errno.ENOSPC) -> None:
        self.full = False
        self.err = err
        self.failed = 0
        write, atomic = S._write_unsynced, S.write_atomic

        def unsynced(path, text):
            if self.full:
                self.failed += 1
                raise OSError(self.err, os.strerror(self.err))
            return write(path, text)

        def sidecar(path, text, *a, **kw):
            if self.full:
                self.failed += 1
                raise OSError(self.err, os.strerror(self.err))
            return atomic(path, text, *a, **kw)
        monkeypatch.setattr(S, "_write_unsynced", unsynced)
        monkeypatch.setattr(S, "write_atomic", sidecar)
        monkeypatch.setattr(S, "SAVE_RETRY_FIRST", 0.02, raising=False)
        monkeypatch.setattr(S, "SAVE_RETRY_MOST", 0.05, raising=False)


async def until(cond, timeout: float = WAIT) -> None:
    async def wait():
        while not cond():
            await asyncio.sleep(0.01)
    await asyncio.wait_for(wait(), timeout)


def paused_states(c: Raw, tid: str) -> list:
    return [m.get("paused") for m in c.inbox if m.get("t") == "seats" and m.get("table") == tid]


ONE_HUMAN = dict(seats=[{"kind": "open"}, {"kind": "ai", "level": "easy"},
                        {"kind": "ai", "level": "easy"}])


async def _my_turn(c: Raw, tid: str, seat: int):
    """The latest update once it asks `seat` something."""
    await pump(c, lambda: c.updates and seat in c.updates[-1].turn.seats
               and c.updates[-1].observation.legal and not c.updates[-1].turn.thinking)
    return c.updates[-1]


def test_a_failed_save_pauses_the_table_says_so_and_it_goes_on_once_saving_works(tmp_path, monkeypatch):
    disk = Disk(monkeypatch)

    async def run():
        # (no request rate limit: this test submits as fast as refusals come back)
        async with running(tmp_path, rate=0, peer_rate=0, local_rate=0) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            tid = (await a.ask("create", **ONE_HUMAN))["table"]
            assert (await a.ask("join", table=tid))["seat"] == 0
            w = await Raw(port).connect()
            await w.hello("Wat")
            assert (await w.ask("watch", table=tid))["t"] == "ok"
            table = server.tables[tid]
            rnd = random.Random(1)
            # a few actions while the disk works: each one saved
            for _ in range(3):
                u = await _my_turn(a, tid, 0)
                ok = await a.ask("submit", table=tid,
                                 action=action_to_wire(rnd.choice(u.observation.legal)))
                assert ok["t"] == "ok", ok
            # the disk is full: the next action (Ann's, or an AI seat's that came first) is
            # applied (its update comes) but not saved
            u = await _my_turn(a, tid, 0)
            disk.full = True
            ok = await a.ask("submit", table=tid, action=action_to_wire(rnd.choice(u.observation.legal)))
            assert ok["t"] == "ok" or ok["code"] == "save_failed", ok
            # ... so the table stops, and the player and the watcher are told
            await pump(a, lambda: "save_failed" in paused_states(a, tid), 10)
            await pump(w, lambda: "save_failed" in paused_states(w, tid), 10)
            assert table.paused == "save_failed"
            listed = await a.ask("list")
            assert next(t for t in listed["tables"] if t.table == tid).paused == "save_failed"
            held = len(table.game.history)
            # it keeps trying; meanwhile no action is taken: the player's are refused with
            # a clear code (not counted as bad input), the AI seats do not move
            await until(lambda: disk.failed >= 4)
            latest = a.updates[-1]
            for _ in range(25):               # more than the 20 refusals that end a connection
                legal = latest.observation.legal
                action = legal[0] if legal else None
                if action is None:
                    break
                no = await a.ask("submit", table=tid, action=action_to_wire(action))
                assert no["t"] == "refused" and no["code"] == "save_failed", no
            assert (await a.ask("undo", table=tid))["code"] == "save_failed"
            assert len(table.game.history) == held
            on_disk = read_save(table.game.save_path)
            assert len(on_disk.actions) == held - 1       # at most the action being applied
            # the disk has room again: the save is written, the table goes on, all are told
            disk.full = False
            await pump(a, lambda: paused_states(a, tid)[-1:] == [None], WAIT)
            await pump(w, lambda: paused_states(w, tid)[-1:] == [None], WAIT)
            assert table.paused is None
            assert len(read_save(table.game.save_path).actions) >= held
            u = await _my_turn(a, tid, 0)
            ok = await a.ask("submit", table=tid, action=action_to_wire(rnd.choice(u.observation.legal)))
            assert ok["t"] == "ok", ok
            await until(lambda: len(table.game.history) > held + 1)
            a.close()
            w.close()
    asyncio.run(run())


def test_while_saves_fail_at_most_the_action_being_applied_is_not_on_disk(tmp_path, monkeypatch):
    """The AI seats play on a table whose saves fail: none of their actions is taken
    while the last one is not on disk (before: 25 actions were played and lost)."""
    disk = Disk(monkeypatch)

    async def run():
        async with running(tmp_path) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            # three AI seats: they play by themselves
            tid = (await a.ask("create", seats=[{"kind": "ai", "level": "random"}] * 3))["table"]
            table = server.tables[tid]
            await until(lambda: len(table.game.history) >= 2)
            disk.full = True
            await until(lambda: disk.failed >= 6)
            applied = len(table.game.history)
            on_disk = len(read_save(table.game.save_path).actions)
            assert applied - on_disk <= 1, (applied, on_disk)
            assert table.paused == "save_failed"
            disk.full = False
            await until(lambda: table.paused is None and len(table.game.history) > applied + 2)
            a.close()
    asyncio.run(run())


def test_a_seat_whose_token_cannot_be_saved_is_not_given(tmp_path, monkeypatch):
    """A token exists only once it is on disk: a join whose sidecar cannot be written is
    refused (save_failed), the seat stays open — and after a restart too."""
    disk = Disk(monkeypatch, errno.EMFILE)

    async def run():
        async with running(tmp_path) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            tid = (await a.ask("create", **ONE_HUMAN))["table"]
            disk.full = True
            no = await a.ask("join", table=tid)
            assert no["t"] == "refused" and no["code"] == "save_failed", no
            assert "token" not in no
            assert server.tables[tid].slots[0].kind == "open"
            # a table that cannot be saved is not made either
            made = await a.ask("create", **ONE_HUMAN)
            assert made["t"] == "refused" and made["code"] == "save_failed", made
            assert len(server.tables) == 1
            disk.full = False
            a.close()
        async with running(tmp_path) as (server, port):
            assert [s.kind for s in server.tables[tid].slots] == ["open", "ai", "ai"]
            assert len(list(tmp_path.glob("*.table.json"))) == 1
            b, ok = await seated(port, tid, "Bob")
            assert ok["t"] == "ok" and ok["seat"] == 0 and ok["token"]
            b.close()
    asyncio.run(run())


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


# ------------------------------------------------------------------ a game on this machine

def test_a_solo_game_says_each_failed_autosave_and_when_saving_works_again(tmp_path, monkeypatch):
    """The solo game's autosave (tactical_tui/table/live.py GameTable.autosave) failing is said
    on the player's screen, not only remembered: at the first failure, again when it
    fails again after a save that worked (before: said once per app, never again for
    the same problem), and that saving works again."""
    from tactical_tui.table import saves
    from tactical_tui.app import TacticalApp
    from tactical_tui.screens.draft import DraftScreen
    from test_tui_input import quiet, until as until_ui
    monkeypatch.setenv("TACTICAL_SAVE_DIR", str(tmp_path / "saves"))
    full = {"on": False}
    write = saves.write_atomic

    def failing(path, text, *a, **kw):
        if full["on"]:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return write(path, text, *a, **kw)
    monkeypatch.setattr(saves, "write_atomic", failing)

    async def run():
        app = TacticalApp(lang="en", ai_delay=0.0, seed=7, autosave=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter")                     # the title's quick game
            await until_ui(pilot, lambda: isinstance(app.screen, DraftScreen), "the draft")

            def said(words: str) -> int:
                return sum(words in n.message for n in app._notifications)

            async def pick() -> None:
                await quiet(app, pilot)
                moves = len(app.table.history)
                seat = app.table.human_to_act()
                app.submit(app.table.observe(seat).legal[0])
                await until_ui(pilot, lambda: len(app.table.history) > moves, "the pick")
                await pilot.pause(0.05)
            full["on"] = True
            await pick()
            assert said("Cannot save") == 1 and "no space left" in str(app.table.save_problem)
            full["on"] = False
            await pick()
            assert said("Saving works again") == 1
            full["on"] = True
            await pick()
            assert said("Cannot save") == 2
            full["on"] = False
            await quiet(app, pilot)
    asyncio.run(run())


# ------------------------------------------------------------------ what a player sees

@pytest.mark.parametrize("lang, paused, resumed, refused", [
    ("en", "Paused: the host cannot save this table", "The host can save this table again",
     "cannot save this table right now"),
    ("ja", "一時停止: ホストがこのテーブルを保存できません", "ホストが再びこのテーブルを保存できます",
     "いまこのテーブルを保存できない")])
def test_a_player_is_told_on_screen_when_the_table_stops_and_goes_on(tmp_path, monkeypatch, lang,
                                                                      paused, resumed, refused):
    """`tactical join` at 80×24: the save of the table fails — a banner over the top line
    says the table is paused (in the player's language, one line clipped by cells), a
    line in the log and a notice say why; an action is refused with the reason; once
    the host saves again, the banner goes and the log says play goes on."""
    from tactical_tui.screens.online.status import NetBanner
    from test_net_join import Host, _client_app, _create_and_sit, _in_game, _said, _until_app
    from tui_app import screen_text
    disk = Disk(monkeypatch)

    async def run():
        async with Host(tmp_path) as host:
            alice = _client_app(host, "alice", lang)
            async with alice.run_test(size=(80, 24)) as pa:
                await _create_and_sit(alice, pa)
                said = _said(alice)
                table = host.table
                await table.saver.saved()
                disk.full = True
                version = table.live.version
                await pa.press("enter")                  # a pick: applied, not saved
                await _until_app(pa, lambda: alice.screen.query(NetBanner))
                banner = str(alice.screen.query_one(NetBanner).render())
                assert paused in banner
                assert len(table.game.history) > version
                shown = screen_text(alice)
                assert paused in shown
                assert all(len(line) <= 80 for line in shown.splitlines())
                await _until_app(pa, lambda: len(said) >= 1)
                log = [getattr(e, "chat", "") for e in alice.feeds[alice.viewer].log]
                told = "The host cannot save this table" if lang == "en" else "ホストがこのテーブルを保存できません"
                assert any(told in line for line in log), log[-5:]
                assert any(told in s for s in said), said
                # an action now is refused, with the reason in the player's language
                held = len(table.game.history)
                before = len(said)
                await _until_app(pa, lambda: _in_game(alice))
                alice.action_undo()                      # undo her pick: refused, and why
                await _until_app(pa, lambda: len(said) > before)
                assert any(refused in s for s in said), said
                assert len(table.game.history) == held
                disk.full = False
                await _until_app(pa, lambda: not alice.screen.query(NetBanner))
                await _until_app(pa, lambda: any(resumed in s for s in said))
                log = [getattr(e, "chat", "") for e in alice.feeds[alice.viewer].log]
                assert any(resumed in line for line in log)
    asyncio.run(run())


# ------------------------------------------------------------------ secrecy at the socket

def test_another_seats_build_steps_reach_no_one_else(tmp_path):
    """Issue 30 (low): each secret build step of a seat showed up at every other
    connection as an update with the version moved on, and an undo refusal named the
    seat that had acted. At the socket now: while Bob makes build steps (§5-4: behind
    his screen), Ann and a watcher receive nothing at all — no frame, no version, no
    "thinking" — the lobby's version does not move, and Ann's undo, refused because
    Bob has decided since, does not say who."""
    three = dict(seats=[{"kind": "open"}] * 3)

    async def run():
        async with running(tmp_path) as (server, port):
            a = await Raw(port).connect()
            await a.hello("Ann")
            tid = (await a.ask("create", **three))["table"]
            assert (await a.ask("join", table=tid))["seat"] == 0
            b, _ = await seated(port, tid, "Bob")
            c, _ = await seated(port, tid, "Cat")
            w = await Raw(port).connect()
            await w.hello("Wat")
            assert (await w.ask("watch", table=tid))["t"] == "ok"
            table = server.tables[tid]
            in_build = lambda _c: table.game.state.phase == "build"      # noqa: E731
            from test_net_server import play
            await asyncio.wait_for(asyncio.gather(
                play(a, tid, 0, random.Random(1), stop=in_build),
                play(b, tid, 1, random.Random(2), stop=in_build),
                play(c, tid, 2, random.Random(3), stop=in_build)), 300)
            assert table.game.state.phase == "build"

            async def drained(x: Raw) -> None:
                """Everything sent to `x` so far is read (a ping's answer comes after)."""
                assert (await x.ask("ping"))["t"] == "ok"

            def step(x: Raw, seat: int):
                legal = [act for act in table.game.observe(seat).legal
                         if type(act).__name__ not in ("Confirm", "Unconfirm")]
                assert legal, table.game.observe(seat).legal
                return legal[0]
            # Ann makes a build step: her undo is open
            assert (await a.ask("submit", table=tid, action=action_to_wire(step(a, 0))))["t"] == "ok"
            for x in (a, w):
                await drained(x)
                x.inbox.clear()
            before = {id(x): (len(x.raw), x.updates[-1].version) for x in (a, w)}
            listed = (await a.ask("list"))["tables"]
            public = next(t for t in listed if t.table == tid).version
            a.inbox.clear()
            # Bob makes three
            for _ in range(3):
                ok = await b.ask("submit", table=tid, action=action_to_wire(step(b, 1)))
                assert ok["t"] == "ok", ok
            for x in (a, w):
                await drained(x)
                updates = [m for m in x.inbox if m.get("t") == "update"]
                assert not updates, [m["update"].version for m in updates]
                assert x.updates[-1].version == before[id(x)][1]
            listed = (await a.ask("list"))["tables"]
            assert next(t for t in listed if t.table == tid).version == public
            # Ann's undo: refused (Bob decided since), without naming him
            no = await a.ask("undo", table=tid)
            assert no["t"] == "refused" and no["code"] == "undo_another" and no["params"] == {}, no
            for x in (a, b, c, w):
                x.close()
    asyncio.run(run())


def test_a_watcher_is_told_on_screen_too(tmp_path, monkeypatch):
    """A spectator of the table (`w` in the lobby) gets the same banner and log lines."""
    from tactical_tui.screens.online.status import NetBanner
    from test_net_join import Host, _client_app, _said, _sit_and_watch, _until_app
    disk = Disk(monkeypatch)

    async def run():
        async with Host(tmp_path) as host:
            alice, carol = _client_app(host, "alice"), _client_app(host, "carol", "ja")
            async with alice.run_test(size=(80, 24)) as pa, carol.run_test(size=(80, 24)) as pc:
                await _sit_and_watch(alice, pa, carol, pc)
                said = _said(carol)
                await host.table.saver.saved()
                disk.full = True
                await pa.press("enter")                  # alice's pick: applied, not saved
                await _until_app(pc, lambda: carol.screen.query(NetBanner))
                assert "一時停止: ホストがこのテーブルを保存できません" in \
                    str(carol.screen.query_one(NetBanner).render())
                await _until_app(pc, lambda: any("保存できません" in s for s in said))
                disk.full = False
                await _until_app(pc, lambda: not carol.screen.query(NetBanner))
                await _until_app(pc, lambda: any("再びこのテーブルを保存できます" in s for s in said))
    asyncio.run(run())
