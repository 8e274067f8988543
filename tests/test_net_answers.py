"""`tactical join` against a server that answers badly (docs/PROTOCOL.md "Versions and
unknown fields", "Connections"): an answer this version cannot read fails its request at
once, silence fails it after the client's request timeout (shortened here), the lobby
says which (and shows a refused table list, as data), a `bye` of a code this version
does not know ends the connection without a reconnect loop; a newer host's extra field
is ignored. The stand-in server (`Fake`) is in process, on an ephemeral port."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from tactical_tui.app import TacticalApp
from tactical_tui.net import client as C
from tactical_tui.net import protocol as P
from tactical_tui.net.protocol import MAX_CLIENT_FRAME, read_frame, write_frame
from tui_app import screen_text

HOSTILE = "\x1b]0;pwned\x07\x1b[31m[bold red]R[/]"
WAIT = 30.0


def _fingerprint() -> str:
    from rules.cards import fingerprint
    from tactical_tui.table.cardcache import default_cards
    return fingerprint(default_cards())


def _table(**extra) -> dict:
    seat = {"seat": 0, "kind": "open", "name": None, "level": None, "status": "open"}
    return {"table": "t1", "phase": "draft", "private": False, "version": 0, "over": False,
            "seats": [dict(seat, **extra.pop("seat_extra", {}))], **extra}


class Fake:
    """Answers hello; `list` as `mode` says: ok, garbage (its id, tables not a list),
    garbage_no_id, silent, refuse (a hostile code and params), bye (a hostile code, then
    closed), newer (TableInfo and SeatInfo with a field more); any other request: ok."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.requests: list = []

    async def start(self) -> int:
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    def hellos(self) -> int:
        return sum(1 for m in self.requests if m["t"] == "hello")

    async def handle(self, reader, writer) -> None:
        try:
            while (msg := await read_frame(reader, MAX_CLIENT_FRAME)) is not None:
                self.requests.append(msg)
                rid, t = msg["id"], msg["t"]
                if t == "hello" and self.mode == "slowhello":   # chatter, never an answer
                    for _ in range(200):
                        await write_frame(writer, {"t": "chat", "table": None, "seat": None,
                                                   "name": "x", "text": "hi"})
                        await asyncio.sleep(0.05)
                    continue
                if t == "hello":
                    answer = {"t": "ok", "id": rid, "v": 1, "server": "tactical",
                              "cards": _fingerprint()}
                elif t != "list" or self.mode == "ok":
                    answer = {"t": "ok", "id": rid, **({"tables": []} if t == "list" else {})}
                elif self.mode == "garbage":
                    answer = {"t": "ok", "id": rid, "tables": "nope"}
                elif self.mode == "garbage_no_id":
                    answer = {"t": "ok", "tables": "nope"}
                elif self.mode == "silent":
                    continue
                elif self.mode == "refuse":
                    answer = {"t": "refused", "id": rid, "code": HOSTILE,
                              "params": {"why": HOSTILE}}
                elif self.mode == "bye":
                    await write_frame(writer, {"t": "bye", "code": HOSTILE})
                    writer.close()
                    return
                elif self.mode == "badframe":       # a whole frame that is not JSON, then the list
                    body = b"{not json"
                    writer.write(len(body).to_bytes(4, "big") + body)
                    answer = {"t": "ok", "id": rid, "tables": []}
                elif self.mode == "stray":          # the list, then an update no one can read
                    await write_frame(writer, {"t": "ok", "id": rid, "tables": []})
                    answer = {"t": "update", "table": "t1", "update": "junk"}
                elif self.mode == "newer":
                    answer = {"t": "ok", "id": rid, "tables": [_table(name="Friday game",
                                                                      seat_extra={"away": True})],
                              "motd": "hi"}
                await write_frame(writer, answer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            return

    def close(self) -> None:
        self.server.close()


@contextlib.asynccontextmanager
async def _lobby_app(mode: str, lang: str = "en"):
    """`tactical join` (the app, headless at 80×24) against a Fake server in `mode`:
    (app, pilot, fake)."""
    fake = Fake(mode)
    port = await fake.start()
    app = TacticalApp(lang=lang, ai_delay=0.0, autosave=False, join=("127.0.0.1", port, "carol"))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            yield app, pilot, fake
    finally:
        fake.close()


async def _until(pilot, cond) -> None:
    for _ in range(1500):
        if cond():
            return
        await pilot.pause(0.01)


async def _client(mode: str, **kw):
    fake = Fake(mode)
    port = await fake.start()
    client = C.Client("127.0.0.1", port, "carol", "en", delays=lambda: iter([0.01] * 1000), **kw)
    await client.start()
    return fake, client


# ------------------------------------------------------------------ the client

def test_an_answer_that_fails_the_check_fails_its_request_at_once():
    async def run():
        fake, client = await _client("garbage", request_timeout=600)
        with pytest.raises(C.BadAnswer):
            await asyncio.wait_for(client.request("list"), WAIT)
        assert client.bad_messages == 1 and client.connected and not client._pending
        await client.close()
        fake.close()
    asyncio.run(run())


def test_a_request_without_an_answer_fails_after_the_timeout():
    async def run():
        for mode in ("silent", "garbage_no_id"):        # (no id: nothing to tie it to)
            fake, client = await _client(mode, request_timeout=0.2)
            with pytest.raises(C.NoAnswer):
                await asyncio.wait_for(client.request("list"), WAIT)
            assert client.connected and not client._pending
            assert (await client.request("ping"))["t"] == "ok"     # the connection goes on
            await client.close()
            fake.close()
    asyncio.run(run())


def test_a_newer_hosts_extra_fields_are_ignored():
    async def run():
        fake, client = await _client("newer")
        answer = await asyncio.wait_for(client.request("list"), WAIT)
        info = answer["tables"][0]
        assert info.table == "t1" and info.seats[0].status == "open"
        assert client.bad_messages == 0
        await client.close()
        fake.close()
    asyncio.run(run())
    seat = {"seat": 0, "kind": "open", "name": None, "level": None, "status": "open"}
    assert P.check_server_message({"t": "seats", "table": "t", "seats": [seat], "x": 1}) \
        == {"t": "seats", "table": "t", "seats": (P.SeatInfo(0, "open"),)}
    assert P.check_server_message({"t": "bye", "code": "idle", "why": "x"}) == {"t": "bye", "code": "idle"}
    for bad in ({**seat, "status": "away"}, {k: v for k, v in seat.items() if k != "status"},
                {**seat, "seat": "0"}):
        with pytest.raises(ValueError):
            P.check_server_message({"t": "seats", "table": "t", "seats": [bad]})
    with pytest.raises(ValueError):
        P.table_info({k: v for k, v in _table().items() if k != "over"})


def test_a_bye_of_an_unknown_code_ends_the_connection_without_reconnecting():
    async def run():
        fake, client = await _client("bye")
        statuses = []
        client.on_status = lambda s, r: statuses.append(s)
        with pytest.raises(C.ConnectionLost):
            await asyncio.wait_for(client.request("list"), WAIT)
        for _ in range(300):
            if client.status == "closed":
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)                       # (time for 20 reconnects at 0.01 s)
        assert client.status == "closed" and client.bye == HOSTILE
        assert fake.hellos() == 1 and "reconnecting" not in statuses
        fake.close()
    asyncio.run(run())


