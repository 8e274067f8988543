"""How to play (issue 15 point 7): reachable from the title and from the help (`?` then
`p`), every page in Japanese and English fits 80×24 with no line cut, the guild page is
built from the card data, and the draft and bid screens show your guild and its trait."""

from __future__ import annotations

import asyncio

import pytest
from rich.cells import cell_len

from tactical_tui.screens import howto
from tactical_tui.screens.howto import HEIGHT, ORDER, PAGES, WIDTH, HowToScreen, page_text, wrap
from tui_app import dialog_open, human_turn, make_app, screen_text, settle


class _NoGame:
    table = None
    cards = None


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_every_page_fits_80x24(lang):
    """Each line at most WIDTH cells (80 columns less the padding), each page at most
    HEIGHT lines (24 rows less the top bar and the Footer)."""
    for key in ORDER:
        text = page_text(_NoGame(), key, lang)
        lines = text.split("\n")
        assert len(lines) <= HEIGHT, (key, len(lines))
        for line in lines:
            assert cell_len(line) <= WIDTH, (key, line)


def test_both_languages_have_every_page():
    for key in ORDER:
        if key != "guilds":
            assert set(PAGES[key]) == {"ja", "en"}
    assert set(howto.TITLES) == set(ORDER)


def test_wrap_japanese_line_breaking():
    text = "金鷹ギルド《競売》: 武器入札中に1回だけ、同額入札があるとき、落札判定の前に自分の入札価値を1増やす。"
    for width in range(12, 40):
        lines = wrap(text, width, "ja", indent="  ")
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")
        for i, line in enumerate(lines):
            assert cell_len(line) <= width, (width, line)
            if i:
                assert line.strip()[0] not in "、。）」》:", (width, lines)
            assert not line.endswith("《")
        assert any("《競売》" in x for x in lines), (width, lines)     # a name is never split


def test_wrap_english_at_spaces():
    text = "Once per game, when your bid ties another player's on a target: raise it by 1"
    lines = wrap(text, 20, "en", indent="  ")
    assert all(cell_len(x) <= 20 for x in lines)
    assert " ".join(x.strip() for x in lines) == text


def test_guild_page_from_card_data(cards):
    class App:
        table = None
    App.cards = cards
    for lang in ("ja", "en"):
        text = page_text(App(), "guilds", lang)
        for g in cards.guilds:
            assert g.name.get(lang) in text and g.trait.name.get(lang) in text
        assert all(cell_len(x) <= WIDTH for x in text.split("\n"))


def test_guild_page_without_a_game_reads_the_shipped_cards_lazily():
    from rules.cards import default_cards
    text = page_text(_NoGame(), "guilds", "en")
    assert "Golden Hawk Guild: Auction" in text
    assert all(g.name.get("en") in text for g in default_cards().guilds)


def test_title_screen_modules_do_not_import_the_rules():
    """commands, settings and exitline import with `rules` and `ai` made unimportable;
    howto has no module-level import of them (it needs widgets/base.py, which is the startup
    helper's to make light)."""
    import ast
    import subprocess
    import sys
    from pathlib import Path
    code = ("import sys\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] in ('rules', 'ai'):\n"
            "            raise ImportError('blocked: ' + name)\n"
            "sys.meta_path.insert(0, Block())\n"
            "import tactical_tui.commands, tactical_tui.settings, tactical_tui.exitline\n"
            "print('ok')\n")
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, cwd=root, env={**__import__("os").environ,
                                                    "PYTHONPATH": str(root)})
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
    tree = ast.parse((root / "tactical_tui" / "screens" / "howto.py").read_text(encoding="utf-8"))
    for node in tree.body:                     # module level only
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""] if node.level == 0 else []
        assert not any(n.split(".")[0] in ("rules", "ai") for n in names), ast.dump(node)


