"""The replay viewer shows the field map (issue 15 point 8): in the battle, the six areas
and who stands where, drawn as the battle screen draws them."""

from __future__ import annotations

import asyncio
import random

import pytest

from ai import RandomPlayer
from rules import Config, apply, legal_actions, new_game, observe
from rules.cards import default_cards
from tactical_tui.screens.replay import ReplayApp, ReplayScreen, field_map
from tactical_tui.screens.battle import seat_mark
from tactical_tui.widgets.base import localized
from tui_app import screen_text


def _played(seed: int = 2, players: int = 4):
    cards = default_cards()
    state, events0 = new_game(Config(players=players), cards, seed)
    start = state
    bots = [RandomPlayer(seed * 10 + i) for i in range(players)]
    steps = []
    while legal_actions(state):
        seat = legal_actions(state)[0].seat
        obs = observe(state, seat)
        action = bots[seat].choose(obs, obs.legal)
        state, ev = apply(state, action)
        steps.append((action, state, ev))
    return cards, events0, steps, start


def _has_field(text: str) -> bool:
    """The field's first row (areas 1 ─ 2) and its last (5 ─ 4) are on screen."""
    import re
    return bool(re.search(r" 1 [^\n]*── +2", text)) and bool(re.search(r" 5 [^\n]*── +4", text))


def test_field_map_puts_every_seat_in_its_area():
    cards, _, steps, _ = _played()
    battle = [s for _, s, _ in steps if s.phase == "battle" and s.battle is not None
              and sum(1 for x in s.seats if x.area) >= 3]
    assert battle
    state = battle[len(battle) // 2]
    text = field_map(state, "en").plain
    assert "@" not in text                        # a replay is nobody's seat
    assert _has_field(text)
    rows = text.split("\n")
    assert len(rows) == 3
    for i, s in enumerate(state.seats):
        if s.area and not s.knocked_out:
            # the area's number followed by the seat's circled number (② = Seat 2)
            row = next(r for r in rows if f" {s.area} " in r)
            part = row.split(f" {s.area} ", 1)[1].split()[0]
            assert seat_mark(i, -1) in part, (i, s.area, row)


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_replay_viewer_shows_the_field_in_the_battle(lang):
    cards, events0, steps, start = _played()
    first_battle = next(k for k, (_, s, _) in enumerate(steps, 1)
                        if s.phase == "battle" and any(x.area for x in s.seats))
    screen = localized(ReplayScreen, lang)("game.json", events0, steps, cards, lang, start=start)
    app = ReplayApp(screen)

    async def run():
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.05)
            assert not _has_field(screen_text(app))             # the deal: no field
            screen.k = first_battle - 1
            await pilot.press("right")
            await pilot.pause(0.05)
            shown = screen_text(app)
            assert _has_field(shown)
            state = steps[first_battle - 1][1]
            seat = next(i for i, s in enumerate(state.seats) if s.area)
            assert f" {state.seats[seat].area} {seat_mark(seat, -1)}" in shown
    asyncio.run(run())