def test_an_unreadable_message_that_answers_nothing_is_said_not_silently_dropped():
    """An update that failed the check was dropped in silence: the game screen simply
    stopped following the table. It is passed on as `unreadable` (with its table)."""
    async def run():
        fake, client = await _client("stray")
        seen = []
        client.on_message = seen.append
        assert (await asyncio.wait_for(client.request("list"), WAIT))["tables"] == []
        for _ in range(300):
            if seen:
                break
            await asyncio.sleep(0.01)
        assert seen == [{"t": "unreadable", "table": "t1"}] and client.bad_messages == 1
        await client.close()
        fake.close()
    asyncio.run(run())


@pytest.mark.parametrize("lang, words", [
    ("en", "cannot read; it was dropped, so the screen may be out of date"),
    ("ja", "画面が最新でないかもしれません")])
def test_the_app_says_an_unreadable_message_was_dropped(monkeypatch, lang, words):
    async def run():
        async with _lobby_app("stray", lang) as (app, pilot, _):
            await _until(pilot, lambda: any(words in n.message for n in app._notifications))
            said = [n.message for n in app._notifications if words in n.message]
            assert len(said) == 1
    asyncio.run(run())


def test_a_frame_that_is_not_json_is_dropped_not_a_reconnect():
    """A whole frame that is not a JSON object (bad JSON, too deep, a huge number) was
    taken for a broken socket: the client reconnected about once a second for ever."""
    async def run():
        fake, client = await _client("badframe")
        seen = []
        client.on_message = seen.append
        assert (await asyncio.wait_for(client.request("list"), WAIT))["tables"] == []
        await asyncio.sleep(0.2)
        assert fake.hellos() == 1 and client.connected and client.bad_messages == 1
        assert seen == [{"t": "unreadable", "table": None}]
        await client.close()
        fake.close()
    asyncio.run(run())


def test_the_hello_has_one_deadline_whatever_else_the_server_sends():
    """A server that sent a frame every few seconds and never answered the hello kept
    the lobby on "Connecting…" for ever (the timeout was per frame)."""
    async def run():
        fake = Fake("slowhello")
        port = await fake.start()
        client = C.Client("127.0.0.1", port, "carol", "en", connect_timeout=0.3)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(client.start(), WAIT)
        assert loop.time() - t0 < 2.0
        fake.close()
    asyncio.run(run())


def test_the_client_pings_when_it_has_sent_nothing_for_a_while():
    async def run():
        fake, client = await _client("ok", keepalive=0.05)
        for _ in range(300):
            if sum(1 for m in fake.requests if m["t"] == "ping") >= 2:
                break
            await asyncio.sleep(0.01)
        assert sum(1 for m in fake.requests if m["t"] == "ping") >= 2
        await client.close()
        fake.close()
    asyncio.run(run())


