"""`tactical join` (issue 17 point 4): the app as a client of a table server — the lobby,
the phase screens as live views of a remote seat, the reconnect banner, the chat.

The table source seam is tested first against an in-process table behind the wire codec
(a stand-in connection: every update is encoded and decoded as the server would send
it); the rest with the table server itself, in process, on an ephemeral port."""

from __future__ import annotations

import asyncio
import json

import pytest

from rules import actions as A
from tactical_tui.app import TacticalApp
from tactical_tui.net import wire
from tactical_tui.net.protocol import check_server_message
from tactical_tui.net.remote import Session
from tactical_tui.screens import GameOverScreen, GameScreen
from tactical_tui.table import Applied, GameTable, LiveTable, Refused, SeatSetup
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
            shown = []
            real = app.notify
            app.notify = lambda msg, **kw: (shown.append(msg), real(msg, **kw))
            # a pick of a card not in the hand: the rules refuse it
            from tactical_tui.i18n import t
            from tactical_tui.text import refusal_text
            from tactical_tui.widgets import key_gate
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
