"""A newcomer's first game (issue 32): what the screens say is whole, one spelling, and
says what it means — the reveal check's empty lists, the stats' abbreviations, the card a
hint names, the AI's reasons, text at 80×24."""

from __future__ import annotations

import pytest

from rules import events as E
from rules.cards import default_cards
from tactical_tui.text.catalog import Describer

CARDS = default_cards()


@pytest.mark.parametrize("lang, none", [("en", "none"), ("ja", "なし")])
def test_the_reveal_check_says_none_for_an_empty_list(lang, none):
    """Point 10: a build that materialized nothing (or equipped nothing) says so in both
    languages; in Japanese the list was blank (「装備  / マテリアル化  — 違反なし」)."""
    d = Describer(CARDS, lang)
    line = d.describe(E.BuildRevealed(seat=0, race=CARDS.races[0].id, equipped=(),
                                      materialized=(), violations=()))
    equipped, materialized = {"en": ("equipped", "materialized"),
                              "ja": ("装備", "マテリアル化")}[lang]
    assert f"{equipped} {none} / {materialized} {none} — " in line, line


def _app(lang: str, seed: int, seats=("human", "normal", "normal", "normal"), delay: float = 0.0):
    from tactical_tui.app import TacticalApp
    return TacticalApp(lang=lang, ai_delay=delay, seed=seed, autosave=False, seats=seats)


def _saved_when(tmp_path, seed: int, done, lang: str, limit: int = 600, delay: float = 0.0):
    """The app continuing a 4-seat game (seat 0 human, three normal AIs) played by the
    hint for the human up to the first state where `done(table)` — a save made with the
    table, resumed (the Pilot game need not take the same turns to get there)."""
    from rules import Config
    from tactical_tui.app import TacticalApp
    from tactical_tui.table.live import GameTable, SeatSetup
    table = GameTable(Config(players=4), (SeatSetup(True),) + (SeatSetup(False, "normal"),) * 3,
                      seed, save_path=tmp_path / f"game{seed}.json")
    for _ in range(limit):
        if done(table):
            break
        h = table.human_to_act()
        if h is not None:
            table.submit(table.hint(h)[0])
        else:
            s = table.ai_to_act()
            table.submit_ai(s, *table.ai_decide(s))
    assert done(table)
    table.autosave()
    return TacticalApp(lang=lang, ai_delay=delay, resume=str(table.save_path), autosave=False)


