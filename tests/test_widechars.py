"""tactical_tui.widgets.widechars: a toast whose wide character lies across the edge of a widget
beneath it keeps the character (Textual issue #6357; issue 32 point 7), in the full
updates, `render_strips` and the partial updates (ChopsUpdate, played on a pyte terminal)."""

import asyncio

import pyte
import pytest
from rich.console import Console
from textual.app import App
from textual.containers import Horizontal
from textual.geometry import Region
from textual.widgets import Static
from textual.widgets._toast import Toast

from tactical_tui.widgets import widechars

MESSAGE = "テーブル 6884e9ac"


@pytest.fixture
def fixed():
    """The fix applied for the test; Textual's own methods back afterwards when the fix was
    not in place before (the app applies it for good)."""
    from textual._compositor import Compositor
    before = getattr(Compositor, "_wide_chars_kept", False)
    assert widechars.apply(), "the installed Textual is not the one the fix was written for"
    yield
    if not before:
        widechars.undo()


@pytest.fixture
def unfixed():
    from textual._compositor import Compositor
    before = getattr(Compositor, "_wide_chars_kept", False)
    widechars.undo()
    yield
    if before:
        widechars.apply()


class PanelApp(App):
    """A bordered panel on the right of a spacer whose width puts the panel's left edge
    (a cut of the compositor) under the toast's first character's right half."""
    CSS = """
    #spacer { width: 1; }
    #panel { border: round white; width: 1fr; height: 1fr; }
    """

    def compose(self):
        with Horizontal():
            yield Static("", id="spacer")
            yield Static("パネル " * 200, id="panel")


