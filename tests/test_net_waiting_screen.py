"""Issue 31 (and issue 32 point 3), what a player sees, with Pilot at 80×24 against the
real server on loopback: the waiting room (the creator's join code in its header and
their lobby row, the rules of play, Start), the other player's lobby (waiting tables
first, with their free seats and rules), a wrong join code asked again and never shown
as the table's, a player leaving told apart from one who lost the connection, the host
stopping said as such, the way back keeping the options and the launcher, and the SSH
door remembering a player's language. Both languages where text is involved."""

from __future__ import annotations

import asyncio

import pytest

from tactical_tui.screens.online.chat import LineScreen
from tactical_tui.screens.online.lobby import LobbyScreen
from tactical_tui.screens.online.waiting import WaitingScreen

from test_net_join import Host, _client_app, _in_game, _lobby_ready, _said, _until_app
from tui_app import screen_text

TEXT = {
    "en": {"waiting": "waiting for players", "open1": "[waiting for players · 1 open]",
           "rules": "clock off · AI after 60 s · takeover AI normal", "code": "join code",
           "wrong": "Wrong join code. Try again", "left": "left the table; the AI plays it",
           "dropped": "lost the connection", "begins": "The game begins",
           "stopped": "The host has stopped; your seat stays yours"},
    "ja": {"waiting": "参加者を待っています", "open1": "[参加者待ち・空席1]",
           "rules": "持ち時間 なし・代行まで 60秒・代行AI ふつう", "code": "参加コード",
           "wrong": "参加コードが違います。もう一度入力してください", "left": "テーブルを離れました。戻るまでAIが代行します",
           "dropped": "接続が切れました", "begins": "ゲームが始まります",
           "stopped": "ホストが停止しました。席はあなたのままです"},
}


async def _make_private(app, pilot) -> None:
    """c, Private on (the 7th row), Enter on the last row: the waiting room."""
    await _until_app(pilot, lambda: _lobby_ready(app))
    await pilot.press("c")
    await _until_app(pilot, lambda: type(app.screen).__name__.startswith("CreateScreen"))
    await pilot.press(*["down"] * 6, "right", "end", "enter")
    await _until_app(pilot, lambda: isinstance(app.screen, WaitingScreen) and app.screen.owner()
                     and app.session.table_facts(app.screen.table).get("code"))