async def _play_until(app, pilot, done, limit: int = 20000) -> None:
    """Play on (H on the human's decision, Esc on dialogs) until `done()`."""
    from tui_app import dialog_open, human_turn, settle
    for _ in range(limit):
        await pilot.pause(0.005)
        if done():
            return
        if dialog_open(app):
            await settle(app, pilot, "escape")
        elif human_turn(app):
            await settle(app, pilot, "H")
    raise AssertionError("never reached")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_an_attack_card_is_one_row_and_its_range_is_asked_next(lang, tmp_path):
    """Point 6: the rules offer each attack card with each of its range skills and the
    card alone (RULINGS R22); the battle's list showed every card twice ("Fire Bolt (Mid
    Range)" and "Fire Bolt (range later)"). Now one row per card: a card with one range
    is its attack with that range; a card with several (seed 1: a Recurve Bow, Mid and
    Long Range) names them and, chosen, asks for the range (and the skills) in the next
    step — the top bar says so and the range skills are its rows."""
    import asyncio
    from rules import actions as A
    from textual.widgets import OptionList, Static
    from tactical_tui.screens.battle import BattleScreen
    from tui_app import settle
    later = {"en": "range later", "ja": "距離は後で"}[lang]
    step = {"en": "Declare the range and skills", "ja": "距離のスキルと使うスキルを宣言"}[lang]

    def multi(table):
        h = table.human_to_act()
        if h is None or table.state.phase != "battle":
            return False
        cards = [a.card for a in table.observe(h).legal if isinstance(a, A.StartAttack) and a.skill]
        return any(cards.count(c) > 1 for c in cards)

    async def run():
        app = _saved_when(tmp_path, 1, multi, lang)
        async with app.run_test(size=(80, 24)) as pilot:
            await _play_until(app, pilot, lambda: isinstance(app.screen, BattleScreen)
                              and app.screen.my_turn())
            await pilot.pause(0.05)
            scr = app.screen
            legal = app.table.observe(0).legal
            starts = [a for a in scr._actions if isinstance(a, A.StartAttack)]
            cards = [a.card for a in starts]
            assert sorted(cards) == sorted({a.card for a in legal if isinstance(a, A.StartAttack)})
            ol = scr.query_one("#actions", OptionList)
            rows = [str(ol.get_option_at_index(i).prompt) for i in range(ol.option_count)]
            assert not any(later in r for r in rows), rows
            name = lambda c: app.cards.card(c).name.get(lang)
            for c in cards:        # each card once among the rows
                assert sum(1 for r in rows if name(c) in r.replace("\n", "")) == 1, rows
            both = next(a for a in starts if a.skill is None)
            ranges = [app.cards.skill(a.skill).name.get(lang) for a in legal
                      if isinstance(a, A.StartAttack) and a.card == both.card and a.skill]
            row = rows[scr._actions.index(both)].replace("\n", "")
            assert all(r in row for r in ranges), row
            ol.highlighted = scr._actions.index(both)
            await settle(app, pilot, "enter")
            await pilot.pause(0.05)
            assert app.table.state.battle.attack.range_skill is None
            bar = str(app.screen.query_one("#topbar", Static).render())
            assert bar.endswith(step), bar
            declares = [a for a in app.screen._actions if isinstance(a, A.Declare)]
            assert {app.cards.skill(a.skill).name.get(lang) for a in declares} >= set(ranges)
    asyncio.run(run())


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_stats_have_one_spelling_and_it_is_explained(lang):
    """Point 11: the lists write the stats Ma St In Dx Df Ag (魔 腕 知 器 防 敏), a card's
    details wrote Dex, Str …, and nothing said what they meant. One spelling on screen —
    the card details and the refusals use the lists' forms in English (Japanese: the
    names whose first kanji the lists show) — explained in the help and How to play."""
    import re
    from tactical_tui.text.cardtext import STAT_SHORT, STAT_WORDS
    from tactical_tui.screens.help import help_text
    from tactical_tui.screens.howto import page_text
    from tactical_tui.widgets.base import card_details
    shown = STAT_WORDS[lang]
    if lang == "en":
        assert shown == STAT_SHORT["en"]
    else:
        assert all(shown[k].startswith(STAT_SHORT["ja"][k]) for k in shown)
    words = {"en": ("Mana", "Str", "Int", "Dex", "Def", "Agi"), "ja": ()}[lang]
    seen = set()
    for c in (*CARDS.defense, *CARDS.attack):
        _, body = card_details(CARDS, c.id, lang)
        text = str(body)
        for w in words:
            assert not re.search(rf"\b{w} ?[+-]?\d", text), (c.id, text)
        seen |= {k for k, v in shown.items() if re.search(rf"{re.escape(v)} ?[+-]?\d", text)}
    assert seen == set(shown)                 # the details do write the stats, so spelt
    meaning = {"en": ("mana", "strength", "intelligence", "dexterity", "defense", "agility"),
               "ja": ("魔力", "腕力", "知力", "器用", "防御", "敏捷")}[lang]

    class NoGame:
        table = cards = None
    flat = lambda s: re.sub(r"\s+", " ", s)
    for where in (flat(help_text(lang, "draft")), flat(page_text(NoGame(), "build", lang))):
        for k, m in zip(("mana", "str", "int", "dex", "def", "agi"), meaning):
            short = STAT_SHORT[lang][k]
            assert re.search(rf"{short} ?=? ?{m}", where), (short, m)


