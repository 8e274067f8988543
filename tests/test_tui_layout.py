"""Readable at 80×24 in both languages (issue 15 point 6): card names are never cut
mid-word in a list, Japanese lines break by the usual rules (禁則処理), the help shows its
markers, the game-over VP history is whole and scrolls, a target and its ★critical mark
share a line, seats and areas differ on the field, and the log and the AI's reasons say
what they mean in words (damage "2 × 1 = 2", plural forms, rest at full mana)."""

from __future__ import annotations

import asyncio
import re
import string

import pytest
from rich.cells import cell_len
from rich.text import Text
from textual.widgets import OptionList

from ai.explain import _T, reason_text
from ai.normal import R
from rules import events as E
from rules.cards import load_cards
from rules.build import final_stats
from tactical_tui.screens.help import help_text
from tactical_tui.text.i18n import NO_END, NO_START, TUI, Wrapped, break_lines, clip, pad, t
from tactical_tui.screens.battle import BattleScreen, seat_mark
from tactical_tui.screens.bid import BidScreen
from tactical_tui.screens.build import BuildScreen
from tactical_tui.screens.draft import DraftScreen
from tactical_tui.screens.gameover import GameOverScreen
from tactical_tui.text.catalog import Describer
from tactical_tui.widgets.base import localized
from tui_app import dialog_open, human_turn, make_app, screen_text, settle

SHIPPED = load_cards()


# ------------------------------------------------------------------ line breaking

JA_SAMPLES = [
    "対象を選んでEnter、入札するカードを選んでEnter。pでパス。",
    "全員パスで同時公開。最高の単独入札者が獲得し、判定に使った1枚を捨てる。同額のプレイヤーは除外して次に高い単独入札を判定。",
    "注意: アタックカード未装備（バトルで行動不可）",
    "席1がアイアンガントレットを落札（入札価値3、星詠みのサークレットを支払い）",
    "「続きから」で再開できます。ゲームは自動保存されます、いつでも。",
]


def _check_lines(text: str, lines: list[str], width: int) -> None:
    assert all(cell_len(x) <= width for x in lines), lines
    assert "".join(x.strip() for x in lines).replace(" ", "") == text.replace(" ", "")
    for prev, line in zip(lines, lines[1:]):
        assert line.strip()[:1] not in NO_START, (prev, line)
        assert prev.rstrip()[-1:] not in NO_END, (prev, line)


@pytest.mark.parametrize("width", range(12, 60, 3))
def test_kinsoku_line_breaking(width):
    """No line starts with 、。）」 etc. or ends with （「; every line fits."""
    for text in JA_SAMPLES:
        _check_lines(text, break_lines(text, width), width)


def test_line_breaking_keeps_words_and_names_whole():
    """A katakana word, a Latin word, a number with its counter and a card name are not
    split across lines; the first break of the bidding help is after 入札する, not inside
    カード (the old rendering broke it as カー|ド)."""
    lines = break_lines("対象を選んでEnter、入札するカードを選んでEnter。pでパス。", 30)
    assert lines == ["対象を選んでEnter、入札する", "カードを選んでEnter。pでパス。"]
    name = "星詠みのサークレット"
    text = "席1がアイアンガントレットを落札（入札価値3、" + name + "を支払い）"
    for width in range(cell_len(name), 50):
        lines = break_lines(text, width, keep=[name, "アイアンガントレット"])
        assert any(name in x for x in lines), (width, lines)
        assert any("アイアンガントレット" in x for x in lines), (width, lines)
        assert not any(re.search(r"\d$", x) for x in lines[:-1]), lines   # 入札価値3 stays whole
    # a kanji compound is not split either (伏せて入|札 was)
    for width in range(8, 30):
        lines = break_lines("席1がマジックアローに伏せて入札", width)
        assert not any(x.endswith("入") for x in lines), lines
        # a piece wider than the line is still cut (by cells), never lost
    _check_lines("アイアンガントレット", break_lines("アイアンガントレット", 8), 8)


def test_kinsoku_fixes_what_plain_wrapping_gets_wrong():
    """Rich's own wrapping of the Japanese help puts 。 at the start of a line at 74 cells
    (the help dialog); `break_lines` does not."""
    body = help_text("ja", "bidding")
    naive = [str(x) for x in Text(body).wrap(__import__("rich").get_console(), 74)]
    assert any(x[:1] in NO_START for x in naive)
    lines = break_lines(body, 74)
    assert not any(x[:1] in NO_START for x in lines if x)


