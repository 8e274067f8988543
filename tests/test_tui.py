"""The Textual game, driven by keyboard with Pilot at 80×24 (issue: the Textual game)."""

from __future__ import annotations

import asyncio

import pytest
from textual.screen import ModalScreen

from tactical_tui.screens.battle import BattleScreen
from tactical_tui.screens.bid import BidScreen
from tactical_tui.screens.build import BuildScreen
from tactical_tui.screens.draft import DraftScreen
from tactical_tui.screens.gameover import GameOverScreen
from tactical_tui.screens.menus import SetupScreen, TitleScreen
from tui_app import dialog_open, human_turn, make_app, screen_text, settle


async def play_to_end(app, pilot, limit: int = 30000) -> None:
    """Close dialogs with Enter; on the human seat's turn press H (the AI makes that one
    decision, a key any player may use) — until the game-over screen."""
    for _ in range(limit):
        await pilot.pause(0.005)
        if isinstance(app.screen, GameOverScreen):
            return
        if dialog_open(app):
            await settle(app, pilot, "enter")
        elif human_turn(app):
            await settle(app, pilot, "H")
    raise AssertionError(f"no game over: {type(app.screen).__name__} {app.table.pending()}")


@pytest.mark.parametrize("players", [3, 4, 5])
def test_play_complete_games_by_keyboard(players):
    """Title → New game → players by ←/→ → Start, then the whole game to game over."""
    async def run():
        app = make_app("en", seed=players)
        async with app.run_test(size=(80, 24)) as pilot:
            assert isinstance(app.screen, TitleScreen)
            await pilot.press("down", "enter")          # New game
            assert isinstance(app.screen, SetupScreen)
            for _ in range(abs(players - 4)):
                await pilot.press("right" if players > 4 else "left")
            screen = app.screen
            assert screen.players == players
            # move to "Start" (the last row) and press Enter
            await pilot.press("end", "enter")
            await pilot.pause(0.05)
            assert app.table is not None and app.table.config.players == players
            await play_to_end(app, pilot)
            assert app.table.state.phase == "over"
    asyncio.run(run())


def test_quick_game_in_japanese():
    async def run():
        app = make_app("ja", seed=11)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter")                 # クイックゲーム
            await pilot.pause(0.05)
            assert isinstance(app.screen, DraftScreen)
            assert "装備ドラフト" in str(app.screen.query_one("#topbar").render())
            await play_to_end(app, pilot)
    asyncio.run(run())


def test_draft_pick_by_enter_and_hidden_from_others():
    async def run():
        app = make_app("en", seed=5)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter")
            await pilot.pause(0.05)
            screen = app.screen
            assert isinstance(screen, DraftScreen)
            hand_before = app.table.state.seats[0].hand
            await pilot.press("enter")
            await pilot.pause(0.05)
            picks = app.table.state.seats[0].picks
            assert len(picks) == 1 and picks[0] in hand_before
            # the screen never shows another seat's hand
            shown = str(app.screen.query_one("#hand").render())
            others = {c for i in (1, 2, 3) for c in app.table.state.seats[i].hand}
            names = {app.table.cards.card(c).name.en for c in others} - \
                {app.table.cards.card(c).name.en for c in app.table.state.seats[0].hand}
            assert not any(n in shown for n in names)
    asyncio.run(run())


def test_illegal_build_refused_with_reason():
    """Build editor: confirm is refused while the build is illegal, and says why."""
    async def run():
        app = make_app("en", seed=3)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await pilot.press("enter")
            for _ in range(2000):
                await pilot.pause(0.005)
                if isinstance(app.screen, BuildScreen) and human_turn(app):
                    break
                if dialog_open(app):
                    await settle(app, pilot, "enter")
                elif human_turn(app):
                    await settle(app, pilot, "H")
            screen = app.screen
            assert isinstance(screen, BuildScreen)
            await pilot.press("r")                     # choose a race
            await pilot.pause(0.05)
            # equip every card: hand slots or material will be broken
            for _ in range(len(app.table.state.seats[0].hand) + 2):
                await pilot.press("e", "down")
            await pilot.pause(0.05)
            check = str(screen.query_one("#check").render())
            assert "✗" in check
            await pilot.press("c")
            await pilot.pause(0.05)
            assert not app.table.state.seats[0].confirmed
            assert any("Cannot confirm" in n.message for n in app._notifications)
    asyncio.run(run())


