"""The log screen (`l`) of a long game (issue 16 point 5): it draws the rows the RichLog of
the log strip (logview.LogView) draws, but breaks only the lines in view into rows, and
its lines are described as the updates come (logview.LogBook), not when it opens.
No timing: counts of the work done per key (bench/tui_latency.py measures the time)."""

from __future__ import annotations

import asyncio

import pytest
from textual.app import App, ComposeResult

from ai.selfplay import running
from rules import Config
from rules import events as E
from rules.actions import StartAttack
from rules.cards import default_cards
from tactical_tui.text.i18n import keep_names
from tactical_tui.widgets.logview import FullLog, LogBook, LogView
from tactical_tui.text.safe import as_text, plain
from tactical_tui.table.live import GameTable, SeatSetup
from tactical_tui.text.catalog import Describer

CARDS = default_cards()


def game_lines(lang: str, seeds=(3, 4)) -> list[str]:
    """The log lines of whole games of AI seats, as the log shows them, and lines long
    enough to be broken into several rows (card names kept whole)."""
    out = []
    for seed in seeds:
        table = GameTable(Config(players=4), tuple(SeatSetup(False, "normal") for _ in range(4)),
                          seed, CARDS)
        while not table.over and running(table.state):
            seat = table.ai_to_act()
            table.submit_ai(seat, *table.ai_decide(seat))
        d = Describer(CARDS, lang)
        out += [x for x in (d.describe(e.event) for e in table.log if e.event is not None) if x]
    names = [c.name.get(lang) for c in CARDS.attack + CARDS.defense]
    sep = "、" if lang == "ja" else ", "
    for i in range(0, len(names), 7):
        out.insert(7 * i % len(out), sep.join(names[i:i + 7]) * 2)
    return out


class Side(App):
    """One log widget of the log screen's size."""

    CSS = "#full-log { width: 74; height: 18; }"

    def __init__(self, lang: str, widget) -> None:
        super().__init__()
        self.lang, self.cards, self.widget = lang, CARDS, widget

    def compose(self) -> ComposeResult:
        yield self.widget

    def on_mount(self) -> None:
        self.widget.focus()


def rows(app, cells: int = 80) -> list[str]:
    """The screen's rows, each cut to its first `cells` cells."""
    return [strip.crop(0, cells).text for strip in app.screen._compositor.render_strips()]


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_the_log_screen_draws_the_rows_a_richlog_of_the_lines_drew(lang):
    """FullLog shows, key for key, what LogView (RichLog, min_width 20) shows when every
    line is written into it: at the end when it opens, after PgUp, Home, ↓, PgDn, End."""
    lines = game_lines(lang)
    keep = keep_names(CARDS, lang)
    keys = ["pageup", "pageup", "pageup", "up", "up", "pageup", "pageup", "down", "pagedown",
            "home", "down", "down", "pagedown", "pagedown", "end", "pageup", "up", "end"]

    async def drawn(widget, fill) -> list[list[str]]:
        app = Side(lang, widget)
        async with app.run_test(size=(80, 24)) as pilot:
            fill(widget)
            await pilot.pause()
            await pilot.pause()
            out = [rows(app, 72)]
            opened.append(getattr(widget, "broken", None))
            for key in keys:
                await pilot.press(key)
                await pilot.pause()
                out.append(rows(app, 72))
        return out

    opened: list = []

    def write(log) -> None:
        for line in lines:
            log.write(as_text(line))

    old = asyncio.run(drawn(LogView(id="full-log", wrap=True, markup=False, min_width=20), write))
    shown = [plain(x) for x in lines]
    from rich.cells import cell_len
    cells = [cell_len(x) for x in shown]
    new_widget = FullLog(shown, cells, keep, id="full-log")
    new = asyncio.run(drawn(new_widget, lambda w: None))
    assert sum(1 for r in old[0] if r.strip()) > 10            # a full screen of log
    assert len({tuple(x) for x in old}) > 5                    # the keys moved it
    # the same rows, key for key (the scroll bar, columns 72-73, sizes its thumb by an
    # estimate of the rows of the lines not seen yet: within a few per cent)
    for i, (a, b) in enumerate(zip(old, new)):
        assert a == b, f"after {keys[:i]}"
    from rich.text import Text
    from tactical_tui.text.i18n import Wrapped
    exact = sum(len(Wrapped(Text(x), keep).lines(new_widget.width_)) for x in shown)
    assert abs(new_widget.virtual_size.height - exact) <= exact * 0.05
    # opened at the end, only the lines in view were broken into rows
    assert opened[1] <= 18
    assert new_widget.broken < len(lines)


def battle_table(seed: int = 1) -> GameTable:
    """A game at seat 0's (human) battle turn, every earlier decision made by the AI."""
    table = GameTable(Config(players=4, first_game=True),
                      (SeatSetup(True),) + tuple(SeatSetup(False, "normal") for _ in range(3)),
                      seed, CARDS)
    while not (table.state.phase == "battle" and table.human_to_act() == 0
               and any(isinstance(a, StartAttack) for a in table.observe(0).legal)):
        seat = table.ai_to_act()
        if seat is not None:
            table.submit_ai(seat, *table.ai_decide(seat))
        else:
            table.submit(table.hint(table.human_to_act())[0])
    return table