def _log(app) -> list:
    return [getattr(e, "chat", "") or "" for e in app.feeds[app.viewer].log]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_waiting_room_a_wrong_code_asked_again_and_leaving_told_apart(tmp_path, lang):
    w = TEXT[lang]

    async def run():
        async with Host(tmp_path) as host:
            ann = _client_app(host, "ann", lang)
            bob = _client_app(host, "bob", lang)
            async with ann.run_test(size=(80, 24)) as pa, bob.run_test(size=(80, 24)) as pb:
                await _make_private(ann, pa)
                table = next(iter(host.server.tables.values()))
                code = table.code
                shown = screen_text(ann)
                top = shown.splitlines()[0]
                # the creator's header carries the code; the rules of play are said
                assert w["waiting"] in top and code in top
                assert w["rules"] in shown and all(len(x) <= 80 for x in shown.splitlines())
                assert table.waiting and table.live.version == 0
                # Bob's lobby: the waiting table first, its free seat, its rules, no code
                await _until_app(pb, lambda: _lobby_ready(bob))
                await pb.press("r")
                await _until_app(pb, lambda: table.id in bob.session.tables)
                await pb.pause(0.2)
                lobby = screen_text(bob)
                assert w["open1"] in lobby and w["rules"] in lobby and code not in lobby
                # a wrong code: refused, asked again saying why, never shown as the table's
                await pb.press("j")
                await _until_app(pb, lambda: isinstance(bob.screen, LineScreen))
                await pb.press(*"ZZZZZZ", "enter")
                await _until_app(pb, lambda: isinstance(bob.screen, LineScreen)
                                 and w["wrong"] in screen_text(bob))
                assert "ZZZZZZ" not in str(bob.session.codes) and table.id not in bob.session.codes
                # the right one (typed in lower case): seated — every seat taken, it starts
                await pb.press(*code.lower(), "enter")
                await _until_app(pb, lambda: _in_game(bob))
                await _until_app(pa, lambda: _in_game(ann))
                assert not table.waiting
                # both are told the game begins, with its rules of play (the one whose join
                # filled it too: the table's facts come before its first update)
                for app in (ann, bob):
                    assert any(w["begins"] in line and w["rules"] in line for line in _log(app)), [x for x in _log(app) if x]
                # `?` in the game: the table's rules of play first (and, private, its code)
                await pa.press("question_mark")
                await _until_app(pa, lambda: w["rules"] in screen_text(ann))
                assert code in screen_text(ann)
                await pa.press("escape")
                # Bob leaves on purpose (to the lobby; Ctrl+C, y does the same on its way
                # out: app.on_unmount): "left the table", not a lost connection
                said = _said(ann)
                bob.action_back_to_title()
                await _until_app(pb, lambda: isinstance(bob.screen, LobbyScreen))
                await _until_app(pa, lambda: any(w["left"] in line for line in _log(ann)))
                assert not any(w["dropped"] in line for line in _log(ann)) and said
                assert table.slots[1].takeover and table.slots[1].left
    asyncio.run(run())


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_lost_connection_is_said_as_such_and_the_host_stopping_too(tmp_path, lang):
    w = TEXT[lang]

    async def run():
        async with Host(tmp_path) as host:
            ann = _client_app(host, "ann", lang)
            bob = _client_app(host, "bob", lang)
            async with ann.run_test(size=(80, 24)) as pa, bob.run_test(size=(80, 24)) as pb:
                await _until_app(pa, lambda: _lobby_ready(ann))
                await pa.press("c")
                await _until_app(pa, lambda: type(ann.screen).__name__.startswith("CreateScreen"))
                await pa.press("end", "enter")
                await _until_app(pa, lambda: isinstance(ann.screen, WaitingScreen))
                await _until_app(pb, lambda: _lobby_ready(bob))
                await pb.press("r")
                table = next(iter(host.server.tables.values()))
                await _until_app(pb, lambda: table.id in bob.session.tables)
                await pb.press("j")
                await _until_app(pb, lambda: _in_game(bob))
                await _until_app(pa, lambda: _in_game(ann))
                said = _said(ann)
                bob.leaving = True               # a hang-up (SIGHUP): no `leave`
                bob.session.client.shutdown()
                await _until_app(pa, lambda: any(w["dropped"] in line for line in _log(ann)))
                assert not any(w["left"] in line for line in _log(ann)) and said
                assert not table.slots[1].left and not table.slots[1].takeover
                # the host stops: said as such (not "connection lost"), and it reconnects
                await host.server.stop()
                from tactical_tui.screens.online.status import NetBanner
                await _until_app(pa, lambda: ann.screen.query(NetBanner)
                                 and w["stopped"] in str(ann.screen.query_one(NetBanner).render()))
    asyncio.run(run())