@pytest.mark.parametrize("lang, said", [
    ("en", "Traveler's Boots (equipped): unused"), ("ja", "装備中の旅人のブーツを未使用に")])
def test_a_hint_names_which_copy_of_a_card(lang, said):
    """Point 12: with one Traveler's Boots equipped and another materialized, `h` said
    "Hint: Traveler's Boots: unused" — which one? The hint names the copy by where it is;
    a card without another copy elsewhere is named alone, as before."""
    from types import SimpleNamespace
    from ai.explain import reason_text
    from ai.normal import R
    obs = SimpleNamespace(hand=("leather_cap",), picks=(), equipped=("travelers_boots", "iron_helm"),
                          materialized=("travelers_boots#2",))
    text = reason_text(R("assign", card="travelers_boots", to="unused"), CARDS, lang, obs=obs)
    assert text == said
    alone = reason_text(R("assign", card="iron_helm", to="unused"), CARDS, lang, obs=obs)
    assert alone == reason_text(R("assign", card="iron_helm", to="unused"), CARDS, lang)
    assert CARDS.card("iron_helm").name.get(lang) in alone and "(" not in alone


def _auction_step(cards, second: bool):
    """§5-3 金鷹《競売》 offered to seat 0 (Golden Hawk) on a tie of 3s on the short sword
    with seat 1; `second`: seat 0 also put a single 5 on it (greaves), which wins it."""
    from conftest import bidding_position, run
    from rules.actions import Pass, PlaceBid
    hands = {0: ("greaves#1", "iron_helm#1"), 1: ("gauntlets#1",), 2: ("ring#1",)}
    state = bidding_position(cards, 3, hands=hands, current=("short_sword", "dagger", "axe", "mace"),
                             guilds=("golden_hawk", "red_lion", "blue_wolf"), leader=0)
    moves = [PlaceBid(0, "short_sword", "iron_helm#1"), PlaceBid(1, "short_sword", "gauntlets#1"),
             Pass(2)]
    moves += [PlaceBid(0, "short_sword", "greaves#1"), Pass(1)] if second else [Pass(0), Pass(1)]
    state, _ = run(state, *moves)
    return state


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_the_ai_keeps_auction_when_its_single_bid_already_wins(cards, level):
    """Point 14: a hard AI used Auction on a tie (3 and 3) on a target its single 5 already
    won, saying "Auction wins Short Sword" — the raise changed nothing and Auction is
    once a game (§5-3 「武器入札中に1回だけ」). It keeps it then; it still uses it when the
    raise is what wins the target (the same tie without the 5)."""
    from ai import make_player
    from rules import legal_actions, observe, pending
    from rules.actions import Decline, UseAuction
    from rules.bidding import resolve_target
    for second in (True, False):
        state = _auction_step(cards, second)
        assert pending(state).kind == "auction" and pending(state).seats == (0,)
        won = resolve_target("short_sword", state.bidding.bids).winner
        assert won == (0 if second else None)
        player = make_player(level, 1, cards)
        obs = observe(state, 0)
        action, reason = player.choose_explained(obs, legal_actions(state, 0)) \
            if hasattr(player, "choose_explained") else (player.choose(obs, obs.legal), None)
        if second:
            assert isinstance(action, Decline) and reason.key == "auction_keep", (action, reason)
        else:
            assert isinstance(action, UseAuction) and reason.key == "auction", (action, reason)