def test_too_small_terminal_shows_message():
    async def run():
        app = make_app("en")
        async with app.run_test(size=(60, 20)) as pilot:
            await pilot.pause(0.05)
            assert app.screen.has_class("small")
            assert "enlarge" in str(app.screen.query_one("#too-small").render())
    asyncio.run(run())


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_tiny_terminal_still_shows_the_size_to_reach(lang):
    """At 20×5 the message showed "The terminal is" and no size: the short one fits."""
    from textual.geometry import Region

    async def run():
        app = make_app(lang)
        async with app.run_test(size=(20, 5)) as pilot:
            await pilot.pause(0.05)
            assert app.screen.has_class("small")
            box = app.screen.query_one("#too-small")
            lines = box.render_lines(Region(0, 0, box.size.width, box.size.height))
            shown = "".join(line.text for line in lines).replace(" ", "")
            assert "80×24" in shown and "20×5" in shown
    asyncio.run(run())


def test_ctrl_c_asks_before_quitting():
    async def run():
        app = make_app("en")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("ctrl+c")
            await pilot.pause(0.05)
            assert type(app.screen).__name__.startswith("ConfirmScreen")
            await pilot.press("n")
            await pilot.pause(0.05)
            assert isinstance(app.screen, TitleScreen)
    asyncio.run(run())


def test_hotseat_hands_over_between_human_seats():
    """Two human seats: a hand-over screen hides the previous seat's view before the next
    human acts, and each human then sees their own hand."""
    async def run():
        app = make_app("en", seed=9)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("down", "enter")          # New game
            # Seat 2: normal → easy → random → human (levels by strength: issue 32)
            await pilot.press("down", "down", "left", "left", "left")
            assert app.screen.seats[1] == "human"
            await pilot.press("end", "enter")
            await pilot.pause(0.1)
            assert app.table.humans == (0, 1)
            seen_handover = 0
            viewers = set()
            for _ in range(400):
                await pilot.pause(0.005)
                if type(app.screen).__name__.startswith("HandOver"):
                    seen_handover += 1
                    # nothing of any seat is on screen while handing over
                    text = screen_text(app)
                    for c in app.table.state.seats[0].hand + app.table.state.seats[1].hand:
                        assert app.table.cards.card(c).name.en not in text
                    await settle(app, pilot, "enter")
                    continue
                if dialog_open(app):
                    await settle(app, pilot, "enter")
                elif human_turn(app):
                    viewers.add(app.viewer)
                    assert app.viewer == app.table.human_to_act()
                    if app.table.state.phase != "draft":
                        break
                    await settle(app, pilot, "H")
            assert seen_handover >= 2 and viewers == {0, 1}
    asyncio.run(run())


def _hidden_names(app) -> set[str]:
    """Names of cards that only other seats hold face down and the viewer never saw."""
    from rules.events import visible
    from tactical_tui.app import TacticalApp  # noqa: F401
    state, me, cards = app.table.state, app.viewer, app.table.cards
    obs = app.table.observe(me)
    seen = set(obs.hand + obs.picks + obs.equipped + obs.materialized + obs.targets
               + obs.upcoming + obs.defense_discard + obs.attack_discard)
    seen |= {b.card for b in obs.revealed_bids}
    for s in obs.seats:
        seen |= set(s.equipped)
    lines = [app.log_line(e) or "" for e in app.table.log]
    hidden = set()
    for i, s in enumerate(state.seats):
        if i == me:
            continue
        secret = set(s.hand + s.picks + ((s.draft_choice,) if s.draft_choice else ()))
        if not s.revealed:
            secret |= set(s.equipped)     # materialized cards are public (§5-4, R6)
        if state.bidding and state.bidding.step == "bid":
            secret |= {b.card for b in state.bidding.bids if b.seat == i}
        for c in secret:
            name = cards.card(c).name.en
            if c not in seen and not any(name in line for line in lines) and \
                    name not in {cards.card(x).name.en for x in seen}:
                hidden.add(name)
    return hidden


def test_no_screen_shows_another_seats_secrets():
    """Across a whole quick game, no screen shows another seat's hand, picks, face-down
    bid cards or unrevealed build."""
    async def run():
        app = make_app("en", seed=13)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter")
            checks = 0
            for _ in range(30000):
                await pilot.pause(0.005)
                if isinstance(app.screen, GameOverScreen):
                    break
                if app.table and not app.busy and app.table.state.phase != "battle":
                    text = screen_text(app)
                    leaked = {n for n in _hidden_names(app) if n in text}
                    assert not leaked, (app.table.state.phase, leaked)
                    checks += 1
                if dialog_open(app):
                    await settle(app, pilot, "enter")
                elif human_turn(app):
                    await settle(app, pilot, "H")
            assert checks > 20
    asyncio.run(run())