def test_clip_and_pad_show_a_cut():
    assert clip("アイアンガントレット", 15) == "アイアンガント…"
    assert clip("Iron Gauntlets", 20) == "Iron Gauntlets"
    for width in range(1, 22):
        assert cell_len(pad("アイアンガントレット", width)) == width
        cut = clip("アイアンガントレット", width)
        assert cut == "アイアンガントレット" or cut.endswith("…")


def test_wrapped_renderable_breaks_at_the_drawn_width():
    from rich.console import Console
    console = Console(width=30, record=True, file=open("/dev/null", "w"))
    console.print(Wrapped(Text(JA_SAMPLES[1])))
    lines = [x.rstrip() for x in console.export_text().splitlines()]
    _check_lines(JA_SAMPLES[1], lines, 30)


# ------------------------------------------------------------------ the screens

def _rows(app, ol: OptionList) -> list[tuple[str, str]]:
    """(option id, prompt text) of every option of a list."""
    return [(ol.get_option_at_index(i).id, str(ol.get_option_at_index(i).prompt))
            for i in range(ol.option_count)]


def _card_of(option_id: str):
    cid = option_id.split(":", 1)[-1]
    return SHIPPED.card(cid)


def _check_card_rows(app, text: str, list_id: str, lang: str) -> int:
    """Every row of the list names its card whole, or a prefix of it with "…"; the row is
    drawn on one line of the screen. Returns how many rows were checked."""
    ol = app.screen.query_one(list_id, OptionList)
    shown = text.splitlines()
    n = 0
    top, height = int(ol.scroll_y), ol.scrollable_content_region.height
    for i, (oid, prompt) in enumerate(_rows(app, ol)):
        if not oid or not top <= i < top + height:      # (rows scrolled out of sight)
            continue
        name = _card_of(oid).name.get(lang)
        if name not in prompt:
            m = re.search(r"(\S[^…]*)…", prompt)
            assert m and name.startswith(m.group(1).split("] ")[-1].strip()), (name, prompt)
        assert any(prompt.strip() in line for line in shown), (prompt, text)
        n += 1
    return n


def _check_kinsoku_on_screen(text: str) -> None:
    """No drawn line (inside the panels' borders) starts with a character that may not
    start a line."""
    for line in text.splitlines():
        for part in re.split(r"[│┃]", line):
            inner = part.strip()
            if inner and part.startswith(" ") and len(part) > 3:
                assert inner[0] not in NO_START or cell_len(inner[0]) == 1, (inner, text)


async def _stable(app, pilot) -> str:
    last, same = None, 0
    for _ in range(400):
        await pilot.pause(0.02)
        text = screen_text(app)
        same = same + 1 if text == last else 0
        if same >= 2:
            return text
        last = text
    return last


