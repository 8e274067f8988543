"""`tactical join` (issue 17 point 4): the app as a client of a table server — the lobby,
the phase screens as live views of a remote seat, the reconnect banner, the chat.

The table source seam is tested first against an in-process table behind the wire codec
(a stand-in connection: every update is encoded and decoded as the server would send
it); the rest with the table server itself, in process, on an ephemeral port."""

from __future__ import annotations

import asyncio
import json

import pytest
from textual import events

from rules import actions as A
from tactical_tui.app import TacticalApp
from tactical_tui.net import wire
from tactical_tui.net.protocol import check_server_message
from tactical_tui.net.remote import Session
from tactical_tui.screens.game import GameScreen
from tactical_tui.screens.gameover import GameOverScreen
from tactical_tui.table.live import Applied, GameTable, LiveTable, Refused, SeatSetup
from tui_app import dialog_open, screen_text


# ------------------------------------------------------------------ a stand-in connection

class WireClient:
    """The part of net.client.Client that RemoteTable uses, answered by an in-process
    LiveTable through the wire codec (what the server does with a `submit`)."""

    def __init__(self, live: LiveTable, seat: int, session: Session) -> None:
        self.live, self.seat, self.session = live, seat, session
        self.connected = True
        self.name = "tester"
        self.host, self.port = "127.0.0.1", 7411
        self.status = "connected"
        self.seats = {"1": {"seat": seat, "token": "x"}}
        self.watching = {}
        self.sent = []
        self.delay = 0.0               # the answer comes after this many seconds

    def shutdown(self) -> None:
        self.connected = False

    def send(self, kind, **fields):
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self.sent.append((kind, fields))

        def answer() -> None:
            from tactical_tui.net.client import Refusal
            if kind == "submit":
                result = self.live.submit(self.seat, wire.action_from_wire(fields["action"]))
            elif kind == "undo":
                result = self.live.undo(self.seat)
            else:
                result = Applied(self.live.version)
            if isinstance(result, Refused):
                fut.set_exception(Refusal(result.code, result.params))
            else:
                fut.set_result({"t": "ok", "version": result.version})
        loop.call_later(self.delay, answer)
        return fut


def _wired(seed: int, seats=("human", "normal", "normal", "normal")):
    from rules import Config
    game = GameTable(Config(players=len(seats), first_game=True),
                     tuple(SeatSetup(human=s == "human", level="normal" if s == "human" else s)
                           for s in seats), seed)
    live = LiveTable(game, ai_delay=0.0)
    session = Session("127.0.0.1", 7411, "tester", "en", cards=game.cards)
    client = WireClient(live, 0, session)
    session.client = client
    live.subscribe(0, callback=lambda u: session._message(check_server_message(json.loads(
        json.dumps({"t": "update", "table": "1", "update": wire.update_to_wire(u)})))))
    return live, session, client


def _said(app) -> list:
    """Every notification the app shows from now on (its text), in order."""
    shown = []
    real = app.notify
    app.notify = lambda msg, **kw: (shown.append(msg), real(msg, **kw))
    return shown


async def _wait(pilot, done, rounds: int = 400) -> None:
    for _ in range(rounds):
        if done():
            return
        await pilot.pause(0.01)
    raise AssertionError("never happened")


def _remote_app(session, lang="en") -> TacticalApp:
    app = TacticalApp(lang=lang, ai_delay=0.0, autosave=False)
    app.session = session
    app._cards = session.cards
    return app


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_phase_screens_work_unchanged_on_a_remote_seat(lang):
    """The seat view of a RemoteTable: the draft screen comes with the first update,
    Enter sends the pick over the 'wire' (answered later: the key handler does not
    wait), the AI seats' picks arrive as updates, and the game goes on to the bidding
    with keys alone (H: the hint's action, computed from the seat's own observation)."""
    async def run():
        live, session, client = _wired(5)
        client.delay = 0.05
        app = _remote_app(session, lang)
        async with app.run_test(size=(80, 24)) as pilot:
            live.start()
            app.seat_views(session.remote("1", 0), (0,))
            await _wait(pilot, lambda: isinstance(app.screen, GameScreen))
            assert app.screen.phase == "draft" and app.table is None   # no game record here
            await pilot.press("enter")
            await _wait(pilot, lambda: any(k == "submit" for k, _ in client.sent))
            assert isinstance(wire.action_from_wire(client.sent[0][1]["action"]), A.Pick)
            for _ in range(3000):
                if app.screen.__class__.__name__.startswith("BidScreen"):
                    break
                if dialog_open(app):
                    await pilot.press("enter")
                elif app.feeds[0].asked():
                    version = live.version
                    await pilot.press("H")
                    await _wait(pilot, lambda: live.version != version or not app.feeds[0].asked())
                await pilot.pause(0.01)
            assert app.screen.__class__.__name__.startswith("BidScreen")
            assert "AI" in screen_text(app)
            live.close()
    asyncio.run(run())


def test_a_refusal_from_the_remote_table_is_said_when_it_comes():
    """A submit the table refuses: the answer comes after the key handler returned; its
    reason is shown then, in the player's language, and the held keys are dropped."""
    async def run():
        live, session, client = _wired(5)
        client.delay = 0.05
        app = _remote_app(session)
        async with app.run_test(size=(80, 24)) as pilot:
            live.start()
            app.seat_views(session.remote("1", 0), (0,))
            await _wait(pilot, lambda: isinstance(app.screen, GameScreen))
            shown = _said(app)
            # a pick of a card not in the hand: the rules refuse it
            from tactical_tui.text.i18n import t
            from tactical_tui.text.catalog import refusal_text
            from tactical_tui.widgets.base import key_gate
            refusal = live.submit(0, A.Pick(0, "no-such-card"))
            expected = t("illegal", "en", reason=refusal_text(app.cards, refusal.code,
                                                             refusal.params, "en"))
            gate = key_gate(app)
            gate.close(0, app.screen.table_version())
            gate.sent = True
            gate.keys.append(("down", None))          # a key typed after the answer
            assert app.submit(A.Pick(0, "no-such-card")) is True   # sent, not applied yet
            assert not shown and gate.keys
            await _wait(pilot, lambda: shown)
            assert shown == [expected]
            assert not gate.keys and gate.answered_at is None       # dropped with it
            live.close()
    asyncio.run(run())