def screen_text(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def terminal():
    screen = pyte.Screen(80, 24)
    return screen, pyte.Stream(screen)


def console():
    return Console(width=80, height=24, force_terminal=True, color_system="truecolor",
                   legacy_windows=False)


async def toast_over_edge(pilot, app, shift=1):
    """Notify; move the panel's edge `shift` cells right of the toast's first character;
    the (x, y) of that character."""
    app.notify(MESSAGE, timeout=60)
    await pilot.pause(0.1)
    toast = app.screen.query(Toast).first()
    x, y = toast.content_region.x, toast.content_region.y
    app.query_one("#spacer").styles.width = x + shift
    await pilot.pause(0.1)
    assert app.query_one("#panel").region.x == x + shift     # the edge lies under the toast
    return x, y


def run_panel(check):
    async def run():
        app = PanelApp()
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await check(pilot, app)
    asyncio.run(run())


def test_a_toast_keeps_its_wide_character_over_a_panels_edge(fixed):
    """Pilot at 80×24: the panel's left edge (and its border line) under the right half of
    `テ`; the whole message is on the screen (full render: render_strips)."""
    async def check(pilot, app):
        await toast_over_edge(pilot, app)
        assert MESSAGE in screen_text(app), screen_text(app)
    run_panel(check)


def test_without_the_fix_textual_loses_the_character(unfixed):
    """The same screen with Textual's own compositor: `テ` is replaced by spaces (the bug
    the fix is for — when this fails, Textual has fixed it and the guard should see)."""
    async def check(pilot, app):
        await toast_over_edge(pilot, app)
        text = screen_text(app)
        assert MESSAGE not in text and MESSAGE[1:] in text
    run_panel(check)


def full_display(app) -> list[str]:
    screen, stream = terminal()
    stream.feed(app.screen._compositor.render_full_update().render_segments(console()))
    return screen.display


@pytest.mark.parametrize("shift", [1, 3])
@pytest.mark.parametrize("start", [0, 1, 2, 3, 5])
def test_partial_updates_draw_what_a_full_update_draws(fixed, shift, start):
    """A full update on a terminal, stale cells in a span, then the partial update of a
    dirty region that starts at `start` cells right of the toast's first character —
    inside the merged run (the toast's chop over the panel's edge), at the edge, before
    it — gives the screen a full update gives, with the whole message on it."""
    async def check(pilot, app):
        x, y = await toast_over_edge(pilot, app, shift)
        compositor = app.screen._compositor
        screen, stream = terminal()
        stream.feed(compositor.render_full_update().render_segments(console()))
        assert MESSAGE in screen.display[y]
        dirty = Region(x + start, y, 8, 1)
        stream.feed(f"\x1b[{y + 1};{x + start + 1}H" + "X" * 8)      # stale cells
        compositor._dirty_regions.add(dirty)
        update = compositor.render_partial_update()
        assert update is not None
        stream.feed(update.render_segments(console()))
        assert screen.display == full_display(app)
        assert "X" not in screen.display[y]
        # the renderable (rich) path of the same update
        screen2, stream2 = terminal()
        stream2.feed(compositor.render_full_update().render_segments(console()))
        stream2.feed(f"\x1b[{y + 1};{x + start + 1}H" + "X" * 8)
        compositor._dirty_regions.add(dirty)
        update = compositor.render_partial_update()
        out = console()
        with out.capture() as capture:
            out.print(update, end="")
        stream2.feed(capture.get())
        assert screen2.display == screen.display
    run_panel(check)


def test_textuals_chop_ends_would_miss_a_span_inside_a_merged_run(fixed):
    """Why render_partial_update is replaced too: with the merged chops but Textual's chop
    ends (from all cuts), a dirty span that starts inside the toast's run past its first
    chop is not redrawn (the stale cells stay)."""
    from textual._compositor import Compositor

    async def check(pilot, app):
        x, y = await toast_over_edge(pilot, app, 1)
        compositor = app.screen._compositor
        screen, stream = terminal()
        stream.feed(compositor.render_full_update().render_segments(console()))
        stream.feed(f"\x1b[{y + 1};{x + 3}H" + "X" * 4)
        compositor._dirty_regions.add(Region(x + 2, y, 4, 1))
        update = Compositor._textual_render_partial_update(compositor)
        stream.feed(update.render_segments(console()))
        assert "X" in screen.display[y]
    run_panel(check)


def test_full_update_layout_matches_render_strips(fixed):
    """The full update (LayoutUpdate, as written to the terminal) shows the message too,
    and its lines are as wide as the screen."""
    async def check(pilot, app):
        x, y = await toast_over_edge(pilot, app)
        update = app.screen._compositor.render_full_update()
        assert all(sum(strip.cell_length for strip in line) == 80 for line in update.strips)
        assert MESSAGE in full_display(app)[y]
    run_panel(check)


def test_the_guard_leaves_another_textual_alone():
    """A compositor whose methods differ from the known source is not patched."""
    class Other:
        def _render_chops(self, crop, is_rendered_line):
            return []

        def render_partial_update(self):
            return None

        @property
        def cuts(self):
            return []
    assert not widechars.matches(Other)
    from textual._compositor import Compositor
    assert widechars.matches(Compositor)


def test_the_games_title_screen_keeps_a_toasts_wide_character_over_the_menus_edge(fixed):
    """The real app at 80×24 (it applies the fix itself): three toasts stack up to the title
    menu, whose right edge (a cut at column 76) lies under the last cell of a toast's text;
    a line Textual breaks to the toast's full width (a markup toast: the game's own plain
    toasts are broken one cell short, tactical_tui.app.toast_lines) ends with a wide
    character across that edge, and the whole line is on the screen."""
    from textual.app import App as TextualApp
    from tactical_tui.app import TacticalApp
    line = "ギルドマスターたちのドラフト入札バトル"[:18]          # 36 cells: the toast's width
    message = line + "をどうぞ"

    async def run():
        app = TacticalApp(lang="ja", ai_delay=0.0, autosave=False)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await pilot.pause(0.3)
            for _ in range(3):
                TextualApp.notify(app, message, timeout=60, markup=True)
            await pilot.pause(0.3)
            compositor = app.screen._compositor
            top = min(app.screen.query(Toast), key=lambda toast: toast.region.y)
            x, y = top.content_region.x, top.content_region.y
            assert x + 35 in compositor.cuts[y]          # the menu's edge under the 18th character
            rows = [strip.text for strip in compositor.render_strips()]
            assert line in rows[y], rows[y]
            screen, stream = terminal()
            stream.feed(compositor.render_full_update().render_segments(console()))
            assert line in screen.display[y]
    asyncio.run(run())
