"""§5-4 全員が最終ビルドの確定を宣言するまでは、自由に付け外しできます (RULINGS R4) on the build
screen: the waiting view shows `w` in the Footer (and hides the editing keys); `w` takes
the confirmation back at once, also while an AI seat is thinking (the table does not stop
for the AI: issue 15)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from ai import make_player
from rules import Config, apply, observe, pending
from rules import new_game
from tactical_tui.app import TacticalApp
from tactical_tui.table.saves import FORMAT, SaveData, SeatEntry, to_json
from tactical_tui.screens.build import BuildScreen
from tactical_tui.table.live import GameTable
from tui_app import screen_text

SEED = 31


def build_start_save(tmp_path, lang: str):
    """A save of a 4-seat first game at the start of the build (seat 0 human)."""
    config = Config(players=4, first_game=True)
    state, _ = new_game(config, seed=SEED)
    players = [make_player("normal", SEED * 101 + i, state.cards) for i in range(4)]
    actions = []
    while state.phase != "build":
        s = pending(state).seats[0]
        obs = observe(state, s)
        a = players[s].choose(obs, obs.legal)
        state, _ = apply(state, a)
        actions.append(a)
    seats = (SeatEntry(True),) + tuple(SeatEntry(False, "normal") for _ in range(3))
    path = tmp_path / "build.json"
    path.write_text(to_json(SaveData(FORMAT, SEED, config, seats, tuple(actions), lang)), "utf-8")
    return path


@pytest.mark.parametrize("lang, key_text, hint", [
    ("en", "Unconfirm", "w takes it back"), ("ja", "確定取消", "wで確定を取り消して")])
def test_build_screen_w_takes_the_confirmation_back(tmp_path, monkeypatch, lang, key_text, hint):
    path = build_start_save(tmp_path, lang)
    go = threading.Event()
    real_next, real_decide = GameTable.ai_to_act, GameTable.ai_decide

    def next_ai(self):               # the AI seats build only once seat 0 has confirmed
        if self.state.phase == "build" and not self.state.seats[0].confirmed:
            return None
        return real_next(self)

    def decide(self, seat, obs=None):   # … and think until the test lets them
        go.wait(10)
        return real_decide(self, seat, obs)
    monkeypatch.setattr(GameTable, "ai_to_act", next_ai)
    monkeypatch.setattr(GameTable, "ai_decide", decide)

    async def run():
        app = TacticalApp(lang=lang, ai_delay=0.0, resume=str(path), autosave=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.2)
            screen = app.screen
            assert isinstance(screen, BuildScreen)
            assert screen.check_action("unconfirm", ()) is False       # not confirmed: hidden
            await pilot.press("r", "e", "c")                             # race, equip, confirm
            await pilot.pause(0.2)
            seat0 = lambda: app.table.state.seats[0]
            assert seat0().confirmed and app.busy                        # an AI seat thinks
            # the waiting view: w in the Footer, the editing keys hidden, the hint shown
            assert screen.check_action("unconfirm", ()) is True
            assert screen.check_action("confirm", ()) is False
            assert screen.check_action("zone", ("equip",)) is False
            footer = screen_text(app).rstrip("\n").splitlines()[-1]
            assert f"w {key_text}" in footer
            assert "c " not in footer and "e " not in footer
            assert hint in str(screen.query_one("#check").render())
            # w while the AI seat thinks: taken back at once (the table is not stopped)
            await pilot.press("w")
            await pilot.pause(0.1)
            assert not seat0().confirmed and app.busy
            assert app.table.history[-1].__class__.__name__ == "Unconfirm"
            go.set()
            assert app.table.state.phase == "build"
            # editable again: the editing keys are back, w is hidden
            for _ in range(200):
                await pilot.pause(0.01)
                if not app.busy:
                    break
            assert screen.check_action("unconfirm", ()) is False
            assert screen.check_action("confirm", ()) is True
            await pilot.pause(0.1)
            assert f"w {key_text}" not in screen_text(app).rstrip("\n").splitlines()[-1]
            equipped = app.table.state.seats[0].equipped
            await pilot.press("u")                                       # unequip it again
            await pilot.pause(0.1)
            assert app.table.state.seats[0].equipped != equipped
    asyncio.run(run())