def test_undo_on_a_remote_seat_goes_back_when_the_answer_comes(monkeypatch):
    """z on a remote seat: sent; when the table's answer comes the player is told, and
    the rewritten log (a reset update) puts the same question back on screen. (`z` comes
    at once after the waiting view here; a person's comes later than KeyGate.LATE, which
    would otherwise count it as typed ahead for the next question.)"""
    from tactical_tui.widgets.base import KeyGate
    monkeypatch.setattr(KeyGate, "LATE", 0.0)

    async def run():
        live, session, client = _wired(5, seats=("human", "human", "human"))
        client.delay = 0.05
        app = _remote_app(session)
        async with app.run_test(size=(80, 24)) as pilot:
            live.start()
            app.seat_views(session.remote("1", 0), (0,))
            await _wait(pilot, lambda: isinstance(app.screen, GameScreen))
            shown = _said(app)
            await pilot.press("enter")
            await _wait(pilot, lambda: app.feeds[0].latest.version == 1)
            assert not app.feeds[0].asked()          # picked: waiting for the others
            await pilot.press("z")
            await _wait(pilot, lambda: "Back to your previous decision" in shown)
            await _wait(pilot, lambda: app.feeds[0].latest.version == 0 and app.feeds[0].asked())
            assert ("undo", {"table": "1"}) in client.sent
            assert app.screen.my_turn()
            live.close()
    asyncio.run(run())


# ------------------------------------------------------------------ the client connection

from tactical_tui.net import client as C
from tactical_tui.net.protocol import MAX_CLIENT_FRAME, read_frame, write_frame


def test_backoff_doubles_up_to_thirty_seconds():
    delays = C.backoff()
    assert [next(delays) for _ in range(8)] == [1, 2, 4, 8, 16, 30, 30, 30]


@pytest.mark.parametrize("text, expected", [
    (None, ("127.0.0.1", 7411)), ("example.org", ("example.org", 7411)),
    ("example.org:9000", ("example.org", 9000)), (":9000", ("127.0.0.1", 9000)),
    ("[::1]:8000", ("::1", 8000)), ("[::1]", ("::1", 7411))])
def test_join_addresses(text, expected):
    assert C.parse_address(text) == expected


@pytest.mark.parametrize("text", ["host:0", "host:70000", "host:x", "[::1", "[::1]x"])
def test_bad_join_addresses(text):
    with pytest.raises(ValueError):
        C.parse_address(text)