def _play(lang: str, seed: int, check) -> dict:
    """A quick game at 80×24 (H on the human's turns, Enter on dialogs); `check(app,
    pilot, screen_type)` runs once per phase screen when the human is to act."""
    async def run():
        app = make_app(lang, seed=seed)
        seen: dict = {}
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter")
            for _ in range(20000):
                await pilot.pause(0.005)
                scr = app.screen
                kind = type(scr).__mro__[1] if type(scr).__name__.endswith(("_ja", "_en")) else type(scr)
                if kind in (DraftScreen, BidScreen, BuildScreen, BattleScreen) and kind not in seen \
                        and not app.busy and app.table.human_to_act() == 0 \
                        and (app.table.ai_to_act() is None or app.table.state.phase not in ("draft", "build")):
                    seen[kind] = await check(app, pilot, kind)
                    if kind is BattleScreen:
                        return seen
                    continue
                if dialog_open(app):
                    await settle(app, pilot, "enter")
                elif human_turn(app):
                    await settle(app, pilot, "H")
            raise AssertionError(f"not all screens reached: {seen}")
    return asyncio.run(run())


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_screens_at_80x24(lang):
    """The draft, bid, build and battle screens of a quick game at 80×24: every card row
    names its card whole (or visibly shortened), no Japanese line starts with 、。）,
    the battle's seat rows are one line each, seats and areas look different on the
    field, rest at full mana says it gains nothing, a target with ★critical fits one line
    of the action list, and the help shows [n] and !n! as written."""

    async def check(app, pilot, kind):
        text = await _stable(app, pilot)
        assert len(text.splitlines()) == 24
        _check_kinsoku_on_screen(text)
        scr = app.screen
        checked = 0
        if kind is DraftScreen:
            checked += _check_card_rows(app, text, "#hand", lang)
            for c in app.table.observe(0).targets:
                assert SHIPPED.card(c).name.get(lang) in text
        elif kind is BidScreen:
            checked += _check_card_rows(app, text, "#targets", lang)
            checked += _check_card_rows(app, text, "#hand", lang)
            obs = app.table.observe(0)
            seats = str(scr.query_one("#seats").render())
            assert "leads passed" not in seats and "leads" not in seats
            lead = t("seat", lang, n=obs.leader + 1)
            assert any(x.startswith(lead) and t("bid.leader", lang) in x for x in seats.splitlines()), seats
        elif kind is BuildScreen:
            checked += _check_card_rows(app, text, "#cards", lang)
        elif kind is BattleScreen:
            obs = app.table.observe(0)
            # seat rows: one line each
            seats = str(scr.query_one("#seats").render()).splitlines()
            assert len(seats) == len(obs.seats)
            # the field: area numbers 1–6 once each, seats as @ / circled numbers
            field = str(scr.query_one("#field").render()).splitlines()
            digits = sorted(int(d) for row in field[:3] for d in re.findall(r"\d", row))
            assert digits == [1, 2, 3, 4, 5, 6], field
            for s in obs.seats:
                if s.area is not None:
                    assert seat_mark(s.seat, 0) in "".join(field[:3])
            # rest at full mana
            me = obs.seats[0]
            labels = [str(o.prompt) for o in (scr.query_one("#actions", OptionList).get_option_at_index(i)
                                              for i in range(scr.query_one("#actions", OptionList).option_count))]
            if me.mana >= final_stats(app.table.cards, me.race, me.equipped)["mana"]:
                rests = [x for x in labels if x.startswith(t("act.rest", lang)[:2])]
                assert rests and all(x == t("act.rest_full", lang) for x in rests), labels
            # a target and its ★critical mark fit one line of the action list
            room = scr.query_one("#actions", OptionList).scrollable_content_region.width
            for n in range(1, 6):
                for name in (t("seat", lang, n=n) + "·AI", t("seat", lang, n=n)):
                    label = t("act.target", lang, seat=name, area=6, hp=6) + " " + t("act.crit", lang)
                    assert cell_len(label) <= room, (label, room)
            # every equipped card's name is whole on one line of the info panel
            for c in me.equipped:
                assert app.table.cards.card(c).name.get(lang) in text
            # every action is drawn on one line
            for label in labels:
                assert any(label in line for line in text.splitlines()), (label, text)
            # the help: markers as written
            await pilot.press("question_mark")
            help_screen = await _stable(app, pilot)
            assert "[n]" in help_screen and "!n!" in help_screen, help_screen
            _check_kinsoku_on_screen(help_screen)
            await pilot.press("escape")
        return checked

    seen = _play(lang, 21, check)
    assert set(seen) == {DraftScreen, BidScreen, BuildScreen, BattleScreen}
    assert seen[DraftScreen] >= 6 and seen[BidScreen] >= 6 and seen[BuildScreen] >= 4


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_game_over_shows_the_whole_vp_history_and_scrolls(lang):
    """Game over lists every VP gain, in order (not the last 8), in a panel that scrolls
    to the last one."""
    from tactical_tui.table.live import LogEntry

    async def run():
        app = make_app(lang, seed=21)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter")
            for _ in range(4000):
                await pilot.pause(0.005)
                if isinstance(app.screen, DraftScreen) and app.table.human_to_act() == 0:
                    break
            gains = [E.VictoryPointsGained(i % 4, (i + 1) % 4, 1 + i % 3, "low", i + 1)
                     for i in range(30)]
            app.feeds[0].log.extend(LogEntry(event=g) for g in gains)   # seat 0's view
            over = localized(GameOverScreen, lang)(0, "over")
            over.latest = app.feeds[0].latest
            app.push_screen(over)
            await _stable(app, pilot)
            body = str(app.screen.query_one("#standings").render())
            rows = [x for x in body.splitlines() if re.match(r"\s*\d+\. ", x) and "→" in x]
            assert len(rows) == 30
            for n, (row, g) in enumerate(zip(rows, gains), 1):
                assert row.strip().startswith(f"{n}. {t('seat', lang, n=g.seat + 1)} +{g.amount}")
            scroll = app.screen.query_one("#over-scroll")
            assert scroll.max_scroll_y > 0
            assert "30. " not in screen_text(app)
            await pilot.press("end")
            await _stable(app, pilot)
            assert scroll.scroll_y > 0 and "30. " in screen_text(app)
    asyncio.run(run())