# ------------------------------------------------------------------ the lobby

async def _lobby_says(mode: str, lang: str, monkeypatch, *wanted: str) -> str:
    monkeypatch.setattr(C, "REQUEST_TIMEOUT", 0.3)
    async with _lobby_app(mode, lang) as (app, pilot, _):
        await _until(pilot, lambda: all(w in screen_text(app) for w in wanted))
        text = screen_text(app)
        assert all(w in text for w in wanted), text
        return text


@pytest.mark.parametrize("lang, words", [
    ("en", ("The server sent something this version cannot read", "r: try again")),
    ("ja", ("サーバーから、この版では読めない応答が届きました", "r: 再試行"))])
def test_the_lobby_says_the_server_sent_what_it_cannot_read(monkeypatch, lang, words):
    async def run():
        text = await _lobby_says("garbage", lang, monkeypatch, *words)
        assert "Connecting" not in text and "接続しています" not in text
    asyncio.run(run())


@pytest.mark.parametrize("lang, words", [("en", ("No answer from the server", "r: try again")),
                                         ("ja", ("サーバーから応答がありません", "r: 再試行"))])
def test_the_lobby_says_when_the_server_does_not_answer(monkeypatch, lang, words):
    async def run():
        text = await _lobby_says("silent", lang, monkeypatch, *words)
        assert "Connecting" not in text and "接続しています" not in text
    asyncio.run(run())


@pytest.mark.parametrize("lang, words", [("en", "The server refused the table list"),
                                         ("ja", "サーバーがテーブルの一覧を断りました")])
def test_the_lobby_shows_a_refused_table_list_as_data(monkeypatch, lang, words):
    async def run():
        text = await _lobby_says("refuse", lang, monkeypatch, words, "\\x1b]0;pwned")
        assert "[bold red]R[/]" in text                  # shown as written, not markup
        assert "No tables yet" not in text and "テーブルはまだありません" not in text
    asyncio.run(run())


@pytest.mark.parametrize("lang, words", [("en", "Disconnected by the server (\\x1b]0;pwn"),
                                         ("ja", "サーバーに切断されました（\\x1b]0;pwn")])
def test_an_unknown_bye_is_a_disconnection_with_its_code_and_no_reconnect_loop(monkeypatch, lang, words):
    async def run():
        monkeypatch.setattr(C, "backoff", lambda first=1.0, most=30.0: iter([0.01] * 1000))
        async with _lobby_app("bye", lang) as (app, pilot, fake):
            await _until(pilot, lambda: words in screen_text(app))
            assert words in screen_text(app)
            await pilot.pause(0.3)
            text = screen_text(app)
            assert fake.hellos() == 1 and "Reconnected" not in text and "再接続しました" not in text
            assert words in text and ("r: try again" in text or "r: 再試行" in text)
            assert "No tables yet" not in text and "テーブルはまだありません" not in text
    asyncio.run(run())


def test_keys_typed_after_quitting_are_not_taken():
    """`Ctrl+C y r c Enter` in one burst in the lobby: the `c` opened the create form while
    the app was closing, and its mount crashed (NoMatches) — a traceback on the player's
    terminal after the game. Once the player has chosen to quit, no key is taken."""
    from textual import events

    async def run():
        async with _lobby_app("ok") as (app, pilot, _):
            await _until(pilot, lambda: "No tables yet" in screen_text(app))
            await pilot.press("ctrl+c")
            await pilot.pause(0.1)
            pushed = []
            app.push_screen = lambda *a, **k: pushed.append(a)
            for key in ("y", "r", "c", "enter"):              # one read: queued together
                app.post_message(events.Key(key, key if len(key) == 1 else None))
            await pilot.pause(0.3)
            assert app.quitting and not pushed
        assert app.return_code == 0
    asyncio.run(run())


@pytest.mark.parametrize("answer", [
    {"table": ["a"], "seat": 0, "token": "t"},           # a TypeError in the lobby: a traceback
    {"table": "t1", "seat": "zero", "token": "t"},
    {"table": "t1", "seat": 10 ** 18, "token": "t"},
    {"table": "t1", "seat": True, "token": "t"},
    {"table": "t1", "seat": 0, "token": 5},
    {"table": "t1", "code": 7},
])
def test_an_ok_answer_of_the_wrong_kind_fails_the_check(answer):
    with pytest.raises(ValueError):
        P.check_server_message({"t": "ok", "id": 3, **answer})


def test_ok_answers_the_server_sends_pass_the_check():
    for answer in ({"table": "t1", "seat": 4, "token": "x"}, {"table": "t1"},
                   {"table": "t1", "code": None}, {"table": "t1", "code": "ABCD"},
                   {"toml": "x = 1"}, {"version": 3}, {}):
        assert P.check_server_message({"t": "ok", "id": 3, **answer})["id"] == 3
    seat = {"seat": 10 ** 18, "kind": "open", "name": None, "level": None, "status": "open"}
    with pytest.raises(ValueError):                       # "Sit at seat 1000000000000000001"
        P.check_server_message({"t": "seats", "table": "t", "seats": [seat]})