class StubServer:
    """A few answers of the protocol, recorded: hello, join (a token), list; `drop()`
    closes every connection, `bye(code)` says goodbye first."""

    def __init__(self) -> None:
        self.requests = []            # (connection number, message)
        self.writers = []
        self.hold = set()             # request types left unanswered
        self.connections = 0

    async def start(self):
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def handle(self, reader, writer):
        n = self.connections
        self.connections += 1
        self.writers.append(writer)
        try:
            while True:
                msg = await read_frame(reader, MAX_CLIENT_FRAME)
                if msg is None:
                    return
                self.requests.append((n, msg))
                if msg["t"] in self.hold:
                    continue
                answer = {"t": "ok", "id": msg["id"]}
                if msg["t"] == "hello":
                    answer.update(v=1, server="tactical", cards="x")
                elif msg["t"] == "join":
                    if msg.get("token") not in (None, "tok-1"):
                        answer = {"t": "refused", "id": msg["id"], "code": "bad_token", "params": {}}
                    else:
                        answer.update(table=msg["table"], seat=1, token="tok-1")
                await write_frame(writer, answer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            return

    async def drop(self, bye=None):
        for w in self.writers:
            if bye:
                await write_frame(w, {"t": "bye", "code": bye})
            w.close()
        self.writers = []

    def close(self):
        self.server.close()


def _quick():
    return iter([0.01] * 1000)


async def _until(done, rounds=500):
    for _ in range(rounds):
        if done():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("never happened")


def test_the_client_reconnects_and_takes_its_seat_back_with_its_token():
    async def run():
        stub = StubServer()
        port = await stub.start()
        statuses = []
        client = C.Client("127.0.0.1", port, "alice", "en", delays=_quick,
                          on_status=lambda s, r: statuses.append((s, r)))
        hello = await client.start()
        assert hello["server"] == "tactical"
        answer = await client.request("join", table="t1", seat=None)
        assert answer["token"] == "tok-1" and client.seats == {"t1": {"seat": 1, "token": "tok-1", "code": None}}
        await stub.drop()
        await _until(lambda: sum(1 for n, m in stub.requests if m["t"] == "join") == 2)
        rejoin = [m for n, m in stub.requests if m["t"] == "join"][1]
        assert rejoin["token"] == "tok-1" and rejoin["seat"] == 1 and rejoin["table"] == "t1"
        hellos = [n for n, m in stub.requests if m["t"] == "hello"]
        assert hellos == [0, 1]                                  # hello again, first
        assert ("reconnecting", 0.01) in statuses and statuses[-1] == ("connected", None)
        assert client.connected
        await client.close()
        assert client.status == "closed"
        stub.close()
    asyncio.run(run())


def test_a_request_waiting_when_the_connection_drops_fails_with_connection_lost():
    async def run():
        stub = StubServer()
        port = await stub.start()
        client = C.Client("127.0.0.1", port, "alice", "en", delays=_quick)
        await client.start()
        stub.hold.add("submit")
        fut = client.send("submit", table="t1", action={})
        await _until(lambda: any(m["t"] == "submit" for _, m in stub.requests))
        await stub.drop()
        with pytest.raises(C.ConnectionLost):
            await fut
        await client.close()
        stub.close()
    asyncio.run(run())


def test_after_bye_replaced_the_client_does_not_come_back():
    async def run():
        stub = StubServer()
        port = await stub.start()
        messages, statuses = [], []
        client = C.Client("127.0.0.1", port, "alice", "en", delays=_quick,
                          on_message=messages.append, on_status=lambda s, r: statuses.append(s))
        await client.start()
        await stub.drop(bye="replaced")
        await _until(lambda: client.status == "closed")
        assert messages == [{"t": "bye", "code": "replaced"}] and "reconnecting" not in statuses
        assert [m["t"] for _, m in stub.requests] == ["hello"]
        stub.close()
    asyncio.run(run())


def test_nothing_listening_is_an_os_error_at_start():
    async def run():
        stub = StubServer()
        port = await stub.start()
        stub.close()
        await stub.server.wait_closed()
        client = C.Client("127.0.0.1", port, "alice", "en")
        with pytest.raises(OSError):
            await client.start()
    asyncio.run(run())


# ------------------------------------------------------------------ with the table server

from tactical_tui.screens.online.lobby import LobbyScreen
from tactical_tui.screens.online.status import NetBanner
from tactical_tui.screens.online.remote import SpectatorScreen


class Host:
    """The table server in process, on an ephemeral loopback port (AI in threads)."""

    def __init__(self, folder) -> None:
        from tactical_tui.net.server import Server
        self.server = Server(folder, ai_delay=0.0)

    async def __aenter__(self):
        self.host, self.port = await self.server.start("127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc):
        await self.server.stop()

    def connection(self, name: str):
        return next(c for c in self.server.connections if c.name == name)

    @property
    def table(self):
        return next(iter(self.server.tables.values()))


def _client_app(host: Host, name: str, lang: str = "en") -> TacticalApp:
    return TacticalApp(lang=lang, ai_delay=0.0, autosave=False, join=(host.host, host.port, name))


async def _until_app(pilot, done, rounds: int = 1500) -> None:
    for _ in range(rounds):
        if done():
            return
        await pilot.pause(0.01)
    raise AssertionError("never happened")


def _lobby_ready(app) -> bool:
    return isinstance(app.screen, LobbyScreen) and app.session is not None and app.session.client.connected


def _in_game(app) -> bool:
    """A phase screen is up and mounted (a test that ends the app while the screen is
    still mounting would see it torn down half-drawn)."""
    return isinstance(app.screen, GameScreen) and app.screen.latest is not None \
        and app.screen.ready


async def _sit_and_watch(alice, pa, carol, pc) -> None:
    """alice creates a table and sits; carol refreshes the lobby and watches it (`w`)
    until her spectator's screen has the table's first update."""
    await _create_and_sit(alice, pa)
    await _until_app(pc, lambda: _lobby_ready(carol))
    await pc.press("r")
    await _until_app(pc, lambda: carol.session.tables)
    await pc.press("w")
    await _until_app(pc, lambda: isinstance(carol.screen, SpectatorScreen)
                     and carol.screen.latest is not None)


async def _create_and_sit(app, pilot, start: bool = True) -> None:
    """c, then Enter on the last row (two open seats, two normal AI seats: the default):
    the table waits for its players (issue 31) — then Enter on its last row, Start (its
    other open seat is played by the takeover AI, and can still be taken)."""
    from tactical_tui.screens.online.waiting import WaitingScreen
    await _until_app(pilot, lambda: _lobby_ready(app))
    await pilot.press("c")
    await _until_app(pilot, lambda: type(app.screen).__name__.startswith("CreateScreen"))
    await pilot.press("end", "enter")
    await _until_app(pilot, lambda: isinstance(app.screen, WaitingScreen)
                     and app.screen.owner())
    if not start:
        return
    await pilot.press("end", "enter")
    await _until_app(pilot, lambda: _in_game(app))


async def _play(apps, pilots, done, rounds: int = 6000) -> None:
    """Each app: Enter on a dialog, H (the hint's action) on its seat's decision."""
    for _ in range(rounds):
        if done():
            return
        for app, pilot in zip(apps, pilots):
            if dialog_open(app) and not isinstance(app.screen, LobbyScreen):
                await pilot.press("enter")
            elif _in_game(app) and app.feeds[app.viewer].asked():
                version = app.feeds[app.viewer].latest.version
                await pilot.press("H")
                for _ in range(200):
                    if app.feeds[app.viewer].latest.version != version or dialog_open(app):
                        break
                    await pilot.pause(0.01)
        await pilots[0].pause(0.01)
    raise AssertionError("never reached")


@pytest.mark.parametrize("lang, until", [("en", "build"), ("ja", "bidding")])
def test_two_clients_play_through_the_lobby_and_the_game_screens(tmp_path, lang, until):
    """Alice creates a table (2 open seats, 2 AI) and sits; Bob sees it in the lobby with
    Alice at seat 1, joins with `j`; both make their decisions by keys on the ordinary
    phase screens through the server, and the AI seats play — through the draft (and
    the bidding, into the build). Each sees only its own hand."""
    async def run():
        async with Host(tmp_path) as host:
            alice, bob = _client_app(host, "alice", lang), _client_app(host, "bob", lang)
            async with alice.run_test(size=(80, 24)) as pa, bob.run_test(size=(80, 24)) as pb:
                await _create_and_sit(alice, pa)
                assert alice.viewer == 0 and alice.screen.phase == "draft"
                await _until_app(pb, lambda: _lobby_ready(bob))
                await pb.press("r")
                await _until_app(pb, lambda: "alice" in screen_text(bob))
                lobby = screen_text(bob)
                assert ("alice (connected)" if lang == "en" else "alice（接続中）") in lobby
                await pb.press("j")
                await _until_app(pb, lambda: _in_game(bob))
                assert bob.viewer == 1 and isinstance(bob.live.table, str)
                assert alice.feeds[0].latest.observation.hand != bob.feeds[1].latest.observation.hand
                await _play([alice, bob], [pa, pb], lambda: host.table.game.state.phase == until)
                assert host.table.live.version > 10
                assert {0, 1} <= {getattr(a, "seat", None) for a in host.table.game.history}
                await _until_app(pa, lambda: alice.feeds[0].latest.observation.phase == until)
                await _until_app(pb, lambda: bob.feeds[1].latest.observation.phase == until)
                await _play([alice, bob], [pa, pb], lambda: _in_game(alice) and _in_game(bob)
                            and alice.screen.phase == bob.screen.phase == until)
    asyncio.run(run())


@pytest.mark.parametrize("lang, banner", [("en", "reconnecting"), ("ja", "再接続")])
def test_a_dropped_connection_shows_the_banner_and_the_game_goes_on(tmp_path, monkeypatch, lang, banner):
    """The server drops Alice's connection mid-game: a banner says so and counts down;
    the client reconnects by itself, takes the seat back with its token, the banner
    goes, and the game continues where it was (the same seat, the same version), and
    her next decision is applied."""
    from tactical_tui.net import client as C
    monkeypatch.setattr(C, "backoff", lambda: iter([0.4] * 100))

    async def run():
        async with Host(tmp_path) as host:
            alice = _client_app(host, "alice", lang)
            async with alice.run_test(size=(80, 24)) as pa:
                await _create_and_sit(alice, pa)
                version = alice.feeds[0].latest.version
                first = host.connection("alice")
                first.close(abort=True)
                await _until_app(pa, lambda: alice.screen.query(NetBanner))
                assert banner in str(alice.screen.query_one(NetBanner).render())
                await _until_app(pa, lambda: not alice.screen.query(NetBanner))
                await _until_app(pa, lambda: host.table.slots[0].conn not in (None, first))
                assert host.table.slots[0].status == "connected"
                assert _in_game(alice) and alice.viewer == 0 and alice.screen.phase == "draft"
                assert alice.feeds[0].latest.version == version
                await pa.press("enter")                  # the pick, on the same screen
                await _until_app(pa, lambda: host.table.live.version > version)
                assert any(getattr(a, "seat", None) == 0 for a in host.table.game.history)
    asyncio.run(run())


@pytest.mark.parametrize("lang, reason", [("en", "Nothing to undo"), ("ja", "戻せる判断がありません")])
def test_a_refused_action_shows_its_reason(tmp_path, lang, reason):
    """Undo with nothing decided: the server refuses (undo_nothing) and the player reads
    why, in their language, once the answer comes."""
    async def run():
        async with Host(tmp_path) as host:
            alice = _client_app(host, "alice", lang)
            async with alice.run_test(size=(80, 24)) as pa:
                await _create_and_sit(alice, pa)
                shown = _said(alice)
                await pa.press("z")
                await _until_app(pa, lambda: shown)
                assert reason in shown[0]
                assert host.table.live.version == alice.feeds[0].latest.version
    asyncio.run(run())


async def _seated_with_a_raw_chatter(host, app, pilot, name: str, text: str):
    """`app` creates a table and sits at seat 1; a raw protocol client `name` takes
    the open seat and says `text`. Returns (the table's id, the raw client)."""
    await _create_and_sit(app, pilot)
    table = app.live.table
    raw = C.Client(host.host, host.port, name, "en")
    await raw.start()
    await raw.request("join", table=table, seat=None)
    await raw.request("chat", table=table, text=text)
    return table, raw


def test_chat_text_is_shown_as_written(tmp_path):
    """A chat line with markup from another player (a raw protocol client) shows
    literally in the log strip; one with control characters (which this server refuses,
    but a hostile one might send) shows them as escapes. Alice's own line (typed after
    `/`) comes back from the server the same way."""
    async def run():
        async with Host(tmp_path) as host:
            alice = _client_app(host, "alice")
            async with alice.run_test(size=(80, 24)) as pa:
                table, raw = await _seated_with_a_raw_chatter(host, alice, pa, "[b]m[/]",
                                                              "[bold red]hi[/] [link=x]y")
                await _until_app(pa, lambda: "[bold red]hi[/]" in screen_text(alice))
                text = screen_text(alice)
                assert "» [b]m[/] (Seat 2): [bold red]hi[/] [link=x]y" in text
                alice.session._message({"t": "chat", "table": table, "seat": 1, "name": "m\x1b[2J",
                                        "text": "\x1b[31mred\x07"})
                await _until_app(pa, lambda: "\\x1b[31mred\\x07" in screen_text(alice))
                assert "m\\x1b[2J" in screen_text(alice)
                await pa.press("slash")
                await _until_app(pa, lambda: type(alice.screen).__name__.startswith("LineScreen"))
                await pa.press(*"[i]me", "enter")
                await _until_app(pa, lambda: "» alice (Seat 1): [i]me" in screen_text(alice))
                await raw.close()
    asyncio.run(run())


def test_a_spectator_sees_the_public_table(tmp_path):
    """Watching from the lobby (`w`): the spectator's screen lists every seat with its
    player and status, whose decision it is, and the public log."""
    async def run():
        async with Host(tmp_path) as host:
            alice, carol = _client_app(host, "alice"), _client_app(host, "carol")
            async with alice.run_test(size=(80, 24)) as pa, carol.run_test(size=(80, 24)) as pc:
                await _sit_and_watch(alice, pa, carol, pc)
                await _until_app(pc, lambda: "alice (connected)" in screen_text(carol))
                text = screen_text(carol)
                assert "Watching table" in text and "AI (normal)" in text
                assert carol.feeds[None].latest.observation.hand == ()
    asyncio.run(run())


def test_the_lobby_says_when_nothing_listens(tmp_path):
    async def run():
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()
        app = TacticalApp(lang="en", ai_delay=0.0, autosave=False, join=("127.0.0.1", port, "alice"))
        async with app.run_test(size=(80, 24)) as pilot:
            await _until_app(pilot, lambda: "Nothing is listening" in screen_text(app))
            assert f"127.0.0.1:{port}" in screen_text(app) and "r: try again" in screen_text(app)
            await pilot.press("question_mark")          # the lobby's own help
            await _until_app(pilot, lambda: "j = sit at the first" in str(getattr(app.screen, "body", "")))
            assert "Lobby:" in screen_text(app)
    asyncio.run(run())


def test_a_player_whose_terminal_went_away_is_back_at_the_seat(tmp_path, monkeypatch):
    """Alice's `tactical join` ends mid-game (a killed SSH client ends it so); started
    again with her name, it goes straight back to her seat with the kept token — the
    server hands the seat back, the game goes on where it was."""
    monkeypatch.setenv("TACTICAL_SAVE_DIR", str(tmp_path / "user"))

    async def run():
        async with Host(tmp_path / "tables") as host:
            first = TacticalApp(lang="en", ai_delay=0.0, join=(host.host, host.port, "alice"))
            async with first.run_test(size=(80, 24)) as pilot:
                await _create_and_sit(first, pilot)
                table, version = first.live.table, first.feeds[0].latest.version
                # the terminal went away: a hang-up (SIGHUP sets `leaving`) — issue 31: a
                # player who quits on purpose `leave`s instead, and is "left", played at once
                first.leaving = True
            await asyncio.sleep(0.05)
            assert host.table.slots[0].status == "disconnected"
            import io
            from contextlib import redirect_stdout
            from tactical_tui.cli import _print_exit_line
            out = io.StringIO()
            with redirect_stdout(out):
                _print_exit_line(first)
            assert out.getvalue() == (f"Your seat at table {table} is kept. Back to it with:\n"
                                      f"  tactical join 127.0.0.1:{host.port} --name alice\n")
            monkeypatch.setenv("TACTICAL_SSH_BACK", "ssh -p 2222 alice@10.0.0.5")   # the SSH door's
            out = io.StringIO()
            with redirect_stdout(out):
                _print_exit_line(first)
            assert out.getvalue() == (f"Your seat at table {table} is kept. Back to it: "
                                      "log in again with\n  ssh -p 2222 alice@10.0.0.5\n")
            monkeypatch.delenv("TACTICAL_SSH_BACK")
            again = TacticalApp(lang="en", ai_delay=0.0, join=(host.host, host.port, "alice"))
            async with again.run_test(size=(80, 24)) as pilot:
                await _until_app(pilot, lambda: _in_game(again))
                assert again.live.table == table and again.viewer == 0
                assert again.feeds[0].latest.version == version
                assert host.table.slots[0].status == "connected"
            other = TacticalApp(lang="en", ai_delay=0.0, join=(host.host, host.port, "bob"))
            async with other.run_test(size=(80, 24)) as pilot:   # not bob's seat
                await _until_app(pilot, lambda: _lobby_ready(other) and other.session.tables)
                assert isinstance(other.screen, LobbyScreen)
    asyncio.run(run())


def test_seat_tokens_are_kept_per_server_and_name(tmp_path):
    from tactical_tui.net.remote import SeatTokens
    store = SeatTokens(tmp_path / "seats.json")
    assert store.get("h:1", "alice") == {}
    store.put("h:1", "alice", "t1", 2, "tok")
    store.put("h:1", "bob", "t1", 3, "tok-b")
    store.put("h:2", "alice", "t9", 0, "tok-9")
    assert store.get("h:1", "alice") == {"t1": {"seat": 2, "token": "tok"}}
    assert store.get("h:2", "alice") == {"t9": {"seat": 0, "token": "tok-9"}}
    assert (tmp_path / "seats.json").stat().st_mode & 0o077 == 0      # the owner's only
    store.drop("h:1", "alice", "t1")
    assert store.get("h:1", "alice") == {} and store.get("h:1", "bob") != {}
    (tmp_path / "seats.json").write_text('{"h:1": {"alice": {"t1": {"seat": "x"}}}, "h:2": 3')
    assert store.get("h:1", "alice") == {} and store.get("h:2", "alice") == {}
    store.put("h:1", "alice", "t2", 1, "tok-2")                    # a damaged file is replaced
    assert store.get("h:1", "alice") == {"t2": {"seat": 1, "token": "tok-2"}}


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_seat_the_takeover_ai_plays_is_marked_as_an_ai_seat(tmp_path, lang):
    """Carol (a raw client) drops; after the table's grace the takeover AI plays her
    seat: Bob is told, his phase screens label the seat as an AI seat (`·AI`) with her
    name while it lasts, and his log says each step (dropped, the AI plays it, back);
    Carol reclaims it with her token and it is a human seat again."""
    async def run():
        async with Host(tmp_path) as host:
            carol = C.Client(host.host, host.port, "carol", "en")
            await carol.start()
            made = await carol.request("create", seats=[{"kind": "open"}, {"kind": "open"},
                                                        {"kind": "ai", "level": "random"}],
                                       first_game=True, private=False, clock=None, grace=0.2)
            seat = await carol.request("join", table=made["table"], seat=0)
            bob = _client_app(host, "bob", lang)
            async with bob.run_test(size=(80, 24)) as pb:
                await _until_app(pb, lambda: _lobby_ready(bob) and bob.session.tables)
                shown = _said(bob)
                await pb.press("j")
                await _until_app(pb, lambda: _in_game(bob))
                assert bob.feeds[1].latest.seats[0] == "human"
                assert bob.screen.seat_name(0) == ("Seat 1 carol" if lang == "en" else "席1 carol")
                await carol.close()
                await _until_app(pb, lambda: bob.feeds[1].latest.seats[0] == "ai_takeover")
                assert ("Seat 1: carol (AI takeover)" if lang == "en" else "席1: carol（AIが代行中）") in shown
                await _until_app(pb, lambda: bob.screen.seat_name(0) ==
                                 ("Seat 1·AI carol" if lang == "en" else "席1·AI carol"))   # redrawn
                back = C.Client(host.host, host.port, "carol", "en")
                await back.start()
                await back.request("join", table=made["table"], seat=0, token=seat["token"])
                await _until_app(pb, lambda: bob.feeds[1].latest.seats[0] == "human")
                await _until_app(pb, lambda: (
                    "* Seat 1 (carol) is back" if lang == "en" else "* 席1（carol）が戻りました")
                    in screen_text(bob))
                log = [e.chat for e in bob.feeds[1].log if getattr(e, "chat", None)]
                assert log == ([   # (issue 31: Bob's join filled the table, and it began)
                    "* The game begins — clock off · AI after 0.2 s · takeover AI normal",
                    "* Seat 1 (carol) lost the connection; the AI plays it if they are not back soon",
                    "* The AI plays Seat 1 (carol) until they come back",
                    "* Seat 1 (carol) is back"] if lang == "en" else [
                    "* ゲームが始まります — 持ち時間 なし・代行まで 0.2秒・代行AI ふつう",
                    "* 席1（carol）の接続が切れました。戻らなければAIが代行します",
                    "* 席1（carol）をAIが代行します（戻るまで）",
                    "* 席1（carol）が戻りました"])
                await back.close()
    asyncio.run(run())


def test_a_remote_game_over_leads_back_to_the_lobby():
    """At a server's game over: no replay file here (the server keeps the game), no new
    game of this terminal — `t` goes back to the lobby; every phase screen has `/`."""
    from tactical_tui.screens.online.remote import remote_screen
    over = remote_screen("over", 0)
    actions = {k[1]: k for k in over.KEYS}
    assert "app.save_replay" not in actions and "app.new_game" not in actions
    assert actions["app.back_to_title"][2] == "key.lobby"
    assert issubclass(over, GameOverScreen)
    for phase in ("draft", "bidding", "build", "battle"):
        assert ("slash", "chat", "key.chat", True) in remote_screen(phase, 2).KEYS
    assert remote_screen("battle", None) is SpectatorScreen


def test_a_seat_taken_over_by_another_connection_ends_this_one(tmp_path):
    """Alice's token used by another connection: the server says `bye replaced`; her
    client does not come back (it would only take the seat back and forth) and the
    banner says why."""
    async def run():
        async with Host(tmp_path) as host:
            alice = _client_app(host, "alice")
            async with alice.run_test(size=(80, 24)) as pa:
                await _create_and_sit(alice, pa)
                table = alice.live.table
                token = alice.session.client.seats[table]["token"]
                other = C.Client(host.host, host.port, "alice2", "en")
                await other.start()
                await other.request("join", table=table, seat=0, token=token)
                await _until_app(pa, lambda: alice.session.client.status == "closed")
                await _until_app(pa, lambda: alice.screen.query(NetBanner))
                text = str(alice.screen.query_one(NetBanner).render())
                assert text == "Another connection took this seat over — no longer connected (Ctrl+C quits)"
                assert host.table.slots[0].conn is not None and host.table.slots[0].name == "alice2"
                await other.close()
    asyncio.run(run())


def test_the_lobby_follows_a_change_of_language(tmp_path):
    """The palette's language switch redraws the lobby in the other language."""
    async def run():
        async with Host(tmp_path) as host:
            app = _client_app(host, "alice")
            async with app.run_test(size=(80, 24)) as pilot:
                await _until_app(pilot, lambda: _lobby_ready(app) and "Lobby" in screen_text(app))
                from tactical_tui.commands import switch_language
                switch_language(app)
                # the lobby's body and its footer are redrawn in separate refreshes
                await _until_app(pilot, lambda: "ロビー" in screen_text(app)
                                 and "c 作成" in screen_text(app))
                assert isinstance(app.screen, LobbyScreen)
    asyncio.run(run())


def test_chat_and_seat_lines_stay_in_the_log_after_a_reconnect(tmp_path, monkeypatch):
    """A chat line and a seat's change in Alice's log strip; the server drops her
    connection and she reconnects (the whole log comes again): both lines are still in
    her log, at their places, and on screen."""
    monkeypatch.setattr(C, "backoff", lambda: iter([0.2] * 100))

    async def run():
        async with Host(tmp_path) as host:
            alice = _client_app(host, "alice")
            async with alice.run_test(size=(80, 24)) as pa:
                table, raw = await _seated_with_a_raw_chatter(host, alice, pa, "dave", "hello table")
                await _until_app(pa, lambda: "» dave (Seat 2): hello table" in screen_text(alice))
                assert "* dave sits down at Seat 2" in screen_text(alice)
                before = [getattr(e, "chat", None) for e in alice.feeds[0].log]
                first = host.connection("alice")
                first.close(abort=True)
                await _until_app(pa, lambda: host.table.slots[0].conn not in (None, first))
                await _until_app(pa, lambda: alice.feeds[0].epoch > 1 and not alice.screen.query(NetBanner))
                assert [getattr(e, "chat", None) for e in alice.feeds[0].log] == before
                await _until_app(pa, lambda: "» dave (Seat 2): hello table" in screen_text(alice))
                assert "* dave sits down at Seat 2" in screen_text(alice)
                await raw.close()
    asyncio.run(run())


def test_the_takeover_ai_deciding_counts_as_an_ai_seat_in_the_turn():
    """A seat the takeover AI plays, asked to decide: the Turn of the update the view
    gets names it among the AI seats, thinking (the status line: "Waiting for Seat 2 ·
    AI"); once the seat is its player's again the Turn is the server's as it was."""
    async def run():
        live, session, client = _wired(5, seats=("human", "human", "normal", "normal"))
        remote = session.remote("1", 0)
        got = []
        remote.subscribe(0, got.append)
        infos = [{"seat": i, "kind": "human", "name": n, "level": None, "status": "connected"}
                 for i, n in enumerate(["ann", "ben", "cy", "di"])]
        remote.seats_changed(list(infos))
        live.start()
        for _ in range(200):
            if got:
                break
            await asyncio.sleep(0.01)
        assert got and 1 in got[-1].turn.seats and 1 not in got[-1].turn.ai   # the draft: all pick
        infos[1] = {**infos[1], "status": "ai_takeover"}
        remote.seats_changed(list(infos))
        turn = got[-1].turn
        assert got[-1].seats[1] == "ai_takeover" and 1 in turn.ai and turn.thinking is not None
        infos[1] = {**infos[1], "status": "connected"}
        remote.seats_changed(list(infos))
        assert got[-1].seats[1] == "human" and 1 not in got[-1].turn.ai
        assert remote.player_names == {0: "ann", 1: "ben", 2: "cy", 3: "di"}
        live.close()
    asyncio.run(run())


@pytest.mark.parametrize("lang, ssh, words", [
    ("en", None, "Leave the table? Seat 1 stays yours. To come back, run:\n  tactical join "
                 "127.0.0.1:{port} --name alice\nUntil then, the AI plays it"),   # (issue 31: at once)
    ("en", "ssh -p 2222 alice@10.0.0.5", "To come back, log in again:\n  ssh -p 2222 alice@10.0.0.5\n"),
    ("ja", "ssh -p 2222 alice@10.0.0.5", "席1はあなたのままです。戻るにはもう一度ログインします:\n"
                                        "  ssh -p 2222 alice@10.0.0.5\n戻るまでの間"),
])
def test_the_quit_dialog_of_a_remote_seat_says_what_is_true(tmp_path, monkeypatch, lang, ssh, words):
    """Ctrl+C at a server's table: not the local game's "it is saved, Continue…" — the
    seat stays the player's, how to come back (ssh again through the SSH door, else
    `tactical join`), and that the AI plays it meanwhile."""
    if ssh:
        monkeypatch.setenv("TACTICAL_SSH_BACK", ssh)
    else:
        monkeypatch.delenv("TACTICAL_SSH_BACK", raising=False)

    async def run():
        async with Host(tmp_path) as host:
            alice = _client_app(host, "alice", lang)
            async with alice.run_test(size=(80, 24)) as pa:
                await _create_and_sit(alice, pa)
                await pa.press("ctrl+c")
                await _until_app(pa, lambda: type(alice.screen).__name__.startswith("ConfirmScreen"))
                text = alice.screen.question
                assert words.format(port=host.port) in text
                shown = str(alice.screen.query_one(".dialog-title").render())
                assert "\\n" not in shown and words.format(port=host.port).split("\n")[1] in shown.splitlines()
                assert "tactical --resume" not in text and "Continue" not in text
                await pa.press("escape")
    asyncio.run(run())


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_game_over_standings_show_the_players_names_whole(lang):
    """At a server's table the standings name each seat's player ("Seat 3·AI carolina":
    18 cells); the column widens to hold them (it cut them at 14 cells: "Seat 3·AI
    caro…")."""
    from tactical_tui.widgets.base import localized

    async def run():
        live, session, client = _wired(5, seats=("human", "human", "human", "normal"))
        app = _remote_app(session, lang)
        async with app.run_test(size=(80, 24)) as pilot:
            live.start()
            remote = session.remote("1", 0)
            app.seat_views(remote, (0,))
            await _wait(pilot, lambda: isinstance(app.screen, GameScreen))
            remote.seats_changed([
                {"seat": 0, "kind": "human", "name": "ann", "level": None, "status": "connected"},
                {"seat": 1, "kind": "human", "name": "bo", "level": None, "status": "connected"},
                {"seat": 2, "kind": "human", "name": "carolina", "level": None, "status": "ai_takeover"},
                {"seat": 3, "kind": "ai", "name": None, "level": "normal", "status": "ai"}])
            await _wait(pilot, lambda: "carolina" in app.screen.seat_name(2))
            live.close()                         # no more updates: the screen stays
            await pilot.pause(0.05)
            over = localized(GameOverScreen, lang)(0, "over")
            over.latest = app.feeds[0].latest
            app.push_screen(over)
            await _wait(pilot, lambda: over.ready)
            body = str(over.query_one("#standings").render())
            seat = "Seat " if lang == "en" else "席"
            assert f"{seat}3·AI carolina VP 0" in body and f"{seat}2 bo " in body
    asyncio.run(run())


def test_the_lobby_lists_finished_tables_last(tmp_path):
    """After a game, its table stays listed ("over") for a while: a new table created
    after it comes first, so `j` on the first row sits at the new table (it found the
    finished one: "This table has no open seat")."""
    async def run():
        async with Host(tmp_path) as host:
            raw = C.Client(host.host, host.port, "ann", "en")
            await raw.start()
            done = await raw.request("create", seats=[{"kind": "ai", "level": "random"}] * 3,
                                     first_game=True, private=False, clock=None)
            for _ in range(3000):
                if host.server.tables[done["table"]].game.over:
                    break
                await asyncio.sleep(0.01)
            new = await raw.request("create", seats=[{"kind": "open"}, {"kind": "ai", "level": "random"},
                                                     {"kind": "ai", "level": "random"}],
                                    first_game=True, private=False, clock=None)
            bob = _client_app(host, "bob")
            async with bob.run_test(size=(80, 24)) as pb:
                await _until_app(pb, lambda: _lobby_ready(bob) and len(bob.session.tables) == 2)
                assert [t["table"] for t in bob.screen.tables()] == [new["table"], done["table"]]
                await pb.press("j")
                await _until_app(pb, lambda: _in_game(bob))
                assert bob.live.table == new["table"]
            await raw.close()
    asyncio.run(run())


def test_leaving_a_finished_game_forgets_its_seat(tmp_path):
    """The seat token of a game that is over is forgotten when its view is left: no
    "Your seat at table … is kept" after a finished game, no "back to your seat" for it."""
    from types import SimpleNamespace
    from tactical_tui.net.remote import SeatTokens

    async def run():
        session = Session("127.0.0.1", 7411, "ann", "en", tokens=SeatTokens(tmp_path / "seats.json"))
        for table in ("over", "going"):
            session.seated(table, 0, "tok-" + table)
            remote = session.remote(table, 0)
            remote.latest = SimpleNamespace(over=table == "over")
            remote.close()
        assert set(session.saved_seats()) == {"going"}
    asyncio.run(run())


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_log_names_the_players_as_the_screens_do(tmp_path, lang):
    """At a server's table the phase screens say "Seat 1 carol"; the log said "Seat 1"
    only. Bob's log strip, his log screen (l) and his seat panel now name the seats the
    same way — Carol's seat and his own, by the names the table shares with every seat
    (its SeatInfo) — and an AI seat, which has no name, stays "Seat 3"."""
    seat_word = {"en": "Seat {n}", "ja": "席{n}"}[lang]

    async def run():
        async with Host(tmp_path) as host:
            carol = C.Client(host.host, host.port, "carol", "en")
            await carol.start()
            made = await carol.request("create", seats=[{"kind": "open"}, {"kind": "open"},
                                                        {"kind": "ai", "level": "random"}],
                                       first_game=True, private=False, clock=None)
            await carol.request("join", table=made["table"], seat=0)
            bob = _client_app(host, "bob", lang)
            async with bob.run_test(size=(80, 24)) as pb:
                await _until_app(pb, lambda: _lobby_ready(bob) and bob.session.tables)
                await pb.press("j")
                await _until_app(pb, lambda: _in_game(bob))
                assert bob.screen.seat_name(0) == seat_word.format(n=1) + " carol"
                carols, bobs = seat_word.format(n=1) + " carol", seat_word.format(n=2) + " bob"
                lines = bob.log_book(1).lines
                guilds = next(x for x in lines if x.startswith(("Guilds: ", "ギルド: ")))
                assert carols in guilds and bobs in guilds, guilds
                assert seat_word.format(n=3) + " " in guilds and "None" not in guilds
                flat = lambda text: "".join(text.split())      # the strip wraps its lines
                strip = flat("".join(s.text for s in bob.screen.query_one("#log").lines))
                assert flat(carols) in strip and flat(bobs) in strip, strip
                await carol.close()
    asyncio.run(run())


@pytest.mark.parametrize("lang, said", [
    ("en", "Seat 3 carol hit you for 2 (HP 4); Seat 2 +1 VP (3 in all)"),
    ("ja", "席3 carolから2ダメージ（体力4）、席2が勝利点+1（計3）")])
def test_a_recap_names_the_players_as_the_log_does(lang, said):
    """The recap toast of a seat's new decision names the seats as the log and the
    screens do (views.shared_names): Carol's seat by her name, the AI seat by its number."""
    from rules import events as E
    from tactical_tui.table.views import recap_text
    events = [E.DamageDealt(2, 0, 2, 4), E.VictoryPointsGained(1, 0, 1, "low", 3)]
    text = recap_text(events, 0, lang, {2: "carol"})
    assert text is not None and text.endswith(said), text


def test_a_burst_on_create_makes_one_table_and_sits_once(tmp_path):
    """`Enter Enter Down Enter` on Create's last row, all in one read: the first Enter
    asks the server for the table; the keys after it arrive while the answer is on its
    way and are dropped (they were typed for a form that is going away). Before, the
    second Enter made a second table and the player sat at each in turn — the first one
    kept in the lobby with its seat empty."""
    from tactical_tui.widgets.base import QuestionList

    async def run():
        async with Host(tmp_path) as host:
            alice = _client_app(host, "alice")
            async with alice.run_test(size=(80, 24)) as pa:
                await _until_app(pa, lambda: _lobby_ready(alice))
                await pa.press("c")
                await _until_app(pa, lambda: type(alice.screen).__name__.startswith("CreateScreen"))
                form = alice.screen.query_one("#form", QuestionList)
                form.highlighted = form.option_count - 1
                for k in ("enter", "enter", "down", "enter"):
                    alice.post_message(events.Key(k, None))
                # (issue 31: the table waits for its players — the burst does not start it)
                from tactical_tui.screens.online.waiting import WaitingScreen
                await _until_app(pa, lambda: isinstance(alice.screen, WaitingScreen))
                for _ in range(30):
                    await pa.pause(0.02)
                assert len(host.server.tables) == 1
                assert isinstance(alice.screen, WaitingScreen) and alice.screen.seat == 0
                assert not alice.requesting
                assert host.table.waiting and host.table.live.version == 0    # no pick made
    asyncio.run(run())