@pytest.mark.parametrize("lang, unit", [("en", "expected VP"), ("ja", "見込みの勝利点")])
def test_the_ai_reasons_say_their_units_and_keep_a_percentage_whole(lang, unit):
    """Point 14: "expected 0.51 if drawing, 0.08 if stopping" had no unit (they are
    victory points, a point of damage adding a little: ai.normal `_utility`), and
    "(about 6 % wins …)" broke between the 6 and the % in the log. At every width the
    log may have, a figure and its % stay on one line."""
    from ai.explain import reason_text
    from ai.normal import R
    from tactical_tui.text.i18n import break_lines
    for key in ("draw", "stop"):
        text = reason_text(R(key, total=2, go=0.51, stop=0.08), CARDS, lang)
        assert unit in text and "0.51" in text and "0.08" in text, text
    searched = [reason_text(R("attack", card="fire_bolt", target=1, value=0.4, win=0.06, sims=200),
                            CARDS, lang),
                reason_text(R("draw", total=2, go=0.61, stop=0.4, win=0.61, sims=200), CARDS, lang),
                reason_text(R("confirm_plan", win=37), CARDS, lang)]
    for text in searched:
        assert "%" in text, text
        for width in range(12, len(text) + 2):
            lines = break_lines(text, width)
            for before, after in zip(lines, lines[1:]):
                assert not after.lstrip().startswith("%"), (width, lines)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_text_is_whole_at_80_columns(lang, tmp_path):
    """Point 8, at 80×24: the build's Footer at a server's table (the chat key added) was
    cut ("… c Confirm / C"), and the watcher's top bar lost the end of its status
    ("… choosing ta…"). The build's Footer leaves Enter out (e and u say what it does),
    the watcher's top bar leaves the phase out before it cuts the status."""
    import asyncio
    import tactical_tui.app as appmod
    from textual.widgets import Static
    from tactical_tui.screens.online.remote import SpectatorScreen, remote_screen
    from tactical_tui.screens.battle import BattleScreen
    from tactical_tui.screens.build import BuildScreen
    from tactical_tui.widgets.base import localized
    from tui_app import screen_text

    kinds = {k: remote_screen(k, 0) for k in appmod.phase_screens()}
    chat = {"en": "/ Chat", "ja": "/ チャット"}[lang]

    async def run():
        app = _saved_when(tmp_path, 6, lambda table: table.state.phase == "build"
                          and table.human_to_act() == 0, lang, delay=0.2)
        real = appmod.phase_screens
        appmod.phase_screens = lambda: kinds           # a seat's screens at a server's table
        try:
            async with app.run_test(size=(80, 24)) as pilot:
                await _play_until(app, pilot, lambda: isinstance(app.screen, BuildScreen))
                await pilot.pause(0.1)
                footer = screen_text(app).splitlines()[-1]
                assert footer.rstrip().endswith(chat), footer
                await _play_until(app, pilot, lambda: isinstance(app.screen, BattleScreen)
                                  and not app.screen.my_turn())
                app.live.table = "6884e9ac"            # a server's table id
                watcher = localized(SpectatorScreen, lang)(0, "battle")
                watcher.latest = app.feeds[0].latest
                await app.push_screen(watcher)
                await pilot.pause(0.1)
                bar = str(watcher.query_one("#topbar", Static).render())
                assert not watcher.my_turn() and bar.endswith(watcher.status()), bar
        finally:
            appmod.phase_screens = real
    asyncio.run(run())


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_battle_seats_panel_names_every_player_whole(lang, tmp_path):
    """Point 8: at a server's table the battle's seats panel cut the players' names
    ("Seat 3 han…"). A name that does not fit beside the seat's figures is written with
    the seat as the field marks it: "③ hanako12"; the figures stay whole."""
    import asyncio
    from textual.widgets import Static
    from tactical_tui.screens.battle import BattleScreen

    async def run():
        app = _saved_when(tmp_path, 6, lambda table: table.state.phase == "battle"
                          and table.human_to_act() == 0, lang)
        async with app.run_test(size=(80, 24)) as pilot:
            await _play_until(app, pilot, lambda: isinstance(app.screen, BattleScreen))
            app.live.player_names = {1: "hanako12", 2: "carol", 3: "山田花子"}  # (8 cells at most)
            import attrs
            scr = app.screen                 # every seat a person's, as at a server's table
            latest = app.feeds[0].latest
            scr.show(attrs.evolve(latest, seats=("human",) * len(latest.seats)))
            await pilot.pause(0.1)
            text = str(scr.query_one("#seats", Static).render())
            assert "…" not in text, text
            for name in ("hanako12", "carol", "山田花子"):
                assert name in text, text
            for row in text.splitlines():
                if row.strip():
                    assert "HP" in row and "VP" in row, text
    asyncio.run(run())


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_drafts_guild_line_says_what_every_trait_does(lang):
    """Point 8: on the draft's Info panel border the English guild line dropped the
    trait's effect ("Black Iron Guild: Ore Vein"; Japanese: 黒鉄ギルド《鉱脈》 マテリアル+2).
    For every guild, in both languages, the line on the border at 80×24 says the effect
    and is drawn whole."""
    import asyncio
    from textual.widgets import Static
    from tactical_tui.screens.howto import SHORT, TIGHT, guild_line
    from tactical_tui.screens.draft import DraftScreen
    from tui_app import screen_text

    async def run():
        app = _app(lang, 6)
        async with app.run_test(size=(80, 24)) as pilot:
            await _play_until(app, pilot, lambda: isinstance(app.screen, DraftScreen)
                              and app.screen.ready)
            await pilot.pause(0.1)
            scr = app.screen
            side = scr.query_one("#info", Static)
            mine = app.table.state.seats[0].guild
            assert side.border_subtitle == guild_line(CARDS, mine, lang, side.outer_size.width - 6)
            for g in CARDS.guilds:
                line = guild_line(CARDS, g.id, lang, side.outer_size.width - 6)
                effects = [t[g.trait.kind][lang].format(n=g.trait.amount)
                           for t in (SHORT, TIGHT) if g.trait.kind in t]
                assert any(line.endswith(e) for e in effects), line
                side.border_subtitle = line
                await pilot.pause(0.05)
                assert line in screen_text(app), line
    asyncio.run(run())


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_under_a_dialog_the_old_phases_board_is_hidden_once_the_table_moves_on(lang):
    """Point 9: the help is open while the table goes from the bidding to the build; the
    bidding board beneath (its keys in the Footer) is not the table's any more: its top
    bar says the build, and its board and Footer are hidden, so they do not show in the
    moment between the dialog closing and the build's screen coming up."""
    import asyncio
    from textual.widgets import Footer, Static
    from tactical_tui.screens.bid import BidScreen
    from tactical_tui.screens.build import BuildScreen
    from tui_app import dialog_open, settle
    build = {"en": "The build", "ja": "ビルド"}[lang]

    async def run():
        app = _app(lang, 6, delay=0.3)
        async with app.run_test(size=(80, 24)) as pilot:
            await _play_until(app, pilot, lambda: isinstance(app.screen, BidScreen)
                              and app.table.state.bidding is not None
                              and app.table.state.bidding.round == 3
                              and app.table.human_to_act() == 0 and not dialog_open(app)
                              and app.screen.my_turn() and app.screen.ready)
            await pilot.pause(0.05)
            await settle(app, pilot, "p")             # the last round: the AIs go on …
            assert app.table.human_to_act() != 0
            app.action_help()                         # … under the help (a key typed now
            await pilot.pause(0.05)                   # would wait for the next question)
            assert type(app.screen).__name__.startswith("HelpScreen")
            for _ in range(400):
                if app.table.state.phase == "build":
                    break
                await pilot.pause(0.02)
            await pilot.pause(0.2)
            beneath = app.screen_stack[-2]
            assert isinstance(beneath, BidScreen) and not isinstance(beneath, BuildScreen)
            assert str(beneath.query_one("#topbar", Static).render()).startswith(build)
            assert not beneath.query_one("#body").display
            assert not beneath.query_one(Footer).display
            await pilot.press("escape")
            await pilot.pause(0.3)
            while not isinstance(app.screen, BuildScreen):
                await settle(app, pilot, "escape")   # (the bid results first)
            assert app.screen.query_one("#body").display
    asyncio.run(run())