# ------------------------------------------------------------------ the log's words

def _attack(d: Describer, targets: list[int], total: int, damage: dict[int, int]) -> list[str]:
    card = SHIPPED.attack[0]
    out = [d.describe(E.AttackStarted(0, card.id, card.skills[0].id))]
    out += [d.describe(E.TargetChosen(0, x)) for x in targets]
    out.append(d.describe(E.BagFilled(0, ("0", "1", "1", "2", "miss"))))
    out.append(d.describe(E.DrawEnded(0, "stop", total)))
    out += [d.describe(E.DamageDealt(0, x, n, 6 - n)) for x, n in damage.items()]
    return out


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_damage_that_differs_from_the_chip_total_is_explained(lang):
    """§6 バトルチップとダメージ: the same seat chosen twice takes the damage twice — the log
    says "2 × 1 = 2"; a target whose skills change the damage is named with the chip
    total; damage equal to the chip total gets no note."""
    d = Describer(SHIPPED, lang)
    lines = _attack(d, [2, 2], 1, {2: 2})
    assert "2 × 1 = 2" in lines[-1]
    assert lines[2].endswith("（2回目）" if lang == "ja" else "(chosen 2 times)")
    assert lines[1] in ("ターゲット: 席3", "Target: Seat 3")
    assert ("2回" if lang == "ja" else "chosen 2 times") in lines[-1]
    lines = _attack(d, [1], 3, {1: 2})
    assert ("チップ合計3" if lang == "ja" else "chips total 3") in lines[-1]
    lines = _attack(d, [1, 3], 2, {1: 2, 3: 2})
    assert "×" not in lines[-1] and "×" not in lines[-2]
    assert lines[-1] == (f"席4に2ダメージ（体力4）" if lang == "ja" else "Seat 4 takes 2 damage (HP 4)")


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_the_log_says_whose_bag(lang):
    d = Describer(SHIPPED, lang)
    card = SHIPPED.attack[0]
    d.describe(E.AttackStarted(2, card.id, card.skills[0].id, counter=True, target=0))
    line = d.describe(E.BagFilled(2, ("1", "miss")))
    assert line.startswith("席3のカウンター用" if lang == "ja" else "Seat 3's counter bag")
    d.describe(E.AttackStarted(1, card.id, card.skills[0].id))
    line = d.describe(E.BagFilled(1, ("1", "miss")))
    assert line.startswith("席2のアタック用" if lang == "ja" else "Seat 2's attack bag")


def test_plural_forms():
    """No "1 cards": every English catalogue string with a count reads right for 1."""
    filler = {k: "x" for k in ("who", "keep", "pid", "seats", "where", "date", "r", "name")}
    bad = re.compile(r"\b1 (cards|games|bids|humans|seats|chips|targets)\b")
    for key, table in TUI.items():
        if key.endswith(".one") or "{n}" not in table.get("en", ""):
            continue
        fields = {f for _, f, _, _ in string.Formatter().parse(table["en"]) if f}
        text = t(key, "en", n=1, **{f: filler.get(f, "x") for f in fields if f != "n"})
        assert not bad.search(text), (key, text)
    assert t("draft.left", "en", n=1) == "1 card left"
    assert t("draft.left", "en", n=2) == "2 cards left"
    assert t("bid.face_down", "en", n=1) == "1 bid down"
    d = Describer(SHIPPED, "en")
    assert "(1 card left)" in d.describe(E.HandsPassed(1))
    assert "(1 card)" in d.describe(E.DeckReshuffled("attack", 1))
    assert "(3 cards)" in d.describe(E.DeckReshuffled("attack", 3))


def test_rest_at_full_mana_says_it_gains_nothing():
    for lang in ("ja", "en"):
        full = t("act.rest_full", lang)
        assert full != t("act.rest", lang)
        assert ("回復なし" if lang == "ja" else "no gain") in full
        assert "+1" not in full


# ------------------------------------------------------------------ the AI's reasons