def test_the_way_back_keeps_the_options_and_the_launcher(monkeypatch):
    """Issue 31 point 7, issue 32 point 3: `tactical join … --lang ja` comes back with
    `--lang ja`; started through run.py (TACTICAL_COMMAND), every printed command is
    `python3 run.py …`."""
    from types import SimpleNamespace

    from tactical_tui import exitline
    from tactical_tui.screens.online import lobby
    session = SimpleNamespace(address="127.0.0.1:7411", client=SimpleNamespace(name="花子"))
    monkeypatch.delenv("TACTICAL_COMMAND", raising=False)
    monkeypatch.setattr(lobby, "JOIN_OPTIONS", ["--lang", "ja"])
    assert lobby.join_command(session) == "tactical join 127.0.0.1:7411 --name '花子' --lang ja"
    assert exitline.resume_command() == "tactical --resume"
    monkeypatch.setenv("TACTICAL_COMMAND", "python3 run.py")
    assert lobby.join_command(session) == "python3 run.py join 127.0.0.1:7411 --name '花子' --lang ja"
    assert exitline.resume_command() == "python3 run.py --resume"
    monkeypatch.setenv("TACTICAL_COMMAND", "python3 run.py\x1b[2J")     # not a command: ignored
    assert exitline.resume_command() == "tactical --resume"
    # run.py says how it was started
    import importlib.util
    import sys
    from pathlib import Path
    spec = importlib.util.spec_from_file_location("run_py", Path(__file__).parent.parent / "run.py")
    run_py = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_py)
    monkeypatch.setattr(sys, "argv", ["run.py", "--resume"])
    assert run_py.launcher_command() == "python3 run.py"
    monkeypatch.setattr(sys, "argv", ["../game dir/run.py"])
    assert run_py.launcher_command() == "python3 '../game dir/run.py'"


def test_the_exit_lines_say_the_launcher(tmp_path, monkeypatch):
    """The quit dialog and the exit line of a saved solo game name `python3 run.py
    --resume` when started through run.py (en, ja)."""
    from types import SimpleNamespace

    from tactical_tui import exitline
    save = tmp_path / "g.json"
    save.write_text("{}")
    table = SimpleNamespace(save_path=save, save_problem=None, state=SimpleNamespace(phase="battle"))
    monkeypatch.setenv("TACTICAL_COMMAND", "python3 run.py")
    for lang, start in (("en", "Saved. Continue with: python3 run.py --resume"),
                        ("ja", "保存しました。続きは: python3 run.py --resume")):
        chosen = SimpleNamespace(settings=SimpleNamespace(lang=lang))   # no --lang needed
        app = SimpleNamespace(table=table, lang=lang, session=None, store=chosen)
        assert exitline.exit_line(app) == start
        assert "python3 run.py --resume" in exitline.quit_question(app)


def test_the_door_remembers_a_players_language(tmp_path):
    """Issue 31 point 7: a player who came in Japanese (LANG sent) is in Japanese again
    when their next ssh sends no language; a language sent wins; the memory is kept in
    the host's folder (private), bounded, and survives a new door."""
    import os
    import stat

    from tactical_tui.net.sshdoor import LangMemory, given_lang
    assert given_lang({"LANG": "ja_JP.UTF-8"}) == "ja" and given_lang({"LANG": "en_GB.UTF-8"}) == "en"
    assert given_lang({}) is None and given_lang({"LANG": "C.UTF-8"}) is None
    mem = LangMemory(tmp_path, most=3)
    taro = LangMemory.tag(None, "taro")
    assert LangMemory.tag("SHA256:x", "taro") != taro
    mem.put(taro, "ja")
    assert LangMemory(tmp_path).get(taro) == "ja"                # a new door: still known
    assert stat.S_IMODE(os.stat(tmp_path / LangMemory.FILE).st_mode) == 0o600
    assert "taro" not in (tmp_path / LangMemory.FILE).read_text()
    for name in ("a", "b", "c"):
        mem.put(LangMemory.tag(None, name), "en")
    assert LangMemory(tmp_path, most=3).get(taro) is None         # the oldest forgotten
    (tmp_path / LangMemory.FILE).write_text("not json")
    assert LangMemory(tmp_path).langs == {}
    # the file is written when what it holds changes, not each time a player is seen
    mem = LangMemory(tmp_path / "again", most=3)
    mem.put(taro, "ja")
    path = tmp_path / "again" / LangMemory.FILE
    os.utime(path, ns=(0, 0))
    mem.put(taro, "ja")
    assert os.stat(path).st_mtime_ns == 0
    mem.put(taro, "en")
    assert os.stat(path).st_mtime_ns != 0 and LangMemory(tmp_path / "again").get(taro) == "en"