def _page_lines(lang, key):
    return [x.rstrip() for x in page_text(_NoGame(), key, lang).split("\n") if x.strip()]


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_title_menu_opens_how_to_play_and_every_page_shows_whole(lang):
    async def run():
        app = make_app(lang)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.05)
            menu = app.screen.query_one("#menu")
            ids = [menu.get_option_at_index(i).id for i in range(menu.option_count)]
            assert "howto" in ids
            await pilot.press(*["down"] * ids.index("howto"), "enter")
            await pilot.pause(0.1)
            assert isinstance(app.screen, HowToScreen)
            for k, key in enumerate(ORDER):
                await pilot.pause(0.05)
                shown = screen_text(app)
                assert f"{k + 1}/{len(ORDER)}" in shown.split("\n")[0]
                rows = [r.rstrip() for r in shown.split("\n")]
                for line in _page_lines(lang, key):
                    # every line of the page is on one row, whole (not wrapped or cut)
                    assert any(r.endswith(line.strip()) and line.strip() in r for r in rows), \
                        (key, line)
                assert ("次のページ" if lang == "ja" else "Next page") in rows[-2] + rows[-1]
                await pilot.press("right")
            await pilot.pause(0.05)
            assert app.screen.k == 0                         # round the pages
            await pilot.press("4")
            assert app.screen.page == ORDER[3]
            await pilot.press("left")
            assert app.screen.page == ORDER[2]
            await pilot.press("escape")
            await pilot.pause(0.05)
            assert not isinstance(app.screen, HowToScreen)
    asyncio.run(run())


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_help_key_leads_to_how_to_play(lang):
    async def run():
        app = make_app(lang)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("question_mark")
            await pilot.pause(0.05)
            assert type(app.screen).__name__.startswith("HelpScreen")
            assert ("遊び方" if lang == "ja" else "How to play") in screen_text(app)  # Footer
            await pilot.press("p")
            await pilot.pause(0.1)
            assert isinstance(app.screen, HowToScreen)
    asyncio.run(run())


def test_in_a_game_how_to_play_names_your_guild_and_the_game_waits():
    async def run():
        app = make_app("en", seed=5, quick=True)
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(400):
                await pilot.pause(0.01)
                if human_turn(app):
                    break
            moves = len(app.table.history)
            await pilot.press("question_mark")
            await pilot.pause(0.05)
            await pilot.press("p")
            await pilot.pause(0.1)
            assert isinstance(app.screen, HowToScreen)
            await pilot.press(str(ORDER.index("guilds") + 1))
            await pilot.pause(0.05)
            seat = app.viewer
            g = app.table.cards.guild(app.table.state.seats[seat].guild)
            assert f"Your guild: {g.name.get('en')}: {g.trait.name.get('en')}" in screen_text(app)
            await pilot.pause(0.3)
            assert len(app.table.history) == moves     # modal: nothing moves while reading
            await pilot.press("escape")
            await pilot.pause(0.05)
            assert not isinstance(app.screen, HowToScreen)
    asyncio.run(run())


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_draft_and_bid_screens_show_your_guild(lang):
    from tactical_tui.screens.bid import BidScreen
    from tactical_tui.screens.draft import DraftScreen

    async def run():
        app = make_app(lang, seed=11, quick=True)
        seen = {}
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(20000):
                await pilot.pause(0.005)
                scr = app.screen
                if isinstance(scr, (DraftScreen, BidScreen)) and type(scr).__mro__[1] not in seen \
                        and human_turn(app):
                    await pilot.pause(0.1)
                    seen[type(scr).__mro__[1]] = screen_text(app)
                if len(seen) == 2:
                    break
                if dialog_open(app):
                    await settle(app, pilot, "enter")
                elif human_turn(app):
                    await settle(app, pilot, "H")
            g = app.table.cards.guild(app.table.state.seats[app.viewer].guild)
        assert set(seen) == {DraftScreen, BidScreen}
        name = g.name.get(lang)
        for text in seen.values():
            assert name in text and g.trait.name.get(lang) in text
    asyncio.run(run())


def test_guild_line_fits_the_panel(cards):
    from tactical_tui.screens.howto import guild_line, guild_lines
    for g in cards.guilds:
        for lang in ("ja", "en"):
            assert cell_len(guild_line(cards, g.id, lang, 35)) <= 35
            assert all(cell_len(x) <= 34 for x in guild_lines(cards, g.id, lang, 34))