_SAMPLE = {"card": SHIPPED.attack[0].id, "target": 2, "skill": SHIPPED.attack[0].skills[0].id,
           "race": SHIPPED.races[0].id, "use": "equip", "to": "equip", "value": 3, "worth": 2.3,
           "gain": "+1.5", "score": 12.3, "win": 0.42, "area": 4, "mana": 3, "total": 2,
           "go": 1.16, "stop": 0.99}
_BARE = re.compile(r"\d(?:\.\d+)?\s*[<>≥≤]=?\s*\d|[(（]\s*\d+(?:\.\d+)?\s*[)）]")


@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize("searched", [False, True])
def test_ai_reasons_are_sentences(lang, searched):
    """Every reason reads as a sentence: no bare comparison such as 1.16 ≥ 0.99, no
    number in brackets without a word, and the figures named (expected, %)."""
    keys = [k for k in _T if "." not in k and k != "search" and not k.endswith("_search")]
    for key in keys:
        params = dict(_SAMPLE)
        if key in ("attack",):
            params["card"] = SHIPPED.attack[0].id
        elif key in ("draft", "draft_plan", "pay", "assign", "remove"):
            params["card"] = SHIPPED.defense[0].id
        if key in ("bid", "bid_plan", "bid_unarmed", "auction", "appraise"):
            params["target"], params["card"] = SHIPPED.attack[0].id, SHIPPED.defense[0].id
        if searched:
            params["sims"] = 120
            if key in ("draw", "stop"):
                params["go"], params["stop"] = (0.42, 0.3) if key == "draw" else (0.3, 0.42)
        elif key != "confirm_plan":        # (the planner's own percentage)
            params.pop("win")
        text = reason_text(R(key, **params), SHIPPED, lang)
        assert not _BARE.search(text), (key, text)
        assert "{" not in text
        if key in ("draw", "stop"):
            if searched:
                flat = text.replace("\u00a0%", "%").replace(" %", "%")    # (a no-break space: issue 32)
                assert "42%" in flat and "30%" in flat
            else:
                assert ("見込み" if lang == "ja" else "expected") in text


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_card_line_never_cuts_a_name_silently(lang):
    """At any width a list gives it, a card's row shows the whole name or a visible
    prefix with "…" — never a name cut mid-word without a mark (`(次回) ジャベリ`)."""
    from tactical_tui.widgets.base import card_line
    for width in range(20, 46):
        for card in SHIPPED.defense + SHIPPED.attack:
            for extra in ("", "[装] ", "[E] "):
                row = str(card_line(SHIPPED, card.id, lang, width, extra=extra))
                assert cell_len(row) <= max(width, cell_len(extra) + 4 + 1 + 19), (row, width)
                name = card.name.get(lang)
                if name not in row:
                    head = row[len(extra):].split("…")[0]
                    assert "…" in row and name.startswith(head), (name, row, width)


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_a_knocked_out_seat_row_stays_one_line(lang):
    """The battle's seat rows (BattleScreen.seats_text) at the worst figures — two-digit
    mana, a knocked-out seat — are one line each within the panel, the mark kept."""
    from types import SimpleNamespace as NS
    from tactical_tui.screens.battle import SEAT_ROW
    race = SHIPPED.races[0].id
    seats = [NS(seat=i, hp=0 if i == 1 else 6, mana=10, vp=4, unluck=2, area=None if i == 1 else 3,
                knocked_out=i == 1, race=race, equipped=()) for i in range(5)]
    obs = NS(seats=seats, order=list(range(5)), battle=NS(turn=NS(seat=1)))
    names = {0: t("seat", lang, n=1) + "(" + t("you", lang) + ")"}
    fake = NS(obs=obs, cards=SHIPPED, lang=lang, seat=0,
              seat_name=lambda i: names.get(i, t("seat", lang, n=i + 1) + "·AI"),
              is_human=lambda i: i == 0, player_name=lambda i: "",
              tr=lambda key, **kw: t(key, lang, **kw))
    fake.seat_label = lambda i, room: BattleScreen.seat_label(fake, i, room)
    rows = str(BattleScreen.seats_text(fake)).splitlines()
    assert len(rows) == 5
    assert all(cell_len(r) <= SEAT_ROW for r in rows), rows
    assert rows[1].endswith(t("battle.out", lang)), rows
    assert all(r.endswith(t("battle.at", lang, area=3)) for i, r in enumerate(rows) if i != 1)