@pytest.mark.parametrize("lang, left, dropped, gave_up, lobby", [
    ("en", "* Seat 2 (bob) left the table; the AI plays it until they come back",
     "* Seat 2 (bob) lost the connection", "* bob left Seat 2 (it is open again)", "2 bob (left)"),
    ("ja", "* 席2（bob）がテーブルを離れました。戻るまでAIが代行します",
     "* 席2（bob）の接続が切れました", "* bobが席2を離れました（空席になりました）", "2 bob（退席）")])
def test_what_a_seats_change_says(lang, left, dropped, gave_up, lobby):
    """Issue 31 point 3: the log line of a seat whose player left on purpose, of one whose
    connection dropped, of a waiting table's seat given up; the lobby's word for a seat
    left after the game's end (not "disconnected")."""
    from tactical_tui.screens.online.words import seat_note, seat_words
    was = {"seat": 1, "kind": "human", "name": "bob", "status": "connected", "left": False}
    assert seat_note(was, {**was, "status": "ai_takeover", "left": True}, lang) == left
    assert seat_note(was, {**was, "status": "disconnected"}, lang).startswith(dropped)
    assert seat_note(was, {"seat": 1, "kind": "open", "name": None, "status": "open"}, lang) == gave_up
    over = {**was, "status": "disconnected", "left": True}
    assert seat_words(over, lang) == lobby
    assert "left the table" in seat_note(was, over, "en") and "lost" not in seat_note(was, over, "en")


@pytest.mark.parametrize("lang, words", [("en", "Start a server with: python3 run.py host"),
                                         ("ja", "サーバーは python3 run.py host で起動します")])
def test_no_server_names_the_command_that_starts_one(monkeypatch, lang, words):
    """Issue 32 point 3: `join` to a port where nothing listens says how to start a host,
    as this game was started (run.py)."""
    import socket
    from types import SimpleNamespace

    from tactical_tui.cli import join_args
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]             # (closed again: nothing listens there)
    monkeypatch.setenv("TACTICAL_COMMAND", "python3 run.py")
    got, problem = join_args(SimpleNamespace(address=f"127.0.0.1:{port}", name="ann", socket=None), lang)
    assert got is None and words in problem


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_how_to_play_names_the_launcher(monkeypatch, lang):
    """Issue 32 point 3: How to play's keys page says `python3 run.py --resume` when the
    game was started through run.py, `tactical --resume` otherwise."""
    from tactical_tui.screens.howto import page_text
    monkeypatch.delenv("TACTICAL_COMMAND", raising=False)
    assert "tactical --resume" in page_text(None, "keys", lang)
    monkeypatch.setenv("TACTICAL_COMMAND", "python3 run.py")
    text = page_text(None, "keys", lang)
    assert "python3 run.py --resume" in text and "tactical --resume" not in text


