"""The app says why an action is refused in the player's language (DESIGN.md "Text and
language"): the notification is built from IllegalAction's code and params, with card
names in that language — never the rules core's English reason."""

from __future__ import annotations

import asyncio

from rules import IllegalAction, apply
from rules.actions import EndTurn, Pick
from tactical_tui.screens.draft import DraftScreen
from tui_app import human_turn, make_app


async def _draft(app, pilot) -> None:
    await pilot.press("enter")                 # the title's quick game: seat 0 is human
    for _ in range(400):
        await pilot.pause(0.005)
        if isinstance(app.screen, DraftScreen) and human_turn(app):
            return
    raise AssertionError("the draft did not start")


def _refusal(app, action) -> IllegalAction:
    try:
        apply(app.table.state, action)
    except IllegalAction as exc:
        return exc
    raise AssertionError(f"{action} was applied")


def test_japanese_app_shows_refusals_in_japanese():
    async def run():
        app = make_app("ja", seed=11)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await _draft(app, pilot)
            other = app.table.state.seats[1].hand[0]        # a card of another seat
            exc = _refusal(app, Pick(0, other))
            assert exc.code == "bad_card"
            app.submit(Pick(0, other))
            app.submit(EndTurn(0))
            await pilot.pause(0.05)
            messages = [n.message for n in app._notifications]
            name = app.table.cards.card(other).name.ja
            assert f"できません: 今は{name}をカードの選択に選べません" in messages, messages
            assert "できません: 今は手番終了はできません（装備ドラフトの選択の最中です）" in messages
            assert not any(exc.reason in m or "not" in m for m in messages), messages
            assert app.table.state.seats[0].draft_choice is None   # nothing was applied
    asyncio.run(run())


def test_english_app_shows_refusals_in_english():
    async def run():
        app = make_app("en", seed=11)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await _draft(app, pilot)
            app.submit(EndTurn(0))
            await pilot.pause(0.05)
            messages = [n.message for n in app._notifications]
            assert "Not allowed: End turn is not possible during the draft" in messages, messages
    asyncio.run(run())


def test_japanese_app_names_a_bad_save_file_in_japanese(tmp_path):
    """Continue with a damaged save file: the message is Japanese, names the file, and
    the file is left as it was."""
    bad = tmp_path / "broken.json"
    bad.write_bytes(b"{")

    async def run():
        app = make_app("ja", seed=11)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await pilot.pause(0.05)
            app.continue_game(str(bad))
            await pilot.pause(0.05)
            messages = [n.message for n in app._notifications]
            assert any(m.startswith("保存ファイルを開けません: ") and str(bad) in m
                       and "保存ファイルではありません（JSONとして読めません" in m
                       for m in messages), messages
            assert not any("not a save file" in m for m in messages), messages
    asyncio.run(run())
    assert bad.read_bytes() == b"{"