def battle_entries(seed: int) -> list:
    table = GameTable(Config(players=4), tuple(SeatSetup(False, "normal") for _ in range(4)),
                      seed, CARDS)
    start = None
    while not table.over and running(table.state):
        if start is None and table.state.phase == "battle":
            start = len(table.log)
        seat = table.ai_to_act()
        table.submit_ai(seat, *table.ai_decide(seat))
    return [e for e in table.log[start:] if not isinstance(e.event, E.GameOver)]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_opening_a_long_log_describes_nothing_and_breaks_only_the_lines_in_view(lang, monkeypatch):
    from tactical_tui.app import TacticalApp
    from tactical_tui.screens.battle import BattleScreen
    from tactical_tui.widgets.base import LogScreen

    async def run():
        app = TacticalApp(lang=lang, ai_delay=0.0, autosave=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            app._begin(battle_table())
            for _ in range(300):
                await pilot.pause(0.01)
                if isinstance(app.screen, BattleScreen) and app.screen.my_turn():
                    break
            live = app.live
            for seed in range(1000, 1008):            # a long game: about 2,000 more lines
                entries = battle_entries(seed)
                for i in range(0, len(entries), 30):  # published as the table publishes
                    chunk = entries[i:i + 30]
                    live.game.log.extend(chunk)
                    live._publish(chunk)
            await pilot.pause(0.05)
            feed = app.feeds[0]
            # the book holds what the log screen used to describe when it opened
            d = Describer(app.cards, app.lang)
            expected = [plain(x) for x in (app.log_line(e, d) for e in feed.log) if x]
            assert feed.book.lines == expected and len(expected) > 1500

            described = []
            original = Describer.describe
            monkeypatch.setattr(Describer, "describe",
                                lambda self, e: described.append(e) or original(self, e))
            await pilot.press("l")
            await pilot.pause(0.05)
            assert isinstance(app.screen, LogScreen)
            log = app.screen.query_one(FullLog)
            assert described == []                    # nothing described on opening
            view = log.scrollable_content_region.height
            assert 0 < log.broken <= view + 2         # the rows in view, not the log
            assert log.n == len(expected)
            bottom = "".join(x.rstrip() for x in rows(app))
            tail = expected[-1][-20:].strip()
            assert tail in bottom.replace(" ", "") or tail.replace(" ", "") in bottom.replace(" ", "")
            before = log.broken
            await pilot.press("pageup", "pageup")
            await pilot.pause(0.05)
            assert log.broken - before <= 2 * view + 2
            await pilot.press("escape")
            await pilot.pause(0.05)
            assert isinstance(app.screen, BattleScreen)
            # an undo rewrites the log: the book starts again from the new log
            epoch = feed.epoch
            live._publish(reset=True)
            await pilot.pause(0.05)
            assert feed.epoch == epoch + 1
            d = Describer(app.cards, app.lang)
            assert feed.book.lines == [plain(x) for x in (app.log_line(e, d) for e in feed.log) if x]

    asyncio.run(run())


def test_log_book_describes_each_entry_once():
    """catch_up describes only what came since the last call, in order (one Describer:
    an attack's damage explained by its targets)."""
    from types import SimpleNamespace

    class Feed:
        epoch, log = 0, []

    calls = []

    def log_line(entry, d, seat=None):
        calls.append(entry)
        return d.describe(entry.event) if entry.event is not None else None

    app = SimpleNamespace(lang="en", cards=CARDS, log_line=log_line, seat_names=dict,
                          describer=lambda: Describer(CARDS, "en"))
    table = GameTable(Config(players=4), tuple(SeatSetup(False, "normal") for _ in range(4)), 5, CARDS)
    feed = Feed()
    feed.log = list(table.log)
    book = LogBook().catch_up(feed, app, 0)
    assert len(calls) == len(feed.log)
    for _ in range(40):
        seat = table.ai_to_act()
        feed.log.extend(table.submit_ai(seat, *table.ai_decide(seat)))
        book.catch_up(feed, app, 0)
    assert len(calls) == len(feed.log)                 # each entry once
    d = Describer(CARDS, "en")
    assert book.lines == [plain(x) for x in (d.describe(e.event) for e in feed.log
                                             if e.event is not None) if x]
    feed.epoch = 1                                     # rewritten: described again
    book.catch_up(feed, app, 0)
    assert len(calls) == 2 * len(feed.log)


def test_log_book_describes_again_when_the_players_names_change():
    """At a server's table the lines name the players (App.seat_names); a name that comes
    after the first lines (a player sits down, the seat list arrives after the log) is
    in every line at once — the log screen said "Seat 2" in the lines before it and
    "Seat 2 bob" after."""
    from types import SimpleNamespace

    class Feed:
        epoch, log = 0, []

    names: dict = {}
    app = SimpleNamespace(lang="en", cards=CARDS, seat_names=lambda: dict(names),
                          describer=lambda: Describer(CARDS, "en", names=lambda: names),
                          log_line=lambda entry, d, seat=None:
                          d.describe(entry.event) if entry.event is not None else None)
    table = GameTable(Config(players=4), tuple(SeatSetup(False, "normal") for _ in range(4)), 5, CARDS)
    feed = Feed()
    feed.log = list(table.log)
    book = LogBook().catch_up(feed, app, 0)
    assert any("Seat 2 " in x for x in book.lines) and not any("bob" in x for x in book.lines)
    names[1] = "bob"
    book.catch_up(feed, app, 0)
    assert any("Seat 2 bob" in x for x in book.lines)
    assert not any("Seat 2 " in x and "Seat 2 bob" not in x for x in book.lines), book.lines