def test_the_create_forms_levels_cycle_by_strength(tmp_path):
    """Issue 32 point 13 at a server's table too: a seat's row cycles open → random → easy
    → normal → hard, and the takeover AI random → easy → normal → hard, as New game's
    seats do (it went open → normal → hard → easy → random)."""
    async def run():
        async with Host(tmp_path) as host:
            ann = _client_app(host, "ann", "en")
            async with ann.run_test(size=(80, 24)) as pa:
                await _until_app(pa, lambda: _lobby_ready(ann))
                await pa.press("c")
                await _until_app(pa, lambda: type(ann.screen).__name__.startswith("CreateScreen"))
                form = ann.screen
                await pa.press("down")                      # the first seat's row
                seen = [form.seats[0]]
                for _ in range(5):
                    await pa.press("right")
                    seen.append(form.seats[0])
                assert seen == ["open", "random", "easy", "normal", "hard", "open"]
                takeover = [form.takeover]
                form.query_one("#form").highlighted = [
                    o.id for o in form.query_one("#form")._options].index("takeover")
                for _ in range(4):
                    await pa.press("right")
                    takeover.append(form.takeover)
                assert takeover == ["normal", "hard", "random", "easy", "normal"]
    asyncio.run(run())


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_only_the_owners_footer_offers_to_change_the_seats(tmp_path, lang):
    """The waiting room's ←→ change seats and settings for its owner only: another
    player's Footer does not show the key (it showed "← Change", which did nothing)."""
    change = {"en": "Change", "ja": "変更"}[lang]

    async def run():
        async with Host(tmp_path) as host:
            ann = _client_app(host, "ann", lang)
            bob = _client_app(host, "bob", lang)
            async with ann.run_test(size=(80, 24)) as pa, bob.run_test(size=(80, 24)) as pb:
                await _until_app(pa, lambda: _lobby_ready(ann))
                await pa.press("c")
                await _until_app(pa, lambda: type(ann.screen).__name__.startswith("CreateScreen"))
                await pa.press("down", "down", "down", "right", "right")   # seat 3: hard → open
                assert ann.screen.seats[2] == "open"
                await pa.press("end", "enter")
                await _until_app(pa, lambda: isinstance(ann.screen, WaitingScreen) and ann.screen.owner())
                table = next(iter(host.server.tables.values()))
                await _until_app(pb, lambda: _lobby_ready(bob))
                await pb.press("r")
                await _until_app(pb, lambda: table.id in bob.session.tables)
                await pb.press("j")
                await _until_app(pb, lambda: isinstance(bob.screen, WaitingScreen)
                                 and bob.screen.seat is not None)
                chat = {"en": "Chat", "ja": "チャット"}[lang]

                def footer(app) -> str:         # the last line with something on it
                    lines = [x for x in screen_text(app).splitlines() if x.strip()]
                    return lines[-1] if lines else ""
                # both Footers drawn (the chat key is on both)
                await _until_app(pa, lambda: chat in footer(ann) and change in footer(ann))
                await _until_app(pb, lambda: chat in footer(bob))
                assert table.waiting
                assert change not in footer(bob), footer(bob)
                before = host.server.tables[table.id].live.game.state
                await pb.press("left")
                assert host.server.tables[table.id].live.game.state is before
    asyncio.run(run())


def test_a_guests_code_is_forgotten_when_the_table_gets_a_new_one():
    """A guest keeps the code they typed while the table stays private; when its owner
    makes it public, or private anew (a fresh code), the old code is no longer shown as
    the table's (review of issue 31)."""
    from tactical_tui.net.remote import Session
    session = Session("127.0.0.1", 7411, "bob", "en")
    seats = lambda private: {"t": "seats", "table": "t1", "seats": [], "private": private}
    session._message(seats(True))
    session.codes["t1"] = "ABCDEF"                      # typed to join
    session._message(seats(True))
    assert session.codes.get("t1") == "ABCDEF"
    session._message(seats(False))                      # made public
    assert "t1" not in session.codes
    session.codes["t1"] = "ABCDEF"
    session._message(seats(True))                       # private anew: a fresh code
    assert "t1" not in session.codes


