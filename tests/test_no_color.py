"""NO_COLOR=1 and the light and dark themes (issue 15 point 8): colour is gone, and every
marker is text — the current seat ▶, you @, the attack area [n], the critical area !n!,
a skill's ✓/✗, the knocked-out mark, the ★ of a critical target."""

from __future__ import annotations

import asyncio
import re

import pytest
from rich.segment import Segment
from textual.filter import Monochrome, NoColor

from rules import actions as A
from tactical_tui.screens.battle import BattleScreen
from tactical_tui.settings import Settings, Store
from tui_app import dialog_open, human_turn, settle


def _filtered_rows(app) -> list[list[Segment]]:
    """The screen as the terminal gets it: the app's line filters applied."""
    from textual.color import Color
    rows = []
    for strip in app.screen._compositor.render_strips():
        segs = list(strip)
        for f in app.get_line_filters():
            segs = list(f.apply(segs, Color(0, 0, 0)))
        rows.append(segs)
    return rows


def _no_colour(rows) -> bool:
    for segs in rows:
        for seg in segs:
            for c in (seg.style.color, seg.style.bgcolor) if seg.style else ():
                if c is None or c.triplet is None:
                    continue
                r, g, b = c.triplet
                if not (r == g == b):
                    return False
    return True


def _text(rows) -> str:
    return "\n".join("".join(s.text for s in segs) for segs in rows)


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_no_color_keeps_every_marker(monkeypatch, theme):
    monkeypatch.setenv("NO_COLOR", "1")
    from tactical_tui.app import TacticalApp
    app = TacticalApp(lang="en", ai_delay=0.0, quick=True, seed=8, autosave=False,
                      store=Store(Settings(theme=theme)))
    assert app.no_color
    found: dict[str, bool] = {}

    async def run():
        async with app.run_test(size=(80, 24)) as pilot:
            assert app.theme == ("textual-light" if theme == "light" else "textual-dark")
            assert any(isinstance(f, (Monochrome, NoColor)) for f in app.get_line_filters())
            for _ in range(60000):
                await pilot.pause(0.002)
                scr = app.screen
                if isinstance(scr, BattleScreen) and human_turn(app):
                    await pilot.pause(0.05)
                    rows = _filtered_rows(app)
                    assert _no_colour(rows)
                    text = _text(rows)
                    found["▶"] = found.get("▶") or "▶" in text
                    found["@"] = found.get("@") or "@=you" in text
                    found["✓✗"] = found.get("✓✗") or ("✓" in text or "✗" in text)
                    found["out"] = found.get("out") or bool(re.search(r"U\d+ out\b", text))   # the knocked-out mark (text, not colour)
                    found["★"] = found.get("★") or "★critical" in text
                    acts = scr._actions
                    atk = next((i for i, a in enumerate(acts)
                                if isinstance(a, (A.StartAttack, A.StartCounter))), None)
                    if atk is not None and not found.get("[n]"):
                        ol = scr.query_one("#actions")
                        ol.highlighted = atk
                        await pilot.pause(0.05)
                        field = scr.field_text().plain
                        found["[n]"] = "[" in field or "!" in field
                        text = _text(_filtered_rows(app))
                        found["[n]"] = found["[n]"] and any(
                            f"[{x}]" in text or f"!{x}!" in text for x in range(1, 7))
                    if all(found.get(k) for k in ("▶", "@", "✓✗", "out", "★", "[n]")):
                        return
                if dialog_open(app):
                    await settle(app, pilot, "enter")
                elif human_turn(app):
                    await settle(app, pilot, "H")
                if app.table and app.table.state.phase == "over":
                    return
    asyncio.run(run())
    for marker in ("▶", "@", "✓✗", "[n]"):
        assert found.get(marker), (marker, found)
    # the knock-out and the critical target depend on the game; with this seed both come
    assert found.get("out") and found.get("★"), found


def _lum(c) -> int:
    return sum(c.triplet) // 3 if c is not None and c.triplet is not None else -1


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_no_color_cursor_row_is_reversed(monkeypatch, theme):
    """NO_COLOR=1: the cursor row of a focused list is reversed — its background the
    other rows' text colour, its text their background — not a grey tint of the same
    side (it was light grey on mid grey, the same darkness as the rows around it). In a
    list without the focus (the bid screen's other list) it is underlined."""
    monkeypatch.setenv("NO_COLOR", "1")
    from tactical_tui.app import TacticalApp
    app = TacticalApp(lang="en", ai_delay=0.0, seed=8, autosave=False,
                      store=Store(Settings(theme=theme)))

    def row(rows, text):
        return next(s for segs in rows for s in segs if s.text.startswith(text))

    async def run():
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.1)
            rows = _filtered_rows(app)
            cur, other = row(rows, "Quick game"), row(rows, "New game")
            assert _lum(cur.style.bgcolor) >= 0 and _lum(other.style.bgcolor) >= 0
            # the cursor row's background is on the other side of grey from the rest …
            assert (_lum(cur.style.bgcolor) > 128) != (_lum(other.style.bgcolor) > 128), (cur, other)
            # … and its text stands out from it as much as the other rows' text does
            assert abs(_lum(cur.style.color) - _lum(cur.style.bgcolor)) > 120, cur
            await pilot.press("down")
            await pilot.pause(0.05)
            rows = _filtered_rows(app)
            assert _lum(row(rows, "New game").style.bgcolor) == _lum(cur.style.bgcolor)
    asyncio.run(run())