def test_a_last_request_goes_out_after_the_ones_sent_before_it():
    """Review of issue 31: `send` wrote in a task and `send_last` at once, so a `leave`
    (Esc in the waiting room) right after a `send` could reach the host first, with the
    later id — refused `bad_id`. Requests are written in the order their ids are taken."""
    import json

    from tactical_tui.net.client import Client
    from tactical_tui.net.protocol import _HEADER

    class Writer:                       # the socket's write side; drain waits a turn
        def __init__(self):
            self.data = b""
            self.transport = type("T", (), {"is_closing": lambda self: False})()

        def write(self, data: bytes) -> None:
            self.data += data

        async def drain(self) -> None:
            await asyncio.sleep(0)

    def frames(data: bytes) -> list:
        out = []
        while data:
            (n,) = _HEADER.unpack(data[:_HEADER.size])
            out.append(json.loads(data[_HEADER.size:_HEADER.size + n]))
            data = data[_HEADER.size + n:]
        return out

    async def run():
        client = Client("127.0.0.1", 1, "ann", "en")
        client._writer, client._lock = Writer(), asyncio.Lock()
        fut = client.send("list")
        fut.add_done_callback(lambda f: f.cancelled() or f.exception())
        assert client.send_last("leave", table="t1")
        sent = frames(client._writer.data)
        assert [(m["t"], m["id"]) for m in sent] == [("list", 1), ("leave", 2)]
        await asyncio.sleep(0.01)
        fut.cancel()
    asyncio.run(run())


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_owner_alone_starts_the_table_and_its_game_replaces_the_waiting_room(tmp_path, lang):
    """Issue 31 point 1: the owner presses Enter on Start with a seat still open — the
    table starts (the open seat played by the takeover AI) and the owner's waiting room
    gives way to the game (it stayed on screen, the game running beneath it)."""

    async def run():
        async with Host(tmp_path) as host:
            ann = _client_app(host, "ann", lang)
            async with ann.run_test(size=(80, 24)) as pa:
                await _until_app(pa, lambda: _lobby_ready(ann))
                await pa.press("c")
                await _until_app(pa, lambda: type(ann.screen).__name__.startswith("CreateScreen"))
                await pa.press("end", "enter")
                await _until_app(pa, lambda: isinstance(ann.screen, WaitingScreen) and ann.screen.owner())
                table = next(iter(host.server.tables.values()))
                assert table.waiting and table.slots[1].kind == "open"
                await pa.pause(2.0)
                await pa.press("enter")                           # Start (the cursor is on it)
                await _until_app(pa, lambda: not table.waiting)
                await _until_app(pa, lambda: _in_game(ann))
                assert not any(isinstance(s, WaitingScreen) for s in ann.screen_stack)
                assert any(TEXT[lang]["begins"] in line for line in _log(ann))
    asyncio.run(run())


def test_a_views_error_does_not_end_the_clients_reading():
    """A message handler that raises (a view's bug) no longer ends the client's read loop:
    the exception went up through it and the client heard nothing more from the server
    — the owner's waiting room stayed up while the game ran (issue 31, found in tmux)."""
    from tactical_tui.net.client import Client
    got = []

    def handler(msg) -> None:
        got.append(msg["t"])
        if len(got) == 1:
            raise RuntimeError("a view's bug")

    client = Client("127.0.0.1", 1, "ann", "en", on_message=handler)
    client._dispatch({"t": "chat", "table": "abcd1234", "seat": 0, "name": "bob", "text": "hi"})
    client._dispatch({"t": "bye", "code": "server_stopping"})
    assert got == ["chat", "bye"] and client.handler_errors == 1
    assert isinstance(client.last_handler_error, RuntimeError)


def test_the_waiting_room_is_not_drawn_before_it_is_composed(tmp_path):
    """`waiting_refresh` while the waiting room had its top bar but not yet its body (a
    `seats` message came in that moment: seen in tmux, about one start in ten) raised
    NoMatches — which ended the client's read loop (test above). A room whose parts are
    not all there is left for its mount to draw (the state stood in for by removing a
    part: the moment itself is a race)."""
    from textual.widgets import Static
    from tactical_tui.screens.online.waiting import wait_at, waiting_refresh

    async def run():
        async with Host(tmp_path) as host:
            ann = _client_app(host, "ann", "en")
            async with ann.run_test(size=(80, 24)) as pa:
                await _until_app(pa, lambda: _lobby_ready(ann))
                wait_at(ann, "abcd1234", 0)
                await _until_app(pa, lambda: isinstance(ann.screen, WaitingScreen)
                                 and ann.screen.query("#wait-info"))
                await ann.screen.query_one("#wait-info", Static).remove()
                assert ann.screen.query("#topbar") and not ann.screen.query("#wait-info")
                assert waiting_refresh(ann)          # (raised NoMatches before)
    asyncio.run(run())
